// PNG encoding of a Cairo image surface's pixels, fast (Cairo's own writer goes through
// libpng with zlib's default level: several times slower on a chart). No Cairo or zlib type crosses into Swift: pixels in, bytes out.
#ifndef CW_PNG_H
#define CW_PNG_H

#include <stddef.h>
#include <stdint.h>

/// How rows are filtered before deflate (PNG filter types).
typedef enum { CW_PNG_FILTER_NONE = 0, CW_PNG_FILTER_SUB = 1, CW_PNG_FILTER_UP = 2 } cw_png_filter;

/// Encodes `height` rows of `width` pixels, each a native-endian 32-bit premultiplied
/// ARGB word (Cairo's CAIRO_FORMAT_ARGB32), rows `stride` bytes apart. An image whose
/// every pixel is opaque is written as RGB, else as RGBA (un-premultiplied). `level` 0
/// is this file's own single-pass deflate (fixed codes, matches of a repeated byte or
/// pixel only: the fastest, for charts' flat fills after the Up filter); 1 to 9 are
/// zlib's levels, with `rle` picking zlib's Z_RLE strategy. On success
/// returns a malloc'd buffer (free with cw_png_free) and sets `*length`; NULL when out
/// of memory or the size is not encodable.
uint8_t *cw_png_encode(const uint8_t *pixels, int width, int height, int stride,
                       int level, int rle, cw_png_filter filter, size_t *length);
void cw_png_free(uint8_t *png);

#endif

// JPEG (libjpeg-turbo) and GIF (giflib, first frame) decoding into the pixels of a Cairo
// image surface. No libjpeg or giflib type crosses into Swift: bytes in, pixels out.
#ifndef CW_IMAGE_H
#define CW_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/// Decodes a JPEG into `*width`×`*height` native-endian 32-bit premultiplied ARGB words
/// (Cairo's CAIRO_FORMAT_ARGB32, all opaque), rows `width`·4 bytes apart. Grayscale,
/// YCbCr/RGB and CMYK/YCCK (Adobe's inverted convention when the Adobe marker says so)
/// are converted to RGB. Returns NULL, never exits or crashes, for bytes that do not
/// decode or end before their end-of-image marker (libjpeg's errors longjmp back here), for a side of 0 or more than `max_side`,
/// more than 1000 progressive scans, or no memory. Free the result with cw_image_free.
uint32_t *cw_jpeg_decode(const uint8_t *bytes, size_t length, int max_side, int *width, int *height);

/// Decodes a GIF's first frame onto its logical screen (`*width`×`*height`, each 1 to
/// `max_side`), in the same pixel layout: the frame's transparent index (its graphic
/// control extension) and the screen outside the frame are transparent (0), an index
/// past the colour map too. Interlaced frames are put back in row order. NULL as above.
uint32_t *cw_gif_decode(const uint8_t *bytes, size_t length, int max_side, int *width, int *height);

void cw_image_free(uint32_t *pixels);

#endif

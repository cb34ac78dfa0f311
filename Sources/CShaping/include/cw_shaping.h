// Text shaping with HarfBuzz, the shaper Chromium uses, behind a small C API that
// takes bytes and code points (no HarfBuzz types cross into Swift).
#ifndef CW_SHAPING_H
#define CW_SHAPING_H

#include <stddef.h>
#include <stdint.h>

typedef struct cw_face cw_face;

/// A face from the bytes of a TrueType/OpenType font or collection (`index` picks the
/// face in a collection). The bytes are copied. NULL when they hold no such face.
cw_face *cw_face_create(const uint8_t *bytes, size_t length, unsigned index);
/// A face of the font file or collection at `path`, mapped, not read: HarfBuzz maps the
/// file read-only, so only the pages it uses become resident, shared with the page
/// cache. NULL when the file cannot be opened or holds no such face.
cw_face *cw_face_create_from_file(const char *path, unsigned index);
/// The size in bytes of the font file at `path` if it holds a usable face `index`, else
/// -1. Maps the file, reads its header, `head` and `maxp`, and unmaps it again.
int64_t cw_font_file_probe(const char *path, unsigned index);
void cw_face_destroy(cw_face *face);

/// The face's design units per em (what advances are measured in).
unsigned cw_face_units_per_em(const cw_face *face);
/// Whether the face maps `codepoint` to a glyph of its own (not .notdef).
int cw_face_has_glyph(const cw_face *face, uint32_t codepoint);

/// The summed advance, in font units, of `text[start ..< start + length]` shaped as one
/// run of `script` (an ISO 15924 tag as HarfBuzz spells it; 0 = guess), with the rest of
/// `text` as context (so Arabic letters join across run edges, as in a browser) and the
/// features a browser applies by default.
int64_t cw_shape_advance(const cw_face *face, const uint32_t *text, size_t count,
                         size_t start, size_t length, uint32_t script);

/// Shapes `text[start ..< start + length]` as `cw_shape_advance` does and writes up to
/// `capacity` glyphs: ids (of the face's font file, as FreeType numbers them) and pen
/// positions in font units, x from the run's start (offsets applied), y upwards as
/// OpenType measures it. Returns the glyph count (more than `capacity` means the
/// arrays were too small: call again with room for that many) and the run's summed
/// advance in `*advance`. Glyphs come in visual order (right-to-left runs reversed).
size_t cw_shape_glyphs(const cw_face *face, const uint32_t *text, size_t count,
                       size_t start, size_t length, uint32_t script,
                       uint32_t *glyphs, int32_t *xs, int32_t *ys, size_t capacity, int64_t *advance);

/// The Unicode script of `codepoint` as a HarfBuzz tag ('Zyyy' common, 'Zinh' inherited).
uint32_t cw_script(uint32_t codepoint);

#endif

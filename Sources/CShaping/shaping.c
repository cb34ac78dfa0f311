#include "cw_shaping.h"

#include <hb.h>
#include <stdlib.h>

struct cw_face {
    hb_font_t *font;
    unsigned upem;
};

// A face from a blob (which it references, not copies); NULL when the blob holds no
// usable face `index`. Consumes the caller's reference to `blob`.
static cw_face *face_from_blob(hb_blob_t *blob, unsigned index) {
    if (blob == NULL) return NULL;
    if (index >= hb_face_count(blob)) { hb_blob_destroy(blob); return NULL; }
    hb_face_t *face = hb_face_create(blob, index);
    hb_blob_destroy(blob);
    unsigned upem = hb_face_get_upem(face);
    if (hb_face_get_glyph_count(face) == 0 || upem == 0) { hb_face_destroy(face); return NULL; }
    hb_font_t *font = hb_font_create(face);
    hb_face_destroy(face);
    // Scale = units per em: advances come back in font units, unhinted, as a browser
    // with subpixel positioning measures them.
    hb_font_set_scale(font, (int)upem, (int)upem);
    cw_face *out = malloc(sizeof *out);
    if (out == NULL) { hb_font_destroy(font); return NULL; }
    out->font = font;
    out->upem = upem;
    return out;
}

cw_face *cw_face_create(const uint8_t *bytes, size_t length, unsigned index) {
    if (bytes == NULL || length == 0 || length > UINT32_MAX) return NULL;
    // HB_MEMORY_MODE_DUPLICATE: HarfBuzz keeps its own copy, the caller's bytes may go.
    return face_from_blob(hb_blob_create((const char *)bytes, (unsigned)length, HB_MEMORY_MODE_DUPLICATE, NULL, NULL),
                          index);
}

cw_face *cw_face_create_from_file(const char *path, unsigned index) {
    if (path == NULL) return NULL;
    // Maps the file read-only (mmap): only the pages HarfBuzz touches become resident,
    // and they are the page cache's, not a copy.
    return face_from_blob(hb_blob_create_from_file_or_fail(path), index);
}

int64_t cw_font_file_probe(const char *path, unsigned index) {
    if (path == NULL) return -1;
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (blob == NULL) return -1;
    int64_t length = hb_blob_get_length(blob);
    int ok = 0;
    if (length > 0 && index < hb_face_count(blob)) {
        hb_face_t *face = hb_face_create(blob, index);
        ok = hb_face_get_glyph_count(face) > 0 && hb_face_get_upem(face) > 0;
        hb_face_destroy(face);
    }
    hb_blob_destroy(blob);
    return ok ? length : -1;
}

void cw_face_destroy(cw_face *face) {
    if (face == NULL) return;
    hb_font_destroy(face->font);
    free(face);
}

unsigned cw_face_units_per_em(const cw_face *face) { return face->upem; }

int cw_face_has_glyph(const cw_face *face, uint32_t codepoint) {
    hb_codepoint_t glyph = 0;
    return hb_font_get_nominal_glyph(face->font, codepoint, &glyph) && glyph != 0;
}

/// `text[start ..< start + length]` shaped as one run of `script` (0 = guess) with the
/// rest of `text` as context: the buffer both shaping calls read. The caller destroys it.
static hb_buffer_t *shaped_run(const cw_face *face, const uint32_t *text, size_t count,
                               size_t start, size_t length, uint32_t script) {
    hb_buffer_t *buffer = hb_buffer_create();
    hb_buffer_add_utf32(buffer, text, (int)count, (unsigned)start, (int)length);
    if (script != 0) {
        hb_buffer_set_script(buffer, (hb_script_t)script);
        hb_buffer_set_direction(buffer, hb_script_get_horizontal_direction((hb_script_t)script));
    }
    hb_buffer_guess_segment_properties(buffer);
    hb_shape(face->font, buffer, NULL, 0);
    return buffer;
}

int64_t cw_shape_advance(const cw_face *face, const uint32_t *text, size_t count,
                         size_t start, size_t length, uint32_t script) {
    if (length == 0 || start + length > count || count > INT32_MAX) return 0;
    hb_buffer_t *buffer = shaped_run(face, text, count, start, length, script);
    unsigned n = 0;
    const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buffer, &n);
    int64_t sum = 0;
    for (unsigned i = 0; i < n; i++) sum += pos[i].x_advance;
    hb_buffer_destroy(buffer);
    return sum;
}

size_t cw_shape_glyphs(const cw_face *face, const uint32_t *text, size_t count,
                       size_t start, size_t length, uint32_t script,
                       uint32_t *glyphs, int32_t *xs, int32_t *ys, size_t capacity, int64_t *advance) {
    *advance = 0;
    if (length == 0 || start + length > count || count > INT32_MAX) return 0;
    hb_buffer_t *buffer = shaped_run(face, text, count, start, length, script);
    unsigned n = 0;
    const hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buffer, &n);
    const hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buffer, &n);
    // HarfBuzz leaves a right-to-left run's glyphs in visual order already.
    int64_t pen = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i < capacity) {
            glyphs[i] = info[i].codepoint;
            xs[i] = (int32_t)(pen + pos[i].x_offset);
            ys[i] = pos[i].y_offset;
        }
        pen += pos[i].x_advance;
    }
    *advance = pen;
    hb_buffer_destroy(buffer);
    return n;
}

uint32_t cw_script(uint32_t codepoint) {
    return (uint32_t)hb_unicode_script(hb_unicode_funcs_get_default(), codepoint);
}

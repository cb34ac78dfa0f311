// JPEG and GIF decoding for the export's image commands (include/cw_image.h).
#include "cw_image.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <jpeglib.h>
#include <jerror.h>

void cw_image_free(uint32_t *pixels) { free(pixels); }

static inline uint32_t opaque(unsigned r, unsigned g, unsigned b) {
    return 0xFF000000u | (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

// MARK: JPEG

struct cw_jpeg_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
};

static void cw_jpeg_error_exit(j_common_ptr cinfo) {
    longjmp(((struct cw_jpeg_error *)cinfo->err)->jump, 1);
}

// Warnings (corrupt data libjpeg recovers from) are not printed to the server's stderr,
// but data that ends before the image does is refused: libjpeg would fill the rest grey.
static void cw_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }
static void cw_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF) cw_jpeg_error_exit(cinfo);
}

// A progressive JPEG of many tiny scans costs a pass over the coefficients each: cap them.
static void cw_jpeg_progress(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > 1000) cw_jpeg_error_exit(cinfo);
}

uint32_t *cw_jpeg_decode(const uint8_t *bytes, size_t length, int max_side, int *width, int *height) {
    if (!bytes || length == 0 || length > (size_t)0x7fffffff || max_side < 1) return NULL;
    struct jpeg_decompress_struct cinfo;
    struct cw_jpeg_error err;
    struct jpeg_progress_mgr progress = {0};
    // Written after setjmp and read after a longjmp: volatile.
    uint32_t *volatile out = NULL;
    JSAMPLE *volatile row = NULL;

    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = cw_jpeg_error_exit;
    err.mgr.output_message = cw_jpeg_output_message;
    err.mgr.emit_message = cw_jpeg_emit_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        free(row);
        return NULL;
    }
    jpeg_create_decompress(&cinfo);
    progress.progress_monitor = cw_jpeg_progress;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, bytes, (unsigned long)length);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) longjmp(err.jump, 1);
    if (cinfo.image_width < 1 || cinfo.image_height < 1 ||
        cinfo.image_width > (JDIMENSION)max_side || cinfo.image_height > (JDIMENSION)max_side) longjmp(err.jump, 1);
    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB:
        cinfo.out_color_space = JCS_RGB; break;
    case JCS_CMYK: case JCS_YCCK:
        cinfo.out_color_space = JCS_CMYK; cmyk = 1; break;
    default:
        longjmp(err.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    const size_t w = cinfo.output_width, h = cinfo.output_height;
    const int comps = cinfo.output_components;
    if (w != cinfo.image_width || h != cinfo.image_height || comps != (cmyk ? 4 : 3)) longjmp(err.jump, 1);
    out = malloc(w * h * 4);
    row = malloc(w * (size_t)comps);
    if (!out || !row) longjmp(err.jump, 1);
    // Adobe's CMYK JPEGs (Photoshop's) store the inks inverted; without the marker they
    // are plain ink amounts.
    const int inverted = cinfo.saw_Adobe_marker;
    while (cinfo.output_scanline < h) {
        const size_t y = cinfo.output_scanline;
        JSAMPROW rows[1] = { row };
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) longjmp(err.jump, 1);
        uint32_t *o = out + y * w;
        const JSAMPLE *p = row;
        if (cmyk) {
            for (size_t x = 0; x < w; x++, p += 4) {
                unsigned c = p[0], m = p[1], ye = p[2], k = p[3];
                if (!inverted) { c = 255 - c; m = 255 - m; ye = 255 - ye; k = 255 - k; }
                o[x] = opaque((c * k + 127) / 255, (m * k + 127) / 255, (ye * k + 127) / 255);
            }
        } else {
            for (size_t x = 0; x < w; x++, p += 3) o[x] = opaque(p[0], p[1], p[2]);
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    *width = (int)w;
    *height = (int)h;
    return out;
}

// MARK: GIF

struct cw_gif_reader { const uint8_t *bytes; size_t length, at; };

static int cw_gif_read(GifFileType *gif, GifByteType *buf, int n) {
    struct cw_gif_reader *r = gif->UserData;
    if (n <= 0) return 0;
    size_t left = r->length - r->at, take = (size_t)n < left ? (size_t)n : left;
    memcpy(buf, r->bytes + r->at, take);
    r->at += take;
    return (int)take;
}

uint32_t *cw_gif_decode(const uint8_t *bytes, size_t length, int max_side, int *width, int *height) {
    if (!bytes || length == 0 || max_side < 1) return NULL;
    struct cw_gif_reader reader = { bytes, length, 0 };
    int error = 0;
    GifFileType *gif = DGifOpen(&reader, cw_gif_read, &error);
    if (!gif) return NULL;
    uint32_t *out = NULL;
    GifPixelType *line = NULL;
    int transparent = -1, done = 0;
    const int sw = gif->SWidth, sh = gif->SHeight;
    if (sw < 1 || sh < 1 || sw > max_side || sh > max_side) goto fail;

    while (!done) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) goto fail;
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) goto fail;
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) transparent = gcb.TransparentColor;
            }
            while (ext) if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) goto fail;
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) goto fail;
            const GifImageDesc *d = &gif->Image;
            const ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
            if (!map || d->Width < 1 || d->Height < 1 || d->Width > max_side || d->Height > max_side ||
                d->Left < 0 || d->Top < 0) goto fail;
            out = calloc((size_t)sw * (size_t)sh, 4);
            line = malloc((size_t)d->Width);
            if (!out || !line) goto fail;
            // The stream's row order: all rows, or the four interlace passes.
            static const int start[4] = { 0, 4, 2, 1 }, step[4] = { 8, 8, 4, 2 };
            const int passes = d->Interlace ? 4 : 1;
            for (int pass = 0; pass < passes; pass++) {
                const int y0 = d->Interlace ? start[pass] : 0, dy = d->Interlace ? step[pass] : 1;
                for (int y = y0; y < d->Height; y += dy) {
                    if (DGifGetLine(gif, line, d->Width) == GIF_ERROR) goto fail;
                    const long sy = (long)d->Top + y;
                    if (sy >= sh) continue;
                    uint32_t *o = out + (size_t)sy * (size_t)sw;
                    for (int x = 0; x < d->Width; x++) {
                        const long sx = (long)d->Left + x;
                        if (sx >= sw) break;
                        const int i = line[x];
                        if (i == transparent || i >= map->ColorCount) continue;
                        const GifColorType c = map->Colors[i];
                        o[sx] = opaque(c.Red, c.Green, c.Blue);
                    }
                }
            }
            done = 1;
        } else {
            goto fail;   // the trailer (or garbage) before any frame
        }
    }
    free(line);
    DGifCloseFile(gif, &error);
    *width = sw;
    *height = sh;
    return out;
fail:
    free(out);
    free(line);
    DGifCloseFile(gif, &error);
    return NULL;
}

#include "cw_png.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

// Writes a chunk (length, type, data, CRC) at `out`; returns the bytes written.
static size_t chunk(uint8_t *out, const char type[4], const uint8_t *data, size_t length) {
    put32(out, (uint32_t)length);
    memcpy(out + 4, type, 4);
    if (length > 0 && data != out + 8) memmove(out + 8, data, length);
    uLong crc = crc32(0L, out + 4, (uInt)(4 + length));
    put32(out + 8 + length, (uint32_t)crc);
    return 12 + length;
}

uint8_t *cw_png_encode(const uint8_t *pixels, int width, int height, int stride,
                       int level, int rle, cw_png_filter filter, size_t *length) {
    if (width <= 0 || height <= 0 || stride < width * 4) return NULL;
    // Opaque everywhere: RGB, a quarter smaller to deflate.
    int opaque = 1;
    for (int y = 0; y < height && opaque; y++) {
        const uint32_t *row = (const uint32_t *)(pixels + (size_t)y * stride);
        for (int x = 0; x < width; x++) if ((row[x] >> 24) != 0xff) { opaque = 0; break; }
    }
    const int bpp = opaque ? 3 : 4;
    const size_t rowBytes = (size_t)width * bpp;
    const size_t rawSize = (rowBytes + 1) * (size_t)height;
    uint8_t *raw = malloc(rawSize);
    uint8_t *prev = calloc(rowBytes, 1), *cur = malloc(rowBytes);
    if (raw == NULL || prev == NULL || cur == NULL) { free(raw); free(prev); free(cur); return NULL; }
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(pixels + (size_t)y * stride);
        uint8_t *c = cur;
        for (int x = 0; x < width; x++) {
            uint32_t p = row[x];
            uint8_t a = (uint8_t)(p >> 24), r = (uint8_t)(p >> 16), g = (uint8_t)(p >> 8), b = (uint8_t)p;
            if (opaque) { c[0] = r; c[1] = g; c[2] = b; c += 3; continue; }
            if (a != 0 && a != 255) {
                r = (uint8_t)((r * 255 + a / 2) / a); g = (uint8_t)((g * 255 + a / 2) / a); b = (uint8_t)((b * 255 + a / 2) / a);
            }
            c[0] = r; c[1] = g; c[2] = b; c[3] = a; c += 4;
        }
        uint8_t *out = raw + (size_t)y * (rowBytes + 1);
        out[0] = (uint8_t)filter;
        if (filter == CW_PNG_FILTER_SUB) {
            for (size_t i = 0; i < (size_t)bpp; i++) out[1 + i] = cur[i];
            for (size_t i = bpp; i < rowBytes; i++) out[1 + i] = (uint8_t)(cur[i] - cur[i - bpp]);
        } else if (filter == CW_PNG_FILTER_UP) {
            for (size_t i = 0; i < rowBytes; i++) out[1 + i] = (uint8_t)(cur[i] - prev[i]);
        } else {
            memcpy(out + 1, cur, rowBytes);
        }
        uint8_t *t = prev; prev = cur; cur = t;
    }
    free(prev); free(cur);

    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 9, rle ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK) { free(raw); return NULL; }
    uLong bound = deflateBound(&z, (uLong)rawSize);
    const size_t header = 8 + 25 + 12;   // signature, IHDR, IDAT's length/type
    uint8_t *png = malloc(header + bound + 4 + 12);
    if (png == NULL) { deflateEnd(&z); free(raw); return NULL; }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(png, signature, 8);
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)width); put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8; ihdr[9] = opaque ? 2 : 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
    size_t at = 8 + chunk(png + 8, "IHDR", ihdr, 13);
    z.next_in = raw; z.avail_in = (uInt)rawSize;
    z.next_out = png + at + 8; z.avail_out = (uInt)bound;
    int rc = deflate(&z, Z_FINISH);
    size_t packed = z.total_out;
    deflateEnd(&z);
    free(raw);
    if (rc != Z_STREAM_END) { free(png); return NULL; }
    at += chunk(png + at, "IDAT", png + at + 8, packed);
    at += chunk(png + at, "IEND", NULL, 0);
    *length = at;
    return png;
}

void cw_png_free(uint8_t *png) { free(png); }

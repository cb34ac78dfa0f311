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

// ---- A fast deflate for filtered chart rows -----------------------------------------
// One final block of deflate's fixed Huffman codes (RFC 1951, 3.2.6) holding only
// literals and matches at distance 1 (a byte repeated) or `bpp` (a pixel repeated).
// After PNG's Up filter a chart is mostly zeros (rows like the one above) and short
// repeated patterns (a gridline, a fill): runs cost 13 bits per 258 bytes, the rest is
// literals. No hash chains, no dynamic trees: a single pass several times faster than
// zlib's level 1, at some size.

typedef struct { uint8_t *out; size_t at; uint64_t bits; int count; } bitw;

static inline void put_bits(bitw *w, uint32_t value, int n) {
    w->bits |= (uint64_t)value << w->count;
    w->count += n;
    if (w->count >= 32) {
        w->out[w->at] = (uint8_t)w->bits; w->out[w->at + 1] = (uint8_t)(w->bits >> 8);
        w->out[w->at + 2] = (uint8_t)(w->bits >> 16); w->out[w->at + 3] = (uint8_t)(w->bits >> 24);
        w->at += 4; w->bits >>= 32; w->count -= 32;
    }
}

static uint32_t reverse_bits(uint32_t v, int n) {
    uint32_t r = 0;
    for (int i = 0; i < n; i++) { r = (r << 1) | (v & 1); v >>= 1; }
    return r;
}

// Fixed literal/length codes, bit-reversed for LSB-first output.
static uint16_t lit_code[288];
static uint8_t lit_len[288];
// Per match length 3...258: its symbol's code and length with the extra bits appended.
static uint32_t len_code[259];
static uint8_t len_bits[259];
static int tables_ready = 0;

static void make_tables(void) {
    for (int s = 0; s < 288; s++) {
        uint32_t code; int n;
        if (s < 144) { code = 0x30 + s; n = 8; }
        else if (s < 256) { code = 0x190 + (s - 144); n = 9; }
        else if (s < 280) { code = s - 256; n = 7; }
        else { code = 0xC0 + (s - 280); n = 8; }
        lit_code[s] = (uint16_t)reverse_bits(code, n);
        lit_len[s] = (uint8_t)n;
    }
    static const int base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (int len = 3; len <= 258; len++) {
        int k = 28;
        while (base[k] > len) k--;
        int sym = 257 + k;
        len_code[len] = lit_code[sym] | ((uint32_t)(len - base[k]) << lit_len[sym]);
        len_bits[len] = (uint8_t)(lit_len[sym] + extra[k]);
    }
    tables_ready = 1;
}

// Distance codes (5 bits, reversed): distance 1 is code 0, 2 is 1, 3 is 2, 4 is 3.
static inline void put_match(bitw *w, int len, int dist) {
    put_bits(w, len_code[len], len_bits[len]);
    put_bits(w, reverse_bits((uint32_t)(dist - 1), 5), 5);
}

// How many bytes from p match those from q (at most max), eight at a time.
static inline size_t same_run(const uint8_t *p, const uint8_t *q, size_t max) {
    size_t k = 0;
    while (k + 8 <= max) {
        uint64_t a, b;
        memcpy(&a, p + k, 8); memcpy(&b, q + k, 8);
        if (a != b) return k + ((size_t)__builtin_ctzll(a ^ b) >> 3);
        k += 8;
    }
    while (k < max && p[k] == q[k]) k++;
    return k;
}

// The compressor's state across rows: the bit writer and Adler-32's two sums.
typedef struct { bitw w; uint64_t a, b; } runs_state;

#define ADLER_MOD 65521u

// Deflates `n` bytes at `in` (the bytes before `in`, `back` of them, may be matched
// against) and folds them into the checksum: a run of one byte costs O(1) there too.
static void deflate_runs(runs_state *st, const uint8_t *in, size_t n, size_t back, int bpp) {
    bitw *w = &st->w;
    uint64_t a = st->a, b = st->b;
    unsigned pending = 0;
    size_t i = 0;
    while (i < n) {
        size_t left = n - i, max = left < 258 ? left : 258;
        size_t best = 0; int dist = 0;
        const size_t behind = back + i;
        if (behind >= 1 && in[i] == in[i - 1]) { best = same_run(in + i, in + i - 1, max); dist = 1; }
        if (best < max && behind >= (size_t)bpp && in[i] == in[i - bpp]) {
            size_t k = same_run(in + i, in + i - bpp, max);
            if (k > best) { best = k; dist = bpp; }
        }
        if (best >= 3) {
            put_match(w, (int)best, dist);
            if (dist == 1) {
                uint64_t c = in[i], L = best;
                b += L * a + c * L * (L + 1) / 2;
                a += L * c;
                a %= ADLER_MOD; b %= ADLER_MOD; pending = 0;
            } else {
                for (size_t k = 0; k < best; k++) { a += in[i + k]; b += a; }
                a %= ADLER_MOD; b %= ADLER_MOD; pending = 0;
            }
            i += best;
        } else {
            put_bits(w, lit_code[in[i]], lit_len[in[i]]);
            a += in[i]; b += a;
            if (++pending == 4096) { a %= ADLER_MOD; b %= ADLER_MOD; pending = 0; }
            i++;
        }
    }
    st->a = a % ADLER_MOD; st->b = b % ADLER_MOD;
}

// The fast path (level 0): rows filtered one at a time into a small buffer and
// deflated as they come, the checksum kept alongside. Returns NULL with *retry set when
// the image turns out not to be opaque (the caller then asks for RGBA).
static uint8_t *encode_runs(const uint8_t *pixels, int width, int height, int stride, cw_png_filter filter,
                            int opaque, int *retry, size_t *length) {
    if (!tables_ready) make_tables();
    *retry = 0;
    const int bpp = opaque ? 3 : 4;
    const size_t rowBytes = (size_t)width * bpp, rawSize = (rowBytes + 1) * (size_t)height;
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t *png = malloc(8 + 25 + 12 + rawSize / 8 * 9 + 64 + 12);
    // The row being deflated, with room before it for the previous row's last bytes.
    uint8_t *buf = malloc(8 + rowBytes + 1);
    uint8_t *prev = calloc(rowBytes, 1), *cur = malloc(rowBytes);
    if (png == NULL || buf == NULL || prev == NULL || cur == NULL) { free(png); free(buf); free(prev); free(cur); return NULL; }
    memcpy(png, signature, 8);
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)width); put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8; ihdr[9] = opaque ? 2 : 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
    size_t at = 8 + chunk(png + 8, "IHDR", ihdr, 13);
    uint8_t *idat = png + at + 8;
    idat[0] = 0x78; idat[1] = 0x01;
    runs_state st = {{idat + 2, 0, 0, 0}, 1, 0};
    put_bits(&st.w, 1, 1);        // final block
    put_bits(&st.w, 1, 2);        // fixed Huffman codes
    uint8_t *row = buf + 8;       // row[0] is the filter byte
    for (int y = 0; y < height; y++) {
        const uint32_t *px = (const uint32_t *)(pixels + (size_t)y * stride);
        // The last bytes of the row before, for matches across the row start.
        if (y > 0) memcpy(buf, row + rowBytes + 1 - 8, 8);
        row[0] = (uint8_t)filter;
        uint8_t *o = row + 1;
        if (opaque && filter == CW_PNG_FILTER_UP) {
            // Straight from the pixel words: a row like the one above is all zeros.
            const uint32_t *above = y > 0 ? (const uint32_t *)(pixels + (size_t)(y - 1) * stride) : NULL;
            if (above != NULL && memcmp(px, above, (size_t)width * 4) == 0) {
                memset(o, 0, rowBytes);
            } else {
                int x = 0;
                while (x < width) {
                    // A stretch like the row above: zeros, found two pixels at a time.
                    if (above != NULL && px[x] == above[x]) {
                        int e = x + 1;
                        while (e + 2 <= width) {
                            uint64_t u, v;
                            memcpy(&u, px + e, 8); memcpy(&v, above + e, 8);
                            if (u != v) break;
                            e += 2;
                        }
                        while (e < width && px[e] == above[e]) e++;
                        // (Its pixels equal the row above's, whose alpha was checked.)
                        memset(o, 0, (size_t)(e - x) * 3);
                        o += (size_t)(e - x) * 3;
                        x = e;
                        continue;
                    }
                    uint32_t p = px[x], q = above != NULL ? above[x] : 0;
                    if ((p >> 24) != 0xff) { *retry = 1; goto fail; }
                    o[0] = (uint8_t)((p >> 16) - (q >> 16)); o[1] = (uint8_t)((p >> 8) - (q >> 8)); o[2] = (uint8_t)(p - q);
                    o += 3;
                    x++;
                }
            }
        } else {
            uint8_t *c = cur;
            for (int x = 0; x < width; x++) {
                uint32_t p = px[x];
                uint8_t al = (uint8_t)(p >> 24), r = (uint8_t)(p >> 16), g = (uint8_t)(p >> 8), bl = (uint8_t)p;
                if (opaque) {
                    if (al != 0xff) { *retry = 1; goto fail; }
                    c[0] = r; c[1] = g; c[2] = bl; c += 3; continue;
                }
                if (al != 0 && al != 255) {
                    r = (uint8_t)((r * 255 + al / 2) / al); g = (uint8_t)((g * 255 + al / 2) / al); bl = (uint8_t)((bl * 255 + al / 2) / al);
                }
                c[0] = r; c[1] = g; c[2] = bl; c[3] = al; c += 4;
            }
            if (filter == CW_PNG_FILTER_SUB) {
                for (size_t i = 0; i < (size_t)bpp; i++) o[i] = cur[i];
                for (size_t i = bpp; i < rowBytes; i++) o[i] = (uint8_t)(cur[i] - cur[i - bpp]);
            } else if (filter == CW_PNG_FILTER_UP) {
                for (size_t i = 0; i < rowBytes; i++) o[i] = (uint8_t)(cur[i] - prev[i]);
            } else {
                memcpy(o, cur, rowBytes);
            }
            uint8_t *t = prev; prev = cur; cur = t;
        }
        deflate_runs(&st, row, rowBytes + 1, y > 0 ? 8 : 0, bpp);
    }
    put_bits(&st.w, lit_code[256], lit_len[256]);   // end of block
    while (st.w.count > 0) { st.w.out[st.w.at++] = (uint8_t)st.w.bits; st.w.bits >>= 8; st.w.count = st.w.count > 8 ? st.w.count - 8 : 0; }
    size_t packed = 2 + st.w.at;
    put32(idat + packed, (uint32_t)((st.b << 16) | st.a));
    packed += 4;
    free(buf); free(prev); free(cur);
    at += chunk(png + at, "IDAT", idat, packed);
    at += chunk(png + at, "IEND", NULL, 0);
    *length = at;
    return png;
fail:
    free(png); free(buf); free(prev); free(cur);
    return NULL;
}

uint8_t *cw_png_encode(const uint8_t *pixels, int width, int height, int stride,
                       int level, int rle, cw_png_filter filter, size_t *length) {
    if (width <= 0 || height <= 0 || stride < width * 4) return NULL;
    if (level == 0) {
        // Opaque (RGB) unless a pixel says otherwise, then again as RGBA.
        int retry = 0;
        uint8_t *png = encode_runs(pixels, width, height, stride, filter, 1, &retry, length);
        if (png == NULL && retry) png = encode_runs(pixels, width, height, stride, filter, 0, &retry, length);
        return png;
    }
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
        uint8_t *out0 = raw + (size_t)y * (rowBytes + 1);
        if (opaque && filter == CW_PNG_FILTER_UP) {
            // Straight from the pixel words: a row like the one above is all zeros.
            const uint32_t *above = y > 0 ? (const uint32_t *)(pixels + (size_t)(y - 1) * stride) : NULL;
            out0[0] = (uint8_t)filter;
            uint8_t *o = out0 + 1;
            if (above != NULL && memcmp(row, above, (size_t)width * 4) == 0) { memset(o, 0, rowBytes); continue; }
            for (int x = 0; x < width; x++) {
                uint32_t p = row[x], q = above != NULL ? above[x] : 0;
                if (p == q) { o[0] = o[1] = o[2] = 0; }
                else {
                    o[0] = (uint8_t)((p >> 16) - (q >> 16)); o[1] = (uint8_t)((p >> 8) - (q >> 8)); o[2] = (uint8_t)(p - q);
                }
                o += 3;
            }
            continue;
        }
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

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)width); put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8; ihdr[9] = opaque ? 2 : 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 9, rle ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK) { free(raw); return NULL; }
    uLong bound = deflateBound(&z, (uLong)rawSize);
    const size_t header = 8 + 25 + 12;   // signature, IHDR, IDAT's length/type
    uint8_t *png = malloc(header + bound + 4 + 12);
    if (png == NULL) { deflateEnd(&z); free(raw); return NULL; }
    memcpy(png, signature, 8);
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

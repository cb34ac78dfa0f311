#ifndef CHARTWIRE_CZLIB_SHIM_H
#define CHARTWIRE_CZLIB_SHIM_H

#include <zlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Results of cw_gunzip. */
enum { CW_GUNZIP_OK = 0, CW_GUNZIP_TOO_LARGE = 1, CW_GUNZIP_CORRUPT = 2, CW_GUNZIP_NO_MEMORY = 3 };

/* Decompresses a gzip body (RFC 1952; several members one after another, as `cat a.gz
   b.gz` makes, are one body) into a malloc'd buffer of at most `limit` bytes, which the
   caller frees. Decompression stops as soon as the output would pass `limit`, so a
   small body that inflates hugely (a gzip bomb) costs at most `limit` bytes of memory
   and the time to inflate them. inflateInit2 is a macro, hence the shim. */
static inline int cw_gunzip(const uint8_t *in, size_t in_len, size_t limit, uint8_t **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return CW_GUNZIP_NO_MEMORY;
    size_t cap = in_len * 4 + 1024;
    if (cap > limit + 1) cap = limit + 1;
    uint8_t *buf = (uint8_t *)malloc(cap);
    if (!buf) { inflateEnd(&zs); return CW_GUNZIP_NO_MEMORY; }
    size_t used = 0;
    const uint8_t *next = in;
    size_t left = in_len;
    int result = CW_GUNZIP_OK;
    for (;;) {
        if (used == cap) {
            size_t bigger = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            uint8_t *grown = (uint8_t *)realloc(buf, bigger);
            if (!grown) { result = CW_GUNZIP_NO_MEMORY; break; }
            buf = grown;
            cap = bigger;
        }
        zs.next_in = (Bytef *)next;
        zs.avail_in = (uInt)(left > 0x40000000u ? 0x40000000u : left);
        size_t given = zs.avail_in;
        size_t room = cap - used;
        zs.next_out = buf + used;
        zs.avail_out = (uInt)(room > 0x40000000u ? 0x40000000u : room);
        size_t offered = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        next += given - zs.avail_in;
        left -= given - zs.avail_in;
        used += offered - zs.avail_out;
        /* The buffer holds limit + 1 bytes at most: one more than allowed means too large. */
        if (used > limit) { result = CW_GUNZIP_TOO_LARGE; break; }
        if (rc == Z_STREAM_END) {
            if (left == 0) break;
            /* Another member follows. */
            if (inflateReset(&zs) != Z_OK) { result = CW_GUNZIP_CORRUPT; break; }
            continue;
        }
        if (rc == Z_OK) continue;
        /* Z_BUF_ERROR with room left: it wants input and there is none (truncated). */
        if (rc == Z_BUF_ERROR && zs.avail_out == 0) continue;
        result = rc == Z_MEM_ERROR ? CW_GUNZIP_NO_MEMORY : CW_GUNZIP_CORRUPT;
        break;
    }
    inflateEnd(&zs);
    if (result != CW_GUNZIP_OK) { free(buf); return result; }
    *out = buf;
    *out_len = used;
    return CW_GUNZIP_OK;
}

#endif

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "wireguard.h"

/* One socket's place in the frame stream. */
struct follow {
    uint8_t active;
    uint8_t unmasked;
    uint8_t state;   /* 0 first byte, 1 length byte, 2 extended length, 3 mask key, 4 payload */
    uint8_t left;    /* bytes of extended length or mask key still to come */
    uint64_t length; /* extended length being read, then payload bytes still to skip */
};

#define CW_MAX_FD 65536
static struct follow follows[CW_MAX_FD];

void cw_ws_track(int fd) {
    if (fd < 0 || fd >= CW_MAX_FD) return;
    memset(&follows[fd], 0, sizeof follows[fd]);
    follows[fd].active = 1;
}

void cw_ws_untrack(int fd) {
    if (fd < 0 || fd >= CW_MAX_FD) return;
    follows[fd].active = 0;
}

int cw_ws_unmasked(int fd) {
    if (fd < 0 || fd >= CW_MAX_FD) return 0;
    return follows[fd].unmasked;
}

static void feed(struct follow *f, const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n && !f->unmasked) {
        switch (f->state) {
        case 0:
            i++;
            f->state = 1;
            break;
        case 1: {
            uint8_t b = p[i++];
            if (!(b & 0x80)) { f->unmasked = 1; return; }
            uint8_t len7 = b & 0x7f;
            f->length = 0;
            if (len7 == 126) { f->state = 2; f->left = 2; }
            else if (len7 == 127) { f->state = 2; f->left = 8; }
            else { f->length = len7; f->state = 3; f->left = 4; }
            break;
        }
        case 2:
            f->length = (f->length << 8) | p[i++];
            if (--f->left == 0) { f->state = 3; f->left = 4; }
            break;
        case 3: {
            size_t take = n - i < f->left ? n - i : f->left;
            i += take;
            f->left -= (uint8_t)take;
            if (f->left == 0) f->state = f->length ? 4 : 0;
            break;
        }
        default: {
            size_t take = (uint64_t)(n - i) < f->length ? n - i : (size_t)f->length;
            i += take;
            f->length -= take;
            if (f->length == 0) f->state = 0;
            break;
        }
        }
    }
}

/* libwebsockets reads plain sockets with recv(); this definition in the executable
   takes its place (the dynamic linker binds lws's recv to it) and passes every call on
   to the C library's, noting the frame headers of followed sockets on the way. */
ssize_t recv(int fd, void *buf, size_t len, int flags) {
    static ssize_t (*next)(int, void *, size_t, int);
    if (!next) next = (ssize_t (*)(int, void *, size_t, int))dlsym(RTLD_NEXT, "recv");
    ssize_t n = next(fd, buf, len, flags);
    if (n > 0 && !(flags & MSG_PEEK) && fd >= 0 && fd < CW_MAX_FD && follows[fd].active)
        feed(&follows[fd], buf, (size_t)n);
    return n;
}

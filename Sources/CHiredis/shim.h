#ifndef CHARTWIRE_CHIREDIS_SHIM_H
#define CHARTWIRE_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <errno.h>

/* The reply types are macros; Swift sees these instead. */
static inline int cw_redis_reply_string(void) { return REDIS_REPLY_STRING; }
static inline int cw_redis_reply_array(void) { return REDIS_REPLY_ARRAY; }
static inline int cw_redis_reply_integer(void) { return REDIS_REPLY_INTEGER; }
static inline int cw_redis_reply_nil(void) { return REDIS_REPLY_NIL; }
static inline int cw_redis_reply_status(void) { return REDIS_REPLY_STATUS; }
static inline int cw_redis_reply_error(void) { return REDIS_REPLY_ERROR; }

static inline redisContext *cw_redis_connect(const char *host, int port, long timeout_ms) {
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisConnectWithTimeout(host, port, tv);
}

static inline int cw_redis_set_timeout(redisContext *c, long timeout_ms) {
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisSetTimeout(c, tv);
}

/* Writes len bytes straight to the connection's socket (blocking, under the
 * connection's send timeout): a large argument goes from the caller's memory to the
 * kernel without hiredis' two copies (its formatted command, then its output
 * buffer). Only while hiredis' own output buffer is empty. 0, or -1 with errno. */
static inline int cw_redis_send_all(redisContext *c, const void *buf, size_t len) {
    const char *p = (const char *)buf;
    while (len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

#endif

#ifndef CHARTWIRE_CHIREDIS_SHIM_H
#define CHARTWIRE_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>

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

#endif

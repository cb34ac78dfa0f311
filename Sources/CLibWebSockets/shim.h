#ifndef CHARTWIRE_CLIBWEBSOCKETS_SHIM_H
#define CHARTWIRE_CLIBWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <malloc.h>

/* LWS_PRE is a macro over _LWS_PAD; Swift cannot import it. */
static inline size_t cw_lws_pre(void) { return LWS_PRE; }

/* The lwsl_* logging macros are variadic; this sets the level only. */
static inline void cw_lws_set_log_level(int level) { lws_set_log_level(level, NULL); }

/* glibc's mallopt(M_MMAP_THRESHOLD, ...) for the server process (malloc.h is not in
   Swift's Glibc module); the server's C shims live here. */
static inline int cw_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

#endif

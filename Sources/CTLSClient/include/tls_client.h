#ifndef CHARTWIRE_TLS_CLIENT_H
#define CHARTWIRE_TLS_CLIENT_H

/* A TLS client over a connected non-blocking socket, for the server's https pull
 * sources (docs/feeding.md, "Pulled data"). OpenSSL stays behind this small API: no
 * OpenSSL type or macro reaches Swift. The peer is always verified: its chain against
 * the trusted CAs, its certificate against the host name (or IP address) asked, TLS 1.2
 * at least. Every call that would block says which way (CW_TLS_WANT_READ or
 * CW_TLS_WANT_WRITE) for the caller to poll() and call again; the caller keeps the
 * deadline. Failures write a one-line reason into `err`. */

#include <stddef.h>

/* Trusted CAs and settings, shared by any number of connections on any threads. */
typedef struct cw_tls_config cw_tls_config;
/* One connection. */
typedef struct cw_tls cw_tls;

enum {
    CW_TLS_OK = 1,           /* handshake done */
    CW_TLS_CLOSED = 0,       /* read: the peer closed */
    CW_TLS_WANT_READ = -1,   /* poll for POLLIN, call again */
    CW_TLS_WANT_WRITE = -2,  /* poll for POLLOUT, call again */
    CW_TLS_ERROR = -3        /* failed: the reason is in err */
};

/* Trusts the PEM certificates of `ca_file`, or the system's CA store when it is NULL.
 * NULL on failure (an unreadable file, no certificate in it). */
cw_tls_config *cw_tls_config_new(const char *ca_file, char *err, size_t errlen);
void cw_tls_config_free(cw_tls_config *config);

/* A client connection on `fd` (connected, non-blocking; not closed by cw_tls_free)
 * that will accept only a certificate for `host` (a DNS name, or an IP address
 * literal, without brackets). SNI carries `host` unless it is an IP address. */
cw_tls *cw_tls_new(cw_tls_config *config, int fd, const char *host, char *err, size_t errlen);

/* CW_TLS_OK, CW_TLS_WANT_READ/WRITE or CW_TLS_ERROR (with the reason: certificate
 * not trusted, host name mismatch, handshake failed ...). */
int cw_tls_handshake(cw_tls *t, char *err, size_t errlen);

/* Bytes written or read (> 0), CW_TLS_CLOSED (read only), CW_TLS_WANT_* or CW_TLS_ERROR. */
long cw_tls_write(cw_tls *t, const void *buf, size_t len, char *err, size_t errlen);
long cw_tls_read(cw_tls *t, void *buf, size_t len, char *err, size_t errlen);

void cw_tls_free(cw_tls *t);

#endif

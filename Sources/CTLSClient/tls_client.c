#include "tls_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

struct cw_tls_config {
    SSL_CTX *ctx;
};

struct cw_tls {
    SSL *ssl;
    char host[256];
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b) {
    if (err && errlen) snprintf(err, errlen, fmt, a ? a : "", b ? b : "");
}

/* The oldest error OpenSSL queued on this thread (its reason), or `fallback`. */
static const char *queued_reason(char *buf, size_t len, const char *fallback) {
    unsigned long e = ERR_peek_error();
    if (!e) return fallback;
    const char *r = ERR_reason_error_string(e);
    if (r) snprintf(buf, len, "%s", r);
    else ERR_error_string_n(e, buf, len);
    return buf;
}

cw_tls_config *cw_tls_config_new(const char *ca_file, char *err, size_t errlen) {
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) { set_err(err, errlen, "cannot set up TLS%s%s", NULL, NULL); return NULL; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    /* A peer that closes the connection without close_notify ends the answer as a
     * plain close does over http (an HTTP/1.0 body read to the end); a stated
     * Content-Length still catches a cut answer. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    int ok;
    char why[200];
    if (ca_file) {
        FILE *f = fopen(ca_file, "r");
        if (!f) {
            set_err(err, errlen, "cannot read CA certificates from %s: %s", ca_file, strerror(errno));
            SSL_CTX_free(ctx);
            return NULL;
        }
        fclose(f);
        ok = SSL_CTX_load_verify_locations(ctx, ca_file, NULL);
        if (ok != 1) {
            set_err(err, errlen, "cannot read CA certificates from %s: %s", ca_file,
                    queued_reason(why, sizeof why, "no PEM certificate in it"));
        }
    } else {
        ok = SSL_CTX_set_default_verify_paths(ctx);
        if (ok != 1) set_err(err, errlen, "cannot load the system's CA store%s%s", NULL, NULL);
    }
    ERR_clear_error();
    if (ok != 1) { SSL_CTX_free(ctx); return NULL; }
    cw_tls_config *c = calloc(1, sizeof *c);
    if (!c) { SSL_CTX_free(ctx); set_err(err, errlen, "out of memory%s%s", NULL, NULL); return NULL; }
    c->ctx = ctx;
    return c;
}

void cw_tls_config_free(cw_tls_config *config) {
    if (!config) return;
    SSL_CTX_free(config->ctx);
    free(config);
}

cw_tls *cw_tls_new(cw_tls_config *config, int fd, const char *host, char *err, size_t errlen) {
    ERR_clear_error();
    if (strlen(host) >= sizeof ((cw_tls *)0)->host) { set_err(err, errlen, "host name too long: %.60s%s", host, NULL); return NULL; }
    cw_tls *t = calloc(1, sizeof *t);
    if (!t) { set_err(err, errlen, "out of memory%s%s", NULL, NULL); return NULL; }
    snprintf(t->host, sizeof t->host, "%s", host);
    t->ssl = SSL_new(config->ctx);
    if (!t->ssl || SSL_set_fd(t->ssl, fd) != 1) goto fail;
    unsigned char addr[16];
    int literal = inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
    if (literal) {
        /* An address literal is matched against the certificate's IP addresses; SNI
         * carries no address (RFC 6066). */
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host) != 1) goto fail;
    } else {
        if (SSL_set1_host(t->ssl, host) != 1) goto fail;
        if (SSL_set_tlsext_host_name(t->ssl, host) != 1) goto fail;
    }
    SSL_set_connect_state(t->ssl);
    return t;
fail:
    set_err(err, errlen, "cannot set up TLS for %s%s", host, NULL);
    if (t->ssl) SSL_free(t->ssl);
    free(t);
    ERR_clear_error();
    return NULL;
}

/* The reason a handshake failed, in words an operator acts on. */
static void handshake_reason(cw_tls *t, int ssl_error, char *err, size_t errlen) {
    long v = SSL_get_verify_result(t->ssl);
    char why[200];
    if (v != X509_V_OK) {
        const char *what = X509_verify_cert_error_string(v);
        switch (v) {
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            set_err(err, errlen, "host name mismatch: the certificate is not for %s (%s)", t->host, what);
            break;
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        case X509_V_ERR_CERT_UNTRUSTED:
            set_err(err, errlen, "certificate not trusted: %s%s", what, NULL);
            break;
        default:
            set_err(err, errlen, "certificate verification failed: %s%s", what, NULL);
        }
    } else if (ssl_error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        set_err(err, errlen, "TLS handshake failed: the source closed the connection%s%s", NULL, NULL);
    } else {
        set_err(err, errlen, "TLS handshake failed: %s%s", queued_reason(why, sizeof why, "unknown error"), NULL);
    }
}

int cw_tls_handshake(cw_tls *t, char *err, size_t errlen) {
    ERR_clear_error();
    int r = SSL_connect(t->ssl);
    if (r == 1) return CW_TLS_OK;
    int e = SSL_get_error(t->ssl, r);
    if (e == SSL_ERROR_WANT_READ) return CW_TLS_WANT_READ;
    if (e == SSL_ERROR_WANT_WRITE) return CW_TLS_WANT_WRITE;
    handshake_reason(t, e, err, errlen);
    ERR_clear_error();
    return CW_TLS_ERROR;
}

static long io_result(cw_tls *t, int r, int reading, char *err, size_t errlen) {
    int e = SSL_get_error(t->ssl, r);
    char why[200];
    switch (e) {
    case SSL_ERROR_WANT_READ: return CW_TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return CW_TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: if (reading) return CW_TLS_CLOSED; break;
    case SSL_ERROR_SYSCALL:
        if (errno == EINTR) return reading ? CW_TLS_WANT_READ : CW_TLS_WANT_WRITE;
        break;
    default: break;
    }
    set_err(err, errlen, "TLS %s failed: %s", reading ? "read" : "write",
            queued_reason(why, sizeof why, e == SSL_ERROR_SYSCALL ? strerror(errno) : "unknown error"));
    ERR_clear_error();
    return CW_TLS_ERROR;
}

long cw_tls_write(cw_tls *t, const void *buf, size_t len, char *err, size_t errlen) {
    ERR_clear_error();
    size_t n = 0;
    int r = SSL_write_ex(t->ssl, buf, len, &n);
    if (r == 1) return (long)n;
    return io_result(t, r, 0, err, errlen);
}

long cw_tls_read(cw_tls *t, void *buf, size_t len, char *err, size_t errlen) {
    ERR_clear_error();
    size_t n = 0;
    int r = SSL_read_ex(t->ssl, buf, len, &n);
    if (r == 1) return (long)n;
    return io_result(t, r, 1, err, errlen);
}

void cw_tls_free(cw_tls *t) {
    if (!t) return;
    /* No close_notify: the answer is in (or the exchange failed), and the socket is
     * closed right after; a shutdown could block on a non-blocking socket. */
    SSL_free(t->ssl);
    free(t);
}

#ifndef CHARTWIRE_WIREGUARD_H
#define CHARTWIRE_WIREGUARD_H

/* Client-frame masking for WebSocket connections (RFC 6455 5.1: a server must close a
   connection on which the client sends an unmasked frame). libwebsockets 4.1 neither
   checks the mask bit nor reports it, so the server follows each WebSocket connection's
   frame headers in the bytes lws receives (its recv() goes through the wrapper in
   wireguard.c) and the protocol callback asks here. Plain TCP only: with TLS the
   bytes recv() sees are records. Used from the lws service thread only. */

/* Start following frames on a socket: call when its upgrade is done. */
void cw_ws_track(int fd);
/* Stop following (the connection is closing). */
void cw_ws_untrack(int fd);
/* 1 once an unmasked frame header arrived on the socket, else 0. */
int cw_ws_unmasked(int fd);

#endif

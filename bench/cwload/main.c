// cwload: a native load client for ChartWire benchmarks (docs/bench.md).
//
// A Python client measures itself, not the server; this one is a single-threaded
// epoll loop in C11 with no dependencies beyond libc. It only connects to the host it
// is given (loopback in every use here) and stops by itself.
//
//   cwload viewers --port P --session S --count N [--host H] [--width W --height H]
//                  [--duration S] [--warmup S] [--no-ack] [--throttle-one BYTES_PER_S]
//                  [--connect-rate PER_S]
//       N WebSocket viewers (subprotocol chartwire.v1). Each sends hello, and after every
//       binary frame an ack (as the page does after drawing). Prints one JSON object:
//       {"viewers","connected","failed","window","fps":{"min","p5","median","mean","max"},
//        "throttled_fps","bytes_per_s","errors","closed"}; fps and bytes cover the
//       measured interval after the warm-up. --throttle-one makes viewer 0 a slow reader
//       (small receive buffer, at most B bytes read a second); it is left out of "fps".
//       --zoom x|y: after its first frame each viewer sends one wheel turn, zooming in
//       about its own point (along the zoomed direction, across the middle 60 % of the
//       canvas) by its own amount, so no two views are alike (for a session in the
//       independent view mode); y holds shift, turning the default x wheel zoom into a
//       y zoom. Adds "zoomed" (wheels sent) and "zoom_frame_bytes":{"min","median"}
//       (the largest of the first three frames after the wheel: a viewer moved into a
//       view of its own is sent every layer whole).
//
//   cwload feed --port P --session S --series A,B,.. --rate PER_S [--batch K] [--binary]
//               [--host H] [--duration S] [--warmup S]
//       Appends K points per request to each series over HTTP/1.1 keep-alive, paced at
//       PER_S requests a second per series; y is a random walk with steps of up to
//       ±JUMP/2 pulled back towards 0 by REVERT of its value a step (--jump 0.2
//       --revert 0.02: a bounded signal; --revert 0: a free walk). Prints {"requests","ok","failed","points",
//       "latency_ms":{"p50","p90","p99","max"},"rate"} for the measured interval.
//
//   cwload ingest --port P --session S --series ID --points N --batch K [--binary] [--host H]
//                 [--start X --step DX] [--jitter J] [--duration S]
//       Sends N points (x = X, X+DX, ...; with --jitter J each step is DX·(1 ± J/2),
//       uniformly at random, so x is irregular as arrival times are) in batches of K as fast as it can over one
//       connection (with --duration: batches until S seconds have passed); prints
//       {"points","accepted","seconds","wall_seconds","points_per_s","wall_points_per_s","failed"},
//       where seconds (and points_per_s) count request-to-answer time, not encoding.
//
//   cwload publish --port P --session S --series ID --batch K [--inflight F] [--duration S | --points N]
//                  [--start X --step DX]
//       The publisher WebSocket (/publish/S/ID, subprotocol chartwire.publish.v1): binary
//       batches of K points ("CWA1", count, x..., y...; masked, as a client's frames must
//       be), at most F (default 8) sent ahead of their acknowledgements, for S seconds
//       (default 10) or N points. y repeats a 4096-value table (the client's own cost
//       stays small). Prints {"batches","acked","points","acked_points","errors",
//       "seconds","points_per_s","inflight_max"}: points_per_s is acknowledged points
//       over the time from the first batch written to the last acknowledgement read.
//
//   cwload lines --port P --session S --batch K [--hosts H --cpus C] [--start T --step DT]
//                [--duration S | --points LINES]
//       InfluxDB line protocol as Telegraf's cpu input writes it, K lines a request to
//       POST /api/sessions/S/write?precision=ns over one keep-alive connection: each tick
//       (DT seconds apart from Unix time T) one line per host (web-01 ... H, default 2)
//       and cpu (cpu0 ... C-1, default 4), `cpu,cpu=cpuN,host=web-NN usage_user=...,
//       usage_system=...,usage_idle=...,usage_iowait=...,usage_steal=0 <ns>`, floats in
//       full precision. Prints {"requests","lines","values","accepted","failed","seconds",
//       "wall_seconds","values_per_s","lines_per_s","wall_values_per_s","body_bytes"};
//       seconds (and the rates without wall_) count request-to-answer time, not encoding.
//
// feed's x values are Unix seconds (wall clock), so a feed continues history that
// `ingest --start <unix seconds>` loaded.
//
//   cwload gestures --port P --session S --series wheel|hover|drag --count N [--width W --height H]
//       One viewer sends N gestures at the middle of the canvas (wheel: alternately in
//       and out; hover: a mouse moving across; drag: a press and N moves), --rate a
//       second (default 60, as a page forwards them), and prints
//       {"gestures","answered","latency_ms":{"p50","p90","p99","max"},"bytes":{"p50","max"}}:
//       from the gesture written to the first frame read after it, and the bytes read
//       in between.
//
//   cwload get --port P --session S --series /api/stats
//       Prints the body of a GET (the path goes in --series).
//
//   cwload skew --port A --port2 B --session S --series ID --count N [--rate PER_S] [--start X --step DX]
//       A cluster's frame skew (docs/cluster.md): one viewer on node A, one on node B,
//       and N binary appends of one point to ID through node A (one at a time, --rate a
//       second, x = X, X+DX, ...; the chart must move on every point). For each append,
//       the two viewers' first frames read after the append was written: prints
//       {"appends","answered","skew_ms":{"p50","p90","p99","max"},"a_ms":{"p50","p99"},
//        "b_ms":{"p50","p99"},"errors"}: |t_A - t_B|, and each viewer's time from the
//       append written to its frame. --port2 equal to --port: both viewers on one node.
//
//   cwload failover --port P --session S [--duration S]
//       One viewer through a balancer at P. After its first frame it prints
//       {"ready":1,...} and waits; when its connection breaks (its node killed) it
//       reconnects as the page does (first after 0.5 s, then doubling, at most 10 s)
//       until it draws a frame again, and prints {"lost_at","frame_at","reconnects",
//       "first_frame_ms"}: Unix times (s) of the break seen and of the first frame
//       after it, and the connect-to-first-frame time of the first connection.
//
// The binary append body is "CWA1", u32 count, count little-endian f64 x, then y.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *msg) {
    fprintf(stderr, "cwload: %s\n", msg);
    exit(2);
}

// ---- options ------------------------------------------------------------------------

typedef struct {
    const char *host, *session, *series;
    int port, port2, count, width, height, ack, binary, batch, inflight, hosts, cpus, has_duration, has_points;
    char zoom;                                   // viewers --zoom: 'x', 'y' or 0
    double duration, warmup, throttle, connect_rate, rate, dpr, start, step, jitter, jump, revert;
    long points;
} Options;

static Options parse(int argc, char **argv) {
    Options o = {.host = "127.0.0.1", .session = NULL, .series = NULL, .port = 0, .count = 1, .width = 1600,
                 .height = 900, .ack = 1, .binary = 0, .batch = 1, .duration = 10, .warmup = 2, .throttle = 0,
                 .connect_rate = 500, .rate = 50, .dpr = 1, .points = 1000000, .start = 0, .step = 1, .jump = 0.2, .revert = 0.02,
                 .inflight = 8, .hosts = 2, .cpus = 4, .has_duration = 0, .has_points = 0, .zoom = 0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && (v || (die("missing value for " name), 0)) && ++i)
        if (ARG("--host")) o.host = v;
        else if (ARG("--port")) o.port = atoi(v);
        else if (ARG("--port2")) o.port2 = atoi(v);
        else if (ARG("--session")) o.session = v;
        else if (ARG("--series")) o.series = v;
        else if (ARG("--count")) o.count = atoi(v);
        else if (ARG("--width")) o.width = atoi(v);
        else if (ARG("--height")) o.height = atoi(v);
        else if (ARG("--dpr")) o.dpr = atof(v);
        else if (ARG("--duration")) { o.duration = atof(v); o.has_duration = 1; }
        else if (ARG("--warmup")) o.warmup = atof(v);
        else if (ARG("--throttle-one")) o.throttle = atof(v);
        else if (ARG("--connect-rate")) o.connect_rate = atof(v);
        else if (ARG("--rate")) o.rate = atof(v);
        else if (ARG("--batch")) o.batch = atoi(v);
        else if (ARG("--points")) { o.points = atol(v); o.has_points = 1; }
        else if (ARG("--inflight")) o.inflight = atoi(v);
        else if (ARG("--hosts")) o.hosts = atoi(v);
        else if (ARG("--cpus")) o.cpus = atoi(v);
        else if (ARG("--zoom")) {
            if (strcmp(v, "x") != 0 && strcmp(v, "y") != 0) die("--zoom takes x or y");
            o.zoom = v[0];
        }
        else if (ARG("--start")) o.start = atof(v);
        else if (ARG("--step")) o.step = atof(v);
        else if (ARG("--jump")) o.jump = atof(v);
        else if (ARG("--jitter")) o.jitter = atof(v);
        else if (ARG("--revert")) o.revert = atof(v);
        else if (strcmp(a, "--no-ack") == 0) o.ack = 0;
        else if (strcmp(a, "--binary") == 0) o.binary = 1;
        else { fprintf(stderr, "cwload: unknown argument %s\n", a); exit(2); }
#undef ARG
    }
    if (o.port <= 0 || !o.session) die("--port and --session are required");
    if (o.count < 1 || o.batch < 1 || o.duration <= 0 || o.rate <= 0 || o.inflight < 1 || o.hosts < 1 || o.cpus < 1)
        die("counts, batch, duration, rate, inflight, hosts and cpus must be positive");
    return o;
}

static int open_socket(const Options *o, int nonblocking, int rcvbuf) {
    int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    if (inet_pton(AF_INET, o->host, &sa.sin_addr) != 1) die("--host must be an IPv4 address");
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) { close(fd); return -1; }
    return fd;
}

static int write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w; n -= (size_t)w;
    }
    return 0;
}

// ---- SHA-1 and base64 (the WebSocket accept key) -------------------------------------

static void sha1(const uint8_t *msg, size_t len, uint8_t out[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    size_t total = ((len + 8) / 64 + 1) * 64;
    uint8_t *m = calloc(total, 1);
    memcpy(m, msg, len);
    m[len] = 0x80;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) m[total - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t off = 0; off < total; off += 64) {
        uint32_t w[80];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)m[off + 4 * i] << 24 | (uint32_t)m[off + 4 * i + 1] << 16 | (uint32_t)m[off + 4 * i + 2] << 8 | m[off + 4 * i + 3];
        for (int i = 16; i < 80; i++) { uint32_t x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]; w[i] = x << 1 | x >> 31; }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; i++) {
            uint32_t f, k;
            if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
            else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
            else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
            else { f = b ^ c ^ d; k = 0xCA62C1D6; }
            uint32_t t = (a << 5 | a >> 27) + f + e + k + w[i];
            e = d; d = c; c = b << 30 | b >> 2; b = a; a = t;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
    }
    free(m);
    for (int i = 0; i < 5; i++) for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}

static void base64(const uint8_t *in, size_t n, char *out) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63]; out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = 0;
}

// ---- viewers ---------------------------------------------------------------------------

enum { CONNECTING, HANDSHAKE, OPEN, DEAD };

typedef struct {
    int fd, state, throttled, reading;
    char key[32], accept[32];
    uint8_t *in; size_t in_len, in_cap;
    uint8_t *msg; size_t msg_len, msg_cap; int msg_op;   // message being reassembled
    uint8_t out[4096]; size_t out_len;                     // small pending writes (hello, acks)
    long frames, bytes, texts;                             // in the measured interval
    double tokens, last_refill;
    int index, zoomed;                                     // --zoom: its wheel sent
    long zoom_frames, zoom_bytes;                          // frames after the wheel (up to 3), the largest's bytes
} Viewer;

/// A fresh Sec-WebSocket-Key in v->key, and in v->accept the Sec-WebSocket-Accept the
/// server must answer with (RFC 6455: SHA-1 of the key and the GUID, in base64).
static void new_key(Viewer *v) {
    uint8_t raw[16];
    for (int i = 0; i < 16; i++) raw[i] = (uint8_t)rand();
    base64(raw, 16, v->key);
    char cat[128];
    snprintf(cat, sizeof cat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", v->key);
    uint8_t digest[20];
    sha1((const uint8_t *)cat, strlen(cat), digest);
    base64(digest, 20, v->accept);
}

static int window_size = 0;
static long errors = 0;

static void queue(Viewer *v, const void *p, size_t n) {
    if (v->out_len + n > sizeof v->out) { v->state = DEAD; return; }   // a client that far behind is broken
    memcpy(v->out + v->out_len, p, n);
    v->out_len += n;
}

static void send_text(Viewer *v, const char *text) {
    size_t n = strlen(text), h = 2;
    uint8_t hdr[8] = {0x81, (uint8_t)(0x80 | n)}, mask[4];
    if (n > 1000) { v->state = DEAD; return; }
    if (n > 125) { hdr[1] = 0x80 | 126; hdr[2] = (uint8_t)(n >> 8); hdr[3] = (uint8_t)n; h = 4; }
    uint32_t r = (uint32_t)rand();
    memcpy(mask, &r, 4);
    memcpy(hdr + h, mask, 4);
    queue(v, hdr, h + 4);
    uint8_t body[1024];
    for (size_t i = 0; i < n; i++) body[i] = (uint8_t)text[i] ^ mask[i % 4];
    queue(v, body, n);
}

static void flush(Viewer *v) {
    while (v->out_len > 0 && v->state != DEAD) {
        ssize_t w = write(v->fd, v->out, v->out_len);
        if (w < 0) { if (errno == EAGAIN || errno == EINTR) return; v->state = DEAD; return; }
        memmove(v->out, v->out + w, v->out_len - (size_t)w);
        v->out_len -= (size_t)w;
    }
}

static void grow(uint8_t **buf, size_t *cap, size_t need) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    *buf = realloc(*buf, c);
    if (!*buf) die("out of memory");
    *cap = c;
}

/// A whole message arrived: count it, ack frames.
static void on_message(Viewer *v, int op, const uint8_t *p, size_t n, int measuring, const Options *o) {
    if (op == 2) {
        if (n < 3 || memcmp(p, "CWF", 3) != 0) { errors++; return; }
        if (measuring) { v->frames++; v->bytes += (long)n; }
        if (o->ack) send_text(v, "{\"type\":\"ack\"}");
        if (v->zoomed && v->zoom_frames < 3) {
            v->zoom_frames++;
            if ((long)n > v->zoom_bytes) v->zoom_bytes = (long)n;
        }
        if (o->zoom && !v->zoomed) {
            // One wheel turn after the first frame, a different one for every viewer: the
            // pixel it zooms about (across the middle 60 % of the canvas along the zoomed
            // direction) and the amount, so no two views are alike. y: shift held, which
            // turns the default x wheel zoom (mouseWheelZoom) into a y zoom.
            int i = v->index;
            double along = 0.2 + 0.6 * (double)(i % 97) / 96, across = 0.2 + 0.6 * (double)((i * 7919) % 1000) / 999;
            double x = o->width * (o->zoom == 'x' ? along : across), y = o->height * (o->zoom == 'y' ? along : across);
            char wheel[256];
            snprintf(wheel, sizeof wheel, "{\"type\":\"wheel\",\"x\":%.1f,\"y\":%.1f,\"deltaX\":0,\"deltaY\":%d,%s\"time\":%d}",
                     x, y, -(30 + 6 * (i / 97 % 40)), o->zoom == 'y' ? "\"shift\":true," : "", 1000 + i);
            send_text(v, wheel);
            v->zoomed = 1;
        }
    } else if (op == 1) {
        if (measuring) v->texts++;
        if (n < 4096) {
            char buf[4096];
            memcpy(buf, p, n); buf[n] = 0;
            if (strstr(buf, "\"type\":\"error\"")) errors++;
            char *w = strstr(buf, "\"window\":");
            if (w && strstr(buf, "\"welcome\"")) window_size = atoi(w + 9);
        }
    }
}

#define HEAD_MAX 2048

/// Takes the handshake's answer from the start of `v->in`: 0 while it has not all
/// arrived; 1 when the server upgraded with the accept value `v` expects (the answer is
/// taken out of `v->in`, what followed it stays, and `v` is OPEN); -1 when it refused.
/// `head` gets the answer's start (NUL-terminated) either way.
static int take_handshake(Viewer *v, char head[HEAD_MAX]) {
    uint8_t *end = memmem(v->in, v->in_len, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t hlen = (size_t)(end - v->in) + 4;
    size_t c = hlen < HEAD_MAX - 1 ? hlen : HEAD_MAX - 1;
    memcpy(head, v->in, c); head[c] = 0;
    if (strncmp(head, "HTTP/1.1 101", 12) != 0 || !strcasestr(head, v->accept)) return -1;
    memmove(v->in, v->in + hlen, v->in_len - hlen);
    v->in_len -= hlen;
    v->state = OPEN;
    return 1;
}

/// Parses what has arrived: the handshake answer, then frames.
static void consume(Viewer *v, int measuring, const Options *o) {
    if (v->state == HANDSHAKE) {
        char head[HEAD_MAX];
        int answer = take_handshake(v, head);
        if (answer == 0) return;
        if (answer < 0) { v->state = DEAD; return; }
        char hello[128];
        snprintf(hello, sizeof hello, "{\"type\":\"hello\",\"width\":%d,\"height\":%d,\"dpr\":%g}", o->width, o->height, o->dpr);
        send_text(v, hello);
    }
    size_t at = 0;
    while (v->state == OPEN) {
        if (v->in_len - at < 2) break;
        uint8_t b0 = v->in[at], b1 = v->in[at + 1];
        size_t len = b1 & 0x7F, hdr = 2;
        if (b1 & 0x80) { v->state = DEAD; break; }   // servers do not mask
        if (len == 126) { if (v->in_len - at < 4) break; len = (size_t)v->in[at + 2] << 8 | v->in[at + 3]; hdr = 4; }
        else if (len == 127) {
            if (v->in_len - at < 10) break;
            len = 0;
            for (int i = 0; i < 8; i++) len = len << 8 | v->in[at + 2 + i];
            hdr = 10;
        }
        if (len > (64u << 20)) { v->state = DEAD; break; }
        if (v->in_len - at < hdr + len) break;
        int op = b0 & 0x0F, fin = b0 & 0x80;
        const uint8_t *p = v->in + at + hdr;
        if (op == 9) {                                        // ping: pong
            uint8_t pong[6] = {0x8A, 0x80};
            queue(v, pong, 6);
        } else if (op == 8) {
            v->state = DEAD;
        } else if (op == 0 || op == 1 || op == 2) {
            if (op != 0) { v->msg_len = 0; v->msg_op = op; }
            grow(&v->msg, &v->msg_cap, v->msg_len + len);
            memcpy(v->msg + v->msg_len, p, len);
            v->msg_len += len;
            if (fin) on_message(v, v->msg_op, v->msg, v->msg_len, measuring, o);
        }
        at += hdr + len;
    }
    if (at > 0) { memmove(v->in, v->in + at, v->in_len - at); v->in_len -= at; }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int viewers(const Options *o) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)o->count + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)o->count + 64 ? rl.rlim_max : (rlim_t)o->count + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int ep = epoll_create1(0);
    Viewer *vs = calloc((size_t)o->count, sizeof *vs);
    int opened = 0, failed = 0;
    double t0 = now_s(), measure_from = -1, measure_to = -1;
    srand((unsigned)getpid());
    while (1) {
        double t = now_s();
        // Connect at the configured rate.
        while (opened < o->count && opened < (int)((t - t0) * o->connect_rate) + 1) {
            Viewer *v = &vs[opened];
            v->throttled = o->throttle > 0 && opened == 0;
            v->index = opened;
            v->fd = open_socket(o, 1, v->throttled ? 4096 : 0);
            if (v->fd < 0) { v->state = DEAD; failed++; opened++; continue; }
            new_key(v);
            v->state = CONNECTING;
            v->reading = 1;
            v->last_refill = t;
            struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)opened};
            epoll_ctl(ep, EPOLL_CTL_ADD, v->fd, &ev);
            opened++;
        }
        if (opened == o->count && measure_from < 0) {
            measure_from = t + o->warmup;
            measure_to = measure_from + o->duration;
        }
        if (measure_to > 0 && t >= measure_to) break;
        int measuring = measure_from > 0 && t >= measure_from;

        // Throttled viewer: refill its budget, and read again when it has some.
        for (int i = 0; i < opened; i++) {
            Viewer *v = &vs[i];
            if (!v->throttled || v->state == DEAD) continue;
            v->tokens = fmin(o->throttle, v->tokens + (t - v->last_refill) * o->throttle);
            v->last_refill = t;
            if (!v->reading && v->tokens >= 1024) {
                struct epoll_event ev = {.events = EPOLLIN | (v->out_len ? EPOLLOUT : 0), .data.u32 = (uint32_t)i};
                epoll_ctl(ep, EPOLL_CTL_MOD, v->fd, &ev);
                v->reading = 1;
            }
        }

        struct epoll_event events[256];
        int n = epoll_wait(ep, events, 256, 10);
        for (int e = 0; e < n; e++) {
            Viewer *v = &vs[events[e].data.u32];
            if (v->state == DEAD) continue;
            if (v->state == CONNECTING && (events[e].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                int err = 0; socklen_t len = sizeof err;
                getsockopt(v->fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err) { v->state = DEAD; failed++; close(v->fd); continue; }
                char req[512];
                int m = snprintf(req, sizeof req,
                                 "GET /ws/%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartwire.v1\r\n\r\n",
                                 o->session, o->host, o->port, v->key);
                queue(v, req, (size_t)m);
                v->state = HANDSHAKE;
            }
            if (events[e].events & EPOLLIN) {
                size_t want = 65536;
                if (v->throttled) want = v->tokens < 1024 ? 0 : (size_t)fmin(v->tokens, 65536);
                if (want > 0) {
                    grow(&v->in, &v->in_cap, v->in_len + want);
                    ssize_t r = read(v->fd, v->in + v->in_len, want);
                    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) { v->state = DEAD; close(v->fd); continue; }
                    if (r > 0) {
                        v->in_len += (size_t)r;
                        if (v->throttled) v->tokens -= (double)r;
                        consume(v, measuring, o);
                    }
                }
                if (v->throttled && v->tokens < 1024 && v->reading) {
                    struct epoll_event ev = {.events = v->out_len ? EPOLLOUT : 0, .data.u32 = events[e].data.u32};
                    epoll_ctl(ep, EPOLL_CTL_MOD, v->fd, &ev);
                    v->reading = 0;
                }
            }
            flush(v);
            if (v->state == DEAD) { close(v->fd); continue; }
            if (v->state != CONNECTING) {
                struct epoll_event ev = {.events = (v->reading ? EPOLLIN : 0) | (v->out_len ? EPOLLOUT : 0),
                                         .data.u32 = events[e].data.u32};
                epoll_ctl(ep, EPOLL_CTL_MOD, v->fd, &ev);
            }
        }
    }

    int connected = 0, closed = 0, k = 0, zoomed = 0, nz = 0;
    double *fps = calloc((size_t)o->count, sizeof *fps), throttled_fps = -1, sum = 0;
    double *zb = calloc((size_t)o->count, sizeof *zb);
    long bytes = 0;
    for (int i = 0; i < o->count; i++) {
        Viewer *v = &vs[i];
        if (v->zoomed) zoomed++;
        if (v->zoom_frames > 0) zb[nz++] = (double)v->zoom_bytes;
        if (v->state == OPEN) connected++; else if (v->fd >= 0 && v->state == DEAD) closed++;
        bytes += v->bytes;
        double f = (double)v->frames / o->duration;
        if (v->throttled) { throttled_fps = f; continue; }
        if (v->state == OPEN) { fps[k++] = f; sum += f; }
    }
    qsort(fps, (size_t)k, sizeof *fps, cmp_double);
    qsort(zb, (size_t)nz, sizeof *zb, cmp_double);
    printf("{\"viewers\":%d,\"connected\":%d,\"failed\":%d,\"closed\":%d,\"window\":%d,"
           "\"fps\":{\"min\":%.2f,\"p5\":%.2f,\"median\":%.2f,\"mean\":%.2f,\"max\":%.2f},"
           "\"throttled_fps\":%.2f,\"bytes_per_s\":%.0f,\"errors\":%ld",
           o->count, connected, failed, closed, window_size, k ? fps[0] : 0, k ? fps[k / 20] : 0, k ? fps[k / 2] : 0,
           k ? sum / k : 0, k ? fps[k - 1] : 0, throttled_fps, (double)bytes / o->duration, errors);
    if (o->zoom) printf(",\"zoomed\":%d,\"zoom_frame_bytes\":{\"min\":%.0f,\"median\":%.0f}", zoomed, nz ? zb[0] : 0, nz ? zb[nz / 2] : 0);
    printf("}\n");
    return 0;
}

// ---- HTTP appends ------------------------------------------------------------------------

typedef struct { char *p; size_t n, cap; } Buf;

static void put(Buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2; b->p = realloc(b->p, b->cap); if (!b->p) die("out of memory"); }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

/// One POST on a keep-alive connection; returns the status (0 on a broken connection)
/// and, for 200, the accepted count.
static int post_to(int fd, const Options *o, const char *path, const char *type, const Buf *body, long *accepted) {
    char head[512];
    int m = snprintf(head, sizeof head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n",
                     path, o->host, type, body->n);
    if (write_all(fd, head, (size_t)m) < 0 || write_all(fd, body->p, body->n) < 0) return 0;
    char buf[8192];
    size_t have = 0;
    while (1) {
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r <= 0) return 0;
        have += (size_t)r;
        buf[have] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (!end) continue;
        char *cl = strcasestr(buf, "content-length:");
        size_t want = cl ? (size_t)atol(cl + 15) : 0;
        size_t got = have - (size_t)(end + 4 - buf);
        if (got < want) continue;
        int status = atoi(buf + 9);
        char *acc = strstr(end, "\"accepted\":");
        if (status == 200 && acc) *accepted = atol(acc + 11);
        return status;
    }
}

static int post(int fd, const Options *o, const char *series, const Buf *body, long *accepted) {
    char path[512];
    snprintf(path, sizeof path, "/api/sessions/%s/series/%s/append", o->session, series);
    return post_to(fd, o, path, o->binary ? "application/octet-stream" : "application/json", body, accepted);
}

static void body_for(Buf *b, const Options *o, const double *xs, const double *ys, int n) {
    b->n = 0;
    if (o->binary) {
        uint32_t count = (uint32_t)n;
        put(b, "CWA1", 4);
        put(b, &count, 4);                       // little-endian on every machine we build for
        put(b, xs, sizeof(double) * (size_t)n);
        put(b, ys, sizeof(double) * (size_t)n);
    } else {
        char num[64];
        put(b, "{\"x\":[", 6);
        for (int i = 0; i < n; i++) { int m = snprintf(num, sizeof num, i ? ",%.17g" : "%.17g", xs[i]); put(b, num, (size_t)m); }
        put(b, "],\"y\":[", 7);
        for (int i = 0; i < n; i++) { int m = snprintf(num, sizeof num, i ? ",%.17g" : "%.17g", ys[i]); put(b, num, (size_t)m); }
        put(b, "]}", 2);
    }
}

static int feed(const Options *o) {
    if (!o->series) die("--series is required");
    char *list = strdup(o->series);
    const char *names[64];
    int ns = 0;
    for (char *s = strtok(list, ","); s && ns < 64; s = strtok(NULL, ",")) names[ns++] = s;
    int fds[64];
    for (int i = 0; i < ns; i++) if ((fds[i] = open_socket(o, 0, 0)) < 0) die("cannot connect");
    // A feed that fell behind (a busy server) catches up at once, so the measured interval
    // may hold more than rate x duration requests: keep at most `cap` latencies.
    size_t cap = (size_t)(o->rate * ns * (o->warmup + o->duration + 1) + 16), nl = 0;
    double *lat = malloc(sizeof(double) * cap);
    long requests = 0, ok = 0, bad = 0, points = 0;
    double *xs = malloc(sizeof(double) * (size_t)o->batch), *ys = malloc(sizeof(double) * (size_t)o->batch);
    double walk[64] = {0};
    Buf body = {0};
    double t0 = now_s(), from = t0 + o->warmup, to = from + o->duration, next = t0;
    while (1) {
        double t = now_s();
        if (t >= to) break;
        if (t < next) { struct timespec ts = {0, (long)((next - t) * 1e9)}; nanosleep(&ts, NULL); continue; }
        next += 1 / o->rate;
        for (int s = 0; s < ns; s++) {
            for (int i = 0; i < o->batch; i++) {
                xs[i] = wall_s() + i * 1e-6;   // Unix seconds: follows history loaded with `ingest --start`
                // A bounded random walk (as a monitored signal is): mean-reverting about 0.
                walk[s] += ((double)rand() / RAND_MAX - 0.5) * o->jump - o->revert * walk[s];
                ys[i] = walk[s];
            }
            body_for(&body, o, xs, ys, o->batch);
            long accepted = 0;
            double a = now_s();
            int status = post(fds[s], o, names[s], &body, &accepted);
            double b = now_s();
            if (status == 0) die("the server closed a feed connection");
            if (b >= from) {
                requests++;
                if (status == 200) { ok++; points += accepted; } else bad++;
                if (nl < cap) lat[nl++] = (b - a) * 1000;
            }
        }
    }
    qsort(lat, nl, sizeof *lat, cmp_double);
    printf("{\"requests\":%ld,\"ok\":%ld,\"failed\":%ld,\"points\":%ld,"
           "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},\"rate\":%.1f}\n",
           requests, ok, bad, points, nl ? lat[nl / 2] : 0, nl ? lat[nl * 9 / 10] : 0, nl ? lat[nl * 99 / 100] : 0,
           nl ? lat[nl - 1] : 0, (double)requests / o->duration / ns);
    return 0;
}

static int ingest(const Options *o) {
    if (!o->series) die("--series is required");
    int fd = open_socket(o, 0, 0);
    if (fd < 0) die("cannot connect");
    double *xs = malloc(sizeof(double) * (size_t)o->batch), *ys = malloc(sizeof(double) * (size_t)o->batch);
    Buf body = {0};
    long sent = 0, failed = 0, stored = 0;
    double x = o->start, t0 = now_s(), busy = 0;
    // --duration: batches of K until that much time has passed (--points then unused).
    while (o->has_duration ? now_s() - t0 < o->duration : sent < o->points) {
        int n = (int)(!o->has_duration && o->points - sent < o->batch ? o->points - sent : o->batch);
        for (int i = 0; i < n; i++) {
            xs[i] = x; ys[i] = 0.8 * sin(i * 0.0007) + (double)rand() / RAND_MAX * 0.2 - 0.1;
            x += o->jitter > 0 ? o->step * (1 + o->jitter * ((double)rand() / RAND_MAX - 0.5)) : o->step;
        }
        body_for(&body, o, xs, ys, n);        // encoding is the client's cost: not timed
        long accepted = 0;
        double a = now_s();
        int status = post(fd, o, o->series, &body, &accepted);
        busy += now_s() - a;
        if (status == 0) die("the server closed the connection");
        if (status != 200) failed++; else stored += accepted;
        sent += n;
    }
    double wall = now_s() - t0;
    printf("{\"points\":%ld,\"accepted\":%ld,\"seconds\":%.3f,\"wall_seconds\":%.3f,\"points_per_s\":%.0f,"
           "\"wall_points_per_s\":%.0f,\"failed\":%ld}\n", sent, stored, busy, wall, (double)sent / busy, (double)sent / wall, failed);
    return 0;
}

// ---- line protocol -----------------------------------------------------------------------

/// Telegraf's cpu input, as its influx serializer writes it: one line per host and cpu
/// each tick, five fields, floats in their shortest form, nanosecond timestamps. Ticks
/// are --step seconds apart from --start (Unix seconds); --batch lines go in each
/// POST to /api/sessions/S/write?precision=ns.
static const char *cpu_fields[5] = {"usage_user", "usage_system", "usage_idle", "usage_iowait", "usage_steal"};

static int lines(const Options *o) {
    int fd = open_socket(o, 0, 0);
    if (fd < 0) die("cannot connect");
    char path[512];
    snprintf(path, sizeof path, "/api/sessions/%s/write?precision=ns", o->session);
    Buf body = {0};
    int sets = o->hosts * o->cpus;
    long long t_ns = (long long)(o->start * 1e9), step_ns = (long long)(o->step * 1e9 + 0.5);
    if (step_ns < 1) die("--step must be at least a nanosecond");
    long tick = 0, requests = 0, failed = 0, nlines = 0, values = 0, accepted_total = 0;
    double t0 = now_s(), busy = 0;
    unsigned seed = 12345;
    while (o->has_duration ? now_s() - t0 < o->duration : nlines < o->points) {
        body.n = 0;
        int in_body = 0;
        // Whole ticks only, so every host and cpu has a line at each timestamp.
        while (in_body + sets <= (o->batch > sets ? o->batch : sets)) {
            long long ts = t_ns + tick * step_ns;
            for (int h = 0; h < o->hosts; h++) {
                for (int c = 0; c < o->cpus; c++) {
                    // Jiffies-like ratios, so the values have every digit a real cpu's have.
                    seed = seed * 1103515245u + 12345u;
                    int total = 1000 + (int)(seed >> 16) % 24, user = 5 + (int)(seed >> 8) % 40, sys = 2 + (int)(seed >> 3) % 15;
                    int wait = (int)(seed >> 20) % 4;
                    double u = 100.0 * user / total, sy = 100.0 * sys / total, w = 100.0 * wait / total;
                    double idle = 100.0 - u - sy - w;
                    char line[512];
                    int m = snprintf(line, sizeof line,
                                     "cpu,cpu=cpu%d,host=web-%02d %s=%.16g,%s=%.16g,%s=%.16g,%s=%.16g,%s=0 %lld\n", c, h + 1,
                                     cpu_fields[0], u, cpu_fields[1], sy, cpu_fields[2], idle, cpu_fields[3], w, cpu_fields[4], ts);
                    put(&body, line, (size_t)m);
                    in_body++;
                }
            }
            tick++;
        }
        long accepted = 0;
        double a = now_s();
        int status = post_to(fd, o, path, "text/plain; charset=utf-8", &body, &accepted);   // encoding is not timed
        busy += now_s() - a;
        if (status == 0) die("the server closed the connection");
        requests++;
        nlines += in_body;
        values += in_body * 5L;
        if (status != 200) failed++; else accepted_total += accepted;
    }
    double wall = now_s() - t0;
    printf("{\"requests\":%ld,\"lines\":%ld,\"values\":%ld,\"accepted\":%ld,\"failed\":%ld,\"seconds\":%.3f,\"wall_seconds\":%.3f,"
           "\"values_per_s\":%.0f,\"lines_per_s\":%.0f,\"wall_values_per_s\":%.0f,\"body_bytes\":%zu}\n",
           requests, nlines, values, accepted_total, failed, busy, wall, (double)accepted_total / busy, (double)nlines / busy,
           (double)accepted_total / wall, body.n);
    return 0;
}

// ---- publisher -------------------------------------------------------------------------------

/// Opens a WebSocket (blocking) on `path` with `subprotocol`; verifies the accept key.
/// Anything read past the handshake is left in `v->in`.
static void ws_open(Viewer *v, const Options *o, const char *path, const char *subprotocol) {
    v->fd = open_socket(o, 0, 0);
    if (v->fd < 0) die("cannot connect");
    new_key(v);
    char req[768];
    int m = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
                     path, o->host, o->port, v->key, subprotocol);
    if (write_all(v->fd, req, (size_t)m) < 0) die("cannot write the handshake");
    while (1) {
        grow(&v->in, &v->in_cap, v->in_len + 4096);
        ssize_t r = read(v->fd, v->in + v->in_len, 4096);
        if (r <= 0) die("the server closed the connection during the handshake");
        v->in_len += (size_t)r;
        char head[HEAD_MAX];
        int answer = take_handshake(v, head);
        if (answer == 0) continue;
        if (answer < 0) {
            fprintf(stderr, "cwload: upgrade refused: %.200s\n", head);
            exit(2);
        }
        return;
    }
}

/// The publisher WebSocket (/publish/S/ID, chartwire.publish.v1): binary batches of
/// --batch points ("CWA1", count, x..., y...; masked as a client must), --inflight of
/// them sent ahead of their acknowledgements, for --duration seconds (or --points).
static int publish(const Options *o) {
    if (!o->series) die("--series is required");
    if (o->batch > 1000000) die("a batch holds at most 1,000,000 points");
    Viewer v = {0};
    char path[512];
    snprintf(path, sizeof path, "/publish/%s/%s", o->session, o->series);
    ws_open(&v, o, path, "chartwire.publish.v1");
    fcntl(v.fd, F_SETFL, fcntl(v.fd, F_GETFL) | O_NONBLOCK);
    size_t n = (size_t)o->batch, payload = 8 + 16 * n, hdr = 14;
    // One frame buffer: the next batch is built once the last one is written.
    uint8_t *frame = malloc(hdr + payload + 8);
    if (!frame) die("out of memory");
    // A bounded signal, as a table: the client's own cost stays small (it shares the cores).
    enum { TABLE = 4096 };
    double table[TABLE];
    for (int i = 0; i < TABLE; i++) table[i] = 0.8 * sin(i * 2 * M_PI / TABLE) + 0.1 * sin(i * 0.37);
    long sent_batches = 0, acked_batches = 0, acked_points = 0, errors_seen = 0, sent_points = 0;
    size_t frame_len = 0, frame_off = 0;   // the frame being written (0: none)
    double t0 = now_s(), first_send = -1, last_ack = -1, stop_at = t0 + o->duration, x = o->start;
    long index = 0;
    int inflight_max = 0;
    while (1) {
        double t = now_s();
        int more = o->has_duration || !o->has_points ? t < stop_at : sent_points < o->points;
        if (frame_len == 0 && more && sent_batches - acked_batches < o->inflight) {
            size_t k = !o->has_duration && o->has_points && o->points - sent_points < (long)n ? (size_t)(o->points - sent_points) : n;
            size_t len = 8 + 16 * k;
            uint8_t *p = frame + hdr;
            uint32_t count = (uint32_t)k;
            memcpy(p, "CWA1", 4);
            memcpy(p + 4, &count, 4);                          // little-endian on every machine we build for
            for (size_t i = 0; i < k; i++) {
                double xv = x + (double)index * o->step, yv = table[index % TABLE];
                memcpy(p + 8 + 8 * i, &xv, 8);
                memcpy(p + 8 + 8 * k + 8 * i, &yv, 8);
                index++;
            }
            // Header: FIN + binary, masked, 64-bit length, then the masking key.
            frame[0] = 0x82; frame[1] = 0x80 | 127;
            for (int i = 0; i < 8; i++) frame[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
            uint32_t key = (uint32_t)rand() ^ (uint32_t)((uint64_t)index * 2654435761u);
            memcpy(frame + 10, &key, 4);
            uint64_t key64 = (uint64_t)key | (uint64_t)key << 32, w;
            size_t i = 0;
            for (; i + 8 <= len; i += 8) { memcpy(&w, p + i, 8); w ^= key64; memcpy(p + i, &w, 8); }
            for (; i < len; i++) p[i] ^= frame[10 + (i & 3)];
            frame_len = hdr + len;
            frame_off = 0;
            sent_points += (long)k;
        }
        if (!more && frame_len == 0 && sent_batches == acked_batches) break;
        if (!more && t > stop_at + 10) { fprintf(stderr, "cwload: %ld batches unanswered\n", sent_batches - acked_batches); break; }
        struct pollfd pfd = {.fd = v.fd, .events = POLLIN | (frame_len ? POLLOUT : 0)};
        int wait_ms = frame_len ? 100 : (int)fmax(1, fmin(100, (stop_at - t) * 1000));
        if (poll(&pfd, 1, wait_ms) < 0 && errno != EINTR) die("poll failed");
        if (pfd.revents & (POLLERR | POLLHUP)) die("the server closed the publisher connection");
        if (frame_len && (pfd.revents & POLLOUT)) {
            ssize_t w = write(v.fd, frame + frame_off, frame_len - frame_off);
            if (w < 0 && errno != EAGAIN && errno != EINTR) die("cannot write a batch");
            if (w > 0) {
                if (first_send < 0) first_send = now_s();
                frame_off += (size_t)w;
                if (frame_off == frame_len) {
                    frame_len = 0;
                    sent_batches++;
                    if (sent_batches - acked_batches > inflight_max) inflight_max = (int)(sent_batches - acked_batches);
                }
            }
        }
        if (pfd.revents & POLLIN) {
            grow(&v.in, &v.in_cap, v.in_len + 65536);
            ssize_t r = read(v.fd, v.in + v.in_len, 65536);
            if (r == 0) die("the server closed the publisher connection");
            if (r < 0 && errno != EAGAIN && errno != EINTR) die("cannot read");
            if (r > 0) v.in_len += (size_t)r;
            // Answers: small unmasked text frames, one per batch, in order.
            size_t at = 0;
            while (v.in_len - at >= 2) {
                uint8_t b1 = v.in[at + 1];
                size_t len = b1 & 0x7F, h = 2;
                if (len == 126) { if (v.in_len - at < 4) break; len = (size_t)v.in[at + 2] << 8 | v.in[at + 3]; h = 4; }
                else if (len == 127) die("an answer too long for an acknowledgement");
                if (v.in_len - at < h + len) break;
                int op = v.in[at] & 0x0F;
                if (op == 1) {
                    char msg[1024];
                    size_t c = len < sizeof msg - 1 ? len : sizeof msg - 1;
                    memcpy(msg, v.in + at + h, c); msg[c] = 0;
                    char *acc = strstr(msg, "\"accepted\":");
                    if (strstr(msg, "\"type\":\"ack\"") && acc) {
                        acked_points += atol(acc + 11);
                    } else {
                        if (errors_seen++ < 3) fprintf(stderr, "cwload: %s\n", msg);
                    }
                    acked_batches++;
                    last_ack = now_s();
                } else if (op == 8) {
                    die("the server closed the publisher connection");
                }
                at += h + len;
            }
            memmove(v.in, v.in + at, v.in_len - at);
            v.in_len -= at;
        }
    }
    double seconds = last_ack > first_send && first_send >= 0 ? last_ack - first_send : 0;
    printf("{\"batches\":%ld,\"acked\":%ld,\"points\":%ld,\"acked_points\":%ld,\"errors\":%ld,\"seconds\":%.3f,"
           "\"points_per_s\":%.0f,\"inflight_max\":%d}\n",
           sent_batches, acked_batches, sent_points, acked_points, errors_seen, seconds, seconds > 0 ? (double)acked_points / seconds : 0,
           inflight_max);
    close(v.fd);
    return 0;
}

/// GET a path and print the body (the benchmark reads /api/stats with it).
static int get(const Options *o) {
    int fd = open_socket(o, 0, 0);
    if (fd < 0) die("cannot connect");
    char req[512];
    int m = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", o->series, o->host);
    if (write_all(fd, req, (size_t)m) < 0) die("cannot send");
    Buf b = {0};
    char buf[65536];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0) put(&b, buf, (size_t)r);
    put(&b, "", 1);
    char *body = strstr(b.p, "\r\n\r\n");
    if (!body || atoi(b.p + 9) != 200) die("GET failed");
    fputs(body + 4, stdout);
    putchar('\n');
    return 0;
}

/// Reads until the viewer has `want` frames (acknowledging each); 0 on a timeout.
static int await_frames(Viewer *v, long want, const Options *o) {
    while (v->frames < want && v->state != DEAD) {
        grow(&v->in, &v->in_cap, v->in_len + 65536);
        ssize_t r = read(v->fd, v->in + v->in_len, 65536);
        if (r <= 0) return 0;
        v->in_len += (size_t)r;
        consume(v, 1, o);
        flush(v);
    }
    return v->frames >= want;
}

/// One viewer, blocking: gestures and the frames that answer them.
static int gestures(const Options *o) {
    const char *kind = o->series ? o->series : "wheel";
    Viewer v = {0};
    v.fd = open_socket(o, 0, 0);
    if (v.fd < 0) die("cannot connect");
    new_key(&v);
    char req[512];
    int m = snprintf(req, sizeof req,
                     "GET /ws/%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartwire.v1\r\n\r\n",
                     o->session, o->host, o->port, v.key);
    if (write_all(v.fd, req, (size_t)m) < 0) die("cannot write the handshake");
    v.state = HANDSHAKE;
    struct timeval wait = {.tv_sec = 5}, settle = {.tv_usec = 300000};
    setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    if (!await_frames(&v, 1, o)) die("no first frame");
    // Let the first frame's aftermath settle (a second frame may follow it).
    setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &settle, sizeof settle);
    await_frames(&v, v.frames + 1, o);
    setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    int n = o->count, answered = 0, drag = strcmp(kind, "drag") == 0, hover = strcmp(kind, "hover") == 0;
    double *lat = calloc((size_t)n, sizeof *lat), *bytes = calloc((size_t)n, sizeof *bytes);
    double cx = o->width / 2.0, cy = o->height / 2.0;
    char msg[512];
    if (drag) {
        snprintf(msg, sizeof msg, "{\"type\":\"pointer\",\"phase\":\"down\",\"x\":%g,\"y\":%g,\"button\":0,\"buttons\":1,"
                 "\"pointerId\":1,\"pointerType\":\"mouse\",\"time\":0}", cx, cy);
        send_text(&v, msg);
        flush(&v);
    }
    // Gestures at a steady rate (the page forwards pointer events once per animation
    // frame, 60 a second); each is answered by the first frame that arrives after it.
    struct pollfd pfd = {.fd = v.fd, .events = POLLIN};
    double start = now_s(), *sent = calloc((size_t)n, sizeof *sent);
    long *sentBytes = calloc((size_t)n, sizeof *sentBytes);
    int next = 0;           // the next gesture to send
    int waiting = 0;        // the oldest gesture not yet answered
    while (waiting < n) {
        double t = now_s();
        if (next < n && t >= start + next / o->rate) {
            double pt = 1000 + next * 1000.0 / o->rate;
            if (strcmp(kind, "wheel") == 0) {
                snprintf(msg, sizeof msg, "{\"type\":\"wheel\",\"x\":%g,\"y\":%g,\"deltaY\":%d,\"time\":%g}", cx, cy, next % 2 ? 100 : -100, pt);
            } else {
                // hover: across the middle third, again and again; drag: 12 px to and fro.
                double x = hover ? cx - o->width / 6.0 + (next % 100) * (o->width / 300.0) : cx + (next % 2 ? 12 : -12);
                snprintf(msg, sizeof msg, "{\"type\":\"pointer\",\"phase\":\"move\",\"x\":%g,\"y\":%g,\"button\":-1,\"buttons\":%d,"
                         "\"pointerId\":1,\"pointerType\":\"mouse\",\"time\":%g}", x, cy, drag ? 1 : 0, pt);
            }
            sent[next] = now_s();
            sentBytes[next] = v.bytes;
            send_text(&v, msg);
            flush(&v);
            next++;
            continue;
        }
        double until = next < n ? start + next / o->rate : t + 1;
        int ms = (int)fmax(0, (until - t) * 1000);
        if (poll(&pfd, 1, ms) <= 0) {
            if (next >= n && now_s() - sent[n - 1] > 1) break;   // the last ones went unanswered
            continue;
        }
        long frames = v.frames;
        grow(&v.in, &v.in_cap, v.in_len + 65536);
        ssize_t r = read(v.fd, v.in + v.in_len, 65536);
        if (r <= 0) break;
        v.in_len += (size_t)r;
        consume(&v, 1, o);
        flush(&v);
        if (v.frames > frames) {
            // A frame answers every gesture sent before it that was still waiting.
            double at = now_s();
            while (waiting < next) {
                lat[answered] = (at - sent[waiting]) * 1000;
                bytes[answered] = (double)(v.bytes - sentBytes[waiting]);
                answered++;
                waiting++;
            }
        }
    }
    qsort(lat, (size_t)answered, sizeof *lat, cmp_double);
    qsort(bytes, (size_t)answered, sizeof *bytes, cmp_double);
#define Q(a, p) (answered ? (a)[(int)((answered - 1) * (p))] : 0)
    printf("{\"gestures\":%d,\"answered\":%d,\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},"
           "\"bytes\":{\"p50\":%.0f,\"max\":%.0f},\"errors\":%ld}\n",
           n, answered, Q(lat, 0.5), Q(lat, 0.9), Q(lat, 0.99), Q(lat, 1.0), Q(bytes, 0.5), Q(bytes, 1.0), errors);
#undef Q
    close(v.fd);
    return answered == n ? 0 : 1;
}

/// Opens a viewer (blocking socket) on `port` and sends its upgrade; `consume` takes the
/// answer and says hello.
static void viewer_connect(Viewer *v, const Options *o, int port) {
    Options p = *o;
    p.port = port;
    v->fd = open_socket(&p, 0, 0);
    if (v->fd < 0) { v->state = DEAD; return; }
    new_key(v);
    char req[512];
    int m = snprintf(req, sizeof req,
                     "GET /ws/%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartwire.v1\r\n\r\n",
                     o->session, o->host, port, v->key);
    v->in_len = 0; v->msg_len = 0; v->out_len = 0;
    v->state = write_all(v->fd, req, (size_t)m) < 0 ? DEAD : HANDSHAKE;
}

/// Reads what is there (one read) and handles it; 0 when the connection ended.
static int viewer_read(Viewer *v, const Options *o) {
    grow(&v->in, &v->in_cap, v->in_len + 65536);
    ssize_t r = read(v->fd, v->in + v->in_len, 65536);
    if (r <= 0) { v->state = DEAD; return 0; }
    v->in_len += (size_t)r;
    consume(v, 1, o);
    flush(v);
    return v->state != DEAD;
}

static int skew(const Options *o) {
    if (!o->series || o->port2 <= 0) die("skew needs --series and --port2");
    Viewer va = {0}, vb = {0};
    viewer_connect(&va, o, o->port);
    viewer_connect(&vb, o, o->port2);
    struct timeval wait = {.tv_sec = 5};
    setsockopt(va.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    setsockopt(vb.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    if (!await_frames(&va, 1, o) || !await_frames(&vb, 1, o)) die("no first frame");
    // Let the first frames' aftermath settle.
    double settle = now_s() + 0.5;
    Viewer *both[2] = {&va, &vb};
    while (now_s() < settle) {
        struct pollfd pf[2] = {{.fd = va.fd, .events = POLLIN}, {.fd = vb.fd, .events = POLLIN}};
        if (poll(pf, 2, 50) > 0) for (int k = 0; k < 2; k++) if (pf[k].revents) viewer_read(both[k], o);
    }
    int http = open_socket(o, 0, 0);
    if (http < 0) die("cannot connect");
    int n = o->count, answered = 0;
    double *sk = calloc((size_t)n, sizeof *sk), *la = calloc((size_t)n, sizeof *la), *lb = calloc((size_t)n, sizeof *lb);
    Buf body = {0};
    char path[512], head[512], resp[8192];
    snprintf(path, sizeof path, "/api/sessions/%s/series/%s/append", o->session, o->series);
    Options bin = *o;
    bin.binary = 1;
    double start = now_s();
    for (int i = 0; i < n; i++) {
        while (now_s() < start + i / o->rate) usleep(1000);
        double x = o->start + i * o->step, y = (i % 2) ? 1.0 : -1.0;
        body_for(&body, &bin, &x, &y, 1);
        int m = snprintf(head, sizeof head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/octet-stream\r\n"
                         "Content-Length: %zu\r\n\r\n", path, o->host, body.n);
        long fa = va.frames, fb = vb.frames;
        double sent = now_s(), ta = -1, tb = -1;
        if (write_all(http, head, (size_t)m) < 0 || write_all(http, body.p, body.n) < 0) die("append failed");
        size_t have = 0;
        int answeredHTTP = 0;
        while ((ta < 0 || tb < 0 || !answeredHTTP) && now_s() - sent < 2) {
            struct pollfd pf[3] = {{.fd = va.fd, .events = POLLIN}, {.fd = vb.fd, .events = POLLIN}, {.fd = http, .events = POLLIN}};
            if (poll(pf, 3, 100) <= 0) continue;
            double at = now_s();
            if (pf[0].revents && viewer_read(&va, o) && va.frames > fa && ta < 0) ta = at;
            if (pf[1].revents && viewer_read(&vb, o) && vb.frames > fb && tb < 0) tb = at;
            if (pf[2].revents) {
                ssize_t r = read(http, resp + have, sizeof resp - 1 - have);
                if (r <= 0) die("the append connection closed");
                have += (size_t)r;
                resp[have] = 0;
                char *end = strstr(resp, "\r\n\r\n");
                char *cl = strcasestr(resp, "content-length:");
                if (end && (size_t)(resp + have - (end + 4)) >= (cl ? (size_t)atol(cl + 15) : 0)) {
                    if (atoi(resp + 9) != 200) { errors++; fprintf(stderr, "cwload: append answered %.40s\n", resp); }
                    answeredHTTP = 1;
                }
            }
        }
        if (va.state == DEAD || vb.state == DEAD) die("a viewer's connection closed");
        if (ta >= 0 && tb >= 0) {
            sk[answered] = fabs(ta - tb) * 1000;
            la[answered] = (ta - sent) * 1000;
            lb[answered] = (tb - sent) * 1000;
            answered++;
        }
    }
    qsort(sk, (size_t)answered, sizeof *sk, cmp_double);
    qsort(la, (size_t)answered, sizeof *la, cmp_double);
    qsort(lb, (size_t)answered, sizeof *lb, cmp_double);
#define Q(a, p) (answered ? (a)[(int)((answered - 1) * (p))] : 0)
    printf("{\"appends\":%d,\"answered\":%d,\"skew_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},"
           "\"a_ms\":{\"p50\":%.3f,\"p99\":%.3f},\"b_ms\":{\"p50\":%.3f,\"p99\":%.3f},\"errors\":%ld}\n",
           n, answered, Q(sk, 0.5), Q(sk, 0.9), Q(sk, 0.99), Q(sk, 1.0), Q(la, 0.5), Q(la, 0.99), Q(lb, 0.5), Q(lb, 0.99), errors);
#undef Q
    return answered == n ? 0 : 1;
}

static int failover(const Options *o) {
    Viewer v = {0};
    double t0 = now_s();
    viewer_connect(&v, o, o->port);
    struct timeval wait = {.tv_sec = 5};
    setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    if (v.state == DEAD || !await_frames(&v, 1, o)) die("no first frame");
    double first = (now_s() - t0) * 1000;
    printf("{\"ready\":1,\"first_frame_ms\":%.3f}\n", first);
    fflush(stdout);
    // Draw until the connection breaks (frames may pause: poll, no receive timeout).
    double deadline = now_s() + o->duration;
    while (v.state != DEAD && now_s() < deadline) {
        struct pollfd pf = {.fd = v.fd, .events = POLLIN};
        if (poll(&pf, 1, 100) > 0) viewer_read(&v, o);
    }
    if (v.state != DEAD) die("the connection never broke");
    double lost = wall_s();
    close(v.fd);
    double backoff = 0.5;
    int reconnects = 0;
    while (now_s() < deadline) {
        usleep((useconds_t)(backoff * 1e6));
        backoff = fmin(backoff * 2, 10);
        reconnects++;
        Viewer w = {0};
        viewer_connect(&w, o, o->port);
        if (w.state == DEAD) continue;
        setsockopt(w.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
        if (await_frames(&w, 1, o)) {
            printf("{\"lost_at\":%.6f,\"frame_at\":%.6f,\"reconnects\":%d,\"first_frame_ms\":%.3f}\n", lost, wall_s(), reconnects, first);
            return 0;
        }
        close(w.fd);
    }
    die("no frame again before --duration ran out");
    return 1;
}

int main(int argc, char **argv) {

    if (argc < 2) die("usage: cwload viewers|feed|ingest|gestures|get|publish|lines --port P --session S ... (see the top of bench/cwload/main.c)");
    Options o = parse(argc, argv);
    if (strcmp(argv[1], "viewers") == 0) return viewers(&o);
    if (strcmp(argv[1], "feed") == 0) return feed(&o);
    if (strcmp(argv[1], "ingest") == 0) return ingest(&o);
    if (strcmp(argv[1], "get") == 0) return get(&o);
    if (strcmp(argv[1], "gestures") == 0) return gestures(&o);   // --series carries the path
    if (strcmp(argv[1], "publish") == 0) return publish(&o);
    if (strcmp(argv[1], "lines") == 0) return lines(&o);
    if (strcmp(argv[1], "skew") == 0) return skew(&o);
    if (strcmp(argv[1], "failover") == 0) return failover(&o);
    die("the first argument is viewers, feed, ingest, gestures, get, publish, lines, skew or failover");
}

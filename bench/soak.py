#!/usr/bin/env python3
"""Soak test of the transport (docs/security.md, "Soak"): hundreds of clients connect,
gesture, append, stall and vanish, with malformed traffic mixed in, for N minutes, while
the server's RSS and open descriptors are sampled each second and printed as a table.

    swift build -c release --product wsserver
    python3 bench/soak.py --bin .build/release/wsserver --minutes 3 --clients 300

It starts the server itself (`--port 0`, demo sessions) unless `--port P --pid PID`
name a running one. Clients come from 127.0.0.2 ... 127.0.0.17 (all loopback), so the
per-address connection limit sees several addresses; one "hog" address opens more
connections than the limit allows. Not part of CI. Traffic goes to 127.0.0.1 only.
"""
import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import random
import struct
import subprocess
import sys
import time

HOST = "127.0.0.1"
ADDRESSES = [f"127.0.0.{i}" for i in range(2, 18)]
HOG = "127.0.0.99"
# The healthy viewer watches a session the soak clients do not gesture on: a pan on a
# shared chart stops it following its data, which lowers its frame rate legitimately.
HEALTHY_SESSION = "monitor"


class Stats:
    def __init__(self):
        self.counts = {}
        self.healthy = None  # frames the healthy viewer received (a shared counter)

    def add(self, key, n=1):
        self.counts[key] = self.counts.get(key, 0) + n


def mask(payload):
    key = os.urandom(4)
    return key + bytes(c ^ key[i % 4] for i, c in enumerate(payload))


def ws_frame(opcode, payload, masked=True, fin=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    bit = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", b0, bit | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, bit | 126, n)
    else:
        head = struct.pack("!BBQ", b0, bit | 127, n)
    return head + (mask(payload) if masked else payload)


async def open_from(port, source):
    return await asyncio.wait_for(asyncio.open_connection(HOST, port, local_addr=(source, 0)), 5)


async def ws_open(port, source, path="/ws/demo", proto="chartwire.v1"):
    r, w = await open_from(port, source)
    key = base64.b64encode(os.urandom(16)).decode()
    w.write((f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {proto}\r\n\r\n").encode())
    head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 5)
    if not head.startswith(b"HTTP/1.1 101"):
        w.close()
        raise ConnectionError(head.split(b"\r\n")[0].decode(errors="replace"))
    return r, w


async def ws_read(r):
    """One message (opcode, payload) from the server (never masked, never fragmented here)."""
    h = await r.readexactly(2)
    n = h[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", await r.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", await r.readexactly(8))[0]
    return h[0] & 0x0F, await r.readexactly(n)


def pointer(phase, x, y, buttons):
    return json.dumps({"type": "pointer", "phase": phase, "x": x, "y": y, "button": 0 if phase != "move" else -1,
                       "buttons": buttons, "pointerId": 1, "pointerType": "mouse"}).encode()


async def viewer(port, source, stats, until, gesture=True):
    """Watches for a while, acknowledging frames, dragging and zooming now and then."""
    r, w = await ws_open(port, source)
    # A few canvas sizes, as real viewers have (each size watched costs a render per
    # publication; that cost and its cap are the session's, not the transport's).
    width, height = random.choice([(400, 300), (600, 400), (800, 500), (1200, 700)])
    w.write(ws_frame(1, json.dumps({"type": "hello", "width": width, "height": height, "dpr": 1}).encode()))
    stay = time.time() + random.uniform(2, 20)
    frames = 0
    while time.time() < min(stay, until):
        op, payload = await asyncio.wait_for(ws_read(r), 10)
        if op == 2:
            frames += 1
            w.write(ws_frame(1, b'{"type":"ack"}'))
            if gesture and random.random() < 0.1:
                x, y = random.randint(60, 180), random.randint(40, 120)
                w.write(ws_frame(1, pointer("down", x, y, 1)) + ws_frame(1, pointer("move", x + 20, y, 1))
                        + ws_frame(1, pointer("up", x + 20, y, 0)))
        elif op == 8:
            stats.add("viewer closed by server")
            return
    stats.add("viewer frames", frames)
    if random.random() < 0.5:
        w.write(ws_frame(8, struct.pack("!H", 1000)))
    w.transport.abort() if random.random() < 0.5 else w.close()


async def appender(port, source, stats, until, state):
    r, w = await open_from(port, source)
    for _ in range(random.randint(1, 20)):
        if time.time() > until:
            break
        state["x"] += 1
        body = json.dumps({"x": [state["x"]], "y": [random.random()]}).encode()
        w.write(f"POST /api/sessions/soak/series/s/append HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        head = await asyncio.wait_for(r.readuntil(b"\r\n\r\n"), 10)
        n = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
        await r.readexactly(n)
        stats.add("append " + head.split(b" ")[1].decode())
        await asyncio.sleep(random.uniform(0, 0.3))
    w.close()


async def staller(port, source, stats, until):
    """Half a head or half a declared body, then silence, then gone."""
    r, w = await open_from(port, source)
    if random.random() < 0.5:
        w.write(b"GET /api/sessions HTTP/1.1\r\nHost: 127")
    else:
        w.write(f"POST /api/sessions/soak/series/s/append HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                f"Content-Length: {random.choice([1000, 1 << 20, 60 << 20])}\r\n\r\n{{\"x\":[".encode())
    try:
        data = await asyncio.wait_for(r.read(4096), random.uniform(1, 15))
        stats.add("staller closed by server" if not data else "staller answered " + data.split(b" ")[1].decode())
    except asyncio.TimeoutError:
        stats.add("staller vanished")
    w.transport.abort()


MALFORMED = [
    b"POST /api/sessions HTTP/1.1\r\nHost: H\r\nContent-Length: abc\r\n\r\n",
    b"POST /api/sessions HTTP/1.1\r\nHost: H\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n{}",
    b"POST /api/sessions HTTP/1.1\r\nHost: H\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: H\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: H\r\nX-Pad: " + b"b" * 60000 + b"\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    b"POST /api/sessions HTTP/1.1\r\nHost: H\r\nOrigin: http://evil.example\r\nContent-Length: 2\r\n\r\n{}",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200),
    os.urandom(3000),
    b"GET /%ZZ HTTP/1.1\r\nHost: H\r\n\r\n",
]


async def malformed(port, source, stats, until):
    if random.random() < 0.4:
        # WebSocket rule breakers.
        try:
            r, w = await ws_open(port, source)
        except ConnectionError:
            stats.add("malformed ws refused")
            return
        w.write(random.choice([ws_frame(1, b'{"type":"\xff"}'), ws_frame(3, b"x"), ws_frame(9, b"x" * 126),
                               ws_frame(1, b"{" * 70000), ws_frame(1, b'{"type":"hello"}', masked=False),
                               b"".join(ws_frame(1, pointer("move", 5, 5, 0)) for _ in range(1500))]))
    else:
        r, w = await open_from(port, source)
        w.write(random.choice(MALFORMED).replace(b"Host: H", f"Host: {HOST}:{port}".encode()))
    try:
        data = await asyncio.wait_for(r.read(65536), 5)
        status = data.split(b" ")[1].decode(errors="replace") if data.startswith(b"HTTP/1.1") else "closed" if not data else "ws"
        stats.add("malformed -> " + status)
    except (asyncio.TimeoutError, ConnectionError):
        stats.add("malformed -> no answer")
    w.transport.abort()


async def hog(port, stats, until):
    """One address opening more connections than the per-address limit allows."""
    held = []
    for _ in range(100):
        try:
            r, w = await open_from(port, HOG)
            held.append(w)
        except (OSError, asyncio.TimeoutError):
            stats.add("hog refused")
    await asyncio.sleep(max(0, min(10, until - time.time())))
    for w in held:
        w.transport.abort()


async def client_loop(port, stats, until, state):
    kinds = [viewer] * 5 + [appender] * 2 + [staller] * 2 + [malformed] * 2
    while time.time() < until:
        kind = random.choice(kinds)
        source = random.choice(ADDRESSES)
        try:
            if kind is appender:
                await kind(port, source, stats, until, state)
            else:
                await kind(port, source, stats, until)
        except (ConnectionError, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as e:
            stats.add(f"{kind.__name__} error {type(e).__name__}")
        await asyncio.sleep(random.uniform(0, 1))


def healthy(port, frames, until):
    """The healthy viewer, in a process of its own so that the load generator's CPU use
    does not slow it: counts the frames it receives (and acknowledges) in `frames`."""
    import socket
    s = socket.create_connection((HOST, port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws/{HEALTHY_SESSION} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartwire.v1\r\n\r\n")
              .encode())
    f = s.makefile("rb")
    while f.readline() not in (b"\r\n", b""):
        pass
    s.sendall(ws_frame(1, b'{"type":"hello","width":600,"height":400,"dpr":1}'))
    while time.time() < until:
        h = f.read(2)
        n = h[1] & 0x7F
        if n == 126:
            n = struct.unpack("!H", f.read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", f.read(8))[0]
        f.read(n)
        if h[0] & 0x0F == 2:
            with frames.get_lock():
                frames.value += 1
            s.sendall(ws_frame(1, b'{"type":"ack"}'))
    s.close()


def sample(pid):
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, fds, cpu


async def sampler(pid, stats, until, rows):
    print(f"{'t s':>5} {'RSS MB':>8} {'fds':>5} {'CPU %':>6} {'healthy fps':>12}  outcomes so far", flush=True)
    last_frames, (_, _, last_cpu), t0 = 0, sample(pid), time.time()
    while time.time() < until:
        await asyncio.sleep(1)
        rss, fds, cpu = sample(pid)
        fps = stats.healthy.value - last_frames
        last_frames = stats.healthy.value
        rows.append((time.time() - t0, rss, fds, fps))
        top = ", ".join(f"{k} {v}" for k, v in sorted(stats.counts.items(), key=lambda kv: -kv[1])[:4])
        print(f"{time.time() - t0:5.0f} {rss:8.1f} {fds:5d} {100 * (cpu - last_cpu):6.0f} {fps:12d}  {top}", flush=True)
        last_cpu = cpu


async def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="wsserver binary to start")
    ap.add_argument("--port", type=int)
    ap.add_argument("--pid", type=int)
    ap.add_argument("--minutes", type=float, default=3)
    ap.add_argument("--clients", type=int, default=300)
    ap.add_argument("--server-arg", action="append", default=[], help="extra flag for the started server")
    a = ap.parse_args()
    proc = None
    if a.bin:
        proc = subprocess.Popen([a.bin, "--port", "0", "--quiet", *a.server_arg], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        a.port = int(proc.stdout.readline().decode().strip().rsplit(":", 1)[1])
        a.pid = proc.pid
    if not (a.port and a.pid):
        sys.exit("give --bin, or --port and --pid of a running server")
    spec = json.dumps({"id": "soak", "chart": {"xAxes": [{"id": "x", "mode": "extents"}], "yAxes": [{"id": "y"}],
                                               "series": [{"id": "s", "capacity": 10000}]}}).encode()
    r, w = await asyncio.open_connection(HOST, a.port)
    w.write(f"POST /api/sessions HTTP/1.1\r\nHost: {HOST}:{a.port}\r\nContent-Length: {len(spec)}\r\n"
            f"Connection: close\r\n\r\n".encode() + spec)
    await r.read()
    w.close()
    stats, rows, state = Stats(), [], {"x": 0}
    until = time.time() + a.minutes * 60
    start_rss, start_fds, _ = sample(a.pid)
    stats.healthy = multiprocessing.Value("i", 0)
    watcher = multiprocessing.Process(target=healthy, args=(a.port, stats.healthy, until), daemon=True)
    watcher.start()
    tasks = [asyncio.create_task(sampler(a.pid, stats, until, rows)), asyncio.create_task(hog(a.port, stats, until))]
    tasks += [asyncio.create_task(client_loop(a.port, stats, until, state)) for _ in range(a.clients)]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(3)  # let the server close what the clients left
    end_rss, end_fds, _ = sample(a.pid)
    alive = proc.poll() is None if proc else os.path.exists(f"/proc/{a.pid}")
    print("\noutcomes:")
    for k, v in sorted(stats.counts.items()):
        print(f"  {k:40s} {v}")
    watcher.join(15)
    failed = [r for r in results[:1] if isinstance(r, Exception)] + ([f"exit {watcher.exitcode}"] if watcher.exitcode else [])
    rss = [r[1] for r in rows]
    fps = [r[3] for r in rows[2:]]
    print(f"\nserver alive: {alive}; healthy viewer: {'ERROR ' + repr(failed) if failed else 'ok'}")
    print(f"RSS MB: start {start_rss:.1f}, min {min(rss):.1f}, max {max(rss):.1f}, end {end_rss:.1f}")
    print(f"descriptors: start {start_fds}, max {max(r[2] for r in rows)}, end (3 s after) {end_fds}")
    if fps:
        print(f"healthy viewer frames/s: min {min(fps)}, median {sorted(fps)[len(fps) // 2]}, max {max(fps)}")
    r, w = await asyncio.open_connection(HOST, a.port)
    w.write(f"GET /api/stats HTTP/1.1\r\nHost: {HOST}:{a.port}\r\nConnection: close\r\n\r\n".encode())
    answer = await r.read()
    w.close()
    print("server's transport counters:", json.loads(answer.partition(b"\r\n\r\n")[2]).get("transport"))
    if proc:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    asyncio.run(main())

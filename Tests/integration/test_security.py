"""The transport on an open network (issue 25; docs/security.md): strict HTTP, budgets,
timeouts, access checks and TLS. Each test attacks a real server while a healthy viewer
of the demo session watches, and checks that the viewer keeps its frame rate, that the
server's RSS stays bounded, and that the attacker gets the documented status or close."""
import json
import os
import pathlib
import resource
import socket
import ssl
import subprocess
import threading
import time
import urllib.request

import pytest
import websocket

import wsraw
from conftest import Server, server_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]
RSS_BOUND_MB = 600  # the debug build with the demo sessions sits near 100 MB


class Viewer:
    """A viewer of the demo session on its own thread, acknowledging every frame."""

    def __init__(self, url, sslopt=None):
        # 15 s: building a large answer (test_large_answer_...) holds the event loop for
        # seconds in a debug build on a busy machine; the rate is checked at the end.
        self.ws = websocket.create_connection(url, subprotocols=["chartwire.v1"], timeout=15, sslopt=sslopt)
        self.ws.send(json.dumps({"type": "hello", "width": 400, "height": 300, "dpr": 1}))
        self.times = []
        self.stop = False
        self.error = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            while not self.stop:
                op, _ = self.ws.recv_data()
                if op == websocket.ABNF.OPCODE_BINARY:
                    self.times.append(time.time())
                    self.ws.send('{"type":"ack"}')
        except Exception as e:  # noqa: BLE001 - recorded and asserted on
            if not self.stop:
                self.error = e

    def frames_since(self, t0):
        return sum(1 for t in self.times if t >= t0)

    def close(self):
        self.stop = True
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001
            pass


def rss_mb(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def cpu_seconds(server):
    with open(f"/proc/{server.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def guarded():
    """Starts a server with extra flags and a healthy viewer; on the way out checks the
    viewer still received frames at its rate in the last second, and the RSS bound."""
    started = []

    def start(*args, **kw):
        s = Server(*args, **kw).start()
        v = Viewer(f"ws://127.0.0.1:{s.port}/ws/demo")
        started.append((s, v))
        time.sleep(0.5)
        return s, v

    yield start
    for s, v in started:
        try:
            assert s.alive(), "the server died"
            t0 = time.time()
            time.sleep(1.0)
            assert v.error is None, f"the healthy viewer lost its connection: {v.error!r}"
            assert v.frames_since(t0) >= 10, f"the healthy viewer got {v.frames_since(t0)} frames in a second"
            assert rss_mb(s) < RSS_BOUND_MB
        finally:
            v.close()
            s.stop()


def raw(port, data, wait=3.0):
    """Sends bytes on a fresh connection and reads until the server closes it (or
    `wait` passes: then `closed` is False)."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(wait)
    s.sendall(data)
    out, closed, t = b"", False, time.time()
    try:
        while time.time() - t < wait:
            b = s.recv(65536)
            if not b:
                closed = True
                break
            out += b
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    s.close()
    return out, closed


def responses(data):
    """Status codes of the HTTP responses in `data`."""
    return [int(line.split()[1]) for line in data.split(b"\r\n") if line.startswith(b"HTTP/1.1 ")]


def head(port):
    return f"Host: 127.0.0.1:{port}\r\n".encode()


def urlopen(url, method="GET", data=None, headers=None, context=None):
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


# MARK: HTTP done strictly


@pytest.mark.parametrize("length", [b"abc", b"1e3", b"-5", b"+2", b"2, 2", b"0x10"])
def test_content_length_must_be_digits(guarded, length):
    s, _ = guarded()
    # What follows the head would be a second request if the length read as 0.
    smuggled = b"GET /healthz HTTP/1.1\r\n" + head(s.port) + b"\r\n"
    out, closed = raw(s.port, b"POST /api/sessions HTTP/1.1\r\n" + head(s.port) + b"Content-Length: " + length
                      + b"\r\n\r\n" + smuggled)
    assert responses(out) == [400], out
    assert b"connection: close" in out.lower() and closed
    assert b"Content-Length" in out


def test_duplicate_content_length_refused_and_nothing_smuggled(guarded):
    s, _ = guarded()
    smuggled = b"DELETE /api/sessions/demo HTTP/1.1\r\n" + head(s.port) + b"\r\n"
    out, closed = raw(s.port, b"POST /api/sessions HTTP/1.1\r\n" + head(s.port)
                      + b"Content-Length: 2\r\nContent-Length: " + str(2 + len(smuggled)).encode() + b"\r\n\r\n{}"
                      + smuggled)
    assert responses(out) == [400] and closed, out
    assert b"more than one Content-Length" in out
    assert urlopen(f"{s.http}/api/sessions/demo/spec")[0] == 200  # not deleted


def test_post_without_length_is_411(guarded):
    s, _ = guarded()
    out, closed = raw(s.port, b"POST /api/sessions HTTP/1.1\r\n" + head(s.port) + b"\r\n{}")
    assert responses(out) == [411] and closed, out
    out, closed = raw(s.port, b"POST /api/sessions HTTP/1.1\r\n" + head(s.port)
                      + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    assert responses(out) == [411] and closed, out


def test_long_url_414_and_large_head_431(guarded):
    s, _ = guarded("--limit", "maxURLBytes=4096", "--limit", "maxHeadBytes=8192")
    out, closed = raw(s.port, b"GET /" + b"a" * 6000 + b" HTTP/1.1\r\n" + head(s.port) + b"\r\n")
    assert responses(out) == [414] and closed, out[:300]
    out, closed = raw(s.port, b"GET /healthz HTTP/1.1\r\n" + head(s.port) + b"Cookie: " + b"c" * 9000 + b"\r\n\r\n")
    assert responses(out) == [431] and closed, out[:300]
    # Within the limits: answered.
    out, _ = raw(s.port, b"GET /healthz?" + b"a" * 3000 + b" HTTP/1.1\r\n" + head(s.port) + b"Connection: close\r\n\r\n")
    assert responses(out) == [200], out[:300]


def test_large_answer_arrives_whole_to_a_slow_reader(guarded):
    s, _ = guarded()
    spec = {"id": "big", "chart": {"xAxes": [{"id": "x", "mode": "extents"}], "yAxes": [{"id": "y"}],
                                   "series": [{"id": "s"}]}}
    assert urlopen(f"{s.http}/api/sessions", "POST", json.dumps(spec).encode())[0] == 201
    n = 500_000
    body = json.dumps({"x": list(range(n)), "y": [i * 0.25 for i in range(n)]}).encode()
    assert urlopen(f"{s.http}/api/sessions/big/series/s/append", "POST", body)[0] == 200
    c = socket.create_connection(("127.0.0.1", s.port))
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    c.sendall(b"GET /api/sessions/big/spec?data=1 HTTP/1.1\r\n" + head(s.port) + b"\r\n")
    time.sleep(7)  # a reader that stalls longer than lws's 5 s HTTP timeout, then reads
    c.settimeout(10)
    data = b""
    while True:
        h, _, rest = data.partition(b"\r\n\r\n")
        if rest and len(rest) >= int(next(l for l in h.split(b"\r\n") if l.lower().startswith(b"content-length")).split(b":")[1]):
            break
        b = c.recv(1 << 20)
        if not b:
            break
        data += b
    c.close()
    h, _, rest = data.partition(b"\r\n\r\n")
    declared = int(next(l for l in h.split(b"\r\n") if l.lower().startswith(b"content-length")).split(b":")[1])
    assert declared > 6_000_000  # more than the socket buffers hold during the stall
    assert len(rest) == declared, f"{len(rest)} of {declared} bytes arrived"
    assert len(json.loads(rest)["chart"]["series"][0]["data"]["x"]) == n


# MARK: Budgets and timeouts


def test_body_budget_refuses_at_the_head(guarded):
    s, _ = guarded("--limit", "bodyBudgetMB=16")
    path = b"/api/sessions/demo/series/sine/append"
    held = []
    for _ in range(2):  # two unfinished 7 MB bodies: 14 of 16 MB
        c = socket.create_connection(("127.0.0.1", s.port))
        c.sendall(b"POST " + path + b" HTTP/1.1\r\n" + head(s.port) + b"Content-Length: 7000000\r\n\r\n" + b"{" * 1000)
        held.append(c)
    time.sleep(0.3)
    # Refused at the head; the declared body is read and discarded, and a request
    # after it is never served: the connection closes.
    out, closed = raw(s.port, b"POST " + path + b" HTTP/1.1\r\n" + head(s.port) + b"Content-Length: 7000000\r\n\r\n"
                      + b" " * 7_000_000 + b"GET /healthz HTTP/1.1\r\n" + head(s.port) + b"\r\n")
    assert responses(out) == [503] and closed, out
    assert b"retry-after" in out.lower() and b"connection: close" in out.lower()
    # Over the per-request limit: 413 before any of the body.
    out, _ = raw(s.port, b"POST " + path + b" HTTP/1.1\r\n" + head(s.port) + b"Content-Length: 900000000\r\n\r\n",
                 wait=1)
    assert responses(out) == [413], out
    stats = json.loads(urlopen(f"{s.http}/api/stats")[2])["transport"]
    assert stats["bodyBudget"] == 1 and stats["bodyTooLarge"] == 1 and stats["bodyBytesInFlight"] == 14_000_000
    for c in held:
        c.close()
    time.sleep(0.3)
    assert json.loads(urlopen(f"{s.http}/api/stats")[2])["transport"]["bodyBytesInFlight"] == 0


def test_unfinished_publisher_batches_share_the_budget(guarded):
    s, _ = guarded("--limit", "bodyBudgetMB=16")
    url = f"ws://127.0.0.1:{s.port}/publish/demo/sine"
    chunk = b"{" + b" " * (6 << 20)
    pubs = []
    for _ in range(3):
        p = websocket.create_connection(url, subprotocols=["chartwire.publish.v1"], timeout=5)
        p.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_TEXT, fin=0))
        pubs.append(p)
    time.sleep(0.5)
    assert rss_mb(s) < RSS_BOUND_MB
    # The third batch did not fit (12 + 6 > 16 MB): its end is answered "overloaded".
    pubs[2].send_frame(websocket.ABNF.create_frame(b"}", websocket.ABNF.OPCODE_CONT, fin=1))
    reply = json.loads(pubs[2].recv())
    assert reply["type"] == "error" and reply["code"] == "overloaded", reply
    stats = json.loads(urlopen(f"{s.http}/api/stats")[2])["transport"]
    assert stats["publisherBudget"] == 1 and stats["bodyBytesInFlight"] <= 16 << 20
    for p in pubs:
        p.close()


def test_slow_body_is_closed(guarded):
    s, _ = guarded("--limit", "bodyTimeoutS=2")
    c = socket.create_connection(("127.0.0.1", s.port))
    c.sendall(b"POST /api/sessions/demo/series/sine/append HTTP/1.1\r\n" + head(s.port) + b"Content-Length: 1000\r\n\r\n")
    t0, closed = time.time(), False
    c.settimeout(0.2)
    while time.time() - t0 < 6:
        try:
            c.send(b" ")  # a byte a second: each restarts lws's own idle timer
            if c.recv(100) == b"":
                closed = True
                break
        except socket.timeout:
            continue
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.8)
    c.close()
    assert closed and time.time() - t0 < 5, "a body trickling a byte a second was not closed"
    assert json.loads(urlopen(f"{s.http}/api/stats")[2])["transport"]["bodyTimeout"] == 1


def test_slow_head_is_closed(guarded):
    s, _ = guarded("--limit", "headerTimeoutS=2")
    c = socket.create_connection(("127.0.0.1", s.port))
    t0, closed = time.time(), False
    c.settimeout(0.2)
    for ch in b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"a" * 100:
        try:
            c.send(bytes([ch]))
            if c.recv(100) == b"":
                closed = True
                break
        except socket.timeout:
            pass
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        if time.time() - t0 > 6:
            break
        time.sleep(0.3)
    c.close()
    assert closed and time.time() - t0 < 4


def test_connections_per_address(guarded):
    s, _ = guarded("--limit", "connectionsPerAddress=8")
    held = [socket.create_connection(("127.0.0.1", s.port)) for _ in range(7)]  # + the viewer: 8
    time.sleep(0.3)
    out, closed = raw(s.port, b"GET /healthz HTTP/1.1\r\n" + head(s.port) + b"\r\n")
    assert responses(out) == [503] and closed, out
    assert b"too many connections" in out
    for c in held:
        c.close()
    time.sleep(0.3)
    assert urlopen(f"{s.http}/healthz")[0] == 200


def test_message_rate_limit(guarded):
    s, _ = guarded("--limit", "messagesPerSecond=50", "--limit", "messageBurst=50")
    c = wsraw.handshake(s.port)
    c.sendall(wsraw.frame(1, json.dumps({"type": "hello", "width": 300, "height": 200, "dpr": 1}).encode()))
    move = json.dumps({"type": "pointer", "phase": "move", "x": 10, "y": 10, "button": -1, "buttons": 0,
                       "pointerId": 1, "pointerType": "mouse"}).encode()
    try:
        c.sendall(b"".join(wsraw.frame(1, move) for _ in range(400)))
    except (BrokenPipeError, ConnectionResetError):
        pass
    kind, detail = wsraw.reaction(c, wait=4)
    c.close()
    assert (kind, detail) == ("close", 1008), (kind, detail)
    # Before the close: the one error saying why.
    c = wsraw.handshake(s.port)
    c.sendall(wsraw.frame(1, json.dumps({"type": "hello", "width": 300, "height": 200, "dpr": 1}).encode())
              + b"".join(wsraw.frame(1, move) for _ in range(80)))
    kind, seen = wsraw.reaction(c, wait=1.5)
    c.close()
    errors = [json.loads(p)["code"] for op, p in seen if op == 1 and b'"error"' in p]
    # One error per run of dropped messages (a token refilled between two drops starts a
    # new run on a loaded machine), never one per dropped message (about 30 here).
    assert kind == "open" and 1 <= len(errors) <= 5 and set(errors) == {"rate_limited"}, (kind, errors)
    stats = json.loads(urlopen(f"{s.http}/api/stats")[2])["transport"]
    assert stats["rateLimited"] > 60 and stats["rateLimitClosed"] == 1


def test_descriptor_limit_refuses_cheaply():
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    args = [server_binary(), "--port", "0", "--quiet"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
    try:
        port = int(proc.stdout.readline().decode().strip().rsplit(":", 1)[1])
        s = Server()
        s.proc, s.port = proc, port
        v = Viewer(f"ws://127.0.0.1:{port}/ws/demo")
        time.sleep(0.5)
        held = []
        for _ in range(100):
            c = socket.socket()
            c.settimeout(0.5)
            try:
                c.connect(("127.0.0.1", port))
            except OSError:
                c.close()
                continue
            held.append(c)
        time.sleep(0.5)
        c0, t0 = cpu_seconds(s), time.time()
        time.sleep(2)
        cpu = (cpu_seconds(s) - c0) / (time.time() - t0)
        assert cpu < 0.3, f"the server used {cpu:.0%} of a core at the descriptor limit"
        assert v.frames_since(t0) >= 20, "the viewer starved at the descriptor limit"
        for c in held:
            c.close()
        time.sleep(1)
        assert urlopen(f"http://127.0.0.1:{port}/healthz")[0] == 200
        v.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    lines = err.count(b"\n")
    assert lines < 5, f"--quiet server wrote {lines} lines: {err[:300]!r}"


# MARK: Access


def test_foreign_origin_websocket_refused(guarded):
    s, _ = guarded()
    with pytest.raises(websocket.WebSocketBadStatusException) as e:
        websocket.create_connection(f"ws://127.0.0.1:{s.port}/ws/demo", subprotocols=["chartwire.v1"],
                                    origin="http://evil.example", timeout=5)
    assert e.value.status_code == 403
    ok = websocket.create_connection(f"ws://127.0.0.1:{s.port}/ws/demo", subprotocols=["chartwire.v1"],
                                     origin=f"http://127.0.0.1:{s.port}", timeout=5)
    ok.close()


def test_allow_origin_flag(guarded):
    s, _ = guarded("--allow-origin", "http://app.example")
    ok = websocket.create_connection(f"ws://127.0.0.1:{s.port}/ws/demo", subprotocols=["chartwire.v1"],
                                     origin="http://app.example", timeout=5)
    ok.close()
    status, headers, _ = urlopen(f"{s.http}/api/sessions", "OPTIONS", headers={
        "Origin": "http://app.example", "Access-Control-Request-Method": "POST"})
    assert status == 204 and headers["access-control-allow-origin"] == "http://app.example"
    assert "POST" in headers["access-control-allow-methods"]
    status, _, _ = urlopen(f"{s.http}/api/sessions", "OPTIONS", headers={"Origin": "http://evil.example"})
    assert status == 403
    status, headers, _ = urlopen(f"{s.http}/api/sessions/queue/series/jobs/append", "POST",
                                 json.dumps({"x": [1e12], "y": [1]}).encode(), {"Origin": "http://app.example"})
    assert status == 200 and headers["access-control-allow-origin"] == "http://app.example"


def test_cross_site_form_post_refused(guarded):
    s, _ = guarded()
    spec = {"id": "planted", "chart": {"series": [{"id": "s"}]}}
    status, _, body = urlopen(f"{s.http}/api/sessions", "POST", json.dumps(spec).encode(),
                              {"Origin": "http://evil.example", "Content-Type": "text/plain"})
    assert status == 403 and b"Origin" in body
    assert urlopen(f"{s.http}/api/sessions/planted/spec")[0] == 404
    status, _, _ = urlopen(f"{s.http}/api/sessions/demo/series/sine/clear", "POST", b"{}",
                           {"Origin": "http://evil.example", "Content-Type": "text/plain"})
    assert status == 403
    assert json.loads(urlopen(f"{s.http}/api/sessions")[2])["sessions"][0]["series"][0]["points"] > 0


def test_host_checked_against_dns_rebinding(guarded):
    s, _ = guarded()
    out, closed = raw(s.port, b"GET /api/sessions HTTP/1.1\r\nHost: evil.example:%d\r\n\r\n" % s.port)
    assert responses(out) == [421] and closed, out
    for name in (b"localhost", b"127.0.0.1"):
        out, _ = raw(s.port, b"GET /healthz HTTP/1.1\r\nHost: " + name + b":%d\r\nConnection: close\r\n\r\n" % s.port)
        assert responses(out) == [200], out
    with pytest.raises(websocket.WebSocketBadStatusException) as e:
        websocket.create_connection(f"ws://127.0.0.1:{s.port}/ws/demo", subprotocols=["chartwire.v1"],
                                    host="evil.example", timeout=5)
    assert e.value.status_code == 421


def test_allow_host_flag(guarded):
    s, _ = guarded("--allow-host", "charts.example")
    out, _ = raw(s.port, b"GET /healthz HTTP/1.1\r\nHost: charts.example\r\nConnection: close\r\n\r\n")
    assert responses(out) == [200], out


def test_tls(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    args = [server_binary(), "--port", "0", "--quiet", "--tls-cert", str(cert), "--tls-key", str(key)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("listening on https://"), line
        port = int(line.rsplit(":", 1)[1])
        ctx = ssl.create_default_context(cafile=str(cert))
        ctx.check_hostname = False
        status, _, body = urlopen(f"https://127.0.0.1:{port}/healthz", context=ctx)
        assert status == 200 and body.strip() == b"ok"
        v = Viewer(f"wss://127.0.0.1:{port}/ws/demo", sslopt={"ca_certs": str(cert), "check_hostname": False})
        t0 = time.time()
        time.sleep(1.5)
        assert v.frames_since(t0) >= 10 and v.error is None
        v.close()
        # Plain HTTP on the TLS port gets nothing served.
        out, _ = raw(port, f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode(), wait=2)
        assert b"200 OK" not in out
    finally:
        proc.terminate()
        proc.wait(10)


def test_tls_flags_go_together():
    r = subprocess.run([server_binary(), "--port", "0", "--tls-cert", "/nonexistent"], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 2 and "--tls-cert and --tls-key go together" in r.stderr


def test_page_builds_wss_url_from_location():
    js = (ROOT / "web" / "client.js").read_text()
    assert "location.protocol" in js and "wss:" in js

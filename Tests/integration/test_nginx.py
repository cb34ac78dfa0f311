"""Behind a reverse proxy: real nginx from Debian in front of the real server, with the
site file we ship (deploy/nginx-chartwire.conf) under /charts/ (docs/deploy.md): the
page (in Chromium), its WebSocket, the API, and X-Forwarded-For believed only from a
trusted proxy."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websocket

from conftest import FIXTURES, ROOT, Server, free_port
from test_browser import driver, wait_for  # noqa: F401 (the fixture)
from test_websocket import hello, next_frame

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_conf(tmp, listen, upstream):
    """The shipped site, pointed at the test's ports, in a minimal nginx.conf that
    keeps every file nginx writes in `tmp`."""
    site = (ROOT / "deploy" / "nginx-chartwire.conf").read_text()
    assert "server 127.0.0.1:8080;" in site and "listen 80;" in site
    site = site.replace("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream};").replace(
        "listen 80;", f"listen 127.0.0.1:{listen};")
    temps = "\n".join(f"    {k}_temp_path {tmp}/{k};" for k in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    user = "user root;" if os.geteuid() == 0 else ""   # workers can reach the temp dirs
    conf = f"""{user}
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {tmp}/access.log;
{temps}
{site}
}}
"""
    path = tmp / "nginx.conf"
    path.write_text(conf)
    return path


@pytest.fixture
def proxied(tmp_path):
    server = Server("--config", str(FIXTURES / "static.json"), "--trusted-proxy", "127.0.0.1")
    server.args.remove("--quiet")   # the request log names the client
    server.start()
    port = free_port()
    conf = nginx_conf(tmp_path, port, server.port)
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if nginx.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"nginx did not start: {nginx.stderr.read().decode()} "
                                   f"{(tmp_path / 'error.log').read_text() if (tmp_path / 'error.log').exists() else ''}")
            time.sleep(0.05)
    yield server, f"127.0.0.1:{port}"
    nginx.terminate()
    nginx.wait(10)
    server.stop()


def get(url, headers=None, data=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_page_websocket_and_api_under_a_path_prefix(proxied, driver):  # noqa: F811
    server, front = proxied
    base = f"http://{front}/charts"
    status, page = get(base + "/s/static")
    assert status == 200 and b'src="../client.js"' in page
    # Everything the page names resolves under the prefix.
    for ref in ["/client.js", "/client.css", "/font/regular.ttf", "/api/sessions"]:
        assert get(base + ref)[0] == 200, ref
    assert get(f"http://{front}/charts")[0] == 200   # redirected to /charts/, the index
    status, index = get(base + "/")
    assert status == 200 and b'href="s/static"' in index
    assert get(base + "/metrics")[0] == 404          # kept inside

    # A viewer through the proxy gets frames.
    ws = websocket.create_connection(f"ws://{front}/charts/ws/static", subprotocols=["chartwire.v1"], timeout=5)
    hello(ws)
    first, _ = next_frame(ws)
    # An append through the proxy reaches the viewer.
    status, body = get(base + "/api/sessions/static/series/line/append",
                       {"Content-Type": "application/json"}, json.dumps({"x": [1100], "y": [50]}).encode())
    assert status == 200 and json.loads(body) == {"accepted": 1}
    next_frame(ws)
    ws.close()

    # The real page, loaded under the prefix, connects its WebSocket there by itself.
    driver.get(base + "/s/static")
    wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="a frame through nginx")
    assert driver.execute_script("return window.chartwire.errors") == []
    fonts = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)"
                                  ".filter(n => n.includes('/font'))")
    assert fonts and all(f.startswith(base + "/font") for f in fonts), fonts


def test_forwarded_for_is_believed_only_from_trusted_proxies(proxied):
    server, front = proxied
    line = json.dumps({"x": [2000], "y": [1]}).encode()
    # Through nginx (trusted): nginx appends the address it saw, 127.0.0.1, which here is
    # the trusted proxy's own address too and so is passed over; the entry before it
    # is the client.
    assert get(f"http://{front}/charts/api/sessions/static/series/line/append", {"X-Forwarded-For": "203.0.113.7"},
               line)[0] == 200
    # Straight to the server, from an untrusted peer... 127.0.0.1 is the trusted proxy
    # here, so a second server without --trusted-proxy plays the untrusted case.
    plain = Server("--config", str(FIXTURES / "static.json"))
    plain.args.remove("--quiet")
    plain.start()
    try:
        assert get(f"{plain.http}/api/sessions/static/series/line/append", {"X-Forwarded-For": "198.51.100.9"},
                   line)[0] == 200
    finally:
        plain.stop()
    server.stop()
    trusted_log, plain_log = server.proc.stderr.read(), plain.proc.stderr.read()
    assert "client=203.0.113.7" in trusted_log, trusted_log
    assert "client=127.0.0.1" in plain_log and "198.51.100.9" not in plain_log, plain_log


def telegraf_request(host, path, body):
    """The bytes Telegraf's `[[outputs.influxdb_v2]]` writes (plugins/outputs/influxdb_v2/
    http.go, with Go's net/http): its body is an io.NopCloser over the gzip payload, of no
    length Go knows, so Go sends it chunked; headers in Go's order (Host, User-Agent,
    Transfer-Encoding, the request's own sorted, then the transport's Accept-Encoding)."""
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: Telegraf/1.36.1 Go/1.24.6\r\n"
            "Transfer-Encoding: chunked\r\nAuthorization: Token telegraf-token\r\nContent-Encoding: gzip\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nAccept-Encoding: gzip\r\n\r\n")
    return head.encode() + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


def send_raw(host, request):
    addr, port = host.split(":")
    with socket.create_connection((addr, int(port)), timeout=10) as c:
        c.sendall(request)
        answer = b""

        def whole(a):
            # The head, then as many body bytes as its Content-Length says (the head and
            # the body may arrive in separate reads).
            if b"\r\n\r\n" not in a:
                return False
            head, body = a.split(b"\r\n\r\n", 1)
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    return len(body) >= int(value.strip())
            return True

        while not whole(answer):
            chunk = c.recv(65536)
            if not chunk:
                break
            answer += chunk
        return int(answer.split(b" ", 2)[1]), answer


def test_telegraf_v2_output_through_nginx(proxied):
    """Telegraf's InfluxDB v2 output sends chunked bodies, which the server refuses
    (docs/security.md: lws 4.1 does not decode them); nginx in front (the shipped site)
    reads the body whole and passes it on with a Content-Length, so Telegraf feeds
    ChartWire through it."""
    import gzip
    server, front = proxied
    spec = {"chart": {"xAxes": [{"id": "t", "type": "time"}], "series": [{"id": "user"}]},
            "lineProtocol": {"series": [{"measurement": "cpu", "tags": {"cpu": "cpu0"}, "field": "usage_user",
                                         "series": "user"}], "unknown": "ignore"}}
    req = urllib.request.Request(f"{server.http}/api/sessions/tg", data=json.dumps(spec).encode(), method="PUT",
                                 headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(req, timeout=10).status in (200, 201)
    lines = (b"cpu,cpu=cpu0,host=web01 usage_idle=97.5,usage_system=0.5,usage_user=2 1700000000000000000\n"
             b"mem,host=web01 available=6012345344i,used_percent=21.75 1700000000000000000\n"
             b"cpu,cpu=cpu0,host=web01 usage_idle=96.5,usage_system=0.75,usage_user=2.75 1700000010000000000\n")
    body = gzip.compress(lines)
    path = "/api/v2/write?bucket=tg&org=chartwire"
    # Straight to the server: refused, with the reason.
    status, answer = send_raw(f"127.0.0.1:{server.port}", telegraf_request(f"127.0.0.1:{server.port}", path, body))
    assert status == 411 and b"chunked" in answer, answer
    # Through nginx: stored.
    status, answer = send_raw(front, telegraf_request(front, "/charts" + path, body))
    assert status == 204, answer
    with urllib.request.urlopen(f"{server.http}/api/sessions/tg/spec?data=1", timeout=10) as r:
        data = json.loads(r.read())["chart"]["series"][0]["data"]
    assert data["x"] == [1_700_000_000, 1_700_000_010] and data["y"] == [2, 2.75]


def test_a_streamed_data_export_through_nginx(proxied):
    """A data export larger than one write goes out in HTTP/1.1 chunks (docs/export.md):
    through the shipped site it arrives whole, the same bytes as from the server."""
    server, front = proxied
    n = 200_000
    body = json.dumps({"x": list(range(100, 100 + n)), "y": [i * 0.5 for i in range(n)]}).encode()
    req = urllib.request.Request(f"{server.http}/api/sessions/static/series/{first_series(server)}/replace", data=body,
                                 method="POST", headers={"content-type": "application/json"})
    assert urllib.request.urlopen(req, timeout=30).status == 200
    direct = urllib.request.urlopen(f"{server.http}/api/sessions/static/data.csv?from=0&to=1e9", timeout=30).read()
    assert len(direct) > 1 << 20 and direct.count(b"\r\n") == n + 1
    status, through = get(f"http://{front}/charts/api/sessions/static/data.csv?from=0&to=1e9")
    assert status == 200 and through == direct


def first_series(server):
    sessions = json.loads(urllib.request.urlopen(f"{server.http}/api/sessions").read())["sessions"]
    return next(s for s in sessions if s["id"] == "static")["series"][0]["id"]

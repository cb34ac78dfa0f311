"""Clean restarts: SIGTERM and SIGINT drain the server (viewers and publishers get a
WebSocket close 1001 "going away", requests in flight are finished, the process exits
0 within the drain limit), and /healthz and /readyz report it (docs/deploy.md)."""
import http.client
import json
import signal
import socket
import struct
import time

import pytest
import websocket

from conftest import FIXTURES, Server, free_port
from test_browser import driver, wait_for  # noqa: F401 (the fixture)
from test_websocket import connect, hello

DRAIN_LIMIT = 5.0


def close_code(ws, timeout=5):
    """Reads until the server's close frame; its status code."""
    ws.settimeout(timeout)
    deadline = time.time() + timeout
    while time.time() < deadline:
        opcode, frame = ws.recv_data_frame(True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return struct.unpack("!H", frame.data[:2])[0] if len(frame.data) >= 2 else None
    raise AssertionError("no close frame")


def read_response(sock):
    """One HTTP/1.1 response with a Content-Length, read whole from a raw socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(next(l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")))
    while len(body) < length:
        chunk = sock.recv(4096)
        assert chunk, data
        body += chunk
    return (head + b"\r\n\r\n" + body).decode()


def get(conn, path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    return r.status, json.loads(body) if r.getheader("Content-Type") == "application/json" else body


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_drains_viewers_publishers_and_requests_in_flight(sig):
    s = Server("--config", str(FIXTURES / "static.json")).start()
    try:
        keep = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
        assert get(keep, "/healthz") == (200, b"ok")
        assert get(keep, "/readyz") == (200, {"status": "ready", "sessions": 1})
        viewer = connect(s, "static")
        hello(viewer)
        publisher = websocket.create_connection(f"{s.ws}/publish/static/line", subprotocols=["chartwire.publish.v1"],
                                                timeout=5)
        # An append whose body is still arriving when the signal comes.
        body = json.dumps({"x": [1001, 1002], "y": [5, 6]}).encode()
        slow = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        slow.sendall(b"POST /api/sessions/static/series/line/append HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body[:10])
        time.sleep(0.2)

        started = time.time()
        s.proc.send_signal(sig)
        assert close_code(viewer) == 1001
        assert close_code(publisher) == 1001
        # No new connections; the ones made are still served, and say the server is going.
        time.sleep(0.2)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", s.port), timeout=2)
        assert get(keep, "/readyz") == (503, {"status": "draining", "sessions": 1})
        # The write in flight is finished and answered.
        slow.sendall(body[10:])
        answer = read_response(slow)
        assert answer.startswith("HTTP/1.1 200") and '{"accepted":2}' in answer, answer
        slow.close(); keep.close()
        assert s.proc.wait(DRAIN_LIMIT + 2) == 0
        assert time.time() - started < DRAIN_LIMIT + 1
    finally:
        s.stop()


def test_an_idle_server_exits_at_once():
    s = Server("--config", str(FIXTURES / "static.json")).start()
    viewer = connect(s, "static")
    hello(viewer)
    started = time.time()
    s.proc.terminate()
    assert close_code(viewer) == 1001
    assert s.proc.wait(DRAIN_LIMIT) == 0
    assert time.time() - started < 1.5


def test_a_stuck_request_does_not_hold_the_exit_past_the_limit():
    s = Server("--config", str(FIXTURES / "static.json")).start()
    stuck = socket.create_connection(("127.0.0.1", s.port), timeout=5)
    stuck.sendall(b"POST /api/sessions/static/series/line/append HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
    time.sleep(0.2)
    started = time.time()
    s.proc.terminate()
    assert s.proc.wait(DRAIN_LIMIT + 3) == 0
    assert DRAIN_LIMIT - 0.5 < time.time() - started < DRAIN_LIMIT + 2
    stuck.close()


def test_a_page_connected_during_sigterm_reconnects_to_the_restarted_server(driver):  # noqa: F811
    port = free_port()
    server = Server("--config", str(FIXTURES / "static.json"), port=port).start()
    try:
        driver.get(f"{server.http}/s/static")
        wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        server.proc.terminate()
        assert server.proc.wait(DRAIN_LIMIT) == 0
        wait_for(driver, "return window.chartwire.connected === false", message="the page to see the drop")
        # The page was told why: going away, not a dropped network.
        assert driver.execute_script("return window.chartwire.lastClose") == 1001
        frames = driver.execute_script("return window.chartwire.frames")
        server = Server("--config", str(FIXTURES / "static.json"), port=port).start()
        wait_for(driver, f"return window.chartwire.connected && window.chartwire.frames > {frames}", timeout=20,
                 message="frames after the restart")
        assert driver.execute_script("return window.chartwire.reconnects") >= 1
    finally:
        server.stop()

"""Line protocol writes and the publisher WebSocket against the real server (docs/feeding.md),
and the publisher's waiting against a fake server that never answers."""
from __future__ import annotations

import base64
import hashlib
import math
import socket
import threading
from typing import Any, Dict, Iterator, List

import numpy as np
import pytest

from chartwire import ChartWireError, Client, PublishTimeout

LINE_RULES = {"series": [
    {"measurement": "cpu", "tags": {"cpu": "cpu0"}, "field": "usage_user", "series": "user"},
    {"measurement": "quote", "series": "ticks"}], "unknown": "error"}


def data(client: Client, session: str, series: str) -> Dict[str, Any]:
    spec = client.spec(session, data=True)
    return next(s for s in spec["chart"]["series"] if s["id"] == series)["data"]


@pytest.fixture
def feed(client: Client, sid: str) -> str:
    client.create_session({"id": sid, "lineProtocol": LINE_RULES, "chart": {
        "xAxes": [{"id": "t", "type": "time"}],
        "series": [{"id": "user"}, {"id": "ticks", "type": "candlestick"}, {"id": "a"}]}})
    return sid


# MARK: Line protocol

def test_write_lines_takes_text_bytes_and_iterables(client, feed):
    lines = ["cpu,cpu=cpu0,host=web\\ 01 usage_user=1.5 1700000000000000000",
             "quote,symbol=ACME open=10,high=12,low=9.5,close=11 1700000000000000000"]
    assert client.write_lines(feed, lines) == 2
    assert client.write_lines(feed, "cpu,cpu=cpu0 usage_user=2.5 1700000010000000000\n") == 1
    assert client.write_lines(feed, b"cpu,cpu=cpu0 usage_user=3.5 1700000020000000000") == 1
    assert client.write_lines(feed, (f"cpu,cpu=cpu0 usage_user={v} {1700000030 + v}000000000" for v in (4, 5))) == 2
    assert data(client, feed, "user") == {"x": [1700000000, 1700000010, 1700000020, 1700000034, 1700000035],
                                          "y": [1.5, 2.5, 3.5, 4, 5]}
    assert data(client, feed, "ticks") == {"x": [1700000000], "open": [10], "high": [12], "low": [9.5], "close": [11]}


def test_write_lines_sends_the_precision(client, feed):
    assert client.write_lines(feed, "cpu,cpu=cpu0 usage_user=1 1700000100", precision="s") == 1
    assert client.write_lines(feed, "cpu,cpu=cpu0 usage_user=2 1700000200000", precision="ms") == 1
    assert client.write_lines(feed, "cpu,cpu=cpu0 usage_user=3 1700000300000000", precision="us") == 1
    assert data(client, feed, "user")["x"] == [1700000100, 1700000200, 1700000300]
    with pytest.raises(ValueError, match="precision"):
        client.write_lines(feed, "cpu,cpu=cpu0 usage_user=1", precision="minutes")


def test_a_malformed_write_names_line_and_column(client, feed):
    with pytest.raises(ChartWireError) as e:
        client.write_lines(feed, ["cpu,cpu=cpu0 usage_user=1 1700000000000000000", "cpu,cpu=cpu0 usage_user=12x"])
    assert e.value.status == 400 and e.value.message.startswith("line 2, column ")
    # Atomic: the good first line was not stored either.
    assert data(client, feed, "user").get("x", []) == []
    with pytest.raises(ChartWireError) as e:  # a value no rule takes, under "unknown": "error"
        client.write_lines(feed, "mem used=5")
    assert e.value.status == 400
    with pytest.raises(ChartWireError) as e:
        client.write_lines("no-such-session", "cpu,cpu=cpu0 usage_user=1")
    assert e.value.status == 404


# MARK: Publisher

def test_publisher_streams_batches_and_flushes(client, feed):
    x = np.arange(5, dtype=np.float64)
    y = np.array([1.0, np.nan, 3.0, 4.0, 5.0])
    with client.publisher(feed, "a") as pub:
        assert pub.send(x, y) == 1
        assert pub.send([5, 6], [6, None]) == 2
        assert pub.flush() == 7
        assert pub.send(np.array([7.0]), np.array([8.0])) == 3
    assert pub.accepted == 8 and pub.sent == 3
    assert data(client, feed, "a") == {"x": [0, 1, 2, 3, 4, 5, 6, 7], "y": [1, None, 3, 4, 5, 6, None, 8]}

    # Candles go as JSON text batches.
    with client.publisher(feed, "ticks") as pub:
        pub.send([1, 2], open=[1, None], high=[3, None], low=[0.5, None], close=[2, None])
    assert pub.accepted == 2
    assert data(client, feed, "ticks") == {"x": [1, 2], "open": [1, None], "high": [3, None],
                                           "low": [0.5, None], "close": [2, None]}


def test_publisher_reports_refused_batches_and_goes_on(client, feed):
    with client.publisher(feed, "a") as pub:
        pub.send([0], [1])
        pub.send([1, 2], [1, math.inf])      # refused by the server: an infinite y
        pub.send([3], [3])
        with pytest.raises(ChartWireError) as e:
            pub.flush()
        assert e.value.batch == 2 and e.value.code and "infinite" in e.value.message
        assert pub.accepted == 2
        # The refusal was reported once; the connection stays usable.
        pub.send([4], [4])
        assert pub.flush() == 3
    assert data(client, feed, "a") == {"x": [0, 3, 4], "y": [1, 3, 4]}

    # A candlestick series takes no binary batch.
    with pytest.raises(ChartWireError) as e:
        with client.publisher(feed, "ticks") as pub:
            pub.send([1], [1])
    assert e.value.batch == 1 and "candlestick" in e.value.message


def test_publisher_splits_batches_past_the_point_limit(client, feed):
    n = 1_200_000
    with client.publisher(feed, "a") as pub:
        assert pub.send(np.arange(n, dtype=np.float64), np.ones(n)) == 2
        assert pub.flush() == n
    s = next(s for s in client.sessions() if s["id"] == feed)
    assert {x["id"]: x["points"] for x in s["series"]}["a"] == n


def test_publisher_upgrade_refusals_are_chartwire_errors(client, server, sid):
    with pytest.raises(ChartWireError) as e:
        client.publisher("no-such-session", "a")
    assert e.value.status == 404 and e.value.message and "<" not in e.value.message
    client.create_session({"id": sid, "access": {"controllerTokens": ["publish-token-1"], "anonymous": "viewer"},
                           "chart": {"series": [{"id": "a"}]}})
    with pytest.raises(ChartWireError) as e:
        client.publisher(sid, "nope")
    assert e.value.status in (401, 404)
    with pytest.raises(ChartWireError) as e:
        client.publisher(sid, "a")
    assert e.value.status == 401 and "Authorization: Bearer" in e.value.message and "{" not in e.value.message
    with pytest.raises(ChartWireError) as e:
        Client(server.url, token="wrong-token-1").publisher(sid, "a")
    assert e.value.status == 403
    with Client(server.url, token="publish-token-1").publisher(sid, "a") as pub:
        pub.send([1], [2])
    assert pub.accepted == 1


def test_a_removed_session_ends_its_publisher(client, feed):
    pub = client.publisher(feed, "a")
    try:
        pub.send([0], [0])
        assert pub.flush() == 1
        client.delete_session(feed)
        # The server tells the publisher (session_removed) and closes; the next send or
        # flush after that raises. (A batch sent right after the DELETE may still be
        # acknowledged before the server's message: hence the loop.)
        with pytest.raises(ChartWireError) as e:
            for _ in range(100):
                pub.send([1], [1])
                pub.flush()
        assert e.value.status is None
        assert "session_removed" in e.value.message or "closed" in e.value.message
    finally:
        pub.close()


# MARK: A server that never answers

class SilentServer:
    """Accepts one WebSocket upgrade, records its request, and never answers a batch."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.request = b""
        self.conns: List[socket.socket] = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.sock.accept()
        self.conns.append(conn)
        while b"\r\n\r\n" not in self.request:
            self.request += conn.recv(4096)
        key = next(line.split(b":", 1)[1].strip() for line in self.request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\nSec-WebSocket-Protocol: chartwire.publish.v1\r\n\r\n")
        while conn.recv(65536):
            pass

    def close(self) -> None:
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    s = SilentServer()
    yield s
    s.close()


def test_flush_gives_up_after_its_timeout(silent):
    pub = Client(f"http://127.0.0.1:{silent.port}", token="secret-token-1").publisher("s", "a")
    try:
        head = silent.request.split(b"\r\n")
        assert head[0] == b"GET /publish/s/a HTTP/1.1"
        assert b"Authorization: Bearer secret-token-1" in head
        assert any(h.lower() == b"sec-websocket-protocol: chartwire.publish.v1" for h in head)
        pub.send([1], [1])
        with pytest.raises(PublishTimeout) as e:
            pub.flush(timeout=0.2)
        assert isinstance(e.value, ChartWireError) and isinstance(e.value, TimeoutError)
        assert "batches 1 to 1" in e.value.message
    finally:
        pub.close()

"""Real feeds into the real server: the publisher WebSocket and the InfluxDB line
protocol endpoint."""
import json
import struct
import time
import urllib.error
import urllib.request

import pytest
import websocket

from conftest import Server
from test_control import call


def cwa1(xs, ys):
    return b"CWA1" + struct.pack("<I", len(xs)) + struct.pack(f"<{len(xs)}d", *xs) + struct.pack(f"<{len(ys)}d", *ys)


def publisher(server, path, token=None):
    headers = [f"Authorization: Bearer {token}"] if token else []
    return websocket.create_connection(f"{server.ws}/publish/{path}", subprotocols=["chartwire.publish.v1"],
                                       header=headers, timeout=5)


def points(server, session, series):
    _, spec = call(server, "GET", f"/api/sessions/{session}/spec?data=1")
    s = next(s for s in spec["chart"]["series"] if s["id"] == series)
    return s["data"]


@pytest.fixture
def feed_server(tmp_path):
    config = tmp_path / "feeds.json"
    config.write_text(json.dumps({"sessions": [
        {"id": "open", "chart": {"series": [{"id": "a"}, {"id": "candles", "type": "candlestick"}]}},
        {"id": "guarded", "access": {"controllerTokens": ["publish-token-1"], "anonymous": "viewer"},
         "chart": {"series": [{"id": "a"}]}},
    ]}))
    s = Server("--config", str(config)).start()
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


def test_publisher_batches_are_acknowledged_in_order(feed_server):
    p = publisher(feed_server, "open/a")
    p.send_binary(cwa1([0, 1, 2], [1, float("nan"), 3]))
    p.send(json.dumps({"x": [3, 4], "y": [4, None]}))
    p.send_binary(b"CWA1" + struct.pack("<I", 5) + b"\0" * 8)   # cut short: refused whole
    p.send_binary(cwa1([5], [float("inf")]))                     # infinite y: refused whole
    p.send_binary(b"not a batch")
    p.send(json.dumps({"x": [5], "y": [5]}))
    replies = [json.loads(p.recv()) for _ in range(6)]
    assert [r["batch"] for r in replies] == [1, 2, 3, 4, 5, 6]
    assert [r["type"] for r in replies] == ["ack", "ack", "error", "error", "error", "ack"]
    assert [r.get("accepted") for r in replies] == [3, 2, None, None, None, 1]
    assert "need 88 bytes, got 16" in replies[2]["message"] and "infinite" in replies[3]["message"]
    data = points(feed_server, "open", "a")
    assert data["x"] == [0, 1, 2, 3, 4, 5] and data["y"] == [1, None, 3, 4, None, 5]

    # A candlestick series takes JSON batches with its own fields; binary is x/y only.
    c = publisher(feed_server, "open/candles")
    c.send(json.dumps({"x": [0], "open": [1], "high": [3], "low": [0.5], "close": [2]}))
    assert json.loads(c.recv())["accepted"] == 1
    c.send_binary(cwa1([1], [1]))
    reply = json.loads(c.recv())
    assert reply["type"] == "error" and "candlestick" in reply["message"]
    p.close(); c.close()


def test_a_publisher_that_vanishes_mid_batch_stores_nothing_of_it(feed_server):
    p = publisher(feed_server, "open/a")
    p.send_binary(cwa1([0, 1], [1, 2]))
    assert json.loads(p.recv())["accepted"] == 2
    # Half of a 100,000-point batch, in a fragment that never gets its final one.
    body = cwa1(list(range(2, 100_002)), [1.0] * 100_000)
    p.send_frame(websocket.ABNF.create_frame(body[: len(body) // 2], websocket.ABNF.OPCODE_BINARY, fin=0))
    p.sock.close()
    time.sleep(0.3)
    assert points(feed_server, "open", "a")["x"] == [0, 1]
    # Everyone else is still served.
    q = publisher(feed_server, "open/a")
    q.send_binary(cwa1([2], [3]))
    assert json.loads(q.recv())["accepted"] == 1
    q.close()


def test_publishers_need_a_controller_token_where_the_session_asks_for_one(feed_server):
    for path, token, status in [("guarded/a", None, 401), ("guarded/a", "wrong-token-1", 403),
                                ("open/nope", None, 404), ("nope/a", None, 404)]:
        with pytest.raises(websocket.WebSocketBadStatusException) as e:
            publisher(feed_server, path, token)
        assert e.value.status_code == status, path
    p = publisher(feed_server, "guarded/a", "publish-token-1")
    p.send_binary(cwa1([0], [1]))
    assert json.loads(p.recv()) == {"type": "ack", "batch": 1, "accepted": 1}
    p.close()


def test_a_removed_session_closes_its_publishers(feed_server):
    p = publisher(feed_server, "open/a")
    assert call(feed_server, "DELETE", "/api/sessions/open")[0] == 200
    reply = json.loads(p.recv())
    assert reply["code"] == "session_removed"

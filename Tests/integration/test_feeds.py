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
         "chart": {"series": [{"id": "a"}]}, "lineProtocol": {"unknown": "create"}},
        {"id": "telegraf", "chart": {"xAxes": [{"id": "t", "type": "time"}],
                                     "series": [{"id": "user0"}, {"id": "system0"}, {"id": "ticks", "type": "candlestick"}]},
         "lineProtocol": {"series": [
             {"measurement": "cpu", "tags": {"cpu": "cpu0"}, "field": "usage_user", "series": "user0"},
             {"measurement": "cpu", "tags": {"cpu": "cpu0"}, "field": "usage_system", "series": "system0"},
             {"measurement": "quote", "series": "ticks"}], "unknown": "ignore"}},
        {"id": "strict", "chart": {"series": [{"id": "load"}]},
         "lineProtocol": {"series": [{"measurement": "system", "field": "load1", "series": "load"}]}},
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


def write(server, path, text, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(server.http + path, data=text.encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# As Telegraf's http output (data_format = "influx") writes it: tags sorted, several
# fields, integers with i, a string field, nanosecond timestamps, escapes.
TELEGRAF = """\
cpu,cpu=cpu0,host=web\\ 01 usage_user=1.5,usage_system=0.25,usage_idle=98i 1700000000000000000
cpu,cpu=cpu1,host=web\\ 01 usage_user=7.5,usage_system=1 1700000000000000000
cpu,cpu=cpu0,host=web\\ 01 usage_user=2.5,usage_system=0.5,usage_idle=97i 1700000010000000000
system,host=web\\ 01 uptime_format="1 day, 2:03",load1=0.5 1700000010000000000
quote,symbol=ACME open=10,high=12,low=9.5,close=11,volume=300i 1700000000000000000
"""


def test_line_protocol_as_telegraf_writes_it(feed_server):
    status, body = write(feed_server, "/api/sessions/telegraf/write", TELEGRAF)
    assert status == 200, body
    # user0 and system0 two points each, one candle; the rest (cpu1, usage_idle,
    # the system line's two fields, the quote's volume) ignored.
    assert body == {"accepted": 5, "ignored": 6, "created": []}
    user = points(feed_server, "telegraf", "user0")
    assert user == {"x": [1700000000, 1700000010], "y": [1.5, 2.5]}
    assert points(feed_server, "telegraf", "system0")["y"] == [0.25, 0.5]
    assert points(feed_server, "telegraf", "ticks") == {"x": [1700000000], "open": [10], "high": [12], "low": [9.5], "close": [11]}
    # Other precisions, and InfluxDB's own paths.
    assert write(feed_server, "/api/sessions/telegraf/write?precision=s", "cpu,cpu=cpu0 usage_user=3 1700000020")[0] == 200
    # (InfluxDB's paths answer as InfluxDB does: 204, no body; see test_influx.py.)
    for path, line in [("/write?db=telegraf&precision=ms", "cpu,cpu=cpu0 usage_user=4 1700000030000"),
                       ("/api/v2/write?bucket=telegraf&precision=us", "cpu,cpu=cpu0 usage_user=5 1700000040000000")]:
        with urllib.request.urlopen(urllib.request.Request(feed_server.http + path, data=line.encode(), method="POST")) as r:
            assert (r.status, r.read()) == (204, b"")
    assert points(feed_server, "telegraf", "user0")["x"][-3:] == [1700000020, 1700000030, 1700000040]


@pytest.mark.parametrize("text, error", [
    ("cpu,cpu=cpu0 usage_user=1 1700000000000000000\ncpu,cpu=cpu0 usage_user=12x 1", "line 2, column"),
    ("cpu,cpu=cpu0 usage_user=\"unterminated 1", "line 1, column"),
    ("cpu,cpu=cpu0 usage_user=9223372036854775808i", "line 1, column"),
    ("cpu,cpu=cpu0 usage_user=1 12ab", "line 1, column"),
    ("quote open=1,high=2,low=0.5 1", "\"close\" is missing"),
])
def test_malformed_line_protocol_stores_nothing(feed_server, text, error):
    before = points(feed_server, "telegraf", "user0")
    status, body = write(feed_server, "/api/sessions/telegraf/write", text)
    assert status == 400 and error in body["error"], body
    assert points(feed_server, "telegraf", "user0") == before


def test_unknown_measurements_are_refused_ignored_or_made_series(feed_server):
    status, body = write(feed_server, "/api/sessions/strict/write", "system load1=1 1000000000\nmem used=5 1000000000")
    assert status == 400 and 'line 2: no series takes measurement "mem", field "used"' in body["error"]
    assert points(feed_server, "strict", "load")["x"] == []
    assert write(feed_server, "/api/sessions/strict/write?precision=d", "system load1=1")[0] == 400
    assert write(feed_server, "/api/sessions/open/write", "system load1=1")[1]["error"].endswith('has no "lineProtocol" section')

    # unknown: create (this session also needs a controller token).
    assert write(feed_server, "/api/sessions/guarded/write", "mem,host=a used=5 1000000000")[0] == 401
    status, body = write(feed_server, "/api/sessions/guarded/write",
                         "mem,host=a used=5,free=3 1000000000\nmem,host=a used=6,free=2 2000000000", token="publish-token-1")
    assert status == 200 and body["accepted"] == 4 and body["created"] == ["mem-used-a", "mem-free-a"]
    _, spec = call(feed_server, "GET", "/api/sessions/guarded/spec?data=1", token="publish-token-1")
    made = {s["id"]: s for s in spec["chart"]["series"]}
    assert made["mem-used-a"]["data"] == {"x": [1, 2], "y": [5, 6]} and made["mem-used-a"]["name"] == "mem used (host=a)"
    assert {"measurement": "mem", "field": "free", "series": "mem-free-a", "tags": {"host": "a"}} in spec["lineProtocol"]["series"]
    # The next write goes to the same series.
    status, body = write(feed_server, "/api/sessions/guarded/write", "mem,host=a used=7 3000000000", token="publish-token-1")
    assert body == {"accepted": 1, "ignored": 0, "created": []}

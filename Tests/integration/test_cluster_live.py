"""What a cluster node shares outside the log (docs/cluster.md): viewers told when the
node's Redis is away and when it is back (`{"type":"status"}`, docs/protocol.md), and
presence between nodes over Redis pub/sub.

Starts its own redis-server and two nodes; skipped where redis-server is not installed."""
import json
import shutil
import socket
import time

import pytest
import websocket

from conftest import FIXTURES, Server
import cwframe
from test_cluster import Redis, append, eventually, frame, request
from test_websocket import connect, hello, layer

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")

RECONNECTING = {"type": "status", "data": "reconnecting"}
LIVE = {"type": "status", "data": "live"}


@pytest.fixture
def live_cluster():
    redis = Redis().start()
    nodes = [Server("--config", str(FIXTURES / "cluster-live.json"), "--redis", redis.url).start() for _ in range(2)]
    yield redis, nodes
    for n in nodes:
        n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


class Viewer:
    """A WebSocket viewer that applies and acknowledges its frames as the page does,
    and keeps the text messages it got after its welcome."""

    def __init__(self, node, session="static", width=640, height=400):
        self.ws = connect(node, session)
        self.welcome = hello(self.ws, width=width, height=height)
        self.texts = []
        self.background = self.modifier = None
        self.until(lambda: self.modifier is not None)

    def pump(self, timeout):
        self.ws.settimeout(timeout)
        try:
            op, data = self.ws.recv_data()
        except websocket.WebSocketTimeoutException:
            return
        if op == websocket.ABNF.OPCODE_BINARY:
            frame = self.ws.__dict__["held"].apply(cwframe.decode(data))
            self.ws.send(json.dumps({"type": "ack"}))
            self.background = layer(frame, "background") or self.background
            self.modifier = layer(frame, "modifier") or self.modifier
        elif op == websocket.ABNF.OPCODE_TEXT:
            msg = json.loads(data)
            if msg.get("type") != "heartbeat":
                self.texts.append(msg)
        elif op == websocket.ABNF.OPCODE_CLOSE:
            raise AssertionError("the server closed the connection")

    def until(self, check, timeout=6.0, what="condition"):
        deadline = time.time() + timeout
        while not check():
            if time.time() > deadline:
                raise AssertionError(f"{what} not met in {timeout} s; texts {self.texts}, labels {self.labels()}")
            self.pump(0.05)

    def settle(self, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            self.pump(0.05)

    def labels(self):
        return sorted(c["text"] for c in (self.modifier or {"commands": []})["commands"] if c["op"] == "text")

    def label(self, prefix):
        return next((c for c in self.modifier["commands"] if c["op"] == "text" and c["text"].startswith(prefix)), None)

    def plot(self):
        return cwframe.plot_rect(self.background)

    def hover(self, x, y):
        self.ws.send(json.dumps({"type": "pointer", "phase": "move", "x": x, "y": y, "button": -1, "buttons": 0,
                                 "pointerId": 1, "pointerType": "mouse"}))


def remote_labels(v):
    return [t for t in v.labels() if "\u00b7" in t]


# ---- "reconnecting to data" ----------------------------------------------------------


def test_viewers_are_told_while_redis_is_away_and_when_it_is_back(live_cluster):
    redis, (a, b) = live_cluster
    va = Viewer(a)
    # A dashboard's connection: told once per chart, each message naming its chart.
    dash = websocket.create_connection(f"{a.ws}/ws/d/both", subprotocols=["chartwire.v1"], timeout=5)
    assert json.loads(dash.recv())["type"] == "dashboard"
    for i in range(2):
        dash.send(json.dumps({"type": "hello", "chart": i, "width": 400, "height": 240, "dpr": 1}))
    assert va.texts == []                       # nothing while Redis is there

    redis.proc.kill()
    redis.proc.wait()
    va.until(lambda: RECONNECTING in va.texts, timeout=5, what="reconnecting")
    assert va.texts.count(RECONNECTING) == 1

    dash_texts = []
    deadline = time.time() + 5
    while time.time() < deadline and sum(m == {**RECONNECTING, "chart": i} for m in dash_texts for i in range(2)) < 2:
        dash.settimeout(0.1)
        try:
            op, data = dash.recv_data()
        except websocket.WebSocketTimeoutException:
            continue
        if op == websocket.ABNF.OPCODE_TEXT:
            dash_texts.append(json.loads(data))
        elif op == websocket.ABNF.OPCODE_BINARY:
            dash.send(json.dumps({"type": "ack", "chart": data[3]}))
    assert {**RECONNECTING, "chart": 0} in dash_texts and {**RECONNECTING, "chart": 1} in dash_texts, dash_texts

    # A viewer arriving at a node without Redis is told at once, after its welcome.
    deadline = time.time() + 5
    while request(b, "GET", "/readyz")[0] != 503:
        assert time.time() < deadline, "node b did not notice Redis going"
        time.sleep(0.05)
    vb = Viewer(b)
    assert vb.texts[:1] == [RECONNECTING], vb.texts
    assert append(b, [3000.0])[0] == 503        # writes are still refused

    redis.start()                               # same folder: the append-only file is replayed
    va.until(lambda: LIVE in va.texts, timeout=8, what="live again on a")
    vb.until(lambda: LIVE in vb.texts, timeout=8, what="live again on b")
    assert va.texts.index(LIVE) > va.texts.index(RECONNECTING)
    # Live means writable again.
    r = append(a, [3001.0]); assert r[0] == 200, r
    # And presence crosses nodes again (each node subscribed anew).
    x, y, w, h = va.plot()
    va.hover(x + w / 2, y + h / 2)
    vb.until(lambda: remote_labels(vb), timeout=5, what="presence across nodes after Redis came back")
    dash.close()


def test_a_gesture_while_redis_is_away_stays_on_its_node_until_redis_is_back(live_cluster):
    """A controller's zoom while Redis is away cannot be logged: it shows on its own
    node only, and when Redis is back that node reloads the session from Redis (the
    zoom is undone; its viewers reconnect) and every node shows the same again."""
    redis, (a, b) = live_cluster
    va = Viewer(a)
    held_a, held_b = frame(a), frame(b)
    assert held_a == held_b
    redis.proc.kill()
    redis.proc.wait()
    va.until(lambda: RECONNECTING in va.texts, timeout=5, what="reconnecting")
    before = cwframe.visible_x_range(va.background)
    va.ws.send(json.dumps({"type": "wheel", "x": 300, "y": 200, "deltaX": 0, "deltaY": -300}))
    va.until(lambda: cwframe.visible_x_range(va.background) != before, what="the zoom on node a")
    eventually(lambda: frame(a) != held_a)      # node a's chart moved...
    assert frame(b) == held_b                   # ...node b's did not
    redis.start()
    eventually(lambda: frame(a) == held_a, timeout=8)
    assert frame(b) == held_b


def test_no_status_message_while_redis_stays(live_cluster):
    _, (a, _) = live_cluster
    v = Viewer(a)
    v.settle(1.5)
    assert [t for t in v.texts if t.get("type") == "status"] == []


# ---- presence between nodes ------------------------------------------------------------


def test_presence_of_a_viewer_on_one_node_is_seen_on_another(live_cluster):
    _, (a, b) = live_cluster
    va, vb, va2 = Viewer(a), Viewer(b), Viewer(a)
    x, y, w, h = va.plot()
    px, py = x + w * 0.4, y + h * 0.3
    va.hover(px, py)
    vb.until(lambda: remote_labels(vb), what="A's ring on node b")
    [label] = remote_labels(vb)
    assert label.startswith(f"#{va.welcome['viewer']}\u00b7")
    # Where A points: the same data values, so at the same pixel in a viewer of the same size.
    text = vb.label(label)
    assert abs(text["x"] - 8 - px) < 1.0 and abs(text["y"] + 6 - py) < 1.0, (text, px, py)
    # A node ignores its own publications: A2, on A's node, sees A once, as a local viewer,
    # also after a keep-alive (one a second) came round.
    va2.until(lambda: va2.labels() == [f"#{va.welcome['viewer']}"], what="A's ring on node a")
    va2.settle(1.5)
    assert va2.labels() == [f"#{va.welcome['viewer']}"]
    # A's pointer leaves the plot: its ring goes on the other node too.
    va.hover(1, 1)
    vb.until(lambda: remote_labels(vb) == [], what="A's ring gone from node b")
    # And B's pointer shows on A's node.
    vb.hover(px, py)
    va.until(lambda: remote_labels(va), what="B's ring on node a")


def test_a_dead_nodes_presence_expires(live_cluster):
    _, (a, b) = live_cluster
    va, vb = Viewer(a), Viewer(b)
    x, y, w, h = va.plot()
    va.hover(x + w / 2, y + h / 2)
    vb.until(lambda: remote_labels(vb), what="A's ring on node b")
    a.proc.kill()                               # SIGKILL: node a says nothing more
    a.proc.wait()
    killed = time.time()
    vb.until(lambda: remote_labels(vb) == [], timeout=8, what="A's ring expired")
    # (Kept while the node may be alive: it is dropped after 3 s without a word from it.)
    assert time.time() - killed > 1.5


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_resp(f):
    line = f.readline()
    kind, rest = line[:1], line[1:-2]
    if kind == b"*":
        return [read_resp(f) for _ in range(int(rest))]
    if kind == b"$":
        n = int(rest)
        data = f.read(n + 2)[:-2]
        return data
    if kind == b":":
        return int(rest)
    return rest


def published_bodies(sub, f, quiet):
    """The bodies of the `message`s a SUBSCRIBEd connection reads until `quiet` seconds
    pass without one; closes it."""
    messages = []
    sub.settimeout(quiet)
    try:
        while True:
            messages.append(read_resp(f))
    except socket.timeout:
        pass
    sub.close()
    return [m[2] for m in messages if m[0] == b"message"]


def test_a_moving_pointer_is_coalesced_on_redis(live_cluster):
    redis, (a, _) = live_cluster
    va = Viewer(a)
    x, y, w, h = va.plot()
    sub = socket.create_connection(("127.0.0.1", redis.port), timeout=5)
    f = sub.makefile("rb")
    sub.sendall(resp("SUBSCRIBE", "cw:live:static"))
    assert read_resp(f)[0] == b"subscribe"
    # 100 moves in about a second, as a page sends them at 100 Hz.
    start = time.time()
    for i in range(100):
        va.hover(x + w * (0.1 + 0.008 * i), y + h / 2)
        time.sleep(0.01)
    last_px = x + w * (0.1 + 0.008 * 99)
    moving = time.time() - start
    bodies = published_bodies(sub, f, 0.6)
    # At most one publication per 50 ms (plus the first and a keep-alive), not one per move.
    assert 2 <= len(bodies) <= moving / 0.05 + 4, (len(bodies), moving)
    node, _, body = bodies[-1].partition(b"\n")
    assert node                                 # the publishing node's name, then the body
    [[viewer, vx, vy]] = json.loads(body)["spots"]
    assert viewer == va.welcome["viewer"]
    # The newest spot is the one published last: the fixture's x axis is 0 to 2000.
    assert abs(vx - (last_px - x) / w * 2000) < 5, (vx, last_px)
    assert abs(vy - 50) < 1

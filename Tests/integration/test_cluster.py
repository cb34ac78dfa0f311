"""ChartWire as a cluster on Redis (docs/cluster.md): nodes share one Redis, every node
applies each session's inputs in the stream's order and so holds the same chart.

The test starts its own redis-server (appendonly, appendfsync always) on a free port in
a temporary folder, and its own nodes; it is skipped only where redis-server is not
installed (scripts/setup installs it)."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import FIXTURES, Server, free_port
import cwframe
from test_websocket import connect, hello, layer, next_frame

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")


class Redis:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cw-redis-")
        self.port = free_port()
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            if subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                              text=True).stdout.strip() == "PONG":
                return self
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"


def request(server, method, path, body=None, timeout=5):
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(server.http + path, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def frame(server, session="static"):
    """The display list for 640x400, without the layers' version numbers: those count
    a node's own rebuilds of a layer (a viewer's patches refer to them), so a node that
    animated a zoom through six steps numbers its layer 6 where another that took the
    end state at once numbers it 1. Every command must be the same."""
    status, body = request(server, "GET", f"/api/sessions/{session}/frame.json?width=640&height=400")
    assert status == 200, body
    return re.sub(rb'"version":[0-9]+,', b"", body)


def points(server, session="static", series="line"):
    status, body = request(server, "GET", f"/api/sessions/{session}")
    assert status == 200, body
    spec = json.loads(body)
    return next(s for s in spec["series"] if s["id"] == series)["points"] if "series" in spec else None


def series_points(server, session="static"):
    status, body = request(server, "GET", "/api/sessions")
    assert status == 200
    listing = json.loads(body)["sessions"]
    s = next((s for s in listing if s["id"] == session), None)
    return None if s is None else {x["id"]: x["points"] for x in s["series"]}


def eventually(check, timeout=5.0):
    deadline = time.time() + timeout
    while True:
        try:
            value = check()
            if value:
                return value
        except AssertionError:
            if time.time() > deadline:
                raise
        if time.time() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


@pytest.fixture
def cluster(request):
    """Three nodes on one Redis; a test parametrized indirectly gives them more flags."""
    redis = Redis().start()
    flags = getattr(request, "param", [])
    nodes = [Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start() for _ in range(3)]
    yield redis, nodes
    for n in nodes:
        n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


def append(node, xs, session="static", series="line"):
    return request(node, "POST", f"/api/sessions/{session}/series/{series}/append",
                   {"x": xs, "y": [x % 97 for x in xs]})


def test_feeds_through_different_nodes_give_the_same_display_list(cluster):
    _, nodes = cluster
    x = 1000
    for i in range(30):
        status, body = append(nodes[i % 3], [float(x + k) for k in range(5)])
        assert status == 200, body
        x += 5
    want = 11 + 30 * 5
    for n in nodes:
        eventually(lambda: series_points(n)["line"] == want)
    same_frames(nodes)


def same_frames(nodes, timeout=3.0, session="static"):
    """(The fixture's axes have fixed ranges: an axis following its data's extents
    animates toward them, and a frame taken during that glide depends on the clock on a
    single node too.)"""
    frames = []
    def same():
        frames[:] = [frame(n, session) for n in nodes]
        return all(f == frames[0] for f in frames)
    try:
        eventually(same, timeout=timeout)
    except AssertionError:
        k = next(i for i in range(len(frames[0])) if any(i >= len(f) or f[i] != frames[0][i] for f in frames))
        raise AssertionError("frames differ: " + " | ".join(f[max(0, k - 120):k + 40].decode() for f in frames))


def test_an_append_acknowledged_on_a_is_visible_on_b_at_once(cluster):
    _, (a, b, _) = cluster
    status, _ = append(a, [5000.0])
    assert status == 200
    # Redis took it before A answered: B applies it from the stream within a round trip.
    eventually(lambda: series_points(b)["line"] == 12, timeout=1.0)


def test_concurrent_feeds_on_every_node_converge(cluster):
    import threading
    _, nodes = cluster
    acked = [[] for _ in nodes]

    def feed(k):
        for i in range(40):
            xs = [float(10_000 * (k + 1) + i)]
            if append(nodes[k], xs)[0] == 200:
                acked[k].append(xs[0])

    threads = [threading.Thread(target=feed, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    want = 11 + sum(len(a) for a in acked)
    # (A change may be refused with 503 when other nodes kept winning the race for the
    # same session's next entry; most are taken.)
    assert want >= 11 + 100
    for n in nodes:
        eventually(lambda: series_points(n)["line"] == want)
    same_frames(nodes)


def test_a_pan_on_node_a_shows_on_node_b(cluster):
    """A controller's wheel zoom on node A reaches a viewer connected to node B as a
    frame with A's range, and both nodes then draw the same display list."""
    _, (a, b, _) = cluster
    watcher = connect(b)
    hello(watcher)
    f, _ = next_frame(watcher)
    before = cwframe.visible_x_range(layer(f, "background"))
    ws = connect(a)
    hello(ws)
    next_frame(ws)
    ws.send(json.dumps({"type": "wheel", "x": 300, "y": 200, "deltaX": 0, "deltaY": -300}))
    mine, _ = next_frame(ws)
    deadline = time.time() + 3
    seen = before
    while time.time() < deadline and abs((seen[1] - seen[0]) - (before[1] - before[0])) < 1e-6:
        f, _ = next_frame(watcher, timeout=3)
        seen = cwframe.visible_x_range(layer(f, "background"))
    assert (seen[1] - seen[0]) < (before[1] - before[0]) * 0.9, (before, seen)
    ws.close()
    watcher.close()
    same_frames([a, b])


def test_sessions_made_and_deleted_on_one_node_appear_on_the_others(cluster):
    _, (a, b, c) = cluster
    spec = {"id": "made", "title": "Made", "chart": {"series": [{"id": "s"}]}}
    status, body = request(a, "POST", "/api/sessions", spec)
    assert status in (200, 201), body
    eventually(lambda: series_points(b, "made") is not None)
    status, body = append(b, [1.0, 2.0], session="made", series="s")
    assert status == 200, body
    eventually(lambda: (series_points(c, "made") or {}).get("s") == 2)
    assert request(c, "DELETE", "/api/sessions/made")[0] == 200
    eventually(lambda: series_points(a, "made") is None)
    eventually(lambda: series_points(b, "made") is None)


# (Also with a snapshot every 40 inputs: A is killed among its snapshots and trims.)
@pytest.mark.parametrize("cluster", [[], ["--redis-snapshot", "40", "--redis-tail", "15"]], indirect=True,
                         ids=["log-only", "snapshots"])
def test_kill_9_of_a_node_loses_no_acknowledged_change(cluster):
    """Feeders on node A at full speed, A killed at a random moment: every batch A
    acknowledged is on B (and on a node started afterwards), the one in flight whole or
    not at all."""
    import random
    import threading
    redis, (a, b, c) = cluster
    size = 7
    acked, inflight = [0, 0, 0], [0, 0, 0]

    def feed(k):
        for i in range(10_000):
            inflight[k] = 1
            try:
                status, _ = append(a, [float(100_000 * (k + 1) + i * size + j) for j in range(size)])
            except Exception:
                return
            inflight[k] = 0
            if status == 200:
                acked[k] += 1

    threads = [threading.Thread(target=feed, args=(k,), daemon=True) for k in range(3)]
    for t in threads:
        t.start()
    time.sleep(random.uniform(0.5, 1.5))
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait()
    for t in threads:
        t.join(10)
    assert sum(acked) > 0
    low, high = 11 + sum(acked) * size, 11 + (sum(acked) + sum(inflight)) * size

    def settled(n):
        p = series_points(n)["line"]
        assert low <= p <= high and (p - 11) % size == 0, (p, low, high)
        return p
    # A node started now loads what Redis holds (nothing writes any more); B and C
    # come to the same (a count in range may still lack the last entry: wait for it).
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start()
    try:
        got = settled(d)
        eventually(lambda: settled(b) == got)
        eventually(lambda: settled(c) == got)
        same_frames([b, c, d])
    finally:
        d.stop()


def test_redis_down_refuses_writes_and_serves_charts_then_resumes(cluster):
    redis, (a, b, _) = cluster
    assert append(a, [7000.0])[0] == 200
    eventually(lambda: series_points(b)["line"] == 12)
    held = frame(b)
    redis.proc.kill()
    redis.proc.wait()
    def refused():
        status, body = append(a, [7001.0])
        return status == 503 and b"redis" in body.lower() and json.loads(body)["error"]
    eventually(refused, timeout=3.0)
    status, body = append(b, [7002.0])
    assert status == 503, body
    assert frame(b) == held                     # the chart is still served
    assert series_points(a)["line"] == 12       # nothing refused was kept
    redis.start()                               # same folder: the append-only file is replayed
    eventually(lambda: append(b, [7003.0])[0] == 200, timeout=5.0)
    eventually(lambda: series_points(a)["line"] == 13)
    eventually(lambda: frame(a) == frame(b))


def test_redis_down_at_start_is_one_line_and_exit_code_2():
    port = free_port()
    s = Server("--redis", f"redis://127.0.0.1:{port}")
    proc = subprocess.run(s.args, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "redis" in lines[0].lower(), proc.stderr


def test_readyz_says_when_redis_is_unreachable(cluster):
    """/readyz is 'serving: sessions loaded, storage reachable' (docs/deploy.md): a node
    whose Redis is away answers 503 (a balancer sends new viewers elsewhere), and 200
    again once Redis is back; /healthz stays 200 throughout."""
    redis, (a, _, _) = cluster
    status, body = request(a, "GET", "/readyz")
    assert status == 200 and json.loads(body)["status"] == "ready", body
    redis.proc.kill()
    redis.proc.wait()
    def not_ready():
        status, body = request(a, "GET", "/readyz")
        return status == 503 and json.loads(body)["status"] == "unavailable" and "redis" in json.loads(body)["reason"].lower()
    eventually(not_ready, timeout=5.0)
    assert request(a, "GET", "/healthz")[0] == 200
    redis.start()
    eventually(lambda: request(a, "GET", "/readyz")[0] == 200, timeout=10.0)


def test_redis_from_the_config_file(tmp_path):
    """`"server": {"redis": ...}` in the --config file makes the process a node as --redis
    does: with nothing listening there, the one line names that Redis (exit code 2); a
    malformed address is refused with its JSON path."""
    port = free_port()
    spec = {"server": {"redis": f"redis://127.0.0.1:{port}"},
            "sessions": [{"id": "a", "chart": {"series": [{"id": "s"}]}}]}
    (tmp_path / "node.json").write_text(json.dumps(spec))
    proc = subprocess.run(Server("--config", str(tmp_path / "node.json")).args, capture_output=True, text=True, timeout=20)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "redis" in lines[0].lower() and str(port) in lines[0], proc.stderr

    spec["server"]["redis"] = "http://127.0.0.1:6379"
    (tmp_path / "bad.json").write_text(json.dumps(spec))
    proc = subprocess.run(Server("--config", str(tmp_path / "bad.json")).args, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2 and "$.server.redis" in proc.stderr and "redis://HOST:PORT" in proc.stderr, proc.stderr

    # Bad counts are refused with their path before Redis is asked.
    for key, value, why in [("redisSnapshot", 0, "must be at least 1"), ("redisTail", "5", "expected a number")]:
        spec["server"] = {"redis": f"redis://127.0.0.1:{port}", key: value}
        (tmp_path / "bad.json").write_text(json.dumps(spec))
        proc = subprocess.run(Server("--config", str(tmp_path / "bad.json")).args, capture_output=True, text=True, timeout=20)
        assert proc.returncode == 2 and f"$.server.{key}: {why}" in proc.stderr, proc.stderr


def test_snapshot_and_tail_from_the_config_file_and_the_command_line_wins(tmp_path):
    """`server.redisSnapshot` and `server.redisTail` set the snapshot interval and the
    stream tail as the flags do; a --redis-tail given beside them wins."""
    redis = Redis().start()
    spec = json.loads((FIXTURES / "cluster.json").read_text())
    spec["server"] = {"redis": redis.url, "redisSnapshot": 10, "redisTail": 3}
    (tmp_path / "node.json").write_text(json.dumps(spec))
    try:
        a = Server("--config", str(tmp_path / "node.json")).start()
        try:
            feed(a, 25, 1000)
        finally:
            a.stop()
        # Snapshots every 10 inputs (not the default 20000), 3 entries kept before it.
        assert_trimmed(redis, last=25, every=10, tail=3)

        b = Server("--config", str(tmp_path / "node.json"), "--redis-tail", "6").start()
        try:
            feed(b, 25, 2000)
        finally:
            b.stop()
        assert_trimmed(redis, last=50, every=10, tail=6)
    finally:
        redis.stop()
        shutil.rmtree(redis.dir, ignore_errors=True)


def assert_trimmed(redis, last, every, tail):
    """The stream ends at `last`, its newest snapshot is less than two intervals of
    `every` inputs behind that (one may have been due while the one before was still
    being written), and exactly `tail` entries are kept before the snapshot."""
    _, first, newest, inc = stream(redis)
    snap_seq = int(redis_cli(redis, "HGET", f"cw:snap:{inc}", "seq"))
    assert newest == last and snap_seq > last - 2 * every and first == snap_seq - tail + 1, (first, snap_seq, newest)


def redis_cli(redis, *args):
    out = subprocess.run(["redis-cli", "-p", str(redis.port), *args], capture_output=True, timeout=10)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode(errors="replace").strip()


def stream(redis, session="static"):
    """The session's stream: its length, first and last sequence numbers (ids are 0-N)."""
    inc = redis_cli(redis, "HGET", "cw:sessions", session)
    key = f"cw:log:{inc}"
    length = int(redis_cli(redis, "XLEN", key))
    first = redis_cli(redis, "XRANGE", key, "-", "+", "COUNT", "1").splitlines()
    last = redis_cli(redis, "XREVRANGE", key, "+", "-", "COUNT", "1").splitlines()
    seq = lambda lines: int(lines[0].split("-")[1]) if lines else None
    return length, seq(first), seq(last), inc


SNAPSHOT_EVERY, TAIL = 40, 15


@pytest.fixture
def trimming_cluster():
    """Three nodes that snapshot a session every 40 inputs and keep 15 stream entries
    before the snapshot."""
    redis = Redis().start()
    flags = ["--redis-snapshot", str(SNAPSHOT_EVERY), "--redis-tail", str(TAIL)]
    nodes = [Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start() for _ in range(3)]
    yield redis, nodes, flags
    for n in nodes:
        n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


def feed(node, count, start):
    for i in range(count):
        x = start + i * 0.5
        status, body = append(node, [x, x + 0.25])
        assert status == 200, body


def test_the_stream_stays_bounded_and_a_node_started_after_a_trim_serves_the_same_chart(trimming_cluster):
    redis, (a, b, c), flags = trimming_cluster
    longest = 0
    for round in range(6):
        feed(a if round % 2 == 0 else b, 50, 1000 + round * 25)
        length, first, last, _ = stream(redis)
        longest = max(longest, length)
    # 300 inputs logged; the stream holds the tail and what came since the last snapshot
    # written. Snapshots are written off the event loop, one at a time, so appends go on
    # while one is written: allow three snapshots' worth (untrimmed, it would be 300).
    assert last == 300
    assert first > 1 and longest <= 3 * SNAPSHOT_EVERY + TAIL + 1, (first, longest)

    def trimmed_at_the_snapshot():
        # (Read until no snapshot is switched between reading the stream and its seq.)
        _, first, last, inc = stream(redis)
        snap_seq = int(redis_cli(redis, "HGET", f"cw:snap:{inc}", "seq"))
        assert first == snap_seq - TAIL + 1 and snap_seq <= last, (first, snap_seq, last)
        return inc
    inc = eventually(trimmed_at_the_snapshot)
    assert int(redis_cli(redis, "HLEN", f"cw:chunks:{inc}")) >= 1
    want = 11 + 300 * 2
    for n in (a, b, c):
        eventually(lambda: series_points(n)["line"] == want)
    # A node started now loads the snapshot and the tail after it.
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start()
    try:
        assert series_points(d)["line"] == want
        same_frames([a, b, c, d])
        # and goes on with the others
        feed(d, 30, 2000)
        for n in (a, b, c, d):
            eventually(lambda: series_points(n)["line"] == want + 60)
        same_frames([a, b, c, d])
    finally:
        d.stop()


def series_data(node, session="static", series="line"):
    status, body = request(node, "GET", f"/api/sessions/{session}/spec?data=1")
    assert status == 200, body
    found = [s for s in json.loads(body)["chart"]["series"] if s["id"] == series]
    return found[0]["data"]


def test_a_bulk_append_reaches_every_node_and_the_snapshot_bit_for_bit(trimming_cluster):
    """A batch large enough that its stream entry and its snapshot chunk are sent to
    Redis straight from the node's arrays, with x near a line (kept as a ramp with
    offsets in the entry): every node, and a node started from the snapshot after it,
    holds exactly the points sent."""
    redis, (a, b, c), flags = trimming_cluster
    xs = [1000.0 + k * 0.05 for k in range(20000)]
    ys = [((k * 7919) % 1000) / 9.7 - 3.0 for k in range(20000)]
    status, body = request(a, "POST", "/api/sessions/static/series/line/append", {"x": xs, "y": ys}, timeout=30)
    assert status == 200, body
    # More inputs, so that the node snapshots the session (every 40) with the batch in it.
    tail_xs = [2000.0 + i * 0.5 for i in range(SNAPSHOT_EVERY + 5)]
    for x in tail_xs:
        assert append(a, [x])[0] == 200
    want_x = list(range(0, 1001, 100)) + xs + tail_xs
    inc = redis_cli(redis, "HGET", "cw:sessions", "static")
    eventually(lambda: int(redis_cli(redis, "HGET", f"cw:snap:{inc}", "seq") or 0) >= SNAPSHOT_EVERY, timeout=10)
    # The snapshot's chunk of the series holds all 20,011 points before the tail: one field over 64 KB.
    sizes = [int(redis_cli(redis, "HSTRLEN", f"cw:chunks:{inc}", f)) for f in redis_cli(redis, "HKEYS", f"cw:chunks:{inc}").split()]
    assert max(sizes) >= 16 * 20011, sizes
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start()
    try:
        for n in (a, b, c, d):
            eventually(lambda: series_points(n)["line"] == len(want_x), timeout=10)
            data = series_data(n)
            assert data["x"] == [float(x) for x in want_x]
            assert data["y"][11:11 + len(ys)] == ys
    finally:
        d.stop()


def test_a_node_paused_past_the_trim_reloads_the_snapshot_and_shows_no_hole(trimming_cluster):
    redis, (a, b, c), _ = trimming_cluster
    feed(a, 10, 1000)
    want = 11 + 10 * 2
    eventually(lambda: series_points(c)["line"] == want)
    os.kill(c.proc.pid, signal.SIGSTOP)
    import threading
    # An append sent to C while it is stopped: C reads it when it wakes, maybe before it
    # noticed that its stream moved on. It is taken on the reloaded chart or refused
    # (503, retry): never applied to a chart the other nodes do not hold.
    answers = []
    late = threading.Thread(target=lambda: answers.append(append(c, [1900.0, 1900.5], )), daemon=True)
    try:
        feed(a, 150, 1100)
        _, first, last, _ = stream(redis)
        late.start()
        time.sleep(0.3)
    finally:
        os.kill(c.proc.pid, signal.SIGCONT)
    late.join(10)
    assert first > 11 and last == 160, (first, last)   # C's next entry (11) is gone from the stream
    status, body = answers[0]
    assert status in (200, 503), body
    if status == 503:
        assert b"retry" in body, body
        assert append(c, [1900.0, 1900.5])[0] == 200
    want += 150 * 2 + 2
    for n in (a, b, c):
        eventually(lambda: series_points(n)["line"] == want)
    same_frames([a, b, c])
    # C takes changes again, and the others see them.
    feed(c, 5, 1500)
    for n in (a, b, c):
        eventually(lambda: series_points(n)["line"] == want + 10)
    same_frames([a, b, c])


def test_a_fifo_series_chunks_follow_its_evictions(trimming_cluster):
    """A series with a capacity of 100 fed 600 points: each snapshot writes only the new
    points as a chunk and deletes the chunks the FIFO evicted, so Redis holds a few
    chunks, not one per snapshot; a node started afterwards holds the same 100 points."""
    redis, (a, b, _), flags = trimming_cluster
    spec = {"id": "fifo", "title": "FIFO", "chart": {
        "xAxes": [{"id": "x", "mode": "fixed", "range": [0, 1200]}],
        "yAxes": [{"id": "y", "mode": "fixed", "range": [-10, 110]}],
        "series": [{"id": "s", "capacity": 100}]}}
    status, body = request(a, "POST", "/api/sessions", spec)
    assert status in (200, 201), body
    for i in range(300):
        status, body = append(a, [2.0 * i, 2.0 * i + 1], session="fifo", series="s")
        assert status == 200, body
    _, first, last, inc = stream(redis, "fifo")
    assert last == 300 and first > 1
    fields = int(redis_cli(redis, "HLEN", f"cw:chunks:{inc}"))
    # 300 inputs, a snapshot about every 40 (seven or more, each adding a chunk of up
    # to 80 points): the evicted chunks gone, 100 points span at most three.
    assert 1 <= fields <= 3, fields
    # b follows the stream on its own: it holds 100 points as soon as it has applied 100
    # inputs, so wait for its chart to be a's (the last 100 points), not for the count.
    eventually(lambda: frame(b, "fifo") == frame(a, "fifo"), timeout=10)
    assert series_points(b, "fifo") == {"s": 100}
    # A node started now restores the snapshot and the tail before it serves.
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start()
    try:
        assert series_points(d, "fifo") == {"s": 100}
        assert frame(d, "fifo") == frame(a, "fifo")
    finally:
        d.stop()


def label_texts(server, session):
    """The texts of the 640x400 display list (tick labels, titles), in order."""
    status, body = request(server, "GET", f"/api/sessions/{session}/frame.json?width=640&height=400")
    assert status == 200, body
    out = []
    def walk(v):
        if isinstance(v, dict):
            if v.get("op") == "text" or ("text" in v and isinstance(v.get("text"), str)):
                out.append(v["text"])
            for w in v.values():
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)
    walk(json.loads(body))
    return out


def test_a_node_started_late_draws_the_same_automatic_axes(cluster):
    """Automatic axis ranges keep some room once they have grown (hysteresis). Where they
    stand must follow from the session's inputs alone: node A, whose viewer saw every
    step, and node D, started afterwards from Redis with no viewer, label the axes alike
    (docs/persistence.md, "What a restart restores")."""
    import threading
    redis, (a, b, c) = cluster
    spec = {"id": "auto", "title": "Auto", "chart": {
        "xAxes": [{"id": "x", "mode": "extents"}], "yAxes": [{"id": "y", "mode": "extents"}],
        "series": [{"id": "line", "name": "Line", "capacity": 30}]}}
    status, body = request(a, "POST", "/api/sessions", spec)
    assert status in (200, 201), body
    ws = connect(a, "auto")
    hello(ws, 640, 400)
    stop = threading.Event()
    def watch():
        while not stop.is_set():
            try:
                next_frame(ws, timeout=0.3)
            except Exception:
                pass
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    # Peaks that the FIFO evicts later, so the axis has room it keeps for a while.
    for i in range(90):
        y = 100.0 + i if i % 25 == 3 else float((i * 7) % 23)
        status, body = request(a, "POST", "/api/sessions/auto/series/line/append", {"x": [float(i)], "y": [y]})
        assert status == 200, body
        time.sleep(0.01)
    stop.set()
    t.join()
    ws.close()
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start()
    try:
        held = [series_points(n, "auto") for n in (a, d)]
        assert held[0] == {"line": 30}, held
        eventually(lambda: series_points(d, "auto") == held[0])
        texts = []
        def same():
            texts[:] = [label_texts(n, "auto") for n in (a, b, d)]
            return texts[0] == texts[1] == texts[2]
        try:
            eventually(same, timeout=3)
        except AssertionError:
            raise AssertionError(f"labels differ: a {texts[0]} | b {texts[1]} | d {texts[2]}")
    finally:
        d.stop()


def test_a_node_started_late_keeps_the_room_for_labels_and_the_legend_place(cluster):
    """An axis keeps the room of the widest labels it has shown (`labelSpace`), and the
    legend stays where it was while that is clear of data: both follow the frames
    drawn. A frame's new room and legend place are logged as a `presented` input, so
    node D, started after the wide labels were gone and with no viewer, draws the same
    frame as node A, whose viewer saw them (docs/cluster.md, "The log"). Before, D's
    axis kept only the narrow labels it drew itself."""
    redis, (a, b, c) = cluster
    spec = {"id": "room", "title": "Room", "chart": {
        "yAxes": [{"id": "y", "mode": "visible"}], "legend": {"show": True},
        "series": [{"id": "line", "name": "Line", "capacity": 3, "data": {"x": [0, 1, 2], "y": [1, 2, 3]}}]}}
    status, body = request(a, "POST", "/api/sessions", spec)
    assert status in (200, 201), body
    ws = connect(a, "room")
    hello(ws, 640, 400)
    next_frame(ws)
    for xs, ys in (([3, 4, 5], [123456.5, 2, 3]), ([6, 7, 8], [1, 2, 3])):
        status, body = request(a, "POST", "/api/sessions/room/series/line/append", {"x": xs, "y": ys})
        assert status == 200, body
        deadline = time.time() + 3
        while time.time() < deadline:       # the viewer is drawn the change
            try:
                next_frame(ws, timeout=0.5)
            except Exception:
                break
    ws.close()
    d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start()
    try:
        eventually(lambda: series_points(d, "room") == {"line": 3})
        same_frames([a, b, d], session="room")
    finally:
        d.stop()


def test_an_entry_this_build_cannot_read_stops_the_session_loudly(cluster):
    """A stream entry of a kind this build does not know (a newer node wrote it) is not
    skipped: each node keeps the session at the entry before it, refuses writes to it
    with 503 naming the entry, and says so once on stderr; other sessions go on
    (docs/cluster.md, "Mixed builds")."""
    redis, (a, b, c) = cluster
    assert request(a, "POST", "/api/sessions", {"id": "mixed", "chart": {"series": [{"id": "s"}]}})[0] in (200, 201)
    eventually(lambda: all(series_points(n, "mixed") is not None for n in (a, b, c)))
    assert append(a, [1.0, 2.0], session="mixed", series="s")[0] == 200
    eventually(lambda: all((series_points(n, "mixed") or {}).get("s") == 2 for n in (a, b, c)))
    length, first, last, inc = stream(redis, "mixed")
    redis_cli(redis, "XADD", f"cw:log:{inc}", f"0-{last + 1}", "i", "c")   # kind 99
    def refused(n):
        status, body = append(n, [3.0], session="mixed", series="s")
        return status == 503 and b"cannot be read by this node" in body and f"entry {last + 1}".encode() in body
    for n in (a, b, c):
        eventually(lambda: refused(n))
        assert (series_points(n, "mixed") or {}).get("s") == 2
    # Other sessions are served and written as before.
    assert append(b, [9.0])[0] == 200
    a.stop()
    err = a.proc.stderr.read()
    assert err.count('session "mixed": stream entry') == 1, err

"""GET /metrics in the Prometheus text format, read with the parser of the official
Python client (`prometheus-client` from PyPI): the counters move as viewers connect
and data arrives (docs/deploy.md, "Metrics")."""
import json
import struct
import time
import urllib.request

import pytest
import websocket
from prometheus_client.parser import text_string_to_metric_families

from conftest import Server
from test_control import call
import cwframe
from test_websocket import connect, hello, layer, next_frame


@pytest.fixture
def metrics_server(tmp_path):
    config = tmp_path / "metrics.json"
    config.write_text(json.dumps({"sessions": [
        {"id": "m", "chart": {"series": [{"id": "a"}]},
         "lineProtocol": {"series": [{"measurement": "cpu", "field": "u", "series": "a"}]}},
        {"id": "other", "chart": {"series": [{"id": "a"}]}},
    ]}))
    s = Server("--config", str(config)).start()
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


def scrape(server):
    with urllib.request.urlopen(server.http + "/metrics", timeout=5) as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        text = r.read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    values = {}
    for f in families.values():
        for s in f.samples:
            values[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return families, values


def value(values, name, **labels):
    return values.get((name, tuple(sorted(labels.items()))), 0)


def cwa1(xs, ys):
    return b"CWA1" + struct.pack("<I", len(xs)) + struct.pack(f"<{len(xs)}d", *xs) + struct.pack(f"<{len(ys)}d", *ys)


def test_metrics_move_as_viewers_connect_and_data_arrives(metrics_server):
    s = metrics_server
    families, before = scrape(s)
    assert families["chartwire_frame_age_seconds"].type == "histogram"
    assert families["chartwire_points_ingested"].type == "counter"   # (the parser drops _total)
    assert value(before, "chartwire_viewers", session="m") == 0
    assert ("chartwire_viewers", (("session", "other"),)) in before
    assert value(before, "process_resident_memory_bytes") > 1 << 20
    assert value(before, "process_open_fds") > 3

    a, b = connect(s, "m"), connect(s, "m")
    hello(a); hello(b)
    next_frame(a); next_frame(b)
    _, mid = scrape(s)
    assert value(mid, "chartwire_viewers", session="m") == 2
    assert value(mid, "chartwire_viewer_connections", session="m") == 2
    frames = value(mid, "chartwire_frames_sent_total", session="m")
    assert frames >= 2 and value(mid, "chartwire_frame_bytes_sent_total", session="m") > 0

    # Data by each feed.
    assert call(s, "POST", "/api/sessions/m/series/a/append", {"x": [1, 2, 3], "y": [1, 2, 3]})[0] == 200
    assert call(s, "POST", "/api/sessions/m/series/a/append", cwa1([4, 5], [4, 5]))[0] == 200
    assert call(s, "POST", "/api/sessions/m/write?precision=s", b"cpu u=6 6\ncpu u=7 7")[0] == 200
    req = urllib.request.Request(s.http + "/write?db=m&precision=s", data=b"cpu u=8 8", method="POST")
    assert urllib.request.urlopen(req).status == 204
    p = websocket.create_connection(f"{s.ws}/publish/m/a", subprotocols=["chartwire.publish.v1"], timeout=5)
    p.send(json.dumps({"x": [9, 10, 11, 12], "y": [9, 10, 11, 12]}))
    assert json.loads(p.recv())["accepted"] == 4
    # Refusals, by status and route.
    assert call(s, "POST", "/api/sessions/m/series/nope/append", {"x": [1], "y": [1]})[0] == 404
    assert call(s, "POST", "/api/sessions/m/series/a/append", b"{")[0] == 400
    # The viewers are sent the new data, and their frames' ages are recorded.
    next_frame(a); next_frame(b)

    _, after = scrape(s)
    assert value(after, "chartwire_points_ingested_total", feed="http_json") == 3
    assert value(after, "chartwire_points_ingested_total", feed="http_binary") == 2
    assert value(after, "chartwire_points_ingested_total", feed="line_protocol") == 3
    assert value(after, "chartwire_points_ingested_total", feed="publisher") == 4
    assert value(after, "chartwire_publisher_connections", session="m") == 1
    assert value(after, "chartwire_http_requests_refused_total", status="404", route="append") == 1
    assert value(after, "chartwire_http_requests_refused_total", status="400", route="append") == 1
    assert value(after, "chartwire_frames_sent_total", session="m") > frames
    assert value(after, "chartwire_publications_total", session="m") >= 2
    ages = value(after, "chartwire_frame_age_seconds_count", session="m")
    assert ages >= 2
    assert value(after, "chartwire_frame_age_seconds_bucket", session="m", le="+Inf") == ages
    assert value(after, "chartwire_publish_seconds_count") >= 2
    # Buckets are cumulative.
    buckets = sorted((float(k[1][0][1] if k[1][0][0] == "le" else k[1][1][1]), v) for k, v in after.items()
                     if k[0] == "chartwire_frame_age_seconds_bucket" and ("session", "m") in k[1])
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)

    a.close(); b.close(); p.close()
    _, last = scrape(s)
    assert value(last, "chartwire_viewer_connections", session="m") == 0 and value(last, "chartwire_viewers", session="m") == 0


def test_frames_a_viewer_behind_never_gets_are_counted_superseded(metrics_server):
    """A viewer that stops acknowledging fills its window (2 frames); each later
    publication that changes its chart supersedes a frame it was owed. One that keeps
    acknowledging misses none. When it acknowledges again, it gets the newest state."""
    s = metrics_server
    slow, quick = connect(s, "other"), connect(s, "other")
    hello(slow); hello(quick)
    next_frame(slow); next_frame(quick)
    _, before = scrape(s)
    assert value(before, "chartwire_frames_superseded_total", session="other") == 0
    # Appends a publication apart (the session publishes at most 60 a second).
    for k in range(8):
        assert call(s, "POST", "/api/sessions/other/series/a/append", {"x": [k], "y": [k * k]})[0] == 200
        next_frame(quick)
        if k < 2:
            next_frame(slow, ack=False)
        time.sleep(0.05)
    _, after = scrape(s)
    missed = value(after, "chartwire_frames_superseded_total", session="other")
    # The slow viewer lacked the third append's state, and each of five more replaced it.
    assert missed == 5
    stats = json.loads(urllib.request.urlopen(s.http + "/api/stats", timeout=5).read())
    assert [x["superseded"] for x in stats["sessions"] if x["id"] == "other"] == [missed]
    # Acknowledged, it is sent the newest state, and nothing more is superseded.
    slow.send(json.dumps({"type": "ack"})); slow.send(json.dumps({"type": "ack"}))
    frame, _ = next_frame(slow)
    assert frame is not None
    _, last = scrape(s)
    assert value(last, "chartwire_frames_superseded_total", session="other") == missed
    slow.close(); quick.close()


def test_gesture_to_frame_histogram(static_server):
    """A viewer's wheel turn is timed from its arrival to the first frame that shows the
    zoom leaving: the count moves by one per gesture shown, the time is within what the
    client saw, and gestures that change nothing, or other viewers' frames, add nothing."""
    s = static_server
    name = "chartwire_gesture_to_frame_seconds"
    a, b = connect(s), connect(s)
    hello(a); hello(b)
    f, _ = next_frame(a)
    next_frame(b)
    families, before = scrape(s)
    assert families[name].type == "histogram"
    assert value(before, name + "_count", session="static") == 0

    x, y, w, h = cwframe.plot_rect(layer(f, "background"))
    seen = []
    for turn in range(2):
        sent = time.monotonic()
        a.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaX": 0, "deltaY": -100}))
        f2, _ = next_frame(a)
        seen.append(time.monotonic() - sent)
        assert layer(f2, "background") is not None   # the zoom is in this frame
        next_frame(b)   # the other viewer is shown it too, and that is not its gesture
        # A hover with no button pressed changes nothing here (no modifier draws on hover).
        a.send(json.dumps({"type": "pointer", "phase": "move", "x": x + 5, "y": y + 5, "button": -1, "buttons": 0,
                           "pointerId": 1, "pointerType": "mouse"}))
    # (A last gesture, so the hover before it has surely been read.)
    sent = time.monotonic()
    a.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaX": 0, "deltaY": 100}))
    next_frame(a)
    seen.append(time.monotonic() - sent)
    next_frame(b)

    _, after = scrape(s)
    assert value(after, name + "_count", session="static") == 3
    total = value(after, name + "_sum", session="static")
    assert 0 < total <= sum(seen), (total, seen)
    assert value(after, name + "_bucket", session="static", le="+Inf") == 3
    assert value(after, name + "_bucket", session="static", le=str(5.0)) == 3
    a.close(); b.close()


def test_refusals_by_reason(tmp_path):
    """chartwire_refused_total{reason}: what the transport's guards (docs/security.md) and
    the limits (docs/limits.md) refused, by the names they are counted under."""
    import socket
    config = tmp_path / "one.json"
    config.write_text(json.dumps({"sessions": [{"id": "m", "chart": {"series": [{"id": "a"}]}}]}))
    s = Server("--config", str(config), "--limit", "sessions=1").start()
    try:
        _, before = scrape(s)
        assert value(before, "chartwire_refused_total", reason="lengthRequired") == 0
        # A chunked body: refused by the transport (411).
        with socket.create_connection(("127.0.0.1", s.port), timeout=5) as c:
            c.sendall(f"POST /api/sessions/m/series/a/append HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".encode())
            assert c.recv(4096).startswith(b"HTTP/1.1 411")
        # A second session past --limit sessions=1: refused by the limit (429).
        assert call(s, "PUT", "/api/sessions/two", {"chart": {}})[0] == 429
        _, after = scrape(s)
        assert value(after, "chartwire_refused_total", reason="lengthRequired") == 1
        assert value(after, "chartwire_refused_total", reason="sessions") == 1
        # Counted once: a second scrape adds nothing.
        _, again = scrape(s)
        assert value(again, "chartwire_refused_total", reason="sessions") == 1
    finally:
        s.stop()

"""Pulled data (docs/feeding.md, "Pulled data"): a series whose spec names a source
URL; a tiny HTTP server here is the source. A viewer zooms out past the data the
series holds, the server asks the source for the missing ranges, and the next frames
draw the fetched points. A hanging and a garbage-answering source beside it cost their
own series and nothing else."""
import json
import math
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cwframe
from conftest import Server
from test_control import call
from test_websocket import connect, hello, layer, next_frame


class Source(BaseHTTPRequestHandler):
    asked = []

    def log_message(self, *a):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        Source.asked.append((url.path, q["series"][0], float(q["from"][0]), float(q["to"][0])))
        if url.path == "/slow":
            time.sleep(15)
        if url.path == "/garbage":
            body = b"<html>this is not a points body</html>"
        else:
            lo, hi = math.ceil(float(q["from"][0])), math.floor(float(q["to"][0]))
            xs = list(range(lo, hi + 1))
            body = json.dumps({"x": xs, "y": [10] * len(xs)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def source_server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Source)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def series_pull(srv, series):
    pulls = next(s for s in call(srv, "GET", "/api/stats")[1]["sessions"] if s["id"] == "pull").get("pulls", [])
    return next((p for p in pulls if p["series"] == series), None)


def wait(predicate, timeout=10, what="it"):
    end = time.time() + timeout
    while time.time() < end:
        v = predicate()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"no {what} within {timeout} s")


def test_a_viewer_zooming_past_the_held_data_gets_the_sources_points():
    httpd = source_server()
    port = httpd.server_address[1]
    srv = Server("--no-demo").start()
    try:
        Source.asked.clear()
        spec = {"id": "pull", "chart": {
            "xAxes": [{"id": "x", "visibleRange": [100, 200]}], "yAxes": [{"id": "y", "mode": "fixed", "range": [-1, 11]}],
            "series": [
                {"id": "a", "source": f"http://127.0.0.1:{port}/ok", "data": {"x": list(range(100, 201)), "y": [0] * 101}},
                {"id": "h", "source": f"http://127.0.0.1:{port}/slow"},
                {"id": "g", "source": f"http://127.0.0.1:{port}/garbage"}],
            "modifiers": [{"type": "mouseWheelZoom"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        ws = connect(srv, "pull")
        hello(ws)
        f, _ = next_frame(ws)
        x, y, w, h = cwframe.plot_rect(layer(f, "background"))
        # "a" holds all of 100...200: only the empty series ask for it.
        wait(lambda: series_pull(srv, "g") and series_pull(srv, "g")["failures"] >= 1, what="garbage failure")
        assert not any(a[1] == "a" for a in Source.asked), Source.asked
        g = series_pull(srv, "g")
        assert "not a points body" in g["lastError"], g
        warnings = call(srv, "GET", "/api/sessions/pull")[1]["warnings"]
        assert any(w.startswith("$.chart.series[2].source: the last request failed") and "not a points body" in w
                   for w in warnings), warnings
        h_state = series_pull(srv, "h")
        assert h_state["inFlight"] == [100, 200], h_state   # hanging, and nothing else waits for it

        # Zoom out about the centre: 1.2^3 wider, past both ends of what "a" holds.
        ws.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaX": 0, "deltaY": 300}))
        started = time.time()
        a = wait(lambda: (p := series_pull(srv, "a")) and p["answers"] >= 2 and p, what="two answers for a")
        asked = [q for q in Source.asked if q[1] == "a"]
        assert len(asked) == 2, asked
        (_, _, f1, t1), (_, _, f2, t2) = asked
        assert f1 < 100 and 99.99 < t1 < 100 and 200 < f2 < 200.01 and t2 > 200, asked
        assert a["failures"] == 0 and a["points"] > 50 and a["held"] == [[f1, t2]], a
        assert time.time() - started < 5

        # The frames now draw the fetched points (y = 10) from the plot's left edge to
        # its right, beside the held ones (y = 0).
        def drawn():
            frame, _ = next_frame(ws)
            s = layer(frame, "series")
            if not s:
                return None
            lines = [c for c in s["commands"] if c.get("op") == "columns"]
            pts = [p for c in lines for pl in cwframe.column_polylines(c) for p in zip(pl[0::2], pl[1::2])]
            return pts if pts and min(p[0] for p in pts) < x + 5 and max(p[0] for p in pts) > x + w - 5 else None
        pts = wait(drawn, what="a frame with the fetched points")
        ys = sorted({round(p[1]) for p in pts})
        y10 = y + h * (11 - 10) / 12
        y0 = y + h * (11 - 0) / 12
        assert any(abs(v - y10) < 2 for v in ys) and any(abs(v - y0) < 2 for v in ys), (ys, y10, y0)

        # The server answers at once while "h" hangs; after the 5 s timeout it is a failure.
        t = time.time()
        assert call(srv, "GET", "/api/sessions")[0] == 200 and time.time() - t < 1
        hs = wait(lambda: (p := series_pull(srv, "h")) and p["failures"] >= 1 and p, timeout=10, what="the hanging source's timeout")
        assert "timeout" in hs["lastError"], hs
        # GET /api/sessions/{s} shows each pulling series' state too.
        entry = call(srv, "GET", "/api/sessions/pull")[1]
        assert next(s for s in entry["series"] if s["id"] == "a")["pull"]["answers"] >= 2
        ws.close()
        assert srv.alive()
    finally:
        srv.stop()
        httpd.shutdown()


def test_pull_allow_refuses_other_hosts_and_bad_sources_are_refused_with_their_path():
    httpd = source_server()
    port = httpd.server_address[1]
    srv = Server("--no-demo", "--pull-allow", "localhost").start()
    try:
        Source.asked.clear()
        spec = {"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}],
                                        "series": [{"id": "a", "source": f"http://127.0.0.1:{port}/ok"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        p = wait(lambda: (q := series_pull(srv, "a")) and q["failures"] >= 1 and q, what="a refusal")
        assert "--pull-allow" in p["lastError"] and Source.asked == [], p
        status, body = call(srv, "POST", "/api/sessions", {"id": "b", "chart": {"series": [{"id": "s", "source": "file:///etc/passwd"}]}})
        assert status == 400 and body["error"].startswith("$.chart.series[0].source"), body
    finally:
        srv.stop()
        httpd.shutdown()


def test_pull_allow_from_the_config_file_and_the_command_line_wins(tmp_path):
    """`server.pullAllow` in the --config file is the allow-list --pull-allow gives; a
    --pull-allow replaces it; a bad entry is refused at start with its path."""
    httpd = source_server()
    port = httpd.server_address[1]
    spec = {"server": {"pullAllow": ["localhost"]},
            "sessions": [{"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}],
                                                  "series": [{"id": "a", "source": f"http://127.0.0.1:{port}/ok"}]}}]}
    (tmp_path / "c.json").write_text(json.dumps(spec))
    try:
        Source.asked.clear()
        srv = Server("--no-demo", "--config", str(tmp_path / "c.json")).start()
        try:
            p = wait(lambda: (q := series_pull(srv, "a")) and q["failures"] >= 1 and q, what="a refusal")
            assert "--pull-allow" in p["lastError"] and Source.asked == [], p
        finally:
            srv.stop()
        srv = Server("--no-demo", "--config", str(tmp_path / "c.json"), "--pull-allow", f"127.0.0.1:{port}").start()
        try:
            p = wait(lambda: (q := series_pull(srv, "a")) and q["answers"] >= 1 and q, what="an answer")
            assert p["failures"] == 0 and Source.asked, p
        finally:
            srv.stop()
    finally:
        httpd.shutdown()
    spec["server"]["pullAllow"] = ["localhost", "http://127.0.0.1/"]
    (tmp_path / "bad.json").write_text(json.dumps(spec))
    proc = subprocess.run(Server("--no-demo", "--config", str(tmp_path / "bad.json")).args, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2, proc.stderr
    assert '$.server.pullAllow[1]: "http://127.0.0.1/" is not a host or host:port' in proc.stderr, proc.stderr


def test_the_gallery_pulls_from_the_servers_own_demo_source(demo_server):
    status, body = call(demo_server, "GET", "/api/demo/points?from=0&to=600")
    assert status == 200 and body["x"] == [60.0 * i for i in range(11)] and len(body["y"]) == 11
    # The same x has the same value whatever the range asked.
    assert call(demo_server, "GET", "/api/demo/points?from=300&to=400")[1]["y"] == body["y"][5:7]
    assert call(demo_server, "GET", "/api/demo/points?from=0&to=1e12")[0] == 400
    assert call(demo_server, "GET", "/api/demo/points?to=5")[0] == 400

    def pulled():
        for s in call(demo_server, "GET", "/api/stats")[1]["sessions"]:
            if s["id"] == "gallery-pull":
                return next((p for p in s.get("pulls", []) if p["series"] == "reading" and p["answers"] >= 1), None)
    p = wait(pulled, what="the gallery's pull")
    # The visible day, 1440 minutes and its last one (both ends included).
    assert p["source"] == "/api/demo/points" and p["points"] == 1441 and p["failures"] == 0, p
    assert p["held"] == [[1795392000, 1795478400]], p


def test_pulled_points_are_logged_and_come_back_after_a_restart_without_the_source(tmp_path):
    httpd = source_server()
    port = httpd.server_address[1]
    data = str(tmp_path / "data")
    srv = Server("--no-demo", "--data", data).start()
    try:
        spec = {"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 50]}],
                                        "series": [{"id": "a", "source": f"http://127.0.0.1:{port}/ok"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        wait(lambda: (p := series_pull(srv, "a")) and p["answers"] >= 1, what="the answer")
        points = next(s for s in call(srv, "GET", "/api/sessions/pull")[1]["series"] if s["id"] == "a")["points"]
        assert points == 51
    finally:
        srv.stop()
        httpd.shutdown()
        httpd.server_close()
    # The source is gone: the points come from the server's own log.
    again = Server("--no-demo", "--data", data).start()
    try:
        entry = call(again, "GET", "/api/sessions/pull")[1]
        a = next(s for s in entry["series"] if s["id"] == "a")
        assert a["points"] == 51, entry
        status, body = call(again, "GET", "/api/sessions/pull/data.json?from=0&to=50")
        assert status == 200 and body["series"][0]["x"][:3] == [0, 1, 2], body
        # What the series holds counts as held: nothing is asked of the missing source.
        time.sleep(0.6)
        assert a["pull"]["held"] == [[0, 50]] and series_pull(again, "a")["requests"] == 0
    finally:
        again.stop()

"""Durable sessions (docs/persistence.md): feeders write through every ingest path at
full speed, the server is killed with SIGKILL at random moments, and after each restart
every acknowledged change is there exactly once and in order, and nothing
unacknowledged is there in part."""
import json
import random
import struct
import threading
import time
import urllib.error
import urllib.request

import pytest
import websocket

from conftest import Server
from test_control import call

SESSION = {
    "id": "d", "title": "t0",
    "chart": {"series": [{"id": "j"}, {"id": "b"}, {"id": "p"}, {"id": "l"}, {"id": "o"}]},
    "lineProtocol": {"series": [{"measurement": "m", "field": "v", "series": "l"}]},
}


def request(server, method, path, body=b"", timeout=5):
    req = urllib.request.Request(server.http + path, data=body if method != "GET" else None, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def cwa1(xs, ys):
    return b"CWA1" + struct.pack(f"<I{len(xs)}d{len(ys)}d", len(xs), *xs, *ys)


class Feeder(threading.Thread):
    """Sends one change at a time and notes which were acknowledged; the one in flight
    when the server died may or may not have been stored, but only whole."""

    def __init__(self, server, stop):
        super().__init__(daemon=True)
        self.server, self.stop_event = server, stop
        self.acked, self.inflight = [], None

    def run(self):
        try:
            while not self.stop_event.is_set():
                change = self.next_change()
                self.inflight = change
                self.send(change)
                self.acked.append(change)
                self.inflight = None
        except Exception:
            pass  # the server died: `inflight` holds what was on its way

    def next_change(self):
        raise NotImplementedError


class PointsFeeder(Feeder):
    """Batches of points with x counting up from `start`: JSON, binary, publisher or
    line protocol."""

    def __init__(self, server, stop, series, way, start):
        super().__init__(server, stop)
        self.series, self.way, self.x = series, way, start

    def next_change(self):
        n = random.randint(1, 40)
        xs = [float(self.x + i) for i in range(n)]
        self.x += n
        return xs

    def send(self, xs):
        ys = [x * 0.5 for x in xs]
        path = f"/api/sessions/d/series/{self.series}/append"
        if self.way == "json":
            status, _ = request(self.server, "POST", path, json.dumps({"x": xs, "y": ys}).encode())
        elif self.way == "binary":
            status, _ = request(self.server, "POST", path, cwa1(xs, ys))
        elif self.way == "lines":
            body = "".join(f"m v={y} {int(x) * 1_000_000_000}\n" for x, y in zip(xs, ys))
            status, _ = request(self.server, "POST", "/api/sessions/d/write", body.encode())
        else:
            if not hasattr(self, "ws"):
                self.ws = websocket.create_connection(f"{self.server.ws}/publish/d/{self.series}",
                                                      subprotocols=["chartwire.publish.v1"], timeout=5)
            self.ws.send_binary(cwa1(xs, ys))
            ack = json.loads(self.ws.recv())
            status = 200 if ack.get("type") == "ack" else 400
        assert status == 200


class OpsFeeder(Feeder):
    """The data operations on series `o`, against a model of what they do."""

    def __init__(self, server, stop, model):
        super().__init__(server, stop)
        self.model, self.n = list(model), 0

    def next_change(self):
        self.n += 1
        last = self.model[-1][0] if self.model else 1e6
        kind = random.choice(["append", "append", "removeFirst", "update", "replace", "clear"] if self.model else ["append"])
        if kind == "append":
            return ("append", {"x": [last + 1, last + 2, last + 3], "y": [1.0, 2.0, 3.0]})
        if kind == "removeFirst":
            return ("removeFirst", {"count": min(2, len(self.model))})
        if kind == "update":
            return ("update", {"index": 0, "y": [float(self.n)]})
        if kind == "replace":
            return ("replace", {"x": [last + 10, last + 11], "y": [7.0, 8.0]})
        return ("clear", {})

    @staticmethod
    def apply(model, change):
        op, body = change
        if op == "append":
            return model + list(zip(body["x"], body["y"]))
        if op == "removeFirst":
            return model[body["count"]:]
        if op == "update":
            return [(model[0][0], body["y"][0])] + model[1:]
        if op == "replace":
            return list(zip(body["x"], body["y"]))
        return []

    def send(self, change):
        op, body = change
        status, _ = request(self.server, "POST", f"/api/sessions/d/series/o/{op}", json.dumps(body).encode())
        assert status == 200
        self.model = self.apply(self.model, change)


class PatchFeeder(Feeder):
    def __init__(self, server, stop, n):
        super().__init__(server, stop)
        self.n = n

    def next_change(self):
        self.n += 1
        return f"t{self.n}"

    def send(self, title):
        status, _ = request(self.server, "PATCH", "/api/sessions/d", json.dumps({"title": title}).encode())
        assert status == 200


def stored(server):
    _, spec = call(server, "GET", "/api/sessions/d/spec?data=1")
    data = {s["id"]: list(zip(s["data"]["x"], s["data"]["y"])) for s in spec["chart"]["series"]}
    return spec, data


@pytest.mark.parametrize("fsync", ["always", "batch"])
def test_kill_at_random_moments_loses_nothing_acknowledged(tmp_path, fsync):
    """At `always` an answer waits for its loop turn's commit and sync; at `batch` it
    goes as soon as its change is written to the append log (docs/persistence.md):
    both keep every acknowledged change through a process crash."""
    random.seed(24)
    data_dir = tmp_path / "data"
    args = ("--no-demo", "--data", str(data_dir), "--fsync", fsync)
    server = Server(*args).start()
    status, _ = request(server, "POST", "/api/sessions", json.dumps(SESSION).encode())
    assert status == 201
    expected = {k: [] for k in ["j", "b", "p", "l", "o"]}
    title_n = 0
    try:
        for round_ in range(20):
            stop = threading.Event()
            nxt = {k: int(max([x for x, _ in v], default=0)) + 1 for k, v in expected.items()}
            points = {"j": PointsFeeder(server, stop, "j", "json", nxt["j"]),
                      "b": PointsFeeder(server, stop, "b", "binary", nxt["b"]),
                      "p": PointsFeeder(server, stop, "p", "publisher", nxt["p"]),
                      "l": PointsFeeder(server, stop, "l", "lines", nxt["l"])}
            ops = OpsFeeder(server, stop, expected["o"])
            patch = PatchFeeder(server, stop, title_n)
            feeders = [*points.values(), ops, patch]
            for f in feeders:
                f.start()
            time.sleep(random.uniform(0.15, 0.6))
            server.proc.kill()  # SIGKILL, mid-feed
            server.proc.wait()
            for f in feeders:
                f.join(10)
            server = Server(*args).start()
            spec, data = stored(server)

            for k, f in points.items():
                acked = expected[k] + [(x, x * 0.5) for xs in f.acked for x in xs]
                with_inflight = acked + [(x, x * 0.5) for x in (f.inflight or [])]
                assert data[k] in (acked, with_inflight), \
                    f"round {round_}, series {k}: {len(data[k])} points stored, {len(acked)} acknowledged"
                expected[k] = data[k]
            model = expected["o"]
            for change in ops.acked:
                model = OpsFeeder.apply(model, change)
            candidates = [model] + ([OpsFeeder.apply(model, ops.inflight)] if ops.inflight else [])
            assert data["o"] in candidates, f"round {round_}: data operations"
            expected["o"] = data["o"]
            titles = [f"t{title_n}"] + patch.acked
            assert spec["title"] in ([titles[-1]] + ([patch.inflight] if patch.inflight else [])), f"round {round_}: title"
            title_n = int(spec["title"][1:])
            assert sum(len(f.acked) for f in feeders) > 0 or round_ > 0

        # Quiescent: the spec read back after a kill equals the one before, byte for byte.
        _, before = request(server, "GET", "/api/sessions/d/spec?data=1")
        server.proc.kill()
        server.proc.wait()
        server = Server(*args).start()
        _, after = request(server, "GET", "/api/sessions/d/spec?data=1")
        assert after == before
        assert sum(len(v) for v in expected.values()) > 1000, "the feeders stored too little to prove anything"
        _, stats = call(server, "GET", "/api/sessions/d")
        assert stats["storedPoints"] == sum(len(v) for v in expected.values()) and stats["storedBytes"] > 0
    finally:
        server.stop()


CONFIG = {"sessions": [
    {"id": "gen", "chart": {"series": [{"id": "g", "generator": {"kind": "sine", "rate": 50}}]}},
    {"id": "fed", "chart": {"xAxes": [{"id": "x"}], "yAxes": [{"id": "y"}],
                            "series": [{"id": "keep"}, {"id": "gone"}], "modifiers": [{"type": "zoomPan"}]}},
]}


def test_config_sessions_take_the_files_spec_and_keep_matching_data(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps(CONFIG))
    data_dir = str(tmp_path / "data")
    s = Server("--config", str(config), "--data", data_dir).start()
    try:
        for series in ["keep", "gone"]:
            assert request(s, "POST", f"/api/sessions/fed/series/{series}/append", b'{"x":[1,2,3],"y":[4,5,6]}')[0] == 200
        time.sleep(0.5)
        _, gen = call(s, "GET", "/api/sessions/gen")
        assert gen["storedPoints"] > 10
    finally:
        s.stop()  # a plain stop (SIGTERM) keeps everything too

    # The file changes: "gone" is dropped, "new" appears; "keep" keeps its points.
    changed = json.loads(json.dumps(CONFIG))
    changed["sessions"][1]["chart"]["series"] = [{"id": "keep", "name": "Kept"}, {"id": "new"}]
    config.write_text(json.dumps(changed))
    s = Server("--config", str(config), "--data", data_dir).start()
    try:
        _, spec = call(s, "GET", "/api/sessions/fed/spec?data=1")
        series = {x["id"]: x for x in spec["chart"]["series"]}
        assert set(series) == {"keep", "new"} and series["keep"]["name"] == "Kept"
        assert series["keep"]["data"] == {"x": [1, 2, 3], "y": [4, 5, 6]} and series["new"]["data"] == {"x": [], "y": []}
        # The generator goes on from where it was: no jump back to an empty chart.
        _, again = call(s, "GET", "/api/sessions/gen")
        assert again["series"][0]["points"] >= gen["series"][0]["points"]
    finally:
        s.stop()


def test_retention_keeps_recent_points_and_bulk_appends_survive_a_kill(tmp_path):
    """`retention` (seconds of x behind the newest x) on a series without capacity:
    older points go live and from the store; a bulk binary append (snapshotted in its
    commit, not logged) is all there after SIGKILL."""
    data_dir = str(tmp_path / "data")
    spec = {"id": "r", "chart": {"series": [{"id": "w", "retention": 60}, {"id": "bulk"}]}}
    s = Server("--no-demo", "--data", data_dir).start()
    try:
        assert request(s, "POST", "/api/sessions", json.dumps(spec).encode())[0] == 201
        t0 = 1_800_000_000
        for k in range(5):  # 5 batches of 50 s at 1 s a point: keeps the newest 61 s
            xs = [float(t0 + 50 * k + i) for i in range(50)]
            assert request(s, "POST", "/api/sessions/r/series/w/append", cwa1(xs, [1.0] * 50))[0] == 200
        n = 200_000
        xs = [float(i) for i in range(n)]
        assert request(s, "POST", "/api/sessions/r/series/bulk/append", cwa1(xs, [i * 0.5 for i in xs]), timeout=30)[0] == 200
        _, live = call(s, "GET", "/api/sessions/r/spec?data=1")
        w = live["chart"]["series"][0]["data"]["x"]
        assert w[0] == t0 + 249 - 60 and w[-1] == t0 + 249 and len(w) == 61
        assert live["chart"]["series"][0]["retention"] == 60
        s.proc.kill()  # SIGKILL right after the answers
        s.proc.wait()
        s = Server("--no-demo", "--data", data_dir).start()
        _, after = call(s, "GET", "/api/sessions/r/spec?data=1")
        assert after["chart"]["series"][0]["data"]["x"] == w
        bulk = after["chart"]["series"][1]["data"]
        assert bulk["x"] == xs and bulk["y"][-1] == (n - 1) * 0.5
        # Retention is checked like every field.
        bad = {"id": "bad", "chart": {"series": [{"id": "w", "retention": -1}]}}
        status, body = None, b""
        try:
            request(s, "POST", "/api/sessions", json.dumps(bad).encode())
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        assert status == 400 and b"retention" in body
    finally:
        s.stop()


def test_a_backup_taken_while_running_as_documented_has_the_acknowledged_appends(tmp_path):
    """docs/persistence.md, "Backup": the append log copied first, then the database
    through SQLite's backup API, while the server runs. Appends answered before the
    copies are in the restored folder, though the database alone does not have them yet;
    a fold between the two copies (a session defined) leaves a pair that is still
    consistent."""
    import shutil
    import sqlite3
    data_dir = tmp_path / "data"
    spec = {"id": "k", "chart": {"series": [{"id": "s"}]}}

    def append(s, x):
        assert request(s, "POST", "/api/sessions/k/series/s/append", json.dumps({"x": [x], "y": [2 * x]}).encode())[0] == 200

    def backup(into, between=None):
        into.mkdir()
        shutil.copyfile(data_dir / "chartwire.log", into / "chartwire.log")
        if between:
            between()
        src = sqlite3.connect(data_dir / "chartwire.sqlite")
        dst = sqlite3.connect(into / "chartwire.sqlite")
        src.backup(dst)
        src.close()
        dst.close()

    def restored(folder):
        r = Server("--no-demo", "--data", str(folder)).start()
        try:
            _, got = call(r, "GET", "/api/sessions/k/spec?data=1")
            return got["title"] if "title" in got else None, got["chart"]["series"][0]["data"]["x"]
        finally:
            r.stop()

    s = Server("--no-demo", "--data", str(data_dir)).start()
    try:
        assert request(s, "POST", "/api/sessions", json.dumps(spec).encode())[0] == 201
        for x in range(1, 31):
            append(s, x)
        backup(tmp_path / "plain")
        no_log = tmp_path / "no-log"
        no_log.mkdir()
        shutil.copyfile(tmp_path / "plain" / "chartwire.sqlite", no_log / "chartwire.sqlite")

        def patch_then_append():
            assert request(s, "PATCH", "/api/sessions/k", json.dumps({"title": "folded"}).encode())[0] == 200
            # A new session's definition is a SQLite commit: it folds the log first.
            assert request(s, "POST", "/api/sessions", json.dumps({**spec, "id": "k2"}).encode())[0] == 201
            append(s, 31)   # after the fold: in the new generation of the log, not copied
        backup(tmp_path / "folded", between=patch_then_append)
    finally:
        s.stop()
    # A clean stop folds the append log: the database alone has everything.
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    src, dst = sqlite3.connect(data_dir / "chartwire.sqlite"), sqlite3.connect(stopped / "chartwire.sqlite")
    src.backup(dst)
    src.close()
    dst.close()
    assert restored(stopped) == ("folded", list(range(1, 32)))

    assert restored(tmp_path / "plain") == (None, list(range(1, 31)))
    # The database alone: the appends the log held are not in it (which is why the
    # documented backup copies the log too).
    assert restored(no_log)[1] == []
    # The log copy is of a generation the database copy has folded: skipped, not doubled.
    assert restored(tmp_path / "folded") == ("folded", list(range(1, 31)))


def test_a_damaged_data_folder_stops_start_up_with_one_line(tmp_path):
    import subprocess
    from conftest import ROOT, server_binary
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "chartwire.sqlite").write_bytes(b"this is not a database" * 400)
    p = subprocess.run([server_binary(), "--no-demo", "--data", str(data_dir)], cwd=ROOT, capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2
    assert "chartwire.sqlite" in p.stderr and "move it aside" in p.stderr and p.stderr.count("\n") == 1


def test_a_database_with_64_kB_pages_is_named_in_the_log_and_converts(tmp_path):
    """A data folder made before 2026-11-28 has 64 kB pages: the server keeps its
    sessions, and its log says what the pages cost and how to convert them; after the
    conversion docs/persistence.md gives (run here through Python's sqlite3), the
    database has 4 kB pages, the sessions are there, and the log says nothing more."""
    import sqlite3
    import subprocess
    import types
    from conftest import ROOT, server_binary
    data_dir = tmp_path / "data"
    db = data_dir / "chartwire.sqlite"

    def run_server():
        """Starts the server on the folder, with its log (no --quiet): where it
        listens, and the process."""
        p = subprocess.Popen([server_binary(), "--no-demo", "--port", "0", "--data", str(data_dir)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            port = int(p.stdout.readline().strip().rsplit(":", 1)[1])
        except Exception:
            p.kill()
            raise
        return types.SimpleNamespace(http=f"http://127.0.0.1:{port}"), p

    def stop(p):
        p.terminate()
        _, err = p.communicate(timeout=20)
        return err

    def page_size():
        with sqlite3.connect(db) as c:
            return c.execute("PRAGMA page_size").fetchone()[0]

    def convert(size):
        c = sqlite3.connect(db, isolation_level=None)
        for sql in ["PRAGMA journal_mode=DELETE", f"PRAGMA page_size={size}", "VACUUM", "PRAGMA journal_mode=WAL"]:
            c.execute(sql)
        c.close()

    server, p = run_server()
    assert call(server, "POST", "/api/sessions", {**SESSION, "id": "pages"})[0] == 201
    assert request(server, "POST", "/api/sessions/pages/series/j/append", json.dumps({"x": [1, 2, 3], "y": [4, 5, 6]}).encode())[0] == 200
    assert "kB pages" not in stop(p)
    assert page_size() == 4096
    convert(65536)   # as a database made before
    assert page_size() == 65536

    server, p = run_server()
    assert json.loads(request(server, "GET", "/api/sessions/pages/spec?data=1")[1])["chart"]["series"][0]["data"]["y"] == [4, 5, 6]
    err = stop(p)
    assert "64 kB pages" in err and "PRAGMA page_size=4096; VACUUM" in err and "docs/persistence.md" in err

    convert(4096)    # the documented command
    assert page_size() == 4096
    server, p = run_server()
    assert json.loads(request(server, "GET", "/api/sessions/pages/spec?data=1")[1])["chart"]["series"][0]["data"]["y"] == [4, 5, 6]
    assert "kB pages" not in stop(p)


def test_a_page_open_across_a_restart_shows_the_same_chart(tmp_path, artifacts):
    """A viewer's page zoomed (shared view) and fed; the server is killed and restarted
    on the same port: the page reconnects by itself and draws the same chart."""
    from conftest import free_port
    from pngread import read_png
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from test_browser import X_LABELS_JS, browser, plot_rect, wait_for, x_labels

    port, data_dir = free_port(), str(tmp_path / "data")
    args = ("--no-demo", "--data", data_dir)
    server = Server(*args, port=port).start()
    spec = {"id": "room", "title": "Room", "chart": {
        "title": "Room", "xAxes": [{"id": "x", "mode": "extents"}], "yAxes": [{"id": "y", "mode": "fixed", "range": [-2, 2]}],
        "series": [{"id": "a", "name": "A"}, {"id": "b", "name": "B", "type": "column"}],
        "modifiers": [{"type": "zoomPan", "direction": "x"}, {"type": "mouseWheelZoom", "direction": "x"}, {"type": "legend"}]}}
    assert request(server, "POST", "/api/sessions", json.dumps(spec).encode())[0] == 201
    xs = [float(i) for i in range(2000)]
    import math
    assert request(server, "POST", "/api/sessions/room/series/a/append", cwa1(xs, [math.sin(x / 50) for x in xs]))[0] == 200
    assert request(server, "POST", "/api/sessions/room/series/b/append",
                   json.dumps({"x": xs[::100], "y": [math.cos(x / 300) for x in xs[::100]]}).encode())[0] == 200
    driver = browser(1000, 650)
    shown = """return JSON.stringify(['background', 'series', 'annotations', 'legend']
                   .map(k => window.chartwire.layers[k] ? window.chartwire.layers[k].commands : null))"""
    try:
        driver.get(f"{server.http}/s/room")
        wait_for(driver, "return window.chartwire && window.chartwire.frames > 0", message="first frame")
        before_labels = x_labels(driver)
        x, y, w, h = plot_rect(driver)
        ActionChains(driver).scroll_from_origin(ScrollOrigin.from_viewport(int(x + w / 3), int(y + h / 2)), 0, -300).perform()
        wait_for(driver, f"return {json.dumps(before_labels)}.join() !== {X_LABELS_JS}.join()", message="the zoom")
        time.sleep(0.5)  # the zoom's frames are all in
        layers_before = driver.execute_script(shown)
        _, frame_before = call(server, "GET", "/api/sessions/room/frame.json?width=900&height=500")
        png_before = driver.get_screenshot_as_png()
        (artifacts / "durable-before-restart.png").write_bytes(png_before)

        server.proc.kill()
        server.proc.wait()
        wait_for(driver, "return window.chartwire.connected === false", message="the page to see the drop")
        frames = driver.execute_script("return window.chartwire.frames")
        server = Server(*args, port=port).start()
        wait_for(driver, f"return window.chartwire.connected && window.chartwire.frames > {frames}", timeout=20,
                 message="frames after the restart")
        time.sleep(0.5)
        layers_after = driver.execute_script(shown)
        _, frame_after = call(server, "GET", "/api/sessions/room/frame.json?width=900&height=500")
        png_after = driver.get_screenshot_as_png()
        (artifacts / "durable-after-restart.png").write_bytes(png_after)

        assert x_labels(driver) != before_labels, "the shared zoom came back"
        assert layers_after == layers_before, "the page draws the same layers"
        strip = lambda f: [layer["commands"] for layer in f["layers"]]
        assert strip(frame_after) == strip(frame_before)
        # The chart's pixels, exactly (the page's header has a status badge of its own).
        from pngread import pixel
        a, b = read_png(png_before), read_png(png_after)
        left, top, width, height = [int(v) for v in driver.execute_script(
            "const r = document.getElementById('chart').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]")]
        differ = sum(pixel(a, i, j) != pixel(b, i, j) for j in range(top, min(top + height, a[1])) for i in range(left, left + width))
        assert differ == 0, f"{differ} pixels of the chart differ (see artifacts/durable-*-restart.png)"
    finally:
        driver.quit()
        server.stop()

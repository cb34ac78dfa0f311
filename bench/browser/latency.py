#!/usr/bin/env python3
"""Browser benchmark: what a person feels, measured in the page (headless Chromium).

  python3 bench/browser/latency.py [--seconds S] [--quick] [--only first|live|gestures|pages] [--gestures N] [--first N] [--pages N] [--feed cwload|python|walk] [--warmup S] [--limit NAME=VALUE]

Starts its own wsserver (release build: `swift build -c release` first) and prints:

- live_page_data_age_p50/p95_ms: on the live monitoring chart (4 line series, each a
  250,000-point FIFO window, 50 appends a second each over HTTP, 1600x900), how old
  the newest data is when the page paints it: paint time minus the time that data
  reached the server (the frame header's data time). Same machine, same clock.
- live_page_bytes_per_s: frame bytes the page received per second; live_page_draws_per_s,
  and live_page_renderer_cpu_pct / _browser_cpu_pct: the CPU of the page's renderer
  process, and of its whole Chromium process tree, over the window (% of a core).
- gesture_to_paint_p50/p95_ms_1e7: on a one-series chart of 10^7 points, from a wheel
  zoom or drag event in the page to the paint of the frame answering it, the first
  gesture in a fresh page included; zoom_ and pan_to_paint: the wheels and the drags
  of those apart; drag_step_to_paint: the steps of a continuous drag, each move sent
  as soon as the frame answering the one before is drawn (20 a page). "Paint" is the
  end of the page's drawing; zoom_ and pan_to_commit run on to the end of the browser
  frame that carries it (its next animation frame, then its canvases rasterized and
  handed to the compositor: a task queued from that animation frame). Each page's
  pointer comes over the chart (a move, then 0.3 s) before its first gesture, as a
  hand's does before it wheels or drags; the page readies its direct canvases then
  (web/client.js). first_zoom_unhovered_to_paint: a fresh page's first wheel with no
  pointer over the chart before it (a wheel injected there out of nowhere), 2 samples.
- first_draw_ms: navigation start to the first painted frame, on the demo.
- --only pages [--pages N]: N viewers of the live monitoring chart at once, each its own
  headless Chromium (its own browser process and renderer, as N people on N machines
  would be, all on this box), history from `cwload ingest`, fed by `cwload feed` as
  chartbench feeds it (--feed python: the history and feed of --only live; --feed walk:
  that history under the same walk fed by cwload): one row per page
  (draws/s, frames/s, newest-point age p50/p95, its Chromium process tree's CPU, and its
  series frames drawn whole a second, not shifted by scrollDraw), the
  worst and median page, the server's CPU; beside the same with 1 page, measured first
  in the same run on the same server and feed. The last line: issue 28's goal met or not.

Not a test: a table of figures for docs/bench.md and the issue notes.
"""
import argparse
import copy
import http.client
import json
import os
import pathlib
import random
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
from conftest import Server  # noqa: E402
from test_browser import browser, wait_for  # noqa: E402  (the tests' Chromium, pointed at Debian's)
from selenium.webdriver.common.by import By  # noqa: E402


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round((len(s) - 1) * p)))]


def post(conn, path, body):
    conn.request("POST", path, body=body)
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError(f"{path}: {r.status} {data[:200]!r}")


def json_points(xs, ys):
    return json.dumps({"x": xs, "y": ys}, separators=(",", ":")).encode()


MONITOR = {"sessions": [{"id": "monitor", "title": "Monitor", "chart": {
    "title": "Monitor",
    "xAxes": [{"id": "t", "alignment": "bottom", "title": "Time (s)", "mode": "extents"}],
    "yAxes": [{"id": "v", "alignment": "left", "title": "Value", "mode": "visible"}],
    "series": [{"id": f"s{i}", "name": f"Signal {i}", "capacity": 250000} for i in range(4)],
    "legend": {"position": "topLeft"}}}]}


def monitor_spec(follow=0):
    """MONITOR, its x axis following the newest `follow` seconds (a scrolling window)
    when that is not 0, as `page_profile.py --follow` and `client_ab.py --follow` ask."""
    spec = copy.deepcopy(MONITOR)
    if follow:
        spec["sessions"][0]["chart"]["xAxes"][0].update({"mode": "follow", "window": follow})
    return spec


BIG = {"sessions": [{"id": "big", "title": "10^7 points", "chart": {
    "xAxes": [{"id": "x", "alignment": "bottom", "mode": "extents"}],
    "yAxes": [{"id": "y", "alignment": "left", "mode": "visible"}],
    "series": [{"id": "s", "name": "Walk"}],
    "modifiers": [{"type": "zoomPan", "direction": "x"}, {"type": "mouseWheelZoom", "direction": "x"},
                  {"type": "zoomExtents"}]}}]}


# Server options every run adds (`--limit NAME=VALUE` of this script: the server's own).
SERVER_ARGS = []


def start(spec, tmp):
    path = tmp / (spec["sessions"][0]["id"] + ".json")
    path.write_text(json.dumps(spec))
    os.environ.setdefault("CHARTWIRE_BIN", str(ROOT / ".build" / "release" / "wsserver"))
    return Server("--config", str(path), *SERVER_ARGS).start()


def live(seconds, tmp, rows):
    server = start(MONITOR, tmp)
    try:
        python_history(server)
        feeder = python_feed(server.port)
        d = browser(1600, 900 + 40)
        try:
            d.get(f"{server.http}/s/monitor")
            wait_for(d, "return window.chartwire && window.chartwire.draws > 0")
            time.sleep(2)
            d.execute_script("window.chartwire.drawLog.length = 0; window.__b0 = window.chartwire.bytes;"
                             "window.__d0 = window.chartwire.draws; window.__t0 = performance.now();")
            pid = d.service.process.pid
            r0, b0, t0 = tree_cpu_seconds(pid, "renderer"), tree_cpu_seconds(pid), time.time()
            time.sleep(seconds)
            r1, b1, t1 = tree_cpu_seconds(pid, "renderer"), tree_cpu_seconds(pid), time.time()
            ages, got, ms, draws = d.execute_script(
                "return [window.chartwire.drawLog, window.chartwire.bytes - window.__b0, performance.now() - window.__t0,"
                " window.chartwire.draws - window.__d0]")
        finally:
            d.quit()
        feeder.stop()
        if feeder.error:
            raise RuntimeError(f"the feed failed: {feeder.error}")
        rows.append(("live_page_data_age_p50_ms", pct(ages, 0.5), "ms"))
        rows.append(("live_page_data_age_p95_ms", pct(ages, 0.95), "ms"))
        rows.append(("live_page_bytes_per_s", got / (ms / 1000), "B/s"))
        rows.append(("live_page_paints", len(ages), ""))
        rows.append(("live_page_draws_per_s", draws / (ms / 1000), "/s"))
        # CPU over the window, % of a core: the page's renderer process alone, and its
        # whole Chromium process tree (browser, GPU/compositor, utilities, chromedriver).
        rows.append(("live_page_renderer_cpu_pct", (r1 - r0) / (t1 - t0) * 100, "%"))
        rows.append(("live_page_browser_cpu_pct", (b1 - b0) / (t1 - t0) * 100, "%"))
    finally:
        server.stop()


def python_history(server):
    """The live chart's history as `--only live` fills it: each series' window (250,000
    points, x in seconds, 50 a second, ending now) a random walk of steps up to 0.5,
    which spans some hundreds: the walk `python_feed` goes on with stays inside it.
    Seeded, the same walks every run: how often a frame changes what a page shows
    follows the y range they span (from one page's 26 to 31 frames a second at 60
    publications, unseeded), and runs are compared by it."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    t0 = time.time() - 250000 / 50
    for i in range(4):
        rng = random.Random(28 + i)
        y, xs, ys = 0.0, [], []
        for k in range(250000):
            y += rng.uniform(-0.5, 0.5)
            xs.append(round(t0 + k / 50, 3)); ys.append(round(y, 4))
        for a in range(0, 250000, 50000):
            post(conn, f"/api/sessions/monitor/series/s{i}/append", json_points(xs[a:a + 50000], ys[a:a + 50000]))


def cwload(*args):
    """Runs bench's cwload (the release build beside the server binary) to its end."""
    exe = pathlib.Path(os.environ["CHARTWIRE_BIN"]).parent / "cwload"
    if not exe.exists():
        raise SystemExit(f"{exe} is missing: swift build -c release first")
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"cwload {args[0]} failed ({r.returncode}): {r.stderr.strip()[:400]}")
    return r.stdout


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid, kind=None):
    """CPU seconds of a process and all its descendants alive now (a page's chromedriver,
    its Chromium and that Chromium's renderer, GPU and utility processes); with `kind`
    ("renderer"), only the descendants started as that --type."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            if kind is None or f"--type={kind} ".encode() in pathlib.Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" "):
                total += cpu_seconds(p)
            for task in pathlib.Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def pages_run(server, count, seconds, warmup):
    """`count` pages of the live chart, each its own Chromium; their figures over `seconds`."""
    drivers = []
    try:
        for _ in range(count):
            d = browser(1600, 900 + 40)
            drivers.append(d)
            d.get(f"{server.http}/s/monitor")
        for d in drivers:
            wait_for(d, "return window.chartwire && window.chartwire.draws > 0", timeout=60, message="a page's first draw")
        time.sleep(warmup)
        for d in drivers:
            d.execute_script("const c = window.chartwire; c.drawLog.length = 0; window.__d0 = c.draws;"
                             "window.__f0 = c.frames; window.__t0 = performance.now();"
                             "window.__w0 = (c.layerDraws.series || 0) - c.scrollDraws;")
        b0 = [tree_cpu_seconds(d.service.process.pid) for d in drivers]
        m0 = server_counters(server)
        c0, t0, l0 = cpu_seconds(server.proc.pid), time.time(), os.getloadavg()[0]
        time.sleep(seconds)
        cpu = (cpu_seconds(server.proc.pid) - c0) / (time.time() - t0) * 100
        b1 = [tree_cpu_seconds(d.service.process.pid) for d in drivers]
        elapsed = time.time() - t0
        rates = {k: (v - m0[k]) / elapsed for k, v in server_counters(server).items()}
        out = []
        for d, c0b, c1b in zip(drivers, b0, b1):
            ages, draws, frames, ms, whole = d.execute_script(
                "const c = window.chartwire; return [c.drawLog, c.draws - window.__d0, c.frames - window.__f0,"
                " performance.now() - window.__t0, (c.layerDraws.series || 0) - c.scrollDraws - window.__w0]")
            if draws == 0:
                raise RuntimeError("a page drew nothing in the measured window")
            out.append({"draws_per_s": draws / (ms / 1000), "frames_per_s": frames / (ms / 1000),
                        "whole_per_s": whole / (ms / 1000),
                        "age_p50": pct(ages, 0.5), "age_p95": pct(ages, 0.95),
                        "browser_cpu": (c1b - c0b) / elapsed * 100})
        return out, cpu, (l0, os.getloadavg()[0]), rates
    finally:
        for d in drivers:
            d.quit()


def server_counters(server):
    """The server's points ingested, publications, frames sent and frames superseded so
    far (its /metrics)."""
    text = urllib.request.urlopen(server.http + "/metrics", timeout=5).read().decode()
    out = {"points": 0.0, "publications": 0.0, "frames": 0.0, "superseded": 0.0}
    for line in text.splitlines():
        for key, name in (("points", "chartwire_points_ingested_total"), ("publications", "chartwire_publications_total"),
                          ("frames", "chartwire_frames_sent_total"), ("superseded", "chartwire_frames_superseded_total")):
            if line.startswith(name + " ") or line.startswith(name + "{"):
                out[key] += float(line.rsplit(" ", 1)[1])
    return out


class python_feed:
    """latency.py's live feed (4 series, 50 appends a second each, unbounded random walks)."""

    def __init__(self, port):
        self.port, self.error, self.halt = port, None, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port)
            walks, tick = [0.0] * 4, time.time()
            while not self.halt.is_set():
                now = time.time()
                for i in range(4):
                    walks[i] += random.uniform(-0.5, 0.5)
                    post(c, f"/api/sessions/monitor/series/s{i}/append", json_points([now], [walks[i]]))
                tick += 0.02
                time.sleep(max(0, tick - time.time()))
        except Exception as e:  # noqa: BLE001  (reported by the caller)
            self.error = repr(e)

    def stop(self):
        self.halt.set()
        self.thread.join(10)


def fill_monitor(server, feed_kind):
    """Fills the monitoring chart's four series with 250,000 points each and starts its
    live feed, for the caller to stop (`stop_feed`):
    - "cwload": `cwload ingest` (values within 1 of 0) and `cwload feed` (a bounded walk;
      a process, which raises if it ends at once);
    - "python": the history and the Python feed of `--only live` (a thread: an unbounded
      walk, which would outgrow cwload's history within seconds and rescale the chart
      every second or two);
    - "walk": that history, and the same walk fed by `cwload feed --jump 1 --revert 0`
      (a process in C, which keeps its pace on a box that ten Chromiums load, where the
      Python thread falls behind and then sends in bursts)."""
    if feed_kind == "python":
        python_history(server)
        return python_feed(server.port)
    port = str(server.port)
    walk = []
    if feed_kind == "walk":
        python_history(server)
        walk = ["--jump", "1", "--revert", "0"]
    else:
        start_x = time.time() - 250000 / 50
        for i in range(4):
            cwload("ingest", "--port", port, "--session", "monitor", "--series", f"s{i}", "--points", "250000",
                   "--batch", "50000", "--binary", "--start", str(start_x), "--step", "0.02")
    exe = pathlib.Path(os.environ["CHARTWIRE_BIN"]).parent / "cwload"
    feed = subprocess.Popen([str(exe), "feed", "--port", port, "--session", "monitor", "--series", "s0,s1,s2,s3",
                             "--rate", "50", "--duration", "3600", *walk], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(1)
    if feed.poll() is not None:
        raise RuntimeError(f"cwload feed ended early: {feed.stderr.read()[:400]}")
    return feed


def stop_feed(feed):
    """Stops what `fill_monitor` started (nothing when it is None)."""
    if isinstance(feed, subprocess.Popen):
        if feed.poll() is None:
            feed.terminate()
            feed.wait(10)
    elif feed:
        feed.stop()


def pages(count, seconds, warmup, feed_kind, tmp):
    """Prints the table of the ten-pages benchmark (issue 28): 1 page, then `count`."""
    server = start(MONITOR, tmp)
    feed = None
    try:
        # The feed runs through both phases; it is stopped when they end.
        feed = fill_monitor(server, feed_kind)
        phases = []
        for n in (1, count):
            rows, cpu, load, rates = pages_run(server, n, seconds, warmup)
            if feed_kind != "python" and feed.poll() is not None:
                raise RuntimeError(f"cwload feed ended during the run: {feed.stderr.read()[:400]}")
            if feed_kind == "python" and feed.error:
                raise RuntimeError(f"the Python feed failed: {feed.error}")
            phases.append((n, rows, cpu, load, rates))
    finally:
        stop_feed(feed)
        server.stop()
    print(f"feed: {feed_kind}; {seconds:g} s measured after {warmup:g} s of warm-up; each page its own headless Chromium")
    print(f"{'pages':>5} {'page':>6} {'draws/s':>8} {'frames/s':>9} {'age p50 ms':>11} {'age p95 ms':>11} {'browser CPU %':>14} {'whole/s':>8}")
    print("-" * 80)
    for n, rows, cpu, load, rates in phases:
        for k, r in enumerate(rows):
            print(f"{n:>5} {k + 1:>6} {r['draws_per_s']:>8.1f} {r['frames_per_s']:>9.1f} {r['age_p50']:>11.1f} {r['age_p95']:>11.1f} {r['browser_cpu']:>14.1f} {r['whole_per_s']:>8.1f}")
        if n > 1:
            # worst: the fewest draws and frames, the oldest ages; median: of the pages.
            med = lambda key: pct([r[key] for r in rows], 0.5)  # noqa: E731
            print(f"{n:>5} {'worst':>6} {min(r['draws_per_s'] for r in rows):>8.1f} {min(r['frames_per_s'] for r in rows):>9.1f}"
                  f" {max(r['age_p50'] for r in rows):>11.1f} {max(r['age_p95'] for r in rows):>11.1f} {max(r['browser_cpu'] for r in rows):>14.1f}")
            print(f"{n:>5} {'median':>6} {med('draws_per_s'):>8.1f} {med('frames_per_s'):>9.1f} {med('age_p50'):>11.1f} {med('age_p95'):>11.1f} {med('browser_cpu'):>14.1f}")
            print(f"{n:>5} browsers' CPU in all {sum(r['browser_cpu'] for r in rows):.1f} % of a core")
        print(f"{n:>5} server CPU {cpu:.1f} % of a core; load average {load[0]:.2f} at the start, {load[1]:.2f} at the end")
        # (What the chart gave the pages to draw: a page draws at most one frame a
        # publication, and a publication follows the points fed; a frame superseded is
        # one a page was owed and never sent, a later publication changing it first.)
        print(f"{n:>5} fed {rates['points']:.0f} points a second; {rates['publications']:.1f} publications a second;"
              f" {rates['frames'] / n:.1f} frames sent and {rates['superseded'] / n:.1f} superseded a second a page")
    n, rows, _, _, _ = phases[-1]
    ok = all(r["draws_per_s"] >= 28 and r["age_p95"] <= 50 for r in rows)
    print(f"goal (each of {n} pages >= 28 draws/s, newest point <= 50 ms behind at p95): {'met' if ok else 'not met'}")


def mouse(d, kind, x, y, **fields):
    d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **fields})



def plot_centre(d):
    """Waits for the page's first draw; the middle of its chart, in page coordinates
    (of the modifier canvas, the one that takes input and covers the whole chart: the
    other layers' canvases cover only what they draw)."""
    wait_for(d, "return window.chartwire && window.chartwire.draws > 0")
    canvas = d.find_element(By.CSS_SELECTOR, "canvas[data-layer=modifier]")
    return d.execute_script("const r = arguments[0].getBoundingClientRect(); "
                            "return [r.left + r.width / 2, r.top + r.height / 2]", canvas)


def hover(d, at):
    """The pointer comes over the chart at `at` and rests there a moment, as a hand's
    does before its first gesture."""
    mouse(d, "mouseMoved", *at)
    time.sleep(0.3)


def gesture(d, x, y, wheel):
    """One measured gesture at (x, y): a wheel turn zooming in, or a 40 px drag left."""
    if wheel:
        mouse(d, "mouseWheel", x, y, deltaX=0, deltaY=-120)
    else:
        mouse(d, "mouseMoved", x, y)
        mouse(d, "mousePressed", x, y, button="left", buttons=1, clickCount=1)
        mouse(d, "mouseMoved", x - 40, y, button="left", buttons=1)
        mouse(d, "mouseReleased", x - 40, y, button="left", buttons=0, clickCount=1)

def fill_walk(server, n):
    """The `BIG` chart's line: n points of a random walk at x = 0, 1, 2, ..., appended
    as JSON in batches of 500,000."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    y, batch = 0.0, 500_000
    for a in range(0, n, batch):
        xs = list(range(a, min(n, a + batch)))
        ys = []
        for _ in xs:
            y += random.uniform(-1, 1)
            ys.append(round(y, 2))
        post(conn, "/api/sessions/big/series/s/append", json_points(xs, ys))


def gestures(count, first, tmp, rows):
    server = start(BIG, tmp)
    try:
        fill_walk(server, 10_000_000)
        lat, arrival, delay = [], [], []
        zoom, pan, drag_steps = [], [], []
        zoom_commit, pan_commit = [], []
        zoom_delay, zoom_arrival = [], []
        for page in range(max(1, count // 10)):
            d = browser(1600, 940)
            try:
                d.get(f"{server.http}/s/big")
                box = plot_centre(d)
                hover(d, box)
                for g in range(10):
                    before = d.execute_script("return window.chartwire.inputLog.length")
                    # Input goes in through the DevTools protocol, as the browser receives
                    # a device's events (WebDriver actions carry timestamps taken in the
                    # driver, before its own round trips, and add a zero-delta wheel).
                    x, y = box[0] + random.randint(-200, 200), box[1]
                    gesture(d, x, y, wheel=g % 2 == 0)
                    wait_for(d, f"return window.chartwire.inputLog.length > {before}", timeout=10, message="the frame answering a gesture")
                    # Long enough for a wheel's zoom animation to end: a drag made while it
                    # runs can be overtaken by it and left without a frame of its own.
                    time.sleep(0.5)
                # A continuous drag: each move goes as soon as the frame answering the
                # one before it is drawn (a hand dragging steadily), 20 steps a page.
                # From the middle of the data: the flings of the drags before may have
                # glided the view to an end of the data, where the pan (to larger x)
                # is clipped and answers with no frame. A double click shows it all,
                # three wheel turns at the centre zoom in about it.
                mouse(d, "mousePressed", *box, button="left", buttons=1, clickCount=1)
                mouse(d, "mouseReleased", *box, button="left", buttons=0, clickCount=1)
                mouse(d, "mousePressed", *box, button="left", buttons=1, clickCount=2)
                mouse(d, "mouseReleased", *box, button="left", buttons=0, clickCount=2)
                time.sleep(0.5)
                for _ in range(3):
                    mouse(d, "mouseWheel", *box, deltaX=0, deltaY=-120)
                    time.sleep(0.5)
                x, y = box[0] + 200, box[1]
                mouse(d, "mouseMoved", x, y)
                mouse(d, "mousePressed", x, y, button="left", buttons=1, clickCount=1)
                steps_from = d.execute_script("return window.chartwire.inputLog.length")
                for k in range(20):
                    before = d.execute_script("return window.chartwire.inputLog.length")
                    x -= 10
                    mouse(d, "mouseMoved", x, y, button="left", buttons=1)
                    wait_for(d, f"return window.chartwire.inputLog.length > {before}", timeout=10, message="the frame answering a drag step")
                mouse(d, "mouseReleased", x, y, button="left", buttons=0, clickCount=1)
                drag_steps += d.execute_script(f"return window.chartwire.inputLog.slice({steps_from})")
                logs = d.execute_script("const c = window.chartwire; return [c.inputLog.slice(0, 10), c.inputArrivalLog.slice(0, 10), c.inputDelayLog.slice(0, 10), c.drawMsLog, (c.inputCommitLog || []).slice(0, 10)]")
                print("draw_ms", [round(v, 1) for v in logs[3]], file=sys.stderr)
                # One entry a gesture, in order: wheels at even places, drags at odd.
                zoom += logs[0][0::2]
                pan += logs[0][1::2]
                zoom_commit += logs[4][0::2]
                pan_commit += logs[4][1::2]
                zoom_delay += logs[2][0::2]
                zoom_arrival += logs[1][0::2]
                lat += logs[0]
                arrival += logs[1]
                delay += logs[2]
            finally:
                d.quit()
        # The first gesture of a fresh page, one sample a fresh page (a new Chromium each):
        # wheels and drags alternating, each the page's first input after its first draw.
        first_zoom, first_pan, first_bare = [], [], []
        for k in range(first + (2 if first else 0)):
            bare = k >= first   # the last two: wheels with no pointer over the chart before
            d = browser(1600, 940)
            try:
                d.get(f"{server.http}/s/big")
                box = plot_centre(d)
                x, y = box[0] + random.randint(-200, 200), box[1]
                if not bare:
                    hover(d, (x, y))
                gesture(d, x, y, wheel=bare or k % 2 == 0)
                wait_for(d, "return window.chartwire.inputLog.length > 0", timeout=10, message="the frame answering a fresh page's first gesture")
                got = d.execute_script("const c = window.chartwire; return [c.inputLog[0], c.inputArrivalLog[0], c.inputDelayLog[0]]")
                kind = "bare wheel" if bare else "wheel" if k % 2 == 0 else "drag"
                print(f"first {kind}: dispatch {got[2]:.1f}, arrival {got[1]:.1f}, paint {got[0]:.1f} ms", file=sys.stderr)
                (first_bare if bare else first_zoom if k % 2 == 0 else first_pan).append(got[0])
            finally:
                d.quit()
        rows.append(("gesture_to_paint_p50_ms_1e7", pct(lat, 0.5), "ms"))
        rows.append(("gesture_to_paint_p95_ms_1e7", pct(lat, 0.95), "ms"))
        rows.append(("gestures_measured", len(lat), ""))
        rows.append(("zoom_to_paint_p50_ms", pct(zoom, 0.5), "ms"))
        rows.append(("zoom_to_paint_p95_ms", pct(zoom, 0.95), "ms"))
        rows.append(("pan_to_paint_p50_ms", pct(pan, 0.5), "ms"))
        rows.append(("pan_to_paint_p95_ms", pct(pan, 0.95), "ms"))
        # To the end of the browser's frame that carries the drawing (its canvases
        # rasterized and handed to the compositor): what the figures above leave out.
        rows.append(("zoom_to_commit_p50_ms", pct(zoom_commit, 0.5), "ms"))
        rows.append(("zoom_to_commit_p95_ms", pct(zoom_commit, 0.95), "ms"))
        rows.append(("pan_to_commit_p50_ms", pct(pan_commit, 0.5), "ms"))
        rows.append(("pan_to_commit_p95_ms", pct(pan_commit, 0.95), "ms"))
        # Where that time goes: the browser handing the event to the page, and the
        # frame answering it arriving (the rest is drawing it).
        rows.append(("drag_step_to_paint_p50_ms", pct(drag_steps, 0.5), "ms"))
        rows.append(("drag_step_to_paint_p95_ms", pct(drag_steps, 0.95), "ms"))
        rows.append(("drag_steps_measured", len(drag_steps), ""))
        if first:
            rows.append(("first_zoom_to_paint_p50_ms", pct(first_zoom, 0.5), "ms"))
            rows.append(("first_zoom_to_paint_max_ms", max(first_zoom), "ms"))
            rows.append(("first_pan_to_paint_p50_ms", pct(first_pan, 0.5), "ms"))
            rows.append(("first_pan_to_paint_max_ms", max(first_pan) if first_pan else float("nan"), "ms"))
            rows.append(("first_gestures_measured", len(first_zoom) + len(first_pan), ""))
            rows.append(("first_zoom_unhovered_to_paint_p50_ms", pct(first_bare, 0.5), "ms"))
            rows.append(("first_zoom_unhovered_to_paint_max_ms", max(first_bare), "ms"))
        rows.append(("gesture_dispatch_p50_ms", pct(delay, 0.5), "ms"))
        rows.append(("gesture_dispatch_p95_ms", pct(delay, 0.95), "ms"))
        rows.append(("gesture_to_frame_arrival_p50_ms", pct(arrival, 0.5), "ms"))
        rows.append(("gesture_to_frame_arrival_p95_ms", pct(arrival, 0.95), "ms"))
        # The same for the wheels alone (the zoom's share of each).
        rows.append(("zoom_dispatch_p50_ms", pct(zoom_delay, 0.5), "ms"))
        rows.append(("zoom_to_frame_arrival_p50_ms", pct(zoom_arrival, 0.5), "ms"))
        print("zoom (dispatch, arrival, paint)", [(round(a, 1), round(b, 1), round(c, 1)) for a, b, c in zip(zoom_delay, zoom_arrival, zoom)], file=sys.stderr)
        print("gesture_to_paint_ms", [round(v, 1) for v in lat], file=sys.stderr)
    finally:
        server.stop()


def first_draw(tmp, rows):
    server = Server().start()
    try:
        times, sizes = [], []
        for _ in range(5):
            d = browser(1280, 760)
            try:
                d.get(f"{server.http}/s/demo")
                t = wait_for(d, "return window.chartwire && window.chartwire.firstDrawAt")
                times.append(t)
                sizes.append(d.execute_script(
                    "return performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
                    ".reduce((s, e) => s + (e.transferSize || 0), 0)"))
            finally:
                d.quit()
        rows.append(("first_draw_ms_median", pct(times, 0.5), "ms"))
        rows.append(("bytes_before_first_draw", pct(sizes, 0.5), "B"))
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, help="measured window (default 10; 20 with --only pages)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["first", "live", "gestures", "pages"], help="run one part (pages only when named)")
    ap.add_argument("--first", type=int, default=10, help="fresh pages, one first gesture each (default 10; 4 with --quick)")
    ap.add_argument("--pages", type=int, default=10, help="with --only pages: how many pages (default 10)")
    ap.add_argument("--feed", choices=["cwload", "python", "walk"], default="cwload",
                    help="with --only pages: cwload feed (as chartbench, default), the history and feed of --only live"
                         " (python), or that history under the same walk fed by cwload (walk)")
    ap.add_argument("--warmup", type=float, default=5, help="with --only pages: seconds before the measured window")
    ap.add_argument("--gestures", type=int, help="gestures to measure (10 a fresh page; default 30, 10 with --quick)")
    ap.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                    help="a server limit (wsserver --limit, docs/limits.md), for a run beside the defaults; repeatable")
    args = ap.parse_args()
    for limit in args.limit:
        SERVER_ARGS.extend(["--limit", limit])
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "chartwire-browser-bench"
    tmp.mkdir(exist_ok=True)
    rows = []
    if args.only == "pages":
        os.environ.setdefault("CHARTWIRE_BIN", str(ROOT / ".build" / "release" / "wsserver"))
        pages(args.pages, args.seconds or 20, args.warmup, args.feed, tmp)
        return
    if args.only in (None, "first"):
        first_draw(tmp, rows)
    if args.only in (None, "live"):
        live(3 if args.quick else (args.seconds or 10), tmp, rows)
    if args.only in (None, "gestures"):
        gestures(args.gestures or (10 if args.quick else 30), 4 if args.quick else args.first, tmp, rows)
    print(f"{'figure':36} {'value':>12}")
    print("-" * 50)
    for name, v, unit in rows:
        print(f"{name:36} {v:>9.1f} {unit}")


if __name__ == "__main__":
    main()

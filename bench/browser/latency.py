#!/usr/bin/env python3
"""Browser benchmark: what a person feels, measured in the page (headless Chromium).

  python3 bench/browser/latency.py [--seconds 10] [--quick] [--only first|live|gestures] [--gestures N]

Starts its own wsserver (release build: `swift build -c release` first) and prints:

- live_page_data_age_p50/p95_ms: on the live monitoring chart (4 line series, each a
  250,000-point FIFO window, 50 appends a second each over HTTP, 1600x900), how old
  the newest data is when the page paints it: paint time minus the time that data
  reached the server (the frame header's data time). Same machine, same clock.
- live_page_bytes_per_s: frame bytes the page received per second.
- gesture_to_paint_p50/p95_ms_1e7: on a one-series chart of 10^7 points, from a wheel
  zoom or drag event in the page to the paint of the frame answering it, the first
  gesture in a fresh page included; zoom_ and pan_to_paint: the wheels and the drags
  of those apart; drag_step_to_paint: the steps of a continuous drag, each move sent
  as soon as the frame answering the one before is drawn (20 a page).
- first_draw_ms: navigation start to the first painted frame, on the demo.

Not a test: a table of figures for docs/bench.md and the issue notes.
"""
import argparse
import http.client
import json
import os
import pathlib
import random
import sys
import threading
import time

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

BIG = {"sessions": [{"id": "big", "title": "10^7 points", "chart": {
    "xAxes": [{"id": "x", "alignment": "bottom", "mode": "extents"}],
    "yAxes": [{"id": "y", "alignment": "left", "mode": "visible"}],
    "series": [{"id": "s", "name": "Walk"}],
    "modifiers": [{"type": "zoomPan", "direction": "x"}, {"type": "mouseWheelZoom", "direction": "x"},
                  {"type": "zoomExtents"}]}}]}


def start(spec, tmp):
    path = tmp / (spec["sessions"][0]["id"] + ".json")
    path.write_text(json.dumps(spec))
    os.environ.setdefault("CHARTWIRE_BIN", str(ROOT / ".build" / "release" / "wsserver"))
    return Server("--config", str(path)).start()


def live(seconds, tmp, rows):
    server = start(MONITOR, tmp)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        # History: each series' window filled (x in seconds, 50 points a second).
        t0 = time.time() - 250000 / 50
        for i in range(4):
            y, xs, ys = 0.0, [], []
            for k in range(250000):
                y += random.uniform(-0.5, 0.5)
                xs.append(round(t0 + k / 50, 3)); ys.append(round(y, 4))
            for a in range(0, 250000, 50000):
                post(conn, f"/api/sessions/monitor/series/s{i}/append", json_points(xs[a:a + 50000], ys[a:a + 50000]))
        stop = threading.Event()
        walks = [0.0] * 4

        def feed():
            c = http.client.HTTPConnection("127.0.0.1", server.port)
            tick = time.time()
            while not stop.is_set():
                now = time.time()
                for i in range(4):
                    walks[i] += random.uniform(-0.5, 0.5)
                    post(c, f"/api/sessions/monitor/series/s{i}/append", json_points([now], [walks[i]]))
                tick += 0.02
                time.sleep(max(0, tick - time.time()))

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        d = browser(1600, 900 + 40)
        try:
            d.get(f"{server.http}/s/monitor")
            wait_for(d, "return window.chartwire && window.chartwire.draws > 0")
            time.sleep(2)
            d.execute_script("window.chartwire.drawLog.length = 0; window.__b0 = window.chartwire.bytes;"
                             "window.__t0 = performance.now();")
            time.sleep(seconds)
            ages, got, ms = d.execute_script(
                "return [window.chartwire.drawLog, window.chartwire.bytes - window.__b0, performance.now() - window.__t0]")
        finally:
            d.quit()
        stop.set()
        feeder.join()
        rows.append(("live_page_data_age_p50_ms", pct(ages, 0.5), "ms"))
        rows.append(("live_page_data_age_p95_ms", pct(ages, 0.95), "ms"))
        rows.append(("live_page_bytes_per_s", got / (ms / 1000), "B/s"))
        rows.append(("live_page_paints", len(ages), ""))
    finally:
        server.stop()


def mouse(d, kind, x, y, **fields):
    d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **fields})


def gestures(count, tmp, rows):
    server = start(BIG, tmp)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        y, n, batch = 0.0, 10_000_000, 500_000
        for a in range(0, n, batch):
            xs = list(range(a, a + batch))
            ys = []
            for _ in range(batch):
                y += random.uniform(-1, 1)
                ys.append(round(y, 2))
            post(conn, "/api/sessions/big/series/s/append", json_points(xs, ys))
        lat, arrival, delay = [], [], []
        zoom, pan, drag_steps = [], [], []
        for page in range(max(1, count // 10)):
            d = browser(1600, 940)
            try:
                d.get(f"{server.http}/s/big")
                wait_for(d, "return window.chartwire && window.chartwire.draws > 0")
                canvas = d.find_element(By.CSS_SELECTOR, "canvas[data-layer=overlay]")
                box = d.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                       "return [r.left + r.width / 2, r.top + r.height / 2]", canvas)
                for g in range(10):
                    before = d.execute_script("return window.chartwire.inputLog.length")
                    # Input goes in through the DevTools protocol, as the browser receives
                    # a device's events (WebDriver actions carry timestamps taken in the
                    # driver, before its own round trips, and add a zero-delta wheel).
                    x, y = box[0] + random.randint(-200, 200), box[1]
                    if g % 2 == 0:
                        mouse(d, "mouseWheel", x, y, deltaX=0, deltaY=-120)
                    else:
                        mouse(d, "mouseMoved", x, y)
                        mouse(d, "mousePressed", x, y, button="left", buttons=1, clickCount=1)
                        mouse(d, "mouseMoved", x - 40, y, button="left", buttons=1)
                        mouse(d, "mouseReleased", x - 40, y, button="left", buttons=0, clickCount=1)
                    wait_for(d, f"return window.chartwire.inputLog.length > {before}", timeout=10, message="the frame answering a gesture")
                    # Long enough for a wheel's zoom animation to end: a drag made while it
                    # runs can be overtaken by it and left without a frame of its own.
                    time.sleep(0.5)
                # A continuous drag: each move goes as soon as the frame answering the
                # one before it is drawn (a hand dragging steadily), 20 steps a page.
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
                logs = d.execute_script("const c = window.chartwire; return [c.inputLog.slice(0, 10), c.inputArrivalLog.slice(0, 10), c.inputDelayLog.slice(0, 10), c.drawMsLog]")
                print("draw_ms", [round(v, 1) for v in logs[3]], file=sys.stderr)
                # One entry a gesture, in order: wheels at even places, drags at odd.
                zoom += logs[0][0::2]
                pan += logs[0][1::2]
                lat += logs[0]
                arrival += logs[1]
                delay += logs[2]
            finally:
                d.quit()
        rows.append(("gesture_to_paint_p50_ms_1e7", pct(lat, 0.5), "ms"))
        rows.append(("gesture_to_paint_p95_ms_1e7", pct(lat, 0.95), "ms"))
        rows.append(("gestures_measured", len(lat), ""))
        rows.append(("zoom_to_paint_p50_ms", pct(zoom, 0.5), "ms"))
        rows.append(("zoom_to_paint_p95_ms", pct(zoom, 0.95), "ms"))
        rows.append(("pan_to_paint_p50_ms", pct(pan, 0.5), "ms"))
        rows.append(("pan_to_paint_p95_ms", pct(pan, 0.95), "ms"))
        # Where that time goes: the browser handing the event to the page, and the
        # frame answering it arriving (the rest is drawing it).
        rows.append(("drag_step_to_paint_p50_ms", pct(drag_steps, 0.5), "ms"))
        rows.append(("drag_step_to_paint_p95_ms", pct(drag_steps, 0.95), "ms"))
        rows.append(("drag_steps_measured", len(drag_steps), ""))
        rows.append(("gesture_dispatch_p50_ms", pct(delay, 0.5), "ms"))
        rows.append(("gesture_dispatch_p95_ms", pct(delay, 0.95), "ms"))
        rows.append(("gesture_to_frame_arrival_p50_ms", pct(arrival, 0.5), "ms"))
        rows.append(("gesture_to_frame_arrival_p95_ms", pct(arrival, 0.95), "ms"))
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
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["first", "live", "gestures"], help="run one part")
    ap.add_argument("--gestures", type=int, help="gestures to measure (10 a fresh page; default 30, 10 with --quick)")
    args = ap.parse_args()
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "chartwire-browser-bench"
    tmp.mkdir(exist_ok=True)
    rows = []
    if args.only in (None, "first"):
        first_draw(tmp, rows)
    if args.only in (None, "live"):
        live(3 if args.quick else args.seconds, tmp, rows)
    if args.only in (None, "gestures"):
        gestures(args.gestures or (10 if args.quick else 30), tmp, rows)
    print(f"{'figure':36} {'value':>12}")
    print("-" * 50)
    for name, v, unit in rows:
        print(f"{name:36} {v:>9.1f} {unit}")


if __name__ == "__main__":
    main()

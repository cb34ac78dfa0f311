#!/usr/bin/env python3
"""How long headless Chromium takes to hand an input event to a page, with no chart.

  python3 bench/browser/input_dispatch.py [--count N]

A bare page (one canvas, served from a temporary folder on loopback, so a secure
context) logs, for each `pointerrawupdate`, `pointermove` and `wheel` event, the time
from the event's time stamp to its handler. Drags and wheel turns go in through the
DevTools protocol, as in latency.py, N of each (default 20), on the page idle and on the
page while it runs an animation frame loop (as a page drawing frames does). Prints
p50 / p95 / max per event and page state.

What it shows (docs/bench.md, "Input first, in the page"): a move reaches the page
within a millisecond as `pointerrawupdate`, while `pointermove` and `wheel` wait for
the page's next animation frame, and longer while the page is drawing. The client takes
its moves from `pointerrawupdate`; a wheel has no such event. Not a test.
"""
import argparse
import functools
import http.server
import pathlib
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
from test_browser import browser  # noqa: E402

PAGE = """<!doctype html><html><body style="margin:0">
<canvas id="c" width="800" height="600" style="width:800px;height:600px"></canvas>
<script>
window.log = [];
const c = document.getElementById("c");
for (const type of ["pointerrawupdate", "pointermove", "wheel"])
  c.addEventListener(type, (ev) => {
    if (type === "wheel") ev.preventDefault();
    log.push([type, performance.now() - ev.timeStamp]);
  }, { passive: false });
window.animate = () => { const loop = () => requestAnimationFrame(loop); loop(); };
</script></body></html>"""


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round((len(s) - 1) * p)))] if s else float("nan")


def run(url, count, animate):
    d = browser(900, 700)
    try:
        d.get(url)
        time.sleep(0.5)
        if animate:
            d.execute_script("window.animate()")
        mouse = lambda kind, x, y, **f: d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **f})  # noqa: E731
        for _ in range(count):
            mouse("mouseMoved", 400, 300)
            mouse("mousePressed", 400, 300, button="left", buttons=1, clickCount=1)
            mouse("mouseMoved", 360, 300, button="left", buttons=1)
            mouse("mouseReleased", 360, 300, button="left", buttons=0, clickCount=1)
            time.sleep(0.2)
            mouse("mouseWheel", 400, 300, deltaX=0, deltaY=-120)
            time.sleep(0.2)
        rows = {}
        for kind, ms in d.execute_script("return window.log"):
            rows.setdefault(kind, []).append(ms)
        return rows
    finally:
        d.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20, help="drags and wheel turns of each page state (default 20)")
    args = ap.parse_args()
    folder = pathlib.Path(tempfile.mkdtemp())
    (folder / "index.html").write_text(PAGE)
    handler = functools.partial(type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None}),
                                directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    print(f"{'page':10} {'event':18} {'events':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")
    print("-" * 60)
    try:
        for animate in (False, True):
            rows = run(url, args.count, animate)
            for kind in ("pointerrawupdate", "pointermove", "wheel"):
                v = rows.get(kind, [])
                print(f"{'animating' if animate else 'idle':10} {kind:18} {len(v):>6} {pct(v, 0.5):>7.1f} {pct(v, 0.95):>7.1f} {max(v, default=float('nan')):>7.1f}")
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()

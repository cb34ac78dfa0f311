#!/usr/bin/env python3
"""What N pages that draw a live chart's strip cost this box, with no ChartWire in them.

  python3 bench/browser/pages_floor.py [--pages N] [--rate FPS] [--seconds S] [--warmup S]

The floor under `latency.py --only pages`: each page is its own headless Chromium
(1600x940, as there), holding a 1600x762 background canvas drawn once and, over its
plot, one low-latency ("desynchronized") 2D canvas 256 px wide: the tile that takes
the live chart's newest end (web/client.js, "tiles"). `--rate` times a second the page
draws four 1.5 px random-walk lines into a 40 px strip at the tile's right edge. That
is less than the chart's page does for a frame: no WebSocket message, no decoding, no
patch, no acknowledgement. The frames are due at fixed times, as a feed's are; a frame
that comes due while the one before is late is dropped, as a server coalesces frames
for a page that has not drawn the last (so a loaded page draws fewer, later frames).

Prints, for 1 page and then for N at once: each page's frames drawn a second, how late
it drew them (the drawing's end minus its due time, p50 and p95, ms), and its Chromium
process tree's CPU (% of a core); the worst and median page; and whether every page
drew >= 28 frames a second at most 50 ms late (p95), issue 28's goal for the chart.
Not a test: a floor for docs/bench.md (issue 28).
"""
import argparse
import statistics
import sys
import pathlib
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from latency import browser, pct, tree_cpu_seconds, wait_for  # noqa: E402
from canvas_probe import STRIP_JS, serve_page  # noqa: E402

PAGE = """<!doctype html><html><body style="margin:0;background:#fff">
<canvas id="bg" width="1600" height="762" style="position:absolute;left:0;top:0"></canvas>
<canvas id="t" width="256" height="672" style="position:absolute;left:1323px;top:20px"></canvas>
<script>
const RATE = ${RATE};
const bg = document.getElementById("bg").getContext("2d");
bg.fillStyle = "#f4f4f4"; bg.fillRect(0, 0, 1600, 762);
bg.fillStyle = "#ccc";
for (let i = 0; i < 20; i++) bg.fillRect(80 + i * 75, 20, 1, 672);
const ctx = document.getElementById("t").getContext("2d", { desynchronized: true });
const W = 256, H = 672;
const probe = window.probe = { frames: 0, late: [] };
${STRIP}
const period = 1000 / RATE;
let due = performance.now() + period;
function tick() {
  const now = performance.now();
  // Frames that came due meanwhile are one frame now (the newest), as a server's are.
  while (due + period <= now) due += period;
  strip(ctx, W, H);
  probe.frames++;
  probe.late.push(performance.now() - due);
  if (probe.late.length > 5000) probe.late.shift();
  due += period;
  setTimeout(tick, Math.max(0, due - performance.now()));
}
setTimeout(tick, period);
</script></body></html>
"""


def run(url, count, seconds, warmup):
    drivers = []
    try:
        for _ in range(count):
            d = browser(1600, 940)
            drivers.append(d)
            d.get(url)
        for d in drivers:
            wait_for(d, "return window.probe && window.probe.frames > 0", timeout=60, message="a page's first frame")
        time.sleep(warmup)
        for d in drivers:
            d.execute_script("window.probe.late.length = 0; window.__f0 = window.probe.frames; window.__t0 = performance.now();")
        c0, t0 = [tree_cpu_seconds(d.service.process.pid) for d in drivers], time.time()
        time.sleep(seconds)
        c1, elapsed = [tree_cpu_seconds(d.service.process.pid) for d in drivers], time.time() - t0
        out = []
        for d, a, b in zip(drivers, c0, c1):
            late, frames, ms = d.execute_script(
                "return [window.probe.late, window.probe.frames - window.__f0, performance.now() - window.__t0]")
            out.append({"fps": frames / (ms / 1000), "late50": pct(late, 0.5), "late95": pct(late, 0.95),
                        "cpu": (b - a) / elapsed * 100})
        return out
    finally:
        for d in drivers:
            d.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=10)
    ap.add_argument("--rate", type=float, default=30, help="frames due a second (default 30)")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=5)
    args = ap.parse_args()
    url = serve_page(PAGE.replace("${RATE}", repr(args.rate)).replace("${STRIP}", STRIP_JS).encode())
    print(f"{args.rate:g} frames due a second; {args.seconds:g} s measured after {args.warmup:g} s; each page its own headless Chromium")
    print(f"{'pages':>5} {'page':>6} {'frames/s':>9} {'late p50 ms':>12} {'late p95 ms':>12} {'browser CPU %':>14}")
    print("-" * 64)
    rows = []
    for n in (1, args.pages):
        rows = run(url, n, args.seconds, args.warmup)
        for k, r in enumerate(rows):
            print(f"{n:>5} {k + 1:>6} {r['fps']:>9.1f} {r['late50']:>12.1f} {r['late95']:>12.1f} {r['cpu']:>14.1f}")
        if n > 1:
            print(f"{n:>5} {'worst':>6} {min(r['fps'] for r in rows):>9.1f} {max(r['late50'] for r in rows):>12.1f}"
                  f" {max(r['late95'] for r in rows):>12.1f} {max(r['cpu'] for r in rows):>14.1f}")
            med = lambda key: statistics.median(r[key] for r in rows)  # noqa: E731
            print(f"{n:>5} {'median':>6} {med('fps'):>9.1f} {med('late50'):>12.1f} {med('late95'):>12.1f} {med('cpu'):>14.1f}")
            print(f"{n:>5} browsers' CPU in all {sum(r['cpu'] for r in rows):.1f} % of a core")
    ok = all(r["fps"] >= 28 and r["late95"] <= 50 for r in rows)
    print(f"every one of {args.pages} pages >= 28 frames/s, at most 50 ms late at p95: {'yes' if ok else 'no'}")


if __name__ == "__main__":
    main()

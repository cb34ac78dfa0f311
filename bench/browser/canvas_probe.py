#!/usr/bin/env python3
"""What Chromium costs a frame for a canvas like the live chart's series layer, drawn
on the page's main thread or in a worker (an OffscreenCanvas), with no ChartWire in it.

  python3 bench/browser/canvas_probe.py [--seconds S] [--rounds N] [--rate FPS] [--ways W,...]

A page (served by this script) holds a 1600x762 background canvas, drawn once, and
over it a 1499x672 canvas that takes a frame `--rate` times a second: four 1.5 px
random-walk lines drawn into a 40 px strip at its right edge, as the live chart's
strips are. Four ways, in turn, each in a fresh headless Chromium (1600x940):

- main: the strip drawn by the page's main thread into its 2D canvas;
- worker: the same drawing in a dedicated worker, into the canvas's OffscreenCanvas
  (`transferControlToOffscreen`): its frames reach the compositor without the main
  thread's frame;
- main-shift, worker-shift: the same, after shifting the whole canvas left by one
  pixel (a self `drawImage`), as a scrolling chart's frame is;
- desync, desync-shift (`--ways`): the main thread's drawing into a 2D canvas made
  with `desynchronized: true` (a low-latency canvas, whose frames Chromium may send
  to the compositor without the page's own frame);
- scroll, pingpong (`--ways`): that shift made otherwise, on the main thread: a canvas
  twice the width moved by a CSS transform in a clipping box (its pixels copied back to
  its start once it runs out), or the shown canvas copied shifted into a second one,
  which is drawn on and shown instead.

Prints each way's CPU (% of a core) over the measured window, by process and thread
(page_profile.py's split), and the rounds' medians. Not a test: a probe for
docs/bench.md (issue 28).
"""
import argparse
import http.server
import pathlib
import statistics
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from page_profile import threads_cpu  # noqa: E402
from latency import browser  # noqa: E402

# Four 1.5 px random-walk lines, each going on from where it stopped, drawn into the
# 40 px strip of ctx's canvas that ends at x = right (cleared first), H px tall: a frame
# of the live chart's newest end (this probe's pages, and pages_floor.py's).
STRIP_JS = """
const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"], y = [300, 320, 340, 360];
function strip(ctx, right, H) {
  ctx.clearRect(right - 40, 0, 40, H);
  ctx.lineWidth = 1.5;
  for (let s = 0; s < 4; s++) {
    ctx.strokeStyle = colors[s];
    ctx.beginPath();
    let v = y[s];
    ctx.moveTo(right - 40, v);
    for (let x = right - 40; x <= right; x++) { v = Math.max(10, Math.min(H - 10, v + (Math.random() - 0.5) * 6)); ctx.lineTo(x, v); }
    y[s] = v;
    ctx.stroke();
  }
}
"""

PAGE = """<!doctype html><html><body style="margin:0;background:#fff">
<canvas id="bg" width="1600" height="762" style="position:absolute;left:0;top:0"></canvas>
<canvas id="s" width="1499" height="672" style="position:absolute;left:80px;top:20px"></canvas>
<script>
const [mode, shift] = location.hash.slice(1).split("-");
const bg = document.getElementById("bg").getContext("2d");
bg.fillStyle = "#f4f4f4"; bg.fillRect(0, 0, 1600, 762);
bg.fillStyle = "#ccc";
for (let i = 0; i < 20; i++) bg.fillRect(80 + i * 75, 20, 1, 672);
// (The strip's drawing as source: the worker's script takes it too.)
const strips = `${STRIP}`;
const code = strips + `
const SHIFT = ${shift === "shift"}, RATE = ${RATE}, DESYNC = ${mode === "desync"};
let ctx, W, H;
function frame() {
  if (SHIFT) {
    ctx.save(); ctx.globalCompositeOperation = "copy"; ctx.drawImage(ctx.canvas, -1, 0); ctx.restore();
  }
  strip(ctx, W, H);
}
function start(canvas) { ctx = canvas.getContext("2d", DESYNC ? { desynchronized: true } : undefined); W = canvas.width; H = canvas.height; setInterval(frame, 1000 / RATE); }
`;
if (mode === "scroll" || mode === "pingpong") {
  // The main thread, the shift made otherwise: "scroll" moves a canvas twice the width
  // inside a clipping box by a CSS transform (the compositor moves it; the pixels are
  // copied back to its start once it runs out); "pingpong" copies the shown canvas
  // shifted into a second one, draws there and shows that one instead.
  const W = 1499, H = 672, s = document.getElementById("s");
  const box = document.createElement("div");
  box.style.cssText = "position:absolute;left:80px;top:20px;width:1499px;height:672px;overflow:hidden";
  s.remove();
  document.body.appendChild(box);
  const cs = [0, 1].map(() => { const c = document.createElement("canvas"); c.width = mode === "scroll" ? 2 * W : W; c.height = H;
                                c.style.cssText = "position:absolute;left:0;top:0"; box.appendChild(c); return c; });
  let off = 0, shown = 0;
  cs[1].style.visibility = "hidden";
  (0, eval)(strips);
  setInterval(() => {
    if (mode === "scroll") {
      const c = cs[0], ctx = c.getContext("2d");
      off++;
      if (off + W > c.width) {
        ctx.save(); ctx.globalCompositeOperation = "copy"; ctx.drawImage(c, off, 0, W, H, 0, 0, W, H); ctx.restore();
        off = 0;
      }
      strip(ctx, off + W, H);
      c.style.transform = `translateX(${-off}px)`;
    } else {
      const from = cs[shown], to = cs[1 - shown], ctx = to.getContext("2d");
      ctx.save(); ctx.globalCompositeOperation = "copy"; ctx.drawImage(from, -1, 0); ctx.restore();
      strip(ctx, W, H);
      to.style.visibility = "visible"; from.style.visibility = "hidden";
      shown = 1 - shown;
    }
  }, 1000 / ${RATE});
} else if (mode === "worker") {
  const off = document.getElementById("s").transferControlToOffscreen();
  const w = new Worker(URL.createObjectURL(new Blob([code + "onmessage = (e) => start(e.data);"], { type: "text/javascript" })));
  w.postMessage(off, [off]);
} else {
  (0, eval)(code + "start(document.getElementById('s'));");
}
</script></body></html>
"""


def serve_page(page):
    """Serves the HTML `page` (bytes) at / on loopback from a thread; its address."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/" else 404)
            self.send_header("content-type", "text/html")
            self.end_headers()
            if self.path == "/":
                self.wfile.write(page)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rate", type=float, default=24, help="frames a second (the live chart draws about 24 at 1600x900)")
    ap.add_argument("--ways", default="main,worker,main-shift,worker-shift", help="which of main, worker, main-shift, worker-shift, scroll, pingpong, desync, desync-shift")
    args = ap.parse_args()
    url = serve_page(PAGE.replace("${RATE}", repr(args.rate)).replace("${STRIP}", STRIP_JS).encode())
    ways = args.ways.split(",")
    results = {w: [] for w in ways}
    for r in range(args.rounds):
        for way in ways:
            d = browser(1600, 940)
            try:
                d.get(f"{url}#{way}")
                time.sleep(3)
                c0, t0 = threads_cpu(d.service.process.pid), time.time()
                time.sleep(args.seconds)
                c1, t1 = threads_cpu(d.service.process.pid), time.time()
            finally:
                d.quit()
            cpu = {k: (c1[k] - c0.get(k, 0)) / (t1 - t0) * 100 for k in c1}
            renderer = sum(v for k, v in cpu.items() if k[0] == "renderer")
            gpu = sum(v for k, v in cpu.items() if k[0] == "gpu-process")
            results[way].append((renderer, gpu, sum(cpu.values())))
            top = ", ".join(f"{k[0]} {k[1]} {v:.1f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])[:4])
            print(f"round {r + 1} {way:>12}: renderer {renderer:5.1f}  GPU process {gpu:5.1f}  tree {sum(cpu.values()):5.1f}   ({top})", flush=True)
    print(f"\nmedian of {args.rounds} rounds, % of a core, {args.rate:g} frames a second, {args.seconds:g} s each")
    print(f"{'way':>12} {'renderer':>9} {'GPU process':>12} {'tree':>6} {'renderer ms a frame':>20}")
    for way in ways:
        ren, gpu, tree = (statistics.median(v[i] for v in results[way]) for i in range(3))
        print(f"{way:>12} {ren:>9.1f} {gpu:>12.1f} {tree:>6.1f} {ren * 10 / args.rate:>20.2f}")


if __name__ == "__main__":
    main()

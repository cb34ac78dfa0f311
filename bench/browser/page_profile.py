#!/usr/bin/env python3
"""Where a live page's draw goes: one headless Chromium on the monitoring chart.

  python3 bench/browser/page_profile.py [--seconds S] [--feed cwload|python|walk] [--size WxH] [--follow S]

The server and feed are those of `latency.py --only pages` (history by `cwload ingest`,
then `cwload feed --rate 50`, or the history and Python feed of `--only live`). Prints, over the
measured window: the CPU of the page's Chromium process tree split by thread name
(the renderer's main thread runs the script and the canvas drawing; the compositor
threads and the GPU process's viz threads composite the layer canvases), the page's
draws and per-layer redraws a second, what the series layer holds, the JavaScript
self time by function (DevTools `Profiler`), and `Performance.getMetrics` durations.
Not a test: figures for docs/bench.md (issue 28).
"""
import argparse
import collections
import contextlib
import os
import pathlib
import re
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import latency  # noqa: E402
from latency import monitor_spec, start, fill_monitor, stop_feed, browser, wait_for  # noqa: E402


def threads_cpu(pid):
    """{(process name, thread name): CPU seconds} over a process tree."""
    out, todo = collections.Counter(), [pid]
    clk = os.sysconf("SC_CLK_TCK")
    while todo:
        p = todo.pop()
        try:
            cmd = pathlib.Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            m = re.search(r"--type=([a-z-]+)", cmd)
            kind = m.group(1) if m else pathlib.Path(cmd.split(" ")[0]).name
            for task in pathlib.Path(f"/proc/{p}/task").iterdir():
                f = (task / "stat").read_text().rsplit(")", 1)[1].split()
                name = (task / "comm").read_text().strip().rstrip("0123456789")
                if task.name == str(p):
                    name += " (main)"
                out[(kind, name)] += (int(f[11]) + int(f[12])) / clk
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


# The series layer as the page holds it, stroked into a canvas of the same size in
# variants, each forced to rasterise (getImageData of one pixel): ms a draw, median of 15.
RASTER_JS = r"""
const s = window.chartwire.layers.series.commands.filter(k => k.op === 'columns');
const src = document.querySelector('canvas[data-layer=series]');
const cv = document.createElement('canvas'); cv.width = src.width; cv.height = src.height;
const ctx = cv.getContext('2d');
function stretches(c) {
  const e = c.entries, out = []; const Y = (q) => c.y0 + q * c.dy; let cur = null, penY = 0;
  for (let i = 0; i < e.length; i++) {
    const x = c.x0 + e[i].column * c.dx, p = i > 0 ? e[i - 1] : null;
    if (p && e[i].joined) { if (e[i].column > p.column + 1) { penY = Y(e[i].first); cur.push(c.x0 + p.column * c.dx, Y(p.last), x, penY); } }
    else { penY = Y(e[i].first); cur = [x, penY]; out.push(cur); }
    const lo = Y(e[i].lo), hi = Y(e[i].hi);
    if (Math.abs(penY - lo) <= Math.abs(penY - hi)) { cur.push(x, lo, x, hi); penY = hi; } else { cur.push(x, hi, x, lo); penY = lo; }
  }
  return out;
}
const lines = s.map(c => [c, stretches(c)]);
function run(join, width, strip) {
  ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, cv.width, cv.height);
  ctx.lineJoin = join; ctx.lineCap = 'butt';
  for (let a = 0; a < cv.width; a += strip || cv.width) {
    const b = a + (strip || cv.width), lo = a - 3, hi = b + 3;
    if (strip) { ctx.save(); ctx.beginPath(); ctx.rect(a, 0, b - a, cv.height); ctx.clip(); }
    for (const [c, st] of lines) {
      if (width === 0) continue;
      ctx.strokeStyle = c.stroke; ctx.lineWidth = width || c.width;
      ctx.beginPath();
      for (const q of st) {
        let open = false;
        for (let k = 2; k < q.length; k += 2) {
          const x1 = q[k - 2], x2 = q[k];
          if (strip && (Math.max(x1, x2) < lo || Math.min(x1, x2) > hi)) { open = false; continue; }
          if (!open) { ctx.moveTo(x1, q[k - 1]); open = true; }
          ctx.lineTo(x2, q[k + 1]);
        }
      }
      ctx.stroke();
    }
    if (strip) ctx.restore();
  }
  ctx.getImageData(0, 0, 1, 1);
}
const out = {};
for (const [name, join, width, strip] of [['clear only', 'round', 0], ['round 1.5 (as drawn)', 'round', null], ['miter 1.5', 'miter', null],
                                   ['bevel 1.5', 'bevel', null], ['round 1', 'round', 1], ['miter 1', 'miter', 1],
                                   ['round 1.5, 32 px strips', 'round', null, 32], ['round 1.5, 64 px strips', 'round', null, 64],
                                   ['round 1.5, 128 px strips', 'round', null, 128], ['round 1.5, 256 px strips', 'round', null, 256]]) {
  const t = [];
  for (let r = 0; r < 16; r++) { const a = performance.now(); run(join, width, strip); t.push(performance.now() - a); }
  t.shift(); t.sort((a, b) => a - b); out[name] = t[7];
}
return out;
"""


@contextlib.contextmanager
def live_page(size, follow=0, feed_kind="cwload"):
    """The monitoring chart (`monitor_spec(follow)`) on a release server of its own,
    filled and fed (`fill_monitor`), open in a headless Chromium of `size` ("WxH"): the
    driver, once the page has drawn. The page, feed and server stop on leaving."""
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / "chartwire-browser-bench"
    tmp.mkdir(exist_ok=True)
    server = start(monitor_spec(follow), tmp)
    feed = None
    try:
        feed = fill_monitor(server, feed_kind)
        d = browser(*(int(v) for v in size.split("x")))
        try:
            d.get(f"{server.http}/s/monitor")
            wait_for(d, "return window.chartwire && window.chartwire.draws > 0", timeout=60)
            yield d
        finally:
            d.quit()
    finally:
        stop_feed(feed)
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--raster", action="store_true", help="also time the series layer's stroke, rasterised, in variants")
    ap.add_argument("--style", default="", help="an experiment: CSS applied to canvases, as layer:property=value,...")
    ap.add_argument("--feed", choices=["cwload", "python", "walk"], default="cwload")
    ap.add_argument("--size", default="1600x940", help="the browser window, WxH (the chart is the page's size less its title)")
    ap.add_argument("--follow", type=float, default=0, metavar="S",
                    help="the chart's x axis follows the newest S seconds (a scrolling window) instead of showing all")
    args = ap.parse_args()
    with live_page(args.size, args.follow, args.feed) as d:
        for item in filter(None, args.style.split(",")):
            layer, prop = item.split(":", 1)
            k, v = prop.split("=", 1)
            d.execute_script("document.querySelector(`canvas[data-layer=${arguments[0]}]`).style[arguments[1]] = arguments[2]",
                             layer, k, v)
        time.sleep(3)
        d.execute_cdp_cmd("Performance.enable", {})
        d.execute_cdp_cmd("Profiler.enable", {})
        d.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
        m0 = {m["name"]: m["value"] for m in d.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
        d.execute_script("const c = window.chartwire; window.__d0 = c.draws; window.__s0 = c.scrollDraws || 0; window.__m0 = c.scrollMoves || 0; window.__l0 = Object.assign({}, c.layerDraws || {});"
                         "c.drawMsLog.length = 0; c.drawLog.length = 0; window.__t0 = performance.now();")
        c0, t0 = threads_cpu(d.service.process.pid), time.time()
        d.execute_cdp_cmd("Profiler.start", {})
        time.sleep(args.seconds)
        prof = d.execute_cdp_cmd("Profiler.stop", {})["profile"]
        c1, el = threads_cpu(d.service.process.pid), time.time() - t0
        m1 = {m["name"]: m["value"] for m in d.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
        page = d.execute_script("""const c = window.chartwire, s = c.layers.series, ms = performance.now() - window.__t0;
            const ops = {}; let entries = 0, cols = 0;
            for (const k of s.commands) { ops[k.op] = (ops[k.op] || 0) + 1; if (k.op === 'columns') { cols++; entries += k.entries.length; } }
            const ld = {}; for (const k in (c.layerDraws || {})) ld[k] = (c.layerDraws[k] - (window.__l0[k] || 0)) / ms * 1000;
            const canv = [...document.querySelectorAll('canvas')].map(e => (e.dataset.layer || 'direct ' + e.dataset.direct) + ' ' + e.width + 'x' + e.height);
            const bg = c.layers.background.commands, bgops = {};
            for (const k of bg) bgops[k.op] = (bgops[k.op] || 0) + 1;
            const widths = s.commands.filter(k => k.op === 'columns').map(k => k.width);
            return {draws: (c.draws - window.__d0) / ms * 1000, layerDraws: ld, scrolls: ((c.scrollDraws || 0) - window.__s0) / ms * 1000, moves: ((c.scrollMoves || 0) - window.__m0) / ms * 1000, ops, entries, cols, canv, bgops, widths,
                    drawMs: c.drawMsLog.slice().sort((a, b) => a - b), ages: c.drawLog.slice().sort((a, b) => a - b)};""")
        trials = d.execute_script(RASTER_JS) if args.raster else {}
    print(f"draws/s {page['draws']:.1f}; layer redraws/s " + ", ".join(f"{k} {v:.1f}" for k, v in page["layerDraws"].items())
          + f"; of them drawn by shifting (scrollDraw) {page['scrolls']:.1f}/s, the canvas shifted in {page['moves']:.1f}/s")
    print(f"canvases: {page['canv']}")
    print(f"series layer: {page['ops']}, {page['cols']} columns lines, {page['entries']} entries in all, widths {page['widths']}")
    print(f"background layer: {page['bgops']}")
    dm = page["drawMs"]
    if dm:
        print(f"draw ms (script, in the page) p50 {latency.pct(dm, 0.5):.2f} p95 {latency.pct(dm, 0.95):.2f}")
    ag = page["ages"]
    if ag:
        print(f"newest-point age ms p50 {latency.pct(ag, 0.5):.1f} p95 {latency.pct(ag, 0.95):.1f}")
    for k, v in trials.items():
        print(f"raster of the series layer, {k:<22} {v:7.2f} ms")
    print(f"\nCPU by thread over {el:.1f} s (% of a core):")
    total = 0.0
    for key in sorted(c1, key=lambda k: -(c1[k] - c0.get(k, 0))):
        v = (c1[key] - c0.get(key, 0)) / el * 100
        total += v
        if v >= 0.5:
            print(f"  {key[0]:>16} {key[1]:<30} {v:6.1f}")
    print(f"  {'all':>16} {'':<28} {total:6.1f}")
    print("\nPerformance.getMetrics over the window (ms a second):")
    for k in ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration"):
        print(f"  {k:<22} {(m1.get(k, 0) - m0.get(k, 0)) * 1000 / el:8.1f}")
    # JS self time by function (samples x interval).
    nodes = {n["id"]: n for n in prof["nodes"]}
    dt = collections.Counter()
    deltas = prof.get("timeDeltas", [])
    for sid, delta in zip(prof.get("samples", []), deltas[1:] + [0]):
        f = nodes[sid]["callFrame"]
        dt[f"{f['functionName'] or '(anonymous)'} {pathlib.Path(f['url']).name}:{f['lineNumber'] + 1}"] += delta / 1000
    span = (prof["endTime"] - prof["startTime"]) / 1e6
    print(f"\nself time by function, ms a second (profile of {span:.1f} s):")
    for k, v in dt.most_common(18):
        print(f"  {v / span:8.2f}  {k}")


if __name__ == "__main__":
    main()

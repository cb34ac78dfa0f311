#!/usr/bin/env python3
"""Two or more versions of web/client.js on the same live chart, in alternating rounds.

  python3 bench/browser/client_ab.py [--rounds N] [--seconds S] [--feed python|cwload|walk] [--follow S] NAME=CLIENT.js ...

  e.g. git show main:web/client.js > /tmp/before.js
       python3 bench/browser/client_ab.py --rounds 4 before=/tmp/before.js after=web/client.js

One server (release build, CHARTWIRE_BIN) and one feed (the monitoring chart of
`latency.py --only live`: 4 x 250,000 points, 50 appends a second each) for the whole
run; it serves a copy of this tree's web/ whose client.js is replaced by each version in
turn, and each round opens one fresh headless Chromium page per version (the order
reversed every other round, so a trend in the machine's load falls on both alike). Per
page, over the measured window: draws a second, how many of the series' draws were whole
(not shifted by scrollDraw) and the background's redraws a second (both follow the feed's
random ranges, and a whole drawing costs tens of ms), the script's draw ms (p50), the
newest point's age (p50, p95), and the CPU of the page's renderer process, its main
thread, the GPU process (the software compositor) and its whole Chromium tree, in % of a
core; the renderer's CPU ms a draw. Then each version's medians with their spread.
`--follow S`: the chart's x axis follows the newest S seconds (a scrolling window), as
in `page_profile.py --follow`.

Not a test: figures for docs/bench.md (issue 28).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from latency import monitor_spec, ROOT, fill_monitor, stop_feed, browser, wait_for, pct  # noqa: E402
from page_profile import threads_cpu  # noqa: E402
from conftest import Server  # noqa: E402

START_JS = ("const c = window.chartwire; c.drawLog.length = 0; c.drawMsLog.length = 0; window.__d0 = c.draws;"
            " window.__s0 = c.scrollDraws; window.__l0 = Object.assign({}, c.layerDraws); window.__t0 = performance.now();")
READ_JS = ("const c = window.chartwire, l = window.__l0; return {ages: c.drawLog, drawMs: c.drawMsLog,"
           " draws: c.draws - window.__d0, scrolls: c.scrollDraws - window.__s0, ms: performance.now() - window.__t0,"
           " series: c.layerDraws.series - (l.series || 0), background: (c.layerDraws.background || 0) - (l.background || 0)}")


def measure(server, seconds):
    d = browser(1600, 900 + 40)
    try:
        d.get(f"{server.http}/s/monitor")
        wait_for(d, "return window.chartwire && window.chartwire.draws > 0", timeout=60)
        time.sleep(2)
        d.execute_script(START_JS)
        pid = d.service.process.pid
        c0, t0 = threads_cpu(pid), time.time()
        time.sleep(seconds)
        c1, elapsed = threads_cpu(pid), time.time() - t0
        p = d.execute_script(READ_JS)
    finally:
        d.quit()

    def cpu(keep):
        return sum(c1[k] - c0.get(k, 0) for k in c1 if keep(k)) / elapsed * 100

    per_s = 1000 / p["ms"]
    renderer = cpu(lambda k: k[0] == "renderer")
    return {"draws/s": p["draws"] * per_s, "whole/s": (p["series"] - p["scrolls"]) * per_s,
            "bg/s": p["background"] * per_s, "draw ms p50": pct(p["drawMs"], 0.5),
            "age p50": pct(p["ages"], 0.5), "age p95": pct(p["ages"], 0.95), "renderer %": renderer,
            "main %": cpu(lambda k: k[0] == "renderer" and k[1].endswith("(main)")),
            "gpu %": cpu(lambda k: k[0] == "gpu-process"), "tree %": cpu(lambda k: True),
            "renderer ms/draw": renderer * 10 / max(p["draws"] * per_s, 1e-9), "load": os.getloadavg()[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--feed", choices=["python", "cwload", "walk"], default="python")
    ap.add_argument("--follow", type=float, default=0, metavar="S",
                    help="the chart's x axis follows the newest S seconds (a scrolling window) instead of showing all")
    ap.add_argument("versions", nargs="+", metavar="NAME=CLIENT.js")
    args = ap.parse_args()
    versions = []
    for v in args.versions:
        name, sep, path = v.partition("=")
        if not sep or not pathlib.Path(path).is_file():
            ap.error(f"{v!r}: expected NAME=CLIENT.js, a file")
        versions.append((name, pathlib.Path(path).resolve()))
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="chartwire-client-ab-"))
    web = tmp / "web"
    shutil.copytree(ROOT / "web", web)
    spec = tmp / "monitor.json"
    spec.write_text(json.dumps(monitor_spec(args.follow)))
    os.environ.setdefault("CHARTWIRE_BIN", str(ROOT / ".build" / "release" / "wsserver"))
    server = Server("--config", str(spec), "--web", str(web)).start()
    feed, rows = None, {name: [] for name, _ in versions}
    try:
        feed = fill_monitor(server, args.feed)
        for r in range(args.rounds):
            for name, path in (versions if r % 2 == 0 else versions[::-1]):
                shutil.copy(path, web / "client.js")
                row = measure(server, args.seconds)
                rows[name].append(row)
                print(f"round {r + 1} {name:>10}: " + ", ".join(f"{k} {x:.1f}" for k, x in row.items()), flush=True)
    finally:
        stop_feed(feed)
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    window = f", x following the newest {args.follow:g} s" if args.follow else ""
    print(f"\nmedian (min-max) of {args.rounds} rounds, {args.seconds:g} s each, feed {args.feed}{window}:")
    for k in next(iter(rows.values()))[0]:
        print(f"  {k:<17}" + "  ".join(f"{name} {statistics.median(r[k] for r in rs):6.1f} ({min(r[k] for r in rs):.1f}-{max(r[k] for r in rs):.1f})"
                                       for name, rs in rows.items()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What the page spends drawing the frame that answers a wheel made after a pause.

  python3 bench/browser/gesture_draw.py [--pages N] [--wheels N] [--pause S] NAME=CLIENT.js ...

  e.g. git show HEAD~1:web/client.js > /tmp/before.js
       python3 bench/browser/gesture_draw.py before=/tmp/before.js after=web/client.js

One server (release build, CHARTWIRE_BIN) holding a 2·10^6-point line (the chart of
`latency.py --only gestures`, smaller to fill faster), serving a copy of this tree's
web/ whose client.js is each version in turn. Per version and page (fresh headless
Chromium, versions alternating page by page): the pointer comes over the chart, then
`--wheels` wheel turns, each `--pause` seconds after the one before (longer than the
second after which a layer drawn direct is handed back, so each wheel finds the page
settled). For each wheel: the page's drawing of the frame answering it (ms, the page's
`drawMsLog`), and the event's time stamp to that frame's arrival. Prints every wheel,
then per version the median and spread of the drawing, first wheels and later ones
apart. Not a test: figures for docs/bench.md (issue 28).
"""
import argparse
import json
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from latency import BIG, ROOT, fill_walk, browser, wait_for, plot_centre, mouse, hover  # noqa: E402
from conftest import Server  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=3, help="pages per version (default 3)")
    ap.add_argument("--wheels", type=int, default=3, help="wheels per page (default 3)")
    ap.add_argument("--pause", type=float, default=3.0, help="seconds between wheels (default 3)")
    ap.add_argument("versions", nargs="+", metavar="NAME=CLIENT.js")
    args = ap.parse_args()
    versions = [v.split("=", 1) for v in args.versions]
    tmp = pathlib.Path(tempfile.mkdtemp())
    web = tmp / "web"
    shutil.copytree(ROOT / "web", web)
    (tmp / "big.json").write_text(json.dumps(BIG))
    server = Server("--config", str(tmp / "big.json"), "--web", str(web)).start()
    got = {name: [] for name, _ in versions}
    try:
        fill_walk(server, 2_000_000)
        for page in range(args.pages):
            for name, path in (versions if page % 2 == 0 else versions[::-1]):
                shutil.copy(path, web / "client.js")
                d = browser(1600, 940)
                try:
                    d.get(f"{server.http}/s/big")
                    box = plot_centre(d)
                    time.sleep(1.0)
                    hover(d, (box[0] - 300, box[1]))
                    for k in range(args.wheels):
                        n = d.execute_script("const c = window.chartwire; return [c.inputLog.length, c.drawMsLog.length]")
                        mouse(d, "mouseWheel", box[0], box[1], deltaX=0, deltaY=-120)
                        wait_for(d, f"return window.chartwire.inputLog.length > {n[0]}", timeout=10, message="the frame answering a wheel")
                        r = d.execute_script(f"const c = window.chartwire; return [c.drawMsLog[{n[1]}], c.inputArrivalLog[{n[0]}]]")
                        got[name].append((k, r[0]))
                        print(f"{name:>10} page {page} wheel {k}: drawing {r[0]:.1f} ms, arrival {r[1]:.1f} ms", file=sys.stderr)
                        time.sleep(args.pause)
                finally:
                    d.quit()
    finally:
        server.stop()

    def spread(v):
        return f"{statistics.median(v):5.1f} ({min(v):.1f}-{max(v):.1f}, {len(v)})" if v else "-"
    print(f"\nthe drawing of the frame answering a wheel after {args.pause:g} s, ms: median (min-max, samples)")
    print(f"{'version':>10}  {'first wheel of a page':>24}  {'later wheels':>24}")
    for name, _ in versions:
        first = [ms for k, ms in got[name] if k == 0]
        later = [ms for k, ms in got[name] if k > 0]
        print(f"{name:>10}  {spread(first):>24}  {spread(later):>24}")


if __name__ == "__main__":
    main()

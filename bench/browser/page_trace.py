#!/usr/bin/env python3
"""Where Chromium spends a live page's frames: a DevTools trace of the monitoring chart.

  python3 bench/browser/page_trace.py [--seconds S] [--feed python|cwload|walk] [--size WxH] [--follow S]

The server, feed and page are those of `page_profile.py` (release build, CHARTWIRE_BIN).
After the page has drawn for 3 s, a trace of `--seconds` (default 10) is recorded over
the DevTools protocol (the browser's own WebSocket, with websocket-client) and read
back here. Prints, per second of the trace:

- the slices that take the most time, by process and thread (a slice's time includes
  the slices inside it, so the rows overlap: read them as a tree);
- the page's canvas rasterizing (`CanvasRenderingContext2D::FinalizeFrame`, where a 2D
  canvas's drawing is done, deferred to the end of the task): how many, their total,
  those over 2 ms apart (a layer drawn whole) from the rest (strips);
- the compositor's frames (the GPU process's software renderer, `DrawRenderPass`): how
  many, the quads each draws (those under the frame's damage), their CPU ms, and the
  frames of over 20 quads apart (damage over most of the chart).

`page_profile.py` splits the same page's CPU by thread and the script by function; this
says what the threads do. Not a test: figures for docs/bench.md (issue 28).
"""
import argparse
import bisect
import collections
import json
import pathlib
import sys
import time
import urllib.request

import websocket

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from latency import pct  # noqa: E402
from page_profile import live_page  # noqa: E402

CATEGORIES = "toplevel,blink,cc,viz,gpu,devtools.timeline,v8"


def record(d, seconds, categories=CATEGORIES):
    """A trace of `seconds` from the browser driven by `d`: its list of events."""
    addr = d.capabilities["goog:chromeOptions"]["debuggerAddress"]
    url = json.load(urllib.request.urlopen(f"http://{addr}/json/version"))["webSocketDebuggerUrl"]
    # (No Origin header: Chromium refuses DevTools connections from origins it was not
    # started to allow, and a client with none is not a page.)
    ws = websocket.create_connection(url, suppress_origin=True, timeout=0.5)
    try:
        ws.send(json.dumps({"id": 1, "method": "Tracing.start", "params": {
            "traceConfig": {"includedCategories": categories.split(",")}, "transferMode": "ReportEvents"}}))
        events, end, ended = [], time.time() + seconds, False
        while True:
            if not ended and time.time() >= end:
                ws.send(json.dumps({"id": 2, "method": "Tracing.end"}))
                ended = True
            try:
                m = json.loads(ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if m.get("method") == "Tracing.dataCollected":
                events += m["params"]["value"]
            elif m.get("method") == "Tracing.tracingComplete":
                return events
    finally:
        ws.close()


def report(events, top):
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") in ("thread_name", "process_name"):
            names[(e["pid"], e["tid"] if e["name"] == "thread_name" else None)] = e["args"]["name"]
    slices = [e for e in events if e.get("ph") == "X" and "dur" in e]
    if not slices:
        raise SystemExit("the trace holds no slices")
    span = (max(e["ts"] + e["dur"] for e in slices) - min(e["ts"] for e in slices)) / 1e6
    where = lambda e: (names.get((e["pid"], None), str(e["pid"])), names.get((e["pid"], e["tid"]), str(e["tid"])))  # noqa: E731
    ms, count = collections.Counter(), collections.Counter()
    for e in slices:
        k = (*where(e), e["name"])
        ms[k] += e.get("tdur", e["dur"]) / 1000
        count[k] += 1
    print(f"trace of {span:.1f} s; slices by thread CPU time (ms a second), nested slices included in their parents")
    print(f"{'ms/s':>7} {'n/s':>7}  {'process':<26} {'thread':<22} slice")
    for k, v in ms.most_common(top):
        print(f"{v / span:7.2f} {count[k] / span:7.1f}  {k[0][:26]:<26} {k[1][:22]:<22} {k[2]}")

    fin = sorted(e["dur"] / 1000 for e in slices if e["name"] == "CanvasRenderingContext2D::FinalizeFrame")
    if fin:
        big = [v for v in fin if v > 2]
        small = [v for v in fin if v <= 2]
        print(f"\ncanvas rasterizing (FinalizeFrame): {len(fin) / span:.1f}/s, {sum(fin) / span:.1f} ms/s;"
              f" over 2 ms: {len(big) / span:.1f}/s, {sum(big) / span:.1f} ms/s (median {pct(big, 0.5):.1f} ms);"
              f" the rest: {len(small) / span:.1f}/s, {sum(small) / span:.1f} ms/s (median {pct(small, 0.5):.2f} ms)")

    passes = sorted((e for e in slices if e["name"] == "DirectRenderer::DrawRenderPass"), key=lambda e: e["ts"])
    quads = sorted((e for e in slices if e["name"] == "SoftwareRenderer::DoDrawQuad"), key=lambda e: e["ts"])
    if passes:
        starts = [p["ts"] for p in passes]
        n = collections.Counter()
        for q in quads:
            i = bisect.bisect_right(starts, q["ts"]) - 1
            if i >= 0 and q["ts"] <= passes[i]["ts"] + passes[i]["dur"]:
                n[i] += 1
        cpu = [p.get("tdur", p["dur"]) / 1000 for p in passes]
        wide = [i for i in range(len(passes)) if n[i] > 20]
        print(f"compositor frames (DrawRenderPass): {len(passes) / span:.1f}/s, {sum(cpu) / span:.1f} ms/s;"
              f" quads drawn a frame p50 {pct([n[i] for i in range(len(passes))], 0.5):.0f};"
              f" frames of over 20 quads: {len(wide) / span:.1f}/s, {sum(cpu[i] for i in wide) / span:.1f} ms/s"
              f" (median {pct([cpu[i] for i in wide], 0.5):.1f} ms, the others {pct([cpu[i] for i in range(len(passes)) if n[i] <= 20], 0.5):.2f} ms)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--feed", choices=["cwload", "python", "walk"], default="python")
    ap.add_argument("--size", default="1600x940", help="the browser window, WxH")
    ap.add_argument("--follow", type=float, default=0, metavar="S", help="the x axis follows the newest S seconds")
    ap.add_argument("--top", type=int, default=30, help="slices to list (default 30)")
    args = ap.parse_args()
    with live_page(args.size, args.follow, args.feed) as d:
        time.sleep(3)
        d.execute_script("const c = window.chartwire; window.__d0 = c.draws; window.__w0 = (c.layerDraws.series || 0) - c.scrollDraws;"
                         "window.__t0 = performance.now();")
        events = record(d, args.seconds)
        draws, whole, ms = d.execute_script("const c = window.chartwire; return [c.draws - window.__d0,"
                                            " (c.layerDraws.series || 0) - c.scrollDraws - window.__w0, performance.now() - window.__t0]")
    print(f"page: {draws / ms * 1000:.1f} draws/s, the series drawn whole {whole / ms * 1000:.1f}/s")
    report(events, args.top)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where a wheel zoom's time goes, stage by stage, in the page (headless Chromium).

  python3 bench/browser/zoom_path.py [--pages N] [--wheels N] [--points N]

Starts its own wsserver (release build) with latency.py's 10^7-point chart (`BIG`,
filled by `fill_walk`), opens N fresh pages of it at 1600x940 (default 2), brings the
pointer over the chart and injects wheel turns through the DevTools protocol as
latency.py does (default 10 a page, 0.5 s apart). For each wheel it times, from the
event's time stamp:

- dispatch: the event's time stamp to the page's first wheel listener (a capturing
  one on the document, added before the client's own);
- sent: to the client's `WebSocket.send` of the wheel message;
- message: to the `message` event of the frame that answers it (before the client's
  own handler decodes it);
- decoded: to the client's `onFrame` (`inputArrivalLog`);
- drawn: to the end of the client's drawing of it (`inputLog`: latency.py's
  `zoom_to_paint`);
- committed: to the end of the browser frame that carries the drawing, the canvases
  rasterized (`inputCommitLog`: latency.py's `zoom_to_commit`).

The page's WebSocket is wrapped (`Page.addScriptToEvaluateOnNewDocument`) to note the
send and the message times; the client itself is unchanged. In the same run, for
comparison:

- a Python WebSocket client on the same chart: the wheel message sent to the answering
  frame read (no browser);
- the same in a page with no chart script (the server's own origin, a bare WebSocket
  that acknowledges each frame);
- a bare page (one canvas, no WebSocket): the wheel's time stamp to a listener on the
  canvas, on the document, and a passive one, for each of which it runs a fresh
  Chromium (input_dispatch.py's idle page, listener by listener).

Prints the median and p95 of each stage and the comparison lines. Not a test: the
figures behind docs/bench.md, "Where a wheel zoom's time goes".
"""
import argparse
import json
import pathlib
import random
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "browser"))
sys.path.insert(0, str(ROOT / "Tests" / "integration"))
import latency  # noqa: E402
from latency import browser, hover, mouse, plot_centre, wait_for, pct  # noqa: E402
from test_websocket import connect, hello, next_frame  # noqa: E402
from canvas_probe import serve_page  # noqa: E402

# Installed before the page's own scripts: notes when a wheel message is sent and when
# each binary message arrives, and when the first wheel listener runs.
WRAP = """
window.zoomPath = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const ws = new Native(url, protocols);
  const send = ws.send.bind(ws);
  ws.send = (m) => {
    if (typeof m === "string" && m.startsWith('{"type":"wheel"')) zoomPath.push(["sent", performance.now()]);
    send(m);
  };
  ws.addEventListener("message", (e) => { if (typeof e.data !== "string") zoomPath.push(["message", performance.now()]); });
  return ws;
};
window.WebSocket.prototype = Native.prototype;
Object.setPrototypeOf(window.WebSocket, Native);
document.addEventListener("wheel", (e) => zoomPath.push(["dispatch", performance.now(), e.timeStamp]), { capture: true, passive: true });
"""

# A bare WebSocket in a page of the server's origin (no chart script): sends a wheel
# and notes when the next frame arrives; acknowledges every frame.
BARE_WS = """
window.bare = { times: [], ready: false };
const ws = new WebSocket("ws://" + location.host + "/ws/big", "chartwire.v1");
ws.binaryType = "arraybuffer";
let sentAt = null;
ws.onopen = () => ws.send(JSON.stringify({ type: "hello", width: 1600, height: 900, dpr: 1 }));
ws.onmessage = (m) => {
  if (typeof m.data === "string") return;
  if (sentAt !== null) { bare.times.push(performance.now() - sentAt); sentAt = null; }
  bare.ready = true;
  ws.send(JSON.stringify({ type: "ack" }));
};
window.bareWheel = (dy) => { sentAt = performance.now(); ws.send(JSON.stringify({ type: "wheel", x: 800, y: 400, deltaX: 0, deltaY: dy })); };
"""

BARE_PAGE = """<!doctype html><html><body style="margin:0">
<canvas id="c" width="800" height="600" style="width:800px;height:600px"></canvas>
<script>
window.log = [];
const c = document.getElementById("c");
const on = (ev) => { if (!ev.defaultPrevented && ev.cancelable) ev.preventDefault(); log.push(performance.now() - ev.timeStamp); };
const where = location.hash.slice(1);
if (where === "canvas") c.addEventListener("wheel", on, { passive: false });
if (where === "document") document.addEventListener("wheel", on, { passive: false });
if (where === "passive") c.addEventListener("wheel", (ev) => log.push(performance.now() - ev.timeStamp), { passive: true });
</script></body></html>"""


def page_stages(server, pages, wheels):
    stages = {k: [] for k in ("dispatch", "sent", "message", "decoded", "drawn", "committed")}
    for _ in range(pages):
        d = browser(1600, 940)
        try:
            d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WRAP})
            d.get(f"{server.http}/s/big")
            box = plot_centre(d)
            hover(d, box)
            for _ in range(wheels):
                before = d.execute_script("return window.chartwire.inputCommitLog.length")
                d.execute_script("zoomPath.push(['mark'])")
                mouse(d, "mouseWheel", box[0] + random.randint(-200, 200), box[1], deltaX=0, deltaY=-120)
                wait_for(d, f"return window.chartwire.inputCommitLog.length > {before}", timeout=10,
                         message="the frame answering a wheel, committed")
                time.sleep(0.5)
            marks = d.execute_script("return zoomPath")
            c = d.execute_script("const c = window.chartwire; return [c.inputArrivalLog, c.inputLog, c.inputCommitLog]")
            runs, cur = [], None
            for e in marks:
                if e[0] == "mark":
                    cur = {}
                    runs.append(cur)
                elif cur is not None and e[0] not in cur:
                    cur[e[0]] = e[1:]
            for run, decoded, drawn, committed in zip(runs, c[0][-wheels:], c[1][-wheels:], c[2][-wheels:]):
                if not all(k in run for k in ("dispatch", "sent", "message")):
                    continue
                stamp = run["dispatch"][1]
                stages["dispatch"].append(run["dispatch"][0] - stamp)
                stages["sent"].append(run["sent"][0] - stamp)
                stages["message"].append(run["message"][0] - stamp)
                stages["decoded"].append(decoded)
                stages["drawn"].append(drawn)
                stages["committed"].append(committed)
        finally:
            d.quit()
    return stages


def python_client(server, wheels):
    ws = connect(server, "big")
    hello(ws, width=1600, height=900, dpr=1)
    next_frame(ws)
    times = []
    for i in range(wheels):
        t = time.perf_counter()
        ws.send(json.dumps({"type": "wheel", "x": 800, "y": 400, "deltaX": 0, "deltaY": -100 if i % 2 == 0 else 100}))
        while True:
            op, _ = ws.recv_data()
            if op == 2:
                break
        times.append((time.perf_counter() - t) * 1000)
        ws.send(json.dumps({"type": "ack"}))
        time.sleep(0.1)
    ws.close()
    return times


def bare_ws(server, wheels):
    d = browser(900, 700)
    try:
        d.get(f"{server.http}/client.js")   # any document of the server's origin
        d.execute_script(BARE_WS)
        wait_for(d, "return window.bare.ready", message="the bare WebSocket's first frame")
        time.sleep(0.5)
        for i in range(wheels):
            d.execute_script(f"bareWheel({-100 if i % 2 == 0 else 100})")
            time.sleep(0.1)
        return d.execute_script("return bare.times")
    finally:
        d.quit()


def bare_dispatch(wheels):
    url = serve_page(BARE_PAGE.encode())
    out = {}
    for where in ("canvas", "document", "passive"):
        d = browser(900, 700)
        try:
            d.get(f"{url}#{where}")
            time.sleep(0.5)
            mouse(d, "mouseMoved", 400, 300)
            time.sleep(0.3)
            for _ in range(wheels):
                mouse(d, "mouseWheel", 400, 300, deltaX=0, deltaY=-120)
                time.sleep(0.2)
            out[where] = d.execute_script("return window.log")
        finally:
            d.quit()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=2, help="fresh pages of the chart (default 2)")
    ap.add_argument("--wheels", type=int, default=10, help="wheel turns a page (default 10)")
    ap.add_argument("--points", type=int, default=10_000_000, help="the chart's points (default 10^7)")
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp())
    server = latency.start(latency.BIG, tmp)
    try:
        latency.fill_walk(server, args.points)
        stages = page_stages(server, args.pages, args.wheels)
        py = python_client(server, 4 * args.wheels)
        bws = bare_ws(server, 4 * args.wheels)
    finally:
        server.stop()
    bare = bare_dispatch(2 * args.wheels)

    print(f"{'the chart page, from the wheel event time stamp to':54} {'n':>3} {'p50 ms':>7} {'p95 ms':>7}")
    print("-" * 74)
    names = {"dispatch": "its first listener (dispatch)", "sent": "the wheel message sent",
             "message": "the answering frame's message event", "decoded": "the frame decoded (onFrame)",
             "drawn": "the frame drawn (zoom_to_paint)", "committed": "its browser frame done (zoom_to_commit)"}
    for k, label in names.items():
        v = stages[k]
        print(f"  {label:52} {len(v):>3} {pct(v, 0.5):>7.1f} {pct(v, 0.95):>7.1f}")
    sent_to_message = [m - s for m, s in zip(stages["message"], stages["sent"])]
    print(f"  {'(sent to message: the round trip in the chart page)':52} {len(sent_to_message):>3} "
          f"{pct(sent_to_message, 0.5):>7.1f} {pct(sent_to_message, 0.95):>7.1f}")
    print()
    print(f"{'for comparison':54} {'n':>3} {'p50 ms':>7} {'p95 ms':>7}")
    print("-" * 74)
    print(f"  {'Python client: wheel sent to answering frame':52} {len(py):>3} {pct(py, 0.5):>7.1f} {pct(py, 0.95):>7.1f}")
    print(f"  {'bare page WebSocket: sent to message event':52} {len(bws):>3} {pct(bws, 0.5):>7.1f} {pct(bws, 0.95):>7.1f}")
    for where, v in bare.items():
        label = f"bare page: time stamp to a {where} listener" if where != "passive" else "bare page: time stamp to a passive canvas listener"
        print(f"  {label:52} {len(v):>3} {pct(v, 0.5):>7.1f} {pct(v, 0.95):>7.1f}")


if __name__ == "__main__":
    main()

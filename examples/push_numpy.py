#!/usr/bin/env python3
"""Feeds a ChartWire session with numpy arrays through the binary append body.

    swift run -c release wsserver --config examples/push.json &
    python3 examples/push_numpy.py [--url http://127.0.0.1:8080] [--session push] [--points 1000000]

Loads a day of history at one point a second for each series of examples/push.json in
one request per series (the binary body: "CWA1", the point count, then the x and y
columns as little-endian float64, so numpy's tobytes() is the encoder), then appends a
new point to each every 100 ms. Open /s/push to watch.
"""
import argparse
import http.client
import json
import struct
import sys
import time
import urllib.parse

try:
    import numpy as np
except ImportError:
    sys.exit("push_numpy.py needs numpy: pip install numpy")


def body(x, y):
    """The binary append body of two equal-length arrays."""
    x = np.ascontiguousarray(x, dtype="<f8")
    y = np.ascontiguousarray(y, dtype="<f8")
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be one-dimensional and of equal length")
    return b"CWA1" + struct.pack("<I", len(x)) + x.tobytes() + y.tobytes()


def append(conn, session, series, x, y):
    conn.request("POST", f"/api/sessions/{session}/series/{series}/append", body=body(x, y),
                 headers={"Content-Type": "application/octet-stream"})
    r = conn.getresponse()
    answer = json.loads(r.read())
    if r.status != 200:
        raise RuntimeError(f"{series}: {r.status} {answer.get('error')}")
    return answer["accepted"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--session", default="push")
    ap.add_argument("--points", type=int, default=86_400, help="history points per series (at most 1,000,000)")
    ap.add_argument("--seconds", type=float, default=0, help="stop after this long (0: run until interrupted)")
    args = ap.parse_args()
    url = urllib.parse.urlparse(args.url)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80)
    conn.request("GET", "/api/sessions")
    sessions = json.loads(conn.getresponse().read())["sessions"]
    session = next((s for s in sessions if s["id"] == args.session), None)
    if session is None:
        sys.exit(f"no session {args.session!r} on {args.url}; start the server with --config examples/push.json")
    series = [s["id"] for s in session["series"]]

    rng = np.random.default_rng(7)
    now = time.time()
    x = now - args.points + np.arange(args.points, dtype=np.float64)
    for i, sid in enumerate(series):
        y = 50 + 10 * np.sin(x / 3600 + i) + np.cumsum(rng.normal(0, 0.3, args.points)) * 0.1
        t = time.perf_counter()
        n = append(conn, args.session, sid, x, y)
        print(f"{sid}: {n} points of history in {1000 * (time.perf_counter() - t):.0f} ms")

    last = {sid: 50.0 for sid in series}
    start = time.time()
    while not args.seconds or time.time() - start < args.seconds:
        t = time.time()
        for sid in series:
            last[sid] += rng.normal(0, 0.5)
            append(conn, args.session, sid, np.array([t]), np.array([last[sid]]))
        time.sleep(max(0.0, 0.1 - (time.time() - t)))


if __name__ == "__main__":
    main()

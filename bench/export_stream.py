#!/usr/bin/env python3
"""A 10^7-point data export through the real server (docs/export.md, "Data"): how long
`data.csv` and `data.json` take to arrive and how much the server's resident memory grows
while it streams them (sampled every 50 ms from /proc). Not part of CI.

    swift build --product wsserver        # or -c release
    python3 bench/export_stream.py --bin .build/debug/wsserver --points 10000000

It starts the server itself (`--port 0 --data none --no-demo`), makes one line series,
appends the points in binary batches of a million, then reads each export on a plain
socket to the end (the last chunk) and checks its last row.
"""
import argparse
import json
import socket
import struct
import subprocess
import threading
import time
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/debug/wsserver")
    ap.add_argument("--points", type=int, default=10_000_000)
    ap.add_argument("--formats", default="csv,json")
    a = ap.parse_args()
    p = subprocess.Popen([a.bin, "--port", "0", "--quiet", "--data", "none", "--no-demo"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(p.stdout.readline().strip().rsplit(":", 1)[1])
        base = f"http://127.0.0.1:{port}"

        def rss_mb():
            with open(f"/proc/{p.pid}/status") as f:
                return next(int(line.split()[1]) // 1024 for line in f if line.startswith("VmRSS"))

        def post(path, body, ct="application/json"):
            req = urllib.request.Request(base + path, data=body, method="POST", headers={"content-type": ct})
            return urllib.request.urlopen(req).read()

        post("/api/sessions", json.dumps({"id": "big", "chart": {"xAxes": [{"id": "x", "mode": "extents"}],
                                                                 "series": [{"id": "s", "name": "Big"}]}}).encode())
        batch, done = 1_000_000, 0
        while done < a.points:
            n = min(batch, a.points - done)
            xs = [float(done + i) for i in range(n)]
            post("/api/sessions/big/series/s/append", b"CWA1" + struct.pack("<I", n) + struct.pack(f"<{n}d", *xs) * 2,
                 "application/octet-stream")
            done += n
        time.sleep(2)
        for ext in a.formats.split(","):
            before = rss_mb()
            peak, stop = [before], [False]

            def sample():
                while not stop[0]:
                    peak[0] = max(peak[0], rss_mb())
                    time.sleep(0.05)

            t = threading.Thread(target=sample)
            t.start()
            start, total, tail = time.monotonic(), 0, b""
            with socket.create_connection(("127.0.0.1", port)) as c:
                c.sendall(f"GET /api/sessions/big/data.{ext} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                while chunk := c.recv(1 << 20):
                    total += len(chunk)
                    tail = (tail + chunk)[-100:]
            seconds = time.monotonic() - start
            stop[0] = True
            t.join()
            last = str(a.points - 1)
            ok = tail.endswith(b"0\r\n\r\n") and last.encode() in tail
            print(f"data.{ext}: {a.points} points, {total / 1e6:.1f} MB in {seconds:.1f} s ({total / 1e6 / seconds:.0f} MB/s); "
                  f"server RSS {before} MB before, {peak[0]} MB at most while streaming (+{peak[0] - before} MB); "
                  f"{'complete' if ok else 'INCOMPLETE: ' + repr(tail[-40:])}")
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a cluster shares outside the log, measured (docs/cluster.md, "Viewers while
Redis is away" and "Presence between nodes"):

- Redis killed: how long until a viewer holds `{"type":"status","data":"reconnecting"}`;
  Redis started again: how long until it holds `live` (and how much of that was
  redis-server starting);
- a viewer hovering at about 100 moves a second: the publications Redis carries (count,
  rate, bytes), and the time from a hover on node A to the ring drawn in a viewer's
  frame on node B;
- node A killed: how long until its viewer's ring is gone on node B.

    swift build --product wsserver
    python3 bench/cluster_live.py [--bin .build/debug/wsserver] [--trials 5]

Starts its own redis-server and two nodes on loopback (the integration tests' helpers,
fixture Tests/integration/fixtures/cluster-live.json). Not part of CI; not a speed goal.
"""
import argparse
import os
import shutil
import socket
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "integration"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug", "wsserver"))
    ap.add_argument("--trials", type=int, default=5)
    args = ap.parse_args()
    os.environ["CHARTWIRE_BIN"] = os.path.abspath(args.bin)
    from conftest import FIXTURES, Server
    from test_cluster import Redis
    from test_cluster_live import LIVE, RECONNECTING, Viewer, published_bodies, read_resp, remote_labels, resp

    def node(redis):
        return Server("--config", str(FIXTURES / "cluster-live.json"), "--redis", redis.url).start()

    redis = Redis().start()
    a, b = node(redis), node(redis)
    try:
        # ---- the data state -----------------------------------------------------------
        v = Viewer(a)
        down, up = [], []
        for _ in range(args.trials):
            v.settle(0.5)
            n = len(v.texts)
            t0 = time.time()
            redis.proc.kill()
            redis.proc.wait()
            v.until(lambda: RECONNECTING in v.texts[n:], timeout=10)
            down.append((time.time() - t0) * 1000)
            n = len(v.texts)
            t0 = time.time()
            redis.start()
            answering = (time.time() - t0) * 1000
            v.until(lambda: LIVE in v.texts[n:], timeout=10)
            up.append(((time.time() - t0) * 1000, answering))
        print(f"redis killed -> viewer holds reconnecting, ms: {[round(d, 1) for d in down]}")
        print(f"redis started -> viewer holds live, ms (of which redis-server answering PING): "
              f"{[(round(u), round(s)) for u, s in up]}")

        # ---- presence: publications for a moving pointer ------------------------------
        va, vb = Viewer(a), Viewer(b)
        x, y, w, h = va.plot()
        sub = socket.create_connection(("127.0.0.1", redis.port), timeout=5)
        f = sub.makefile("rb")
        sub.sendall(resp("SUBSCRIBE", "cw:live:static"))
        read_resp(f)
        start, moves = time.time(), 0
        while time.time() - start < 3:
            va.hover(x + w * (0.1 + 0.8 * ((moves % 100) / 100)), y + h / 2)
            moves += 1
            time.sleep(0.01)
        moving = time.time() - start
        bodies = published_bodies(sub, f, 0.3)
        print(f"one viewer hovering: {moves} moves in {moving:.2f} s -> {len(bodies)} publications "
              f"({len(bodies) / moving:.1f}/s), {statistics.mean(len(x) for x in bodies):.0f} bytes each")

        # ---- presence: hover on A to ring drawn on B ------------------------------------
        va.hover(1, 1)
        vb.until(lambda: remote_labels(vb) == [], timeout=5)
        latency = []
        for i in range(20):
            time.sleep(0.06)   # (no publication waiting for its 50 ms slot)
            t0 = time.time()
            va.hover(x + w * (0.2 + 0.03 * i), y + h / 2)
            vb.until(lambda: remote_labels(vb) != [], timeout=5)
            latency.append((time.time() - t0) * 1000)
            va.hover(1, 1)
            vb.until(lambda: remote_labels(vb) == [], timeout=5)
        latency.sort()
        print(f"hover on node a -> ring in a frame on node b: median {statistics.median(latency):.1f} ms, "
              f"max {latency[-1]:.1f} ms (n={len(latency)})")

        # ---- presence: a killed node's ring expires -------------------------------------
        va.hover(x + w / 2, y + h / 2)
        vb.until(lambda: remote_labels(vb), timeout=5)
        vb.settle(1.5)          # (somewhere between two keep-alives)
        t0 = time.time()
        a.proc.kill()
        a.proc.wait()
        vb.until(lambda: remote_labels(vb) == [], timeout=10)
        print(f"node a killed -> its viewer's ring gone on node b: {(time.time() - t0) * 1000:.0f} ms")
    finally:
        for n in (a, b):
            n.stop()
        redis.stop()
        shutil.rmtree(redis.dir, ignore_errors=True)


if __name__ == "__main__":
    main()

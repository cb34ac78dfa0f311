#!/usr/bin/env python3
"""Feeds the `push` session (examples/push.json) with this machine's CPU and memory
load, ten times a second, through the append endpoint. x is the Unix time in
seconds, so a restarted feeder carries on where it left off (x must never go back:
the server refuses such an append with 400).

    swift run -c release wsserver --config examples/push.json &
    python3 examples/push.py            # then open http://127.0.0.1:8080/s/push
"""
import json
import sys
import time
import urllib.request

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"


def cpu_times():
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return idle, sum(fields)


def memory_used_percent():
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            info[key] = int(value.split()[0])
    return 100.0 * (1 - info["MemAvailable"] / info["MemTotal"])


def append(series, x, y):
    body = json.dumps({"x": [x], "y": [y]}).encode()
    req = urllib.request.Request(f"{BASE}/api/sessions/push/series/{series}/append", data=body, method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)["accepted"]


idle0, total0 = cpu_times()
while True:
    time.sleep(0.1)
    idle1, total1 = cpu_times()
    busy = 100.0 * (1 - (idle1 - idle0) / max(1, total1 - total0))
    idle0, total0 = idle1, total1
    t = round(time.time(), 3)
    append("cpu", t, busy)
    append("mem", t, memory_used_percent())

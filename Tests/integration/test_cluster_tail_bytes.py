"""The stream tail bounded in bytes (`--redis-tail-bytes`, `server.redisTailBytes`,
docs/cluster.md "Snapshots and trimming"): big appends with a small byte bound keep at
most that many bytes of entries before the snapshot, whatever `--redis-tail` allows; a
node that fell behind that trim, or starts after it, serves the same chart; a stream
written without size records (an earlier build) is trimmed safely.

Like test_cluster.py, it starts its own redis-server and nodes."""
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time

import pytest

from conftest import FIXTURES, Server
from test_cluster import Redis, eventually, redis_cli, request, same_frames, series_points, stream

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")

SNAPSHOT_EVERY = 4
POINTS = 5000       # per bulk append: y of 8 bytes each, so an entry is about 40 KB


def resp(redis, *args):
    """One command on a raw connection, the reply parsed (bulk strings as bytes): exact
    sizes of binary stream entries, which redis-cli would print escaped."""
    with socket.create_connection(("127.0.0.1", redis.port), timeout=10) as s:
        out = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in (x if isinstance(x, bytes) else str(x).encode() for x in args))
        s.sendall(out)
        f = s.makefile("rb")

        def read():
            line = f.readline()[:-2]
            kind, rest = line[:1], line[1:]
            if kind == b"$":
                n = int(rest)
                if n < 0:
                    return None
                data = f.read(n + 2)[:-2]
                return data
            if kind == b"*":
                n = int(rest)
                return None if n < 0 else [read() for _ in range(n)]
            if kind == b":":
                return int(rest)
            if kind == b"-":
                raise AssertionError(rest.decode())
            return rest.decode()
        return read()


def entry_sizes(redis, inc):
    """{N: bytes of the entry's input} for every entry of the stream."""
    return {int(e[0].decode().split("-")[1]): len(e[1][1]) for e in resp(redis, "XRANGE", f"cw:log:{inc}", "-", "+")}


def size_records(redis, inc):
    """The entries `cw:size:{inc}` records (16 bytes each: N and the bytes logged after
    the first record's entry through N, as big-endian doubles), and those byte counts."""
    raw = resp(redis, "GET", f"cw:size:{inc}")
    records = [struct.unpack(">dd", raw[i:i + 16]) for i in range(0, len(raw), 16)]
    return [int(n) for n, _ in records], [c for _, c in records]


def bulk(node, k, session="static"):
    xs = [10_000.0 * (k + 1) + i * 0.5 for i in range(POINTS)]
    ys = [((i * 7919 + k * 31) % 1000) / 9.7 for i in range(POINTS)]
    status, body = request(node, "POST", f"/api/sessions/{session}/series/line/append", {"x": xs, "y": ys}, timeout=30)
    assert status == 200, body


def start_redis_and_nodes(count, flags):
    redis = Redis().start()
    nodes = [Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, *flags).start() for _ in range(count)]
    return redis, nodes


def stop(redis, nodes):
    for n in nodes:
        n.stop()
    redis.stop()
    shutil.rmtree(redis.dir, ignore_errors=True)


def settled_trim(redis):
    """The stream's entries and snapshot N, read until no switch fell between the reads."""
    def read():
        _, first, last, inc = stream(redis)
        snap = int(redis_cli(redis, "HGET", f"cw:snap:{inc}", "seq") or 0)
        sizes = entry_sizes(redis, inc)
        _, first2, _, _ = stream(redis)
        snap2 = int(redis_cli(redis, "HGET", f"cw:snap:{inc}", "seq") or 0)
        assert snap > 0 and (first, snap) == (first2, snap2), (first, snap, first2, snap2)
        return inc, snap, sizes
    return eventually(read, timeout=10)


def test_big_appends_keep_the_tail_under_the_byte_bound_and_nodes_behind_reload():
    # The entry bound (1000) would keep every entry; the byte bound keeps two of ~40 KB.
    entry = None
    redis, nodes = start_redis_and_nodes(3, ["--redis-snapshot", str(SNAPSHOT_EVERY), "--redis-tail", "1000",
                                             "--redis-tail-bytes", "100000"])
    a, b, c = nodes
    try:
        bulk(a, 0)
        eventually(lambda: series_points(c)["line"] == 11 + POINTS)
        os.kill(c.proc.pid, signal.SIGSTOP)             # C falls behind the trim
        try:
            for k in range(1, 20):
                bulk(a if k % 2 else b, k)
        finally:
            os.kill(c.proc.pid, signal.SIGCONT)
        inc, snap, sizes = settled_trim(redis)
        assert max(sizes) == 20 and snap >= 20 - 2 * SNAPSHOT_EVERY, (snap, sorted(sizes))
        entry = sizes[snap]
        assert 30_000 < entry < 50_000 and all(abs(s - entry) < 100 for s in sizes.values()), sizes
        before = {n: s for n, s in sizes.items() if n <= snap}
        # At most 100,000 bytes before (and with) the snapshot's N: two entries of ~40 KB
        # fit, a third does not; everything after N is kept.
        assert sum(before.values()) <= 100_000 and sorted(before) == [snap - 1, snap], (snap, sorted(sizes))
        assert sorted(n for n in sizes if n > snap) == list(range(snap + 1, 21))
        # The size records start at the entry before the first kept, and say each entry's size.
        recorded, cums = size_records(redis, inc)
        assert recorded == list(range(snap - 2, 21)), recorded
        assert [cums[i + 1] - cums[i] for i in range(len(cums) - 1)] == [sizes[n] for n in recorded[1:]]
        want = 11 + 20 * POINTS
        for n in (a, b, c):
            eventually(lambda: series_points(n)["line"] == want, timeout=15)
        same_frames([a, b, c])
        d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start()
        try:
            assert series_points(d)["line"] == want
            same_frames([a, b, c, d])
        finally:
            d.stop()
        # Redefining the session (PUT: a new incarnation) deletes the old size records
        # with the old stream; the new one records from its first entry (after the record
        # (0, 0)); deleting it deletes those.
        status, body = request(a, "PUT", "/api/sessions/static", {"chart": {"series": [{"id": "line"}]}})
        assert status == 200, body
        assert redis_cli(redis, "EXISTS", f"cw:size:{inc}", f"cw:log:{inc}") == "0"
        bulk(a, 30)
        new_inc = redis_cli(redis, "HGET", "cw:sessions", "static")
        assert new_inc != inc and size_records(redis, new_inc)[0] == [0, 1]
        assert request(a, "DELETE", "/api/sessions/static")[0] == 200
        assert redis_cli(redis, "EXISTS", f"cw:size:{new_inc}", f"cw:log:{new_inc}") == "0"
    finally:
        stop(redis, nodes)


def test_a_stream_without_size_records_trims_by_entries_until_sizes_are_known():
    """A stream an earlier build wrote (no `cw:size:` set): its entries have unknown
    sizes. The byte bound trims only once the snapshot's N has a recorded size, and then
    counts the unknown entries as too big (trimmed); until then the entry bound applies.
    A node started afterwards serves the same chart."""
    redis, nodes = start_redis_and_nodes(1, ["--redis-snapshot", str(SNAPSHOT_EVERY), "--redis-tail", "6",
                                             "--redis-tail-bytes", "100000"])
    a, = nodes
    try:
        for k in range(3):
            bulk(a, k)
        inc = redis_cli(redis, "HGET", "cw:sessions", "static")
        a.stop()
        # As an earlier build leaves it: the entries, no sizes.
        assert redis_cli(redis, "DEL", f"cw:size:{inc}") == "1"
        a = nodes[0] = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url, "--redis-snapshot", str(SNAPSHOT_EVERY),
                              "--redis-tail", "6", "--redis-tail-bytes", "100000").start()
        # Entry 4 starts size records from N0 = 3; the snapshot at 4 (N = 4 has a size)
        # keeps entries after 3: the unknown ones are dropped, entry 4 (~40 KB) fits.
        for k in range(3, 5):
            bulk(a, k)
        inc, snap, sizes = settled_trim(redis)
        assert snap == 4 and sorted(sizes) == [4, 5], (snap, sorted(sizes))
        recorded, cums = size_records(redis, inc)
        assert recorded == [3, 4, 5] and cums == [0, sizes[4], sizes[4] + sizes[5]], (recorded, cums)
        # (A snapshot whose N has no recorded size, one an earlier build's node in the
        # same cluster wrote, is trimmed by the entry bound alone.)
        bulk(a, 5)
        want = 11 + 6 * POINTS
        d = Server("--config", str(FIXTURES / "cluster.json"), "--redis", redis.url).start()
        try:
            assert series_points(d)["line"] == want
            same_frames([a, d])
        finally:
            d.stop()
    finally:
        stop(redis, nodes)


def test_tail_bytes_from_the_config_file_its_errors_and_the_command_line_wins(tmp_path):
    redis = Redis().start()
    spec = json.loads((FIXTURES / "cluster.json").read_text())
    try:
        for value, why in [(-1, "must be at least 0"), ("64MB", "expected a number"), (2.5, "expected a whole number")]:
            spec["server"] = {"redis": redis.url, "redisTailBytes": value}
            (tmp_path / "bad.json").write_text(json.dumps(spec))
            proc = subprocess.run(Server("--config", str(tmp_path / "bad.json")).args, capture_output=True, text=True, timeout=20)
            assert proc.returncode == 2 and f"$.server.redisTailBytes: {why}" in proc.stderr, proc.stderr
        proc = subprocess.run(Server("--redis-tail-bytes", "lots").args, capture_output=True, text=True, timeout=20)
        assert proc.returncode == 2 and '--redis-tail-bytes: "lots" is not a whole number' in proc.stderr, proc.stderr

        # The file's bound (0: no entries before the snapshot's N) is used...
        spec["server"] = {"redis": redis.url, "redisSnapshot": SNAPSHOT_EVERY, "redisTail": 1000, "redisTailBytes": 0}
        (tmp_path / "node.json").write_text(json.dumps(spec))
        a = Server("--config", str(tmp_path / "node.json")).start()
        try:
            for k in range(SNAPSHOT_EVERY):
                bulk(a, k)
            _, snap, sizes = settled_trim(redis)
        finally:
            a.stop()
        assert snap == SNAPSHOT_EVERY and sorted(sizes) == [], (snap, sorted(sizes))
        # ...and a --redis-tail-bytes beside it wins (room for two entries).
        b = Server("--config", str(tmp_path / "node.json"), "--redis-tail-bytes", "100000").start()
        try:
            for k in range(SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY):
                bulk(b, k)
            _, snap, sizes = settled_trim(redis)
        finally:
            b.stop()
        assert snap == 2 * SNAPSHOT_EVERY and sorted(sizes) == [snap - 1, snap], (snap, sorted(sizes))
    finally:
        redis.stop()
        shutil.rmtree(redis.dir, ignore_errors=True)

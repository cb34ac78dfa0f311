"""Data export through the real server: GET /api/sessions/{s}/data.csv and data.json
(docs/export.md, "Data"): the data in view, ranges, series filters, every series
shape, errors and limits, a million points streamed, and access: reading needs what watching needs."""
import csv
import io
import json
import socket
import struct
import time
import urllib.error
import urllib.request

import pytest

from conftest import Server

T0 = 1_790_000_000  # 2026-09-21 14:13:20 UTC, 16:13:20 in Berlin


def get(server, path, headers=None):
    req = urllib.request.Request(server.http + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def send(server, method, path, body, headers=None):
    req = urllib.request.Request(server.http + path, data=json.dumps(body).encode() if not isinstance(body, bytes) else body,
                                 method=method, headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


SHAPES = {
    "id": "shapes",
    "chart": {
        "xAxes": [{"id": "t", "type": "time", "timeZone": "Europe/Berlin", "mode": "fixed", "range": [T0, T0 + 100]}],
        "series": [
            {"id": "l", "name": 'Temp, "inside"', "data": {"x": [T0, T0 + 1.5, T0 + 60, T0 + 200], "y": [1, None, 2.5, 9]}},
            {"id": "b", "type": "band", "name": "Band", "data": {"x": [T0, T0 + 500], "y": [1, 2], "y1": [3, 4]}},
            {"id": "c", "type": "candlestick", "name": "Candles",
             "data": {"x": [T0 + 10], "open": [10], "high": [12.25], "low": [9], "close": [11]}},
            {"id": "u", "type": "bubble", "name": "Bubbles", "data": {"x": [T0 + 20], "y": [5], "size": [0.125]}},
        ],
    },
}


@pytest.fixture
def server():
    s = Server("--no-demo").start()
    assert send(s, "POST", "/api/sessions", SHAPES)[0] == 201
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


def rows(body):
    return list(csv.reader(io.StringIO(body.decode(), newline="")))


def test_csv_of_the_view_every_shape(server):
    status, headers, body = get(server, "/api/sessions/shapes/data.csv")
    assert status == 200
    assert headers["content-type"] == "text/csv; charset=utf-8; header=present"
    assert headers["content-disposition"] == 'attachment; filename="shapes-data.csv"'
    assert body.endswith(b"\r\n") and b"\r\n" in body
    assert rows(body) == [
        ["series", "name", "x", "y", "y1", "open", "high", "low", "close", "size"],
        ["l", 'Temp, "inside"', "2026-09-21T16:13:20+02:00", "1", "", "", "", "", "", ""],
        ["l", 'Temp, "inside"', "2026-09-21T16:13:21.500+02:00", "", "", "", "", "", "", ""],
        ["l", 'Temp, "inside"', "2026-09-21T16:14:20+02:00", "2.5", "", "", "", "", "", ""],
        ["b", "Band", "2026-09-21T16:13:20+02:00", "1", "3", "", "", "", "", ""],
        ["c", "Candles", "2026-09-21T16:13:30+02:00", "", "", "10", "12.25", "9", "11", ""],
        ["u", "Bubbles", "2026-09-21T16:13:40+02:00", "5", "", "", "", "", "", "0.125"],
    ]


def test_json_of_the_view(server):
    status, headers, body = get(server, "/api/sessions/shapes/data.json?format=both")
    assert status == 200 and headers["content-type"] == "application/json"
    assert headers["content-disposition"] == 'attachment; filename="shapes-data.json"'
    doc = json.loads(body)
    assert doc["session"] == "shapes" and doc["format"] == "both" and doc["points"] == 6
    l, b, c, u = doc["series"]
    assert (l["id"], l["name"], l["type"], l["xType"], l["timeZone"]) == ("l", 'Temp, "inside"', "line", "time", "Europe/Berlin")
    assert (l["from"], l["to"], l["count"]) == (T0, T0 + 100, 3)
    assert l["x"] == ["2026-09-21T16:13:20+02:00", "2026-09-21T16:13:21.500+02:00", "2026-09-21T16:14:20+02:00"]
    assert l["xRaw"] == [T0, T0 + 1.5, T0 + 60] and l["y"] == [1, None, 2.5]
    assert b["y"] == [1] and b["y1"] == [3]
    assert (c["open"], c["high"], c["low"], c["close"]) == ([10], [12.25], [9], [11])
    assert u["y"] == [5] and u["size"] == [0.125]


def test_the_view_follows_the_shared_zoom(server):
    # A change of the session's view (a patch of the axis' visible range) changes the export.
    assert send(server, "PATCH", "/api/sessions/shapes", {"chart": {"xAxes": [{"id": "t", "visibleRange": [T0 + 50, T0 + 600]}]}})[0] == 200
    _, _, body = get(server, "/api/sessions/shapes/data.csv?format=raw&series=l,b")
    assert rows(body)[1:] == [["l", 'Temp, "inside"', str(T0 + 60), "2.5", ""], ["l", 'Temp, "inside"', str(T0 + 200), "9", ""],
                              ["b", "Band", str(T0 + 500), "2", "4"]]


def test_range_and_series_filter(server):
    _, _, body = get(server, f"/api/sessions/shapes/data.csv?series=b,l&from={T0 + 1}&to={T0 + 500}&format=raw")
    assert rows(body) == [["series", "name", "x", "y", "y1"], ["b", "Band", str(T0 + 500), "2", "4"],
                          ["l", 'Temp, "inside"', "1790000001.5", "", ""], ["l", 'Temp, "inside"', str(T0 + 60), "2.5", ""],
                          ["l", 'Temp, "inside"', str(T0 + 200), "9", ""]]
    # ISO 8601: with an offset, Z, or none (read in the axis' zone, Berlin).
    for frm, to in [("2026-09-21T16:14:00%2B02:00", "2026-09-21T14:20:00Z"), ("2026-09-21T16:14:00", "2026-09-21T16:20"),
                    ("2026-09-21T16:14:00+02:00", "2026-09-21T10:20:00-04:00")]:
        status, _, body = get(server, f"/api/sessions/shapes/data.json?series=l&from={frm}&to={to}")
        assert status == 200, body
        doc = json.loads(body)
        assert doc["series"][0]["x"] == ["2026-09-21T16:14:20+02:00", "2026-09-21T16:16:40+02:00"] and doc["series"][0]["from"] == T0 + 40


@pytest.mark.parametrize("query,status,fragment", [
    ("series=nope", 404, 'no series \\"nope\\"'),
    ("format=pretty", 400, "format must be axis, raw or both"),
    ("from=5&to=1", 400, "is after to"),
    ("from=yesterday", 400, "ISO 8601"),
    ("series=l,,b", 400, "separated by commas"),
    ("limit=5", 400, 'unknown parameter \\"limit\\"'),
])
def test_errors(server, query, status, fragment):
    for ext in ("csv", "json"):
        got, headers, body = get(server, f"/api/sessions/shapes/data.{ext}?{query}")
        assert got == status and headers["content-type"] == "application/json"
        assert fragment in body.decode(), body
    assert get(server, "/api/sessions/none/data.csv")[0] == 404


def test_a_long_series_list_is_read_whole(server):
    """Query arguments longer than 512 bytes were dropped (and every one after them)."""
    ids = ",".join(["c"] * 200)  # 399 bytes
    status, _, body = get(server, f"/api/sessions/shapes/data.csv?series={ids},{'x' * 200}&format=raw")
    assert status == 404 and "x" * 200 in body.decode()
    status, _, body = get(server, f"/api/sessions/shapes/data.csv?series={ids},u&format=raw")
    assert status == 200 and [r[0] for r in rows(body)[1:]] == ["c", "u"]


def test_export_points_limit():
    s = Server("--no-demo", "--limit", "exportPoints=5").start()
    try:
        assert send(s, "POST", "/api/sessions", SHAPES)[0] == 201
        status, _, body = get(s, "/api/sessions/shapes/data.csv")
        assert status == 413 and "limit exportPoints" in json.loads(body)["error"]
        assert get(s, "/api/sessions/shapes/data.csv?series=l,b")[0] == 200
        _, _, stats = get(s, "/api/stats")
        assert json.loads(stats)["refused"]["exportPoints"] == 1
    finally:
        s.stop()


def test_reading_needs_what_watching_needs():
    """A session whose access lets nobody watch without a token (docs/config.md,
    "Access") is read over HTTP (frame.json, data, images) only with one of its tokens,
    in Authorization or ?token= (the page's download links); one whose anonymous viewers
    watch is read by anyone. Its data routes still need a controller token."""
    s = Server("--no-demo").start()
    try:
        spec = {"id": "p", "access": {"controllerTokens": ["controller-1"], "viewerTokens": ["viewer-01"]},
                "chart": {"series": [{"id": "s", "data": {"x": [1, 2], "y": [3, 4]}}]}}
        assert send(s, "POST", "/api/sessions", spec)[0] == 201
        open_spec = dict(spec, id="q", access=dict(spec["access"], anonymous="viewer"))
        assert send(s, "POST", "/api/sessions", open_spec)[0] == 201
        routes = ["frame.json", "data.csv", "data.json", "image.png?width=64&height=48"]
        for r in routes:
            status, _, body = get(s, f"/api/sessions/p/{r}")
            assert status == 401 and b"token" in body, (r, status, body)
            assert get(s, f"/api/sessions/p/{r}", {"Authorization": "Bearer wrong-token"})[0] == 403, r
            sep = "&" if "?" in r else "?"
            assert get(s, f"/api/sessions/p/{r}{sep}token=nope-nope")[0] == 403, r
            assert get(s, f"/api/sessions/q/{r}")[0] == 200, r
        for headers, query in (({"Authorization": "Bearer viewer-01"}, ""), ({}, "?token=viewer-01"),
                               ({"Authorization": "Bearer controller-1"}, "")):
            assert get(s, "/api/sessions/p/frame.json" + query, headers)[0] == 200
            data = get(s, "/api/sessions/p/data.csv" + query, headers)
            assert data[0] == 200
            assert rows(data[2])[1:] == [["s", "s", "1", "3"], ["s", "s", "2", "4"]]
        assert send(s, "POST", "/api/sessions/p/series/s/append", {"x": [3], "y": [5]})[0] == 401
    finally:
        s.stop()


def raw_get(port, path):
    """The raw bytes of an answer (head and body), read until the server closes."""
    with socket.create_connection(("127.0.0.1", port)) as c:
        c.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        out = bytearray()
        while chunk := c.recv(1 << 20):
            out += chunk
    head, _, body = bytes(out).partition(b"\r\n\r\n")
    return head.decode().lower(), body


def dechunk(body):
    out, i = bytearray(), 0
    while True:
        j = body.index(b"\r\n", i)
        n = int(body[i:j], 16)
        if n == 0:
            assert body[j + 2:] == b"\r\n", "the last chunk ends the body"
            return bytes(out)
        out += body[j + 2:j + 2 + n]
        assert body[j + 2 + n:j + 4 + n] == b"\r\n"
        i = j + 4 + n


def test_a_million_points_stream_and_parse():
    s = Server("--no-demo").start()
    try:
        n = 1_000_000
        spec = {"id": "big", "chart": {"xAxes": [{"id": "x", "mode": "extents"}], "series": [{"id": "s", "name": "Big"}]}}
        assert send(s, "POST", "/api/sessions", spec)[0] == 201
        # The binary append body (docs/protocol.md): "CWA1", count, then x and y as float64.
        xs = [i * 0.5 for i in range(n)]
        body = b"CWA1" + struct.pack("<I", n) + struct.pack(f"<{n}d", *xs) + struct.pack(f"<{n}d", *(x * 2 for x in xs))
        assert send(s, "POST", "/api/sessions/big/series/s/append", body, {"content-type": "application/octet-stream"}) == (200, {"accepted": n})
        start = time.monotonic()
        head, raw = raw_get(s.port, "/api/sessions/big/data.csv")
        seconds = time.monotonic() - start
        assert head.startswith("http/1.1 200") and "transfer-encoding: chunked" in head and "content-length" not in head
        table = rows(dechunk(raw))
        assert len(table) == n + 1 and table[0] == ["series", "name", "x", "y"]
        assert table[1] == ["s", "Big", "0", "0"] and table[-1] == ["s", "Big", "499999.5", "999999"]
        assert all(float(r[3]) == 2 * float(r[2]) for r in table[1::997])
        # JSON the same way, through an ordinary client (urllib reads chunked bodies).
        status, headers, body = get(s, "/api/sessions/big/data.json")
        assert status == 200 and headers["transfer-encoding"] == "chunked"
        doc = json.loads(body)
        assert doc["points"] == n and doc["series"][0]["count"] == n
        assert doc["series"][0]["x"][-1] == 499999.5 and doc["series"][0]["y"][-1] == 999999
        # The server is still answering after both.
        assert get(s, "/healthz")[0] == 200
        print(f"1e6-point CSV export: {len(raw)} bytes in {seconds:.2f} s")
    finally:
        s.stop()


def test_a_slow_reader_gets_the_data_as_it_was_asked_for():
    """The export is written from the series as they were at the request: a reader that
    takes its time gets every row, though the series is cleared meanwhile."""
    s = Server("--no-demo").start()
    try:
        n = 1_000_000  # 21 MB of CSV: more than the socket buffers hold
        spec = {"id": "big", "chart": {"xAxes": [{"id": "x", "mode": "extents"}], "series": [{"id": "s", "name": "Big"}]}}
        assert send(s, "POST", "/api/sessions", spec)[0] == 201
        xs = [float(i) for i in range(n)]
        body = b"CWA1" + struct.pack("<I", n) + struct.pack(f"<{n}d", *xs) + struct.pack(f"<{n}d", *xs)
        assert send(s, "POST", "/api/sessions/big/series/s/append", body)[0] == 200
        with socket.create_connection(("127.0.0.1", s.port)) as c:
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
            c.sendall(b"GET /api/sessions/big/data.csv HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            out = bytearray(c.recv(4096))
            assert send(s, "POST", "/api/sessions/big/series/s/clear", b"")[0] == 200
            assert get(s, "/api/sessions/big/data.csv")[2] == b"series,name,x,y\r\n"
            for _ in range(20):
                time.sleep(0.1)
                out += c.recv(4096)
            while chunk := c.recv(1 << 20):
                out += chunk
        head, _, raw = bytes(out).partition(b"\r\n\r\n")
        table = rows(dechunk(raw))
        assert len(table) == n + 1 and table[-1] == ["s", "Big", str(n - 1), str(n - 1)]
    finally:
        s.stop()

"""The HTTP routes and the command line of the real server."""
import json
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import FIXTURES, ROOT, Server, server_binary


def get(server, path):
    try:
        with urllib.request.urlopen(server.http + path) as r:
            return r.status, r.headers.get("content-type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type"), e.read()


def post(server, path, body):
    req = urllib.request.Request(server.http + path, data=body if isinstance(body, bytes) else body.encode(),
                                 method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def points(server, session="static", series=0):
    _, _, body = get(server, "/api/sessions")
    s = next(s for s in json.loads(body)["sessions"] if s["id"] == session)
    return s["series"][series]["points"]


def test_routes(static_server):
    assert get(static_server, "/healthz")[::2] == (200, b"ok")
    status, ctype, body = get(static_server, "/")
    assert status == 200 and b'href="s/static"' in body
    status, _, body = get(static_server, "/s/static")
    assert status == 200 and b"client.js" in body
    status, ctype, _ = get(static_server, "/s/missing")
    assert status == 404 and ctype == "application/json"
    status, ctype, body = get(static_server, "/font/regular.ttf")
    assert status == 200 and ctype == "font/ttf" and len(body) > 100_000
    sessions = json.loads(get(static_server, "/api/sessions")[2])
    assert sessions == {"sessions": [{"id": "static", "title": "Static line", "viewers": 0,
                                      "series": [{"id": "line", "name": "Line", "points": 11}]}]}


def test_frame_json(static_server):
    status, ctype, body = get(static_server, "/api/sessions/static/frame.json?width=1024&height=600&dpr=2")
    assert status == 200 and ctype == "application/json"
    frame = json.loads(body)
    assert (frame["width"], frame["height"], frame["dpr"]) == (1024, 600, 2)
    ops = {c["op"] for l in frame["layers"] for c in l["commands"]}
    assert {"rect", "segments", "text", "clip", "polyline", "unclip"} <= ops
    for bad in ["width=0&height=10", "width=10&height=abc", "width=10&height=10&dpr=100"]:
        status, _, body = get(static_server, "/api/sessions/static/frame.json?" + bad)
        assert status == 400 and "error" in json.loads(body)
    assert get(static_server, "/api/sessions/nope/frame.json")[0] == 404


def test_append_then_bad_appends_change_nothing(static_server):
    assert post(static_server, "/api/sessions/static/series/line/append", '{"x":[1100,1200],"y":[5,6]}') == (200, {"accepted": 2})
    assert points(static_server) == 13
    bad = [
        ('{"x":[1300],"y":[1,2]}', 400),
        ('{"x":[1300,1400],"y":[1,"a"]}', 400),
        ('{"x":[1300],"y":[NaN]}', 400),
        ('{"x":[1300],"y":[Infinity]}', 400),
        ("not json", 400),
        ('{"x":[1300],"y":[1],"z":1}', 400),
        (b'{"x":[1300],"y":[1]' + b" " * 10 + b"\xff}", 400),
    ]
    for body, status in bad:
        code, answer = post(static_server, "/api/sessions/static/series/line/append", body)
        assert code == status and answer["error"], (body, code, answer)
    assert post(static_server, "/api/sessions/static/series/nope/append", '{"x":[1],"y":[1]}')[0] == 404
    assert post(static_server, "/api/sessions/nope/series/line/append", '{"x":[1],"y":[1]}')[0] == 404
    assert points(static_server) == 13


def line_pixels(server):
    """(plot rect, CSS y of every lo/hi of the static line's columns)."""
    _, _, body = get(server, "/api/sessions/static/frame.json?width=800&height=400&dpr=1")
    frame = json.loads(body)
    layers = {l["id"]: l for l in frame["layers"]}
    plot = [c for c in layers["background"]["commands"] if c["op"] == "rect"][1]
    col = next(c for c in layers["series"]["commands"] if c["op"] == "columns")
    ys = [col["y0"] + q * col["dy"] for e in col["entries"] for q in (e[1], e[2])]
    return plot, ys


def test_data_operations(static_server):
    route = "/api/sessions/static/series/line/"
    # Insert two points between x = 100 and x = 200, then refuse ones that break the order.
    assert post(static_server, route + "insert", '{"index":2,"x":[150,160],"y":[95,96]}') == (200, {"accepted": 2})
    assert points(static_server) == 13
    for body in ['{"index":2,"x":[50],"y":[1]}', '{"index":99,"x":[1],"y":[1]}', '{"x":[150],"y":[1]}',
                 '{"index":2,"x":[150],"y":[1,2]}', '{"index":-1,"x":[150],"y":[1]}']:
        code, answer = post(static_server, route + "insert", body)
        assert code == 400 and answer["error"], (body, answer)
    # Update values in place (x stays); out of range is refused whole.
    assert post(static_server, route + "update", '{"index":0,"y":[5,15]}') == (200, {"accepted": 2})
    code, answer = post(static_server, route + "update", '{"index":12,"y":[1,2]}')
    assert code == 400 and "out of range" in answer["error"]
    # Remove from the start.
    assert post(static_server, route + "removeFirst", '{"count":3}') == (200, {"removed": 3})
    assert points(static_server) == 10
    assert post(static_server, route + "removeFirst", '{"count":11}')[0] == 400
    assert points(static_server) == 10
    # Replace everything (a reload): a flat line at 50 across the plot.
    body = json.dumps({"x": list(range(0, 1001, 10)), "y": [50] * 101})
    assert post(static_server, route + "replace", body) == (200, {"accepted": 101})
    assert points(static_server) == 101
    plot, ys = line_pixels(static_server)
    at50 = plot["y"] + plot["h"] * (110 - 50) / 120
    assert ys and all(abs(y - at50) <= 0.25 for y in ys), (at50, ys[:4])
    code, answer = post(static_server, route + "replace", '{"x":[2,1],"y":[1]}')
    assert code == 400 and "x has 2 values but y has 1" in answer["error"]
    assert points(static_server) == 101
    # Clear.
    assert post(static_server, route + "clear", "") == (200, {"removed": 101})
    assert points(static_server) == 0
    assert post(static_server, route + "clear", '{"x":1}')[0] == 400
    assert post(static_server, "/api/sessions/static/series/nope/clear", "")[0] == 404
    # Appending after all that works as before.
    assert post(static_server, route + "append", '{"x":[1,2],"y":[3,4]}') == (200, {"accepted": 2})


def test_late_data_is_merged_into_x_order(static_server):
    # x 150 arrives after x 1000: it goes between 100 and 200, and the line spikes to it.
    assert post(static_server, "/api/sessions/static/series/line/append", '{"x":[150],"y":[105]}') == (200, {"accepted": 1})
    assert points(static_server) == 12
    _, _, body = get(static_server, "/api/sessions/static/frame.json?width=800&height=400&dpr=1")
    frame = json.loads(body)
    layers = {l["id"]: l for l in frame["layers"]}
    col = next(c for c in layers["series"]["commands"] if c["op"] == "columns")
    plot = [c for c in layers["background"]["commands"] if c["op"] == "rect"][1]
    top = min(col["y0"] + e[1] * col["dy"] for e in col["entries"])
    assert abs(top - (plot["y"] + plot["h"] * (110 - 105) / 120)) <= 1   # the spike to 105 is drawn


def test_large_append(static_server):
    n = 200_000
    body = json.dumps({"x": [2000 + i for i in range(n)], "y": [i % 100 for i in range(n)]})
    assert post(static_server, "/api/sessions/static/series/line/append", body) == (200, {"accepted": n})
    assert points(static_server) == 11 + n


def test_append_to_the_demo_series(demo_server):
    before = points(demo_server, "demo")
    code, answer = post(demo_server, "/api/sessions/demo/series/sine/append", '{"x":[100000],"y":[3]}')
    assert (code, answer) == (200, {"accepted": 1})
    assert points(demo_server, "demo") >= before + 1
    # The generator's points behind x = 100000 are dropped, so x stays sorted and the
    # server stays up (the fixture checks it is alive).


@pytest.mark.parametrize("args,fragment", [
    (["--port", "banana"], "--port"),
    (["--bogus"], "unknown argument"),
    (["--config", "/nonexistent.json"], "/nonexistent.json"),
    (["--web", "/nonexistent"], "--web"),
])
def test_bad_command_lines_exit_2(args, fragment):
    p = subprocess.run([server_binary(), *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert fragment in p.stderr and p.stderr.count("\n") == 1


def test_bad_config_names_the_json_path(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"sessions":[{"id":"a","chart":{"series":[{"id":"s","color":42}]}}]}')
    p = subprocess.run([server_binary(), "--config", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert "$.sessions[0].chart.series[0].color: expected a string, found a number" in p.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"sessions": [')
    p = subprocess.run([server_binary(), "--config", str(broken)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "invalid JSON at line 1" in p.stderr


def test_no_demo_hosts_nothing():
    s = Server("--no-demo").start()
    try:
        _, _, body = get(s, "/api/sessions")
        assert json.loads(body) == {"sessions": []}
        assert b"No sessions are hosted" in get(s, "/")[2]
    finally:
        s.stop()


def test_other_methods(static_server):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", static_server.port, timeout=5)
    for method, body in [("PUT", b"x"), ("DELETE", None), ("PATCH", b"{}")]:
        conn.request(method, "/api/sessions", body=body)
        r = conn.getresponse()
        payload = r.read()
        assert r.status == 405 and json.loads(payload)["error"] == f"method {method} is not supported"
    # OPTIONS answers CORS preflights (docs/security.md): 204 with the methods allowed.
    conn.request("OPTIONS", "/api/sessions")
    r = conn.getresponse()
    assert r.status == 204 and r.read() == b"" and "POST" in r.headers["allow"]
    conn.request("HEAD", "/api/sessions")
    r = conn.getresponse()
    assert r.status == 200 and r.read() == b"" and int(r.headers["content-length"]) > 10
    # The connection is kept alive through all of it.
    conn.request("GET", "/healthz")
    assert conn.getresponse().read() == b"ok"
    conn.close()


def test_gallery(demo_server):
    """The axis gallery: linked from the index, one session per feature, each renders."""
    assert b'href="gallery"' in get(demo_server, "/")[2]   # relative: works under a proxy's prefix
    status, ctype, body = get(demo_server, "/gallery")
    assert status == 200 and ctype.startswith("text/html")
    ids = [part.split(b'"')[0].decode() for part in body.split(b'href="s/')[1:]]
    assert len(ids) >= 16 and all(i.startswith("gallery-") for i in ids)
    for i in ids:
        status, _, frame = get(demo_server, f"/api/sessions/{i}/frame.json?width=800&height=500")
        layers = json.loads(frame)["layers"]
        assert status == 200 and [l["id"] for l in layers] == ["background", "series", "overlay"], i
        assert any(c["op"] == "text" for c in layers[0]["commands"]), i


def test_image_annotation_images_are_served(demo_server):
    """An image annotation's frame names the image by path; the path serves the bytes."""
    _, _, frame = get(demo_server, "/api/sessions/gallery-annotations/frame.json?width=800&height=500")
    images = [c for l in json.loads(frame)["layers"] for c in l.get("commands", []) if c["op"] == "image"]
    assert len(images) == 1 and images[0]["w"] == 96 and images[0]["h"] == 40
    src = images[0]["src"]
    assert src.startswith("/api/sessions/gallery-annotations/images/badge?v=")
    with urllib.request.urlopen(demo_server.http + src) as r:
        assert r.status == 200 and r.headers["content-type"] == "image/png"
        assert "immutable" in r.headers["cache-control"]
        assert r.read().startswith(b"\x89PNG\r\n\x1a\n")
    with urllib.request.urlopen(demo_server.http + src.split("?")[0]) as r:
        assert r.headers["cache-control"] == "no-cache", "without the current version it is not cached for good"
    status, ctype, body = get(demo_server, "/api/sessions/gallery-annotations/images/nope")
    assert status == 404 and ctype == "application/json"
    assert json.loads(body)["error"] == 'no image "nope" in session "gallery-annotations"'
    assert get(demo_server, "/api/sessions/nope/images/badge")[0] == 404

"""Issue 25: finite but extreme data (x from -1e308 to 1e308, sums past the largest
double, denormal spans) is accepted and drawn; the next frame builds, the server
lives, and no display list holds a NaN or an infinity (the append of the report killed
the server with SIGILL at the next frame)."""
import json
import urllib.error
import urllib.request


def request(server, path, body=None, method=None):
    req = urllib.request.Request(f"{server.http}{path}", data=None if body is None else json.dumps(body).encode(),
                                 method=method or ("POST" if body is not None else "GET"))
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def finite_json(raw):
    def refuse(token):
        raise AssertionError(f"non-finite number {token} in a display list")
    return json.loads(raw, parse_constant=refuse)


def frames(server, session):
    for w, h, dpr in [(1, 1, 1), (300, 200, 2), (1200, 700, 1)]:
        status, raw = request(server, f"/api/sessions/{session}/frame.json?width={w}&height={h}&dpr={dpr}")
        assert status == 200, raw
        finite_json(raw)


def test_the_reported_append_draws(static_server):
    status, raw = request(static_server, "/api/sessions/static/series/line/append", {"x": [-1e308, 1e308], "y": [0, 1]})
    assert (status, json.loads(raw)) == (200, {"accepted": 2})
    frames(static_server, "static")
    assert static_server.alive()


def test_every_kind_with_extreme_data(static_server):
    values = [-1e308, 1e308, 5e-324, 0, 1.7976931348623157e308, -1.7976931348623157e308]
    xs = [-1.7976931348623157e308, -1e308, 0, 5e-324, 1e308, 1.7976931348623157e308]
    series = []
    for kind in ["line", "step", "area", "band", "scatter", "bubble", "column"]:
        data = {"x": xs, "y": values}
        if kind == "band":
            data["y1"] = values[::-1]
        if kind == "bubble":
            data["size"] = [abs(v) for v in values]
        series.append({"id": kind, "type": kind, "data": data})
    series.append({"id": "candle", "type": "candlestick",
                   "data": {"x": xs, "open": values, "close": values[::-1],
                            "high": [max(a, b) for a, b in zip(values, values[::-1])],
                            "low": [min(a, b) for a, b in zip(values, values[::-1])]}})
    for k in range(3):
        series.append({"id": f"stack{k}", "type": "area", "stackIndex": 0, "data": {"x": [0, 1], "y": [1e308, 1e308]}})
    spec = {"id": "extreme", "chart": {"series": series}}
    status, raw = request(static_server, "/api/sessions", spec)
    assert status in (200, 201), raw
    frames(static_server, "extreme")
    # Zoomed to ranges as wide as the doubles and as narrow as a denormal.
    for visible in [[-1.7976931348623157e308, 1.7976931348623157e308], [0, 5e-324], [1e308, 1.0000000000000002e308]]:
        status, raw = request(static_server, "/api/sessions/extreme", {"chart": {"xAxes": [{"id": "x", "visibleRange": visible}]}},
                              method="PATCH")
        assert status == 200, raw
        frames(static_server, "extreme")
    assert static_server.alive()

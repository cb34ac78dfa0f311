"""Issue 29's defects against the real server: a PATCH of an axis' visibleRange alone
zooms the axis and `GET .../spec` shows it; a PATCH adding y axes keeps the default
one; Unix seconds on a numeric axis draw a `warnings` entry and readable labels."""
from conftest import Server
from test_control import call, titles
from test_websocket import connect, hello, next_frame

SPEC = {"id": "d", "chart": {
    "series": [{"id": "a", "name": "A", "data": {"x": [0, 1, 2, 3, 4], "y": [1, 3, 2, 4, 3]}}]}}


def x_axis(spec):
    return spec["chart"]["xAxes"][0]


def test_a_patch_of_a_visible_range_alone_zooms_and_reads_back():
    srv = Server("--no-demo").start()
    try:
        spec = {**SPEC, "chart": {**SPEC["chart"], "xAxes": [{"id": "x"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        ws = connect(srv, "d")
        hello(ws)
        first, _ = next_frame(ws)
        status, body = call(srv, "PATCH", "/api/sessions/d", {"chart": {"xAxes": [{"id": "x", "visibleRange": [1, 2]}]}})
        assert status == 200, body
        assert x_axis(call(srv, "GET", "/api/sessions/d/spec")[1])["visibleRange"] == [1, 2]
        # The viewer is sent the zoomed axis: the labels 0.0 and 4.0 of the whole range go.
        assert {"0.0", "4.0"} <= set(titles(first)), titles(first)
        for _ in range(10):
            frame, _ = next_frame(ws)
            shown = set(titles(frame))
            if shown and not {"0.0", "4.0"} & shown:
                break
        else:
            raise AssertionError("no frame showed the range [1, 2]")
        # null gives the axis back to its mode.
        assert call(srv, "PATCH", "/api/sessions/d", {"chart": {"xAxes": [{"id": "x", "visibleRange": None}]}})[0] == 200
        assert "visibleRange" not in x_axis(call(srv, "GET", "/api/sessions/d/spec")[1])
        ws.close()
    finally:
        srv.stop()


def test_a_patch_adding_y_axes_keeps_the_default():
    srv = Server("--no-demo").start()
    try:
        assert call(srv, "POST", "/api/sessions", SPEC)[0] == 201
        status, body = call(srv, "PATCH", "/api/sessions/d", {"chart": {"yAxes": [{"id": "right", "alignment": "right"}]}})
        assert status == 200, body
        spec = call(srv, "GET", "/api/sessions/d/spec")[1]
        assert [a["id"] for a in spec["chart"]["yAxes"]] == ["y", "right"]
    finally:
        srv.stop()


def test_unix_seconds_are_hinted_at_and_labelled_readably():
    srv = Server("--no-demo").start()
    try:
        t0 = 1_790_000_000
        spec = {"id": "u", "chart": {"series": [{"id": "a", "data": {"x": [t0 + 60 * k for k in range(30)], "y": list(range(30))}}]}}
        status, body = call(srv, "POST", "/api/sessions", spec)
        assert status == 201
        assert len(body["warnings"]) == 1 and "Unix times in seconds" in body["warnings"][0], body
        # Patched to a time axis: no warning any more.
        status, body = call(srv, "PATCH", "/api/sessions/u", {"chart": {"xAxes": [{"id": "x", "type": "time"}]}})
        assert status == 200 and "warnings" not in body, body
        status, body = call(srv, "PATCH", "/api/sessions/u", {"chart": {"xAxes": [{"id": "x", "type": "numeric"}]}})
        assert "warnings" in body
        ws = connect(srv, "u")
        hello(ws)
        frame, _ = next_frame(ws)
        labels = [t for t in titles(frame) if t and t.startswith("17")]
        assert labels and not any(t.endswith("G") for t in labels), labels
        ws.close()
        # An ordinary chart has no warnings member.
        assert "warnings" not in call(srv, "POST", "/api/sessions", SPEC)[1]
    finally:
        srv.stop()


def fling(ws, x0, y0, dx, steps=5, dt=10):
    """A quick drag released while moving: the page's clock (`time`, ms) says how fast."""
    import json
    t = 1000.0
    ws.send(json.dumps({"type": "pointer", "phase": "down", "x": x0, "y": y0, "button": 0, "buttons": 1,
                        "pointerId": 1, "pointerType": "mouse", "time": t}))
    for i in range(1, steps + 1):
        t += dt
        ws.send(json.dumps({"type": "pointer", "phase": "move", "x": x0 + dx * i, "y": y0, "button": -1, "buttons": 1,
                            "pointerId": 1, "pointerType": "mouse", "time": t}))
    ws.send(json.dumps({"type": "pointer", "phase": "up", "x": x0 + dx * steps, "y": y0, "button": 0, "buttons": 0,
                        "pointerId": 1, "pointerType": "mouse", "time": t + 5}))


def test_a_fling_stops_at_the_data_by_default_and_not_with_clip_mode_none():
    import time
    import cwframe
    from test_websocket import layer
    srv = Server("--no-demo").start()
    try:
        xs = list(range(100))
        for sid, clip in (("clip", None), ("free", "none")):
            zoom_pan = {"type": "zoomPan", "direction": "x", **({"clipMode": clip} if clip else {})}
            spec = {"id": sid, "chart": {"xAxes": [{"id": "x", "visibleRange": [40, 60]}],
                                         "series": [{"id": "a", "data": {"x": xs, "y": xs}}], "modifiers": [zoom_pan]}}
            assert call(srv, "POST", "/api/sessions", spec)[0] == 201
            ws = connect(srv, sid)
            hello(ws)
            frame, _ = next_frame(ws)
            x, y, w, h = cwframe.plot_rect(layer(frame, "background"))
            fling(ws, x + w / 2, y + h / 2, -100)
            # The glide runs on the server's clock; it has ended when the range stops moving.
            last, deadline = None, time.time() + 10
            while time.time() < deadline:
                time.sleep(0.3)
                now = x_axis(call(srv, "GET", f"/api/sessions/{sid}/spec")[1]).get("visibleRange")
                if now == last:
                    break
                last = now
            lo, hi = last
            if clip is None:
                assert hi == 99 and abs((hi - lo) - 20) < 1e-6, last
            else:
                assert hi > 100, last
            ws.close()
    finally:
        srv.stop()

"""Real WebSocket clients against the real server."""
import json
import socket
import time

import pytest
import websocket

import cwframe


def connect(server, session="static", timeout=5):
    return websocket.create_connection(f"{server.ws}/ws/{session}", subprotocols=["chartwire.v1"], timeout=timeout)


def hello(ws, width=800, height=500, dpr=1, **extra):
    ws.__dict__["held"] = cwframe.Held()
    ws.send(json.dumps({"type": "hello", "width": width, "height": height, "dpr": dpr, **extra}))
    welcome = json.loads(ws.recv())
    assert welcome["type"] == "welcome", welcome
    return welcome


def next_frame(ws, timeout=5, ack=True):
    """The next binary frame, decoded, with patched layers applied to what this
    connection holds (so every layer in it is whole), and acknowledged as the client
    does after drawing it. Text messages before it are returned too."""
    held = ws.__dict__.setdefault("held", cwframe.Held())
    deadline = time.time() + timeout
    texts = []
    while time.time() < deadline:
        op, data = ws.recv_data()
        if op == websocket.ABNF.OPCODE_BINARY:
            frame = held.apply(cwframe.decode(data))
            if ack:
                ws.send(json.dumps({"type": "ack"}))
            return frame, texts
        if op == websocket.ABNF.OPCODE_CLOSE:
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
            raise AssertionError(f"the server closed the connection ({code}) before a frame")
        texts.append(json.loads(data))
    raise AssertionError("no frame arrived")


def frame_with_text(ws, wanted, frames, what):
    """The first of the next `frames` frames with a text command whose text passes
    `wanted`; an AssertionError naming `what` if none has."""
    for _ in range(frames):
        frame, _ = next_frame(ws)
        if any(wanted(c.get("text", "")) for l in frame["layers"] for c in l["commands"] if c.get("op") == "text"):
            return frame
    raise AssertionError(f"no frame with {what} in {frames}")


def next_text(ws):
    while True:
        op, data = ws.recv_data()
        if op == websocket.ABNF.OPCODE_TEXT:
            return json.loads(data)


def layer(frame, layer_id):
    return next((l for l in frame["layers"] if l["id"] == layer_id), None)


def drag(ws, x0, y0, dx, steps=5):
    ws.send(json.dumps({"type": "pointer", "phase": "down", "x": x0, "y": y0, "button": 0, "buttons": 1,
                        "pointerId": 1, "pointerType": "mouse"}))
    for i in range(1, steps + 1):
        ws.send(json.dumps({"type": "pointer", "phase": "move", "x": x0 + dx * i / steps, "y": y0, "button": -1,
                            "buttons": 1, "pointerId": 1, "pointerType": "mouse"}))
    ws.send(json.dumps({"type": "pointer", "phase": "up", "x": x0 + dx, "y": y0, "button": 0, "buttons": 0,
                        "pointerId": 1, "pointerType": "mouse"}))


def test_hello_welcome_and_first_frame(static_server):
    ws = connect(static_server)
    welcome = hello(ws)
    assert welcome["session"] == "static" and welcome["protocol"] == "chartwire.v1"
    assert welcome["series"] == [{"id": "line", "name": "Line"}]
    frame, _ = next_frame(ws)
    assert (frame["width"], frame["height"], frame["dpr"]) == (800, 500, 1)
    assert [l["id"] for l in frame["layers"]] == ["background", "series", "overlay", "modifier"]
    series = layer(frame, "series")["commands"]
    assert [c["op"] for c in series] == ["clip", "columns", "unclip"]
    assert series[1]["stroke"] == "#1f77b4"
    assert len(series[1]["entries"]) == 11  # 11 points, every one in its own column
    lo, hi = cwframe.visible_x_range(layer(frame, "background"))
    assert abs(lo - 0) < 1e-3 and abs(hi - 1000) < 1e-3
    ws.close()


def test_binary_frame_matches_frame_json(static_server):
    import urllib.request
    ws = connect(static_server)
    hello(ws, width=640, height=400)
    frame, _ = next_frame(ws)
    with urllib.request.urlopen(f"{static_server.http}/api/sessions/static/frame.json?width=640&height=400") as r:
        as_json = json.load(r)
    # frame.json is the shared layers; the viewer also gets its own (empty) modifier layer.
    assert [l["id"] for l in as_json["layers"]] + ["modifier"] == [l["id"] for l in frame["layers"]]
    assert frame["layers"][-1]["commands"] == []
    for a, b in zip(as_json["layers"], frame["layers"]):
        assert len(a["commands"]) == len(b["commands"])
        for ca, cb in zip(a["commands"], b["commands"]):
            assert ca["op"] == cb["op"]
            if ca["op"] == "text":
                assert ca["text"] == cb["text"] and abs(ca["x"] - cb["x"]) < 1e-3
    ws.close()


def test_drag_moves_the_range_for_every_viewer(static_server):
    a, b = connect(static_server), connect(static_server)
    hello(a)
    hello(b, width=500, height=300)
    fa, _ = next_frame(a)
    fb, _ = next_frame(b)
    x, y, w, h = cwframe.plot_rect(layer(fa, "background"))
    full = cwframe.visible_x_range(layer(fa, "background"))
    # Zoomed in first: at its full extents the chart does not pan along x (zoomPan's
    # clipMode clipAtExtents keeps the range on the data).
    a.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaY": -300}))
    deadline = time.time() + 5
    while time.time() < deadline:
        f, _ = next_frame(a)
        if layer(f, "background") and cwframe.visible_x_range(layer(f, "background")) != full:
            lo, hi = cwframe.visible_x_range(layer(f, "background"))
            x, y, w, h = cwframe.plot_rect(layer(f, "background"))   # (the labels changed: so may the plot)
            break
    else:
        raise AssertionError("the wheel did not zoom")

    drag(a, x + w / 2, y + h / 2, -200)   # drag left: the view moves to larger x
    expected_shift = 200 * (hi - lo) / w

    def settled(ws):
        """Frames until one shows the full drag."""
        last = None
        deadline = time.time() + 5
        while time.time() < deadline:
            f, _ = next_frame(ws)
            bg = layer(f, "background")
            if bg:
                last = cwframe.visible_x_range(bg)
                if abs(last[0] - (lo + expected_shift)) < 1e-3:
                    return last
        raise AssertionError(f"range never settled; last {last}")

    new_lo, new_hi = settled(a)
    assert abs((new_hi - new_lo) - (hi - lo)) < 1e-3
    # The second viewer, with another canvas size, sees the same data range.
    b_lo, b_hi = settled(b)
    assert abs(b_lo - new_lo) < 1e-3 and abs(b_hi - new_hi) < 1e-3

    # Double-click returns both to the full extents, flying there in a few frames.
    a.send(json.dumps({"type": "dblclick", "x": x + 10, "y": y + 10}))
    seen = []
    deadline = time.time() + 5
    while time.time() < deadline and (not seen or seen[-1] != [0, 1000]):
        f, _ = next_frame(b)
        if layer(f, "background"):
            seen.append([round(v, 3) for v in cwframe.visible_x_range(layer(f, "background"))])
    assert seen[-1] == [0, 1000] and len(seen) >= 3, seen
    a.close(); b.close()


def test_wheel_zooms_about_the_pointer(static_server):
    ws = connect(static_server)
    hello(ws)
    f, _ = next_frame(ws)
    x, y, w, h = cwframe.plot_rect(layer(f, "background"))
    px = x + w / 4
    ws.send(json.dumps({"type": "wheel", "x": px, "y": y + h / 2, "deltaX": 0, "deltaY": -300}))
    f2, _ = next_frame(ws)
    lo, hi = cwframe.visible_x_range(layer(f2, "background"))
    assert abs((hi - lo) - 1000 / 1.2 ** 3) < 1e-2
    assert abs((lo + (px - x) / w * (hi - lo)) - 250) < 1e-2   # the value under the pointer stays
    ws.close()


def test_json_frames_on_request(static_server):
    ws = connect(static_server)
    ws.send(json.dumps({"type": "hello", "width": 300, "height": 200, "dpr": 2, "format": "json"}))
    assert json.loads(ws.recv())["type"] == "welcome"
    frame = json.loads(ws.recv())
    assert frame["type"] == "frame" and frame["dpr"] == 2
    assert [l["id"] for l in frame["layers"]] == ["background", "series", "overlay", "modifier"]
    ws.close()


@pytest.mark.parametrize("message,code", [
    ("{not json", "bad_json"),
    ("[1,2,3]", "bad_message"),
    (json.dumps({"type": "teleport"}), "unknown_type"),
    (json.dumps({"type": "hello", "width": -5, "height": 10}), "bad_field"),
    (json.dumps({"type": "hello", "width": 5, "height": 10, "extra": 1}), "bad_field"),
    (json.dumps({"type": "pointer", "phase": "down", "x": 1}), "bad_field"),
    (json.dumps({"type": "wheel", "x": "left", "y": 1}), "bad_field"),
    ('{"type":"wheel","x":1,"y":1,"deltaY":1e999}', "bad_json"),
    (json.dumps({"type": "resize", "width": 10, "height": 10}), "hello_required"),
    ("x" * 100_000, "too_large"),
])
def test_bad_messages_get_an_error_and_the_connection_stays(static_server, message, code):
    ws = connect(static_server)
    ws.send(message)
    err = next_text(ws)
    assert err["type"] == "error" and err["code"] == code, err
    assert err["message"]
    hello(ws)                       # still usable
    next_frame(ws)
    ws.close()


def test_binary_messages_are_refused(static_server):
    ws = connect(static_server)
    ws.send_binary(b"\x00\x01\x02")
    err = next_text(ws)
    assert err["code"] == "unsupported"
    hello(ws)
    ws.close()


def test_unknown_session_is_refused_at_the_handshake(static_server):
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(f"{static_server.ws}/ws/nope", subprotocols=["chartwire.v1"], timeout=5)


def test_client_vanishing_mid_stream_harms_no_one(demo_server):
    """Clients that drop their TCP connection while frames stream in: the server
    keeps serving the others, and nothing of the chart is lost."""
    steady = connect(demo_server, "demo")
    hello(steady)
    next_frame(steady)
    for _ in range(5):
        ws = connect(demo_server, "demo")
        hello(ws, width=1920, height=1080)
        ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        ws.sock.close()             # RST, no close frame, frames possibly mid-write
    frames = 0
    deadline = time.time() + 2
    while time.time() < deadline:
        next_frame(steady)
        frames += 1
    assert frames >= 20, f"only {frames} frames in 2 s after the drops"
    import urllib.request
    with urllib.request.urlopen(f"{demo_server.http}/api/sessions") as r:
        demo = json.load(r)["sessions"][0]
    assert demo["viewers"] == 1
    steady.close()


def test_live_demo_scrolls(demo_server):
    ws = connect(demo_server, "demo")
    hello(ws)
    first, _ = next_frame(ws)
    time.sleep(1.2)
    # The series layer keeps changing as points arrive at 50 per second per series.
    versions = set()
    for _ in range(10):
        f, _ = next_frame(ws)
        s = layer(f, "series")
        if s:
            versions.add(s["version"])
    assert len(versions) >= 5
    ws.close()


def test_heartbeats_keep_a_quiet_connection_alive():
    from conftest import FIXTURES, Server
    s = Server("--config", str(FIXTURES / "static.json"), "--heartbeat", "0.3").start()
    try:
        ws = connect(s)
        welcome = hello(ws)
        assert welcome["heartbeat"] == 0.3
        next_frame(ws)
        start = time.time()
        assert next_text(ws) == {"type": "heartbeat"}   # nothing changes on a static chart
        assert 0.2 < time.time() - start < 2
        ws.close()
    finally:
        s.stop()


def test_deeply_nested_json_is_refused(static_server):
    ws = connect(static_server)
    ws.send("[" * 30_000 + "]" * 30_000)
    assert next_text(ws)["code"] == "bad_json"
    hello(ws)
    ws.close()


def test_large_messages_are_reassembled(static_server):
    """A message larger than one receive buffer (16 KiB) but under the 64 KiB limit
    arrives in pieces and is put back together."""
    ws = connect(static_server)
    padded = '{"type":"hello",' + " " * 40_000 + '"width":640,"height":400,"dpr":1}'
    ws.send(padded)
    assert json.loads(ws.recv())["type"] == "welcome"
    frame, _ = next_frame(ws)
    assert frame["width"] == 640
    # The same as one WebSocket message split into continuation frames.
    ws.send_frame(websocket.ABNF.create_frame('{"type":"dblclick",', websocket.ABNF.OPCODE_TEXT, fin=0))
    ws.send_frame(websocket.ABNF.create_frame('"x":5,"y":5}', websocket.ABNF.OPCODE_CONT, fin=1))
    ws.send('{"type":"bogus"}')
    reply = next_text(ws)
    if reply["type"] == "event":   # the double click reset the ranges: every viewer is told
        assert reply["event"] == "rangesReset"
        reply = next_text(ws)
    assert reply["code"] == "unknown_type"   # the fragmented message itself raised no error
    ws.close()


def test_entry_animation_frames(demo_server):
    """The server runs a session's entry animations once its first viewer is there:
    frame after frame the columns grow and the markers fade in, then the series
    stand still and the frames stop."""
    ws = connect(demo_server, "gallery-series-animation")
    hello(ws)
    alphas, tallest = [], []
    frame, _ = next_frame(ws)
    assert not [c for c in layer(frame, "series")["commands"] if c["op"] in ("bars", "markers")], \
        "before its entry a series is not drawn"
    deadline = time.time() + 5
    ws.settimeout(0.5)
    while time.time() < deadline:
        try:
            frame, _ = next_frame(ws, timeout=0.5)
        except (AssertionError, websocket.WebSocketTimeoutException):
            break   # no frame for half a second: the animation is over
        series = layer(frame, "series")
        if series is None:
            continue
        commands = series["commands"]
        alphas.append(next((c["alpha"] for c in commands if c["op"] == "opacity"), 1.0))
        bars = next(c for c in commands if c["op"] == "bars")
        tallest.append(max(bars["bars"][k + 3] for k in range(0, len(bars["bars"]), 4)))
    ws.close()
    assert len(alphas) >= 10, alphas
    assert alphas == sorted(alphas) and 0 < alphas[0] < 0.5 and alphas[-1] == 1.0, alphas
    assert tallest == sorted(tallest) and tallest[0] < tallest[-1] / 2, tallest


def test_tokens_roles_and_read_only_viewers(tmp_path):
    """A session with access: tokens from the config and from a tokens file; a wrong
    token is refused and the connection stays; a viewer token watches and is told it
    cannot steer; a controller token steers."""
    from conftest import Server
    (tmp_path / "tokens.json").write_text(json.dumps({"controllerTokens": ["file-controller-1"]}))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"sessions": [{
        "id": "guarded", "access": {"viewerTokens": ["viewer-token-1"], "tokensFile": "tokens.json"},
        "chart": {"series": [{"id": "s", "data": {"x": list(range(100)), "y": list(range(100))}}]}}]}))
    srv = Server("--config", str(config)).start()
    try:
        ws = connect(srv, "guarded")
        for token in [None, "wrong-token-1"]:
            ws.send(json.dumps({"type": "hello", "width": 800, "height": 500, **({"token": token} if token else {})}))
            reply = json.loads(ws.recv())
            assert reply["type"] == "error" and reply["code"] == "unauthorized", reply
            assert "wrong-token-1" not in reply["message"]
        # Still connected: the right token now.
        welcome = hello(ws, token="viewer-token-1")
        assert welcome["role"] == "viewer" and welcome["consumes"] == []
        frame, _ = next_frame(ws)
        before = cwframe.visible_x_range(layer(frame, "background"))
        x, y, w, h = cwframe.plot_rect(layer(frame, "background"))
        ws.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaY": -300, "time": 1000}))
        assert next_text(ws)["code"] == "read_only"

        c = connect(srv, "guarded")
        assert hello(c, token="file-controller-1")["role"] == "controller"
        next_frame(c)
        c.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaY": -300, "time": 1000}))
        f, _ = next_frame(c)
        assert cwframe.visible_x_range(layer(f, "background")) != before
        # The viewer sees the controller's zoom.
        f, _ = next_frame(ws)
        assert cwframe.visible_x_range(layer(f, "background")) != before
        ws.close(); c.close()
        # Data goes in with a controller token only (Authorization: Bearer).
        import urllib.error
        import urllib.request
        def append(auth):
            req = urllib.request.Request(f"{srv.http}/api/sessions/guarded/series/s/append", method="POST",
                                         data=json.dumps({"x": [200], "y": [1]}).encode(),
                                         headers={"Authorization": auth} if auth else {})
            try:
                with urllib.request.urlopen(req) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())
        assert append(None)[0] == 401
        status, body = append("Bearer viewer-token-1")
        assert status == 403 and "viewer-token-1" not in body["error"]
        assert append("Bearer file-controller-1") == (200, {"accepted": 1})
        assert srv.alive()
    finally:
        srv.stop()

"""Flow control against the real server: the acknowledged window, frame coalescing at
the session's maxFps, patches that rebuild exactly the full display list."""
import json
import time
import urllib.request

import websocket

import cwframe
from conftest import FIXTURES, Server
from test_websocket import connect, hello, layer, next_frame


def frames_within(ws, seconds):
    """Binary frames that arrive within `seconds`, not acknowledged."""
    ws.settimeout(0.05)
    out = []
    end = time.time() + seconds
    while time.time() < end:
        try:
            op, data = ws.recv_data()
        except websocket.WebSocketTimeoutException:
            continue
        if op == websocket.ABNF.OPCODE_BINARY:
            out.append(cwframe.decode(data))
    ws.settimeout(5)
    return out


def test_window_holds_frames_until_acknowledged(demo_server):
    ws = connect(demo_server, "demo")
    welcome = hello(ws)
    assert welcome["window"] == 2 and welcome["maxFps"] == 60
    # The demo changes 50 times a second; without acks only `window` frames come.
    got = frames_within(ws, 1.0)
    assert len(got) == 2, f"{len(got)} frames without an ack"
    time.sleep(0.3)
    # One ack: exactly one more frame, built from the newest state (its data is fresh,
    # not the state of 1.3 s ago when the window filled).
    ws.send(json.dumps({"type": "ack"}))
    more = frames_within(ws, 0.5)
    assert len(more) == 1
    assert more[0]["dataTime"] > got[-1]["dataTime"] + 1000
    assert abs(more[0]["dataTime"] / 1000 - time.time()) < 1.0
    ws.close()


def test_an_ack_with_nothing_outstanding_is_refused(static_server):
    ws = connect(static_server)
    hello(ws)
    next_frame(ws)                    # acknowledged by the helper
    ws.send(json.dumps({"type": "ack"}))
    ws.settimeout(5)
    err = json.loads(ws.recv())
    assert err["type"] == "error" and err["code"] == "unexpected_ack"
    ws.close()


def frame_rate(ws, seconds=2.0):
    """Frames a second received over `seconds`, each acknowledged at once (so only the
    session's pacing limits them)."""
    start, n = time.time(), 0
    while time.time() - start < seconds:
        next_frame(ws)
        n += 1
    return n / (time.time() - start)


def test_frames_are_coalesced_to_the_sessions_max_fps():
    server = Server("--config", str(FIXTURES / "slow.json")).start()
    try:
        ws = connect(server, "slow")
        hello(ws)
        next_frame(ws)
        rate = frame_rate(ws)
        # 200 points a second arrive; at most 10 publications a second go out (and on an
        # idle machine nearly 10: the lower bound only says frames keep coming).
        assert 4 <= rate <= 11, f"{rate:.1f} frames/s"
        ws.close()
    finally:
        server.stop()


def test_a_gestures_frame_leaves_before_the_publication_slot():
    """Input first: with maxFps 2, data frames come at most twice a second, and a
    wheel's answer leaves at once instead of on the next slot (up to 0.5 s away)."""
    server = Server("--config", str(FIXTURES / "input_first.json")).start()
    try:
        ws = connect(server, "paced")
        hello(ws)
        next_frame(ws)
        rate = frame_rate(ws)
        assert rate <= 2.6, f"{rate:.1f} data frames/s at maxFps 2"
        waits = []
        for k in range(4):
            next_frame(ws)            # a data publication just went: the next slot is 0.5 s away
            sent = time.time()
            ws.send(json.dumps({"type": "wheel", "x": 400, "y": 250, "deltaX": 0, "deltaY": -120 if k % 2 else 120}))
            next_frame(ws)
            waits.append(time.time() - sent)
            # Back to the extents, so the data moves the chart (and makes frames) again.
            ws.send(json.dumps({"type": "dblclick", "x": 400, "y": 250}))
            next_frame(ws)
        assert max(waits) < 0.2, f"wheel to frame: {[round(w, 3) for w in waits]} s"
        ws.close()
    finally:
        server.stop()


def test_patched_frames_rebuild_the_full_display_list(static_server):
    """Appends to a chart a viewer watches: it is sent patches, and what it holds after
    applying them is the full display list (frame.json) command for command."""
    ws = connect(static_server)
    hello(ws, width=700, height=420)
    next_frame(ws)
    patched = 0
    for i in range(12):
        xs = [1000 + i * 5 + k for k in range(5)]
        body = json.dumps({"x": xs, "y": [((x * 37) % 101) - 50 for x in xs]}).encode()
        req = urllib.request.Request(f"{static_server.http}/api/sessions/static/series/line/append", data=body,
                                     method="POST")
        urllib.request.urlopen(req).read()
        raw = None
        while True:
            op, data = ws.recv_data()
            if op == websocket.ABNF.OPCODE_BINARY:
                raw = cwframe.decode(data)
                break
        patched += sum(1 for l in raw["layers"] if "patch" in l)
        ws.held.apply(raw)
        ws.send(json.dumps({"type": "ack"}))
    with urllib.request.urlopen(f"{static_server.http}/api/sessions/static/frame.json?width=700&height=420") as r:
        full = json.load(r)
    assert patched > 0
    for l in full["layers"]:
        held = ws.held.layers[l["id"]]["commands"]
        assert [c["op"] for c in held] == [c["op"] for c in l["commands"]]
        for a, b in zip(held, l["commands"]):
            if b["op"] == "columns":
                assert a["entries"] == cwframe.json_entries(b["entries"])
                assert abs(a["x0"] - b["x0"]) < 1e-3
            elif b["op"] == "text":
                assert a["text"] == b["text"] and abs(a["x"] - b["x"]) < 1e-3 and abs(a["y"] - b["y"]) < 1e-3
    ws.close()

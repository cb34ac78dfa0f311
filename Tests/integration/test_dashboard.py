"""A dashboard over one WebSocket: the grid first, then each chart's viewer,
multiplexed by a chart index."""
import json
import re

import websocket

import cwframe
from conftest import Server
from test_control import call


def connect(server, path):
    return websocket.create_connection(f"{server.ws}/ws/{path}", subprotocols=["chartwire.v1"], timeout=5)


class DashboardReader:
    """Reads a dashboard's stream as the page does: every binary frame is applied to
    what its chart holds (a patch is against the version the server last sent for that
    chart, so no frame may be skipped) and acknowledged for that chart."""

    def __init__(self, ws, charts):
        self.ws = ws
        self.held = {i: cwframe.Held() for i in charts}

    def next(self):
        """("text", message) or ("frame", chart index, frame with every layer whole)."""
        op, data = self.ws.recv_data()
        if op == websocket.ABNF.OPCODE_TEXT:
            return "text", json.loads(data)
        assert op == websocket.ABNF.OPCODE_BINARY, (op, data[:8])
        assert data[:3] == b"CWD", data[:8]
        i = data[3]
        assert i in self.held, f"a frame for chart {i}, which said no hello"
        frame = self.held[i].apply(cwframe.decode(data[4:]))
        self.ws.send(json.dumps({"type": "ack", "chart": i}))
        return "frame", i, frame

    def next_text(self):
        while True:
            got = self.next()
            if got[0] == "text":
                return got[1]


def test_a_dashboard_multiplexes_its_charts(demo_server):
    ws = connect(demo_server, "d/ops")
    grid = json.loads(ws.recv())
    assert grid["type"] == "dashboard" and grid["columns"] == 2
    assert [c["session"] for c in grid["charts"]] == ["servers", "monitor", "queue", "demo"]
    assert [c["chart"] for c in grid["charts"]] == [0, 1, 2, 3] and grid["charts"][0]["columnSpan"] == 2
    # Two of the charts say hello, at different sizes.
    for i, (w, h) in [(0, (900, 300)), (2, (450, 300))]:
        ws.send(json.dumps({"type": "hello", "chart": i, "width": w, "height": h}))
    reader = DashboardReader(ws, [0, 2])
    welcomes, frames = {}, {}
    while len(welcomes) < 2 or len(frames) < 2:
        got = reader.next()
        if got[0] == "text":
            if got[1]["type"] == "welcome":
                welcomes[got[1]["chart"]] = got[1]
            continue
        frames[got[1]] = got[2]
    assert welcomes[0]["session"] == "servers" and welcomes[0]["viewMode"] == "independent"
    assert welcomes[2]["session"] == "queue"
    assert (frames[0]["width"], frames[2]["width"]) == (900, 450)
    # Chart 1 never said hello: nothing comes for it (the reader refuses a frame for a
    # chart without a hello), and the others keep coming.
    seen = set()
    for _ in range(6):
        got = reader.next()
        if got[0] == "frame":
            seen.add(got[1])
    assert seen <= {0, 2} and 0 in seen
    # servers (0) and queue (2) are one event group: a hover over chart 0 draws the
    # rollover on chart 2 too, for this page only.
    ws.send(json.dumps({"type": "pointer", "chart": 0, "phase": "move", "x": 450, "y": 150, "buttons": 0,
                        "pointerType": "mouse"}))
    for _ in range(60):
        got = reader.next()
        if got[0] != "frame":
            continue
        mod = next((l for l in got[2]["layers"] if l["id"] == "modifier"), None)
        if got[1] == 2 and mod and mod["commands"]:
            break
    else:
        raise AssertionError("the hover over chart 0 did not show on chart 2")
    # Messages without a chart, or for one the dashboard does not have, are refused.
    for bad in [{"type": "ack"}, {"type": "ack", "chart": 9}, {"type": "ack", "chart": "0"}]:
        ws.send(json.dumps(bad))
        while True:
            msg = reader.next_text()
            if msg["type"] == "error":
                assert msg["code"] == "bad_field" and "chart" in msg["message"], msg
                break
    # A gesture for one chart reaches its session's viewer: a wheel on the independent
    # chart answers with a frame for chart 0.
    def px_per_second(bg):
        # Two time labels along the x axis: pixels between them over seconds between them.
        ticks = [(c["x"], sum(int(p) * m for p, m in zip(c["text"].split(":"), (3600, 60, 1))))
                 for c in bg["commands"] if c["op"] == "text" and re.fullmatch(r"\d\d:\d\d:\d\d", c["text"])]
        (x0, t0), (x1, t1) = ticks[0], ticks[-1]
        return (x1 - x0) / (t1 - t0)
    before = px_per_second(reader.held[0].layers["background"])
    ws.send(json.dumps({"type": "wheel", "chart": 0, "x": 450, "y": 150, "deltaY": -300}))
    for _ in range(50):
        got = reader.next()
        if got[0] == "frame" and got[1] == 0:
            bg = next((l for l in got[2]["layers"] if l["id"] == "background"), None)
            if bg and px_per_second(bg) > before * 1.1:
                break
    else:
        raise AssertionError("the wheel did not zoom chart 0")
    ws.close()


def test_dashboard_sessions_are_kept_and_unknown_dashboards_refused(demo_server):
    status, body = call(demo_server, "DELETE", "/api/sessions/queue")
    assert status == 409 and "dashboard" in body["error"]
    try:
        connect(demo_server, "d/nope")
        raise AssertionError("an unknown dashboard was accepted")
    except websocket.WebSocketBadStatusException as e:
        assert e.status_code == 404
    status, body = call(demo_server, "GET", "/api/dashboards")
    assert status == 200 and body["dashboards"][0]["charts"] == ["servers", "monitor", "queue", "demo"]


def test_a_bad_dashboard_in_the_config_is_a_startup_error(tmp_path):
    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"sessions": [{"id": "a", "chart": {}}],
                                  "dashboards": [{"id": "d", "charts": [{"session": "nope"}]}]}))
    srv = Server("--config", str(config))
    try:
        srv.start()
        raise AssertionError("the server started")
    except RuntimeError as e:
        assert '$.dashboards[0].charts[0].session: no session \\"nope\\"' in str(e) or "no session" in str(e)
    finally:
        srv.stop()


def test_the_ops_dashboard_fits_the_window_and_names_each_chart_once(demo_server):
    """At 1400x900 every chart of /d/ops is whole in the window (the rows share its
    height), and a chart's title is drawn by the chart alone: the cell has only a small
    link to the session, named for screen readers."""
    from test_browser import browser, wait_for
    d = browser(1400, 900)
    try:
        d.get(f"{demo_server.http}/d/ops")
        wait_for(d, "return window.chartwire && window.chartwire.charts.length === 4"
                    " && window.chartwire.charts.every(c => c.draws > 0)", message="four charts drawn")
        cells = d.execute_script("""
            return [...document.querySelectorAll('#chart .cell')].map(c => {
              const r = c.getBoundingClientRect(), a = c.querySelector('a.open');
              return {top: r.top, bottom: r.bottom, link: a.getBoundingClientRect().width, name: a.textContent,
                      named: a.querySelector('.name').getBoundingClientRect().width,
                      h2: c.querySelectorAll('h2').length};
            });""")
        height = d.execute_script("return window.innerHeight")
        assert len(cells) == 4
        for c in cells:
            assert c["bottom"] <= height + 0.5, (c, height)
            # A small link, its name (the session's title) not shown.
            assert c["h2"] == 0 and c["link"] < 40 and c["named"] <= 1, c
        assert [c["name"].lstrip("\u2197") for c in cells][0].startswith("Server load"), cells
    finally:
        d.quit()

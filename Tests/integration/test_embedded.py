"""The embedding example (examples/embedded): a Swift program hosting its own chart
through the ChartWireServer library, fed from its own timer, steered by its own
modifier."""
import json
import os
import select
import subprocess
import urllib.request

from conftest import ROOT, server_binary
from test_websocket import connect, frame_with_text, hello, layer, next_frame


def start_example():
    """The example on a free port: its process, and the port its first line names."""
    binary = os.path.join(os.path.dirname(server_binary()), "embedded-example")
    proc = subprocess.Popen([binary, "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([proc.stdout], [], [], 20)
    if not ready:
        proc.kill()
        raise AssertionError("the example did not start")
    line = proc.stdout.readline()
    assert line.startswith("listening on http://127.0.0.1:"), line
    return proc, int(line.split(":")[2].split(" ")[0])


def test_a_swift_program_hosts_feeds_and_steers_its_own_chart():
    proc, port = start_example()
    try:

        class Srv:
            ws = f"ws://127.0.0.1:{port}"
        ws = connect(Srv, "plant")
        welcome = hello(ws, width=900, height=500)
        assert welcome["title"] == "Plant (embedded)"
        assert [s["id"] for s in welcome["series"]] == ["pressure", "setpoint"]
        # The program's timer feeds it: points arrive, and frames follow them.
        def points():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/sessions") as r:
                return [s["points"] for s in json.loads(r.read())["sessions"][0]["series"]]
        first = points()
        series_layers = set()
        drawn, overlay = [], []
        for _ in range(10):
            frame, _ = next_frame(ws)
            drawn += [c for l in frame["layers"] for c in l["commands"]]
            if layer(frame, "overlay"):
                overlay = layer(frame, "overlay")["commands"]
            if layer(frame, "series"):
                series_layers.add(json.dumps(layer(frame, "series")["commands"]))
        # Its legend item renderer and custom annotation, drawn in Swift: the set point's
        # entry renamed with a step symbol clipped to its box, and the shaded operating range.
        assert "Set point (target)" in [c.get("text") for c in drawn if c.get("op") == "text"]
        symbol = [i for i, c in enumerate(overlay) if c.get("op") == "clip" and c.get("w") == 18]
        assert len(symbol) == 1 and overlay[symbol[0] + 1]["op"] == "polyline" and overlay[symbol[0] + 2]["op"] == "unclip", overlay
        assert any(c.get("op") == "rect" and c.get("fill") == "#e6f4ea" for c in drawn), "no operating range"
        later = points()
        assert later[0] > first[0] and later[1] > first[1], (first, later)
        assert len(series_layers) >= 2, "the drawn series changed as points came in"
        # Its own modifier: a tap on the plot drops a marker labelled with the value.
        ws.send(json.dumps({"type": "pointer", "phase": "down", "x": 450, "y": 250, "button": 0, "buttons": 1,
                            "pointerId": 1, "pointerType": "mouse", "time": 1000}))
        ws.send(json.dumps({"type": "pointer", "phase": "up", "x": 450, "y": 250, "button": 0, "buttons": 0,
                            "pointerId": 1, "pointerType": "mouse", "time": 1080}))
        frame_with_text(ws, lambda t: t.startswith("● "), 40, "the tap's marker")
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_spec_names_the_programs_crosshair_class():
    """The example registers its crosshair subclass as "plant": a session POSTed with
    {"type": "crosshair", "class": "plant"} draws through it (values in bar); a class
    the program has not registered is refused with its path and the names it has."""
    proc, port = start_example()
    try:

        def post(spec):
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/sessions", data=json.dumps(spec).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(req) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        def spec(sid, cls):
            return {"id": sid, "chart": {"series": [{"id": "p", "data": {"x": [0, 1, 2, 3, 4], "y": [1, 2, 3, 4, 5]}}],
                                         "modifiers": [{"type": "crosshair", "mode": "floating", "class": cls}]}}

        status, body = post(spec("other", "nope"))
        assert status == 400, body
        assert '$.chart.modifiers[0].class: no crosshair class "nope" in this program: it registers "plant"' in body.replace('\\"', '"'), body
        status, body = post(spec("trades", "plant"))
        assert status == 201, body

        class Srv:
            ws = f"ws://127.0.0.1:{port}"
        ws = connect(Srv, "trades")
        hello(ws, width=900, height=500)
        next_frame(ws)
        ws.send(json.dumps({"type": "pointer", "phase": "move", "x": 450, "y": 250, "button": 0, "buttons": 0,
                            "pointerId": 1, "pointerType": "mouse", "time": 1000}))
        frame_with_text(ws, lambda t: t.endswith(" bar"), 20, "the crosshair's value in bar")
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(10)

"""A crosshair class named in a spec (docs/modifiers.md, "Subclassing the crosshair"),
on the plain server, which registers none: a config file naming one starts with the
plain crosshair and a warning; a spec sent naming one is refused with its path. (The
embedded example registers one: test_embedded.py.)"""
import json
import urllib.error
import urllib.request

from conftest import Server
from test_websocket import connect, frame_with_text, hello, next_frame

SPEC = {"id": "trades", "chart": {
    "series": [{"id": "p", "data": {"x": [0, 1, 2, 3, 4], "y": [1, 2, 3, 4, 5]}}],
    "modifiers": [{"type": "zoomPan"}, {"type": "crosshair", "mode": "floating", "class": "trade"}]}}


def request(server, method, path, body):
    req = urllib.request.Request(server.http + path, data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_an_unregistered_class_in_the_config_is_the_plain_crosshair_with_a_warning(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"sessions": [SPEC]}))
    s = Server("--config", str(config))
    s.args.remove("--quiet")
    s.start()
    try:
        # The plain crosshair draws: hovering shows the tooltip's values.
        ws = connect(s, "trades")
        hello(ws, width=900, height=500)
        next_frame(ws)
        ws.send(json.dumps({"type": "pointer", "phase": "move", "x": 450, "y": 250, "button": 0, "buttons": 0,
                            "pointerId": 1, "pointerType": "mouse", "time": 1000}))
        frame_with_text(ws, lambda t: t.startswith("y: "), 20, "a crosshair tooltip")
        # The spec keeps the name (a program registering it later gets the subclass).
        with urllib.request.urlopen(s.http + "/api/sessions/trades/spec", timeout=5) as r:
            assert json.loads(r.read())["chart"]["modifiers"][1]["class"] == "trade"
        # A change that leaves the modifiers alone is taken, its answer warning of the stand-in.
        status, answer = request(s, "PATCH", "/api/sessions/trades", {"title": "Trades"})
        assert status == 200, answer
        assert answer["warnings"] == ['$.chart.modifiers[1].class: crosshair class "trade" is not registered in this '
                                      'program (CrosshairModifier.register): the plain crosshair stands in'], answer
        # One naming the class is refused at the door, with the path and the names it has.
        status, body = request(s, "PATCH", "/api/sessions/trades",
                               {"chart": {"modifiers": [{"type": "crosshair", "class": "trade"}]}})
        assert status == 400
        assert ('$.chart.modifiers[0].class: no crosshair class "trade" in this program: it registers none '
                '(CrosshairModifier.register)') in body.replace('\\"', '"'), body
        other = {**SPEC, "id": "other"}
        status, body = request(s, "POST", "/api/sessions", other)
        assert status == 400 and 'modifiers[1].class: no crosshair class' in body.replace('\\"', '"'), body
        status, body = request(s, "POST", "/api/sessions", {**other, "chart": {**other["chart"], "modifiers": [
            {"type": "crosshair", "class": ""}]}})
        assert status == 400 and "$.chart.modifiers[0].class: expected a class name of 1 to 64 characters" in body, body
    finally:
        s.stop()
    log = s.proc.stderr.read()
    assert ('warn hooks: session "trades": crosshair class "trade" is not registered in this program '
            '(CrosshairModifier.register, before the server starts): it shows the plain crosshair') in log, log

"""Vertical bands through the real server (docs/series.md, "Vertical bands"): a band
whose key is y and whose two values are x and x1, fed by JSON appends over HTTP and
a publisher WebSocket, changed in place, exported, and kept across a restart."""
import json
import struct
import urllib.request

import websocket

from conftest import Server
from test_control import call

SPEC = {"id": "vb", "chart": {"series": [
    {"id": "v", "name": "Reach", "type": "band", "orientation": "vertical",
     "data": {"y": [0, 1, 2], "x": [1, 2, 1], "x1": [3, 4, 5]}}]}}


def points(server):
    status, spec = call(server, "GET", "/api/sessions/vb/spec?data=1")
    assert status == 200
    s = spec["chart"]["series"][0]
    assert s["orientation"] == "vertical"
    return s["data"]


def test_appends_changes_and_export_use_y_x_and_x1(tmp_path):
    srv = Server("--no-demo").start()
    try:
        assert call(srv, "POST", "/api/sessions", SPEC)[0] == 201
        base = "/api/sessions/vb/series/v"
        # Rows out of key order are merged where their y belongs.
        assert call(srv, "POST", base + "/append", {"y": [5, 1.5], "x": [0, 2.5], "x1": [6, 3.5]}) == (200, {"accepted": 2})
        assert points(srv) == {"y": [0, 1, 1.5, 2, 5], "x": [1, 2, 2.5, 1, 0], "x1": [3, 4, 3.5, 5, 6]}
        # A horizontal band's names, a half gap, the binary body: refused whole, named.
        status, body = call(srv, "POST", base + "/append", {"x": [6], "y": [1], "y1": [2]})
        assert status == 400 and '"x1"' in body["error"], body
        status, body = call(srv, "POST", base + "/append", {"y": [6, 7], "x": [1, 2], "x1": [3, None]})
        assert status == 400 and body["error"] == "point 1: x and x1 must both be numbers, or both null (a gap)", body
        binary = b"CWA1" + struct.pack("<I", 1) + struct.pack("<d", 6) + struct.pack("<d", 1)
        status, body = call(srv, "POST", base + "/append", binary)
        assert status == 400 and "takes JSON with y, x, x1" in body["error"], body
        assert len(points(srv)["y"]) == 5
        # In place: update takes x and x1 for points index, index+1, ...
        assert call(srv, "POST", base + "/update", {"index": 0, "x": [-1], "x1": [9]}) == (200, {"accepted": 1})
        assert points(srv)["x"][0] == -1 and points(srv)["x1"][0] == 9
        # A publisher's batch, as JSON text.
        ws = websocket.create_connection(f"{srv.ws}/publish/vb/v", subprotocols=["chartwire.publish.v1"], timeout=5)
        ws.send(json.dumps({"y": [6], "x": [0.5], "x1": [1.5]}))
        ack = json.loads(ws.recv())
        assert ack["type"] == "ack" and ack["accepted"] == 1, ack
        ws.close()
        assert points(srv)["y"][-1] == 6
        # The export names the key y and the values x and x1.
        with urllib.request.urlopen(srv.http + "/api/sessions/vb/data.csv?format=raw") as r:
            rows = r.read().decode().split("\r\n")
        assert rows[0] == "series,name,x,y,x1" and rows[1] == "v,Reach,-1,0,9", rows[:2]
    finally:
        srv.stop()


def test_a_vertical_band_survives_a_restart(tmp_path):
    data = str(tmp_path / "data")
    srv = Server("--no-demo", "--data", data).start()
    try:
        assert call(srv, "POST", "/api/sessions", SPEC)[0] == 201
        assert call(srv, "POST", "/api/sessions/vb/series/v/append", {"y": [3, 4], "x": [0, -1], "x1": [2, 1]})[0] == 200
        before = points(srv)
    finally:
        srv.stop()
    srv = Server("--no-demo", "--data", data).start()
    try:
        assert points(srv) == before == {"y": [0, 1, 2, 3, 4], "x": [1, 2, 1, 0, -1], "x1": [3, 4, 5, 2, 1]}
        # Still a vertical band: it takes y, x and x1.
        assert call(srv, "POST", "/api/sessions/vb/series/v/append", {"y": [5], "x": [0], "x1": [1]}) == (200, {"accepted": 1})
    finally:
        srv.stop()

"""Live control of the real server: sessions created, replaced, patched, read back
and removed at runtime over HTTP, and patched by a controller over its WebSocket."""
import json
import urllib.error
import urllib.request

import websocket

import cwframe
from conftest import Server
from test_websocket import connect, hello, layer, next_frame, next_text

SPEC = {"id": "live", "title": "Live", "chart": {
    "series": [{"id": "a", "name": "A", "data": {"x": [0, 1, 2, 3], "y": [1, 3, 2, 4]}}]}}


def call(server, method, path, body=None, token=None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(server.http + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def titles(frame):
    return [c.get("text") for l in frame["layers"] for c in l["commands"] if c.get("op") == "text"]


def test_sessions_are_created_patched_read_back_and_removed():
    srv = Server("--no-demo").start()
    try:
        assert call(srv, "POST", "/api/sessions", SPEC) == (201, {"id": "live", "created": True})
        status, body = call(srv, "POST", "/api/sessions", SPEC)
        assert status == 409 and "PUT" in body["error"]
        # A bad spec names the JSON path of its fault and creates nothing.
        status, body = call(srv, "POST", "/api/sessions", {"id": "bad", "chart": {"series": [{"id": "s", "type": "nope"}]}})
        assert status == 400 and body["error"].startswith("$.chart.series[0].type")
        assert call(srv, "POST", "/api/sessions", b"{not json")[0] == 400
        assert [s["id"] for s in call(srv, "GET", "/api/sessions")[1]["sessions"]] == ["live"]

        # A viewer watches while the chart changes under it.
        ws = connect(srv, "live")
        hello(ws)
        next_frame(ws)

        assert call(srv, "POST", "/api/sessions/live/series/a/append", {"x": [4, 5], "y": [5, 6]})[0] == 200
        status, body = call(srv, "PATCH", "/api/sessions/live", {
            "title": "Renamed", "chart": {"title": "Drawn title", "series": [{"id": "b", "name": "B", "type": "column"}]}})
        assert status == 200 and body["id"] == "live"
        # The viewer is welcomed again (new title, new series) and sent the change.
        texts = []
        for _ in range(10):
            frame, before = next_frame(ws)
            texts += before
            if "Drawn title" in titles(frame):
                break
        else:
            raise AssertionError("the new chart title was never drawn")
        welcome = next((t for t in texts if t["type"] == "welcome"), None)
        assert welcome and welcome["title"] == "Renamed" and [s["id"] for s in welcome["series"]] == ["a", "b"]

        # Refused patches change nothing.
        version = body["version"]
        for bad, path in [({"chart": {"series": [{"id": "a", "yAxis": "nope"}]}}, "$.chart.series[0].yAxis"),
                          ({"chart": {"series": [{"id": "zz", "remove": True}]}}, "$.chart.series[0]"),
                          ({"access": {"tokensFile": "/etc/passwd"}}, "$.access.tokensFile"),
                          ([1, 2], "$")]:
            status, body = call(srv, "PATCH", "/api/sessions/live", bad)
            assert status == 400 and body["error"].startswith(path), body
        assert call(srv, "PATCH", "/api/sessions/nope", {"title": "x"})[0] == 404

        # The live state, read back, carries the appended points and loads as it is.
        status, spec = call(srv, "GET", "/api/sessions/live/spec?data=1")
        assert status == 200 and spec["title"] == "Renamed"
        a = next(s for s in spec["chart"]["series"] if s["id"] == "a")
        assert a["data"] == {"x": [0, 1, 2, 3, 4, 5], "y": [1, 3, 2, 4, 5, 6]}
        spec["id"] = "copy"
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        _, listing = call(srv, "GET", "/api/sessions")
        copy = next(s for s in listing["sessions"] if s["id"] == "copy")
        assert [s["points"] for s in copy["series"]] == [6, 0]

        # PUT replaces the whole definition; on a new id it creates.
        status, body = call(srv, "PUT", "/api/sessions/live", {"chart": {"series": [{"id": "c"}]}})
        assert status == 200 and body["replaced"] is True
        _, listing = call(srv, "GET", "/api/sessions")
        assert next(s for s in listing["sessions"] if s["id"] == "live")["series"] == [{"id": "c", "name": "c", "points": 0}]
        assert call(srv, "PUT", "/api/sessions/other", {"chart": {}})[0] == 201
        status, body = call(srv, "PUT", "/api/sessions/other", {"id": "different", "chart": {}})
        assert status == 400 and "$.id" in body["error"]

        # DELETE: the viewer is told and its connection closes.
        assert call(srv, "DELETE", "/api/sessions/live") == (200, {"removed": "live"})
        while True:
            raw = ws.recv()
            if isinstance(raw, bytes):
                continue  # a frame still on its way (a slow server)
            msg = json.loads(raw)
            if msg["type"] == "error":
                assert msg["code"] == "session_removed"
                break
        try:
            assert ws.recv() == ""  # closed
        except websocket.WebSocketConnectionClosedException:
            pass
        assert call(srv, "DELETE", "/api/sessions/live")[0] == 404
        assert srv.alive()
    finally:
        srv.stop()


def test_control_token_and_session_tokens_guard_live_control():
    srv = Server(env={"CHARTWIRE_CONTROL_TOKEN": "control-token-1"}).start()
    try:
        # Creating sessions needs the server's control token.
        assert call(srv, "POST", "/api/sessions", SPEC)[0] == 401
        status, body = call(srv, "POST", "/api/sessions", SPEC, token="wrong-token-1")
        assert status == 403 and "wrong-token-1" not in body["error"]
        assert call(srv, "POST", "/api/sessions", SPEC, token="control-token-1")[0] == 201
        # An open session's definition also needs it (its data does not).
        assert call(srv, "PATCH", "/api/sessions/live", {"title": "x"})[0] == 401
        assert call(srv, "POST", "/api/sessions/live/series/a/append", {"x": [9], "y": [1]})[0] == 200
        # The demo's steerable session: its controller token, or the control token.
        assert call(srv, "PATCH", "/api/sessions/axes", {"title": "x"})[0] == 401
        assert call(srv, "GET", "/api/sessions/axes/spec")[0] == 401
        assert call(srv, "PATCH", "/api/sessions/axes", {"title": "Steered"}, token="demo-controller")[0] == 200
        status, spec = call(srv, "GET", "/api/sessions/axes/spec", token="control-token-1")
        assert status == 200 and spec["title"] == "Steered"
        assert "controllerTokens" not in spec.get("access", {}), "tokens are never sent back"
        assert "demo-controller" not in json.dumps(spec)
        assert call(srv, "DELETE", "/api/sessions/monitor")[0] == 401
        # monitor is on the demo dashboard: it stays; axes is not.
        assert call(srv, "DELETE", "/api/sessions/monitor", token="control-token-1")[0] == 409
        assert call(srv, "DELETE", "/api/sessions/axes", token="control-token-1")[0] == 200
        assert srv.alive()
    finally:
        srv.stop()


def test_a_controller_patches_over_its_websocket(demo_server):
    c = connect(demo_server, "axes")
    hello(c, token="demo-controller")
    next_frame(c)
    v = connect(demo_server, "axes")
    hello(v)  # the anonymous viewer of this session watches
    next_frame(v)
    v.send(json.dumps({"type": "patch", "spec": {"title": "Nope"}}))
    assert next_text(v)["code"] == "read_only"
    c.send(json.dumps({"type": "patch", "spec": {"chart": {"series": [{"id": "nope", "remove": True}]}}}))
    reply = next_text(c)
    assert reply["code"] == "bad_patch" and "$.chart.series[0]" in reply["message"]
    c.send(json.dumps({"type": "patch", "spec": {"title": "Patched live"}}))
    assert next_text(c)["type"] == "patched"
    # The watcher is welcomed again with the new title.
    while True:
        msg = next_text(v)
        if msg["type"] == "welcome":
            assert msg["title"] == "Patched live"
            break

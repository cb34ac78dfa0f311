"""x given as category names: appends, replacements and publisher batches of a
series on a category axis may name the categories instead of their positions."""
import json

import websocket

from conftest import Server
from test_control import call


def test_appends_name_the_categories_of_the_x_axis():
    srv = Server("--no-demo").start()
    try:
        spec = {"id": "cat", "chart": {"xAxes": [{"id": "d", "type": "category", "categories": ["Mon", "Tue", "Wed", "Thu"]}],
                                       "series": [{"id": "s", "type": "column", "data": {"x": ["Mon", "Tue"], "y": [3, 4]}}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        assert call(srv, "POST", "/api/sessions/cat/series/s/append", {"x": ["Thu", "Wed"], "y": [7, 6]}) == (200, {"accepted": 2})
        status, body = call(srv, "POST", "/api/sessions/cat/series/s/append", {"x": ["Sun"], "y": [1]})
        assert status == 400 and '"Sun" is not a category of axis "d"' in body["error"] and "$.x[0]" in body["error"], body
        status, body = call(srv, "GET", "/api/sessions/cat/data.json?format=raw")
        assert body["series"][0]["x"] == [0, 1, 2, 3] and body["series"][0]["y"] == [3, 4, 6, 7], body
        # A publisher's batches too.
        ws = websocket.create_connection(f"{srv.ws}/publish/cat/s", subprotocols=["chartwire.publish.v1"], timeout=5)
        ws.send(json.dumps({"x": ["Tue"], "y": [9]}))
        ack = json.loads(ws.recv())
        assert ack.get("accepted") == 1, ack
        ws.close()
        assert call(srv, "GET", "/api/sessions/cat")[1]["series"][0]["points"] == 5
    finally:
        srv.stop()

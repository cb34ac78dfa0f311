"""The HTTP client against the real server: sessions defined, changed, read back and
removed; points appended (binary and JSON), split past the point limit, changed in
place; errors mapped to ChartWireError."""
from __future__ import annotations

import math
import pathlib
import re
import socket
from typing import Any, Dict, List

import numpy as np
import pandas as pd
import pytest

import chartwire
from chartwire import ChartWireError, Client, _columns
from chartwire_server import Server


def series_points(client: Client, session: str) -> Dict[str, int]:
    s = next(s for s in client.sessions() if s["id"] == session)
    return {x["id"]: x["points"] for x in s["series"]}


def data(client: Client, session: str, series: str) -> Dict[str, Any]:
    spec = client.spec(session, data=True)
    return next(s for s in spec["chart"]["series"] if s["id"] == series)["data"]


@pytest.fixture
def requests(monkeypatch) -> List[Dict[str, Any]]:
    """Every request the client makes: method, path, content type and body."""
    seen: List[Dict[str, Any]] = []
    real = Client._request

    def spy(self, method, path, body=None, content_type="application/json", query=None):
        seen.append({"method": method, "path": path, "type": content_type if body is not None else None,
                     "body": body, "query": query})
        return real(self, method, path, body, content_type, query)

    monkeypatch.setattr(Client, "_request", spy)
    return seen


def test_sessions_are_created_patched_read_back_replaced_and_removed(client, sid):
    spec = {"id": sid, "title": "First", "chart": {"series": [{"id": "a", "data": {"x": [0, 1], "y": [1, 2]}}]}}
    assert client.create_session(spec) == {"id": sid, "created": True}
    listed = next(s for s in client.sessions() if s["id"] == sid)
    assert listed["title"] == "First" and listed["viewers"] == 0
    assert listed["series"] == [{"id": "a", "name": "a", "points": 2}]

    with pytest.raises(ChartWireError) as e:
        client.create_session(spec)
    assert e.value.status == 409 and sid in e.value.message

    answer = client.patch_session(sid, {"title": "Patched", "chart": {"series": [{"id": "b", "type": "column"}]}})
    assert answer["id"] == sid and isinstance(answer["version"], int)
    back = client.spec(sid)
    assert back["title"] == "Patched"
    assert [(s["id"], s.get("type", "line")) for s in back["chart"]["series"]] == [("a", "line"), ("b", "column")]
    assert "data" not in back["chart"]["series"][1] or not back["chart"]["series"][1]["data"].get("x")
    assert client.spec(sid, data=True)["chart"]["series"][0]["data"] == {"x": [0, 1], "y": [1, 2]}

    # PUT replaces the whole definition (the id may be left out); on a new id it creates.
    answer = client.put_session(sid, {"title": "Put", "chart": {"series": [{"id": "c"}]}})
    assert answer["replaced"] is True and answer["id"] == sid
    assert series_points(client, sid) == {"c": 0}
    assert client.put_session(sid + "-new", {"chart": {}}) == {"id": sid + "-new", "created": True}

    assert client.delete_session(sid) == {"removed": sid}
    assert client.delete_session(sid + "-new") == {"removed": sid + "-new"}
    assert sid not in [s["id"] for s in client.sessions()]
    with pytest.raises(ChartWireError) as e:
        client.delete_session(sid)
    assert e.value.status == 404


def test_numpy_arrays_go_in_binary_with_nan_as_a_gap(client, sid, requests):
    client.create_session({"id": sid, "chart": {"series": [{"id": "a"}]}})
    x = np.arange(10, dtype=np.float64) + 100
    y = np.linspace(0, 1, 10)
    y[3] = np.nan
    assert client.append(sid, "a", x, y) == 10
    sent = requests[-1]
    assert sent["path"] == f"/api/sessions/{sid}/series/a/append"
    assert sent["type"] == "application/octet-stream" and sent["body"][:4] == b"CWA1" and len(sent["body"]) == 8 + 160
    assert series_points(client, sid) == {"a": 10}
    got = data(client, sid, "a")
    assert got["x"] == x.tolist()
    assert got["y"][3] is None
    assert [v for i, v in enumerate(got["y"]) if i != 3] == [v for i, v in enumerate(y.tolist()) if i != 3]

    # Plain lists (None a gap) and integer arrays take the same route.
    assert client.append(sid, "a", [110, 111], [None, 5]) == 2
    assert client.append(sid, "a", np.array([112, 113], dtype=np.int32), np.array([6, 7], dtype=np.int64)) == 2
    got = data(client, sid, "a")
    assert got["x"][-4:] == [110, 111, 112, 113] and got["y"][-4:] == [None, 5, 6, 7]


def test_a_pandas_series_with_a_datetime_index_arrives_as_unix_seconds(client, sid):
    client.create_session({"id": sid, "chart": {"xAxes": [{"id": "t", "type": "time"}],
                                                "series": [{"id": "naive"}, {"id": "aware"}]}})
    naive = pd.Series([1.5, np.nan, 3.5], index=pd.date_range("2024-03-01 12:00", periods=3, freq="30s"))
    assert client.append(sid, "naive", naive) == 3
    aware = pd.Series([7.0, 8.0], index=pd.date_range("2024-03-01 13:00", periods=2, freq="min", tz="Europe/Berlin"))
    assert client.append(sid, "aware", aware) == 2
    t0 = 1709294400.0  # 2024-03-01T12:00:00Z
    assert data(client, sid, "naive") == {"x": [t0, t0 + 30, t0 + 60], "y": [1.5, None, 3.5]}
    # 13:00 in Berlin (UTC+1 in March) is 12:00 UTC.
    assert data(client, sid, "aware") == {"x": [t0, t0 + 60], "y": [7.0, 8.0]}


def test_candlesticks_go_as_json_with_their_own_fields(client, sid, requests):
    client.create_session({"id": sid, "chart": {"series": [{"id": "c", "type": "candlestick"},
                                                           {"id": "band", "type": "band"}]}})
    n = client.append(sid, "c", [1, 2, 3], open=[10, None, 11], high=[12, None, 13.5],
                      low=[9, np.nan, 10.5], close=[11, None, 13])
    assert n == 3 and requests[-1]["type"] == "application/json"
    assert data(client, sid, "c") == {"x": [1, 2, 3], "open": [10, None, 11], "high": [12, None, 13.5],
                                      "low": [9, None, 10.5], "close": [11, None, 13]}
    # A DataFrame alone: its index is x, its columns the fields.
    df = pd.DataFrame({"open": [13.0], "high": [14.0], "low": [12.0], "close": [12.5]}, index=[4])
    assert client.append(sid, "c", df) == 1
    assert data(client, sid, "c")["close"][-1] == 12.5
    # y with other fields (a band).
    assert client.append(sid, "band", [1, 2], [1, 2], y1=[2, 1]) == 2
    assert data(client, sid, "band") == {"x": [1, 2], "y": [1, 2], "y1": [2, 1]}
    # A vertical band: its key y, its values x and x1 (rows in any key order).
    client.create_session({"id": sid + "-v", "chart": {"series": [{"id": "v", "type": "band", "orientation": "vertical"}]}})
    assert client.append_vertical(sid + "-v", "v", y=[2, 1, 3], x=[0.5, 1, None], x1=np.array([2.5, 3, np.nan])) == 3
    assert requests[-1]["type"] == "application/json"
    assert data(client, sid + "-v", "v") == {"y": [1, 2, 3], "x": [1, 0.5, None], "x1": [3, 2.5, None]}
    with pytest.raises(ValueError):
        client.append_vertical(sid + "-v", "v", y=[1, 2], x=[1], x1=[2, 3])
    # The server's own check: a low above the open.
    with pytest.raises(ChartWireError) as e:
        client.append(sid, "c", [5], open=[10], high=[12], low=[11], close=[11])
    assert e.value.status == 400 and e.value.message


def test_more_than_a_million_points_go_in_several_requests(client, sid, requests):
    client.create_session({"id": sid, "chart": {"series": [{"id": "big"}]}})
    n = 1_200_000
    x = np.arange(n, dtype=np.float64)
    y = np.sin(x / 1000)
    assert client.append(sid, "big", x, y) == n
    appends = [r for r in requests if r["path"].endswith("/append")]
    assert [(len(r["body"]) - 8) // 16 for r in appends] == [1_000_000, 200_000]
    assert series_points(client, sid) == {"big": n}
    got = data(client, sid, "big")
    assert got["x"][999_999:1_000_001] == [999_999.0, 1_000_000.0] and got["x"][-1] == n - 1
    assert got["y"][1_000_000] == y[1_000_000]


def test_data_changes_in_place(client, sid):
    client.create_session({"id": sid, "chart": {"series": [{"id": "a"}, {"id": "c", "type": "candlestick"}]}})
    assert client.append(sid, "a", [0, 1, 2, 3], [0, 10, 20, 30]) == 4
    assert client.insert(sid, "a", 2, [1.5], [15]) == 1
    assert client.update(sid, "a", 0, [5, None]) == 2
    assert data(client, sid, "a") == {"x": [0, 1, 1.5, 2, 3], "y": [5, None, 15, 20, 30]}
    assert client.remove_first(sid, "a", 2) == 2
    assert data(client, sid, "a") == {"x": [1.5, 2, 3], "y": [15, 20, 30]}
    assert client.replace(sid, "a", np.array([7.0, 8.0]), np.array([70.0, np.nan])) == 2
    assert data(client, sid, "a") == {"x": [7, 8], "y": [70, None]}
    assert client.clear(sid, "a") == 2
    assert series_points(client, sid)["a"] == 0
    # Candles update by field name.
    client.append(sid, "c", [1], open=[1], high=[3], low=[0], close=[2])
    assert client.update(sid, "c", 0, open=[2], high=[4], low=[1], close=[3]) == 1
    assert data(client, sid, "c") == {"x": [1], "open": [2], "high": [4], "low": [1], "close": [3]}
    with pytest.raises(ChartWireError) as e:
        client.remove_first(sid, "a", 5)
    assert e.value.status == 400


def test_errors_carry_the_status_and_the_servers_message(client, sid):
    with pytest.raises(ChartWireError) as e:
        client.append("no-such-session", "a", [1], [1])
    assert e.value.status == 404 and "no-such-session" in e.value.message
    assert "404" in str(e.value)

    with pytest.raises(ChartWireError) as e:
        client.create_session({"id": sid, "chart": {"series": [{"id": "s", "type": "nope"}]}})
    assert e.value.status == 400 and e.value.message.startswith("$.chart.series[0].type")
    assert sid not in [s["id"] for s in client.sessions()]

    client.create_session({"id": sid, "chart": {"series": [{"id": "a"}]}})
    with pytest.raises(ChartWireError) as e:
        client.append(sid, "nope", [1], [1])
    assert e.value.status == 404 and "nope" in e.value.message
    with pytest.raises(ChartWireError) as e:
        client.patch_session(sid, {"chart": {"series": [{"id": "a", "yAxis": "nope"}]}})
    assert e.value.status == 400 and e.value.message.startswith("$.chart.series[0].yAxis")
    # The server refuses an infinite y in the binary body, naming it.
    with pytest.raises(ChartWireError) as e:
        client.append(sid, "a", [1, 2], [1, math.inf])
    assert e.value.status == 400 and "y[1] is infinite" in e.value.message
    assert series_points(client, sid) == {"a": 0}


def test_an_unreachable_server_is_an_error_without_status():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ChartWireError) as e:
        Client(f"http://127.0.0.1:{port}", timeout=2).sessions()
    assert e.value.status is None and str(port) in e.value.message


def test_the_control_token_guards_creation():
    srv = Server(env={"CHARTWIRE_CONTROL_TOKEN": "control-token-1"}).start()
    try:
        spec = {"id": "guarded", "chart": {"series": [{"id": "a"}]}}
        with pytest.raises(ChartWireError) as e:
            Client(srv.url).create_session(spec)
        assert e.value.status == 401 and "token" in e.value.message
        with pytest.raises(ChartWireError) as e:
            Client(srv.url, token="wrong-token-1").create_session(spec)
        assert e.value.status == 403 and "wrong-token-1" not in e.value.message
        admin = Client(srv.url, token="control-token-1")
        assert admin.create_session(spec) == {"id": "guarded", "created": True}
        # A session with access takes data from its controller token only.
        admin.create_session({"id": "locked", "access": {"controllerTokens": ["controller-1"]},
                              "chart": {"series": [{"id": "a"}]}})
        with pytest.raises(ChartWireError) as e:
            Client(srv.url).append("locked", "a", [1], [1])
        assert e.value.status == 401
        assert Client(srv.url, token="controller-1").append("locked", "a", [1], [1]) == 1
        assert srv.alive()
    finally:
        srv.stop()


def test_the_package_exports_its_api():
    assert set(chartwire.__all__) >= {"Client", "Publisher", "ChartWireError", "MAX_POINTS"}
    assert chartwire.MAX_POINTS == 1_000_000
    err = ChartWireError(400, "$.x: bad")
    assert (err.status, err.message) == (400, "$.x: bad") and isinstance(err, Exception)


def test_without_numpy_lists_take_the_same_routes(client, sid, monkeypatch, requests):
    monkeypatch.setattr(_columns, "_np", None)
    client.create_session({"id": sid, "chart": {"series": [{"id": "a"}, {"id": "c", "type": "ohlc"}]}})
    assert client.append(sid, "a", [1, 2, 3], [1.5, None, float("nan")]) == 3
    assert requests[-1]["type"] == "application/octet-stream"
    assert client.append(sid, "c", [1], open=[1], high=[2], low=[0.5], close=[1.5]) == 1
    assert requests[-1]["type"] == "application/json"
    assert data(client, sid, "a") == {"x": [1, 2, 3], "y": [1.5, None, None]}
    assert data(client, sid, "c") == {"x": [1], "open": [1], "high": [2], "low": [0.5], "close": [1.5]}


def test_the_readme_example_runs(server):
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"## Usage\n\n```python\n(.*?)```", readme, re.S).group(1)
    assert '"http://127.0.0.1:8080"' in code
    scope: Dict[str, Any] = {}
    exec(compile(code.replace('"http://127.0.0.1:8080"', repr(server.url)), "README.md", "exec"), scope)
    assert scope["pub"].accepted == 100
    assert "plant" not in [s["id"] for s in Client(server.url).sessions()]

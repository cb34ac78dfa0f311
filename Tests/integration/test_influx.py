"""InfluxDB compatibility as the clients see it: the real `influxdb-client` (2.x) and
`influxdb` (1.x) packages from PyPI against the real server, and line protocol written
as Telegraf's InfluxDB v2 output writes it, framed as nginx passes it on (Telegraf's own
chunked framing: test_nginx.py) (docs/feeding.md, "InfluxDB clients")."""
import base64
import gzip
import json
import urllib.error
import urllib.request

import influxdb
import influxdb_client
import pytest
from influxdb_client.client.write_api import SYNCHRONOUS
from influxdb_client.rest import ApiException

from conftest import Server
from test_control import call

TOKEN = "influx-token-1"


@pytest.fixture
def influx_server(tmp_path):
    config = tmp_path / "influx.json"
    rules = {"series": [{"measurement": "cpu", "tags": {"cpu": "cpu0"}, "field": "usage_user", "series": "user"}],
             "unknown": "ignore"}
    config.write_text(json.dumps({"sessions": [
        {"id": "metrics", "chart": {"xAxes": [{"id": "t", "type": "time"}], "series": [{"id": "user"}]},
         "lineProtocol": rules},
        {"id": "guarded", "access": {"controllerTokens": [TOKEN], "anonymous": "viewer"},
         "chart": {"xAxes": [{"id": "t", "type": "time"}], "series": [{"id": "user"}]}, "lineProtocol": rules},
    ]}))
    s = Server("--config", str(config)).start()
    yield s
    assert s.alive(), "the server died during the test"
    s.stop()


def xs(server, session="metrics"):
    _, spec = call(server, "GET", f"/api/sessions/{session}/spec?data=1", token=TOKEN if session == "guarded" else None)
    return spec["chart"]["series"][0]["data"]["x"]


def raw(server, method, path, body=b"", headers=None):
    req = urllib.request.Request(server.http + path, data=body if method == "POST" else None, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def v2(server, gzip_on=False, token="any-token"):
    return influxdb_client.InfluxDBClient(url=server.http, token=token, org="org", enable_gzip=gzip_on, timeout=10_000)


def v1(server, gzip_on=False, password=None):
    return influxdb.InfluxDBClient(host="127.0.0.1", port=server.port, username="telegraf" if password else None,
                                   password=password, database="metrics", gzip=gzip_on, timeout=10)


# Unix seconds 1700000000 (and its minute and hour) in each precision.
V2_PRECISIONS = {"ns": 1_700_000_000_000_000_000, "us": 1_700_000_000_000_000, "ms": 1_700_000_000_000, "s": 1_700_000_000}
V1_PRECISIONS = {"n": (1_700_000_000_000_000_000, 1_700_000_000), "u": (1_700_000_000_000_000, 1_700_000_000),
                 "ms": (1_700_000_000_000, 1_700_000_000), "s": (1_700_000_000, 1_700_000_000),
                 "m": (28_333_333, 1_699_999_980), "h": (472_222, 1_699_999_200)}


@pytest.mark.parametrize("gzip_on", [False, True])
def test_the_v2_client_writes_in_every_precision(influx_server, gzip_on):
    with v2(influx_server, gzip_on) as client:
        write = client.write_api(write_options=SYNCHRONOUS)
        for i, (precision, stamp) in enumerate(V2_PRECISIONS.items()):
            # The client raises on anything but a 2xx answer; a retrying caller would
            # store duplicates if a success looked like a failure.
            write.write(bucket="metrics", org="org", record=f"cpu,cpu=cpu0 usage_user={i} {stamp + i * 10 ** (len(str(stamp)) - 10)}",
                        write_precision=precision)
        point = influxdb_client.Point("cpu").tag("cpu", "cpu0").field("usage_user", 9.0).time(1_700_000_100, "s")
        write.write(bucket="metrics", org="org", record=point, write_precision="s")
    assert xs(influx_server) == [1_700_000_000, 1_700_000_001, 1_700_000_002, 1_700_000_003, 1_700_000_100]


@pytest.mark.parametrize("gzip_on", [False, True])
def test_the_v1_client_writes_in_every_precision(influx_server, gzip_on):
    client = v1(influx_server, gzip_on)
    for precision, (stamp, _) in V1_PRECISIONS.items():
        assert client.write_points([{"measurement": "cpu", "tags": {"cpu": "cpu0"}, "time": stamp,
                                     "fields": {"usage_user": 1.0}}], time_precision=precision) is True
    # (A series keeps its points in x order.)
    assert xs(influx_server) == sorted(unix for _, unix in V1_PRECISIONS.values())
    # Line protocol given as text, too.
    assert client.write_points(["cpu,cpu=cpu0 usage_user=2 1700000500"], time_precision="s", protocol="line")
    assert xs(influx_server)[-1] == 1_700_000_500
    client.close()


def test_write_answers_are_influxdbs(influx_server):
    line = b"cpu,cpu=cpu0 usage_user=1 1700000000000000000\n"
    for path in ["/write?db=metrics", "/api/v2/write?bucket=metrics&org=o"]:
        status, headers, body = raw(influx_server, "POST", path, line)
        assert (status, body) == (204, b""), path
        assert headers["X-Influxdb-Version"] == "2.7.0-chartwire" and headers["X-Influxdb-Build"] == "OSS"
    # Our own route keeps its JSON answer.
    status, _, body = raw(influx_server, "POST", "/api/sessions/metrics/write", line)
    assert status == 200 and json.loads(body) == {"accepted": 1, "ignored": 0, "created": []}

    # Errors in each API's shape; nothing of a refused write is stored.
    before = xs(influx_server)
    bad = b"cpu,cpu=cpu0 usage_user=1 1\ncpu,cpu=cpu0 usage_user=oops 2\n"
    status, headers, body = raw(influx_server, "POST", "/write?db=metrics", bad)
    assert status == 400 and "line 2" in json.loads(body)["error"] and "line 2" in headers["X-Influxdb-Error"]
    status, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=metrics", bad)
    assert status == 400 and json.loads(body)["code"] == "invalid" and "line 2" in json.loads(body)["message"]
    status, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=nope", line)
    assert status == 404 and json.loads(body) == {"code": "not found", "message": 'no session "nope"'}
    status, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=metrics&precision=h", line)
    assert status == 400 and json.loads(body)["message"] == 'precision "h" is not one of ns, us, ms, s'
    status, _, body = raw(influx_server, "POST", "/write?db=metrics&precision=d", line)
    assert status == 400 and "is not one of ns, n, us, u, ms, s, m, h" in json.loads(body)["error"]
    assert xs(influx_server) == before

    # The clients raise with the server's words.
    with v2(influx_server) as client, pytest.raises(ApiException) as e:
        client.write_api(write_options=SYNCHRONOUS).write(bucket="metrics", org="o", record="cpu usage_user=x")
    assert e.value.status == 400 and json.loads(e.value.body)["code"] == "invalid"
    with pytest.raises(influxdb.exceptions.InfluxDBClientError) as e1:
        v1(influx_server).write_points(["cpu usage_user=x"], protocol="line")
    assert e1.value.code == 400 and "line 1" in e1.value.content


def test_gzip_bodies_are_bounded(influx_server):
    line = b"cpu,cpu=cpu0 usage_user=1 1700000000000000000\n"
    gz = {"Content-Encoding": "gzip"}
    # Two gzip members one after another are one body (as `cat a.gz b.gz`).
    two = gzip.compress(line) + gzip.compress(line.replace(b"=1 ", b"=2 ").replace(b"000000000\n", b"000000001\n"))
    assert raw(influx_server, "POST", "/write?db=metrics", two, gz)[0] == 204
    assert len(xs(influx_server)) == 2
    # A gzip bomb: 80 KB that inflates past the 64 MiB body limit.
    bomb = gzip.compress(b"\0" * (65 << 20), compresslevel=9)
    assert len(bomb) < 100_000
    status, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=metrics", bomb, gz)
    assert status == 413 and json.loads(body)["code"] == "request too large"
    status, _, body = raw(influx_server, "POST", "/write?db=metrics", bomb, gz)
    assert status == 413 and "inflates to more than 67108864 bytes" in json.loads(body)["error"]
    # Cut short, not gzip, an encoding we do not speak.
    assert raw(influx_server, "POST", "/write?db=metrics", gzip.compress(line)[:-6], gz)[0] == 400
    assert raw(influx_server, "POST", "/api/sessions/metrics/write", line, gz)[0] == 400
    status, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=metrics", line, {"Content-Encoding": "br"})
    assert status == 415 and json.loads(body)["code"] == "unsupported media type"
    # gzip works on our own routes too.
    status, _, body = raw(influx_server, "POST", "/api/sessions/metrics/write", gzip.compress(line), gz)
    assert status == 200 and json.loads(body)["accepted"] == 1
    assert len(xs(influx_server)) == 3
    assert influx_server.alive()


def test_ping_health_and_ready_as_the_clients_call_them(influx_server):
    with v2(influx_server) as client:
        assert client.ping() is True
        assert client.version() == "2.7.0-chartwire" and client.build() == "OSS"
        assert client.ready().status == "ready"
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            health = client.health()
        assert (health.status, health.name, health.message) == ("pass", "influxdb", "ready for queries and writes")
    assert v1(influx_server).ping() == "2.7.0-chartwire"
    status, headers, body = raw(influx_server, "HEAD", "/ping")
    assert (status, body, headers["X-Influxdb-Version"]) == (204, b"", "2.7.0-chartwire")
    status, _, body = raw(influx_server, "GET", "/ping?verbose=true")
    assert status == 200 and json.loads(body) == {"version": "2.7.0-chartwire"}


def test_tokens_as_influxdb_clients_carry_them(influx_server):
    line = b"cpu,cpu=cpu0 usage_user=1 1700000000\n"
    # v2: Authorization: Token.
    with v2(influx_server, token=TOKEN) as client:
        client.write_api(write_options=SYNCHRONOUS).write(bucket="guarded", org="o", record=line.decode(), write_precision="s")
    for token, status, code in [("wrong-token-9", 403, "forbidden"), (None, 401, "unauthorized")]:
        headers = {"Authorization": f"Token {token}"} if token else {}
        got, _, body = raw(influx_server, "POST", "/api/v2/write?bucket=guarded&precision=s", line, headers)
        assert got == status and json.loads(body)["code"] == code
        assert TOKEN not in body.decode()
    # v1: user and password (Basic auth); the password is the token.
    assert v1(influx_server, password=TOKEN).write_points(["cpu,cpu=cpu0 usage_user=2 1700000001"], database="guarded",
                                                          time_precision="s", protocol="line")
    with pytest.raises(influxdb.exceptions.InfluxDBClientError) as e:
        v1(influx_server, password="wrong-token-9").write_points(["cpu,cpu=cpu0 usage_user=2 1"], database="guarded",
                                                                 protocol="line")
    assert e.value.code == 403
    # v1: ?u=&p= query parameters, and a malformed Basic header.
    assert raw(influx_server, "POST", f"/write?db=guarded&u=me&p={TOKEN}&precision=s",
               b"cpu,cpu=cpu0 usage_user=3 1700000002")[0] == 204
    assert raw(influx_server, "POST", "/write?db=guarded&u=me&p=wrong-token-9", line)[0] == 403
    assert raw(influx_server, "POST", "/write?db=guarded", line, {"Authorization": "Basic !!"})[0] == 401
    basic = "Basic " + base64.b64encode(f"me:{TOKEN}".encode()).decode()
    # Our own route takes the same forms.
    status, _, body = raw(influx_server, "POST", "/api/sessions/guarded/write?precision=s",
                          b"cpu,cpu=cpu0 usage_user=4 1700000003", {"Authorization": basic})
    assert status == 200, body
    assert xs(influx_server, "guarded") == [1_700_000_000, 1_700_000_001, 1_700_000_002, 1_700_000_003]


# As Telegraf's `[[outputs.influxdb_v2]]` writes (plugins/outputs/influxdb_v2/http.go):
# POST {url}/api/v2/write?bucket=B&org=O, line protocol with sorted tags and
# nanosecond timestamps, each line ending in \n, gzip (content_encoding = "gzip" is
# the default), and these headers. Telegraf frames the body chunked, which the server
# refuses and nginx in front turns into a Content-Length (test_nginx.py sends those
# exact bytes both ways); here the body goes with the Content-Length nginx gives it.
TELEGRAF_LINES = (
    b"cpu,cpu=cpu0,host=web01 usage_idle=97.5,usage_system=0.5,usage_user=2 1700000000000000000\n"
    b"cpu,cpu=cpu1,host=web01 usage_idle=99,usage_system=0.25,usage_user=0.75 1700000000000000000\n"
    b"mem,host=web01 available=6012345344i,used_percent=21.75 1700000000000000000\n"
    b"cpu,cpu=cpu0,host=web01 usage_idle=96.5,usage_system=0.75,usage_user=2.75 1700000010000000000\n"
)


def test_telegraf_influxdb_v2_output_bytes(influx_server):
    headers = {"Authorization": f"Token {TOKEN}", "Content-Type": "text/plain; charset=utf-8",
               "Content-Encoding": "gzip", "User-Agent": "Telegraf/1.28.5 Go/1.21.3", "Accept-Encoding": "gzip"}
    status, resp_headers, body = raw(influx_server, "POST", "/api/v2/write?bucket=guarded&org=chartwire",
                                     gzip.compress(TELEGRAF_LINES), headers)
    assert (status, body) == (204, b"")
    assert resp_headers["X-Influxdb-Version"] == "2.7.0-chartwire"
    assert xs(influx_server, "guarded") == [1_700_000_000, 1_700_000_010]
    _, spec = call(influx_server, "GET", "/api/sessions/guarded/spec?data=1", token=TOKEN)
    assert spec["chart"]["series"][0]["data"]["y"] == [2, 2.75]

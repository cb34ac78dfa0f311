"""The server's log (docs/deploy.md, "Logs"): levels, one line per event, text or JSON,
repetitive lines rate-limited, --quiet, and never a token."""
import json
import re
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import FIXTURES, Server, server_binary
from test_websocket import connect, hello

SECRETS = ["control-secret-1", "query-token-22", "header-token-333", "influx-pass-4444", "basic-pass-55555"]


def post(server, path, body=b"{}", headers=None):
    req = urllib.request.Request(server.http + path, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def traffic(server):
    """Viewers, appends, refusals, and tokens in every place a client may put one."""
    v = connect(server, "static")
    hello(v)
    v.close()
    assert post(server, "/api/sessions/static/series/line/append", b'{"x":[2000],"y":[1]}') == 200
    for i in range(30):   # the same refusal, again and again
        assert post(server, "/api/sessions/nope/series/a/append?token=query-token-22",
                    headers={"Authorization": "Bearer header-token-333"}) == 404
    assert post(server, "/write?db=static&u=me&p=influx-pass-4444", b"bad line") == 400
    assert post(server, "/write?db=static", b"bad", {"Authorization": "Basic YmFzaWM6YmFzaWMtcGFzcy01NTU1NQ=="}) == 400
    assert post(server, "/api/sessions", b"{", {"Authorization": "Bearer control-secret-1"}) == 400


def run(*args):
    s = Server("--config", str(FIXTURES / "static.json"), *args, env={"CHARTWIRE_CONTROL_TOKEN": "control-secret-1"})
    s.args.remove("--quiet")
    if "--quiet" in args:
        s.args.append("--quiet")
    s.start()
    try:
        traffic(s)
    finally:
        s.stop()
    assert s.proc.returncode == 0
    return s.proc.stderr.read()


def test_text_lines_with_levels_rate_limited_and_no_secrets():
    log = run()
    lines = log.splitlines()
    shape = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info|warn|error) [a-z_]+: ")
    assert lines and all(shape.match(l) for l in lines), log
    assert any(" info ws_open: viewer " in l and "session=static" in l and "client=127.0.0.1" in l for l in lines)
    assert any(" info http: POST /api/sessions/static/series/line/append -> 200" in l for l in lines)
    refused = [l for l in lines if '-> 404: no session "nope"' in l]
    # 30 identical refusals: 10 lines, then one line counting the rest.
    assert len(refused) == 10 and all(" warn http: " in l and "status=404 route=append" in l for l in refused)
    assert any("20 more like this in 10 s were not logged" in l and "suppressed=20" in l for l in lines), log
    assert any(" warn http: POST /write -> 400: line 1" in l for l in lines)
    assert any(" info drain: drained in " in l for l in lines)
    for secret in SECRETS:
        assert secret not in log, secret


def test_json_lines():
    log = run("--log-format", "json")
    events = [json.loads(l) for l in log.splitlines()]
    assert events and all({"time", "level", "event", "message"} <= e.keys() for e in events)
    assert {e["level"] for e in events} == {"info", "warn"}
    refusal = next(e for e in events if e["event"] == "http" and e.get("status") == "404")
    assert refusal["route"] == "append" and refusal["client"] == "127.0.0.1" and refusal["level"] == "warn"
    assert any(e.get("suppressed") == "20" for e in events)
    for secret in SECRETS:
        assert secret not in log, secret


def test_quiet_logs_nothing_but_fatal_errors():
    assert run("--quiet") == ""
    p = subprocess.run([server_binary(), "--quiet", "--port", "0", "--config", "/nonexistent.json"],
                       capture_output=True, text=True, timeout=20)
    assert p.returncode == 2 and p.stderr == "wsserver: --config: cannot read /nonexistent.json\n"


def test_bad_log_format_is_a_usage_error():
    p = subprocess.run([server_binary(), "--log-format", "xml"], capture_output=True, text=True, timeout=20)
    assert p.returncode == 2 and p.stderr == 'wsserver: --log-format: "xml" is not text or json\n'

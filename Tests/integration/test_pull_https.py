"""Pulled data from https sources (docs/feeding.md, "Pulled data"; docs/security.md,
"Pull sources"): a Python `http.server` wrapped in `ssl` with a throwaway CA and server
certificates made here with `openssl`. With `--pull-ca` of that CA a viewer zooming
out gets the source's points; a certificate for another host name, one no trusted CA
signed, and a source that stalls in the middle of the handshake are failures with
their reason in the stats and the session's warnings, and cost nothing else."""
import json
import socket
import ssl
import subprocess
import threading
import time
from http.server import ThreadingHTTPServer

import pytest

import cwframe
from conftest import Server
from test_control import call
from test_pull import Source, series_pull, wait
from test_websocket import connect, hello, layer, next_frame


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a certificate it signs for localhost and 127.0.0.1, one it signs for
    other.example only, and a self-signed one for localhost (no CA behind it)."""
    d = tmp_path_factory.mktemp("pki")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=ChartWire test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, san in [("local", "DNS:localhost,IP:127.0.0.1"), ("other", "DNS:other.example")]:
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    openssl("req", "-x509", *ec, "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", cwd=d)
    return d


@pytest.fixture(autouse=True)
def fresh_requests():
    """test_pull.py's source records what it was asked in one list: each test starts
    and leaves it empty."""
    Source.asked.clear()
    yield
    Source.asked.clear()


def https_source(pki, name):
    """The points source of test_pull.py behind TLS with certificate `name`."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(pki / f"{name}.pem"), str(pki / f"{name}.key"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Source)
    httpd.daemon_threads = True
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


class StallingSource:
    """Accepts, reads the client's hello and then says nothing: a TLS handshake that
    never finishes. Holds its connections until closed."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.hellos = []
        self.held = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            conn.settimeout(5)
            try:
                self.hellos.append(conn.recv(4096))
            except OSError:
                pass

    def close(self):
        self.sock.close()
        for c in self.held:
            c.close()


def test_an_https_source_with_pull_ca_answers_a_viewer_zooming_out(pki):
    httpd = https_source(pki, "local")
    port = httpd.server_address[1]
    srv = Server("--no-demo", "--pull-ca", str(pki / "ca.pem")).start()
    try:
        Source.asked.clear()
        spec = {"id": "pull", "chart": {
            "xAxes": [{"id": "x", "visibleRange": [100, 200]}], "yAxes": [{"id": "y", "mode": "fixed", "range": [-1, 11]}],
            "series": [
                {"id": "a", "source": f"https://localhost:{port}/ok", "data": {"x": list(range(100, 201)), "y": [0] * 101}},
                {"id": "e", "source": f"https://localhost:{port}/ok?k=1"}],
            "modifiers": [{"type": "mouseWheelZoom"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        e = wait(lambda: (p := series_pull(srv, "e")) and p["answers"] >= 1 and p, what="the empty series' answer")
        assert e["failures"] == 0 and e["points"] == 101 and e["held"] == [[100, 200]], e
        assert not any(q[1] == "a" for q in Source.asked), Source.asked   # "a" holds 100...200

        ws = connect(srv, "pull")
        hello(ws)
        f, _ = next_frame(ws)
        x, y, w, h = cwframe.plot_rect(layer(f, "background"))
        ws.send(json.dumps({"type": "wheel", "x": x + w / 2, "y": y + h / 2, "deltaX": 0, "deltaY": 300}))
        a = wait(lambda: (p := series_pull(srv, "a")) and p["answers"] >= 2 and p, what="two answers for a")
        asked = [q for q in Source.asked if q[1] == "a"]
        assert len(asked) == 2, asked
        (_, _, f1, t1), (_, _, f2, t2) = asked
        assert f1 < 100 and 99.99 < t1 < 100 and 200 < f2 < 200.01 and t2 > 200, asked
        assert a["failures"] == 0 and a["points"] > 50 and a["held"] == [[f1, t2]], a
        entry = call(srv, "GET", "/api/sessions/pull")[1]
        assert next(s for s in entry["series"] if s["id"] == "a")["points"] == 101 + a["points"], entry

        ws.close()
        # An address literal is checked against the certificate's IP addresses.
        assert call(srv, "POST", "/api/sessions", {"id": "ip", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}],
            "series": [{"id": "ip", "source": f"https://127.0.0.1:{port}/ok"}]}})[0] == 201
        wait(lambda: any(s["id"] == "ip" and s.get("pulls") and s["pulls"][0]["answers"] >= 1
                         for s in call(srv, "GET", "/api/stats")[1]["sessions"]), what="the IP literal's answer")
        ip = next(s for s in call(srv, "GET", "/api/sessions/ip")[1]["series"] if s["id"] == "ip")
        assert ip["points"] == 11 and ip["pull"]["failures"] == 0, ip
        assert srv.alive()
    finally:
        srv.stop()
        httpd.shutdown()


def test_a_wrong_host_name_and_a_stalled_handshake_fail_with_their_reason_and_cost_nothing_else(pki):
    other = https_source(pki, "other")
    stall = StallingSource()
    srv = Server("--no-demo", "--pull-ca", str(pki / "ca.pem")).start()
    try:
        spec = {"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}], "series": [
            {"id": "m", "source": f"https://localhost:{other.server_address[1]}/ok"},
            {"id": "s", "source": f"https://localhost:{stall.port}/ok"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        started = time.time()
        m = wait(lambda: (p := series_pull(srv, "m")) and p["failures"] >= 1 and p, what="the mismatch")
        port = other.server_address[1]
        assert m["lastError"] == (f"source https://localhost:{port}/ok: host name mismatch: "
                                  "the certificate is not for localhost (hostname mismatch)"), m
        assert m["answers"] == 0 and m["points"] == 0, m
        warnings = call(srv, "GET", "/api/sessions/pull")[1]["warnings"]
        assert any(w.startswith("$.chart.series[0].source: the last request failed") and "host name mismatch" in w
                   for w in warnings), warnings

        # The stalled handshake holds its series only: the source got the client's hello
        # (with SNI), the series waits, and another session keeps serving meanwhile.
        wait(lambda: stall.hellos, what="the client hello")
        assert stall.hellos[0][:1] == b"\x16" and b"localhost" in stall.hellos[0], stall.hellos[0][:64]
        assert series_pull(srv, "s")["inFlight"] == [0, 10]
        assert call(srv, "POST", "/api/sessions", {"id": "live", "chart": {"series": [{"id": "a"}]}})[0] == 201
        ws = connect(srv, "live")
        hello(ws)
        next_frame(ws)
        t = time.time()
        assert call(srv, "POST", "/api/sessions/live/series/a/append", {"x": [1, 2], "y": [3, 4]})[0] == 200
        frame, _ = next_frame(ws, timeout=2)
        assert frame is not None and time.time() - t < 1
        assert series_pull(srv, "s")["failures"] == 0     # still waiting within its 5 s
        s = wait(lambda: (p := series_pull(srv, "s")) and p["failures"] >= 1 and p, timeout=10, what="the handshake timeout")
        assert s["lastError"] == f"source https://localhost:{stall.port}/ok: no TLS handshake with localhost:{stall.port} within the timeout", s
        assert 4.5 < time.time() - started < 9, time.time() - started
        ws.close()
        assert srv.alive()
    finally:
        srv.stop()
        other.shutdown()
        stall.close()


def test_without_pull_ca_a_private_ca_and_a_self_signed_certificate_are_not_trusted_and_with_it_both_are(pki):
    signed = https_source(pki, "local")
    selfsigned = https_source(pki, "self")
    srv = Server("--no-demo").start()
    try:
        Source.asked.clear()
        spec = {"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}], "series": [
            {"id": "p", "source": f"https://localhost:{signed.server_address[1]}/ok"},
            {"id": "q", "source": f"https://localhost:{selfsigned.server_address[1]}/ok"}]}}
        assert call(srv, "POST", "/api/sessions", spec)[0] == 201
        for sid, port, why in (("p", signed.server_address[1], "unable to get local issuer certificate"),
                               ("q", selfsigned.server_address[1], "self-signed certificate")):
            p = wait(lambda: (q := series_pull(srv, sid)) and q["failures"] >= 1 and q, what=f"{sid}'s refusal")
            assert p["lastError"] == f"source https://localhost:{port}/ok: certificate not trusted: {why}", p
        assert Source.asked == []   # no request went out over an unverified connection
    finally:
        srv.stop()
        signed.shutdown()
        selfsigned.shutdown()
    # A --pull-ca file holding the CA and the self-signed certificate: both trusted.
    (pki / "both.pem").write_text((pki / "ca.pem").read_text() + (pki / "self.pem").read_text())
    srv = Server("--no-demo", "--pull-ca", str(pki / "both.pem")).start()
    signed, selfsigned = https_source(pki, "local"), https_source(pki, "self")
    try:
        assert call(srv, "POST", "/api/sessions", {"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}], "series": [
            {"id": "p", "source": f"https://localhost:{signed.server_address[1]}/ok"},
            {"id": "q", "source": f"https://localhost:{selfsigned.server_address[1]}/ok"}]}})[0] == 201
        for sid in ("p", "q"):
            p = wait(lambda: (q := series_pull(srv, sid)) and q["answers"] >= 1 and q, what=f"{sid}'s answer")
            assert p["failures"] == 0 and p["points"] == 11, p
    finally:
        srv.stop()
        signed.shutdown()
        selfsigned.shutdown()


def test_a_bad_pull_ca_fails_the_start_and_the_config_file_gives_one(pki, tmp_path):
    (tmp_path / "not.pem").write_text("not a certificate\n")
    for name, why in (("missing.pem", "No such file or directory"), ("not.pem", "no certificate or crl found")):
        path = str(tmp_path / name)
        proc = subprocess.run(Server("--no-demo", "--pull-ca", path).args, capture_output=True, text=True, timeout=20)
        assert proc.returncode == 1 and f"wsserver: --pull-ca: cannot read CA certificates from {path}: {why}" in proc.stderr, proc.stderr
    # server.pullCA in the --config file does what --pull-ca does.
    httpd = https_source(pki, "local")
    port = httpd.server_address[1]
    spec = {"server": {"pullCA": str(pki / "ca.pem")},
            "sessions": [{"id": "pull", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 10]}],
                                                  "series": [{"id": "a", "source": f"https://localhost:{port}/ok"}]}}]}
    (tmp_path / "c.json").write_text(json.dumps(spec))
    srv = Server("--no-demo", "--config", str(tmp_path / "c.json")).start()
    try:
        p = wait(lambda: (q := series_pull(srv, "a")) and q["answers"] >= 1 and q, what="the answer")
        assert p["failures"] == 0 and p["points"] == 11, p
        # A source URL of another scheme is refused with its path.
        status, body = call(srv, "POST", "/api/sessions", {"id": "b", "chart": {"series": [{"id": "s", "source": "ftp://h/p"}]}})
        assert status == 400 and body["error"] == "$.chart.series[0].source: expected an http:// or https:// URL, or a path on this server", body
    finally:
        srv.stop()
        httpd.shutdown()

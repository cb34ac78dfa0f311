"""Appends against the real server: the binary body, gaps, and limits that agree with
each other (a batch within the point limit is never refused for its size)."""
import json
import struct
import urllib.error
import urllib.request


def post(server, body, series="line"):
    req = urllib.request.Request(f"{server.http}/api/sessions/static/series/{series}/append", data=body, method="POST")
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def binary(xs, ys):
    return b"CWA1" + struct.pack(f"<I{len(xs)}d{len(ys)}d", len(xs), *xs, *ys)


def points(server):
    with urllib.request.urlopen(f"{server.http}/api/sessions") as r:
        return json.load(r)["sessions"][0]["series"][0]["points"]


def test_binary_body_is_accepted_and_refused_precisely(static_server):
    before = points(static_server)
    status, body = post(static_server, binary([2000, 2001, 2002], [1.5, float("nan"), 2.5]))
    assert (status, body) == (200, {"accepted": 3})
    assert points(static_server) == before + 3
    good = binary([3000, 3001], [1, 2])
    for bad, fragment in [(good[:-1], "2 points need 40 bytes, got 39"),
                          (binary([3000, float("inf")], [1, 2]), "x[1] is not a finite number"),
                          (binary([3000], [float("inf")]), "y[0] is infinite")]:
        status, body = post(static_server, bad)
        assert status == 400 and fragment in body["error"], body
    assert points(static_server) == before + 3


def test_json_null_is_a_gap(static_server):
    status, body = post(static_server, json.dumps({"x": [5000, 5001, 5002], "y": [1, None, 3]}).encode())
    assert (status, body) == (200, {"accepted": 3})


def test_a_million_points_of_worst_case_json_fit_and_one_more_does_not(static_server):
    # The longest double there is, with Python's default ", " separators: every batch
    # within the point limit, however written by an ordinary encoder, fits the body limit.
    n = 1_000_000
    x0 = 1e6
    xs = [x0 + i * 1e-3 for i in range(n)]
    text = json.dumps({"x": xs, "y": [-2.2250738585072014e-308] * n})
    assert len(text) > 32 << 20          # more than the old, smaller limit allowed
    status, body = post(static_server, text.encode())
    assert (status, body) == (200, {"accepted": n})
    status, body = post(static_server, json.dumps({"x": [3e6] * (n + 1), "y": [0] * (n + 1)}).encode())
    assert status == 400 and "at most 1000000" in body["error"]
    status, body = post(static_server, b"CWA1" + struct.pack("<I", n + 1))
    assert status == 400 and "at most 1000000" in body["error"]


def test_an_oversized_body_is_refused_with_its_limit(static_server):
    status, body = post(static_server, b" " * ((64 << 20) + 1))
    assert status == 413 and str(64 << 20) in body["error"]

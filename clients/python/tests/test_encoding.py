"""The bodies the client builds, without a server: the binary append body byte for byte
(docs/protocol.md's own example), with and without numpy; datetimes as Unix seconds;
JSON with gaps as null."""
from __future__ import annotations

import json
import math
import struct
import time
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest

from chartwire import _columns

# docs/protocol.md, "Append": two points (1, 0.5) and (2, NaN).
DOC_EXAMPLE = bytes.fromhex(
    "43 57 41 31 02 00 00 00"
    " 00 00 00 00 00 00 F0 3F 00 00 00 00 00 00 00 40"
    " 00 00 00 00 00 00 E0 3F 00 00 00 00 00 00 F8 7F")


def binary(x, y=None, **values):
    xs, fields = _columns.columns(x, y, values)
    body, content_type = _columns.body(xs, fields)
    return body, content_type


def test_binary_body_matches_the_protocol_example():
    for y in ([0.5, float("nan")], [0.5, None], np.array([0.5, np.nan]), np.array([0.5, np.nan], dtype=">f8")):
        body, content_type = binary(np.array([1, 2]), y)
        assert body == DOC_EXAMPLE and content_type == "application/octet-stream"


def test_binary_body_without_numpy_is_the_same(monkeypatch, local_time_not_utc):
    monkeypatch.setattr(_columns, "_np", None)
    body, _ = binary([1, 2], [0.5, None])
    assert body == DOC_EXAMPLE
    body, _ = binary((v for v in [1, 2]), [0.5, float("nan")])
    assert body == DOC_EXAMPLE
    xs, fields = _columns.columns([datetime(2024, 1, 1)], [1], {})
    assert list(xs) == [1704067200.0]


def test_a_large_body_is_the_columns_little_endian():
    x = np.arange(1000, dtype=np.float64) * 0.5
    y = np.sin(x)
    body, _ = binary(x, y)
    assert len(body) == 8 + 16 * 1000
    assert struct.unpack("<I", body[4:8]) == (1000,)
    assert np.array_equal(np.frombuffer(body[8:8008], "<f8"), x)
    assert np.array_equal(np.frombuffer(body[8008:], "<f8"), y)


def test_other_value_fields_go_as_json_with_gaps_as_null():
    body, content_type = binary([1, 2], open=[1, None], high=[2, np.nan], low=[0.5, None], close=[1.5, None])
    assert content_type == "application/json"
    assert json.loads(body) == {"x": [1, 2], "open": [1, None], "high": [2, None], "low": [0.5, None], "close": [1.5, None]}
    # y with other fields (a band) is JSON too, y first.
    body, content_type = binary([1], [3], y1=[4])
    assert content_type == "application/json" and list(json.loads(body)) == ["x", "y", "y1"]
    with pytest.raises(ValueError, match=r"high\[1\] is infinite"):
        binary([1, 2], open=[1, 1], high=[2, math.inf], low=[0, 0], close=[1, 1])


@pytest.fixture
def local_time_not_utc(monkeypatch):
    """A local time zone far from UTC, so that naive datetimes read as local would show."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    assert datetime(2024, 1, 1).timestamp() != 1704067200.0
    yield
    monkeypatch.undo()
    time.tzset()


def test_datetimes_become_unix_seconds(local_time_not_utc):
    expected = [1704067200.0, 1704067200.25]
    naive = [datetime(2024, 1, 1), datetime(2024, 1, 1, 0, 0, 0, 250000)]
    berlin = timezone(timedelta(hours=1))
    aware = [d.replace(tzinfo=timezone.utc).astimezone(berlin) for d in naive]
    assert aware[0].hour == 1
    for x in (naive, aware, np.array(naive, dtype="datetime64[ms]"), np.array(naive, dtype="datetime64[ns]"),
              np.array(naive, dtype=object), pd.DatetimeIndex(naive), pd.DatetimeIndex(naive).tz_localize("UTC").tz_convert("Asia/Tokyo"),
              pd.Series(pd.DatetimeIndex(naive).tz_localize("UTC").tz_convert("America/New_York"))):
        xs, _ = _columns.columns(x, [1, 2], {})
        assert list(xs) == expected, type(x)
    # Whole days and NaT.
    xs, _ = _columns.columns(np.array(["2024-01-02", "NaT"], dtype="datetime64[D]"), [1, 2], {})
    assert xs[0] == 1704153600.0 and math.isnan(xs[1])


def test_pandas_series_alone_gives_its_index_and_values():
    s = pd.Series([1.0, None, 3.0], index=[10, 20, 30], dtype="Float64")
    xs, fields = _columns.columns(s, None, {})
    assert list(xs) == [10, 20, 30] and list(fields) == ["y"]
    assert fields["y"][0] == 1 and math.isnan(fields["y"][1])
    # As x with an explicit y, a Series is its values.
    xs, _ = _columns.columns(pd.Series([5.0, 6.0], index=[0, 1]), [1, 2], {})
    assert list(xs) == [5, 6]
    df = pd.DataFrame({"open": [1.0], "high": [2.0], "low": [0.5], "close": [1.5]},
                      index=pd.DatetimeIndex(["2024-01-01"]))
    xs, fields = _columns.columns(df, None, {})
    assert list(xs) == [1704067200.0] and list(fields) == ["open", "high", "low", "close"]


def test_bad_columns_are_refused_before_sending():
    with pytest.raises(ValueError, match="unequal length"):
        _columns.columns([1, 2, 3], [1, 2], {})
    with pytest.raises(TypeError, match="no values"):
        _columns.columns([1, 2], None, {})
    with pytest.raises(TypeError, match="y"):
        _columns.columns([1], ["a"], {})
    with pytest.raises(ValueError, match="one dimension"):
        _columns.columns(np.zeros((2, 2)), np.zeros((2, 2)), {})


def test_chunks_split_at_the_point_limit():
    x = np.arange(25.0)
    parts = list(_columns.chunks(x, {"y": x * 2}, size=10))
    assert [len(p[0]) for p in parts] == [10, 10, 5]
    assert np.array_equal(np.concatenate([p[1]["y"] for p in parts]), x * 2)
    assert len(list(_columns.chunks(x[:0], {"y": x[:0]}))) == 1  # an empty append is still sent

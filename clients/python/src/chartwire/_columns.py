"""Points as the server reads them: the caller's columns (lists, numpy arrays, pandas
objects, datetimes) turned into float64 columns, and those into the binary append body
(``CWA1``) or a JSON body.

numpy is used when it is installed (and is what makes large batches fast); without it
the columns are ``array.array('d')``. pandas is never imported unless the caller passes
a pandas object.
"""
from __future__ import annotations

import json
import math
import struct
import sys
from array import array
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

try:
    import numpy as _np
except ImportError:  # numpy is optional
    _np = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = Union["np.ndarray[Any, np.dtype[np.float64]]", "array[float]"]
    #: One column of values: a sequence of numbers (None: a gap), of datetimes (naive
    #: ones count as UTC), a numpy array (datetime64 included), or a pandas Series or
    #: Index (a DatetimeIndex included).
    Column = Union[Sequence[Optional[float]], Sequence[datetime], npt.ArrayLike]
else:
    Floats = Any
    Column = Any

#: The most points one request (or one publisher batch) may carry.
MAX_POINTS = 1_000_000
#: The first bytes of a binary append body.
MAGIC = b"CWA1"

_SUBSECOND = {"ms": 10**3, "us": 10**6, "ns": 10**9, "ps": 10**12, "fs": 10**15, "as": 10**18}


def _is_pandas(obj: object) -> bool:
    return type(obj).__module__.split(".", 1)[0] == "pandas"


def _datetime_seconds(value: datetime) -> float:
    """Unix seconds of a datetime; a naive one counts as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def _datetime64_seconds(arr: Any) -> Any:
    """Unix seconds (float64) of a numpy datetime64 array; NaT becomes NaN."""
    unit, count = _np.datetime_data(arr.dtype)
    if count != 1 or unit not in _SUBSECOND:
        # Coarser units (and multiples such as 10ms) are whole seconds or finer as s/ns.
        unit = "s" if unit in ("Y", "M", "W", "D", "h", "m", "s", "generic") else unit
        arr = arr.astype(f"datetime64[{unit}]")
    ticks = arr.view("<i8")
    nat = _np.isnat(arr)
    if unit == "s":
        out = ticks.astype("<f8")
    else:
        per = _SUBSECOND[unit]
        # Whole seconds and the fraction apart: the fraction keeps its digits.
        out = (ticks // per).astype("<f8") + (ticks % per).astype("<f8") / per
    out[nat] = math.nan
    return out


def _pandas_floats(obj: Any, name: str) -> Any:
    """float64 values of a pandas Series or Index; datetimes as Unix seconds."""
    dtype = obj.dtype
    if getattr(dtype, "tz", None) is not None:  # tz-aware: its instants, in UTC
        arr = obj.to_numpy(dtype=f"datetime64[{getattr(dtype, 'unit', 'ns')}]")
        return _datetime64_seconds(arr)
    if getattr(dtype, "kind", None) == "M":  # naive datetimes count as UTC
        return _datetime64_seconds(obj.to_numpy())
    try:
        return obj.to_numpy(dtype="<f8", na_value=_np.nan)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}: cannot read {dtype} values as numbers ({e})") from None


def floats(values: Column, name: str) -> Floats:
    """One column as float64: a numpy array when numpy is installed, else an
    ``array('d')``. None and NaN are gaps; datetimes become Unix seconds."""
    v: Any = values
    if isinstance(v, (str, bytes)) or not (hasattr(v, "__iter__") or hasattr(v, "__array__")):
        raise TypeError(f"{name}: expected a sequence or an array of numbers, got {type(v).__name__}")
    if not hasattr(v, "__len__") and not hasattr(v, "__array__"):
        v = list(v)  # an iterator or generator
    if _np is None:
        return _plain_floats(v, name)
    if _is_pandas(v):
        out = _pandas_floats(v, name)
    elif isinstance(v, _np.ndarray) and v.dtype.kind == "M":
        out = _datetime64_seconds(v)
    else:
        if isinstance(v, _np.ndarray) and v.dtype == object:
            v = v.tolist()
        if not isinstance(v, _np.ndarray) and isinstance(next((e for e in v if e is not None), None), datetime):
            out = _np.array([math.nan if e is None else _datetime_seconds(e) for e in v], dtype="<f8")
        else:
            try:
                out = _np.asarray(v, dtype="<f8")
            except (TypeError, ValueError) as e:
                raise TypeError(f"{name}: expected numbers (None for a gap): {e}") from None
    if out.ndim != 1:
        raise ValueError(f"{name}: expected one dimension, got the shape {out.shape}")
    return cast("Floats", out)


def _plain_floats(values: Iterable[Any], name: str) -> "array[float]":
    """A column without numpy."""
    out: List[float] = []
    for i, v in enumerate(values):
        if v is None:
            out.append(math.nan)
        elif isinstance(v, datetime):
            out.append(_datetime_seconds(v))
        else:
            try:
                out.append(float(v))
            except (TypeError, ValueError):
                raise TypeError(f"{name}[{i}]: expected a number or None, got {v!r}") from None
    return array("d", out)


def columns(x: Any, y: Any, values: Mapping[str, Any], *, need_x: bool = True) -> Tuple[Optional[Floats], Dict[str, Floats]]:
    """The x column and the value columns (``y`` first, then ``values`` in order) of a
    call, all float64 and of one length.

    A pandas Series passed as ``x`` alone gives x from its index and y from its values;
    a DataFrame passed alone gives x from its index and one value field per column.
    """
    fields: Dict[str, Any] = {}
    if y is None and not values and _is_pandas(x) and hasattr(x, "index"):
        if hasattr(x, "columns"):  # a DataFrame: a field per column
            for col in x.columns:
                if not isinstance(col, str):
                    raise TypeError(f"DataFrame column {col!r}: columns must be named by value fields (y, open, ...)")
                fields[col] = x[col]
        else:
            fields["y"] = x
        x = x.index
    else:
        if y is not None:
            fields["y"] = y
        fields.update(values)
    if not fields:
        raise TypeError("no values: pass y, or the series type's value fields (open=..., high=..., ...)")
    xs = floats(x, "x") if need_x else None
    out = {k: floats(v, k) for k, v in fields.items()}
    n = len(xs) if xs is not None else len(next(iter(out.values())))
    for k, v in out.items():
        if len(v) != n:
            lengths = ", ".join(f"{key} {len(col)}" for key, col in out.items())
            raise ValueError(f"columns of unequal length: {'x ' + str(n) + ', ' if xs is not None else ''}{lengths}")
    return xs, out


def is_binary(fields: Mapping[str, Floats]) -> bool:
    """Whether the points fit the binary body: x and y alone."""
    return list(fields) == ["y"]


def _le_bytes(col: Floats) -> bytes:
    if _np is not None and isinstance(col, _np.ndarray):
        return _np.ascontiguousarray(col, dtype="<f8").tobytes()
    if sys.byteorder == "big":
        col = array("d", col)
        col.byteswap()
    return col.tobytes()


def binary_body(x: Floats, y: Floats) -> bytes:
    """The binary append body: ``CWA1``, the u32 point count, then x and y as
    little-endian float64 (NaN y: a gap). Exactly 8 + 16·N bytes."""
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} and {len(y)}")
    return MAGIC + struct.pack("<I", len(x)) + _le_bytes(x) + _le_bytes(y)


def _json_list(col: Floats, name: str) -> List[Optional[float]]:
    """A column for JSON: NaN becomes null (a gap); infinities cannot be sent."""
    if _np is not None and isinstance(col, _np.ndarray):
        bad = _np.flatnonzero(_np.isinf(col))
        if len(bad):
            raise ValueError(f"{name}[{bad[0]}] is infinite: JSON cannot carry it (NaN or None is a gap)")
        items = col.tolist()
    else:
        items = list(col)
    out: List[Optional[float]] = []
    for i, v in enumerate(items):
        if v != v:
            out.append(None)
        elif math.isinf(v):
            raise ValueError(f"{name}[{i}] is infinite: JSON cannot carry it (NaN or None is a gap)")
        else:
            out.append(v)
    return out


def json_body(x: Optional[Floats], fields: Mapping[str, Floats], head: Optional[Mapping[str, Any]] = None) -> bytes:
    """A JSON body: ``head`` (such as ``index``), then ``x``, then the value fields."""
    obj: Dict[str, Any] = dict(head or {})
    if x is not None:
        obj["x"] = _json_list(x, "x")
    for k, v in fields.items():
        obj[k] = _json_list(v, k)
    return json.dumps(obj, allow_nan=False, separators=(",", ":")).encode()


def chunks(x: Floats, fields: Mapping[str, Floats], size: int = MAX_POINTS) -> Iterator[Tuple[Floats, Dict[str, Floats]]]:
    """The points in consecutive slices of at most ``size`` (one slice when empty)."""
    n = len(x)
    for start in range(0, max(n, 1), size):
        yield x[start:start + size], {k: v[start:start + size] for k, v in fields.items()}


def body(x: Floats, fields: Mapping[str, Floats]) -> Tuple[bytes, str]:
    """The body of one batch and its content type: binary for x/y, else JSON."""
    if is_binary(fields):
        return binary_body(x, fields["y"]), "application/octet-stream"
    return json_body(x, fields), "application/json"

"""The HTTP client: sessions defined, changed and removed, and points sent to their
series (docs/protocol.md in the ChartWire repository describes every route)."""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _columns
from ._columns import MAX_POINTS, Column
from ._errors import ChartWireError
from .publisher import Publisher

#: The ``precision`` values of a line-protocol write: the unit of its timestamps.
PRECISIONS = ("ns", "us", "ms", "s")


def _segment(s: str) -> str:
    return urllib.parse.quote(str(s), safe="")


def _error_text(raw: bytes) -> str:
    """The server's ``{"error": ...}`` text, or the body as it is."""
    try:
        answer = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace").strip()
    if isinstance(answer, dict) and isinstance(answer.get("error"), str):
        return str(answer["error"])
    return raw.decode("utf-8", "replace").strip()


class Client:
    """A ChartWire server, over HTTP.

    ``token`` is sent as ``Authorization: Bearer <token>`` with every request: a
    session's controller token (for the data and definition routes of a session with
    ``access``), or the server's control token (``CHARTWIRE_CONTROL_TOKEN``: creating
    sessions, and every session's routes). ``timeout`` is in seconds, per request.

    Every method raises :class:`ChartWireError` when the server refuses the request
    (``.status`` its HTTP status, ``.message`` its error text) or cannot be reached
    (``.status`` None). Only the standard library is used for HTTP.
    """

    def __init__(self, base_url: str = "http://127.0.0.1:8080", token: Optional[str] = None,
                 timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # MARK: HTTP

    def _request(self, method: str, path: str, body: Optional[bytes] = None,
                 content_type: str = "application/json", query: Optional[Mapping[str, str]] = None) -> Any:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                raw = r.read()
        except urllib.error.HTTPError as e:
            try:
                raw = e.read()
            except OSError:
                raw = b""
            finally:
                e.close()
            raise ChartWireError(e.code, _error_text(raw) or e.reason) from None
        except urllib.error.URLError as e:
            raise ChartWireError(None, f"{method} {url}: {e.reason}") from None
        except (socket.timeout, TimeoutError):
            raise ChartWireError(None, f"{method} {url}: no answer within {self.timeout} s") from None
        except OSError as e:  # a connection reset mid-answer, ...
            raise ChartWireError(None, f"{method} {url}: {e}") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise ChartWireError(None, f"{method} {url}: the answer is not JSON: {raw[:200]!r}") from None

    def _json(self, method: str, path: str, value: Any = None, query: Optional[Mapping[str, str]] = None) -> Any:
        body = None if value is None else json.dumps(value, allow_nan=False).encode()
        return self._request(method, path, body, query=query)

    @staticmethod
    def _session_path(session_id: str) -> str:
        return f"/api/sessions/{_segment(session_id)}"

    def _series_path(self, session_id: str, series_id: str, op: str) -> str:
        return f"{self._session_path(session_id)}/series/{_segment(series_id)}/{op}"

    # MARK: Sessions

    def sessions(self) -> List[Dict[str, Any]]:
        """Every session the server hosts (``GET /api/sessions``): each
        ``{"id", "title", "viewers", "series": [{"id", "name", "points"}]}``, where
        ``viewers`` counts who watches it and ``points`` is a series' point count."""
        answer = self._request("GET", "/api/sessions")
        return list(answer["sessions"])

    def create_session(self, spec: Mapping[str, Any]) -> Dict[str, Any]:
        """Creates a session from a spec (``POST /api/sessions``):
        ``{"id": ..., "title": ..., "chart": {...}}`` as in a config file
        (docs/config.md). The server checks it whole first; a fault is a 400 whose
        message names its JSON path. 409 when the id exists (see :meth:`put_session`).
        Answers ``{"id", "created": True}``. Needs the control token when the server
        has one."""
        return dict(self._json("POST", "/api/sessions", spec))

    def put_session(self, session_id: str, spec: Mapping[str, Any]) -> Dict[str, Any]:
        """Creates the session, or replaces its whole definition (``PUT
        /api/sessions/{id}``); its viewers stay connected and are sent the new chart.
        ``spec``'s id may be left out (it must match when given). Answers
        ``{"id", "created": True}`` or ``{"id", "replaced": True, "version": N}``."""
        return dict(self._json("PUT", self._session_path(session_id), spec))

    def patch_session(self, session_id: str, patch: Mapping[str, Any]) -> Dict[str, Any]:
        """Changes part of a session's spec (``PATCH /api/sessions/{id}``): a JSON merge
        patch, whose lists of objects with an ``"id"`` (``series``, ``xAxes``,
        ``yAxes``) merge by id, ``{"id": "s", "remove": True}`` removing an entry. What
        it does not touch keeps its live state (points, zoom). Checked whole: a fault
        is a 400 naming its JSON path, and nothing changes. Answers ``{"id", "version"}``."""
        return dict(self._json("PATCH", self._session_path(session_id), patch))

    def spec(self, session_id: str, data: bool = False) -> Dict[str, Any]:
        """The session's spec as it stands now (``GET /api/sessions/{id}/spec``), in the
        form :meth:`create_session` takes; with ``data=True`` each series carries its
        current points as ``data``. Tokens are never sent back. 409 for a session built
        in Swift (it has no spec)."""
        return dict(self._request("GET", self._session_path(session_id) + "/spec",
                                  query={"data": "1"} if data else None))

    def delete_session(self, session_id: str) -> Dict[str, Any]:
        """Removes the session (``DELETE /api/sessions/{id}``); its viewers are told
        (``session_removed``) and disconnected. Answers ``{"removed": id}``."""
        return dict(self._request("DELETE", self._session_path(session_id)))

    # MARK: Points

    def append(self, session_id: str, series_id: str, x: Column, y: Optional[Column] = None,
               **values: Column) -> int:
        """Appends points to a series (``POST .../series/{id}/append``) and returns how
        many the server accepted.

        ``x`` and ``y`` are lists, numpy arrays, or pandas Series; a pandas Series alone
        gives x from its index and y from its values, and a DataFrame alone gives x
        from its index and a value field per column. Datetimes (a ``DatetimeIndex``,
        ``datetime64`` arrays, ``datetime`` objects) become Unix seconds, naive ones
        counting as UTC. A NaN or None value is a gap.

        x/y series are sent in the binary body (little-endian float64 columns). Series
        types with other value fields take them by name, sent as JSON:
        ``append(s, "candles", x, open=o, high=h, low=l, close=c)``; band
        ``y=..., y1=...``; bubble ``y=..., size=...``.

        Each request is atomic on the server; more than 1,000,000 points are sent in
        several requests of at most that many, so a refusal can come after earlier
        slices were stored. Points may arrive in any x order (sorted data is the fast
        path)."""
        xs, fields = _columns.columns(x, y, values)
        assert xs is not None
        path = self._series_path(session_id, series_id, "append")
        accepted = 0
        for cx, cfields in _columns.chunks(xs, fields, MAX_POINTS):
            body, content_type = _columns.body(cx, cfields)
            accepted += int(self._request("POST", path, body, content_type)["accepted"])
        return accepted

    def append_vertical(self, session_id: str, series_id: str, y: Column, x: Column, x1: Column) -> int:
        """Appends rows to a vertical band (a ``band`` with ``"orientation": "vertical"``:
        docs/series.md, "Vertical bands") and returns how many the server accepted: each
        row's ``y`` (its key, up the Y axis, in any order) and its two X values ``x`` and
        ``x1`` (NaN or None in both: a gap), sent as JSON ``{"y", "x", "x1"}``. Columns
        as for :meth:`append`; more than 1,000,000 rows go in several requests."""
        keys = _columns.floats(y, "y")
        fields = {"x": _columns.floats(x, "x"), "x1": _columns.floats(x1, "x1")}
        if any(len(v) != len(keys) for v in fields.values()):
            raise ValueError(f"columns of unequal length: y {len(keys)}, x {len(fields['x'])}, x1 {len(fields['x1'])}")
        path = self._series_path(session_id, series_id, "append")
        accepted = 0
        for ck, cfields in _columns.chunks(keys, fields, MAX_POINTS):
            body = _columns.json_body(None, {"y": ck, **cfields})
            accepted += int(self._request("POST", path, body, "application/json")["accepted"])
        return accepted

    def replace(self, session_id: str, series_id: str, x: Column, y: Optional[Column] = None,
                **values: Column) -> int:
        """Replaces all of a series' points by these (``POST .../replace``): a reload,
        atomic, so at most 1,000,000 points (the server refuses more). Columns as for
        :meth:`append`. Returns how many points the series now holds from it."""
        xs, fields = _columns.columns(x, y, values)
        assert xs is not None
        body, content_type = _columns.body(xs, fields)
        answer = self._request("POST", self._series_path(session_id, series_id, "replace"), body, content_type)
        return int(answer["accepted"])

    def insert(self, session_id: str, series_id: str, index: int, x: Column, y: Optional[Column] = None,
               **values: Column) -> int:
        """Inserts sorted points before point ``index`` (``POST .../insert``; 0 to the
        point count). The first x must not be below point ``index-1``'s, the last not
        above point ``index``'s; with a ``capacity`` the oldest points make room.
        Columns as for :meth:`append` (always sent as JSON). Returns how many were
        inserted."""
        xs, fields = _columns.columns(x, y, values)
        body = _columns.json_body(xs, fields, head={"index": int(index)})
        return int(self._request("POST", self._series_path(session_id, series_id, "insert"), body)["accepted"])

    def update(self, session_id: str, series_id: str, index: int, y: Optional[Column] = None,
               **values: Column) -> int:
        """New values for points ``index``, ``index+1``, ... (``POST .../update``); their
        x stay. ``y`` for x/y series, or the type's value fields by name (``open=...``).
        Returns how many points changed."""
        _, fields = _columns.columns(None, y, values, need_x=False)
        body = _columns.json_body(None, fields, head={"index": int(index)})
        return int(self._request("POST", self._series_path(session_id, series_id, "update"), body)["accepted"])

    def remove_first(self, session_id: str, series_id: str, count: int) -> int:
        """Removes the series' oldest ``count`` points (``POST .../removeFirst``; at most
        its point count). Returns how many were removed."""
        body = json.dumps({"count": int(count)}).encode()
        return int(self._request("POST", self._series_path(session_id, series_id, "removeFirst"), body)["removed"])

    def clear(self, session_id: str, series_id: str) -> int:
        """Removes all of the series' points (``POST .../clear``). Returns how many it held."""
        return int(self._request("POST", self._series_path(session_id, series_id, "clear"), b"{}")["removed"])

    def write_lines(self, session_id: str, lines: Union[str, bytes, Iterable[str]], precision: str = "ns") -> int:
        """Writes InfluxDB line protocol to a session (``POST
        /api/sessions/{id}/write?precision=...``) and returns how many points the
        server accepted. ``lines`` is the text (str or bytes) or an iterable of lines
        (joined with newlines). ``precision`` is the unit of the lines' integer
        timestamps: ``ns`` (InfluxDB's default), ``us``, ``ms`` or ``s``. A malformed
        body is refused whole with a 400 whose message starts
        ``line L, column C:``."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        if isinstance(lines, bytes):
            body = lines
        elif isinstance(lines, str):
            body = lines.encode("utf-8")
        else:
            body = "\n".join(lines).encode("utf-8")
        answer = self._request("POST", self._session_path(session_id) + "/write", body,
                               "text/plain; charset=utf-8", query={"precision": precision})
        return int(answer["accepted"])

    # MARK: Streaming

    def publisher(self, session_id: str, series_id: str) -> Publisher:
        """A WebSocket that streams batches of points to one series
        (``/publish/{session}/{series}``): see :class:`Publisher`. Sends this client's
        token on the upgrade. Needs the ``websocket-client`` package."""
        return Publisher(self._ws_url(f"/publish/{_segment(session_id)}/{_segment(series_id)}"),
                         token=self.token, timeout=self.timeout)

    def _ws_url(self, path: str) -> str:
        parts = urllib.parse.urlsplit(self.base_url)
        scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
        return urllib.parse.urlunsplit((scheme, parts.netloc, parts.path + path, "", ""))

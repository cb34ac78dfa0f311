"""The publisher: a WebSocket that streams batches of points to one series.

The connection (``ws://host:port/publish/{session}/{series}``, subprotocol
``chartwire.publish.v1``) carries one batch per message: a binary message in the
binary append body's layout (``CWA1``, the count, x and y as little-endian float64),
or a text message with a JSON append body. The server answers every batch, in order,
with ``{"type": "ack", "batch": k, "accepted": N}`` or ``{"type": "error", "batch": k,
"code": ..., "message": ...}`` (that batch not applied; the connection stays), k
counting the connection's batches from 1.
"""
from __future__ import annotations

import html
import json
import math
import re
import threading
import time
from types import TracebackType
from typing import Any, List, Optional, Tuple, Type

from . import _columns
from ._columns import MAX_POINTS, Column
from ._errors import ChartWireError, PublishTimeout

#: The WebSocket subprotocol of the publisher route.
SUBPROTOCOL = "chartwire.publish.v1"


def _error_in(text: str) -> Optional[str]:
    """The ``error`` of a JSON ``{"error": ...}`` text, if it is one."""
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer["error"] if isinstance(answer, dict) and isinstance(answer.get("error"), str) else None


def _handshake_error(e: Exception) -> ChartWireError:
    """A refused upgrade: its status and the server's reason. The server's answer is
    libwebsockets' small HTML page, ``<h1>STATUS</h1>`` followed by the reason (plain
    text, or the ``{"error": ...}`` JSON of the HTTP routes)."""
    status = getattr(e, "status_code", None)
    raw = getattr(e, "resp_body", None) or b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    message = _error_in(text)
    if message is None:
        inner = re.search(r"</h1>(.*?)</body>", text, re.S)
        reason = inner.group(1).strip() if inner else ""
        message = _error_in(reason) or html.unescape(reason)
    if not message:
        message = f"the WebSocket upgrade was refused: {e}"
    return ChartWireError(status if isinstance(status, int) else None, message)


class Publisher:
    """A WebSocket that streams batches of points to one series; made by
    :meth:`Client.publisher`.

    :meth:`send` sends a batch and returns at once; the server acknowledges batches in
    order, read by a background thread. :meth:`flush` waits until every batch sent so
    far is acknowledged and raises :class:`ChartWireError` for any the server refused.
    As a context manager it flushes on a normal exit, then closes::

        with client.publisher("demo", "price") as pub:
            for x, y in feed():
                pub.send(x, y)
        # every batch acknowledged here, or ChartWireError raised

    Raises :class:`ChartWireError` when the upgrade is refused (``.status`` 404 for an
    unknown session or series, 401/403 without the controller token a session with
    ``access`` needs).
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 10.0) -> None:
        try:
            import websocket
        except ImportError:
            raise ImportError("the publisher needs the websocket-client package: "
                              "pip install websocket-client (or chartwire[publish])") from None
        self.url = url
        self.timeout = timeout
        header = [f"Authorization: Bearer {token}"] if token is not None else []
        try:
            self._ws: Any = websocket.create_connection(url, timeout=timeout, subprotocols=[SUBPROTOCOL], header=header)
        except websocket.WebSocketBadStatusException as e:
            raise _handshake_error(e) from None
        except (websocket.WebSocketException, OSError) as e:
            raise ChartWireError(None, f"{url}: {e}") from None
        # The reader blocks until the server says something; sends keep no timeout
        # either (a full socket buffer waits for the server to read).
        self._ws.settimeout(None)
        self._cond = threading.Condition()
        # Numbers batches in the order they go out, when several threads send. Separate
        # from _cond, which the reader needs while a send waits on a full socket.
        self._send_lock = threading.Lock()
        self._sent = 0          # batches sent
        self._answered = 0      # the highest batch number answered
        self._accepted = 0      # points accepted by acknowledged batches
        self._refused: List[Tuple[Optional[int], str, str]] = []  # (batch, code, message)
        self._closing = False
        self._closed: Optional[str] = None  # why the connection ended, once it has
        self._reader = threading.Thread(target=self._read, name=f"chartwire-publisher {url}", daemon=True)
        self._reader.start()

    # MARK: Reading answers

    def _read(self) -> None:
        import websocket

        reason = "the server closed the connection"
        try:
            while True:
                msg = self._ws.recv()
                if msg == "" or msg == b"":  # a close frame
                    break
                if isinstance(msg, bytes):
                    continue  # the protocol has no binary answers
                self._answer(msg)
        except websocket.WebSocketConnectionClosedException:
            pass
        except Exception as e:  # a reset connection, a protocol fault
            reason = f"the connection failed: {e}"
        with self._cond:
            self._closed = "the publisher was closed" if self._closing else reason
            self._cond.notify_all()

    def _answer(self, text: str) -> None:
        try:
            msg = json.loads(text)
        except ValueError:
            msg = None
        with self._cond:
            if not isinstance(msg, dict):
                self._refused.append((None, "bad_answer", f"the server sent {text[:200]!r}"))
            elif msg.get("type") == "ack":
                self._answered = max(self._answered, int(msg.get("batch", self._answered + 1)))
                self._accepted += int(msg.get("accepted", 0))
            elif msg.get("type") == "error":
                batch = msg.get("batch")
                if isinstance(batch, int):
                    self._answered = max(self._answered, batch)
                self._refused.append((batch if isinstance(batch, int) else None,
                                      str(msg.get("code", "error")), str(msg.get("message", ""))))
            # Other messages (none are defined yet) are no answer to a batch.
            self._cond.notify_all()

    # MARK: Sending

    def send(self, x: Column, y: Optional[Column] = None, **values: Column) -> int:
        """Sends points as one batch, without waiting for the answer, and returns the
        batch's number on this connection (from 1). Columns as for
        :meth:`Client.append`: x/y go in a binary message; other value fields
        (``open=...``) in a JSON text message. More than 1,000,000 points go as several
        batches; the number returned is the last one's."""
        xs, fields = _columns.columns(x, y, values)
        assert xs is not None
        batch = 0
        for cx, cfields in _columns.chunks(xs, fields, MAX_POINTS):
            if _columns.is_binary(cfields):
                payload: Any = _columns.binary_body(cx, cfields["y"])
                binary = True
            else:
                payload = _columns.json_body(cx, cfields).decode()
                binary = False
            with self._send_lock:
                with self._cond:
                    if self._closed is not None or self._closing:
                        raise ChartWireError(None, f"{self.url}: cannot send: {self._closed or 'the publisher was closed'}")
                    self._sent += 1
                    batch = self._sent
                try:
                    if binary:
                        self._ws.send_binary(payload)
                    else:
                        self._ws.send(payload)
                except Exception as e:
                    raise ChartWireError(None, f"{self.url}: sending batch {batch} failed: {e}") from None
        return batch

    def flush(self, timeout: Optional[float] = None) -> int:
        """Waits until every batch sent so far is answered, and returns how many points
        the server has accepted on this connection in all.

        Raises :class:`ChartWireError` (``.batch``, ``.code`` of the first) when the
        server refused any batch since the last flush, naming every one; the batches it
        acknowledged stay applied. Raises it too when the connection ended with batches
        unanswered, and :class:`PublishTimeout` when ``timeout`` seconds (default: the
        client's timeout; ``math.inf``: no limit) pass first."""
        limit = self.timeout if timeout is None else timeout
        deadline = None if math.isinf(limit) else time.monotonic() + limit
        with self._cond:
            while self._answered < self._sent and self._closed is None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._cond.wait(left)
            refused, self._refused = self._refused, []
            answered, sent, closed, accepted = self._answered, self._sent, self._closed, self._accepted
        if refused:
            text = "; ".join(f"batch {b} refused ({code}): {message}" if b is not None else f"{code}: {message}"
                             for b, code, message in refused)
            raise ChartWireError(None, text, code=refused[0][1], batch=refused[0][0])
        if answered < sent:
            if closed is not None:
                raise ChartWireError(None, f"{self.url}: {closed} with batches {answered + 1} to {sent} unanswered")
            raise PublishTimeout(None, f"{self.url}: batches {answered + 1} to {sent} unanswered after {limit} s")
        return accepted

    # MARK: State and closing

    @property
    def sent(self) -> int:
        """Batches sent on this connection."""
        with self._cond:
            return self._sent

    @property
    def accepted(self) -> int:
        """Points the server has acknowledged on this connection so far."""
        with self._cond:
            return self._accepted

    def close(self) -> None:
        """Closes the connection without waiting for answers (call :meth:`flush`
        first to know every batch arrived). Closing twice does nothing."""
        with self._cond:
            if self._closing:
                return
            self._closing = True
        try:
            self._ws.send_close()
        except Exception:
            pass
        # The reader returns when the server's close frame arrives.
        self._reader.join(min(self.timeout, 2.0))
        if self._reader.is_alive():
            self._ws.abort()
            self._reader.join(1.0)
        self._ws.shutdown()

    def __enter__(self) -> "Publisher":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        try:
            if exc_type is None:
                self.flush()
        finally:
            self.close()

    def __repr__(self) -> str:
        return f"Publisher({self.url!r}, sent={self.sent}, accepted={self.accepted})"

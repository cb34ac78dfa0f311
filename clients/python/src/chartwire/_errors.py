"""The errors the client raises."""
from __future__ import annotations

from typing import Optional


class ChartWireError(Exception):
    """The server refused a request, or could not be reached.

    ``status`` is the HTTP status of the answer (400 bad input, 401 no token, 403 wrong
    token, 404 unknown session or series, 409 conflict, 413 body too large), or None when
    there was no HTTP answer (connection refused, timed out, or an error the publisher's
    WebSocket reported). ``message`` is the server's own text (its ``{"error": ...}``);
    for a bad spec it starts with the JSON path of the fault, such as
    ``$.chart.series[0].type: ...``.

    A batch the publisher's server refused also sets ``code`` (the server's error code)
    and ``batch`` (the batch's number on its connection, counted from 1).
    """

    def __init__(self, status: Optional[int], message: str, *, code: Optional[str] = None,
                 batch: Optional[int] = None) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message
        self.code = code
        self.batch = batch

    def __str__(self) -> str:
        return f"{self.status}: {self.message}" if self.status is not None else self.message

    def __repr__(self) -> str:
        return f"ChartWireError(status={self.status!r}, message={self.message!r})"


class PublishTimeout(ChartWireError, TimeoutError):
    """``Publisher.flush`` gave up waiting: batches sent are not all acknowledged yet.

    A ``ChartWireError`` (``status`` None) and a ``TimeoutError``; the batches may still
    be acknowledged later, and a later ``flush`` waits for them again."""

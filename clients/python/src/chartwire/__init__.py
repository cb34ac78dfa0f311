"""A Python client for ChartWire, the live-chart server.

The server owns each chart's state and streams display lists to browsers; this
package defines sessions and feeds their series over the server's HTTP API, and
streams batches over its publisher WebSocket::

    import chartwire

    cw = chartwire.Client("http://127.0.0.1:8080")
    cw.create_session({"id": "demo", "chart": {"series": [{"id": "price"}]}})
    cw.append("demo", "price", [1, 2, 3], [10.0, float("nan"), 12.5])

Only the standard library is needed; numpy and pandas objects are taken when passed
(numpy makes large batches fast), and the publisher needs ``websocket-client``.
"""
from ._columns import MAX_POINTS
from ._errors import ChartWireError, PublishTimeout
from .client import Client
from .publisher import Publisher

__all__ = ["Client", "Publisher", "ChartWireError", "PublishTimeout", "MAX_POINTS"]
__version__ = "0.1.0"

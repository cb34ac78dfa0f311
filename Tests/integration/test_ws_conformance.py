"""WebSocket framing rules (RFC 6455) as the server enforces them, with raw sockets:
the cases of the Autobahn testsuite's sections 1-7 that matter for a server which only
receives small JSON text messages (the Autobahn suite itself is Python 2 only and cannot
be installed here). Each case sends frames after a real handshake and checks the
server's reaction: the close code it sends, or its answer."""
import os
import struct

import pytest

from conftest import Server
from wsraw import frame, handshake, reaction


@pytest.fixture(scope="module")
def server():
    s = Server().start()
    yield s
    assert s.alive(), "the server died during the conformance cases"
    s.stop()


HELLO = b'{"type":"hello","width":300,"height":200,"dpr":1}'


@pytest.mark.parametrize("name,frames,expected", [
    ("reserved bit 1 without an extension", [frame(0x1, HELLO, rsv=4)], 1002),
    ("reserved bits 2 and 3", [frame(0x1, HELLO, rsv=3)], 1002),
    ("reserved data opcode 3", [frame(0x3, b"x")], 1002),
    ("reserved control opcode 11", [frame(0xB, b"x")], 1002),
    ("fragmented ping", [frame(0x9, b"x", fin=False)], 1002),
    ("ping of 126 bytes", [frame(0x9, b"x" * 126)], "failed"),
    ("continuation with no message begun", [frame(0x0, b"x")], 1002),
    ("text frame inside a fragmented message", [frame(0x1, b"{", fin=False), frame(0x1, b"}")], 1002),
    ("invalid UTF-8 text", [frame(0x1, b'{"type":"\xff\xfe"}')], 1007),
    ("invalid UTF-8 across fragments", [frame(0x1, b'{"a":"\xce', fin=False), frame(0x0, b'\x28"}')], 1007),
    ("close code 999", [frame(0x8, struct.pack("!H", 999))], 1002),
    ("close code 1005 (reserved)", [frame(0x8, struct.pack("!H", 1005))], 1002),
    ("close code 1016 (unassigned)", [frame(0x8, struct.pack("!H", 1016))], 1002),
    ("close with a one-byte payload", [frame(0x8, b"\x03")], "failed"),
    ("close with invalid UTF-8 reason", [frame(0x8, struct.pack("!H", 1000) + b"\xff")], "failed"),
    ("normal close", [frame(0x8, struct.pack("!H", 1000) + b"bye")], 1000),
    ("close code 3000 (registered range): echoed", [frame(0x8, struct.pack("!H", 3000))], 3000),
    ("close code 4999 (private range): echoed", [frame(0x8, struct.pack("!H", 4999))], 4999),
    ("length with the top bit set", [b"\x81\xff" + b"\x80" + b"\x00" * 7 + os.urandom(4)], "failed"),
])
def test_framing_rule(server, name, frames, expected):
    s = handshake(server.port)
    for f in frames:
        s.sendall(f)
    kind, detail = reaction(s)
    s.close()
    if expected == "failed":
        # "Fail the WebSocket connection" (RFC 6455 7.1.7): a 1002 close, or the TCP
        # connection dropped; never an echo or an open connection.
        assert kind in ("eof", "reset") or (kind, detail) == ("close", 1002), f"{name}: {kind} {detail}"
    else:
        assert (kind, detail) == ("close", expected), f"{name}: {kind} {detail}"


def test_ping_is_answered_with_the_same_payload(server):
    s = handshake(server.port)
    s.sendall(frame(0x9, b"are you there"))
    kind, seen = reaction(s, wait=1.0)
    s.close()
    assert (0xA, b"are you there") in seen


def test_fragmented_message_with_a_ping_between(server):
    s = handshake(server.port)
    s.sendall(frame(0x1, HELLO[:10], fin=False) + frame(0x9, b"p") + frame(0x0, HELLO[10:]))
    kind, seen = reaction(s, wait=1.5)
    s.close()
    assert kind == "open"
    assert (0xA, b"p") in seen
    assert any(op == 0x1 and b'"welcome"' in p for op, p in seen), seen
    assert any(op == 0x2 for op, _ in seen), "no frame after a fragmented hello"


@pytest.mark.parametrize("first", [False, True])
def test_unmasked_client_frame_is_a_protocol_error(server, first):
    """libwebsockets 4.1 accepts unmasked client frames; the server closes with 1002
    (docs/security.md, "Transport"), also after masked frames of every length form."""
    s = handshake(server.port)
    if not first:
        s.sendall(frame(0x1, HELLO) + frame(0x1, b'{"type":"ack"}' + b" " * 200)
                  + frame(0x1, b'{"type":"ack"}' + b" " * 70000) + frame(0x9, b"p"))
        kind, seen = reaction(s, wait=1.0)
        assert kind == "open" and (0xA, b"p") in seen, (kind, seen)
    s.sendall(frame(0x1, HELLO, masked=False))
    kind, detail = reaction(s, wait=1.5)
    s.close()
    assert (kind, detail) == ("close", 1002)

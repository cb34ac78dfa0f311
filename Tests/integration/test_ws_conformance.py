"""WebSocket framing rules (RFC 6455) as the server enforces them, with raw sockets:
the cases of the Autobahn testsuite's sections 1-7 that matter for a server which only
receives small JSON text messages (the Autobahn suite itself is Python 2 only and cannot
be installed here). Each case sends frames after a real handshake and checks the
server's reaction: the close code it sends, or its answer."""
import base64
import os
import socket
import struct
import time

import pytest

from conftest import Server


@pytest.fixture(scope="module")
def server():
    s = Server().start()
    yield s
    assert s.alive(), "the server died during the conformance cases"
    s.stop()


def handshake(port, path="/ws/demo"):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(5)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: chartwire.v1\r\n\r\n")
              .encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    assert data.startswith(b"HTTP/1.1 101"), data
    return s


def frame(opcode, payload=b"", fin=True, rsv=0, masked=True, length=None):
    b0 = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(payload) if length is None else length
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", b0, mask_bit | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, mask_bit | 126, n)
    else:
        head = struct.pack("!BBQ", b0, mask_bit | 127, n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(c ^ key[i % 4] for i, c in enumerate(payload))


def reaction(s, wait=3.0):
    """The server's frames until it closes: ("close", code) or ("open", [opcodes])."""
    buf, seen, t = b"", [], time.time()
    s.settimeout(0.3)
    while time.time() - t < wait:
        try:
            b = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return ("reset", seen)
        if not b:
            return ("eof", seen)
        buf += b
        while len(buf) >= 2:
            op, n, off = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, off = struct.unpack("!H", buf[2:4])[0], 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, off = struct.unpack("!Q", buf[2:10])[0], 10
            if len(buf) < off + n:
                break
            payload, buf = buf[off:off + n], buf[off + n:]
            if op == 0x8:
                return ("close", struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None)
            seen.append((op, payload))
    return ("open", seen)


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


@pytest.mark.xfail(strict=True, reason="libwebsockets 4.1 accepts unmasked client frames and does not expose the "
                                       "mask bit to the server (docs/security.md, 'Known limits')")
def test_unmasked_client_frame_is_a_protocol_error(server):
    s = handshake(server.port)
    s.sendall(frame(0x1, HELLO, masked=False))
    kind, detail = reaction(s, wait=1.5)
    s.close()
    assert (kind, detail) == ("close", 1002)

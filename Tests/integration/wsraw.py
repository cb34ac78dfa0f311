"""A WebSocket client over a raw socket, for sending frames a library would not
(unmasked, reserved bits, floods) and reading exactly what the server answers."""
import base64
import os
import socket
import struct
import time


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

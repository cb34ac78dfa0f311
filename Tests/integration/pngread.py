"""Reads the 8-bit RGB/RGBA, non-interlaced PNGs that Chromium's screenshots are,
so the tests can look at pixels without an imaging library."""
import struct
import zlib


def read_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    o, idat, width = 8, b"", None
    while o < len(data):
        length, kind = struct.unpack(">I4s", data[o:o + 8])
        chunk = data[o + 8:o + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and color in (2, 6) and interlace == 0, "unsupported PNG layout"
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += chunk
        o += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def pixel(img, x, y):
    _, _, ch, rows = img
    return tuple(rows[y][x * ch:x * ch + 3])

"""An independent reader of ChartWire's binary frames (docs/protocol.md), written
from the document, so the tests check the wire format and not only the server."""
import struct

LAYERS = ["background", "series", "overlay"]
ALIGN = ["left", "center", "right"]
BASELINE = ["alphabetic", "top", "middle", "bottom"]


class Reader:
    def __init__(self, data, offset=0):
        self.data, self.o = data, offset

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.o + size > len(self.data):
            raise ValueError(f"frame truncated at byte {self.o}")
        values = struct.unpack_from(fmt, self.data, self.o)
        self.o += size
        return values if len(values) > 1 else values[0]

    def floats(self, n):
        return list(self.take(f"<{n}f")) if n > 1 else ([self.take("<f")] if n == 1 else [])


def decode(data):
    r = Reader(data)
    if r.take("<4s") != b"CWF1":
        raise ValueError("bad magic")
    width, height, dpr, count = r.take("<HHfB")
    r.take("<3s")  # reserved
    frame = {"width": width, "height": height, "dpr": dpr, "layers": []}
    for _ in range(count):
        code = r.take("<B"); r.take("<3s")
        version, length = r.take("<II")
        end = r.o + length
        strings = []
        for _ in range(r.take("<H")):
            n = r.take("<H")
            strings.append(r.take(f"<{n}s").decode("utf-8") if n else "")
        s = lambda: strings[r.take("<H")]
        commands = []
        for _ in range(r.take("<I")):
            op = r.take("<B")
            if op in (1, 2):
                stroke, width_ = s(), r.take("<f")
                dash = r.floats(r.take("<B"))
                n = r.take("<I")
                coords = r.floats(n * (2 if op == 1 else 4))
                key = "points" if op == 1 else "coords"
                commands.append({"op": "polyline" if op == 1 else "segments", key: coords,
                                 "stroke": stroke, "width": width_, "dash": dash})
            elif op == 3:
                flags = r.take("<B")
                c = {"op": "rect", "x": r.take("<f"), "y": r.take("<f"), "w": r.take("<f"), "h": r.take("<f")}
                if flags & 1:
                    c["fill"] = s()
                if flags & 2:
                    c["stroke"] = s(); c["lineWidth"] = r.take("<f")
                commands.append(c)
            elif op == 4:
                x, y, angle = r.take("<fff")
                text, font, fill = s(), s(), s()
                align, baseline = r.take("<BB")
                commands.append({"op": "text", "x": x, "y": y, "angle": angle, "text": text, "font": font,
                                 "fill": fill, "align": ALIGN[align], "baseline": BASELINE[baseline]})
            elif op == 5:
                commands.append({"op": "clip", "x": r.take("<f"), "y": r.take("<f"), "w": r.take("<f"), "h": r.take("<f")})
            elif op == 6:
                commands.append({"op": "unclip"})
            else:
                raise ValueError(f"unknown opcode {op}")
        if r.o != end:
            raise ValueError("layer length does not match its body")
        frame["layers"].append({"id": LAYERS[code], "version": version, "commands": commands})
    if r.o != len(data):
        raise ValueError("trailing bytes")
    return frame


def plot_rect(background):
    """The plot area: the second rect of the background layer (after the canvas fill)."""
    rects = [c for c in background["commands"] if c["op"] == "rect"]
    p = rects[1]
    return p["x"], p["y"], p["w"], p["h"]


def x_axis_labels(background):
    """(pixel x, value) of the bottom axis' numeric tick labels."""
    x, y, w, h = plot_rect(background)
    out = []
    for c in background["commands"]:
        if c["op"] == "text" and c["y"] > y + h and not c.get("angle") and c["align"] == "center":
            try:
                out.append((c["x"], float(c["text"])))
            except ValueError:
                pass
    return out


def visible_x_range(background):
    """The X range shown, from two tick labels and the plot's edges."""
    labels = x_axis_labels(background)
    (x0, v0), (x1, v1) = labels[0], labels[-1]
    per_px = (v1 - v0) / (x1 - x0)
    x, _, w, _ = plot_rect(background)
    return v0 + (x - x0) * per_px, v0 + (x + w - x0) * per_px

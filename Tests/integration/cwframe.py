"""An independent reader of ChartWire's binary frames (docs/protocol.md), written
from the document, so the tests check the wire format and not only the server."""
import struct

LAYERS = ["background", "series", "overlay", "modifier"]
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


def _runs(r):
    entries = []
    for _ in range(r.take("<I")):
        column, count, flags = r.take("<iHB")
        for j in range(count):
            tag = r.take("<B")
            if j > 0:
                column += (tag & 0x1F) or r.take("<H")
            lo = r.take("<H")
            hi = lo if tag & 0x20 else r.take("<H")
            first = r.take("<H") if tag & 0x40 else lo
            last = r.take("<H") if tag & 0x80 else hi
            entries.append({"column": column, "lo": lo, "hi": hi, "first": first, "last": last,
                            "joined": bool(flags & 1) if j == 0 else True})
    return entries


def _columns(r, s):
    """A columns line after its opcode (also each line of a band)."""
    stroke, width_ = s(), r.take("<f")
    dash = r.floats(r.take("<B"))
    flags = r.take("<B")
    area = None
    if flags & 2:
        area = {"fill": s()}
        area["base"], area["top"] = r.take("<HH")
        if flags & 4:
            area["gradient"] = s()
    x0, dx, y0, dy = r.take("<ffff")
    return {"op": "columns", "stroke": stroke, "width": width_, "dash": dash,
             "step": bool(flags & 1), "area": area,
             "x0": x0, "dx": dx, "y0": y0, "dy": dy, "entries": _runs(r)}


SHAPES = ["circle", "square", "triangle", "diamond", "cross"]


def _commands(r, n, strings):
    s = lambda: strings[r.take("<H")]
    commands = []
    for _ in range(n):
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
        elif op == 13:
            commands.append({"op": "opacity", "alpha": r.take("<f")})
        elif op == 14:
            x, y, w, h = r.take("<ffff")
            commands.append({"op": "image", "x": x, "y": y, "w": w, "h": h, "src": s()})
        elif op == 7:
            commands.append(_columns(r, s))
        elif op == 12:
            c = {"op": "band", "fill": s(), "fillY1": s()}
            c["top"], c["bottom"] = r.take("<ff")
            c["a"], c["b"] = _columns(r, s), _columns(r, s)
            commands.append(c)
        elif op == 8:
            shape, flags = r.take("<BB")
            c = {"op": "markers", "shape": SHAPES[shape], "size": r.take("<f")}
            if flags & 1:
                c["fill"] = s()
            if flags & 2:
                c["stroke"] = s(); c["lineWidth"] = r.take("<f")
            c["x0"], c["y0"], c["unit"] = r.take("<fff")
            n = r.take("<I")
            c["cells"] = [r.take("<H") for _ in range(2 * n)]
            commands.append(c)
        elif op == 9:
            c = {"op": "bars", "fill": s()}
            if r.take("<B") & 2:
                c["stroke"] = s(); c["lineWidth"] = r.take("<f")
            c["x0"], c["y0"], c["unit"] = r.take("<fff")
            n = r.take("<I")
            c["bars"] = [r.take("<H") for _ in range(4 * n)]
            commands.append(c)
        elif op == 11:
            c = {"op": "wedges"}
            c["cx"], c["cy"], c["r0"], c["r1"] = r.take("<ffff")
            if r.take("<B") & 2:
                c["stroke"] = s(); c["lineWidth"] = r.take("<f")
            c["wedges"] = []
            for _ in range(r.take("<I")):
                fill = s()
                a0, a1, offset = r.take("<fff")
                c["wedges"].append({"fill": fill, "a0": a0, "a1": a1, "offset": offset})
            commands.append(c)
        elif op == 10:
            c = {"op": "polygon", "fill": s()}
            if r.take("<B") & 1:
                c["gradient"] = {"color": s()}
                c["gradient"]["x0"], c["gradient"]["y0"], c["gradient"]["x1"], c["gradient"]["y1"] = r.take("<ffff")
            c["points"] = r.floats(2 * r.take("<I"))
            commands.append(c)
        else:
            raise ValueError(f"unknown opcode {op}")
    return commands


def decode(data):
    """A binary frame as a dict; a patched layer has "base" and "patch" instead of "commands"."""
    r = Reader(data)
    if r.take("<4s") != b"CWF2":
        raise ValueError("bad magic")
    width, height, dpr, count = r.take("<HHfB")
    r.take("<3s")  # reserved
    data_time = r.take("<d")
    frame = {"width": width, "height": height, "dpr": dpr, "dataTime": data_time, "layers": []}
    for _ in range(count):
        code, kind = r.take("<BB"); r.take("<2s")
        version, length = r.take("<II")
        end = r.o + length
        base = r.take("<I") if kind == 1 else None
        strings = []
        for _ in range(r.take("<H")):
            n = r.take("<H")
            strings.append(r.take(f"<{n}s").decode("utf-8") if n else "")
        if kind == 0:
            frame["layers"].append({"id": LAYERS[code], "version": version,
                                    "commands": _commands(r, r.take("<I"), strings)})
        elif kind == 1:
            ops = []
            for _ in range(r.take("<I")):
                op = r.take("<B")
                if op == 1:
                    ops.append({"keep": r.take("<I")})
                elif op == 2:
                    ops.append({"skip": r.take("<I")})
                elif op == 3:
                    ops.append({"insert": _commands(r, r.take("<I"), strings)})
                elif op == 4:
                    shift, x0, keep_from, keep_count = r.take("<ifII")
                    ops.append({"columns": {"shift": shift, "x0": x0, "keepFrom": keep_from,
                                            "keepCount": keep_count, "head": _runs(r), "tail": _runs(r)}})
                else:
                    raise ValueError(f"unknown patch opcode {op}")
            frame["layers"].append({"id": LAYERS[code], "version": version, "base": base, "patch": ops})
        else:
            raise ValueError(f"unknown layer kind {kind}")
        if r.o != end:
            raise ValueError("layer length does not match its body")
    if r.o != len(data):
        raise ValueError("trailing bytes")
    return frame


def json_entries(entries):
    """The JSON form's [column, lo, hi, first, last, joined] arrays as entries (what the
    binary decoder gives)."""
    return [{"column": e[0], "lo": e[1], "hi": e[2], "first": e[3], "last": e[4], "joined": e[5] == 1}
            for e in entries]


def apply_patch(base, patch):
    """The layer a patch makes of the layer held (docs/protocol.md, "Patches")."""
    if base is None or base["version"] != patch["base"]:
        raise ValueError(f"patch for version {patch['base']}, holding {base and base['version']}")
    old, out, at = base["commands"], [], 0
    for op in patch["patch"]:
        if "keep" in op:
            if at + op["keep"] > len(old):
                raise ValueError("keep past the end")
            out += old[at:at + op["keep"]]; at += op["keep"]
        elif "skip" in op:
            at += op["skip"]
        elif "insert" in op:
            out += op["insert"]
        else:
            p, line = op["columns"], old[at]
            at += 1
            if line["op"] != "columns":
                raise ValueError("columns patch on a " + line["op"])
            kept = [dict(e, column=e["column"] - p["shift"])
                    for e in line["entries"][p["keepFrom"]:p["keepFrom"] + p["keepCount"]]]
            out.append(dict(line, x0=p["x0"], entries=p["head"] + kept + p["tail"]))
    return {"id": patch["id"], "version": patch["version"], "commands": out}


class Held:
    """What a viewer holds: the last whole version of each layer, patched as frames arrive."""

    def __init__(self):
        self.layers = {}

    def apply(self, frame):
        """Applies a decoded frame; returns it with every layer whole."""
        whole = []
        for layer in frame["layers"]:
            if "patch" in layer:
                layer = apply_patch(self.layers.get(layer["id"]), layer)
            self.layers[layer["id"]] = layer
            whole.append(layer)
        return dict(frame, layers=whole)


def column_polylines(cmd):
    """The polylines a columns command draws (as the client draws it), in CSS pixels."""
    out, cur, pen = [], [], 0.0
    y = lambda q: cmd["y0"] + q * cmd["dy"]
    es = cmd["entries"]
    for i, e in enumerate(es):
        x = cmd["x0"] + e["column"] * cmd["dx"]
        if cmd.get("step"):
            if i > 0 and e["joined"]:
                cur += [x, y(es[i - 1]["last"]), x, y(e["first"])]
            else:
                if len(cur) >= 4:
                    out.append(cur)
                cur = [x, y(e["first"])]
            cur += [x, y(e["lo"]), x, y(e["hi"]), x, y(e["last"])]
            continue
        if i > 0 and e["joined"]:
            p = es[i - 1]
            if e["column"] > p["column"] + 1:
                cur += [cmd["x0"] + p["column"] * cmd["dx"], y(p["last"]), x, y(e["first"])]
                pen = y(e["first"])
        else:
            if len(cur) >= 4:
                out.append(cur)
            cur, pen = [x, y(e["first"])], y(e["first"])
        lo, hi = y(e["lo"]), y(e["hi"])
        a, b = (lo, hi) if abs(pen - lo) <= abs(pen - hi) else (hi, lo)
        cur += [x, a, x, b]
        pen = b
    if len(cur) >= 4:
        out.append(cur)
    return out


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

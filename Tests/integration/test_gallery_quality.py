"""Every hosted chart (the demo's sessions and the axis gallery) clean at every size
(issue 31): read from the display lists the server sends (`/api/sessions/{s}/frame.json`),
with text measured in headless Chromium in the chart font, as the page draws it.

At 1280x760, 800x500 and 480x320 (the issue's sizes), 480x200 (a phone's chart under
the page's header), 215x198 and 375x198 (the cells of /d/ops in a page 480 and 800 px
wide, measured in Chromium):
- no text leaves the canvas, and no two texts overlap (their ink boxes, rotated as
  drawn); centred labels on one baseline (a horizontal axis') keep 3 px apart; an
  annotation's text (the series layer's) keeps 3 px from other text and is not struck
  through by an annotation's line or a box' outline; the annotation gallery also at
  every size from 280x160 to 800x500 (`SWEEP`);
- every Y axis beside the plot with numbers shows at least two labels where the plot
  is four label lines tall (one label gives no scale);
- no legend box lies over a series' drawn pixels, unless the spec pins the legend
  (names its `placement`);
- no marker or bubble is cut by a plot edge on a chart whose ranges follow the data;
- on an automatic Y axis whose series never go below zero, the plot does not reach
  below zero (read from the axis' numeric labels).

One server, one browser, one measurement call: the whole module takes a few seconds."""
import json
import math
import re
import urllib.error
import urllib.request

import pytest

from conftest import Server
from test_browser import browser, wait_for

SIZES = [(1280, 760), (800, 500), (480, 320), (480, 200), (215, 198), (375, 198)]
# The annotation gallery also at every size from 280x160 to 800x500 in steps of 10 px
# across and 20 down (tiles and phones of every shape): its labels are placed by rules
# whose outcome changes with the size (SLO 200 ms and peak 210 ms were drawn as one
# two-line label, their line boxes touching, at 290 to 390 px wide by 400 tall).
SWEPT = "gallery-annotations"
SWEEP = [(w, h) for w in range(280, 801, 10) for h in range(160, 501, 20)]
# Ink boxes may touch: a pixel of anti-aliasing is not an overlap.
TOLERANCE = 1.0


def get(server, path):
    with urllib.request.urlopen(server.http + path) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def gallery():
    """Every session's spec and its frames at the three sizes, the texts' measurements."""
    server = Server().start()
    try:
        specs = {}
        for s in get(server, "/api/sessions")["sessions"]:
            try:
                specs[s["id"]] = get(server, f"/api/sessions/{s['id']}/spec?data=1")
            except urllib.error.HTTPError as e:
                # (A session with `access` shows its spec to its controllers only.)
                assert e.code == 401, e
        ids = list(specs)
        assert len(ids) >= 40, ids
        frames = {(i, w, h): get(server, f"/api/sessions/{i}/frame.json?width={w}&height={h}")
                  for i in ids for (w, h) in SIZES}
        for (w, h) in SWEEP:
            frames[(SWEPT, w, h)] = get(server, f"/api/sessions/{SWEPT}/frame.json?width={w}&height={h}")
        texts = sorted({(c["font"], c["text"]) for f in frames.values() for layer in f["layers"]
                        for c in layer["commands"] if c["op"] == "text" and c["text"]})
        d = browser(800, 500)
        try:
            # The client page has the chart font (its WOFF2 subsets, loaded as a text needs them).
            d.get(f"{server.http}/s/{ids[0]}")
            wait_for(d, "return window.chartwire && window.chartwire.draws > 0", message="first frame")
            d.set_script_timeout(60)
            measured = d.execute_async_script("""
                const [items, done] = arguments;
                Promise.all(items.map(([font, text]) => document.fonts.load(font, text))).then(() => {
                  const c = document.createElement('canvas').getContext('2d');
                  done(items.map(([font, text]) => {
                    c.font = font; c.textAlign = 'left'; c.textBaseline = 'alphabetic';
                    const m = c.measureText(text);
                    return [m.width, m.actualBoundingBoxLeft, m.actualBoundingBoxRight,
                            m.actualBoundingBoxAscent, m.actualBoundingBoxDescent];
                  }));
                });""", [list(t) for t in texts])
        finally:
            d.quit()
        yield specs, frames, dict(zip(texts, measured))
    finally:
        server.stop()


def commands(frame, layer_id=None):
    for layer in frame["layers"]:
        if layer_id is None or layer["id"] == layer_id:
            yield from layer["commands"]


def plot_rect(frame):
    r = [c for c in commands(frame, "background") if c["op"] == "rect"][1]
    return (r["x"], r["y"], r["x"] + r["w"], r["y"] + r["h"])


def text_box(c, m):
    """The text's ink box as drawn: its four corners on the canvas."""
    width, left, right, ascent, descent = m
    shift = {"left": 0, "center": -width / 2, "right": -width}[c["align"]]
    corners = [(shift - left, -ascent), (shift + right, -ascent), (shift + right, descent), (shift - left, descent)]
    a = math.radians(c.get("angle", 0))
    return [(c["x"] + x * math.cos(a) - y * math.sin(a), c["y"] + x * math.sin(a) + y * math.cos(a)) for x, y in corners]


def overlap(p, q):
    """How far two convex polygons overlap along the axis that separates them best
    (separating axis theorem): <= 0 when they do not."""
    least = math.inf
    for poly in (p, q):
        for k in range(len(poly)):
            (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = y1 - y2, x2 - x1
            n = math.hypot(nx, ny)
            if n == 0:
                continue
            nx, ny = nx / n, ny / n
            a = [x * nx + y * ny for x, y in p]
            b = [x * nx + y * ny for x, y in q]
            least = min(least, min(max(a), max(b)) - max(min(a), min(b)))
    return least


def cases():
    return [pytest.param(w, h, id=f"{w}x{h}") for (w, h) in SIZES]


@pytest.mark.parametrize("w,h", cases())
def test_no_text_leaves_the_canvas_or_overlaps_other_text(gallery, w, h):
    specs, frames, measured = gallery
    faults = []
    for sid in specs:
        faults += text_faults(sid, frames[(sid, w, h)], w, h, measured)
    assert not faults, f"{len(faults)} at {w}x{h}:\n" + "\n".join(faults)


def test_annotation_labels_keep_apart_at_every_size(gallery):
    _, frames, measured = gallery
    faults = []
    for (w, h) in SWEEP:
        faults += [f"{w}x{h} {f}" for f in text_faults(SWEPT, frames[(SWEPT, w, h)], w, h, measured)]
    assert not faults, f"{len(faults)} of {len(SWEEP)} sizes:\n" + "\n".join(faults[:40])


def text_faults(sid, frame, w, h, measured):
    """What is wrong with the texts of one frame (see the module's doc)."""
    faults = []
    placed = [(c, text_box(c, measured[(c["font"], c["text"])])) for c in commands(frame)
              if c["op"] == "text" and c["text"]]
    for c, box in placed:
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        if min(xs) < -TOLERANCE or min(ys) < -TOLERANCE or max(xs) > w + TOLERANCE or max(ys) > h + TOLERANCE:
            faults.append(f"{sid}: {c['text']!r} leaves the canvas ({min(xs):.0f},{min(ys):.0f})-({max(xs):.0f},{max(ys):.0f})")
    annotated = [(c, box) for c, box in placed if any(c is a for a in commands(frame, "series"))]
    for i in range(len(placed)):
        for j in range(i + 1, len(placed)):
            # (Annotation text keeps ANNOTATION_GAP clear: labels closer read as one.)
            near = any(placed[k][0] is c for k in (i, j) for c, _ in annotated)
            d = overlap(placed[i][1], placed[j][1])
            if d > (-ANNOTATION_GAP if near else TOLERANCE):
                how = "overlaps" if d > 0 else f"comes {-d:.1f} px near"
                faults.append(f"{sid}: {placed[i][0]['text']!r} {how} {placed[j][0]['text']!r}")
    # Labels side by side on one baseline (a horizontal axis' labels, centred on their
    # ticks) keep LABEL_GAP: touching, 2000 and 2020 read 20002020.
    row = sorted(((c, box) for c, box in placed if any(c is b for b in commands(frame, "background"))
                  and not c.get("angle") and c["align"] == "center"), key=lambda p: (round(p[0]["y"], 1), min(x for x, _ in p[1])))
    for (a, pa), (b, pb) in zip(row, row[1:]):
        if round(a["y"], 1) == round(b["y"], 1):
            gap = min(x for x, _ in pb) - max(x for x, _ in pa)
            if gap < LABEL_GAP:
                faults.append(f"{sid}: {a['text']!r} and {b['text']!r} side by side {gap:.1f} px apart")
    strokes = annotation_strokes(frame)
    for c, box in annotated:
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        ink = (min(xs), min(ys), max(xs), max(ys))
        hit = next((r for r in strokes if r[0] < ink[2] and r[2] > ink[0] and r[1] < ink[3] and r[3] > ink[1]), None)
        if hit:
            faults.append(f"{sid}: {c['text']!r} is struck through by an annotation's line at {tuple(round(v) for v in hit)}")
    return faults


# (Ink to ink: two labels 2 px apart, one above the other, read as one label of two lines.)
ANNOTATION_GAP = 3.0
LABEL_GAP = 3.0


def annotation_strokes(frame):
    """The annotations' lines and box outlines (the series layer's segments and
    outlined rectangles: series draw neither) as thin rectangles (x0, y0, x1, y1)."""
    out = []
    for c in commands(frame, "series"):
        if c["op"] == "segments":
            half = c.get("width", 1) / 2
            p = c["coords"]
            for k in range(0, len(p), 4):
                x1, y1, x2, y2 = p[k:k + 4]
                out.append((min(x1, x2) - half, min(y1, y2) - half, max(x1, x2) + half, max(y1, y2) + half))
        elif c["op"] == "rect" and c.get("stroke"):
            half = c.get("lineWidth", 1) / 2
            x0, y0, x1, y1 = c["x"], c["y"], c["x"] + c["w"], c["y"] + c["h"]
            out += [(x0 - half, y0, x0 + half, y1), (x1 - half, y0, x1 + half, y1),
                    (x0, y0 - half, x1, y0 + half), (x0, y1 - half, x1, y1 + half)]
    return out


def series_shapes(frame):
    """What the series layer draws, as segments and rectangles (x0, y0, x1, y1)."""
    segs, rects = [], []
    for c in commands(frame, "series"):
        op = c["op"]
        if op == "polyline":
            p = c["points"]
            segs += [(p[k], p[k + 1], p[k + 2], p[k + 3]) for k in range(0, len(p) - 2, 2)]
        elif op == "segments":
            p = c["coords"]
            segs += [tuple(p[k:k + 4]) for k in range(0, len(p), 4)]
        elif op == "markers":
            u, r = c["unit"], c["size"] / 2
            cells = c["cells"]
            for k in range(0, len(cells), 2):
                x, y = c["x0"] + cells[k] * u, c["y0"] + cells[k + 1] * u
                rects.append((x - r, y - r, x + r, y + r))
        elif op == "bars":
            u, b = c["unit"], c["bars"]
            for k in range(0, len(b), 4):
                x, y = c["x0"] + b[k] * u, c["y0"] + b[k + 2] * u
                rects.append((x, y, x + b[k + 1] * u, y + b[k + 3] * u))
        elif op == "rect" and c.get("fill"):
            rects.append((c["x"], c["y"], c["x"] + c["w"], c["y"] + c["h"]))
        elif op in ("columns", "band"):
            for line in ([c] if op == "columns" else [c["a"], c["b"]]):
                x0, dx, y0, dy = line["x0"], line["dx"], line["y0"], line["dy"]
                area = line.get("area")
                prev = None
                for col, lo, hi, first, last, joined in line["entries"]:
                    x = x0 + col * dx
                    ys = [y0 + lo * dy, y0 + hi * dy]
                    if area:
                        ys.append(y0 + area["base"] * dy)
                    rects.append((x - 0.5, min(ys), x + 0.5, max(ys)))
                    if joined and prev is not None:
                        segs.append((prev[0], prev[1], x, y0 + first * dy))
                    prev = (x, y0 + last * dy)
    return segs, rects


def segment_meets(seg, box):
    """Whether a segment passes through a rectangle (Liang-Barsky)."""
    x1, y1, x2, y2 = seg
    t0, t1 = 0.0, 1.0
    dx, dy = x2 - x1, y2 - y1
    for p, q in ((-dx, x1 - box[0]), (dx, box[2] - x1), (-dy, y1 - box[1]), (dy, box[3] - y1)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


@pytest.mark.parametrize("w,h", cases())
def test_no_legend_covers_series_unless_pinned(gallery, w, h):
    specs, frames, _ = gallery
    faults, checked = [], 0
    for sid, spec in specs.items():
        legend = spec["chart"].get("legend") or {}
        if legend.get("show") is False or "placement" in legend:
            continue
        frame = frames[(sid, w, h)]
        # (The legend's box is the first outlined rectangle: labels on a background come first, unoutlined.)
        boxes = [c for c in commands(frame, "overlay") if c["op"] == "rect" and c.get("stroke")]
        if not boxes:
            continue
        b = boxes[0]
        box = (b["x"] + 1, b["y"] + 1, b["x"] + b["w"] - 1, b["y"] + b["h"] - 1)
        segs, rects = series_shapes(frame)
        checked += 1
        hit = next((r for r in rects if r[0] < box[2] and r[2] > box[0] and r[1] < box[3] and r[3] > box[1]), None)
        hit = hit or next((s for s in segs if segment_meets(s, box)), None)
        if hit:
            faults.append(f"{sid}: the legend {box} covers {tuple(round(v) for v in hit)}")
    assert checked >= 20, checked
    assert not faults, f"{len(faults)} at {w}x{h}:\n" + "\n".join(faults)


def auto_ranged(spec):
    """Whether every axis of the chart takes its range from the data."""
    chart = spec["chart"]
    axes = chart.get("xAxes", []) + chart.get("yAxes", [])
    return all(not (set(a) & {"range", "visibleRange", "window"}) and a.get("mode", "extents") in ("extents", "visible")
               for a in axes)


@pytest.mark.parametrize("w,h", cases())
def test_no_marker_is_cut_by_an_auto_ranged_plot_edge(gallery, w, h):
    specs, frames, _ = gallery
    faults, checked = [], 0
    for sid, spec in specs.items():
        if not auto_ranged(spec):
            continue
        frame = frames[(sid, w, h)]
        x0, y0, x1, y1 = plot_rect(frame)
        for c in commands(frame, "series"):
            if c["op"] != "markers":
                continue
            u, r = c["unit"], c["size"] / 2
            cells = c["cells"]
            for k in range(0, len(cells), 2):
                x, y = c["x0"] + cells[k] * u, c["y0"] + cells[k + 1] * u
                checked += 1
                if x - r < x0 - 1 or x + r > x1 + 1 or y - r < y0 - 1 or y + r > y1 + 1:
                    faults.append(f"{sid}: a marker of {2 * r:g} px at ({x:.0f}, {y:.0f}) is cut by the plot "
                                  f"({x0:g}, {y0:g})-({x1:g}, {y1:g})")
                    break
    assert checked > 100, checked
    assert not faults, f"{len(faults)} at {w}x{h}:\n" + "\n".join(faults)


NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def y_value_at_bottom(frame, plot, side):
    """The value at the plot's bottom edge of the Y axis whose labels stand at `side`
    of the plot (the first column of numeric labels there), from a straight line
    through the labels' baselines: labels sit a fixed distance below their ticks, so
    the line's slope is the axis' and its offset that distance (at most half a line)."""
    x0, y0, x1, y1 = plot
    labels = [c for c in commands(frame, "background") if c["op"] == "text" and not c.get("angle")
              and NUMBER.match(c["text"].replace("\u2212", "-"))
              and ((side == "left" and c["align"] == "right" and c["x"] <= x0)
                   or (side == "right" and c["align"] == "left" and c["x"] >= x1))
              and y0 - 10 <= c["y"] <= y1 + 10]
    if not labels:
        return None
    nearest = min(abs(c["x"] - (x0 if side == "left" else x1)) for c in labels)
    column = [c for c in labels if abs(abs(c["x"] - (x0 if side == "left" else x1)) - nearest) < 1]
    if len(column) < 2:
        return None
    pts = [(float(c["text"].replace("\u2212", "-")), c["y"]) for c in column]
    (va, pa), (vb, pb) = min(pts), max(pts)
    if va == vb:
        return None
    slope = (pb - pa) / (va - vb)   # pixels per unit, upwards
    size = float(column[0]["font"].split("px")[0].split()[-1])
    # The baseline sits about 0.36 of the font size below the tick: the tick's pixel.
    tick_a = pa - 0.36 * size
    # Markers and bubbles keep their room at the plot's edge (pixels past the range's end).
    room = max([c["size"] / 2 for c in commands(frame, "series") if c["op"] == "markers"], default=0)
    return va - (y1 - tick_a) / slope, (3 + room) / slope


@pytest.mark.parametrize("w,h", cases())
def test_no_auto_range_below_zero_for_data_that_never_is(gallery, w, h):
    specs, frames, _ = gallery
    faults, checked = [], 0
    for sid, spec in specs.items():
        chart = spec["chart"]
        y_axes = chart.get("yAxes", [])
        for k, axis in enumerate(y_axes):
            if set(axis) & {"range", "visibleRange", "type", "flipped"} or axis.get("mode") in ("fixed", "follow"):
                continue
            on_axis = [s for s in chart.get("series", []) if s.get("yAxis", y_axes[0]["id"]) == axis["id"]]
            values = [v for s in on_axis for key, vs in (s.get("data") or {}).items() if key not in ("x", "size")
                      for v in vs if v is not None]
            if not on_axis or not values or min(values) < 0:
                continue
            side = axis.get("alignment", "left" if k == 0 else "right")
            if side not in ("left", "right"):
                continue
            frame = frames[(sid, w, h)]
            found = y_value_at_bottom(frame, plot_rect(frame), side)
            if found is None:
                continue
            bottom, slack = found
            checked += 1
            if bottom < -slack:
                faults.append(f"{sid}: axis {axis['id']} reaches {bottom:.3g} below zero for data from {min(values):g}")
    assert checked >= 10, checked
    assert not faults, f"{len(faults)} at {w}x{h}:\n" + "\n".join(faults)


LABEL = re.compile(r"^[-\u2212]?[\d.,\u2009\u202f]+\s?[kKMGTPEmµunp%]?$")


@pytest.mark.parametrize("w,h", cases())
def test_every_y_axis_beside_the_plot_shows_two_labels(gallery, w, h):
    """The column of number labels nearest the plot on each side that has a numeric,
    visible Y axis beside the plot (charts whose panes stack are left to the unit
    test, which reads the layout: ChartQualityTests' AxisLabelCountTests)."""
    specs, frames, _ = gallery
    faults, checked = [], 0
    for sid, spec in specs.items():
        chart = spec["chart"]
        if chart.get("axisLayout") or any(s.get("type") in ("pie", "donut") for s in chart.get("series", [])):
            continue
        if any(a.get("alignment") in ("top", "bottom") for a in chart.get("yAxes", [])):
            continue
        sides = set()
        for k, axis in enumerate(chart.get("yAxes", [])):
            if (axis.get("type", "numeric") != "numeric" or axis.get("isCenterAxis") or axis.get("visibility", "visible") != "visible"
                    or axis.get("labelMap") or axis.get("labelFormat") or axis.get("floating")):
                continue
            sides.add(axis.get("alignment", "left" if k == 0 else "right"))
        sides &= {"left", "right"}
        frame = frames[(sid, w, h)]
        x0, y0, x1, y1 = plot_rect(frame)
        if y1 - y0 < 4 * 14:
            continue
        for side in sides:
            labels = [c for layer in ("background", "overlay") for c in commands(frame, layer)
                      if c["op"] == "text" and not c.get("angle") and LABEL.match(c["text"]) and y0 - 10 <= c["y"] <= y1 + 10
                      and ((side == "left" and c["align"] == "right" and c["x"] <= x0)
                           or (side == "right" and c["align"] == "left" and c["x"] >= x1))]
            if not labels:
                faults.append(f"{sid}: no number labels at the {side} of the plot")
                continue
            nearest = min(abs(c["x"] - (x0 if side == "left" else x1)) for c in labels)
            column = {c["text"] for c in labels if abs(abs(c["x"] - (x0 if side == "left" else x1)) - nearest) < 1}
            checked += 1
            if len(column) < 2:
                faults.append(f"{sid}: the {side} Y axis shows only {sorted(column)} on a plot {y1 - y0:.0f} px tall")
    assert checked >= 20, checked
    assert not faults, f"{len(faults)} at {w}x{h}:\n" + "\n".join(faults)

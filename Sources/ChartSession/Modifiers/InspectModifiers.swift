import Foundation
import LayoutEngine

/// A value written for a person as the axis writes its labels (the rollover, cursor
/// and crosshair show it): through the axis' Swift label generator when it has one;
/// on a time axis by its `dateFormat` (default `yyyy-MM-dd HH:mm:ss`) in its zone; a
/// category's name; a number with the axis' `labelDecimals`, or to six significant
/// digits in its `labelFormat` (SI suffixes as its labels take them).
func valueText(_ v: Double, axis: AxisConfig?) -> String {
    guard let axis, v.isFinite else { return TickLabelFormatter.general(v) }
    if let generator = axis.labelGenerator { return generator.label(v) }
    switch axis.type {
    case .time:
        return TimeTickGenerator.format(v, pattern: axis.dateFormat ?? "yyyy-MM-dd HH:mm:ss",
                                        zone: TimeZones.offsets(axis.timeZone, over: DoubleRange(v, v)))
    case .category:
        let i = Int(v.rounded())
        return axis.categories.indices.contains(i) ? axis.categories[i] : TickLabelFormatter.general(v)
    case .numeric, .logarithmic:
        if let d = axis.labelDecimals { return String(format: "%.\(max(0, min(d, 15)))f", v) }
        return TickLabelFormatter.labels(values: [v], format: axis.labelFormat)[0]
    }
}

/// Where each viewer's pointer is over the plot, from hover (a mouse or pen) or a long
/// press (touch): the state of the cursor-like modifiers below. Open only because
/// `CrosshairModifier` is (a subclass of an open class must be open itself); it has
/// no override points of its own outside this module.
open class PointerTrackingModifier: GestureModifierBase {
    var positions: [ViewerID: Point] = [:]

    /// It only draws in the viewer's own layer.
    public override var changesChart: Bool { false }

    /// The viewer's pointer over the plot, if it is there.
    public func position(of viewer: ViewerID) -> Point? { positions[viewer] }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        let before = positions[args.viewer]
        switch gesture {
        case let .hover(p?), let .longPress(.began, p), let .longPress(.changed, p):
            positions[args.viewer] = args.layout.plotRect.contains(p) ? p : nil
        case .hover(nil), .longPress(.ended, _), .longPress(.cancelled, _):
            positions[args.viewer] = nil
        case .pan(.began, _, _, _):
            // A drag under way (pan, box zoom) hides it until the pointer hovers again.
            positions[args.viewer] = nil
        default:
            return false
        }
        if positions[args.viewer] != before { invalidateOverlay(args.viewer) }
        // Hover is everyone's to see; a long press on touch is this modifier's.
        if case .longPress = gesture { return positions[args.viewer] != nil || before != nil }
        return false
    }

    public override func onClockGesture(_ gesture: Gesture, viewer: ViewerID) {
        // The long press began: the last layout the viewer's events saw is not kept,
        // so the position shows from the next move (or stays where it was pressed).
        if case let .longPress(.began, p) = gesture {
            positions[viewer] = p
            invalidateOverlay(viewer)
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); positions[viewer] = nil }

    /// A label on a background box, anchored at its left (or right) end at `p`, kept
    /// inside `within` (the plot): a box that would run past its right (left) edge
    /// goes to the other side of `p` (by `gap`, the distance `p` keeps from the line
    /// it labels), and is then moved in as far as it must.
    func label(_ text: String, at p: Point, right: Bool = false, color: String, background: String, size: Double = 11,
               within: Rect? = nil, gap: Double = 4) -> [DrawCommand] {
        let style = TextStyle(size: size)
        let textWidth = parentSurface?.measurer?.width(of: text, style: style) ?? Double(text.count) * size * 0.62
        let w = textWidth + 8, h = size + 6
        var x = right ? p.x - w : p.x, y = p.y
        if let r = within {
            if !right, x + w > r.maxX { x = p.x - 2 * gap - w }
            if right, x < r.minX { x = p.x + 2 * gap }
            x = min(max(x, r.minX), max(r.minX, r.maxX - w))
            y = min(max(y, r.minY + h / 2), max(r.minY + h / 2, r.maxY - h / 2))
        }
        return [.rect(x: Float(x), y: Float(y - h / 2), w: Float(w), h: Float(h), fill: background, stroke: nil, lineWidth: 0),
                .text(x: Float(x + 4), y: Float(y + size * 0.36), text: text, font: "\(Int(size))px ChartWire Sans", fill: color,
                      align: .left, baseline: .alphabetic, angle: 0)]
    }
}

/// A vertical line at the pointer with, on every series, a marker on the point
/// nearest it and that point's value (SciChart's `RolloverModifier`). Each viewer has
/// its own, drawn in its own layer: a move sends only that viewer a few hundred bytes.
public final class RolloverModifier: PointerTrackingModifier {
    public override var kind: String { "rollover" }
    public var lineColor = "#5b6270"
    /// Show the X value at the top of the line.
    public var showsX = true

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let p = positions[viewer], let chart = parentSurface else { return [] }
        let plot = layout.plotRect
        guard plot.contains(p) else { return [] }
        let x = ((p.x).rounded(.down) + 0.5)
        var out: [DrawCommand] = [.segments(coords: [Float(x), Float(plot.minY), Float(x), Float(plot.maxY)],
                                            stroke: lineColor, width: 1, dash: [4, 3])]
        var labels: [(y: Double, text: String, color: String)] = []
        var xText: String?
        for s in chart.series where !s.isHidden && !s.kind.isRadial {
            guard let xl = layout.axis(s.xAxisId), let yl = layout.axis(s.yAxisId), xl.alignment.isHorizontal else { continue }
            let data = s.plotted
            guard !data.isEmpty else { continue }
            if s.isVertical {
                // A vertical band: its row nearest the pointer's height (the key runs up
                // the plot), a marker on both curves, and the row's y with both x.
                guard !yl.alignment.isHorizontal, let right = s.values("y1"),
                      let j = data.nearestIndex(toX: yl.calculator.value(p.y)) else { continue }
                let py = yl.calculator.pixel(data.x(j)), a = data.y(j), b = right.y(j)
                guard a.isFinite, b.isFinite, abs(py - p.y) <= max(40, plot.height / 20), py >= plot.minY - 1, py <= plot.maxY + 1 else { continue }
                let color = s.isSelected ? (s.selectedColor ?? s.color) : s.color
                for v in [a, b] {
                    out.append(.markers(MarkerSet(style: MarkerStyle(shape: .circle, size: 9, fill: color, stroke: "#ffffff", lineWidth: 1.5),
                                                  x0: Float(xl.calculator.pixel(v)), y0: Float(py), unit: 1, cells: [MarkerSet.Cell(x: 0, y: 0)])))
                }
                let xAxis = chart.axis(s.xAxisId)?.config
                labels.append((py, "\(s.name): y \(valueText(data.x(j), axis: chart.axis(s.yAxisId)?.config)), "
                               + "x \(valueText(a, axis: xAxis)), x1 \(valueText(b, axis: xAxis))", color))
                continue
            }
            let v = xl.calculator.value(x)
            // The nearest point in x: one of the two about v (an unsorted line: of all).
            guard let j = data.nearestIndex(toX: v) else { continue }
            let px = xl.calculator.pixel(data.x(j)), y = data.y(j)
            guard y.isFinite, abs(px - x) <= max(40, plot.width / 20) else { continue }
            let py = yl.calculator.pixel(y)
            guard py >= plot.minY - 1, py <= plot.maxY + 1 else { continue }
            let color = s.isSelected ? (s.selectedColor ?? s.color) : s.color
            out.append(.markers(MarkerSet(style: MarkerStyle(shape: .circle, size: 9, fill: color, stroke: "#ffffff", lineWidth: 1.5),
                                          x0: Float(px), y0: Float(py), unit: 1, cells: [MarkerSet.Cell(x: 0, y: 0)])))
            let shown = s.stacked != nil ? s.data.y(j) : y
            labels.append((py, "\(s.name): \(valueText(shown, axis: chart.axis(s.yAxisId)?.config))", color))
            if xText == nil { xText = valueText(data.x(j), axis: chart.axis(s.xAxisId)?.config) }
        }
        // Labels beside the line, top to bottom, pushed apart so they do not overlap.
        let right = x + 180 > plot.maxX
        var lastY = -Double.infinity
        for l in labels.sorted(by: { $0.y < $1.y }) {
            let y = max(l.y, lastY + 18)
            lastY = y
            out += label(l.text, at: Point(x: right ? x - 8 : x + 8, y: y), right: right, color: "#ffffff", background: l.color,
                         within: plot, gap: 8)
        }
        if showsX, let xText {
            out += label(xText, at: Point(x: right ? x - 4 : x + 4, y: plot.minY + 10), right: right, color: "#ffffff", background: lineColor,
                         within: plot)
        }
        return out
    }
}

/// Lines across and down the plot at the pointer, and the values there on the first
/// X and Y axes (SciChart's `CursorModifier`).
public final class CursorModifier: PointerTrackingModifier {
    public override var kind: String { "cursor" }
    public var lineColor = "#5b6270"

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let p = positions[viewer], let chart = parentSurface else { return [] }
        let plot = layout.plotRect
        guard plot.contains(p) else { return [] }
        let x = p.x.rounded(.down) + 0.5, y = p.y.rounded(.down) + 0.5
        var out: [DrawCommand] = [.segments(coords: [Float(x), Float(plot.minY), Float(x), Float(plot.maxY),
                                                     Float(plot.minX), Float(y), Float(plot.maxX), Float(y)],
                                            stroke: lineColor, width: 1, dash: [])]
        if let xa = chart.xAxes.first, let xl = layout.axis(xa.id) {
            let horizontal = xl.alignment.isHorizontal
            let v = xl.calculator.value(horizontal ? x : y)
            let at = horizontal ? Point(x: x + 4, y: plot.maxY - 10) : Point(x: plot.minX + 4, y: y - 10)
            out += label(valueText(v, axis: xa.config), at: at, color: "#ffffff", background: lineColor, within: plot)
        }
        if let ya = chart.yAxes.first, let yl = layout.axis(ya.id) {
            let horizontal = yl.alignment.isHorizontal
            let v = yl.calculator.value(horizontal ? x : y)
            let at = horizontal ? Point(x: x + 4, y: plot.maxY - 10) : Point(x: plot.minX + 4, y: y - 10)
            out += label(valueText(v, axis: ya.config), at: at, color: "#ffffff", background: lineColor, within: plot)
        }
        return out
    }
}

/// Tap a series to select it (ShinobiCharts' series selection): the series nearest
/// the tap, within `hitRadius` px of one of its points (or inside a pie slice), is
/// toggled and drawn with its `selectedStyle`; with `toggleSelection` the others are
/// deselected. A pie or donut toggles the slice tapped. Every viewer sees the
/// selection: it is the chart's state.
public final class SeriesSelectionModifier: GestureModifierBase {
    /// ShinobiCharts' `selectionMode`: whole series, or single points.
    public enum Mode: String, CaseIterable, Sendable { case series, point }
    public override var kind: String { "selection" }
    public var mode = Mode.series
    public var hitRadius = 12.0
    public var toggleSelection = true
    /// Point mode: selecting a point deselects every other (ShinobiCharts'
    /// `togglePointSelection`).
    public var togglePointSelection = true
    /// How long a selected slice takes to turn to the pie's `selectedPosition`,
    /// seconds (the session's clock runs it, easing out); 0: at once.
    public var turnDuration = 0.4
    /// The turn under way: the pie, where it started, by how much, and when (set at
    /// the first clock tick after the tap).
    private var turn: (series: String, from: Double, by: Double, start: Double?)?

    public override var needsClock: Bool { super.needsClock || turn != nil }

    public override func onClock(_ now: Double) {
        super.onClock(now)
        guard var t = turn, let chart = parentSurface, let i = chart.seriesIndex(t.series) else { turn = nil; return }
        if t.start == nil { t.start = now; turn = t }
        let p = turnDuration > 0 ? min(1, (now - t.start!) / turnDuration) : 1
        let eased = 1 - (1 - p) * (1 - p) * (1 - p)
        chart.rotatePie(t.series, by: Self.shortest(t.from + t.by * eased - chart.series[i].style.rotation))
        if p >= 1 { turn = nil }
    }

    /// `degrees` as the shortest turn: -180 < result <= 180.
    static func shortest(_ degrees: Double) -> Double {
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .tap(p) = gesture, let chart = parentSurface else { return false }
        let layout = args.layout
        guard layout.plotRect.contains(p) else { return false }
        if let pie = chart.series.firstIndex(where: { $0.kind.isRadial && !$0.isHidden }) {
            guard let slice = PieRenderer.slice(at: p, series: chart.series[pie], plot: layout.plotRect, palette: chart.theme.palette) else { return false }
            let id = chart.series[pie].id
            let selected = !chart.series[pie].selectedSlices.contains(slice)
            chart.suspendUpdates {
                chart.setSelectedSlice(id, slice, selected, exclusive: toggleSelection)
                // ShinobiCharts' selectedPosition: the selected slice turns to it, the
                // shorter way round, over `turnDuration`.
                if selected, let angle = chart.series[pie].style.selectedPosition,
                   let s = PieRenderer.slices(chart.series[pie], palette: chart.theme.palette).first(where: { $0.index == slice }) {
                    let by = Self.shortest(angle - (s.a0 + s.a1) / 2 * 180 / .pi)
                    if turnDuration > 0 { turn = (id, chart.series[pie].style.rotation, by, nil) } else { chart.rotatePie(id, by: by) }
                }
            }
            chart.emit(.selectionToggled(viewer: args.viewer, series: id, point: slice, selected: selected))
            chart.emit(.selectionAt(viewer: args.viewer, series: id, pixelX: p.x, pixelY: p.y, point: slice,
                                    x: nil, y: chart.series[pie].data.count > slice ? chart.series[pie].data.y(slice) : nil, selected: selected))
            return true
        }
        if mode == .point {
            guard let (i, index) = nearestPoint(to: p, chart: chart, layout: layout) else { return false }
            let s = chart.series[i]
            let selected = !s.selectedPoints.contains(s.data.firstSequence + index)
            chart.setPointSelected(s.id, index: index, selected, exclusive: togglePointSelection)
            chart.emit(.selectionToggled(viewer: args.viewer, series: s.id, point: index, selected: selected))
            chart.emit(.selectionAt(viewer: args.viewer, series: s.id, pixelX: p.x, pixelY: p.y, point: index,
                                    x: s.data.x(index), y: s.plotted.y(index), selected: selected))
            return true
        }
        guard let hit = nearestSeries(to: p, chart: chart, layout: layout) else { return false }
        let s = chart.series[hit]
        let selected = !s.isSelected
        chart.suspendUpdates {
            if toggleSelection, selected { for other in chart.series where other.id != s.id { chart.setSelected(other.id, false) } }
            chart.setSelected(s.id, selected)
        }
        chart.emit(.selectionToggled(viewer: args.viewer, series: s.id, point: nil, selected: selected))
        // Where: the tap, and the series' point nearest it on screen.
        let near = nearestPoint(to: p, in: hit, chart: chart, layout: layout)
        chart.emit(.selectionAt(viewer: args.viewer, series: s.id, pixelX: p.x, pixelY: p.y, point: near,
                                x: near.map { s.isVertical ? s.plotted.y($0) : s.data.x($0) },
                                y: near.map { s.isVertical ? s.data.x($0) : s.plotted.y($0) }, selected: selected))
        return true
    }

    /// The index of series `i`'s point nearest `p` on screen, among those whose x lies
    /// within the view's X range (nil: none there).
    func nearestPoint(to p: Point, in i: Int, chart: Chart, layout: ChartLayout) -> Int? {
        let s = chart.series[i]
        guard var xl = layout.axis(s.xAxisId), var yl = layout.axis(s.yAxisId) else { return nil }
        // (A vertical band's key is on its Y axis, its values on X.)
        if s.isVertical { swap(&xl, &yl) }
        let across = xl.alignment.isHorizontal, data = s.plotted
        let range = xl.calculator.range
        let lo = data.lowerBound(range.min), hi = data.upperBound(range.max)
        var best: (index: Int, distance: Double)?
        for j in lo..<min(hi, lo + 200_000) where data.y(j).isFinite {
            let a = xl.calculator.pixel(data.x(j)), b = yl.calculator.pixel(data.y(j))
            let d = across ? hypot(a - p.x, b - p.y) : hypot(b - p.x, a - p.y)
            if d < best?.distance ?? .infinity { best = (j, d) }
        }
        return best?.index
    }

    /// The series and index of the point nearest `p` (screen px), within `hitRadius`.
    func nearestPoint(to p: Point, chart: Chart, layout: ChartLayout) -> (Int, Int)? {
        var best: (series: Int, index: Int, distance: Double)?
        for (i, s) in chart.series.enumerated() where !s.isHidden && !s.kind.isRadial {
            guard var xl = layout.axis(s.xAxisId), var yl = layout.axis(s.yAxisId) else { continue }
            if s.isVertical { swap(&xl, &yl) }
            let across = xl.alignment.isHorizontal, data = s.plotted
            let along = across ? p.x : p.y
            let v1 = xl.calculator.value(along - hitRadius), v2 = xl.calculator.value(along + hitRadius)
            let lo = data.lowerBound(min(v1, v2)), hi = data.upperBound(max(v1, v2))
            for j in lo..<min(hi, lo + (data.ordered ? 4000 : 200_000)) where data.y(j).isFinite {
                let a = xl.calculator.pixel(data.x(j)), b = yl.calculator.pixel(data.y(j))
                let d = across ? hypot(a - p.x, b - p.y) : hypot(b - p.x, a - p.y)
                if d <= hitRadius, d < best?.distance ?? .infinity { best = (i, j, d) }
            }
        }
        return best.map { ($0.series, $0.index) }
    }

    /// The series with a point nearest `p` (screen px), within `hitRadius`.
    func nearestSeries(to p: Point, chart: Chart, layout: ChartLayout) -> Int? {
        var best: (index: Int, distance: Double)?
        for (i, s) in chart.series.enumerated() where !s.isHidden && !s.kind.isRadial {
            guard var xl = layout.axis(s.xAxisId), var yl = layout.axis(s.yAxisId) else { continue }
            if s.isVertical { swap(&xl, &yl) }
            let across = xl.alignment.isHorizontal
            let data = s.plotted
            let along = across ? p.x : p.y
            let v1 = xl.calculator.value(along - hitRadius), v2 = xl.calculator.value(along + hitRadius)
            let lo = data.lowerBound(min(v1, v2)), hi = data.upperBound(max(v1, v2))
            // Points within the radius across; a line between the neighbours too.
            let from = max(0, lo - 1), to = min(data.count, hi + 1)
            guard from < to else { continue }
            // (Both lines of a band.)
            let lines = s.kind == .band && s.stacked == nil ? [data] + [s.values("y1")].compactMap { $0 } : [data]
            for line in lines {
                var previous: Point?
                for j in from..<min(to, from + (data.ordered ? 4000 : 200_000)) {
                    let y = line.y(j)
                    guard y.isFinite else { previous = nil; continue }
                    let a = xl.calculator.pixel(data.x(j)), b = yl.calculator.pixel(y)
                    let q = across ? Point(x: a, y: b) : Point(x: b, y: a)
                    var d = hypot(q.x - p.x, q.y - p.y)
                    if let prev = previous, [.line, .step, .area, .band].contains(s.kind) { d = min(d, Self.distance(p, prev, q)) }
                    if d <= hitRadius, d < best?.distance ?? .infinity { best = (i, d) }
                    previous = q
                }
            }
        }
        return best?.index
    }

    /// Distance from `p` to the segment a–b.
    static func distance(_ p: Point, _ a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy
        let t = l2 > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }
}

/// Tap a legend entry to hide or show its series (SciChart's `LegendModifier` with
/// check boxes); hidden series stay listed, dimmed, so they can be shown again. A pie's
/// entries select their slices instead. Series with `animationEnabled` leave and come
/// back with their animations.
public final class LegendModifier: GestureModifierBase {
    public override var kind: String { "legend" }

    public override func onAttached() {
        parentSurface?.legend?.listsHiddenSeries = true
    }

    public override func onDetached() {
        parentSurface?.legend?.listsHiddenSeries = false
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .tap(p) = gesture, let chart = parentSurface,
              let hit = args.legendEntries().first(where: { $0.rect.contains(p) }),
              let i = chart.seriesIndex(hit.seriesId) else { return false }
        if let slice = hit.slice {
            let selected = !chart.series[i].selectedSlices.contains(slice)
            chart.setSelectedSlice(hit.seriesId, slice, selected, exclusive: false)
            chart.emit(.selectionToggled(viewer: args.viewer, series: hit.seriesId, point: slice, selected: selected))
            return true
        }
        let hide = !(chart.series[i].isHidden || chart.series[i].animation?.direction == .exit)
        chart.setHidden(hit.seriesId, hide)
        chart.emit(.visibilityToggled(viewer: args.viewer, series: hit.seriesId, hidden: hide))
        return true
    }
}

/// The ShinobiCharts crosshair: a target circle on one data point with lines from it
/// to the axes, and a tooltip with the point's values. A mouse shows it by hovering, a
/// touch screen by a long press. It tracks the series with `crosshairEnabled`:
/// `singleSeries` stays on the series it first picked until it is let go, `floating`
/// follows the nearest point of any of them. With `interpolatePoints` it moves
/// smoothly along a line between its points instead of snapping to them. Each viewer
/// has its own, in its own layer.
///
/// Open for subclassing, as ShinobiCharts' crosshair is: a subclass overrides
/// `tooltipLines(for:in:)`, `valueLabel(_:axis:)`, `lineStyle(for:)` or
/// `targetMarker(for:)` (docs/modifiers.md, "Subclassing the crosshair"). They are
/// called on the session's queue each time a viewer's crosshair is drawn.
open class CrosshairModifier: PointerTrackingModifier {
    public enum Mode: String, CaseIterable, Sendable { case singleSeries, floating }
    /// Where the crosshair sits: the series, the point (nil when interpolated between
    /// two), and its values.
    public struct Target: Equatable, Sendable {
        public var seriesId: String
        public var seriesName: String
        public var index: Int?
        public var x: Double
        public var y: Double
    }

    /// The stroke of the lines from the target to the axes.
    public struct LineStyle: Equatable, Sendable {
        public var color: String
        public var width: Double
        /// Dash lengths in CSS px; empty: solid.
        public var dash: [Double]
        public init(color: String, width: Double = 1, dash: [Double] = [3, 3]) {
            self.color = color; self.width = width; self.dash = dash
        }
    }

    public override var kind: String { "crosshair" }
    public var mode: Mode
    public var interpolatePoints: Bool
    /// The lines', circle's, tooltip's outline and text colour.
    public var color = "#1d2029"
    /// The tooltip's lines for a target (ShinobiCharts' replaceable tooltip): set it to
    /// show other text without subclassing. Nil: `tooltipLines(for:in:)`'s default.
    public var tooltip: ((Target, Chart) -> [String])?
    /// The class a spec named (`"class"`) that this program has not registered
    /// (`CrosshairModifier.register`), when this plain crosshair stands in for it (a
    /// stored session restored by a program that no longer registers it); nil otherwise.
    public internal(set) var missingClass: String?

    /// Override point: the tooltip's lines, the first drawn bold. Default: `tooltip`
    /// when set, else the series' name, `x: ` and `y: ` with `valueLabel(_:axis:)`.
    open func tooltipLines(for target: Target, in chart: Chart) -> [String] {
        if let tooltip { return tooltip(target, chart) }
        let s = chart.series.first { $0.id == target.seriesId }
        if let s, s.isVertical, let j = target.index, j < s.data.count, let right = s.values("y1") {
            // A vertical band's row: its y, and both x.
            let xAxis = chart.axis(s.xAxisId)?.config
            return [target.seriesName, "y: " + valueLabel(s.data.x(j), axis: chart.axis(s.yAxisId)?.config),
                    "x: " + valueLabel(s.data.y(j), axis: xAxis), "x1: " + valueLabel(right.y(j), axis: xAxis)]
        }
        return [target.seriesName,
                "x: " + valueLabel(target.x, axis: s.flatMap { chart.axis($0.xAxisId)?.config }),
                "y: " + valueLabel(target.y, axis: s.flatMap { chart.axis($0.yAxisId)?.config })]
    }

    /// Override point: one value as the tooltip writes it, for the axis it belongs to
    /// (its `id` and `alignment` tell X from Y). Default: as the axis writes its labels
    /// (its label generator, date format, categories or number format).
    open func valueLabel(_ value: Double, axis: AxisConfig?) -> String {
        valueText(value, axis: axis)
    }

    /// Override point: the stroke of the lines to the axes. Default: `color`, 1 px,
    /// dashed 3-3.
    open func lineStyle(for target: Target) -> LineStyle {
        LineStyle(color: color)
    }

    /// Override point: the marker on the target. Default: an open circle of 14 px in
    /// `color`, 1.5 px thick.
    open func targetMarker(for target: Target) -> MarkerStyle {
        MarkerStyle(shape: .circle, size: 14, fill: nil, stroke: color, lineWidth: 1.5)
    }

    /// The series each viewer's crosshair stays on (single-series mode).
    private var locked: [ViewerID: String] = [:]

    public init(mode: Mode = .singleSeries, interpolatePoints: Bool = false) {
        self.mode = mode; self.interpolatePoints = interpolatePoints
        super.init()
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        let before = positions[args.viewer]
        let handled = super.onGesture(gesture, args: args)
        if positions[args.viewer] == nil { locked[args.viewer] = nil }
        if positions[args.viewer] != before, let chart = parentSurface, let t = target(for: args.viewer, layout: args.layout) {
            if mode == .singleSeries, locked[args.viewer] == nil { locked[args.viewer] = t.seriesId }
            chart.emit(.crosshairMoved(viewer: args.viewer, series: t.seriesId, x: t.x, y: t.y))
        }
        return handled
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); locked[viewer] = nil }

    /// Where viewer's crosshair is at `layout`, if it shows.
    public func target(for viewer: ViewerID, layout: ChartLayout) -> Target? {
        guard let p = positions[viewer], let chart = parentSurface else { return nil }
        var best: (target: Target, distance: Double)?
        for s in chart.series where s.crosshairEnabled && !s.isHidden && !s.kind.isRadial {
            if mode == .singleSeries, let id = locked[viewer], id != s.id { continue }
            guard let xl = layout.axis(s.xAxisId), let yl = layout.axis(s.yAxisId), xl.alignment.isHorizontal else { continue }
            let data = s.plotted
            guard !data.isEmpty else { continue }
            let v = xl.calculator.value(p.x)
            let i = data.lowerBound(v)
            var candidate: (Target, Double)?
            if s.isVertical {
                // A vertical band: the nearest point on screen of either curve, among the
                // rows about the pointer's height (the key runs up the plot).
                guard !yl.alignment.isHorizontal, let right = s.values("y1") else { continue }
                let k = data.lowerBound(yl.calculator.value(p.y))
                for j in max(0, k - 3)..<min(data.count, k + 3) {
                    for value in [data.y(j), right.y(j)] where value.isFinite {
                        let d = hypot(xl.calculator.pixel(value) - p.x, yl.calculator.pixel(data.x(j)) - p.y)
                        if d < candidate?.1 ?? .infinity {
                            candidate = (Target(seriesId: s.id, seriesName: s.name, index: j, x: value, y: data.x(j)), d)
                        }
                    }
                }
            } else if !data.ordered {
                // An unsorted line: the nearest point on screen, of all of them.
                var j = 0
                data.withStretches(0..<data.count) { xs, ys in
                    for k in xs.indices {
                        defer { j += 1 }
                        guard ys[k].isFinite else { continue }
                        let d = hypot(xl.calculator.pixel(xs[k]) - p.x, yl.calculator.pixel(ys[k]) - p.y)
                        if d < candidate?.1 ?? .infinity {
                            candidate = (Target(seriesId: s.id, seriesName: s.name, index: j, x: xs[k], y: ys[k]), d)
                        }
                    }
                }
            } else if interpolatePoints, [.line, .area, .band].contains(s.kind), i > 0, i < data.count,
               data.y(i - 1).isFinite, data.y(i).isFinite {
                // On the segment under the pointer, at the pointer's x.
                let (x0, x1, y0, y1) = (data.x(i - 1), data.x(i), data.y(i - 1), data.y(i))
                let y = x1 > x0 ? y0 + (y1 - y0) * (v - x0) / (x1 - x0) : y0
                candidate = (Target(seriesId: s.id, seriesName: s.name, index: nil, x: v, y: y), abs(yl.calculator.pixel(y) - p.y))
            } else {
                // The nearest point on screen among the few about the pointer's x.
                for j in max(0, i - 3)..<min(data.count, i + 3) where data.y(j).isFinite {
                    let d = hypot(xl.calculator.pixel(data.x(j)) - p.x, yl.calculator.pixel(data.y(j)) - p.y)
                    if d < candidate?.1 ?? .infinity {
                        candidate = (Target(seriesId: s.id, seriesName: s.name, index: j, x: data.x(j), y: data.y(j)), d)
                    }
                }
            }
            if let (t, d) = candidate, d < best?.distance ?? .infinity { best = (t, d) }
        }
        return best?.target
    }

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let chart = parentSurface, let t = target(for: viewer, layout: layout),
              let s = chart.series.first(where: { $0.id == t.seriesId }),
              let xl = layout.axis(s.xAxisId), let yl = layout.axis(s.yAxisId) else { return [] }
        if mode == .singleSeries, locked[viewer] == nil { locked[viewer] = t.seriesId }
        let plot = layout.plotRect
        let px = xl.calculator.pixel(t.x), py = yl.calculator.pixel(t.y)
        guard plot.contains(Point(x: px, y: py)) else { return [] }
        // Lines from the point to the axes (wherever they are), and the target circle.
        let toX = xl.alignment == .top ? plot.minY : plot.maxY, toY = yl.alignment == .right ? plot.maxX : plot.minX
        let line = lineStyle(for: t)
        var out: [DrawCommand] = [
            .segments(coords: [Float(px), Float(py), Float(px), Float(toX), Float(px), Float(py), Float(toY), Float(py)],
                      stroke: line.color, width: Float(line.width), dash: line.dash.map { Float($0) }),
            .markers(MarkerSet(style: targetMarker(for: t), x0: Float(px), y0: Float(py), unit: 1, cells: [MarkerSet.Cell(x: 0, y: 0)])),
        ]
        // The tooltip beside it, inside the plot.
        let lines = tooltipLines(for: t, in: chart)
        let size = 11.0, lineHeight = 15.0
        let style = TextStyle(size: size)
        let width = (lines.map { chart.measurer?.width(of: $0, style: style) ?? Double($0.count) * size * 0.62 }.max() ?? 0) + 12
        let height = Double(lines.count) * lineHeight + 8
        let left = px + 12 + width > plot.maxX ? px - 12 - width : px + 12
        let top = min(max(py - height - 8, plot.minY + 2), plot.maxY - height - 2)
        out.append(.rect(x: Float(left), y: Float(top), w: Float(width), h: Float(height), fill: "rgba(255,255,255,0.92)", stroke: color, lineWidth: 1))
        for (k, line) in lines.enumerated() {
            out.append(.text(x: Float(left + 6), y: Float(top + 4 + Double(k) * lineHeight + size), text: line,
                             font: (k == 0 ? "bold " : "") + "\(Int(size))px ChartWire Sans", fill: color, align: .left,
                             baseline: .alphabetic, angle: 0))
        }
        return out
    }
}

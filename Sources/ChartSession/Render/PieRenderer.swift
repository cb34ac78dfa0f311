import Foundation
import LayoutEngine

/// Pie and donut series: slices about the plot's centre, each a value's share of the
/// whole, clockwise from `rotation`, with labels where they fit.
///
/// A pie's cost is its slice count (one wedge each, drawn by the client as true arcs),
/// not its pixels: a slice is a few bytes, and labels go only where they fit inside
/// their slice, so a pie of thousands of slices sends a few dozen labels at most.
enum PieRenderer {
    /// One slice: its point's index, value, angles (radians clockwise from 12 o'clock) and colour.
    struct Slice: Equatable {
        var index: Int
        var value: Double
        var a0: Double, a1: Double
        var fill: String
    }

    /// The slices of a series' points: finite values above zero, in order.
    static func slices(_ s: Series, palette: [String]) -> [Slice] {
        let data = s.data
        // Shares are summed relative to the largest value, so that values up to the
        // largest double (whose sum overflows) still share the circle.
        var largest = 0.0
        for i in 0..<data.count where data.y(i) > largest { largest = data.y(i) }
        guard largest > 0, largest.isFinite else { return [] }
        var total = 0.0
        for i in 0..<data.count where data.y(i) > 0 { total += data.y(i) / largest }
        guard total > 0 else { return [] }
        let colors = s.style.sliceColors ?? palette
        var out: [Slice] = []
        var a = s.style.rotation * .pi / 180
        for i in 0..<data.count {
            let v = data.y(i)
            guard v > 0 else { continue }
            let span = v / largest / total * 2 * .pi
            out.append(Slice(index: i, value: v, a0: a, a1: a + span, fill: colors[i % colors.count]))
            a += span
        }
        return out
    }

    /// The point index of the slice under `p` in a pie or donut drawn in `plot`, or nil.
    static func slice(at p: Point, series s: Series, plot: Rect, palette: [String]) -> Int? {
        let (room, r0, r1) = radii(s, plot: plot)
        let dx = p.x - plot.midX, dy = p.y - plot.midY, r = hypot(dx, dy)
        guard r <= r1 + room, r >= r0 else { return nil }
        return slice(atAngle: atan2(dx, -dy), in: slices(s, palette: palette))
    }

    /// The point index of the slice at `angle` (radians clockwise from 12 o'clock), or nil.
    static func slice(atAngle angle: Double, in slices: [Slice]) -> Int? {
        guard let first = slices.first else { return nil }
        // Within the turn the slices start.
        var a = angle
        while a < first.a0 { a += 2 * .pi }
        while a >= first.a0 + 2 * .pi { a -= 2 * .pi }
        return slices.first { a >= $0.a0 && a < $0.a1 }?.index
    }

    /// The room kept for a selected slice's protrusion, and the ring's inner and outer
    /// radii in `plot` (`grow`: an entry or exit animation's scale).
    static func radii(_ s: Series, plot: Rect, grow: Double = 1) -> (room: Double, r0: Double, r1: Double) {
        let room = s.selectedSlices.isEmpty ? 0 : s.style.protrusion
        let r1 = ((min(plot.width, plot.height) / 2 - room - 4) * grow).rounded(.down)
        return (room, (r1 * s.style.innerRadius).rounded(.down), r1)
    }

    /// The name of slice `i`.
    static func name(_ s: Series, _ i: Int) -> String { i < s.sliceNames.count ? s.sliceNames[i] : "Slice \(i + 1)" }

    /// The wedges and labels of a pie or donut series in `plot`; `grow` scales its
    /// radii and `shift` moves it down (an entry or exit animation under way).
    static func commands(_ s: Series, plot: Rect, theme: Theme, measurer: TextMeasurer,
                         grow: Double = 1, shift: Double = 0) -> [DrawCommand] {
        let slices = slices(s, palette: theme.palette)
        guard !slices.isEmpty else { return [] }
        let (room, r0, r1) = radii(s, plot: plot, grow: grow)
        let protrusion = room * grow
        guard r1 > 2 else { return [] }
        let cx = plot.midX, cy = plot.midY + shift
        var out: [DrawCommand] = [.wedges(WedgeSet(
            cx: Float(cx), cy: Float(cy), r0: Float(r0), r1: Float(r1),
            stroke: s.style.stroke, lineWidth: s.style.stroke == nil ? 0 : Float(s.style.strokeWidth),
            wedges: slices.map {
                WedgeSet.Wedge(fill: $0.fill, a0: Float($0.a0), a1: Float($0.a1),
                               offset: s.selectedSlices.contains($0.index) ? Float(protrusion) : 0)
            }))]

        guard s.style.sliceLabels != .none else { return out }
        let style = TextStyle(size: 12)
        let metrics = measurer.metrics(for: style)
        let height = metrics.lineHeight(size: style.size)
        // Labels sit halfway across the ring (a pie's at 60 % of its radius).
        let rm = r0 > 0 ? (r0 + r1) / 2 : r1 * 0.6
        for slice in slices {
            let text: String
            switch s.style.sliceLabels {
            case .none: continue
            case .name: text = name(s, slice.index)
            case .percent: text = percent((slice.a1 - slice.a0) / (2 * .pi))
            case .value: text = TickLabelFormatter.general(slice.value)
            }
            let width = measurer.width(of: text, style: style)
            let span = slice.a1 - slice.a0
            // It fits when the chord across the slice at the label's radius is wider
            // than the label, and the ring is taller than it.
            let chord = span >= .pi ? 2 * rm : 2 * rm * sin(span / 2)
            guard chord >= width + 6, r1 - r0 >= height + 4 || r0 == 0 else { continue }
            let mid = (slice.a0 + slice.a1) / 2
            let offset = s.selectedSlices.contains(slice.index) ? protrusion : 0
            let x = cx + (rm + offset) * sin(mid), y = cy - (rm + offset) * cos(mid)
            out.append(.text(x: Float(x), y: Float(y + metrics.ascent(size: style.size) - height / 2), text: text,
                             font: theme.cssFont(style), fill: labelColor(on: slice.fill), align: .center,
                             baseline: .alphabetic, angle: 0))
        }
        return out
    }

    /// "23.4%": one decimal, none for whole percentages.
    static func percent(_ share: Double) -> String {
        let p = (share * 1000).rounded() / 10
        return (p == p.rounded() ? String(Int(p)) : String(p)) + "%"
    }

    /// White on dark fills, near-black on light ones (by the fill's luminance; white
    /// when the colour is not hex).
    static func labelColor(on fill: String) -> String {
        guard let c = Series.rgb(fill) else { return "#ffffff" }
        let l = 0.2126 * Double(c[0]) + 0.7152 * Double(c[1]) + 0.0722 * Double(c[2])
        return l > 150 ? "#1d2029" : "#ffffff"
    }
}

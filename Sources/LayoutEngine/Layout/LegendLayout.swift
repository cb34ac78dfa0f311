/// Where a legend box and its rows go.
public enum LegendPlacement: String, CaseIterable, Sendable {
    case topLeft, topRight, bottomLeft, bottomRight
}

public struct LegendSpec: Equatable, Sendable {
    public var entries: [String]
    public var placement: LegendPlacement
    public var style: TextStyle
    /// Length of the colour swatch drawn before each name.
    public var swatchLength: Double
    public var padding: Double
    public var rowGap: Double
    /// Distance from the plot area's edges.
    public var margin: Double

    public init(entries: [String], placement: LegendPlacement = .topLeft, style: TextStyle = TextStyle(size: 12),
                swatchLength: Double = 18, padding: Double = 6, rowGap: Double = 4, margin: Double = 8) {
        self.entries = entries; self.placement = placement; self.style = style
        self.swatchLength = swatchLength; self.padding = padding; self.rowGap = rowGap; self.margin = margin
    }
}

public struct LegendLayout: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        /// Left end of the swatch line and its vertical centre.
        public var swatchStart: Point
        public var swatchLength: Double
        public var label: PlacedText
    }
    public var box: Rect
    public var rows: [Row]

    /// Lays the legend out inside `plot`; nil when it has no entries or does not fit.
    public static func place(_ spec: LegendSpec, in plot: Rect, measurer: TextMeasurer) -> LegendLayout? {
        guard !spec.entries.isEmpty else { return nil }
        let m = measurer.metrics(for: spec.style)
        let size = spec.style.size
        let lineHeight = m.lineHeight(size: size), ascent = m.ascent(size: size)
        let gap = 6.0
        let widths = spec.entries.map { measurer.width(of: $0, style: spec.style) }
        let boxWidth = (spec.padding * 2 + spec.swatchLength + gap + (widths.max() ?? 0)).rounded(.up)
        let count = Double(spec.entries.count)
        let boxHeight = (spec.padding * 2 + lineHeight * count + spec.rowGap * (count - 1)).rounded(.up)
        guard boxWidth + 2 * spec.margin <= plot.width, boxHeight + 2 * spec.margin <= plot.height else { return nil }

        let left = spec.placement == .topLeft || spec.placement == .bottomLeft
            ? plot.minX + spec.margin : plot.maxX - spec.margin - boxWidth
        let top = spec.placement == .topLeft || spec.placement == .topRight
            ? plot.minY + spec.margin : plot.maxY - spec.margin - boxHeight
        let box = Rect(x: left, y: top, width: boxWidth, height: boxHeight)

        var rows: [Row] = []
        for (i, name) in spec.entries.enumerated() {
            let rowTop = top + spec.padding + Double(i) * (lineHeight + spec.rowGap)
            let textX = left + spec.padding + spec.swatchLength + gap
            let label = PlacedText(text: name, anchor: Point(x: textX, y: rowTop + ascent), align: .left, angle: 0,
                                   style: spec.style,
                                   bounds: Rect(x: textX, y: rowTop, width: widths[i], height: lineHeight))
            rows.append(Row(swatchStart: Point(x: left + spec.padding, y: rowTop + lineHeight / 2),
                            swatchLength: spec.swatchLength, label: label))
        }
        return LegendLayout(box: box, rows: rows)
    }
}

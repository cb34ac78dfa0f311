/// Where a legend sits (ShinobiCharts' `position`): a corner, or the middle of an edge.
public enum LegendPosition: String, CaseIterable, Sendable {
    case topLeft, topMiddle, topRight, middleLeft, middleRight, bottomLeft, bottomMiddle, bottomRight

    var horizontal: Int { switch self { case .topLeft, .middleLeft, .bottomLeft: 0; case .topMiddle, .bottomMiddle: 1; default: 2 } }
    var vertical: Int { switch self { case .topLeft, .topMiddle, .topRight: 0; case .middleLeft, .middleRight: 1; default: 2 } }
}

/// What a legend's position is relative to (ShinobiCharts' `placement`): inside the
/// plot area, over the data's background; or outside it, in a band at the chart's edge
/// that the layout gives up (a column at the side for `middleLeft`/`middleRight`, a
/// row at the top or bottom for the others).
public enum LegendPlacement: String, CaseIterable, Sendable {
    case insidePlotArea, outsidePlotArea
}

public struct LegendSpec: Equatable, Sendable {
    public var entries: [String]
    public var position: LegendPosition
    public var style: TextStyle
    /// Length of the colour swatch drawn before each name.
    public var swatchLength: Double
    public var padding: Double
    public var rowGap: Double
    /// Distance from the plot area's edges.
    public var margin: Double

    public init(entries: [String], position: LegendPosition = .topLeft, style: TextStyle = TextStyle(size: 12),
                swatchLength: Double = 18, padding: Double = 6, rowGap: Double = 4, margin: Double = 8) {
        self.entries = entries; self.position = position; self.style = style
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

    static let swatchGap = 6.0

    /// The box's size (whole pixels), or nil with no entries.
    public static func size(_ spec: LegendSpec, measurer: TextMeasurer) -> Size? {
        guard !spec.entries.isEmpty else { return nil }
        let lineHeight = measurer.metrics(for: spec.style).lineHeight(size: spec.style.size)
        let widths = spec.entries.map { measurer.width(of: $0, style: spec.style) }
        let count = Double(spec.entries.count)
        return Size(width: (spec.padding * 2 + spec.swatchLength + swatchGap + (widths.max() ?? 0)).rounded(.up),
                    height: (spec.padding * 2 + lineHeight * count + spec.rowGap * (count - 1)).rounded(.up))
    }

    /// The box at `position` within `area`, `spec.margin` from its edges; nil when it
    /// does not fit.
    public static func box(_ spec: LegendSpec, size: Size, at position: LegendPosition, in area: Rect) -> Rect? {
        guard size.width + 2 * spec.margin <= area.width + 1e-9, size.height + 2 * spec.margin <= area.height + 1e-9 else { return nil }
        let left = [area.minX + spec.margin, (area.midX - size.width / 2).rounded(), area.maxX - spec.margin - size.width][position.horizontal]
        let top = [area.minY + spec.margin, (area.midY - size.height / 2).rounded(), area.maxY - spec.margin - size.height][position.vertical]
        return Rect(x: left, y: top, width: size.width, height: size.height)
    }

    /// Lays the legend out at its position inside `area` (the plot, or the band an
    /// outside legend is given); nil when it has no entries or does not fit.
    public static func place(_ spec: LegendSpec, in area: Rect, measurer: TextMeasurer) -> LegendLayout? {
        guard let size = size(spec, measurer: measurer), let box = box(spec, size: size, at: spec.position, in: area) else { return nil }
        return rows(spec, box: box, measurer: measurer)
    }

    /// The rows of a legend whose box is `box`.
    public static func rows(_ spec: LegendSpec, box: Rect, measurer: TextMeasurer) -> LegendLayout {
        let m = measurer.metrics(for: spec.style)
        let size = spec.style.size
        let lineHeight = m.lineHeight(size: size), ascent = m.ascent(size: size)
        let gap = swatchGap
        let widths = spec.entries.map { measurer.width(of: $0, style: spec.style) }
        let (left, top) = (box.minX, box.minY)

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

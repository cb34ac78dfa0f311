/// Where a legend sits (ShinobiCharts' `position`): a corner, or the middle of an edge.
public enum LegendPosition: String, CaseIterable, Sendable {
    case topLeft, topMiddle, topRight, middleLeft, middleRight, bottomLeft, bottomMiddle, bottomRight

    public var horizontal: Int { switch self { case .topLeft, .middleLeft, .bottomLeft: 0; case .topMiddle, .bottomMiddle: 1; default: 2 } }
    public var vertical: Int { switch self { case .topLeft, .topMiddle, .topRight: 0; case .middleLeft, .middleRight: 1; default: 2 } }
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
    /// Entries side by side: row-major in this many columns (1: one entry a row), each
    /// column as wide as its widest entry, `columnGap` apart. A legend in a band above
    /// or below the plot takes as many as fit (`LegendLayout.columnsFitting`).
    public var columns: Int
    public var columnGap: Double
    /// Per entry, what a Swift legend item renderer gave it (empty, or nil at an entry:
    /// the legend's own): its text style, measured and drawn in it, and its symbol's
    /// size (width in place of `swatchLength`; a height above the row's line makes every
    /// row that tall).
    public var entryStyles: [TextStyle?] = []
    public var symbolSizes: [Size?] = []

    /// Entry `i`'s text style.
    public func style(_ i: Int) -> TextStyle { i < entryStyles.count ? entryStyles[i] ?? style : style }
    /// Entry `i`'s symbol width.
    public func symbolWidth(_ i: Int) -> Double { i < symbolSizes.count ? symbolSizes[i]?.width ?? swatchLength : swatchLength }

    public init(entries: [String], position: LegendPosition = .topLeft, style: TextStyle = TextStyle(size: 12),
                swatchLength: Double = 18, padding: Double = 6, rowGap: Double = 4, margin: Double = 8,
                columns: Int = 1, columnGap: Double = 14) {
        self.entries = entries; self.position = position; self.style = style
        self.swatchLength = swatchLength; self.padding = padding; self.rowGap = rowGap; self.margin = margin
        self.columns = max(1, columns); self.columnGap = columnGap
    }
}

public struct LegendLayout: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        /// Left end of the swatch line and its vertical centre.
        public var swatchStart: Point
        public var swatchLength: Double
        public var label: PlacedText
        /// The row's top and height (every row is as tall as the tallest entry's text or
        /// symbol), and the box its symbol is drawn in: `swatchLength` (or the entry's
        /// symbol width) wide, as tall as the row (or the entry's symbol), centred on it.
        public var top: Double
        public var height: Double
        public var symbolBox: Rect
    }
    public var box: Rect
    public var rows: [Row]

    static let swatchGap = 6.0

    /// The box's size (whole pixels), or nil with no entries.
    public static func size(_ spec: LegendSpec, measurer: TextMeasurer) -> Size? {
        guard !spec.entries.isEmpty else { return nil }
        let lineHeight = rowHeight(spec, measurer: measurer)
        let widths = columnWidths(spec, measurer: measurer)
        let rows = Double(rowCount(spec))
        let across = widths.reduce(0, +) + spec.columnGap * Double(widths.count - 1)
        return Size(width: (spec.padding * 2 + across).rounded(.up),
                    height: (spec.padding * 2 + lineHeight * rows + spec.rowGap * (rows - 1)).rounded(.up))
    }

    /// Every row's height: the legend's line, or an entry's taller line or symbol.
    static func rowHeight(_ spec: LegendSpec, measurer: TextMeasurer) -> Double {
        var h = measurer.metrics(for: spec.style).lineHeight(size: spec.style.size)
        for style in spec.entryStyles { if let style { h = max(h, measurer.metrics(for: style).lineHeight(size: style.size)) } }
        for size in spec.symbolSizes { if let size { h = max(h, size.height) } }
        return h
    }

    /// How many rows the entries take in `spec.columns` columns.
    static func rowCount(_ spec: LegendSpec) -> Int {
        let columns = min(max(1, spec.columns), spec.entries.count)
        return (spec.entries.count + columns - 1) / max(1, columns)
    }

    /// Each column's width: swatch, gap and its widest name.
    static func columnWidths(_ spec: LegendSpec, measurer: TextMeasurer) -> [Double] {
        let columns = min(max(1, spec.columns), spec.entries.count)
        var widths = [Double](repeating: 0, count: columns)
        for (i, name) in spec.entries.enumerated() {
            widths[i % columns] = max(widths[i % columns], spec.symbolWidth(i) + swatchGap + measurer.width(of: name, style: spec.style(i)))
        }
        return widths
    }

    /// The most columns (at most one per entry) whose box fits `width` with the
    /// legend's margins, and 1 when even one column does not.
    public static func columnsFitting(_ spec: LegendSpec, width: Double, measurer: TextMeasurer) -> Int {
        var best = 1
        for columns in stride(from: spec.entries.count, through: 2, by: -1) {
            var s = spec
            s.columns = columns
            // (Fewer rows for the same count would be the same box: keep the fewest columns
            // that make those rows, so columns stay balanced.)
            if let size = size(s, measurer: measurer), size.width + 2 * spec.margin <= width + 1e-9 { best = columns; break }
        }
        guard best > 1 else { return 1 }
        var s = spec
        s.columns = best
        let rows = rowCount(s)
        return (spec.entries.count + rows - 1) / rows
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
        let rowHeight = Self.rowHeight(spec, measurer: measurer)
        let gap = swatchGap
        let widths = spec.entries.indices.map { measurer.width(of: spec.entries[$0], style: spec.style($0)) }
        let columnWidths = columnWidths(spec, measurer: measurer)
        let columns = columnWidths.count
        var columnLeft = [Double](repeating: box.minX + spec.padding, count: columns)
        for c in columnLeft.indices.dropFirst() { columnLeft[c] = columnLeft[c - 1] + columnWidths[c - 1] + spec.columnGap }
        let top = box.minY

        var rows: [Row] = []
        for (i, name) in spec.entries.enumerated() {
            let left = columnLeft[i % columns]
            let rowTop = top + spec.padding + Double(i / columns) * (rowHeight + spec.rowGap)
            let style = spec.style(i), m = measurer.metrics(for: style)
            let lineHeight = m.lineHeight(size: style.size)
            // (A line as tall as the row starts at its top: a legend no renderer changes
            // is placed as it always was.)
            let textTop = rowTop + (rowHeight - lineHeight) / 2
            let symbolWidth = spec.symbolWidth(i)
            let symbolHeight = i < spec.symbolSizes.count ? spec.symbolSizes[i]?.height ?? rowHeight : rowHeight
            let textX = left + symbolWidth + gap
            let label = PlacedText(text: name, anchor: Point(x: textX, y: textTop + m.ascent(size: style.size)), align: .left, angle: 0,
                                   style: style,
                                   bounds: Rect(x: textX, y: textTop, width: widths[i], height: lineHeight))
            rows.append(Row(swatchStart: Point(x: left, y: rowTop + rowHeight / 2),
                            swatchLength: symbolWidth, label: label, top: rowTop, height: rowHeight,
                            symbolBox: Rect(x: left, y: rowTop + (rowHeight - symbolHeight) / 2, width: symbolWidth, height: symbolHeight)))
        }
        return LegendLayout(box: box, rows: rows)
    }
}

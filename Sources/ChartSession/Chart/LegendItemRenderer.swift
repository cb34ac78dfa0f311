import LayoutEngine

/// One legend entry as a `LegendItemRenderer` sees it (ShinobiCharts' `SChartLegendItem`):
/// what it lists (a series, or a slice of a pie or donut), how that is drawn, and what
/// the renderer may change: the entry's text, its colour and style, and its symbol's size.
public struct LegendItem: Sendable {
    public let seriesId: String
    /// A pie or donut slice's point index; nil for a series.
    public let sliceIndex: Int?
    public let kind: SeriesKind
    /// The series' colour as drawn (its selected look while selected).
    public let color: String
    /// A slice's, band's or filled area's fill; nil: not filled.
    public let fill: String?
    /// A hidden series the legend lists (dimmed).
    public let isHidden: Bool
    /// The entry's text: the series' (or slice's) name.
    public var text: String
    /// The text's colour; nil: the theme's `legendText`.
    public var textColor: String?
    /// The text's style: the legend's font and size. The row is measured in it.
    public var textStyle: TextStyle
    /// The symbol box's size, CSS px: the legend's swatch length (18) by the row's
    /// height. A wider one widens the entry's column; a taller one every row.
    public var symbolSize: Size

    /// Largest side of a symbol, and largest text size, CSS px.
    public static let maxSymbolSide = 200.0
    public static let maxTextSize = 200.0
}

/// Swift functions that see each legend entry before the legend is measured, and may
/// draw its symbol (ShinobiCharts: subclassing the series, which is the legend item, to
/// "customize legend appearance"). Compared by name, as `TickHook` is: a renderer of
/// the same name is taken for the same functions, and a legend drawn by it is kept
/// while its entries, box and theme stand. Both functions run at each render of the
/// legend and must depend on the item alone.
///
/// - `item` may change `text`, `textColor`, `textStyle` and `symbolSize`; the legend is
///   measured and laid out with what it leaves (a longer text widens the legend).
/// - `symbol` gets the item (as `item` left it) and its symbol box in CSS px, and
///   returns the commands that draw the symbol in place of the default one (nil: the
///   default swatch and marker; empty: no symbol). They are clipped to the box.
public struct LegendItemRenderer: Equatable, Hashable, Sendable {
    public let name: String
    public let item: (@Sendable (inout LegendItem) -> Void)?
    public let symbol: (@Sendable (LegendItem, Rect) -> [DrawCommand]?)?

    public init(_ name: String, item: (@Sendable (inout LegendItem) -> Void)? = nil,
                symbol: (@Sendable (LegendItem, Rect) -> [DrawCommand]?)? = nil) {
        self.name = name; self.item = item; self.symbol = symbol
    }

    /// A renderer that draws each entry's symbol (`LegendItemRenderer("dots") { item, box in ... }`).
    public init(_ name: String, symbol: @escaping @Sendable (LegendItem, Rect) -> [DrawCommand]?) {
        self.init(name, item: nil, symbol: symbol)
    }

    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }

    /// `item` as this renderer leaves it, its sizes kept sane: a non-finite or negative
    /// symbol side or text size is the default's, a larger one is clamped.
    func altered(_ given: LegendItem) -> LegendItem {
        guard let alter = item else { return given }
        var item = given
        alter(&item)
        func side(_ v: Double, _ d: Double) -> Double { v.isFinite && v >= 0 ? min(v, LegendItem.maxSymbolSide) : d }
        item.symbolSize = Size(width: side(item.symbolSize.width, given.symbolSize.width),
                               height: side(item.symbolSize.height, given.symbolSize.height))
        if !(item.textStyle.size.isFinite && item.textStyle.size > 0) { item.textStyle.size = given.textStyle.size }
        item.textStyle.size = min(item.textStyle.size, LegendItem.maxTextSize)
        return item
    }
}

/// The kinds of series. This slice draws lines; later kinds (scatter, column, band,
/// stacked, OHLC) add cases and their own renderers.
public enum SeriesKind: String, CaseIterable, Sendable { case line }

/// One series of a chart: what it is called, how it looks, which axes it is plotted
/// against, its points, and optionally the generator that feeds it live.
public struct Series: Sendable {
    public var id: String
    public var name: String
    public var kind: SeriesKind
    public var color: String
    public var strokeWidth: Double
    public var xAxisId: String
    public var yAxisId: String
    public var data: XYData
    public var generator: DataGenerator?
    /// Not drawn, not in the legend, and left out of automatic ranges.
    public var isHidden = false
    /// Listed in the legend (when shown).
    public var showInLegend = true

    public init(id: String, name: String, kind: SeriesKind = .line, color: String, strokeWidth: Double = 1.5,
                xAxisId: String, yAxisId: String, data: XYData = XYData(), generator: DataGenerator? = nil) {
        self.id = id; self.name = name; self.kind = kind; self.color = color; self.strokeWidth = strokeWidth
        self.xAxisId = xAxisId; self.yAxisId = yAxisId; self.data = data; self.generator = generator
    }
}

/// The kinds of series (ShinobiCharts' names): a line through the points, markers at
/// the points (scatter), or a column from a baseline up (or down) to each point.
public enum SeriesKind: String, CaseIterable, Sendable { case line, scatter, column }

/// The shape of a point marker.
public enum MarkerShape: String, CaseIterable, Sendable { case circle, square, triangle, diamond, cross }

/// How a point marker looks: shape, size (its width in CSS pixels), fill and outline.
public struct MarkerStyle: Equatable, Sendable {
    public var shape: MarkerShape
    public var size: Double
    /// nil: not filled (a `cross` never is).
    public var fill: String?
    /// nil: no outline.
    public var stroke: String?
    public var lineWidth: Double

    public init(shape: MarkerShape = .circle, size: Double = 6, fill: String? = nil, stroke: String? = nil,
                lineWidth: Double = 1) {
        self.shape = shape; self.size = size; self.fill = fill; self.stroke = stroke; self.lineWidth = lineWidth
    }

    /// Half the marker's extent, outline included: how far from its centre it draws.
    public var reach: Double { size / 2 + (stroke == nil && shape != .cross ? 0 : lineWidth / 2) }
}

/// One series of a chart: what it is called, how it looks, which axes it is plotted
/// against, its points, and optionally the generator that feeds it live.
public struct Series: Sendable {
    public var id: String
    public var name: String
    public var kind: SeriesKind
    public var color: String
    public var strokeWidth: Double
    /// Dash pattern of a line (CSS pixels, on/off), empty for solid.
    public var dash: [Double] = []
    /// Markers at the points: always for a scatter series, on request for a line.
    public var marker: MarkerStyle?
    /// A column series' fill (nil: its colour) and outline (nil: none).
    public var fill: String?
    public var stroke: String?
    /// Where columns start, in Y data units (ShinobiCharts' `baseline`).
    public var baseline = 0.0
    /// A column's width as a fraction of the smallest X spacing of the points shown.
    public var columnWidth = 0.8
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
        if kind == .scatter { marker = MarkerStyle(fill: color) }
    }

    /// The X extent the series draws over: its data's, and for columns half a column
    /// more at either end, so the outer columns are not cut in half.
    var xExtent: (min: Double, max: Double)? {
        guard let r = data.xRange else { return nil }
        guard kind == .column, data.minSpacing.isFinite else { return r }
        let half = data.minSpacing * columnWidth / 2
        return (r.min - half, r.max + half)
    }

    /// The Y extent the series draws over, given its data's `values`: for columns,
    /// which stand on their baseline, widened to take the baseline in.
    func yExtent(_ values: (min: Double, max: Double)) -> (min: Double, max: Double) {
        kind == .column ? (min(values.min, baseline), max(values.max, baseline)) : values
    }

    /// The markers drawn at the points, with the series' colour where none is given.
    var effectiveMarker: MarkerStyle? {
        guard var m = marker else { return nil }
        if m.shape == .cross {
            m.fill = nil
            m.stroke = m.stroke ?? color
        } else if m.fill == nil, m.stroke == nil {
            m.fill = color
        }
        return m
    }
}

/// The kinds of series (ShinobiCharts' names): a line through the points, markers at
/// the points (scatter), or a column from a baseline up (or down) to each point.
/// A step line holds each value until the next point; an area is a line filled down to
/// its baseline (a line or step line with `showFill`).
/// A candlestick or OHLC series draws, for each X, the open, high, low and close values
/// (a body from open to close with a wick from low to high; or a stick with ticks).
public enum SeriesKind: String, CaseIterable, Sendable {
    case line, step, area, band, scatter, bubble, column, candlestick, ohlc, pie, donut

    /// Drawn about a centre, on a chart without axes.
    public var isRadial: Bool { self == .pie || self == .donut }

    /// Drawn as a line through the points (reduced to device-pixel columns).
    var isLine: Bool { self == .line || self == .step || self == .area }

    /// The values of a point beyond its x, by the names data and appends give them.
    /// The first is the series' `data`; the others its `more`.
    public var valueFields: [String] {
        switch self {
        case .candlestick, .ohlc: return ["open", "high", "low", "close"]
        case .bubble: return ["y", "size"]
        case .band: return ["y", "y1"]
        default: return ["y"]
        }
    }

    /// How many of `valueFields` are Y values (in the Y axis' range): a bubble's size is not.
    var yValueCount: Int { self == .bubble ? 1 : valueFields.count }
}

/// Which way a series runs (ShinobiCharts' `SChartSeriesOrientation`): its points'
/// key along the X axis with their values on the Y axis (`horizontal`, every series),
/// or the key along the Y axis with the values on the X axis (`vertical`: a band only,
/// ShinobiCharts' vertical band of `SChartMultiXDataPoint`s, filled between a left and
/// a right X curve at each Y).
public enum SeriesOrientation: String, CaseIterable, Sendable { case horizontal, vertical }

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

/// What a pie or donut slice's label shows.
public enum SliceLabel: String, CaseIterable, Sendable { case none, name, percent, value }

/// How a series looks, apart from its colour: what the spec's style fields set.
public struct SeriesStyle: Equatable, Sendable {
    /// Line width; a column's outline width.
    public var strokeWidth = 1.5
    /// Dash pattern of a line (CSS pixels, on/off), empty for solid.
    public var dash: [Double] = []
    /// Markers at the points: always for a scatter series, on request for a line.
    public var marker: MarkerStyle?
    /// A column series' fill (nil: its colour) and outline (nil: none); a candlestick's
    /// wick and outline colour (nil: each candle's own colour).
    public var fill: String?
    public var stroke: String?
    /// Where columns and area fills start, in Y data units (ShinobiCharts' `baseline`).
    public var baseline = 0.0
    /// A column's width as a fraction of the smallest X spacing of the points shown.
    public var columnWidth = 0.8
    /// A line filled down to its baseline (ShinobiCharts' `showFill`; on for `area`).
    public var showFill = false
    /// The fill of an area (nil: the series colour, translucent), and the colour a
    /// gradient reaches at the baseline (nil: no gradient).
    public var areaColor: String?
    public var areaColorGradient: String?
    /// Candles and OHLC bars whose close is at least their open, and the others.
    public var risingColor = "#26a69a"
    public var fallingColor = "#ef5350"
    /// Pie and donut: where the first slice starts, degrees clockwise from 12 o'clock
    /// (ShinobiCharts' `rotation`); a donut's hole as a fraction of its radius; how far
    /// a selected slice stands out (`protrusion`, CSS px); what each slice's label shows;
    /// slice colours (nil: the theme's palette in turn).
    public var rotation = 0.0
    /// Where a slice turns to when selected, degrees clockwise from 12 o'clock
    /// (ShinobiCharts' `selectedPosition`); nil: it stays.
    public var selectedPosition: Double?
    public var innerRadius = 0.0
    public var protrusion = 10.0
    public var sliceLabels = SliceLabel.percent
    public var sliceColors: [String]?
    /// Bubble: a bubble's area in CSS px² per unit of size (ShinobiCharts' `scale`);
    /// nil scales the biggest size to `biggestBubbleDiameterForAutoScaling` px across.
    public var bubbleScale: Double?
    /// Band: the second line's colour (nil: the series colour) and the fill where the
    /// second line is above the first (`fill` is the fill where the first is above).
    public var strokeY1: String?
    public var fillY1: String?
    public var biggestBubbleDiameterForAutoScaling = 40.0

    public init() {}
}

/// One series of a chart: what it is called, how it looks, which axes it is plotted
/// against, its points, and optionally the generator that feeds it live.
public struct Series: Sendable {
    public var id: String
    public var name: String
    public var kind: SeriesKind
    public var color: String
    public var style: SeriesStyle
    public var xAxisId: String
    public var yAxisId: String
    /// The first value of every point (`y`; a candle's `open`), x sorted.
    public var data: XYData
    /// The other values (`kind.valueFields` after the first), each with the same x,
    /// capacity and min/max index as `data`: appends keep them in step.
    public private(set) var more: [XYData]
    public var generator: DataGenerator?
    /// Keep only the points whose x lies within this much of the newest x (seconds on a
    /// time axis, x units otherwise): after each append the older ones are evicted as a
    /// FIFO evicts them (docs/persistence.md, "Retention"). Measured in the data's own
    /// x, never the wall clock, so a replay of the same appends keeps the same points.
    public var retention: Double?
    /// The URL of the series' pull source (spec `source`, docs/feeding.md "Pulled
    /// data"): asked for the points of x ranges a viewer shows and the series lacks.
    public var source: String?
    /// The x ranges the series holds, for pulling (`PullCoverage`); nil: not tracked
    /// (no source). Pushes extend it, a source's answers add to it.
    public internal(set) var pullCoverage: PullCoverage?
    /// Not drawn, not in the legend, and left out of automatic ranges.
    public var isHidden = false
    /// Listed in the legend (when shown).
    public var showInLegend = true
    /// Series with the same `stackIndex` (and axes) are stacked, in chart order:
    /// each draws the sum of its values and those of the members before it
    /// (ShinobiCharts' `stackIndex`). Lines, step lines, areas and columns stack.
    public var stackIndex: Int?
    /// The stack is drawn as percentages of its total at each point (100 % stacking).
    public var stackPercent = false
    /// What a stacked series draws: the running sums (or percentages) of its stack at
    /// each point, kept by the chart as points arrive; nil when not stacked.
    public internal(set) var stacked: XYData?

    /// Selected (ShinobiCharts' `selected`): drawn with `selectedStyle` when it has one.
    /// Selection by gesture is the modifiers' (issue 9); the spec and Swift set it.
    public var isSelected = false
    /// How the series looks while selected (ShinobiCharts' `selectedStyle`): its style
    /// with the spec's `selectedStyle` fields over it; nil: as when not selected.
    public var selectedStyle: SeriesStyle?
    public var selectedColor: String?

    /// Points drawn selected (ShinobiCharts' point selection), by sequence number (the
    /// count of points appended before them, so they stay put as a FIFO drops old
    /// points). A change other than an append forgets them.
    public var selectedPoints: Set<Int> = []

    /// Pie and donut: the name of each slice (point), in order (missing: "Slice n").
    public var sliceNames: [String] = []
    /// Pie and donut: the slices drawn selected (pushed out by `protrusion`).
    public var selectedSlices: Set<Int> = []

    /// The crosshair tracks this series (ShinobiCharts' `crosshairEnabled`).
    public var crosshairEnabled = true

    /// Animate the series onto the plot when it is first drawn for a viewer or shown
    /// again, and off it when hidden (ShinobiCharts' `animationEnabled`).
    public var animationEnabled = false
    public var entryAnimation = SeriesAnimation.defaultEntry
    public var exitAnimation = SeriesAnimation.defaultExit
    /// The entry or exit under way (the chart advances it, see `Chart.advanceAnimations`).
    public internal(set) var animation: AnimationState?
    /// Its first entry has been made: later ones follow `Chart.setHidden`.
    var hasEntered = false

    /// The effect to draw the series with and how far it has got (0: not shown,
    /// 1: fully), or nil when it is drawn as it is. A series waiting for its first
    /// entry is not shown.
    public var animationProgress: (effect: SeriesAnimation.Effect, progress: Double)? {
        if let a = animation { return (a.animation.effect, a.progress) }
        if animationEnabled, !hasEntered { return (entryAnimation.effect, 0) }
        return nil
    }

    /// Drawn in the order its points were given, not in x order (spec `unsorted`).
    public var isUnsorted: Bool { !data.ordered }

    /// `vertical`: a band whose points' key is a Y value and whose two values are X
    /// values (spec `orientation`). Stored as every series is, the key in `data`'s x
    /// (sorted), the values in `data`'s y and `more`; only the names the user gives
    /// them (`keyField`, `fieldNames`), the axes they are drawn and ranged on, and the
    /// inspecting modifiers read it.
    public var orientation = SeriesOrientation.horizontal

    /// A band running up the plot (`orientation` vertical).
    public var isVertical: Bool { orientation == .vertical }

    /// The name data and appends give a point's key: `x`, a vertical band's `y`.
    public var keyField: String { Self.keyField(orientation) }
    /// The names data and appends give a point's values: `kind.valueFields`, a
    /// vertical band's `x` and `x1` (stored as its `y` and `y1`).
    public var fieldNames: [String] { Self.fieldNames(kind, orientation) }
    public static func keyField(_ orientation: SeriesOrientation) -> String { orientation == .vertical ? "y" : "x" }
    public static func fieldNames(_ kind: SeriesKind, _ orientation: SeriesOrientation) -> [String] {
        orientation == .vertical && kind == .band ? ["x", "x1"] : kind.valueFields
    }

    /// The values drawn: the stacked sums for a stacked series, else its data.
    public var plotted: XYData { stacked ?? data }

    public init(id: String, name: String, kind: SeriesKind = .line, color: String, style: SeriesStyle = SeriesStyle(),
                xAxisId: String, yAxisId: String, data: XYData = XYData(), generator: DataGenerator? = nil) {
        self.id = id; self.name = name; self.kind = kind; self.color = color; self.style = style
        self.xAxisId = xAxisId; self.yAxisId = yAxisId; self.data = data; self.generator = generator
        more = (1..<kind.valueFields.count).map { _ in XYData(capacity: data.capacity) }
        precondition(more.isEmpty || data.isEmpty, "a series of several values starts empty; append its points")
        self.style = Self.withDefaults(style, kind: kind, color: color)
    }

    /// Takes state from `old`, its namesake before the chart was redefined: its
    /// points (kept under this series' capacity), its generator's progress, whether it
    /// is shown (with any animation under way), its selection, a pie's turn.
    mutating func carry(from old: Series, data keepData: Bool, generator: Bool, visibility: Bool, selection: Bool, rotation: Bool) {
        if keepData {
            if old.data.capacity == data.capacity, old.data.ordered == data.ordered {
                data = old.data
                more = old.more
            } else {
                try! replaceAll(xs: old.data.arrays.xs, values: ([old.data] + old.more).map(\.arrays.ys))
            }
        }
        if generator { self.generator = old.generator }
        if visibility {
            isHidden = old.isHidden
            hasEntered = old.hasEntered
            animation = old.animation
        }
        if selection {
            isSelected = old.isSelected
            selectedSlices = old.selectedSlices
            if keepData { selectedPoints = old.selectedPoints }
        }
        if rotation { style.rotation = old.style.rotation }
        // A retention given (or shortened) by the new spec applies to the points kept.
        if keepData { applyRetention() }
        // What a pulling series holds stays held; a source just given starts from its points.
        if keepData, source != nil { pullCoverage = old.pullCoverage }
        if source != nil, pullCoverage == nil { startCoverage() }
    }

    /// The values named `field` (one of `kind.valueFields`).
    public func values(_ field: String) -> XYData? {
        guard let k = kind.valueFields.firstIndex(of: field) else { return nil }
        return k == 0 ? data : more[k - 1]
    }

    /// Checks a batch (`values` in the order of `kind.valueFields`) without changing
    /// anything: each value as `XYData` checks y, and a candle's low and high around
    /// its open and close. A gap in a candle series has all four values NaN.
    /// X may come in any order: a batch that does not follow the series' newest x is
    /// merged into x order (late data lands where its x belongs). A stacked series
    /// keeps its points in arrival order, so its x must not decrease.
    public func validate(xs: [Double], values: [[Double]]) throws(AppendError) {
        try checkValues(count: xs.count, values: values)
        if let i = xs.firstIndex(where: { !$0.isFinite }) { throw .nonFinite(field: "x", index: i) }
        if stackIndex != nil, !follows(xs) {
            var previous = data.lastX ?? -.infinity
            for (i, x) in xs.enumerated() {
                guard x >= previous else { throw .stackedNotSorted(index: i) }
                previous = x
            }
        }
    }

    /// Whether a batch's x is sorted and starts at or after the newest point's.
    func follows(_ xs: [Double]) -> Bool {
        var previous = data.lastX ?? -.infinity
        for x in xs {
            guard x >= previous else { return false }
            previous = x
        }
        return true
    }

    /// Every live point and `xs`/`values`, in x order (stable: equal x keep their
    /// order, the live points first), as one array per field.
    func merged(xs: [Double], values: [[Double]], keepingLive: Bool = true) -> (xs: [Double], values: [[Double]]) {
        var allX = keepingLive ? data.arrays.xs : []
        var all = keepingLive ? ([data] + more).map(\.arrays.ys) : kind.valueFields.map { _ in [Double]() }
        allX += xs
        for k in all.indices { all[k] += values[k] }
        // Already in x order (a reload of stored points): nothing to sort.
        var sorted = true
        for i in allX.indices.dropFirst() where !(allX[i - 1] <= allX[i]) { sorted = false; break }
        if sorted { return (allX, all) }
        let order = allX.indices.sorted { allX[$0] < allX[$1] || (allX[$0] == allX[$1] && $0 < $1) }
        return (order.map { allX[$0] }, all.map { v in order.map { v[$0] } })
    }

    /// Checks values that do not depend on where they go: one array per value field of
    /// `count` values each, none infinite, a candle's low and high around its open and
    /// close (a gap has all four NaN), and no negative slice.
    func checkValues(count: Int, values: [[Double]]) throws(AppendError) {
        let fields = fieldNames
        guard values.count == fields.count else { throw .wrongFields(kind: kind.rawValue, fields: fields, key: keyField) }
        for (k, ys) in values.enumerated() {
            guard ys.count == count else { throw .lengthMismatch(x: count, y: ys.count, field: fields[k], key: keyField) }
            if let i = ys.firstIndex(where: \.isInfinite) { throw .nonFinite(field: fields[k], index: i) }
        }
        if kind.isRadial, let i = values[0].firstIndex(where: { $0 < 0 }) {
            throw .negativeSlice(index: i, value: values[0][i])
        }
        if kind == .band, let i = (0..<count).first(where: { values[0][$0].isNaN != values[1][$0].isNaN }) {
            throw .partialBandGap(index: i, fields: fields.joined(separator: " and "))
        }
        if kind == .bubble, let i = values[1].firstIndex(where: { $0 < 0 }) {
            throw .negativeSize(index: i, value: values[1][i])
        }
        if kind == .candlestick || kind == .ohlc {
            let (o, h, l, c) = (values[0], values[1], values[2], values[3])
            for i in 0..<count {
                let gaps = [o[i], h[i], l[i], c[i]].filter(\.isNaN).count
                guard gaps == 0 || gaps == 4 else { throw .partialGap(index: i) }
                guard gaps == 0 else { continue }
                guard l[i] <= min(o[i], c[i]), h[i] >= max(o[i], c[i]) else {
                    throw .candleOutOfOrder(index: i, open: o[i], high: h[i], low: l[i], close: c[i])
                }
            }
        }
    }

    // MARK: Changes other than appends (each atomic: checked whole, then applied)

    /// Inserts sorted points before live point `index`.
    public mutating func insert(at index: Int, xs: [Double], values: [[Double]]) throws(AppendError) {
        try checkValues(count: xs.count, values: values)
        try data.validateInsert(at: index, xs: xs, ys: values[0])
        try! data.insert(at: index, xs: xs, ys: values[0])
        for k in more.indices { try! more[k].insert(at: index, xs: xs, ys: values[k + 1]) }
        if let first = xs.first, let last = xs.last { pullCoverage?.insert(first...last) }
    }

    /// Replaces the values (not x) of live points `index...`.
    public mutating func update(at index: Int, values: [[Double]]) throws(AppendError) {
        try checkValues(count: values.first?.count ?? 0, values: values)
        try data.validateUpdate(at: index, ys: values[0])
        try! data.update(at: index, ys: values[0])
        for k in more.indices { try! more[k].update(at: index, ys: values[k + 1]) }
    }

    /// Removes the oldest `n` points.
    public mutating func removeFirst(_ n: Int) throws(AppendError) {
        try data.removeFirst(n)
        for k in more.indices { try! more[k].removeFirst(n) }
        if n > 0 { coverEvictions() }
    }

    /// Removes every point.
    public mutating func clear() {
        data.clear()
        for k in more.indices { more[k].clear() }
        if pullCoverage != nil { pullCoverage = PullCoverage() }
    }

    /// Stored points in place of all (a session restored from its snapshot): already in x
    /// order, so taken as they are (no merge, no copy); unsorted ones are refused.
    public mutating func reload(xs: [Double], values: [[Double]]) throws(AppendError) {
        try checkValues(count: xs.count, values: values)
        try data.replaceAll(xs: xs, ys: values[0])
        for k in more.indices { try more[k].replaceAll(xs: xs, ys: values[k + 1]) }
    }

    /// These points in place of all (a reload from a store): `chunks` in order, each
    /// its columns as little-endian float64 bytes (x, then every value field), of which
    /// the `count` points after the first `skip` are taken. Read a chunk at a time into
    /// the series (no copy of the whole), checked as an append is.
    public mutating func reload(chunks: [[[UInt8]]], skip: Int, count: Int) throws(AppendError) {
        let width = kind.valueFields.count + 1
        for chunk in chunks {
            guard chunk.count == width, chunk.allSatisfy({ $0.count == chunk[0].count && $0.count % 8 == 0 }) else {
                throw .wrongFields(kind: kind.rawValue, fields: kind.valueFields)
            }
        }
        func load(_ column: Int, into d: inout XYData) throws(AppendError) {
            var fresh = d.emptied()
            var toSkip = skip, left = count
            for chunk in chunks where left > 0 {
                let n = chunk[0].count / 8
                guard toSkip < n else { toSkip -= n; continue }
                let take = min(n - toSkip, left)
                // (Stored little-endian, as this machine's doubles are: SessionCodec.columnBytes.)
                func doubles(_ bytes: [UInt8]) -> [Double] {
                    [Double](unsafeUninitializedCapacity: take) { out, made in
                        bytes.withUnsafeBytes { raw in
                            UnsafeMutableRawBufferPointer(out).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[(8 * toSkip)..<(8 * (toSkip + take))]))
                        }
                        made = take
                    }
                }
                try fresh.append(xs: doubles(chunk[0]), ys: doubles(chunk[column]))
                left -= take
                toSkip = 0
            }
            guard left == 0 else { throw .indexOutOfRange(index: count, count: count - left, inclusive: false) }
            d = fresh
        }
        var newData = data, newMore = more
        try load(1, into: &newData)
        for k in newMore.indices { try load(k + 2, into: &newMore[k]) }
        data = newData
        more = newMore
    }

    /// These points in place of all (a reload), in any x order (sorted here).
    public mutating func replaceAll(xs: [Double], values: [[Double]]) throws(AppendError) {
        try checkValues(count: xs.count, values: values)
        if let i = xs.firstIndex(where: { !$0.isFinite }) { throw .nonFinite(field: "x", index: i) }
        // (An unsorted line keeps the order given.)
        let m = data.ordered ? merged(xs: xs, values: values, keepingLive: false) : (xs: xs, values: values)
        try! data.replaceAll(xs: m.xs, ys: m.values[0])
        for k in more.indices { try! more[k].replaceAll(xs: m.xs, ys: m.values[k + 1]) }
        if pullCoverage != nil { startCoverage() }
    }

    /// Appends a batch atomically: all of it is checked first, then every value is
    /// stored, or an error is thrown and nothing changes.
    public mutating func append(xs: [Double], values: [[Double]]) throws(AppendError) {
        try validate(xs: xs, values: values)
        // A push covers from the newest x before it to its own newest x.
        if pullCoverage != nil, let lo = xs.min(), let hi = xs.max() { pullCoverage?.insert(min(lo, data.lastX ?? lo)...hi) }
        let oldest = data.firstSequence
        defer { applyRetention(); if data.firstSequence != oldest { coverEvictions() } }
        if follows(xs) || !data.ordered {
            try! data.append(xs: xs, ys: values[0])
            for k in more.indices { try! more[k].append(xs: xs, ys: values[k + 1]) }
            return
        }
        // Out of order: the series is rebuilt in x order (a cost of its size, not the
        // batch's); with a capacity, the smallest x make room.
        let m = merged(xs: xs, values: values)
        try! data.replaceAll(xs: m.xs, ys: m.values[0])
        for k in more.indices { try! more[k].replaceAll(xs: m.xs, ys: m.values[k + 1]) }
    }

    /// Points evicted from the front (capacity, retention, removeFirst) are no longer held.
    mutating func coverEvictions() {
        guard pullCoverage != nil else { return }
        if let first = data.firstX { pullCoverage?.drop(below: first) }
    }

    /// Evicts the points older than `retention` before the newest x (every value field
    /// alike). Returns how many went.
    @discardableResult
    mutating func applyRetention() -> Int {
        guard let retention, let last = data.lastX else { return 0 }
        let n = data.evict(before: last - retention)
        for k in more.indices { more[k].evictOldest(n) }
        return n
    }

    /// The extent of every value over `indices` (of `plotted`; NaN ignored).
    func valueRange(indices: Range<Int>) -> (min: Double, max: Double)? {
        if let stacked { return stacked.yRange(indices: indices) }
        var r = data.yRange(indices: indices)
        for m in more.prefix(kind.yValueCount - 1) {
            guard let v = m.yRange(indices: indices) else { continue }
            r = r.map { (min($0.min, v.min), max($0.max, v.max)) } ?? v
        }
        return r
    }

    /// The extent of every value of the points with x in `[lo, hi]`.
    func valueRange(xFrom lo: Double, to hi: Double) -> (min: Double, max: Double)? {
        if !data.ordered {
            // An unsorted line: every point with x inside, wherever it is.
            var low = Double.infinity, high = -Double.infinity
            data.withStretches(0..<data.count) { xs, ys in
                for k in xs.indices where xs[k] >= lo && xs[k] <= hi && !ys[k].isNaN { low = min(low, ys[k]); high = max(high, ys[k]) }
            }
            return low <= high ? (low, high) : nil
        }
        let start = plotted.lowerBound(lo), end = plotted.upperBound(hi)
        return start < end ? valueRange(indices: start..<end) : nil
    }

    /// The extent of every value drawn.
    func valueRange() -> (min: Double, max: Double)? { valueRange(indices: 0..<plotted.count) }

    /// A band's fills: where y is above y1 (`fill`, default the colour at 35 %), and
    /// where below (`fillY1`, default a translucent red).
    var bandFills: (fill: String, fillY1: String) {
        (style.fill ?? Self.translucent(color, alpha: 0.35) ?? color, style.fillY1 ?? "rgba(214,39,40,0.3)")
    }

    /// `style` with what its type implies where it says nothing: a scatter's and a
    /// bubble's marker in `color`, an area's fill, a donut's hole.
    static func withDefaults(_ style: SeriesStyle, kind: SeriesKind, color: String) -> SeriesStyle {
        var style = style
        if kind == .scatter, style.marker == nil { style.marker = MarkerStyle(fill: color) }
        if kind == .bubble, style.marker == nil {
            style.marker = MarkerStyle(fill: Self.translucent(color, alpha: 0.6) ?? color, stroke: color)
        }
        if kind == .area { style.showFill = true }
        if kind == .donut, style.innerRadius == 0 { style.innerRadius = 0.5 }
        return style
    }

    /// The series as it is drawn: with `selectedStyle` (and `selectedColor`) while selected.
    public var drawn: Series {
        guard isSelected, let selected = selectedStyle else { return self }
        var s = self
        s.color = selectedColor ?? color
        s.style = Self.withDefaults(selected, kind: kind, color: s.color)
        return s
    }

    /// Filled down to its baseline.
    var isFilled: Bool { kind.isLine && style.showFill }

    /// The fill of an area: `areaColor`, else the series colour at 35 % opacity (when
    /// it is a hex colour; other CSS colours are used as they are). A stacked area's
    /// default fill is opaque, that colour over `background`, so each band of the stack
    /// shows only its own colour.
    func areaFill(over background: String) -> String {
        if let c = style.areaColor { return c }
        if stackIndex != nil, let mixed = Self.mix(color, over: background, alpha: 0.35) { return mixed }
        return Self.translucent(color, alpha: 0.35) ?? color
    }

    /// The RGB components of `#rgb` or `#rrggbb`.
    static func rgb(_ color: String) -> [Int]? {
        var hex = Array(color.dropFirst())
        guard color.first == "#", hex.count == 3 || hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        if hex.count == 3 { hex = hex.flatMap { [$0, $0] } }
        return (0..<3).map { Int(String(hex[2 * $0...2 * $0 + 1]), radix: 16)! }
    }

    /// `color` at `alpha` over an opaque `background`, as an opaque `#rrggbb` (both hex).
    static func mix(_ color: String, over background: String, alpha: Double) -> String? {
        guard let c = rgb(color), let b = rgb(background) else { return nil }
        let v = zip(c, b).map { Int((alpha * Double($0) + (1 - alpha) * Double($1)).rounded()) }
        return "#" + v.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// `#rgb` or `#rrggbb` as `rgba(r,g,b,alpha)`; nil for any other colour form.
    static func translucent(_ color: String, alpha: Double) -> String? {
        guard let v = rgb(color) else { return nil }
        return "rgba(\(v[0]),\(v[1]),\(v[2]),\(alpha))"
    }

    /// The X extent the series draws over: its data's, and for columns and candles half
    /// a column more at either end, so the outer ones are not cut in half.
    var xExtent: (min: Double, max: Double)? {
        guard let r = plotted.xRange else { return nil }
        guard let half = Self.halfColumn(kind, minSpacing: data.minSpacing, columnWidth: style.columnWidth) else { return r }
        return (r.min - half, r.max + half)
    }

    /// How far a series of `kind` reaches past its first and last x: half a column for
    /// columns and candles (sized by the points' `minSpacing`), nil for the others or
    /// when there is no spacing to size a column by. (Static, with its `extentBaseline`
    /// and `valuesArePlotted` kin, for callers that read a series' stored fields in place:
    /// a series asked a computed property out of an array is copied first.)
    static func halfColumn(_ kind: SeriesKind, minSpacing: Double, columnWidth: Double) -> Double? {
        guard kind == .column || kind == .candlestick || kind == .ohlc, minSpacing.isFinite else { return nil }
        return minSpacing * columnWidth / 2
    }

    /// The Y extent the series draws over, given its data's `values`: for columns and
    /// areas, which stand on their baseline, widened to take the baseline in.
    func yExtent(_ values: (min: Double, max: Double)) -> (min: Double, max: Double) {
        Self.extent(values, takingIn: extentBaseline)
    }

    /// The baseline the drawn extent takes in: columns' and areas' (nil for others).
    var extentBaseline: Double? { Self.extentBaseline(kind, showFill: style.showFill, baseline: style.baseline) }
    static func extentBaseline(_ kind: SeriesKind, showFill: Bool, baseline: Double) -> Double? {
        kind == .column || (kind.isLine && showFill) ? baseline : nil
    }

    /// `values` widened to take `baseline` in (as they are without one).
    static func extent(_ values: (min: Double, max: Double), takingIn baseline: Double?) -> (min: Double, max: Double) {
        baseline.map { (min(values.min, $0), max(values.max, $0)) } ?? values
    }

    /// Its y values are `plotted`'s alone (one value a point, or stacked sums): what
    /// `valueRange` reads is `plotted.yRange`.
    var valuesArePlotted: Bool { Self.valuesArePlotted(kind, stacked: stacked != nil) }
    static func valuesArePlotted(_ kind: SeriesKind, stacked: Bool) -> Bool { stacked || kind.yValueCount <= 1 }

    /// The markers drawn at the points, with the series' colour where none is given.
    /// How far (CSS px) the markers or bubbles this series draws reach from their
    /// points (0: it draws none). A bubble's is the biggest bubble's, at most 60 px.
    var markerReach: Double {
        // (A selected series is drawn in its selected style, which may add a marker.)
        if isSelected, selectedStyle != nil { return drawn.reachOfMarkers }
        return reachOfMarkers
    }

    private var reachOfMarkers: Double {
        guard let m = effectiveMarker else { return 0 }
        guard kind == .bubble else { return kind.isRadial ? 0 : m.reach }
        guard let sizes = values("size"), let biggest = sizes.yRange(indices: 0..<sizes.count)?.max else { return 0 }
        let d = BubbleReducer.diameter(biggest, style: style, biggest: biggest)
        return Swift.min(60, d / 2 + (m.stroke == nil ? 0 : m.lineWidth / 2))
    }

    var effectiveMarker: MarkerStyle? {
        guard var m = style.marker else { return nil }
        if m.shape == .cross {
            m.fill = nil
            m.stroke = m.stroke ?? color
        } else if m.fill == nil, m.stroke == nil {
            m.fill = color
        }
        return m
    }
}

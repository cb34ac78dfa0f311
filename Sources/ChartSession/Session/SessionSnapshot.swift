import LayoutEngine

/// A session's whole state at one log position: its spec (as defined and patched), the
/// shared view, the generators' progress and clock, and every series' points as float64
/// columns. Restoring it and applying the inputs logged after it gives the state the
/// session had (docs/persistence.md). Independent views, hovers and glides in flight
/// are not part of it. Where the legend was last shown at each size is
/// (`Chart.shownLegends`), and so is the room each axis keeps for its labels
/// (`Chart.presentedLabelExtents`): both depend on what was drawn before (hysteresis),
/// so a session restored, or loaded by another node, draws as the one that took the
/// snapshot.
public struct SessionSnapshot: Sendable {
    public struct GeneratorProgress: Equatable, Sendable {
        public var series: String
        public var emitted: Int
        public var random: UInt64
        public var walk: Double
    }
    public struct SeriesColumns: Sendable {
        public var id: String
        /// x, then the values in the order of the kind's value fields.
        public var columns: [[Double]]
        /// Or the points as a store keeps them: chunks, each its columns as little-endian
        /// float64 bytes (x, then the values), of which the `count` points after the first
        /// `skip` are the series'. Restored a chunk at a time, with no copy of the whole.
        public var chunks: [[[UInt8]]] = []
        public var skip = 0, count = 0
        public init(id: String, columns: [[Double]]) { self.id = id; self.columns = columns }
        public init(id: String, chunks: [[[UInt8]]], skip: Int, count: Int) {
            self.id = id; self.columns = []; self.chunks = chunks; self.skip = skip; self.count = count
        }
    }
    /// Where a series' points are in a store's chunks: `count` points from key `first`.
    public struct SeriesRange: Equatable, Sendable {
        public var id: String
        public var first: Int
        public var count: Int
        public init(id: String, first: Int, count: Int) { self.id = id; self.first = first; self.count = count }
    }
    public var spec: JSONValue
    public var view: SharedViewState
    public var clockElapsed: Double?
    public var startUnixTime: Double
    public var generators: [GeneratorProgress]
    /// The points (empty in a stored state: its chunks hold them, `ranges` says where).
    public var series: [SeriesColumns]
    public var ranges: [SeriesRange] = []
    /// The automatic ranges the axes settled on (`Chart.shownAutoRanges`): a snapshot
    /// plus the inputs after it settles them as the whole log would.
    public var settledRanges: [(axis: String, range: DoubleRange)] = []
    /// Where the legend was last shown, by canvas size (`Chart.shownLegends`), in size order.
    public var legends: [ShownLegendAt] = []
    public struct ShownLegendAt: Equatable, Sendable {
        public var size: Size
        public var shown: Chart.ShownLegend
        public init(size: Size, shown: Chart.ShownLegend) { self.size = size; self.shown = shown }
    }
    /// The narrowest and widest labels each axis has shown (`Chart.presentedLabelExtents`,
    /// its `labelSpace`), in axis order.
    public var labelExtents: [(axis: String, extent: ClosedRange<Double>)] = []
}

/// A series' run of points (`XYData.lineage`) and its sequence numbers, for a store
/// that writes only what changed since its last snapshot.
public struct SeriesRun: Equatable, Sendable {
    public var id: String
    public var lineage: UInt64
    public var firstSequence: Int
    public var endSequence: Int
}

extension Session {
    /// The session's state now (nil: it was built in Swift and has no spec), with every
    /// series' points when `points`.
    public func snapshot(points: Bool = true) -> SessionSnapshot? {
        guard let spec = specJSON else { return nil }
        finishRendering()
        return SessionSnapshot(
            spec: spec, view: chart.sharedViewState, clockElapsed: clockElapsed, startUnixTime: startUnixTime,
            generators: chart.series.compactMap { s in
                s.generator.map { g in
                    let p = g.progress
                    return .init(series: s.id, emitted: p.emitted, random: p.random, walk: p.walk)
                }
            },
            series: !points ? [] : chart.series.map { s in
                .init(id: s.id, columns: columns(series: s.id, sequences: s.data.firstSequence..<s.data.endSequence))
            },
            settledRanges: chart.shownAutoRanges.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            legends: chart.shownLegends.map { SessionSnapshot.ShownLegendAt(size: $0.key, shown: $0.value) }
                .sorted { ($0.size.width, $0.size.height) < ($1.size.width, $1.size.height) },
            labelExtents: chart.presentedLabelExtents.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Each series' run of points.
    public var seriesRuns: [SeriesRun] {
        chart.series.map { SeriesRun(id: $0.id, lineage: $0.data.lineage, firstSequence: $0.data.firstSequence, endSequence: $0.data.endSequence) }
    }

    /// The points of series `id` with these sequence numbers (live ones): x, then each
    /// value field.
    public func columns(series id: String, sequences: Range<Int>) -> [[Double]] {
        guard let i = chart.seriesIndex(id) else { return [] }
        let s = chart.series[i]
        let lo = max(sequences.lowerBound, s.data.firstSequence) - s.data.firstSequence
        let hi = min(sequences.upperBound, s.data.endSequence) - s.data.firstSequence
        let indices = lo..<max(lo, hi)
        func copy(_ d: XYData, x: Bool) -> [Double] {
            var out: [Double] = []
            out.reserveCapacity(indices.count)
            d.withStretches(indices) { a, b in out += x ? a : b }
            return out
        }
        return [copy(s.data, x: true)] + s.kind.valueFields.map { f in s.values(f).map { copy($0, x: false) } ?? [] }
    }

    /// Takes a snapshot's data, view, generators and clock into a session made from its
    /// spec. Series are matched by id (and must take as many values); others keep what
    /// the spec gave them. Returns the ids of the series whose points were taken.
    @discardableResult
    public func restore(_ snapshot: SessionSnapshot, view: Bool = true) -> [String] {
        finishRendering()
        var taken: [String] = []
        chart.suspendUpdates {
            for stored in snapshot.series {
                guard let i = chart.seriesIndex(stored.id) else { continue }
                let width = chart.series[i].kind.valueFields.count + 1
                if !stored.chunks.isEmpty {
                    guard stored.chunks.allSatisfy({ $0.count == width }) else { continue }
                    do {
                        try chart.change(seriesId: stored.id) { (s: inout Series) throws(AppendError) in
                            try s.reload(chunks: stored.chunks, skip: stored.skip, count: stored.count)
                        }
                        taken.append(stored.id)
                    } catch { continue }
                    continue
                }
                // (No columns: a series stored empty.)
                let columns = stored.columns.isEmpty ? [[Double]](repeating: [], count: width) : stored.columns
                guard columns.count == width else { continue }
                do {
                    try chart.change(seriesId: stored.id) { (s: inout Series) throws(AppendError) in
                        try s.reload(xs: columns[0], values: Array(columns.dropFirst()))
                    }
                    taken.append(stored.id)
                } catch { continue }
            }
            for g in snapshot.generators {
                guard let i = chart.seriesIndex(g.series), chart.series[i].generator != nil else { continue }
                chart.withSeries(i) { $0.generator!.progress = (g.emitted, g.random, g.walk) }
            }
            if view { chart.restoreViewState(snapshot.view) }
            chart.restoreSettledRanges(snapshot.settledRanges)
        }
        chart.restoreShownLegends(snapshot.legends.map { ($0.size, $0.shown) })
        chart.restorePresentedLabelExtents(snapshot.labelExtents)
        clockElapsed = snapshot.clockElapsed
        startUnixTime = snapshot.startUnixTime
        startTime = nil
        loggedView = chart.sharedViewState
        return taken
    }
}

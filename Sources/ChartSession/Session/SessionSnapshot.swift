/// A session's whole state at one log position: its spec (as defined and patched), the
/// shared view, the generators' progress and clock, and every series' points as float64
/// columns. Restoring it and applying the inputs logged after it gives the state the
/// session had (docs/persistence.md). Independent views, hovers and glides in flight
/// are not part of it.
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
        public init(id: String, columns: [[Double]]) { self.id = id; self.columns = columns }
    }
    public var spec: JSONValue
    public var view: SharedViewState
    public var clockElapsed: Double?
    public var startUnixTime: Double
    public var generators: [GeneratorProgress]
    public var series: [SeriesColumns]
}

extension Session {
    /// The session's state now (nil: it was built in Swift and has no spec).
    public func snapshot() -> SessionSnapshot? {
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
            series: chart.series.map { s in
                .init(id: s.id, columns: [s.data.arrays.xs] + s.kind.valueFields.map { s.values($0)?.arrays.ys ?? [] })
            })
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
                guard let i = chart.seriesIndex(stored.id), stored.columns.count == chart.series[i].kind.valueFields.count + 1
                else { continue }
                do {
                    try chart.change(seriesId: stored.id) { (s: inout Series) throws(AppendError) in
                        try s.replaceAll(xs: stored.columns[0], values: Array(stored.columns.dropFirst()))
                    }
                    taken.append(stored.id)
                } catch { continue }
            }
            for g in snapshot.generators {
                guard let i = chart.seriesIndex(g.series), chart.series[i].generator != nil else { continue }
                chart.withSeries(i) { $0.generator!.progress = (g.emitted, g.random, g.walk) }
            }
            if view { chart.restoreViewState(snapshot.view) }
        }
        clockElapsed = snapshot.clockElapsed
        startUnixTime = snapshot.startUnixTime
        startTime = nil
        loggedView = chart.sharedViewState
        return taken
    }
}

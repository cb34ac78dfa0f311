import Synchronization

/// Points held in series without a capacity, per session and on the whole server
/// (`SessionLimits.sessionPoints`, `serverPoints`). Series with a capacity are bounded
/// by it (a FIFO); generated series always have one (`generatorCapacity`). An append
/// that would pass a budget is refused whole, so nothing acknowledged is ever dropped.
enum PointLedger {
    /// Each live session's count, and their sum.
    private static let state = Mutex<(counts: [ObjectIdentifier: Int], total: Int)>(([:], 0))

    /// Records `session`'s count; returns the server's total after it.
    @discardableResult
    static func record(_ session: ObjectIdentifier, _ count: Int) -> Int {
        state.withLock { s in
            let old = s.counts[session] ?? 0
            if count == 0 { s.counts[session] = nil } else { s.counts[session] = count }
            s.total += count - old
            return s.total
        }
    }

    /// The server's total with `session` counted as `count`.
    static func total(with session: ObjectIdentifier, counting count: Int) -> Int {
        state.withLock { s in s.total - (s.counts[session] ?? 0) + count }
    }

    static var total: Int { state.withLock { $0.total } }
}

extension Session {
    /// Points in this session's series that have no capacity.
    public var uncappedPoints: Int {
        chart.series.reduce(0) { $0 + ($1.data.capacity == nil ? $1.data.count : 0) }
    }

    /// Points in series without capacity on the whole server (sessions alive).
    public static var serverUncappedPoints: Int { PointLedger.total }

    /// Brings the server's ledger up to date with this session's points (after any change).
    public func recordPoints() { PointLedger.record(ObjectIdentifier(self), uncappedPoints) }

    /// Forgets this session's points (it is no longer hosted).
    func releasePoints() { PointLedger.record(ObjectIdentifier(self), 0) }

    /// Throws when `added` more points in series without capacity (`series` names the
    /// first of them, for the message) would pass the session's or the server's budget.
    public func checkPointBudget(adding added: Int, series: String) throws(SessionError) {
        guard added > 0 else { return }
        let limits = self.limits ?? SessionLimits.current
        let own = uncappedPoints
        if own + added > limits.sessionPoints {
            LimitCounters.count("sessionPoints")
            throw .pointBudget(
                "series \"\(series)\" has no capacity, and session \"\(id)\" holds \(own) points in such series: \(added) more "
                + "would pass its budget of \(limits.sessionPoints) (limit sessionPoints). Give the series a capacity (it then keeps "
                + "the newest points), remove old points (removeFirst, clear), or raise the limit with the server's --limit sessionPoints=N")
        }
        let server = PointLedger.total(with: ObjectIdentifier(self), counting: own)
        if server + added > limits.serverPoints {
            LimitCounters.count("serverPoints")
            throw .pointBudget(
                "series \"\(series)\" has no capacity, and the server holds \(server) points in such series: \(added) more "
                + "would pass its budget of \(limits.serverPoints) (limit serverPoints). Give the series a capacity (it then keeps "
                + "the newest points), remove old points or sessions, or raise the limit with the server's --limit serverPoints=N")
        }
    }

    /// The points `xs.count` an append to series `i` adds to the budget (0 with a capacity).
    func budgetGrowth(series i: Int, adding n: Int) -> Int {
        chart.series[i].data.capacity == nil ? n : 0
    }
}

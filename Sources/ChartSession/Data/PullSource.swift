import Foundation
import LayoutEngine
import Synchronization

/// A pull data source (ShinobiCharts' `SChartDatasource`, asked by range): the chart
/// asks for a series' points in an x range when a viewer's range reaches past what the
/// series holds, and the source answers later, from any thread, by calling `reply` once.
/// The answer enters the session through the one door as `SessionInput.pull`, so it is
/// logged and replayed like any other change (docs/feeding.md, "Pulled data").
///
/// `dataPoints` is called on the session's thread and must not block: do the work
/// elsewhere and reply from there. A series with a `source` URL in its spec gets the
/// server's HTTP source; Swift code attaches its own with `Session.setDataSource`.
public protocol ChartDataSource: AnyObject, Sendable {
    func dataPoints(for request: PullRequest, reply: @escaping @Sendable (PullAnswer) -> Void)
}

/// What the chart asks a source for: the points of `series` with `from <= x <= to`.
public struct PullRequest: Equatable, Sendable {
    public var session: String
    public var series: String
    /// The values each point has beside x (`SeriesKind.valueFields`: `["y"]`, or
    /// `["open", "high", "low", "close"]`, ...), in the order `PullAnswer.points` takes.
    public var fields: [String]
    public var from: Double
    public var to: Double
    /// The most points an answer may carry (`PullLimits.maxPoints`).
    public var maxPoints: Int
    public init(session: String, series: String, fields: [String], from: Double, to: Double, maxPoints: Int) {
        self.session = session; self.series = series; self.fields = fields; self.from = from; self.to = to; self.maxPoints = maxPoints
    }
}

/// A source's answer: points (x sorted, `values` one column per field), or why not.
public enum PullAnswer: Equatable, Sendable {
    case points(xs: [Double], values: [[Double]])
    case failure(String)
}

/// The bounds of pulling (docs/feeding.md, "Pulled data").
public struct PullLimits: Sendable {
    /// Seconds a range must stay wanted (the viewer's range stopped moving) before it is asked for.
    public var debounce = 0.2
    /// Seconds the HTTP source waits for a whole answer.
    public var timeout = 5.0
    /// Bytes an HTTP answer may have (its body).
    public var maxBytes = 16 << 20
    /// Points an answer may carry; more is a failure.
    public var maxPoints = 200_000
    /// Seconds before a failed series asks again: doubling from `retryAfter` up to `maxRetryAfter`.
    public var retryAfter = 1.0
    public var maxRetryAfter = 30.0
    public init() {}
    public static let standard = PullLimits()
}

/// The x ranges a series holds (closed intervals, sorted, apart): what it was fed
/// (pushes cover from the newest x before them to their own newest x), and what its
/// source answered. A range not covered within what a viewer shows is asked for.
public struct PullCoverage: Equatable, Sendable {
    public private(set) var ranges: [ClosedRange<Double>] = []
    public init(_ ranges: [ClosedRange<Double>] = []) { for r in ranges { insert(r) } }

    /// Adds `r`, joining the ranges it touches or overlaps (or that end at the double
    /// next to its ends: nothing lies between them).
    public mutating func insert(_ r: ClosedRange<Double>) {
        // The common case, a push at the end: extend the last range.
        if let last = ranges.last, r.lowerBound >= last.lowerBound {
            if r.lowerBound <= last.upperBound.nextUp {
                ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                ranges.append(r)
            }
            return
        }
        var lo = r.lowerBound, hi = r.upperBound
        var kept: [ClosedRange<Double>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for c in ranges {
            if c.upperBound.nextUp < lo { kept.append(c); continue }
            if c.lowerBound > hi.nextUp {
                if !placed { kept.append(lo...hi); placed = true }
                kept.append(c)
                continue
            }
            lo = min(lo, c.lowerBound); hi = max(hi, c.upperBound)
        }
        if !placed { kept.append(lo...hi) }
        ranges = kept
    }

    /// Forgets what lies below `x` (points evicted from the front).
    public mutating func drop(below x: Double) {
        ranges = ranges.compactMap { r in
            r.upperBound < x ? nil : (r.lowerBound >= x ? r : x...r.upperBound)
        }
    }

    /// The parts of `want` no range covers, in order. Each is closed and excludes the
    /// covered ends (a double's neighbour), so asking for it does not ask again for an
    /// x the series holds.
    public func missing(in want: ClosedRange<Double>) -> [ClosedRange<Double>] {
        var out: [ClosedRange<Double>] = []
        var from = want.lowerBound
        var open = false  // `from` is a covered range's end: start just above it
        for c in ranges {
            if c.upperBound < from || (open && c.upperBound == from) { continue }
            if c.lowerBound > want.upperBound { break }
            let start = open ? from.nextUp : from
            if c.lowerBound > start {
                let end = c.lowerBound.nextDown
                if start <= end { out.append(start...min(end, want.upperBound)) }
            }
            from = c.upperBound
            open = true
            if from >= want.upperBound { return out }
        }
        let start = open ? from.nextUp : from
        if start <= want.upperBound { out.append(start...want.upperBound) }
        return out
    }

    public func covers(_ want: ClosedRange<Double>) -> Bool { missing(in: want).isEmpty }
}

/// The pulling state of one series (not part of the chart's state: it is the
/// transport's bookkeeping, rebuilt as requests go out). Pure: `next` decides.
public struct PullState: Sendable {
    /// The request out (at most one per series).
    public internal(set) var inFlight: PullRequest?
    /// The range last found missing, and since when (the debounce).
    public internal(set) var wanted: ClosedRange<Double>?
    public internal(set) var wantedSince = 0.0
    /// Failures in a row, and when the next request may go.
    public internal(set) var failures = 0
    public internal(set) var retryAt = -Double.infinity
    public internal(set) var requests = 0
    public internal(set) var answers = 0
    public internal(set) var failed = 0
    public internal(set) var points = 0
    public internal(set) var lastError: String?
    public init() {}

    /// The range to ask for now, if any: the first part of `visible` that `coverage`
    /// lacks, once it has been wanted for `limits.debounce` seconds, with no request
    /// out and not while backing off after a failure.
    public mutating func next(visible: ClosedRange<Double>, coverage: PullCoverage, now: Double,
                              limits: PullLimits = .standard) -> ClosedRange<Double>? {
        guard let gap = coverage.missing(in: visible).first else { wanted = nil; return nil }
        if gap != wanted { wanted = gap; wantedSince = now }
        guard inFlight == nil, now >= retryAt, now - wantedSince >= limits.debounce else { return nil }
        return gap
    }

    mutating func started(_ request: PullRequest) { inFlight = request; requests += 1 }

    mutating func finished(failure: String?, points n: Int, now: Double, limits: PullLimits = .standard) {
        inFlight = nil
        if let failure {
            failed += 1
            failures += 1
            lastError = failure
            retryAt = now + min(limits.maxRetryAfter, limits.retryAfter * Double(1 << min(failures - 1, 20)))
        } else {
            answers += 1
            points += n
            failures = 0
            retryAt = -.infinity
        }
    }
}

/// Answers posted by sources' threads, taken by the session's.
final class PullInbox: Sendable {
    private let answers = Mutex<[(PullRequest, PullAnswer)]>([])
    func post(_ request: PullRequest, _ answer: PullAnswer) { answers.withLock { $0.append((request, answer)) } }
    func take() -> [(PullRequest, PullAnswer)] { answers.withLock { a in defer { a = [] }; return a } }
    var isEmpty: Bool { answers.withLock { $0.isEmpty } }
}

/// A session's pulling: the sources of its series, their states, and the answers
/// that arrived from other threads, waiting for the session's thread.
final class PullDesk {
    /// Sources attached in Swift, by series id.
    var attached: [String: any ChartDataSource] = [:]
    /// Sources made for spec `source` URLs: (url, source) by series id.
    var made: [String: (url: String, source: any ChartDataSource)] = [:]
    var states: [String: PullState] = [:]
    let inbox = PullInbox()
    var limits = PullLimits.standard
}

extension Session {
    /// Makes the source of a spec's `source` URL (the server sets it: an HTTP client
    /// off the event loop). Without it, URL sources are not asked.
    public static func makeURLSources(_ make: @escaping @Sendable (String) -> (any ChartDataSource)?) {
        urlSourceMaker.withLock { $0 = make }
    }
    static let urlSourceMaker = Mutex<(@Sendable (String) -> (any ChartDataSource)?)?>(nil)

    /// What an answering source calls after posting its answer (the transport sets it:
    /// it wakes its loop, which then calls `collectPulls`).
    public static func onPullAnswered(_ wake: @escaping @Sendable () -> Void) { pullWake.withLock { $0 = wake } }
    static let pullWake = Mutex<(@Sendable () -> Void)?>(nil)

    /// Attaches a source to a series (nil: detaches it). Its coverage starts as what
    /// the series holds.
    public func setDataSource(_ source: (any ChartDataSource)?, for series: String) {
        pulls.attached[series] = source
        if source != nil, let i = chart.seriesIndex(series), chart.series[i].pullCoverage == nil {
            chart.withSeries(i) { $0.startCoverage() }
        }
    }

    /// The bounds pulling keeps to (tests shorten them).
    public var pullLimits: PullLimits {
        get { pulls.limits }
        set { pulls.limits = newValue }
    }

    /// Each pulling series' state (`GET /api/stats`).
    public var pullStates: [(series: String, state: PullState)] {
        pulls.states.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A pulling series' state as JSON (`GET /api/stats`, `GET /api/sessions/{s}`):
    /// requests, answers, failures, points taken, the request out, the last error and
    /// the ranges held; nil when it does not pull.
    public func pullJSON(series id: String) -> JSONValue? {
        guard let i = chart.seriesIndex(id) else { return nil }
        let s = chart.series[i]
        guard s.source != nil || pulls.attached[id] != nil else { return nil }
        let st = pulls.states[id] ?? PullState()
        var m: [(String, JSONValue)] = [
            ("requests", .int(Int64(st.requests))), ("answers", .int(Int64(st.answers))),
            ("failures", .int(Int64(st.failed))), ("points", .int(Int64(st.points))),
            ("inFlight", st.inFlight.map { .array([.number($0.from), .number($0.to)]) } ?? .null),
            ("held", .array((s.pullCoverage?.ranges ?? []).prefix(64).map { .array([.number($0.lowerBound), .number($0.upperBound)]) })),
        ]
        if let e = st.lastError { m.append(("lastError", .string(e))) }
        if let url = s.source { m.insert(("source", .string(url)), at: 0) }
        return .object(m)
    }

    /// A warning per series whose last request to its source failed (and has not been
    /// answered since): `GET /api/sessions` and `GET /api/sessions/{s}` list them.
    public var pullWarnings: [String] {
        pulls.states.sorted { $0.key < $1.key }.compactMap { id, st in
            guard st.failures > 0, let e = st.lastError, let i = chart.seriesIndex(id) else { return nil }
            return "$.chart.series[\(i)].source: the last request failed (\(st.failures) in a row): \(e)"
        }
    }

    /// Whether a series of this session pulls (and the transport should call `runPulls`).
    public var pullsData: Bool {
        !pulls.attached.isEmpty || chart.series.contains { $0.source != nil }
    }

    func source(for s: Series) -> (any ChartDataSource)? {
        if let a = pulls.attached[s.id] { return a }
        guard let url = s.source else { pulls.made[s.id] = nil; return nil }
        if let m = pulls.made[s.id], m.url == url { return m.source }
        guard let make = Self.urlSourceMaker.withLock({ $0 }), let made = make(url) else { return nil }
        pulls.made[s.id] = (url, made)
        return made
    }

    /// Asks sources for what the chart's x ranges show and their series lack (at most
    /// one request out per series, debounced, backing off after failures). Emits
    /// `dataLoading` for each request. Call it on the session's thread, on a clock.
    public func runPulls(now: Double) {
        guard pullsData else { return }
        // What is shown: the session's chart, then each independent view (not one a
        // render thread is drawing now: it is asked at the next turn).
        var shown: [[String: DoubleRange]]?
        for s in chart.series where !s.isHidden && s.data.ordered {
            guard let source = source(for: s) else { continue }
            if shown == nil {
                shown = [chart.resolvedRanges()]
                for v in viewers.values.sorted(by: { $0.id < $1.id }) {
                    if let view = v.view, !view.rendering { shown?.append(view.chart.resolvedRanges()) }
                }
            }
            let coverage = s.pullCoverage ?? PullCoverage()
            let candidates = (shown ?? []).compactMap { ranges -> ClosedRange<Double>? in
                guard let r = ranges[s.xAxisId], r.min.isFinite, r.max.isFinite, r.min <= r.max else { return nil }
                return r.min...r.max
            }
            // The first range shown that lacks something (the shared view first).
            guard let r = candidates.first(where: { !coverage.covers($0) }) ?? candidates.first else { continue }
            var state = pulls.states[s.id] ?? PullState()
            let gap = state.next(visible: r, coverage: coverage, now: now, limits: pulls.limits)
            guard let gap else { pulls.states[s.id] = state; continue }
            let request = PullRequest(session: id, series: s.id, fields: s.kind.valueFields, from: gap.lowerBound, to: gap.upperBound,
                                      maxPoints: pulls.limits.maxPoints)
            state.started(request)
            pulls.states[s.id] = state
            chart.emit(.dataLoading(series: s.id, from: gap.lowerBound, to: gap.upperBound))
            let inbox = pulls.inbox
            source.dataPoints(for: request) { answer in
                inbox.post(request, answer)
                Session.pullWake.withLock { $0 }?()
            }
        }
    }

    /// Whether answers wait for `collectPulls`.
    public var hasPullAnswers: Bool { !pulls.inbox.isEmpty }

    /// Takes the answers that arrived: points enter through the one door
    /// (`SessionInput.pull`); a failure, or points the session refuses, is noted in the
    /// series' state (`lastError`, `GET /api/stats`) and returned, for the log.
    /// Returns the failures as (series, message).
    @discardableResult
    public func collectPulls(now: Double) -> [(series: String, message: String)] {
        let answers = pulls.inbox.take()
        var failures: [(String, String)] = []
        for (request, answer) in answers {
            var state = pulls.states[request.series] ?? PullState()
            guard state.inFlight == request else { continue }  // the series was redefined meanwhile
            var failure: String?
            var count = 0
            switch answer {
            case let .failure(why): failure = why
            case let .points(xs, values):
                do {
                    let kept = try Self.pulledPoints(xs: xs, values: values, request: request)
                    count = kept.xs.count
                    try submit(.pull(series: request.series, from: request.from, to: request.to, xs: kept.xs, values: kept.values))
                } catch let e as SessionInputError {
                    failure = e.description
                } catch {
                    failure = "\(error)"
                }
            }
            state.finished(failure: failure, points: count, now: now, limits: pulls.limits)
            pulls.states[request.series] = state
            if let failure { failures.append((request.series, failure)) }
        }
        return failures
    }

    /// An answer's points, checked: as many value columns as fields, each as long as
    /// x, at most `maxPoints`, x finite and sorted; points outside the range asked for
    /// are left out.
    static func pulledPoints(xs: [Double], values: [[Double]], request: PullRequest) throws(SessionInputError) -> (xs: [Double], values: [[Double]]) {
        guard values.count == request.fields.count else {
            throw .refused("the answer has \(values.count) value columns; a point of this series has \(request.fields.joined(separator: ", "))")
        }
        for (k, column) in values.enumerated() where column.count != xs.count {
            throw .refused("the answer has \(xs.count) x and \(column.count) \(request.fields[k])")
        }
        guard xs.count <= request.maxPoints else {
            throw .refused("the answer has \(xs.count) points; at most \(request.maxPoints) are taken")
        }
        var previous = -Double.infinity
        for (i, x) in xs.enumerated() {
            guard x.isFinite else { throw .refused("x[\(i)] is not a finite number") }
            guard x >= previous else { throw .refused("x[\(i)] is below x[\(i - 1)]: a source answers points in x order") }
            previous = x
        }
        let lo = xs.partitionPoint { $0 < request.from }, hi = xs.partitionPoint { $0 <= request.to }
        if lo == 0, hi == xs.count { return (xs, values) }
        return (Array(xs[lo..<hi]), values.map { Array($0[lo..<hi]) })
    }
}

extension Array where Element == Double {
    /// The first index whose element fails `below` (the elements are partitioned by it).
    func partitionPoint(_ below: (Double) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if below(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension Series {
    /// Starts tracking what the series holds: the range of its points.
    mutating func startCoverage() {
        var c = PullCoverage()
        if let r = data.xRange { c.insert(r.min...r.max) }
        pullCoverage = c
    }

    /// A source's points for `from...to` in place of those held there (the source is
    /// the authority on the ranges it answers), and the range marked held.
    mutating func mergePulled(from: Double, to: Double, xs: [Double], values: [[Double]]) throws(AppendError) {
        try checkValues(count: xs.count, values: values)
        if let i = xs.firstIndex(where: { !$0.isFinite || $0 < from || $0 > to }) { throw .nonFinite(field: "x", index: i) }
        for i in xs.indices.dropFirst() where xs[i] < xs[i - 1] { throw .xNotSorted(index: i) }
        let lo = data.lowerBound(from), hi = data.upperBound(to)
        if lo == hi {
            if !xs.isEmpty {
                try data.validateInsert(at: lo, xs: xs, ys: values[0])
                try insert(at: lo, xs: xs, values: values)
            }
        } else {
            let all = ([data] + more).map(\.arrays.ys), allX = data.arrays.xs
            let newX = Array(allX[..<lo]) + xs + Array(allX[hi...])
            let newValues = all.indices.map { k in Array(all[k][..<lo]) + values[k] + Array(all[k][hi...]) }
            try replaceAll(xs: newX, values: newValues)
        }
        if pullCoverage == nil { startCoverage() }
        pullCoverage?.insert(from...to)
    }
}

/// The server's own demo pull source (`GET /api/demo/points`, and the gallery's
/// `gallery-pull` session): a made-up history of minute readings, the same for any
/// range asked (a pure function of x), so a zoom or pan anywhere finds data.
public enum DemoHistory {
    /// Seconds between points.
    public static let step = 60.0
    /// Most points in one answer (a wider range is refused: 100,000 minutes, 69 days).
    public static let maxPoints = 100_000

    /// The points with x (Unix seconds) in `from...to`, on whole minutes.
    public static func points(from: Double, to: Double) -> (xs: [Double], ys: [Double])? {
        guard from.isFinite, to.isFinite, from <= to else { return nil }
        let first = (from / step).rounded(.up), last = (to / step).rounded(.down)
        guard last - first < Double(maxPoints) else { return nil }
        guard first <= last else { return ([], []) }
        let xs = stride(from: first, through: last, by: 1).map { $0 * step }
        return (xs, xs.map(value))
    }

    /// The reading at `x`: a daily swing, an hourly ripple and a little noise hashed
    /// from the minute (no state: any range gives the same values).
    public static func value(_ x: Double) -> Double {
        let day = 86_400.0
        var h = UInt64(bitPattern: Int64(x / step)) &* 0x9E37_79B9_7F4A_7C15
        h ^= h >> 29; h = h &* 0xBF58_476D_1CE4_E5B9; h ^= h >> 32
        let noise = Double(h % 10_000) / 10_000 - 0.5
        let v = 50 + 22 * sin(2 * .pi * x / day) + 6 * sin(2 * .pi * x / 3_700) + 3 * noise
        return (v * 1000).rounded() / 1000
    }
}

/// `DemoHistory` as an in-process source (tests, and a Swift program's example).
public final class DemoHistorySource: ChartDataSource {
    public init() {}
    public func dataPoints(for request: PullRequest, reply: @escaping @Sendable (PullAnswer) -> Void) {
        guard let p = DemoHistory.points(from: request.from, to: request.to) else {
            reply(.failure("the range \(request.from)...\(request.to) holds more than \(DemoHistory.maxPoints) minutes"))
            return
        }
        reply(.points(xs: p.xs, values: [p.ys]))
    }
}

import LayoutEngine

/// Every change to a session's state, as one value (docs/architecture.md, "The one
/// door"). The HTTP routes, publishers, live control, shared gestures and the clock of
/// generated data all submit one of these; the session writes it to its change log
/// (`SessionJournal`) and then applies it. A session's state is a deterministic function
/// of its snapshot (`SessionSnapshot`) and the inputs logged after it: the same inputs
/// in the same order give the same chart, byte for byte.
public enum SessionInput: Equatable, Sendable {
    /// Creates the session, or replaces its whole definition (`POST`, `PUT`): a spec.
    case define(spec: JSONValue)
    /// A partial spec over the session's (`PATCH`, the `patch` message).
    case patch(JSONValue)
    /// Stops hosting the session.
    case delete
    /// Points appended to a series (`values` in the order of the kind's value fields).
    case append(series: String, xs: [Double], values: [[Double]])
    case insert(series: String, index: Int, xs: [Double], values: [[Double]])
    case update(series: String, index: Int, values: [[Double]])
    case removeFirst(series: String, count: Int)
    case clear(series: String)
    case replaceData(series: String, xs: [Double], values: [[Double]])
    /// A pull source's answer for `from...to` (`ChartDataSource`): its points replace
    /// those the series held there, and the range counts as held.
    case pull(series: String, from: Double, to: Double, xs: [Double], values: [[Double]])
    /// An InfluxDB line-protocol body, with the precision and the clock reading (Unix
    /// seconds) its lines without a timestamp take: replaying it parses the same bytes
    /// and stores the same points.
    case write(body: [UInt8], precision: LineProtocolPrecision, now: Double)
    /// The shared view after a controller's gesture (the resulting state, not the
    /// gesture): ranges, visibility, selection, a pie's turn.
    case view(SharedViewState)
    /// The session clock of generated data: generators emit what is due `elapsed`
    /// seconds after the session's start (`startedAt` in Unix seconds, for generators of
    /// Unix time).
    case clock(elapsed: Double, startedAt: Double)
    /// What frames were drawn with that the chart keeps for the next ones: the widest
    /// and narrowest labels each axis showed (`labelSpace`) and where the legend stood at
    /// each size (its hysteresis). Proposed by the node that drew them, after the frame
    /// (`Chart.takePresented`), so every node and every replay draws the same version
    /// with the same of both.
    case presented(PresentedState)

    /// Whether this input changes series data only (an append and the data operations).
    public var isData: Bool {
        switch self {
        case .append, .insert, .update, .removeFirst, .clear, .replaceData, .pull, .write, .clock: return true
        default: return false
        }
    }
}

/// The shared view state of a session's chart: what a pan, zoom, click or legend toggle
/// of a controller leaves behind. A glide in flight and hovers are not part of it.
public struct SharedViewState: Equatable, Sendable {
    public struct SeriesState: Equatable, Sendable {
        public var id: String
        public var isHidden: Bool
        public var isSelected: Bool
        public var selectedPoints: [Int]
        public var selectedSlices: [Int]
        public var rotation: Double
        public init(id: String, isHidden: Bool, isSelected: Bool, selectedPoints: [Int], selectedSlices: [Int], rotation: Double) {
            self.id = id; self.isHidden = isHidden; self.isSelected = isSelected
            self.selectedPoints = selectedPoints; self.selectedSlices = selectedSlices; self.rotation = rotation
        }
    }
    /// Each axis' user range by axis id (nil: the axis follows its data).
    public var ranges: [(axis: String, range: DoubleRange?)]
    public var series: [SeriesState]

    public init(ranges: [(axis: String, range: DoubleRange?)], series: [SeriesState]) {
        self.ranges = ranges; self.series = series
    }

    public static func == (a: SharedViewState, b: SharedViewState) -> Bool {
        a.series == b.series && a.ranges.count == b.ranges.count
            && zip(a.ranges, b.ranges).allSatisfy { $0.axis == $1.axis && $0.range == $1.range }
    }
}

/// The presentation memory a `.presented` input carries (see `Chart.applyPresented`).
public struct PresentedState: Equatable, Sendable {
    public struct LabelExtent: Equatable, Sendable {
        public var axis: String
        public var extent: ClosedRange<Double>
        public init(axis: String, extent: ClosedRange<Double>) { self.axis = axis; self.extent = extent }
    }
    public struct LegendPlace: Equatable, Sendable {
        public var size: Size
        /// nil: no legend at this size.
        public var shown: Chart.ShownLegend?
        public init(size: Size, shown: Chart.ShownLegend?) { self.size = size; self.shown = shown }
    }
    public var labels: [LabelExtent]
    public var legends: [LegendPlace]
    public init(labels: [LabelExtent], legends: [LegendPlace]) { self.labels = labels; self.legends = legends }
}

/// Where a session's inputs are logged (the server's store; nil: memory only). The
/// session records an input, then applies it; an input the session refuses is withdrawn
/// (it was not committed yet: the store commits before any answer leaves).
public protocol SessionJournal: AnyObject {
    func record(_ input: SessionInput, session: String)
    /// The last input recorded for `session` was refused: it is not part of the log.
    func withdrawLast(session: String)
    /// Whether this process runs the session's clock (generators) now. In a cluster one
    /// node at a time does (its lease, docs/cluster.md); the others apply its `.clock`
    /// inputs from the log.
    func runsClock(session: String) -> Bool
    /// Why the log cannot take inputs for `session` now (a cluster node without its
    /// Redis), or nil. Submitted inputs are then refused (`unavailable`), not applied.
    func refusal(session: String) -> String?
    /// Whether a `.presented` input is applied only once the log has taken it, rather
    /// than at once (`Session.submitPresented`). A cluster node defers it: nodes drawing
    /// the same size propose the same at the same moment, and the one whose entry Redis
    /// refuses drops its proposal (it applies the other's) instead of reloading the session.
    func defersPresented(session: String) -> Bool
}

extension SessionJournal {
    public func runsClock(session: String) -> Bool { true }
    public func refusal(session: String) -> String? { nil }
    public func defersPresented(session: String) -> Bool { false }
}

/// Why an input was refused. Nothing of a refused input is applied.
public enum SessionInputError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownSession(String)
    case unknownSeries(String)
    /// The point budget (`SessionLimits.sessionPoints`, `serverPoints`) would be passed.
    case pointBudget(String)
    /// Any other refusal (a bad spec, patch, batch or line), with its precise message.
    case refused(String)
    /// The change log cannot take changes now (a cluster node without Redis): nothing
    /// was applied; the sender may retry later.
    case unavailable(String)

    init(_ e: SessionError) {
        switch e {
        case let .unknownSession(id): self = .unknownSession(id)
        case let .unknownSeries(id): self = .unknownSeries(id)
        case let .pointBudget(message): self = .pointBudget(message)
        case .badAppend: self = .refused(e.description)
        }
    }

    /// The HTTP status that answers it.
    public var status: Int {
        switch self {
        case .unknownSession, .unknownSeries: return 404
        case .pointBudget: return 413
        case .refused: return 400
        case .unavailable: return 503
        }
    }

    public var description: String {
        switch self {
        case let .unknownSession(id): return "no session \"\(id)\""
        case let .unknownSeries(id): return "no series \"\(id)\" in this session"
        case let .pointBudget(message), let .refused(message), let .unavailable(message): return message
        }
    }
}

/// What an applied input did, for the answer to its sender.
public struct SessionInputResult: Equatable, Sendable {
    /// Points stored (append, insert, update, replace, write) or removed (removeFirst, clear).
    public var count = 0
    /// The chart's version after it.
    public var version: UInt64 = 0
    /// What a line-protocol write stored.
    public var write: Session.LineProtocolWrite? = nil
    /// A `define` made a new session (rather than redefining one).
    public var created = false
}

extension Session {
    /// Refuses a live definition or patch naming a crosshair class this program has not
    /// registered (`CrosshairModifier.checkClasses`). At the door, not in `apply`: a
    /// replay (a restart, a cluster node following the log) rebuilds what was taken
    /// whatever the program registers now.
    static func checkHooks(_ input: SessionInput) throws(SessionInputError) {
        switch input {
        case let .define(json), let .patch(json):
            do { try CrosshairModifier.checkClasses(in: json) } catch { throw .refused(error.description) }
        default: return
        }
    }

    /// The one door: logs `input` in the session's journal, then applies it. A refused
    /// input is withdrawn from the log and changes nothing.
    @discardableResult
    public func submit(_ input: SessionInput) throws(SessionInputError) -> SessionInputResult {
        if let why = journal?.refusal(session: id) { throw .unavailable(why) }
        try Self.checkHooks(input)
        // (A proposal logged before this input is applied before it, in the log's order.)
        applyPendingPresented()
        if case .define = input {
            // A redefinition is a new baseline (the log starts again from the spec): it is
            // logged once it is known to be taken.
            let result = try apply(input)
            journal?.record(input, session: id)
            return result
        }
        journal?.record(input, session: id)
        do {
            let result = try apply(input)
            return result
        } catch {
            journal?.withdrawLast(session: id)
            throw error
        }
    }

    /// Applies one input (live, or replayed from the log: the same function). `define`
    /// redefines this session; `delete` is the hub's (`SessionHub.submit`).
    @discardableResult
    public func apply(_ input: SessionInput) throws(SessionInputError) -> SessionInputResult {
        var result = SessionInputResult()
        func series(_ id: String) throws(SessionInputError) {
            guard chart.seriesIndex(id) != nil else { throw .unknownSeries(id) }
        }
        /// `growth`: how many points the change adds, for the point budget.
        func changing(_ id: String, growth: Int = 0, _ body: (inout Series) throws(AppendError) -> Void) throws(SessionInputError) {
            try series(id)
            do { try change(seriesId: id, growth: growth, body) } catch { throw SessionInputError(error) }
        }
        switch input {
        case let .define(spec):
            let decoded: SessionSpec
            do { decoded = try ConfigSpec.decodeSession(spec, runtime: true) } catch { throw .refused(error.description) }
            guard decoded.id == id else { throw .refused("$.id: the spec's id must be \"\(id)\"") }
            do { try replace(with: decoded) } catch { throw .refused(error.description) }
        case let .patch(patch):
            do { try applyPatch(patch) } catch { throw .refused(error.description) }
        case .delete:
            break
        case let .append(id, xs, values):
            try series(id)
            do { result.count = try append(seriesId: id, xs: xs, values: values) } catch { throw SessionInputError(error) }
        case let .insert(id, index, xs, values):
            try changing(id, growth: xs.count) { (s: inout Series) throws(AppendError) in try s.insert(at: index, xs: xs, values: values) }
            result.count = xs.count
        case let .update(id, index, values):
            try changing(id) { (s: inout Series) throws(AppendError) in try s.update(at: index, values: values) }
            result.count = values.first?.count ?? 0
        case let .removeFirst(id, n):
            try changing(id) { (s: inout Series) throws(AppendError) in try s.removeFirst(n) }
            result.count = n
        case let .clear(id):
            try series(id)
            result.count = chart.series[chart.seriesIndex(id)!].data.count
            try changing(id) { (s: inout Series) throws(AppendError) in s.clear() }
        case let .replaceData(id, xs, values):
            try series(id)
            let before = chart.series[chart.seriesIndex(id)!].data.count
            try changing(id, growth: xs.count - before) { (s: inout Series) throws(AppendError) in try s.replaceAll(xs: xs, values: values) }
            result.count = xs.count
        case let .pull(id, from, to, xs, values):
            guard from <= to, from.isFinite, to.isFinite else { throw .refused("a pulled range needs finite from <= to") }
            if let i = xs.firstIndex(where: { !($0 >= from && $0 <= to) }) {
                throw .refused("x[\(i)] = \(xs[i]) lies outside the range pulled, \(from)...\(to)")
            }
            try series(id)
            let s = chart.series[chart.seriesIndex(id)!]
            guard s.data.ordered else { throw .refused("series \"\(id)\" is an unsorted line: it takes no pulled points") }
            let held = s.data.upperBound(to) - s.data.lowerBound(from)
            try changing(id, growth: xs.count - held) { (s: inout Series) throws(AppendError) in
                try s.mergePulled(from: from, to: to, xs: xs, values: values)
            }
            result.count = xs.count
        case let .write(body, precision, now):
            let lines: [LineProtocolLine]
            do { lines = try LineProtocol.parse(body, precision: precision) } catch { throw .refused(error.description) }
            do { result.write = try write(lines, now: now) } catch { throw .refused(error.description) }
            result.count = result.write?.accepted ?? 0
        case let .presented(p):
            chart.applyPresented(p)
        case let .view(state):
            finishRendering()
            chart.restoreViewState(state)
        case let .clock(elapsed, startedAt):
            if startTime == nil { startUnixTime = startedAt }
            clockElapsed = elapsed
            result.count = chart.runGenerators(elapsed: elapsed, startedAt: startedAt)
            if result.count > 0 { dataArrived = true }
        }
        switch input {
        case .define, .patch, .write, .view: loggedView = chart.sharedViewState
        default: break
        }
        // Automatic ranges settle at each input (a clock tick that brought nothing was no
        // change: it is withdrawn from the log, so it settles nothing either).
        if case .clock = input, result.count == 0 {} else { chart.commitRanges() }
        result.version = chart.version
        return result
    }

    /// Logs the shared view if a gesture or a glide changed it since it was last logged.
    func noteViewChange() {
        let state = chart.sharedViewState
        guard state != loggedView else { return }
        applyPendingPresented()
        loggedView = state
        // (Where the `.view` is applied the automatic ranges settle after it too.)
        chart.commitRanges()
        journal?.record(.view(state), session: id)
    }
}

extension Chart {
    /// The shared view state of this chart (see `SharedViewState`).
    public var sharedViewState: SharedViewState {
        SharedViewState(ranges: axes.map { ($0.id, $0.userRange) },
                        series: series.map { s in
                            .init(id: s.id, isHidden: s.isHidden, isSelected: s.isSelected, selectedPoints: s.selectedPoints.sorted(),
                                  selectedSlices: s.selectedSlices.sorted(), rotation: s.style.rotation)
                        })
    }

    /// Takes a shared view state: axes and series are matched by id; those it does not
    /// name keep theirs.
    func restoreViewState(_ state: SharedViewState) {
        suspendUpdates {
            for (id, range) in state.ranges {
                guard let i = axes.firstIndex(where: { $0.id == id }), axes[i].userRange != range else { continue }
                if let range { setUserRange(id, range) } else { resetUserRange(id) }
            }
            for s in state.series {
                guard let i = seriesIndex(s.id) else { continue }
                let before = Chart.SeriesView(series[i])
                withSeries(i) { t in
                    t.isSelected = s.isSelected
                    t.selectedPoints = Set(s.selectedPoints)
                    t.selectedSlices = Set(s.selectedSlices)
                    t.style.rotation = s.rotation
                    if t.isHidden != s.isHidden { t.isHidden = s.isHidden; t.animation = nil }
                }
                if before.isHidden != s.isHidden { updateStacks() }
                if Chart.SeriesView(series[i]) != before { touch() }
            }
        }
    }
}

extension SessionHub {
    /// The one door at the hub: `define` creates a session (with `make`) or redefines
    /// one, `delete` removes one; every other input goes to its session's `submit`.
    /// Each is logged in `journal` before it is applied.
    @discardableResult
    public func submit(_ input: SessionInput, session id: String,
                       make: (SessionSpec) -> Session) throws(SessionInputError) -> SessionInputResult {
        if let why = journal?.refusal(session: id) { throw .unavailable(why) }
        try Session.checkHooks(input)
        switch input {
        case let .define(spec) where session(id) == nil:
            let decoded: SessionSpec
            do { decoded = try ConfigSpec.decodeSession(spec, runtime: true) } catch { throw .refused(error.description) }
            guard decoded.id == id else { throw .refused("$.id: the spec's id must be \"\(id)\"") }
            journal?.record(input, session: id)
            let made = make(decoded)
            add(made)
            return SessionInputResult(version: made.chart.version, created: true)
        case .delete:
            guard session(id) != nil else { throw .unknownSession(id) }
            journal?.record(input, session: id)
            remove(id)
            return SessionInputResult()
        default:
            guard let s = session(id) else { throw .unknownSession(id) }
            return try s.submit(input)
        }
    }
}

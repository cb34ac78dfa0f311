import Synchronization

/// The limits that keep one client from taking a server's memory or time
/// (docs/limits.md). Each has a name for `--limit NAME=VALUE`, a documented default,
/// and a precise error when it is reached; every refusal is counted in
/// `LimitCounters` (`GET /api/stats`, `refused`).
public struct SessionLimits: Equatable, Sendable {
    /// Values (numbers, strings, booleans, nulls, arrays, objects, object keys) in one
    /// JSON document read from a client: specs, patches, WebSocket messages. Checked by a
    /// scan before anything is built. The points of an append are read into columns
    /// without a value per number, so they are bounded by `Session.maxAppendPoints`
    /// instead. The default takes a spec carrying a million x/y points.
    public var jsonValues = 2_500_000
    /// Points held by a session's series that have no capacity, all together. An append
    /// past it is refused whole (HTTP 413); a series with a capacity counts its capacity.
    public var sessionPoints = 20_000_000
    /// Points all sessions of the server may hold in series without capacity.
    public var serverPoints = 100_000_000
    /// The capacity of a generated series whose spec gives none.
    public var generatorCapacity = 100_000
    /// Sessions one server hosts.
    public var sessions = 1_000
    /// Series of one chart.
    public var seriesPerChart = 10_000
    /// Axes (X and Y together) of one chart.
    public var axesPerChart = 1_000
    /// Annotations of one chart.
    public var annotationsPerChart = 10_000
    /// Distinct canvas sizes a session keeps rendered frames for; past it the least
    /// recently used size's cache is dropped (rebuilt if a viewer asks for it again).
    public var canvasSizes = 32
    /// Earlier versions of each layer a session keeps per canvas size, to send a viewer
    /// a few frames behind a patch from the version it holds; one further behind gets
    /// the layer whole, and its page draws it whole. A live chart changes its series at
    /// nearly every publication (up to 60 a second), while a page on a loaded machine
    /// draws 15-25 frames a second with two in flight, so it comes back holding a
    /// version several behind (more than 4, in ten pages of the live chart on a 2-core
    /// box); a whole series layer is the dearest frame a page draws (tens of ms for the
    /// monitoring chart's lines in software), which loads it more. The monitoring
    /// chart's series layer is some 90 KB a version at 1600x900.
    public var patchHistory = 12
    /// Points one data export (`data.csv`, `data.json`, `DataExport`) may write, all its
    /// series together; a larger export is refused (HTTP 413) before anything is written.
    public var exportPoints = 20_000_000

    public init() {}

    /// Each limit's `--limit` name, what it bounds, and its key path.
    public static var all: [(name: String, meaning: String, key: WritableKeyPath<SessionLimits, Int>)] { [
        ("jsonValues", "values in one JSON document", \.jsonValues),
        ("sessionPoints", "points in a session's series without capacity", \.sessionPoints),
        ("serverPoints", "points in all series without capacity on the server", \.serverPoints),
        ("generatorCapacity", "capacity of a generated series that gives none", \.generatorCapacity),
        ("sessions", "sessions on the server", \.sessions),
        ("seriesPerChart", "series of one chart", \.seriesPerChart),
        ("axesPerChart", "axes of one chart", \.axesPerChart),
        ("annotationsPerChart", "annotations of one chart", \.annotationsPerChart),
        ("canvasSizes", "canvas sizes a session keeps frames for", \.canvasSizes),
        ("patchHistory", "versions of a layer kept to patch viewers behind", \.patchHistory),
        ("exportPoints", "points in one data export", \.exportPoints),
    ] }

    public struct ParseError: Error, Equatable, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// Sets the limit `name` from the text of `--limit NAME=VALUE` (a whole number of
    /// at least 1).
    public mutating func set(name: String, value: String) throws(ParseError) {
        guard let entry = Self.all.first(where: { $0.name == name }) else {
            throw ParseError(message: "unknown limit \"\(name)\"; limits are " + Self.all.map(\.name).joined(separator: ", "))
        }
        guard let n = Int(value.replacingOccurrences(of: "_", with: "")), n >= 1 else {
            throw ParseError(message: "limit \(name): \"\(value)\" is not a whole number of at least 1")
        }
        self[keyPath: entry.key] = n
    }

    /// `--limit NAME=VALUE` as one string.
    public mutating func set(_ assignment: String) throws(ParseError) {
        guard let eq = assignment.firstIndex(of: "=") else {
            throw ParseError(message: "--limit takes NAME=VALUE (\"\(assignment)\" has no =)")
        }
        try set(name: String(assignment[..<eq]), value: String(assignment[assignment.index(after: eq)...]))
    }

    /// A copy with one limit parsed from its text (for the command line).
    public static func parse(name: String, value: String, into base: SessionLimits = SessionLimits()) throws(ParseError) -> SessionLimits {
        var l = base
        try l.set(name: name, value: value)
        return l
    }

    /// The mutex lives in an object, not in the static itself: Swift 6.3.1's optimizer
    /// folds `static let shared = Mutex(SessionLimits())` into a constant initializer
    /// and a release build then reads every limit as 0 until something assigns
    /// `current` (so a release program hosting charts refused every spec: "a chart has
    /// at most 0 axes"). An object's stored property is initialized at run time.
    private final class Shared: Sendable {
        let limits = Mutex(SessionLimits())
    }
    private static let shared = Shared()

    /// The limits the server runs with (set once from the command line, before any
    /// session; tests change them and put them back).
    public static var current: SessionLimits {
        get { shared.limits.withLock { $0 } }
        set { shared.limits.withLock { $0 = newValue } }
    }
}

/// How often each limit refused something, by limit name (`GET /api/stats`, `refused`).
public enum LimitCounters {
    private static let counts = Mutex<[String: Int]>([:])

    public static func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    public static var snapshot: [String: Int] { counts.withLock { $0 } }

    public static func reset() { counts.withLock { $0 = [:] } }

    /// The counts as JSON, every limit present (0 when never reached).
    public static var json: JSONValue {
        let s = snapshot
        var names = SessionLimits.all.map(\.name) + ["appendPoints", "eventGroup"]
        names += s.keys.filter { !names.contains($0) }.sorted()
        return .object(names.map { ($0, .int(Int64(s[$0] ?? 0))) })
    }
}

extension SessionLimits {
    /// How to raise the limit `name`, for error messages.
    public static func howToRaise(_ name: String) -> String { "the server's --limit \(name)=N raises it" }
}

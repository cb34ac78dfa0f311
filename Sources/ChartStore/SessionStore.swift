/// The storage seam (docs/architecture.md, "Storage"): where sessions' change logs,
/// specs, snapshots and data chunks are kept. The server talks to one `SessionStore`;
/// the embedded default is SQLite (`SQLiteStore`), tests use `MemoryStore`, and a
/// cluster keeps the same things in Redis (a stream of inputs per session, chunks and
/// snapshots in keys).
///
/// The store is bytes in, bytes out: it does not know what an input means (the session
/// codec, `SessionCodec`, does). Writes are buffered in order and made durable together
/// by `commit` (group commit): the server commits before it answers any sender whose
/// change is among them.
public protocol SessionStore: AnyObject {
    /// Every stored session, each with its latest snapshot and the log after it.
    func loadAll() throws(StoreError) -> [StoredSession]
    /// Creates or replaces a session: its spec (JSON text) and where it came from. Its
    /// log, snapshot and chunks start again empty.
    func define(_ id: String, origin: SessionOrigin, spec: [UInt8])
    /// Appends one input (`kind` is its first byte) to the session's log.
    func append(_ id: String, kind: UInt8, payload: [UInt8])
    /// Takes back the last input appended for `id` that was not committed yet (the
    /// session refused it).
    func withdrawLast(_ id: String)
    /// Forgets a session: spec, log, snapshot and chunks.
    func remove(_ id: String)
    /// A snapshot of the session as it is after every input appended so far: the log up
    /// to there is dropped, and the stored chunks change as `chunks` says (only what
    /// changed since the last snapshot is written).
    func snapshot(_ id: String, state: [UInt8], chunks: ChunkWrites)
    /// Writes buffered since the last commit.
    var hasPending: Bool { get }
    /// Makes every buffered write durable, in one transaction.
    func commit() throws(StoreError)
    /// What the session takes in the store.
    func usage(_ id: String) -> StoreUsage
}

public enum SessionOrigin: String, Sendable {
    /// From `--config` or the demo: the file's spec wins at start-up.
    case config
    /// Made at runtime (`POST`/`PUT /api/sessions`): restored as it was.
    case runtime
}

public struct StoreError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct StoredEntry: Equatable, Sendable {
    public var seq: Int64
    public var kind: UInt8
    public var payload: [UInt8]
    public init(seq: Int64, kind: UInt8, payload: [UInt8]) { self.seq = seq; self.kind = kind; self.payload = payload }
}

/// Points of one series as float64 columns (x, then each value field), little-endian.
public struct StoredChunk: Equatable, Sendable {
    public var series: String
    /// Key of its first point (its chunks' keys count the series' points).
    public var first: Int
    public var columns: [[UInt8]]
    public init(series: String, first: Int, columns: [[UInt8]]) { self.series = series; self.first = first; self.columns = columns }
    public var bytes: Int { columns.reduce(0) { $0 + $1.count } }
    /// Points it holds.
    public var points: Int { (columns.first?.count ?? 0) / 8 }
}

/// How a snapshot changes a session's stored chunks, applied in this order.
public struct ChunkWrites: Equatable, Sendable {
    /// Series whose chunks are all deleted (rewritten whole, or gone from the chart).
    public var clear: [String] = []
    /// Per series, chunks whose points all come before this key are deleted (points a
    /// FIFO series evicted).
    public var evict: [String: Int] = [:]
    /// New chunks (a chunk with the same series and first key is replaced).
    public var add: [StoredChunk] = []
    public init(clear: [String] = [], evict: [String: Int] = [:], add: [StoredChunk] = []) {
        self.clear = clear; self.evict = evict; self.add = add
    }
}

public struct StoredSnapshot: Equatable, Sendable {
    /// The last log sequence number it includes.
    public var seq: Int64
    public var state: [UInt8]
    public var chunks: [StoredChunk]
    public init(seq: Int64, state: [UInt8], chunks: [StoredChunk]) { self.seq = seq; self.state = state; self.chunks = chunks }
}

public struct StoredSession: Equatable, Sendable {
    public var id: String
    public var origin: SessionOrigin
    public var spec: [UInt8]
    public var snapshot: StoredSnapshot?
    /// Inputs after the snapshot, in order.
    public var log: [StoredEntry]
    public init(id: String, origin: SessionOrigin, spec: [UInt8], snapshot: StoredSnapshot?, log: [StoredEntry]) {
        self.id = id; self.origin = origin; self.spec = spec; self.snapshot = snapshot; self.log = log
    }
}

public struct StoreUsage: Equatable, Sendable {
    /// Log entries after the latest snapshot, and their bytes.
    public var logEntries = 0
    public var logBytes = 0
    /// Bytes of the snapshot's state and chunks, and of the spec.
    public var snapshotBytes = 0
    public var specBytes = 0
    public init() {}
    public var bytes: Int { logBytes + snapshotBytes + specBytes }
}

/// The buffered writes of a store, in order, for `commit`.
public enum StoreWrite: Sendable {
    case define(String, SessionOrigin, [UInt8])
    case append(String, seq: Int64, kind: UInt8, payload: [UInt8])
    case remove(String)
    case snapshot(String, seq: Int64, state: [UInt8], chunks: ChunkWrites)
}

/// Keeps the bookkeeping every store shares: the pending writes, each session's next
/// sequence number and its usage. A store subclasses it and writes `pending` in `commit`.
open class BufferedStore {
    public var pending: [StoreWrite] = []
    public var nextSeq: [String: Int64] = [:]
    public var usages: [String: StoreUsage] = [:]
    /// The stored chunks of each session: per series, first key to (points, bytes).
    public var rows: [String: [String: [Int: (points: Int, bytes: Int)]]] = [:]
    public init() {}

    /// Applies chunk writes to stored chunks (the stores and the bookkeeping alike).
    public static func apply<V>(_ w: ChunkWrites, to rows: inout [String: [Int: V]], points: (V) -> Int, make: (StoredChunk) -> V) {
        for series in w.clear { rows[series] = nil }
        for (series, key) in w.evict {
            rows[series] = rows[series]?.filter { first, v in first + points(v) > key }
        }
        for c in w.add { rows[c.series, default: [:]][c.first] = make(c) }
    }

    private func chunkBytes(_ id: String) -> Int {
        rows[id]?.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.bytes } } ?? 0
    }

    public var hasPending: Bool { !pending.isEmpty }

    public func define(_ id: String, origin: SessionOrigin, spec: [UInt8]) {
        pending.append(.define(id, origin, spec))
        nextSeq[id] = 1
        rows[id] = nil
        var u = StoreUsage()
        u.specBytes = spec.count
        usages[id] = u
    }

    public func append(_ id: String, kind: UInt8, payload: [UInt8]) {
        let seq = nextSeq[id, default: 1]
        nextSeq[id] = seq + 1
        pending.append(.append(id, seq: seq, kind: kind, payload: payload))
        usages[id, default: StoreUsage()].logEntries += 1
        usages[id, default: StoreUsage()].logBytes += payload.count
    }

    public func withdrawLast(_ id: String) {
        guard let i = pending.lastIndex(where: { if case let .append(s, _, _, _) = $0 { return s == id }; return false }),
              case let .append(_, seq, _, payload) = pending[i] else { return }
        pending.remove(at: i)
        nextSeq[id] = seq
        usages[id, default: StoreUsage()].logEntries -= 1
        usages[id, default: StoreUsage()].logBytes -= payload.count
    }

    public func remove(_ id: String) {
        pending.append(.remove(id))
        nextSeq[id] = nil
        usages[id] = nil
        rows[id] = nil
    }

    public func snapshot(_ id: String, state: [UInt8], chunks: ChunkWrites) {
        let seq = nextSeq[id, default: 1] - 1
        pending.append(.snapshot(id, seq: seq, state: state, chunks: chunks))
        Self.apply(chunks, to: &rows[id, default: [:]], points: \.points) { ($0.points, $0.bytes) }
        var u = usages[id] ?? StoreUsage()
        u.logEntries = 0
        u.logBytes = 0
        u.snapshotBytes = state.count + chunkBytes(id)
        usages[id] = u
    }

    public func usage(_ id: String) -> StoreUsage { usages[id] ?? StoreUsage() }

    /// Notes what was loaded (next sequence numbers, usage).
    public func noteLoaded(_ sessions: [StoredSession]) {
        for s in sessions {
            nextSeq[s.id] = max(s.log.last?.seq ?? 0, s.snapshot?.seq ?? 0) + 1
            var u = StoreUsage()
            u.specBytes = s.spec.count
            u.logEntries = s.log.count
            u.logBytes = s.log.reduce(0) { $0 + $1.payload.count }
            var stored: [String: [Int: (points: Int, bytes: Int)]] = [:]
            for c in s.snapshot?.chunks ?? [] { stored[c.series, default: [:]][c.first] = (c.points, c.bytes) }
            rows[s.id] = stored
            u.snapshotBytes = (s.snapshot?.state.count ?? 0) + chunkBytes(s.id)
            usages[s.id] = u
        }
    }
}

/// A store in memory, for tests: what it holds after `commit` is what a durable store
/// would hold on disk, and `loadAll` reads it back as after a restart. Writes not yet
/// committed are lost by `crash`.
public final class MemoryStore: BufferedStore, SessionStore {
    public private(set) var committed: [String: StoredSession] = [:]
    private var order: [String] = []
    public private(set) var commits = 0

    public override init() {}

    public func loadAll() throws(StoreError) -> [StoredSession] {
        let all = order.compactMap { committed[$0] }
        noteLoaded(all)
        return all
    }

    public func commit() throws(StoreError) {
        guard !pending.isEmpty else { return }
        for w in pending {
            switch w {
            case let .define(id, origin, spec):
                if committed[id] == nil { order.append(id) }
                committed[id] = StoredSession(id: id, origin: origin, spec: spec, snapshot: nil, log: [])
            case let .append(id, seq, kind, payload):
                committed[id]?.log.append(StoredEntry(seq: seq, kind: kind, payload: payload))
            case let .remove(id):
                committed[id] = nil
                order.removeAll { $0 == id }
            case let .snapshot(id, seq, state, writes):
                var byFirst: [String: [Int: StoredChunk]] = [:]
                for c in committed[id]?.snapshot?.chunks ?? [] { byFirst[c.series, default: [:]][c.first] = c }
                Self.apply(writes, to: &byFirst, points: \.points) { $0 }
                let chunks = byFirst.keys.sorted().flatMap { series in byFirst[series]!.keys.sorted().map { byFirst[series]![$0]! } }
                committed[id]?.snapshot = StoredSnapshot(seq: seq, state: state, chunks: chunks)
                committed[id]?.log.removeAll { $0.seq <= seq }
            }
        }
        pending = []
        commits += 1
    }

    /// Loses what was not committed (a process killed), as a restart would find it.
    public func crash() {
        pending = []
        nextSeq = [:]
        usages = [:]
        rows = [:]
    }
}

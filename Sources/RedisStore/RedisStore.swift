import ChartStore
import Foundation
import Synchronization

/// The cluster's store (docs/cluster.md): sessions' change logs in Redis, shared by
/// every node.
///
/// - `cw:sessions`: a hash, session id to its incarnation (a name unique to one
///   definition of the session: a `PUT` or a delete-and-create makes a new one).
/// - `cw:spec:{inc}`: the origin (`c` config, `r` runtime) and the spec's JSON.
/// - `cw:log:{inc}`: a stream of the session's inputs, one entry per input (a batch of
///   points is one input), field `i` holding the codec's bytes. Entry ids are `0-N`,
///   N the input's sequence number: the stream is contiguous, so a node knows it holds
///   every input before N, and an `XADD` of `0-N` fails when another node wrote N first.
/// - `cw:snap:{inc}`, `cw:chunks:{inc}`: the latest snapshot and its points'
///   chunks (`SnapshotManifest`); the stream is trimmed behind it, keeping a tail.
/// - `cw:size:{inc}`: the stream's entry sizes (16 bytes an entry: its N and the bytes
///   logged after the first record's entry through it), written by the append and trimmed with the
///   stream, so that the switch bounds the tail in bytes without reading entries back.
/// - `cw:lease:{session}`: the node that runs the session's clock (`SET NX PX`).
///
/// Writes are buffered (`BufferedStore`) and sent by `commitCluster` as one pipeline:
/// per session one Lua script that appends all of its inputs only if the session's
/// incarnation is still the one the node applied them to and no other node wrote the
/// first sequence number already (compare and append). Snapshots are written by
/// `commitSnapshots`, after the commit of the inputs they cover.
public final class RedisStore: BufferedStore, SessionStore {
    /// What a snapshot's switch keeps of the stream before its N (`--redis-tail`,
    /// `--redis-tail-bytes`): at most `entries` entries and at most `bytes` bytes of them.
    public struct StreamTail: Equatable, Sendable {
        public var entries: Int
        public var bytes: Int
        public init(entries: Int, bytes: Int) { self.entries = entries; self.bytes = bytes }
    }

    public let connection: RedisConnection
    public var address: RedisAddress { connection.address }
    /// This process' name in leases and incarnations.
    public let node: String
    private var made = 0
    /// The incarnation of each session as this node holds it.
    public var incs: [String: String] = [:]

    public init(_ address: RedisAddress, node: String? = nil) {
        connection = RedisConnection(address)
        self.node = node ?? String(UInt64.random(in: 0..<UInt64.max), radix: 36)
    }

    public static let sessionsKey = "cw:sessions"
    public static func logKey(_ inc: String) -> String { "cw:log:" + inc }
    public static func specKey(_ inc: String) -> String { "cw:spec:" + inc }
    public static func snapKey(_ inc: String) -> String { "cw:snap:" + inc }
    public static func chunksKey(_ inc: String) -> String { "cw:chunks:" + inc }
    public static func sizeKey(_ inc: String) -> String { "cw:size:" + inc }

    /// The snapshot this node knows to be the current one of each session: loaded, or
    /// written by it. `refs` nil: its chunks are not known here (another node wrote
    /// it), so this node's next snapshot rewrites every chunk.
    public struct KnownSnapshot: Equatable, Sendable {
        public var inc: String
        public var seq: Int64
        public var refs: [ChunkRef]?
        public init(inc: String, seq: Int64, refs: [ChunkRef]?) { self.inc = inc; self.seq = seq; self.refs = refs }
    }
    public var known: [String: KnownSnapshot] = [:]

    /// Appends a session's inputs (KEYS: sessions, log, sizes; ARGV: id, inc, the first
    /// N, the entries) and records their sizes (`cw:size:{inc}`, 16 bytes an entry: two
    /// big-endian doubles, its N and the bytes of the entries after the first record's
    /// through it; the first record's is 0). Records that are missing (a new session, or
    /// a stream an earlier build wrote) or whose last one is not N - 1's (entries
    /// written without sizes) start afresh with (N - 1, 0): the entries up to the first
    /// record's have unknown sizes (`snapshotScript`).
    static let appendScript = """
        if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return -1 end
        local n = tonumber(ARGV[3])
        local first = redis.pcall('XADD', KEYS[2], '0-' .. n, 'i', ARGV[4])
        if type(first) == 'table' and first.err then return 0 end
        for k = 5, #ARGV do redis.call('XADD', KEYS[2], '0-' .. (n + k - 4), 'i', ARGV[k]) end
        local last = redis.call('GETRANGE', KEYS[3], -16, -1)
        local cum = nil
        if #last == 16 then
          local ln, lc = struct.unpack('>dd', last)
          if ln == n - 1 then cum = lc end
        end
        local out = {}
        if not cum then cum = 0 out[1] = struct.pack('>dd', n - 1, 0) end
        for k = 4, #ARGV do
          cum = cum + #ARGV[k]
          out[#out + 1] = struct.pack('>dd', n + k - 4, cum)
        end
        if #out > #ARGV - 3 then redis.call('SET', KEYS[3], table.concat(out)) else redis.call('APPEND', KEYS[3], table.concat(out)) end
        return 1
        """
    static let defineScript = """
        local cur = redis.call('HGET', KEYS[1], ARGV[1])
        if (cur or '') ~= ARGV[2] then return 0 end
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
        redis.call('SET', 'cw:spec:' .. ARGV[3], ARGV[4])
        if cur then redis.call('DEL', 'cw:spec:' .. cur, 'cw:log:' .. cur, 'cw:snap:' .. cur, 'cw:chunks:' .. cur, 'cw:size:' .. cur) end
        return 1
        """
    static let removeScript = """
        local cur = redis.call('HGET', KEYS[1], ARGV[1])
        if cur ~= ARGV[2] then return 0 end
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('DEL', 'cw:spec:' .. cur, 'cw:log:' .. cur, 'cw:snap:' .. cur, 'cw:chunks:' .. cur, 'cw:size:' .. cur)
        return 1
        """
    /// Switches a session's snapshot (KEYS: sessions, snap, chunks, log, sizes; ARGV: id,
    /// inc, the snapshot's N it was computed against (0: none), its own N, the stream
    /// tail to keep in entries and in bytes, state, manifest, the number of manifest
    /// fields, those fields, then the fields this writer added): only if the incarnation
    /// and the current snapshot are the expected ones. Then the chunk fields the manifest
    /// does not name are deleted and the stream trimmed to the entries after N - tail
    /// and, when N's size is recorded, after the first entry J (from the first record's
    /// N0 on) whose record reaches N's less the byte bound (found by bisection: the
    /// entries J+1..N then hold at most that many bytes; entries up to N0 count as too
    /// big). The size records then start at the entry before the first one kept. Returns {1, N}, or {0,
    /// current N} when another snapshot came first (the added fields are deleted), or
    /// {-1, 0} when the session was redefined or deleted, or a chunk the manifest names
    /// is missing (its write failed): a manifest never names a chunk Redis lacks.
    static let snapshotScript = """
        if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
          for k = 10 + tonumber(ARGV[9]), #ARGV do redis.call('HDEL', KEYS[3], ARGV[k]) end
          return {-1, 0}
        end
        local cur = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
        local n = tonumber(ARGV[4])
        if cur ~= tonumber(ARGV[3]) or n <= cur then
          for k = 10 + tonumber(ARGV[9]), #ARGV do redis.call('HDEL', KEYS[3], ARGV[k]) end
          return {0, cur}
        end
        local keep = {}
        for k = 10, 9 + tonumber(ARGV[9]) do
          if redis.call('HEXISTS', KEYS[3], ARGV[k]) == 0 then
            for j = 10 + tonumber(ARGV[9]), #ARGV do redis.call('HDEL', KEYS[3], ARGV[j]) end
            return {-1, 0}
          end
          keep[ARGV[k]] = true
        end
        redis.call('HSET', KEYS[2], 'seq', ARGV[4], 'state', ARGV[7], 'chunks', ARGV[8])
        for _, f in ipairs(redis.call('HKEYS', KEYS[3])) do
          if not keep[f] then redis.call('HDEL', KEYS[3], f) end
        end
        local minid = n - tonumber(ARGV[5]) + 1
        local count = math.floor(redis.call('STRLEN', KEYS[5]) / 16)
        local n0 = 0
        if count >= 2 then n0 = struct.unpack('>d', redis.call('GETRANGE', KEYS[5], 0, 7)) end
        local function rec(i) return (struct.unpack('>d', redis.call('GETRANGE', KEYS[5], 16 * i + 8, 16 * i + 15))) end
        local i = n - n0
        if count >= 2 and i >= 1 and i < count then
          local target = rec(i) - tonumber(ARGV[6])
          local lo, hi = 0, i
          while lo < hi do
            local mid = math.floor((lo + hi) / 2)
            if rec(mid) >= target then hi = mid else lo = mid + 1 end
          end
          if n0 + lo + 1 > minid then minid = n0 + lo + 1 end
        end
        if minid > 1 then
          redis.call('XTRIM', KEYS[4], 'MINID', '0-' .. minid)
          local drop = minid - 1 - n0
          if count >= 2 and drop > 0 and drop < count then
            redis.call('SET', KEYS[5], redis.call('GETRANGE', KEYS[5], 16 * drop, -1))
          end
        end
        return {1, n}
        """
    static let leaseScript = """
        local cur = redis.call('GET', KEYS[1])
        if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
        if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
        return 0
        """

    // MARK: Reading

    public func loadAll() throws(StoreError) -> [StoredSession] {
        var all: [StoredSession] = []
        for (id, inc) in try registry().sorted(by: { $0.key < $1.key }) {
            guard let s = try load(id, inc: inc) else { continue }
            all.append(s)
        }
        noteLoaded(all)
        return all
    }

    /// Session id to incarnation.
    public func registry() throws(StoreError) -> [String: String] {
        let reply = try connection.read("HGETALL", Self.sessionsKey)
        return Self.pairs(reply)
    }

    static func pairs(_ reply: RedisValue) -> [String: String] {
        var map: [String: String] = [:]
        let items = reply.array ?? []
        var i = 0
        while i + 1 < items.count {
            if let k = items[i].text, let v = items[i + 1].text { map[k] = v }
            i += 2
        }
        return map
    }

    /// A session as stored for incarnation `inc` (nil: gone): its spec, its latest
    /// snapshot with its chunks, and the stream's entries after the snapshot. The
    /// snapshot's chunks and the stream tail are read in one round trip that ends by
    /// reading the snapshot's N again: if a newer snapshot replaced it meanwhile (its
    /// chunks may be gone, the stream trimmed past it) everything is read again, so a
    /// session is never loaded with a hole.
    public func load(_ id: String, inc: String) throws(StoreError) -> StoredSession? {
        for _ in 0..<Self.loadTries {
            let head = try connection.read([["GET", Self.specKey(inc)], ["HMGET", Self.snapKey(inc), "seq", "state", "chunks"]])
            guard let stored = head[0].bytes, !stored.isEmpty else { return nil }
            let origin: SessionOrigin = stored[0] == UInt8(ascii: "c") ? .config : .runtime
            let snap = head[1].array ?? []
            let seqText = snap.first?.text
            let seq = seqText.flatMap { Int64($0) } ?? 0
            var refs: [ChunkRef] = []
            if seqText != nil {
                do { refs = try SnapshotManifest.decode(snap.count > 2 ? snap[2].bytes ?? [] : []) } catch {
                    throw StoreError("the snapshot of session \"\(id)\" in \(address): \(error.description)")
                }
            }
            // The chunks (a few per read, so no reply is huge), the tail, the snapshot's N again.
            var reads: [[String]] = stride(from: 0, to: refs.count, by: 8).map { k in
                ["HMGET", Self.chunksKey(inc)] + refs[k..<min(refs.count, k + 8)].map(\.field)
            }
            reads.append(["XRANGE", Self.logKey(inc), seqText == nil ? "-" : "(0-\(seq)", "+"])
            reads.append(["HGET", Self.snapKey(inc), "seq"])
            let replies = try connection.read(reads)
            guard replies.last?.text == seqText else { continue }
            var chunks: [StoredChunk] = []
            var whole = true
            for (ref, value) in zip(refs, replies.dropLast(2).flatMap { $0.array ?? [] }) {
                guard let bytes = value.bytes, let columns = SnapshotManifest.columns(bytes, of: ref) else {
                    whole = false
                    break
                }
                chunks.append(StoredChunk(series: ref.series, first: ref.first, columns: columns))
            }
            let log = Self.entries(replies[replies.count - 2])
            guard whole, chunks.count == refs.count, log.first.map({ $0.seq == seq + 1 }) ?? true else { continue }
            known[id] = KnownSnapshot(inc: inc, seq: seq, refs: refs)
            return StoredSession(id: id, origin: origin, spec: Array(stored.dropFirst()),
                                 snapshot: seqText == nil ? nil : StoredSnapshot(seq: seq, state: snap.count > 1 ? snap[1].bytes ?? [] : [], chunks: chunks),
                                 log: log.map { StoredEntry(seq: $0.seq, kind: $0.payload.first ?? 0, payload: $0.payload) })
        }
        throw StoreError("redis at \(address): session \"\(id)\" kept changing its snapshot while it was read (\(Self.loadTries) tries)")
    }

    /// Reads of a session whose snapshot is replaced while they run are tried again this often.
    static let loadTries = 8

    /// The log of `inc` after sequence number `seq`.
    public func readLog(_ inc: String, after seq: Int64) throws(StoreError) -> [(seq: Int64, payload: [UInt8])] {
        Self.entries(try connection.read("XRANGE", Self.logKey(inc), "(0-\(seq)", "+"))
    }

    /// Stream entries (`[[id, [field, value]]...]`) as sequence numbers and payloads.
    static func entries(_ reply: RedisValue) -> [(seq: Int64, payload: [UInt8])] {
        (reply.array ?? []).compactMap { e in
            guard let parts = e.array, parts.count == 2, let id = parts[0].text,
                  let seq = Int64(id.split(separator: "-").last ?? ""), let fields = parts[1].array,
                  fields.count >= 2, let payload = fields[1].bytes else { return nil }
            return (seq, payload)
        }
    }

    // MARK: Leases

    /// Takes or renews the clock lease of each session (`SET NX PX`); returns those this
    /// node holds.
    public func leases(_ sessions: [String], ttlMs: Int) throws(StoreError) -> Set<String> {
        guard !sessions.isEmpty else { return [] }
        let replies = try connection.read(sessions.map { s in ["EVAL", Self.leaseScript, "1", "cw:lease:" + s, node, String(ttlMs)] })
        return Set(zip(sessions, replies).compactMap { $1.int == 1 ? $0 : nil })
    }

    // MARK: Writing

    public enum CommitOutcome: Equatable {
        case ok
        /// Sessions whose writes Redis refused (another node wrote first): their inputs
        /// (codec bytes) not logged, in order. Everything else was written.
        case conflicts([String: [[UInt8]]])
        /// Redis could not be reached: nothing is known to be written.
        case unavailable(String)
    }

    public func commit() throws(StoreError) {
        switch commitCluster() {
        case .ok: return
        case let .conflicts(c): throw StoreError("another node wrote to \(c.keys.sorted().joined(separator: ", ")) first")
        case let .unavailable(message): throw StoreError(message)
        }
    }

    private enum Op {
        case define(String, expected: String, new: String, spec: [UInt8])
        case append(String, inc: String, first: Int64, payloads: [[UInt8]])
        case remove(String, expected: String)
        var session: String {
            switch self { case let .define(s, _, _, _), let .append(s, _, _, _), let .remove(s, _): return s }
        }
    }

    /// Sends every buffered write in one pipeline and waits for Redis' replies.
    public func commitCluster() -> CommitOutcome {
        guard !pending.isEmpty else { return .ok }
        var ops: [Op] = []
        var lastOp: [String: Int] = [:]
        var incs = self.incs
        for w in pending {
            switch w {
            case let .define(id, origin, spec):
                made += 1
                let new = "\(node).\(made).\(Int(Date().timeIntervalSince1970 * 1000))"
                ops.append(.define(id, expected: incs[id] ?? "", new: new, spec: [origin == .config ? UInt8(ascii: "c") : UInt8(ascii: "r")] + spec))
                incs[id] = new
                lastOp[id] = ops.count - 1
            case let .append(id, seq, _, payload):
                if let i = lastOp[id], case .append(let s, let inc, let first, var payloads) = ops[i] {
                    payloads.append(payload)
                    ops[i] = .append(s, inc: inc, first: first, payloads: payloads)
                } else {
                    ops.append(.append(id, inc: incs[id] ?? "", first: seq, payloads: [payload]))
                    lastOp[id] = ops.count - 1
                }
            case let .remove(id):
                ops.append(.remove(id, expected: incs[id] ?? ""))
                incs[id] = nil
                lastOp[id] = ops.count - 1
            case .snapshot:
                continue
            }
        }
        let commands: [[[UInt8]]] = ops.map { op in
            switch op {
            case let .define(id, expected, new, spec):
                return ["EVAL", Self.defineScript, "1", Self.sessionsKey, id, expected, new].map { Array($0.utf8) } + [spec]
            case let .append(id, inc, first, payloads):
                return ["EVAL", Self.appendScript, "3", Self.sessionsKey, Self.logKey(inc), Self.sizeKey(inc), id, inc, String(first)].map { Array($0.utf8) } + payloads
            case let .remove(id, expected):
                return ["EVAL", Self.removeScript, "1", Self.sessionsKey, id, expected].map { Array($0.utf8) }
            }
        }
        let replies: [RedisValue]
        do { replies = try connection.pipeline(commands) } catch { return .unavailable(error.message) }
        pending = []
        var failed: [String: [[UInt8]]] = [:]
        var refused = Set<String>()
        for (op, reply) in zip(ops, replies) {
            let s = op.session
            if case let .error(message) = reply { return .unavailable("redis refused a write: \(message)") }
            if reply.int == 1, !refused.contains(s) {
                switch op {
                case let .define(id, _, new, _): self.incs[id] = new
                case let .remove(id, _): self.incs[id] = nil
                case .append: break
                }
                continue
            }
            refused.insert(s)
            if case let .append(_, _, _, payloads) = op { failed[s, default: []] += payloads } else { failed[s, default: []] += [] }
        }
        return failed.isEmpty ? .ok : .conflicts(failed)
    }

    /// Drops buffered writes (Redis refused or could not take them).
    public func discardPending() { pending = [] }

    public enum SnapshotOutcome: Equatable, Sendable {
        /// In place; the stream was trimmed behind it.
        case written
        /// Another snapshot (of this N) is current: this one was not written; this
        /// node's next snapshot of the session rewrites every chunk.
        case stale(Int64)
        /// Not written (Redis away, or the session redefined meanwhile).
        case failed(String)
    }

    /// A snapshot ready to be written (`prepareSnapshots`): its new chunks and the
    /// switch, computed on the event loop against the snapshot this node knows
    /// (`expected`), written by `writeSnapshot` on any thread and connection.
    public struct SnapshotJob: Sendable {
        public let id: String
        public let inc: String
        /// The N it covers, and the N of the snapshot it was computed against (0: none).
        public let seq: Int64
        public let expected: Int64
        let refs: [ChunkRef]
        /// `HSET`s of the new chunks, then the switch (`snapshotScript`); empty: the
        /// snapshot cannot be written against what this node knows (only checked).
        let commands: [[[UInt8]]]
    }

    /// Takes the buffered snapshots (`snapshot`, taken after the inputs they cover were
    /// committed) out of the pending writes, as jobs: per session its new chunks and
    /// the switch, which keeps at most `tail.entries` entries of the stream before N, and
    /// at most `tail.bytes` bytes of them.
    public func prepareSnapshots(tail: StreamTail) -> [SnapshotJob] {
        var jobs: [SnapshotJob] = []
        for w in pending {
            guard case let .snapshot(id, seq, state, writes) = w, let inc = incs[id] else { continue }
            let mine = known[id].flatMap { $0.inc == inc ? $0 : nil }
            let expected = mine?.seq ?? 0
            // (Writes that continue stored runs need the chunks they continue.)
            guard expected < seq, mine?.refs != nil || writes.evict.isEmpty else {
                jobs.append(SnapshotJob(id: id, inc: inc, seq: seq, expected: expected, refs: [], commands: []))
                continue
            }
            let (refs, added) = SnapshotManifest.next(mine?.refs ?? [], writes, prefix: "\(node).\(seq).")
            var commands: [[[UInt8]]] = added.map { a in [Array("HSET".utf8), Array(Self.chunksKey(inc).utf8), Array(a.field.utf8), a.bytes] }
            let args: [String] = ["EVAL", Self.snapshotScript, "5", Self.sessionsKey, Self.snapKey(inc), Self.chunksKey(inc), Self.logKey(inc),
                                  Self.sizeKey(inc), id, inc, String(expected), String(seq), String(tail.entries), String(tail.bytes)]
            commands.append(args.map { Array($0.utf8) } + [state, SnapshotManifest.encode(refs), Array(String(refs.count).utf8)]
                            + refs.map { Array($0.field.utf8) } + added.map { Array($0.field.utf8) })
            jobs.append(SnapshotJob(id: id, inc: inc, seq: seq, expected: expected, refs: refs, commands: commands))
        }
        pending.removeAll { if case .snapshot = $0 { return true }; return false }
        return jobs
    }

    /// Writes a snapshot on `connection`: first whether the snapshot it was computed
    /// against is still the current one (one round trip), then its new chunks and the
    /// switch in one pipeline. A snapshot is never needed for correctness: one that
    /// fails leaves the previous one and a longer stream.
    public static func writeSnapshot(_ job: SnapshotJob, on connection: RedisConnection) -> SnapshotOutcome {
        let now: Int64
        do { now = try connection.read("HGET", snapKey(job.inc), "seq").text.flatMap { Int64($0) } ?? 0 } catch { return .failed(error.message) }
        guard now == job.expected, now < job.seq, !job.commands.isEmpty else { return .stale(now) }
        let replies: [RedisValue]
        do { replies = try connection.pipeline(job.commands) } catch { return .failed(error.message) }
        let reply = replies.last?.array?.compactMap(\.int) ?? []
        switch reply.first {
        case 1: return .written
        case 0: return .stale(reply.count > 1 ? reply[1] : 0)
        default:
            if case let .error(message) = replies.last { return .failed("redis refused a snapshot: \(message)") }
            return .failed("the session was redefined or deleted meanwhile, or a chunk was not written")
        }
    }

    /// Notes what a snapshot's write came to (on the thread that owns this store).
    public func finishSnapshot(_ job: SnapshotJob, _ outcome: SnapshotOutcome) {
        switch outcome {
        case .written: known[job.id] = KnownSnapshot(inc: job.inc, seq: job.seq, refs: job.refs)
        case let .stale(now): known[job.id] = KnownSnapshot(inc: job.inc, seq: now, refs: nil)
        case .failed: known[job.id] = nil
        }
    }

    /// Writes the buffered snapshots here and now, on this store's connection.
    public func commitSnapshots(tail: StreamTail) -> [String: SnapshotOutcome] {
        var outcomes: [String: SnapshotOutcome] = [:]
        for job in prepareSnapshots(tail: tail) {
            let outcome = Self.writeSnapshot(job, on: connection)
            finishSnapshot(job, outcome)
            outcomes[job.id] = outcome
        }
        return outcomes
    }
}

/// Writes snapshots on its own thread and Redis connection (`RedisStore.SnapshotJob`),
/// one at a time in the order given, so that the answers to the commit that made a
/// snapshot due need not wait for its chunks. What each came to is queued for the event
/// loop (`take`), which it wakes.
public final class RedisSnapshotWriter: @unchecked Sendable {
    struct State {
        var jobs: [RedisStore.SnapshotJob] = []
        var done: [(RedisStore.SnapshotJob, RedisStore.SnapshotOutcome)] = []
        /// Jobs submitted and not yet done.
        var open = 0
    }
    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    private let address: RedisAddress
    private let wake: @Sendable () -> Void
    private var thread: Thread?

    public init(_ address: RedisAddress, wake: @escaping @Sendable () -> Void) {
        self.address = address
        self.wake = wake
    }

    public func submit(_ jobs: [RedisStore.SnapshotJob]) {
        guard !jobs.isEmpty else { return }
        state.withLock { s in
            s.jobs += jobs
            s.open += jobs.count
        }
        for _ in jobs { ready.signal() }
        if thread == nil {
            let t = Thread { [self] in run() }
            t.name = "redis-snapshots"
            thread = t
            t.start()
        }
    }

    /// Waits until every snapshot submitted is written (or not), at most `seconds`;
    /// false if some still were not (a server stopping lets them finish).
    @discardableResult
    public func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while state.withLock({ $0.open }) > 0 {
            if Date() >= deadline { return false }
            usleep(2000)
        }
        return true
    }

    /// The snapshots written (or not) since the last call.
    public func take() -> [(RedisStore.SnapshotJob, RedisStore.SnapshotOutcome)] {
        state.withLock { s in
            let d = s.done
            s.done = []
            return d
        }
    }

    private func run() {
        let conn = RedisConnection(address)
        while true {
            ready.wait()
            guard let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) else { continue }
            let outcome = RedisStore.writeSnapshot(job, on: conn)
            state.withLock { s in
                s.done.append((job, outcome))
                s.open -= 1
            }
            wake()
        }
    }
}

/// Reads the cluster's changes on its own thread and connection: the sessions'
/// registry (polled) and the log streams of the sessions this node holds (`XREAD
/// BLOCK`). What it reads is queued for the event loop, which it wakes (`wake`); the
/// loop applies the entries in stream order.
public final class RedisReader: @unchecked Sendable {
    public enum Event: Sendable {
        case registry([String: String])
        case entries(session: String, inc: String, [(seq: Int64, payload: [UInt8])])
        /// Redis became reachable (nil) or not (why).
        case availability(String?)
    }

    struct State {
        /// By incarnation: the session and the last sequence number read.
        var watched: [String: (session: String, seq: Int64)] = [:]
        var events: [Event] = []
        var stopped = false
    }
    private let state = Mutex(State())
    private let address: RedisAddress
    private let wake: @Sendable () -> Void
    private var thread: Thread?
    /// How long one `XREAD` waits (and so how soon a newly watched stream is read).
    static let blockMs = 100
    static let registryEvery = 0.25

    public init(_ address: RedisAddress, wake: @escaping @Sendable () -> Void) {
        self.address = address
        self.wake = wake
    }

    /// Reads `inc`'s stream after `seq` (replacing what was watched of it).
    public func watch(_ inc: String, session: String, after seq: Int64) {
        state.withLock { $0.watched[inc] = (session, seq) }
    }

    public func unwatch(_ inc: String) { _ = state.withLock { $0.watched.removeValue(forKey: inc) } }

    public func take() -> [Event] {
        state.withLock { s in
            let e = s.events
            s.events = []
            return e
        }
    }

    public func stop() { state.withLock { $0.stopped = true } }

    public func start() {
        let t = Thread { [self] in run() }
        t.name = "redis-reader"
        thread = t
        t.start()
    }

    private func post(_ e: Event) {
        state.withLock { $0.events.append(e) }
        wake()
    }

    private func run() {
        let conn = RedisConnection(address, timeoutMs: 1000 + Self.blockMs)
        var available: Bool? = nil
        var lastRegistry: [String: String]? = nil
        var registryAt = 0.0
        while !state.withLock({ $0.stopped }) {
            do {
                let now = ProcessInfo.processInfo.systemUptime
                if now - registryAt >= Self.registryEvery {
                    registryAt = now
                    let reg = RedisStore.pairs(try conn.read("HGETALL", RedisStore.sessionsKey))
                    if available != true { available = true; post(.availability(nil)) }
                    if reg != lastRegistry { lastRegistry = reg; post(.registry(reg)) }
                }
                let watched = state.withLock { $0.watched }
                if watched.isEmpty { usleep(useconds_t(Self.blockMs * 1000)); continue }
                let incs = Array(watched.keys)
                let args = ["XREAD", "COUNT", "2000", "BLOCK", String(Self.blockMs), "STREAMS"] + incs.map(RedisStore.logKey)
                    + incs.map { "0-\(watched[$0]!.seq)" }
                let reply = try conn.read([args])[0]
                for stream in reply.array ?? [] {
                    guard let parts = stream.array, parts.count == 2, let key = parts[0].text else { continue }
                    let inc = String(key.dropFirst("cw:log:".count))
                    let list = RedisStore.entries(parts[1])
                    guard let last = list.last else { continue }
                    let session: String? = state.withLock { s in
                        guard let w = s.watched[inc] else { return nil }
                        s.watched[inc] = (w.session, max(w.seq, last.seq))
                        return w.session
                    }
                    if let session { post(.entries(session: session, inc: inc, list)) }
                }
            } catch {
                if available != false { available = false; post(.availability((error as? StoreError)?.message ?? "\(error)")) }
                lastRegistry = nil
                usleep(200_000)
            }
        }
    }
}

import CLibWebSockets
import ChartSession
import ChartStore
import Foundation
import RedisStore

/// The server's side of a cluster (`--redis`, docs/cluster.md): every session's inputs
/// go through one Redis stream, and every node applies them in the stream's order.
///
/// - A node's own input goes through the one door as always (logged, then applied), but
///   first the node applies whatever the stream holds that it has not (`catchUp`, one
///   `XRANGE`), so the input is applied on top of exactly the stream's state. At the
///   end of the loop turn the inputs are appended with a compare-and-append script:
///   entry `0-N` is written only if no node wrote `N` first. So an input applied at once
///   sits in the stream directly after the last one the node applied: every node
///   applies the same inputs in the same order. If another node did write first, the
///   session is reloaded from Redis and the refused inputs are submitted again on top.
///   Senders are answered after Redis accepted (or are refused with 503).
/// - A reader thread (`RedisReader`) follows the streams and the sessions' registry; the
///   loop applies what it read (`drain`).
/// - Generators run on the node holding the session's clock lease.
/// - The node that commits a session's inputs snapshots it once `snapshotEntries`
///   inputs or `snapshotBytes` of them have been logged since the last snapshot
///   (`snapshotIfDue`); the stream is then trimmed to `streamTail` entries before it.
final class ClusterDurability: Durability {
    let redis: RedisStore
    let reader: RedisReader
    /// Presence between nodes, and the viewers' data state (Cluster+Live.swift).
    let live: ClusterLive
    private var make: ((SessionSpec) -> Session)?
    private weak var hub: SessionHub?
    /// Sessions brought up to date with the stream in this loop turn (or redefined in
    /// it): no catch-up for them until the turn's commit.
    private var caughtUp = Set<String>()
    /// Sessions whose clock this node runs.
    private(set) var leases = Set<String>()
    private var leaseCheckedAt = -Double.infinity
    /// Why Redis cannot be reached (nil: it can).
    private(set) var unavailable: String?
    /// Why the last commit failed (for the answers held for it).
    private var failure: String?
    /// Sessions holding changes Redis did not take: reloaded when it is back.
    private var dirty = Set<String>()
    static let leaseMs = 3000
    static let leaseEvery = 1.0
    /// A session is snapshotted by the node committing its inputs once this many inputs,
    /// or bytes of them, were logged since its last snapshot (`--redis-snapshot`).
    let snapshotEntries: Int
    let snapshotBytes = Durability.snapshotBytes
    /// What of a session's stream is kept before its snapshot's N (`--redis-tail`
    /// entries, `--redis-tail-bytes` bytes), for nodes slightly behind; one further
    /// behind reloads the snapshot.
    let streamTail: RedisStore.StreamTail
    static let defaultStreamTail = RedisStore.StreamTail(entries: Options.defaultRedisTail, bytes: Options.defaultRedisTailBytes)
    /// Sessions whose stream holds an entry this build cannot read, and why: applied up to
    /// the entry before it, and refused writes (`refusal`) until a reload reads it.
    private var unreadable: [String: String] = [:]
    /// Inputs (and their bytes) logged since the session's last snapshot that this node knows of.
    private var sinceSnapshot: [String: (entries: Int, bytes: Int)] = [:]
    /// Writes snapshots off the event loop (one at a time, on its own connection).
    let snapshotWriter: RedisSnapshotWriter
    /// Sessions whose snapshot is being written, with their `loads` count when it was
    /// taken: no other snapshot of them is taken until it is done.
    private var snapshotting: [String: Int] = [:]
    /// Loads of each session from Redis (a load replaces what this node knows of its
    /// stored chunks, so a snapshot taken before it is not noted as this node's).
    private var loads: [String: Int] = [:]

    init(redis: RedisStore, snapshotEntries: Int = Durability.snapshotEntries, streamTail: RedisStore.StreamTail = ClusterDurability.defaultStreamTail) {
        self.redis = redis
        self.snapshotEntries = snapshotEntries
        self.streamTail = streamTail
        reader = RedisReader(redis.address) { if let ctx = signalContext { lws_cancel_service(ctx) } }
        live = ClusterLive(redis.address, node: redis.node)
        snapshotWriter = RedisSnapshotWriter(redis.address) { if let ctx = signalContext { lws_cancel_service(ctx) } }
        super.init(store: redis)
    }

    /// Why writes are refused now (`503`), or nil.
    var writeRefusal: String? {
        unavailable.map { "\($0); writes are refused until Redis is back" }
    }

    func takeFailure() -> String? {
        defer { failure = nil }
        return failure.map { "\($0); the change was not made" }
    }

    // MARK: Start-up

    /// Joins the cluster: defines the configured sessions Redis lacks (the first node
    /// to start wins), then loads every session Redis holds (its snapshot, or its spec,
    /// then the log after it in order) and starts following them.
    func start(hub: SessionHub, make: @escaping (SessionSpec) -> Session) throws(StartupError) {
        self.hub = hub
        self.make = make
        var reg: [String: String]
        do { reg = try redis.registry() } catch { throw StartupError(message: "--redis: \(error.message)") }
        for s in hub.sessions where reg[s.id] == nil {
            guard let spec = s.specJSON else { continue }
            redis.define(s.id, origin: .config, spec: Jansson.serialize(spec, realPrecision: 17))
        }
        if case let .unavailable(why) = redis.commitCluster() { throw StartupError(message: "--redis: \(why)") }
        redis.discardPending()
        do { reg = try redis.registry() } catch { throw StartupError(message: "--redis: \(error.message)") }
        for s in hub.sessions where reg[s.id] == nil { hub.remove(s.id) }
        for (id, inc) in reg.sorted(by: { $0.key < $1.key }) {
            let stored: StoredSession?
            do { stored = try redis.load(id, inc: inc) } catch { throw StartupError(message: "--redis: \(error.message)") }
            guard let stored else { continue }
            let configured = hub.session(id)
            if let s = configured, stored.snapshot == nil, let spec = try? Jansson.parse(stored.spec), spec == s.specJSON {
                // The configured session is the stored one: its log is replayed on it.
                for e in stored.log {
                    let input: SessionInput
                    do { input = try SessionCodec.decode(e.payload) } catch {
                        throw StartupError(message: "--redis: session \"\(id)\": stream entry \(e.seq): \(error.message); run the build that wrote it (or a newer one) on every node")
                    }
                    _ = try? s.apply(input)
                }
                noteStoredRuns(id, nil)
            } else {
                let fresh: Session, runs: [String: StoredRun]
                do { (fresh, runs) = try Durability.rebuild(stored, make: make) } catch {
                    throw StartupError(message: "--redis: session \"\(id)\": \(error.message)")
                }
                // (The configured session's tokens, as when its log is replayed on it.)
                if let s = configured, let spec = try? Jansson.parse(stored.spec), spec == s.specJSON { fresh.access = s.access }
                hub.remove(id)
                hub.add(fresh)
                noteStoredRuns(id, runs)
            }
            let last = loaded(stored, inc: inc)
            reader.watch(inc, session: id, after: last)
        }
        reader.start()
        live.start()
    }

    /// Notes a session just loaded from Redis; returns its last sequence number.
    private func loaded(_ stored: StoredSession, inc: String) -> Int64 {
        let last = max(stored.log.last?.seq ?? 0, stored.snapshot?.seq ?? 0)
        redis.incs[stored.id] = inc
        redis.nextSeq[stored.id] = last + 1
        loads[stored.id, default: 0] += 1
        sinceSnapshot[stored.id] = (stored.log.count, stored.log.reduce(0) { $0 + $1.payload.count })
        return last
    }

    // MARK: SessionJournal

    override func record(_ input: SessionInput, session: String) {
        switch input {
        case .define, .delete:
            caughtUp.insert(session)
        default:
            if catchUp(session), case .view = input {
                // The gesture's state goes on top of what was caught up, as on every node.
                _ = try? hub?.session(session)?.apply(input)
            }
        }
        super.record(input, session: session)
    }

    override func runsClock(session: String) -> Bool { leases.contains(session) }
    override func defersPresented(session: String) -> Bool { true }
    static let presentedKind = SessionCodec.kind(.presented(PresentedState(labels: [], legends: [])))
    /// Before the door applies an input: the session is caught up with its stream (one
    /// round trip, which also shows whether Redis is there), so a change is not applied
    /// on a node that could not log it.
    /// An input that arrives when the node fell behind its stream's trim is refused: the
    /// catch-up loaded the session again (a new object), and the input would go to the
    /// old one.
    override func refusal(session: String) -> String? {
        if let why = unreadable[session] { return why }
        if unavailable == nil {
            if let before = hub?.session(session) {
                catchUp(session)
                if unavailable == nil, hub?.session(session) !== before {
                    return "this node was behind session \"\(session)\"'s stream in Redis and loaded it again; retry"
                }
            } else {
                probe()
            }
        }
        return writeRefusal
    }

    /// Whether Redis answered in this loop turn (else it is asked).
    private var probed = false
    private func probe() {
        guard !probed else { return }
        probed = true
        do { _ = try redis.connection.read("PING") } catch { unavailable = error.message }
    }

    /// Applies what the stream holds after the session's last applied input; true if
    /// something was.
    @discardableResult
    private func catchUp(_ id: String) -> Bool {
        guard unavailable == nil, !caughtUp.contains(id), let inc = redis.incs[id], let s = hub?.session(id) else { return false }
        caughtUp.insert(id)
        do {
            return apply(try redis.readLog(inc, after: (redis.nextSeq[id] ?? 1) - 1), to: s)
        } catch {
            unavailable = error.message
            return false
        }
    }

    /// Applies stream entries in order (those already applied are skipped; a hole
    /// reloads the session).
    private func apply(_ entries: [(seq: Int64, payload: [UInt8])], to s: Session) -> Bool {
        var next = redis.nextSeq[s.id] ?? 1
        var changed = false
        for e in entries where e.seq >= next {
            guard e.seq == next else { reload(s.id); return true }
            let input: SessionInput
            do { input = try SessionCodec.decode(e.payload) } catch {
                // An entry this build cannot read (a newer node wrote a kind it does not
                // know): the session stops before it, and this node takes no writes to it,
                // rather than drawing a chart that differs from the other nodes'.
                if unreadable[s.id] == nil {
                    let why = "session \"\(s.id)\": stream entry \(e.seq) cannot be read by this node (\(error.message)); upgrade this node"
                    unreadable[s.id] = why
                    FileHandle.standardError.write(Data("wsserver: \(why); the session stays at entry \(e.seq - 1) here and writes to it are refused\n".utf8))
                }
                break
            }
            _ = try? s.apply(input)
            next = e.seq + 1
            changed = true
            sinceSnapshot[s.id, default: (0, 0)].entries += 1
            sinceSnapshot[s.id, default: (0, 0)].bytes += e.payload.count
        }
        redis.nextSeq[s.id] = next
        return changed
    }

    /// Loads a session again from Redis (its registry entry, snapshot and the log after it) and
    /// hosts that instead (viewers of the old one reconnect); gone from Redis: removed.
    private func reload(_ id: String) {
        guard let hub, let make else { return }
        do {
            let current = try redis.connection.read("HGET", RedisStore.sessionsKey, id).text
            if let old = redis.incs[id], old != current { reader.unwatch(old) }
            guard let inc = current, let stored = try redis.load(id, inc: inc) else {
                redis.incs[id] = nil
                redis.nextSeq[id] = nil
                hub.remove(id)
                return
            }
            let (fresh, runs) = try Durability.rebuild(stored, make: make)
            let last = loaded(stored, inc: inc)
            hub.remove(id)
            hub.add(fresh)
            noteStoredRuns(id, runs)
            reader.watch(inc, session: id, after: last)
        } catch let e as StoreError {
            unavailable = e.message
            dirty.insert(id)
        } catch {
            FileHandle.standardError.write(Data("wsserver: cannot reload session \"\(id)\" from Redis: \(error)\n".utf8))
        }
    }

    // MARK: Commits, the reader's news, leases

    /// Counts commits of pending changes; those that failed, lately. A publisher's
    /// acknowledgement names the commit that carries its batch (`nextCommit`), and is
    /// turned into an error if that one failed.
    private(set) var commits = 0
    private var failedCommits: [Int] = []
    var nextCommit: Int { commits + 1 }
    func commitFailed(_ serial: Int) -> Bool { failedCommits.contains(serial) }

    override func commitIfPending() {
        caughtUp.removeAll(keepingCapacity: true)
        probed = false
        collectSnapshots()
        guard redis.hasPending else { return }
        commits += 1
        var touched = Set<String>()
        // Sessions that changed here (not only by a frame's proposal, which is applied
        // once Redis took it): those Redis did not take are reloaded when it is back.
        var changed = Set<String>()
        // Each session's first sequence number in this commit (a failed commit's
        // proposals give theirs back).
        var firstSeq: [String: Int64] = [:]
        for _ in 0..<Self.commitTries {
            var logged: [String: (entries: Int, bytes: Int)] = [:]
            for w in redis.pending {
                switch w {
                case let .define(id, _, _), let .remove(id), let .snapshot(id, _, _, _):
                    touched.insert(id)
                    changed.insert(id)
                    logged[id] = nil
                    sinceSnapshot[id] = nil
                case let .append(id, seq, _, payload):
                    touched.insert(id)
                    if payload.first != Self.presentedKind { changed.insert(id) }
                    if firstSeq[id] == nil { firstSeq[id] = seq }
                    logged[id, default: (0, 0)].entries += 1
                    logged[id, default: (0, 0)].bytes += payload.count
                }
            }
            switch redis.commitCluster() {
            case .ok:
                for id in touched.sorted() { hub?.session(id)?.applyPendingPresented() }
                for (id, n) in logged {
                    sinceSnapshot[id, default: (0, 0)].entries += n.entries
                    sinceSnapshot[id, default: (0, 0)].bytes += n.bytes
                }
                follow(touched)
                snapshotIfDue(touched)
                return
            case let .unavailable(why):
                unavailable = why
                fail(why, touched, changed: changed, firstSeq: firstSeq)
                return
            case let .conflicts(refused):
                // Another node wrote first: take its inputs, then these again on top.
                for (id, payloads) in refused.sorted(by: { $0.key < $1.key }) {
                    // Only a frame's proposal (`.presented`, not applied yet): dropped, and the
                    // other node's entries are read as usual. Two nodes drawing the same size
                    // propose the same at once; reloading for it would cut their viewers off.
                    if !payloads.isEmpty, payloads.allSatisfy({ $0.first == Self.presentedKind }) {
                        hub?.session(id)?.dropPendingPresented()
                        redis.nextSeq[id] = (redis.nextSeq[id] ?? 1) - Int64(payloads.count)
                        continue
                    }
                    reload(id)
                    caughtUp.insert(id)
                    guard let s = hub?.session(id) else { continue }
                    for p in payloads { if let input = try? SessionCodec.decode(p) { _ = try? s.submit(input) } }
                }
            }
        }
        // (Redis is there: the sessions are reloaded now, and the senders may retry.)
        fail("other nodes kept writing to the same session first (\(Self.commitTries) tries); retry", touched, changed: changed, firstSeq: firstSeq)
        for id in dirty.sorted() { reload(id) }
        dirty = []
    }

    /// Snapshots the sessions this commit carried inputs of whose logs grew past the
    /// limits since their last snapshot (their state is exactly the stream's up to the
    /// last entry this node committed); the chunks and the switch, which trims the
    /// stream, are written by `snapshotWriter` while the loop goes on (the commit's
    /// answers do not wait for them). A session whose previous snapshot is still being
    /// written is snapshotted at a later commit.
    private func snapshotIfDue(_ touched: Set<String>) {
        var taken = false
        for id in touched.sorted() where snapshotting[id] == nil {
            guard let n = sinceSnapshot[id], n.entries >= snapshotEntries || n.bytes >= snapshotBytes,
                  let s = hub?.session(id) else { continue }
            if redis.known[id]?.refs == nil { noteStoredRuns(id, nil) }
            if snapshot(s) { taken = true }
        }
        guard taken else { return }
        let jobs = redis.prepareSnapshots(tail: streamTail)
        for job in jobs {
            snapshotting[job.id] = loads[job.id, default: 0]
            sinceSnapshot[job.id] = (0, 0)
        }
        snapshotWriter.submit(jobs)
    }

    /// Notes the snapshots `snapshotWriter` finished. Another node's snapshot found in
    /// their place: this node's next one rewrites every chunk (it does not know which
    /// the other wrote); so does one of a session loaded again meanwhile.
    private func collectSnapshots() {
        for (job, outcome) in snapshotWriter.take() {
            let loadsThen = snapshotting.removeValue(forKey: job.id)
            guard loadsThen == loads[job.id, default: 0], redis.incs[job.id] == job.inc else {
                if redis.incs[job.id] == job.inc {
                    redis.known[job.id] = outcome == .written ? .init(inc: job.inc, seq: job.seq, refs: nil) : nil
                    noteStoredRuns(job.id, nil)
                }
                continue
            }
            redis.finishSnapshot(job, outcome)
            switch outcome {
            case .written:
                break
            case let .stale(seq):
                noteStoredRuns(job.id, nil)
                sinceSnapshot[job.id] = (Int(max(0, (redis.nextSeq[job.id] ?? 1) - 1 - seq)), 0)
            case let .failed(why):
                // (Tried again once as much more was logged; the stream keeps everything meanwhile.)
                noteStoredRuns(job.id, nil)
                FileHandle.standardError.write(Data("wsserver: snapshot of session \"\(job.id)\" not written to Redis: \(why)\n".utf8))
            }
        }
    }

    /// Compare-and-append attempts before a change is refused with 503.
    static let commitTries = 8

    private func fail(_ why: String, _ touched: Set<String>, changed: Set<String>, firstSeq: [String: Int64]) {
        failure = why
        failedCommits.append(commits)
        if failedCommits.count > 64 { failedCommits.removeFirst() }
        leases = []
        dirty.formUnion(changed)
        for id in touched {
            hub?.session(id)?.dropPendingPresented()
            // A session only a proposal touched is not reloaded: it holds what Redis holds.
            if !changed.contains(id), let seq = firstSeq[id] { redis.nextSeq[id] = seq }
        }
        redis.discardPending()
    }

    /// Follows the streams of sessions this node (re)defined.
    private func follow(_ touched: Set<String>) {
        for id in touched {
            if let inc = redis.incs[id] { reader.watch(inc, session: id, after: (redis.nextSeq[id] ?? 1) - 1) }
        }
    }

    /// Applies what the reader read: other nodes' inputs, sessions made, redefined or
    /// removed elsewhere, Redis going away and coming back. True if a chart changed.
    func drain() -> Bool {
        var changed = false
        for event in reader.take() {
            switch event {
            case let .availability(why):
                if let why {
                    unavailable = why
                    leases = []
                } else if recover() {
                    changed = true
                }
            case let .registry(reg):
                guard unavailable == nil else { continue }
                // (A registry read before this node's own commit may be stale: each
                // difference is checked against Redis by `reload`.)
                for (id, inc) in reg where redis.incs[id] != inc { reload(id); changed = true }
                for id in redis.incs.keys where reg[id] == nil { reload(id); changed = true }
                for id in reg.keys where hub?.session(id) == nil && redis.incs[id] != nil { reload(id); changed = true }
            case let .entries(id, inc, list):
                guard redis.incs[id] == inc, !redis.pending.contains(where: { if case let .append(s, _, _, _) = $0 { return s == id }; return false }),
                      let s = hub?.session(id) else { continue }
                if apply(list, to: s) { changed = true }
            }
        }
        return changed
    }

    /// Redis is back: the sessions holding changes it did not take are loaded again.
    @discardableResult
    private func recover() -> Bool {
        unavailable = nil
        // A connection made before Redis went away is dead (its first use would fail
        // and refuse a write): the next command connects anew.
        redis.connection.disconnect()
        let reloaded = !dirty.isEmpty
        for id in dirty.sorted() { reload(id) }
        dirty = []
        return reloaded
    }

    /// Takes or renews the clock leases of sessions with generators (each second).
    override func maintain(_ hub: SessionHub) {
        let now = ProcessInfo.processInfo.systemUptime
        guard now - leaseCheckedAt >= Self.leaseEvery else { return }
        leaseCheckedAt = now
        if unavailable != nil {
            // (The reader says when Redis is back; a failure only this connection saw is
            // found over here.)
            guard (try? redis.connection.read("PING")) == .status("PONG") else { leases = []; return }
            recover()
        }
        let clocked = hub.sessions.filter { $0.chart.hasGenerators }.map(\.id)
        do { leases = try redis.leases(clocked, ttlMs: Self.leaseMs) } catch {
            unavailable = error.message
            leases = []
        }
    }

    override var location: String { redis.address.description }
}

import ChartSession
import ChartStore
import Foundation
import SQLiteStore

/// The server's side of the storage seam (docs/persistence.md): it logs every session
/// input in the store (`SessionJournal`), commits before any answer, ack or frame
/// leaves (`commitIfPending`, called by the transport), takes snapshots that bound
/// replay, and at start-up rebuilds the hub from what is stored.
class Durability: SessionJournal {
    let store: any SessionStore
    /// Where each stored session came from (a redefinition keeps it).
    private var origins: [String: SessionOrigin] = [:]
    /// What the store holds of each series' points (by session, then series): its run
    /// (`XYData.lineage`), the key of sequence number 0 (`offset`), and the key after
    /// the last stored point. A snapshot writes only the points after `storedEnd` of a
    /// run it already holds; a new run is rewritten whole.
    struct StoredRun { var lineage: UInt64; var offset: Int; var storedEnd: Int }
    private var runs: [String: [String: StoredRun]] = [:]
    /// A session is snapshotted once its log holds this many inputs or bytes: replay
    /// after a restart is bounded by them (and by the snapshot's own size). A snapshot
    /// writes only the points the store lacks, so it costs about what was logged.
    static let snapshotEntries = 20_000
    static let snapshotBytes = 16 << 20

    /// A session whose input this turn is at least this large (an append of 16,384
    /// x/y points or more, a large line-protocol write) is snapshotted just before the turn's commit, in the same
    /// transaction: its points go to the store once, as chunks. The store drops the log
    /// entries the snapshot covers before writing them (`SQLiteStore.commit`), so they
    /// are not written as a log entry and then again as a chunk.
    static let snapshotAtCommitBytes = 256 << 10
    /// Sessions to snapshot before the next commit, in the order their inputs came.
    private var dueSnapshots: [String] = []
    /// Only a store that keeps snapshots and chunks takes them (not the cluster's).
    private let snapshotsLargeInputs: Bool
    /// The hub whose sessions are snapshotted (set at start-up).
    weak var snapshotHub: SessionHub?

    init(store: any SessionStore) {
        self.store = store
        snapshotsLargeInputs = store is SQLiteStore || store is MemoryStore
        commitsCheaply = (store as? SQLiteStore).map { !$0.syncsEachCommit } ?? false
    }

    /// Whether a commit is a write without a sync (`--fsync batch` or `off`): an answer
    /// then commits and goes at once, rather than waiting for the end of its loop turn
    /// to share a sync with the turn's other changes.
    let commitsCheaply: Bool

    /// Writes wait for a commit (a change, or a snapshot due before it).
    var hasPending: Bool { store.hasPending || !dueSnapshots.isEmpty }

    // MARK: SessionJournal

    func record(_ input: SessionInput, session: String) {
        switch input {
        case let .define(spec):
            let origin = origins[session] ?? .runtime
            origins[session] = origin
            runs[session] = nil
            store.define(session, origin: origin, spec: Jansson.serialize(spec, realPrecision: 17))
        case .delete:
            origins[session] = nil
            runs[session] = nil
            store.remove(session)
        case let .append(_, xs, values) where deferrable(session, bytes: 8 * xs.count * (values.count + 1)):
            // Snapshotted before this turn's commit, which then never writes this entry:
            // it is logged without its bytes, encoded only if that snapshot does not come.
            store.append(session, kind: SessionCodec.kind(input), payload: [])
            if let seq = (store as? BufferedStore)?.nextSeq[session] { deferred.append((session, seq - 1, input)) }
            if !dueSnapshots.contains(session) { dueSnapshots.append(session) }
        default:
            let payload = SessionCodec.encode(input)
            store.append(session, kind: SessionCodec.kind(input), payload: payload)
            if snapshotsLargeInputs, payload.count >= Self.snapshotAtCommitBytes, !dueSnapshots.contains(session) {
                dueSnapshots.append(session)
            }
        }
    }

    /// Bulk appends logged without their bytes this turn (`record`): session, sequence
    /// number, the input.
    private var deferred: [(session: String, seq: Int64, input: SessionInput)] = []

    /// Whether an input of `bytes` to `session` will be covered by a snapshot in this
    /// turn's commit: large, and the session one this journal snapshots.
    private func deferrable(_ session: String, bytes: Int) -> Bool {
        guard snapshotsLargeInputs, bytes >= Self.snapshotAtCommitBytes, store is BufferedStore, origins[session] != nil,
              let s = snapshotHub?.session(session), s.specJSON != nil else { return false }
        return true
    }

    /// Gives the deferred entries no snapshot covered their bytes (a session that
    /// could not be snapshotted after all): the log then holds them whole.
    private func encodeUncovered(snapshotted: Set<String>) {
        guard !deferred.isEmpty else { return }
        defer { deferred = [] }
        guard let buffered = store as? BufferedStore else { return }
        for d in deferred where !snapshotted.contains(d.session) {
            guard let i = buffered.pending.firstIndex(where: {
                if case let .append(id, seq, _, payload) = $0 { return id == d.session && seq == d.seq && payload.isEmpty }
                return false
            }), case let .append(id, seq, kind, _) = buffered.pending[i] else { continue }   // (withdrawn: refused)
            buffered.pending[i] = .append(id, seq: seq, kind: kind, payload: SessionCodec.encode(d.input))
        }
    }

    func withdrawLast(session: String) { store.withdrawLast(session) }

    /// (A cluster runs a session's clock on one node: `ClusterDurability`.)
    func runsClock(session: String) -> Bool { true }
    func refusal(session: String) -> String? { nil }
    func defersPresented(session: String) -> Bool { false }

    // MARK: Commits and snapshots

    /// Commits what is buffered. A store that cannot commit stops the server: what it
    /// answered must be on disk, and it can no longer promise that.
    func commitIfPending() {
        if !dueSnapshots.isEmpty {
            let due = dueSnapshots
            dueSnapshots = []
            var taken = Set<String>()
            for id in due where origins[id] != nil {
                if let s = snapshotHub?.session(id), snapshot(s) { taken.insert(id) }
            }
            encodeUncovered(snapshotted: taken)
        }
        guard store.hasPending else { return }
        do { try store.commit() } catch {
            FileHandle.standardError.write(Data("wsserver: storage failed, stopping: \(error.message)\n".utf8))
            exit(70)
        }
    }

    /// At a clean stop: the embedded store folds its append log into the database, so
    /// the database alone holds everything (a backup of it, or a build before the
    /// append log, finds it all). A failure only leaves the entries in the append log,
    /// where the next start finds them.
    func close() {
        guard let sqlite = store as? SQLiteStore else { return }
        do { try sqlite.foldAppendLog() } catch {
            FileHandle.standardError.write(Data("wsserver: \(error.message) (the append log keeps its entries for the next start)\n".utf8))
        }
    }

    /// Snapshots the sessions whose logs grew past the limits.
    func maintain(_ hub: SessionHub) {
        for s in hub.sessions where origins[s.id] != nil {
            let u = store.usage(s.id)
            if u.logEntries >= Self.snapshotEntries || u.logBytes >= Self.snapshotBytes {
                snapshot(s)
            }
        }
    }

    /// Snapshots a session: its state, and the chunks of points the store lacks.
    /// False when it cannot be (a session without a spec).
    @discardableResult
    func snapshot(_ s: Session) -> Bool {
        guard var snap = s.snapshot(points: false) else { return false }
        var writes = ChunkWrites()
        let old = runs[s.id] ?? [:]
        var now: [String: StoredRun] = [:]
        for r in s.seriesRuns {
            var run: StoredRun
            var from = r.firstSequence
            if let o = old[r.id], o.lineage == r.lineage {
                run = o
                writes.evict[r.id] = r.firstSequence + o.offset
                from = max(r.firstSequence, o.storedEnd - o.offset)
            } else {
                // A new run (or one this process has not written): rewritten whole.
                writes.clear.append(r.id)
                run = StoredRun(lineage: r.lineage, offset: -r.firstSequence, storedEnd: 0)
            }
            let n = SQLiteStore.chunkPoints
            for start in stride(from: from, to: r.endSequence, by: n) {
                let columns = s.columns(series: r.id, sequences: start..<min(r.endSequence, start + n))
                writes.add.append(StoredChunk(series: r.id, first: start + run.offset, columns: columns.map(SessionCodec.columnBytes)))
            }
            run.storedEnd = r.endSequence + run.offset
            now[r.id] = run
            snap.ranges.append(.init(id: r.id, first: r.firstSequence + run.offset, count: r.endSequence - r.firstSequence))
        }
        for id in old.keys where now[id] == nil { writes.clear.append(id) }
        runs[s.id] = now
        store.snapshot(s.id, state: SessionCodec.encodeState(snap), chunks: writes)
        return true
    }

    /// What the store holds of a session's runs: as restored with it (`rebuild`), or
    /// nil: not known, so its next snapshot rewrites every series (a cluster node whose
    /// session was snapshotted by another node).
    func noteStoredRuns(_ id: String, _ stored: [String: StoredRun]?) { runs[id] = stored }

    /// Stored points and bytes of a session (`/api/stats`, `GET /api/sessions/{s}`).
    func usageJSON(_ s: Session) -> [(String, JSONValue)] {
        let u = store.usage(s.id)
        return [("storedPoints", .int(Int64(s.chart.series.reduce(0) { $0 + $1.data.count }))),
                ("storedBytes", .int(Int64(u.bytes))), ("logEntries", .int(Int64(u.logEntries)))]
    }

    // MARK: Start-up

    /// Rebuilds the hub from the store (docs/persistence.md, "What a restart restores"):
    /// runtime sessions as they were; sessions of the config file (or the demo) from the
    /// file's spec, with the stored points of series whose ids still match, the shared
    /// view, and the generators' progress. Config sessions no longer in the file are
    /// dropped from the store.
    func restore(into hub: SessionHub, configured: [Session], make: (SessionSpec) -> Session) throws(StartupError) {
        snapshotHub = hub
        let stored: [StoredSession]
        do { stored = try store.loadAll() } catch { throw StartupError(message: "--data: \(error.message)") }
        let configIds = Set(configured.map(\.id))
        var rebuilt: [String: Session] = [:]
        var restoredRuns: [String: [String: StoredRun]] = [:]
        for s in stored {
            do { (rebuilt[s.id], restoredRuns[s.id]) = try Self.rebuild(s, make: make) } catch {
                throw StartupError(message: "--data: session \"\(s.id)\" in \(location): \(error.message); move the data folder aside (or restore a backup), or pass --data none")
            }
        }
        for session in configured {
            origins[session.id] = .config
            if let old = rebuilt[session.id] {
                let storedSpec = stored.first { $0.id == session.id }
                if storedSpec?.origin == .config, old.specJSON == session.specJSON {
                    // The file's spec is the stored one: the stored session as it was takes
                    // the file's place (with the file's tokens), and the store goes on.
                    old.access = session.access
                    hub.replace(old)
                    runs[session.id] = restoredRuns[session.id]
                    continue
                }
                if let snap = old.snapshot() { session.restore(snap) }
            }
            // A new baseline: the file's spec with what was kept of the stored state.
            if let spec = session.specJSON {
                store.define(session.id, origin: .config, spec: Jansson.serialize(spec, realPrecision: 17))
                if rebuilt[session.id] != nil { snapshot(session) }
            }
        }
        for s in stored where !configIds.contains(s.id) {
            if s.origin == .config { store.remove(s.id); continue }
            origins[s.id] = .runtime
            runs[s.id] = restoredRuns[s.id]
            hub.add(rebuilt[s.id]!)
        }
        commitIfPending()
    }

    struct RebuildError: Error { let message: String }

    /// A stored session as it was: its spec (or snapshot), then its log replayed; and
    /// what the store holds of each series' run as restored.
    static func rebuild(_ s: StoredSession, make: (SessionSpec) -> Session) throws(RebuildError) -> (Session, [String: StoredRun]) {
        var snap: SessionSnapshot?
        let specJSON: JSONValue
        do {
            if let stored = s.snapshot {
                var state = try SessionCodec.decodeState(stored.state)
                var bySeries: [String: [StoredChunk]] = [:]
                for c in stored.chunks { bySeries[c.series, default: []].append(c) }
                for r in state.ranges {
                    // The chunks from the first one holding key `r.first`, in key order, contiguous.
                    let chunks = (bySeries[r.id] ?? []).sorted { $0.first < $1.first }.filter { $0.first + $0.points > r.first }
                    guard let width = chunks.first?.columns.count ?? (r.count == 0 ? 0 : nil) else {
                        throw RebuildError(message: "series \"\(r.id)\" has no stored points")
                    }
                    var key = chunks.first?.first ?? r.first
                    for c in chunks {
                        guard c.first == key, c.columns.count == width, c.columns.allSatisfy({ $0.count == c.columns[0].count && $0.count % 8 == 0 }) else {
                            throw RebuildError(message: "the chunks of series \"\(r.id)\" have a gap at \(key)")
                        }
                        key += c.points
                    }
                    let skip = r.first - (chunks.first?.first ?? r.first)
                    guard skip >= 0, key - (chunks.first?.first ?? r.first) >= skip + r.count else {
                        throw RebuildError(message: "series \"\(r.id)\" lacks stored points")
                    }
                    // Read into the series a chunk at a time when restored (`Series.reload(chunks:)`).
                    state.series.append(r.count == 0 ? .init(id: r.id, columns: [])
                                                     : .init(id: r.id, chunks: chunks.map(\.columns), skip: skip, count: r.count))
                }
                snap = state
                specJSON = state.spec
            } else {
                specJSON = try Jansson.parse(s.spec)
            }
        } catch let e as RebuildError { throw e } catch {
            throw RebuildError(message: "\(error)")
        }
        let spec: SessionSpec
        do { spec = try ConfigSpec.decodeSession(specJSON, runtime: false) } catch { throw RebuildError(message: "stored spec: \(error)") }
        let session = make(spec)
        var runs: [String: StoredRun] = [:]
        if let snap {
            let taken = Set(session.restore(snap))
            // The store holds these runs up to their last point: a later snapshot adds only newer ones.
            for r in session.seriesRuns {
                guard taken.contains(r.id), let range = snap.ranges.first(where: { $0.id == r.id }) else { continue }
                runs[r.id] = StoredRun(lineage: r.lineage, offset: range.first - r.firstSequence, storedEnd: range.first + range.count)
            }
        }
        for entry in s.log {
            let input: SessionInput
            do { input = try SessionCodec.decode(entry.payload) } catch { throw RebuildError(message: "log entry \(entry.seq): \(error)") }
            // (An input refused live was never logged; replay refuses nothing it took.)
            _ = try? session.apply(input)
        }
        return (session, runs)
    }

    var location: String { (store as? SQLiteStore)?.path ?? "the store" }
}

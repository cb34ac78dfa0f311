import ChartSession
import ChartStore
import Foundation
import SQLiteStore

/// The server's side of the storage seam (docs/persistence.md): it logs every session
/// input in the store (`SessionJournal`), commits before any answer, ack or frame
/// leaves (`commitIfPending`, called by the transport), takes snapshots that bound
/// replay, and at start-up rebuilds the hub from what is stored.
final class Durability: SessionJournal {
    let store: any SessionStore
    /// Where each stored session came from (a redefinition keeps it).
    private var origins: [String: SessionOrigin] = [:]
    /// A session is snapshotted once its log holds this many inputs...
    static let snapshotEntries = 20_000
    /// ...or more bytes than this and than its last snapshot (so rewriting snapshots
    /// costs at most about as much again as the data logged).
    static let snapshotMinBytes = 16 << 20

    init(store: any SessionStore) { self.store = store }

    // MARK: SessionJournal

    func record(_ input: SessionInput, session: String) {
        switch input {
        case let .define(spec):
            let origin = origins[session] ?? .runtime
            origins[session] = origin
            store.define(session, origin: origin, spec: Jansson.serialize(spec, realPrecision: 17))
        case .delete:
            origins[session] = nil
            store.remove(session)
        default:
            store.append(session, kind: SessionCodec.kind(input), payload: SessionCodec.encode(input))
        }
    }

    func withdrawLast(session: String) { store.withdrawLast(session) }

    // MARK: Commits and snapshots

    /// Commits what is buffered. A store that cannot commit stops the server: what it
    /// answered must be on disk, and it can no longer promise that.
    func commitIfPending() {
        guard store.hasPending else { return }
        do { try store.commit() } catch {
            FileHandle.standardError.write(Data("wsserver: storage failed, stopping: \(error.message)\n".utf8))
            exit(70)
        }
    }

    /// Snapshots the sessions whose logs grew past the limits.
    func maintain(_ hub: SessionHub) {
        for s in hub.sessions where origins[s.id] != nil {
            let u = store.usage(s.id)
            if u.logEntries >= Self.snapshotEntries || u.logBytes >= max(Self.snapshotMinBytes, u.snapshotBytes) {
                snapshot(s)
            }
        }
    }

    func snapshot(_ s: Session) {
        guard let snap = s.snapshot() else { return }
        store.snapshot(s.id, state: SessionCodec.encodeState(snap), chunks: Self.chunks(snap))
    }

    static func chunks(_ snap: SessionSnapshot) -> [StoredChunk] {
        var out: [StoredChunk] = []
        let n = SQLiteStore.chunkPoints
        for series in snap.series {
            let count = series.columns.first?.count ?? 0
            for first in stride(from: 0, to: count, by: n) {
                let end = min(count, first + n)
                out.append(StoredChunk(series: series.id, first: first,
                                       columns: series.columns.map { SessionCodec.columnBytes(Array($0[first..<end])) }))
            }
        }
        return out
    }

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
        let stored: [StoredSession]
        do { stored = try store.loadAll() } catch { throw StartupError(message: "--data: \(error.message)") }
        let configIds = Set(configured.map(\.id))
        var rebuilt: [String: Session] = [:]
        for s in stored {
            do { rebuilt[s.id] = try Self.rebuild(s, make: make) } catch {
                throw StartupError(message: "--data: session \"\(s.id)\" in \(location): \(error.message); move the data folder aside (or restore a backup), or pass --data none")
            }
        }
        for session in configured {
            origins[session.id] = .config
            if let old = rebuilt[session.id], let snap = old.snapshot() {
                session.restore(snap)
                let storedSpec = stored.first { $0.id == session.id }
                // The file's spec is the stored one: the store goes on as it is.
                if storedSpec?.origin == .config, old.specJSON == session.specJSON { continue }
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
            hub.add(rebuilt[s.id]!)
        }
        commitIfPending()
    }

    struct RebuildError: Error { let message: String }

    /// A stored session as it was: its spec (or snapshot), then its log replayed.
    static func rebuild(_ s: StoredSession, make: (SessionSpec) -> Session) throws(RebuildError) -> Session {
        var snap: SessionSnapshot?
        let specJSON: JSONValue
        do {
            if let stored = s.snapshot {
                var state = try SessionCodec.decodeState(stored.state)
                var columns: [String: [[Double]]] = [:]
                var order: [String] = []
                for c in stored.chunks {
                    if columns[c.series] == nil { order.append(c.series); columns[c.series] = c.columns.map { _ in [] } }
                    guard columns[c.series]!.count == c.columns.count else { throw RebuildError(message: "a chunk of series \"\(c.series)\" has the wrong columns") }
                    for k in c.columns.indices { columns[c.series]![k] += try SessionCodec.column(c.columns[k]) }
                }
                state.series = order.map { SessionSnapshot.SeriesColumns(id: $0, columns: columns[$0]!) }
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
        if let snap { session.restore(snap) }
        for entry in s.log {
            let input: SessionInput
            do { input = try SessionCodec.decode(entry.payload) } catch { throw RebuildError(message: "log entry \(entry.seq): \(error)") }
            // (An input refused live was never logged; replay refuses nothing it took.)
            _ = try? session.apply(input)
        }
        return session
    }

    var location: String { (store as? SQLiteStore)?.path ?? "the store" }
}

import CSQLite
import ChartStore
import Foundation

/// The embedded store: one SQLite database in WAL mode in the data folder
/// (docs/persistence.md). Tables:
///
/// - `sessions(id, origin, spec)`: each session's spec as JSON text and where it came
///   from (`config` or `runtime`);
/// - `log(session, seq, kind, payload)`: the inputs after the latest snapshot, keyed by
///   (session, seq) (`WITHOUT ROWID`: one b-tree, one page written by a small commit);
/// - `snapshots(session, seq, state)`: the latest snapshot's state (spec, view, clock);
/// - `chunks(session, series, first, x, v0...v3)`: the snapshot's points as float64
///   column chunks of up to `chunkPoints` points, never a row per point.
///
/// - `meta(key, value)`: the append log's epochs (`log_folded`, `log_epoch`).
///
/// A commit made of appends only is written to the append log (`AppendLog`, the file
/// `chartwire.log`) and synced there with `--fsync always`. Any other commit writes
/// every buffered write in one transaction, the append log's entries first (the fold),
/// and `synchronous` (the `--fsync` mode) decides when SQLite syncs it to disk.
public final class SQLiteStore: BufferedStore, SessionStore {
    public enum Sync: String, CaseIterable, Sendable {
        /// `synchronous=FULL`: the WAL, or the append log, is synced at every commit.
        /// Survives a process crash, an OS crash and a power loss.
        case always
        /// `synchronous=NORMAL`: synced at checkpoints (and a fold's commit), the append
        /// log about once a second. Survives a process crash; an OS crash or power loss
        /// may lose the last commits (never corrupts).
        case batch
        /// `synchronous=OFF`: never synced. Survives a process crash only; an OS crash or
        /// power loss may lose commits or damage the database.
        case off
        var pragma: String {
            switch self { case .always: "FULL"; case .batch: "NORMAL"; case .off: "OFF" }
        }
    }

    public static let fileName = "chartwire.sqlite"
    /// Points per stored chunk.
    public static let chunkPoints = 65_536
    public let path: String
    private var db: OpaquePointer?
    private var lockFD: Int32 = -1
    private var statements: [String: OpaquePointer] = [:]
    private var checkpointer: Checkpointer?
    /// The file that takes the commits made of appends only (`AppendLog`).
    private var appendLog: AppendLog?
    private let sync: Sync
    /// The WAL is checkpointed (by the checkpointer thread) once it holds this much.
    public static let checkpointBytes = 16 << 20
    /// At most this much committed during a checkpoint's copy is copied while the next
    /// commit waits, so that the WAL starts again (`Checkpointer`).
    public static let restartBytes = 1 << 20
    /// The database's page size: 4096 for one made now, 65536 for one made before
    /// 2026-11-28 (docs/persistence.md, "Page size").
    public private(set) var pageSize = 4096
    /// One line for the server's log when the database has pages larger than 4 kB: what
    /// that costs and how to convert it. Nil otherwise.
    public var pageSizeNote: String? {
        guard pageSize > 4096 else { return nil }
        return "\(path) has \(pageSize >> 10) kB pages (made before 2026-11-28): each small commit writes \(pageSize >> 10) kB "
            + "to the WAL, not 4; stop the server and run: sqlite3 \(path) 'PRAGMA journal_mode=DELETE; PRAGMA page_size=4096; VACUUM; "
            + "PRAGMA journal_mode=WAL;' (docs/persistence.md, \"Page size\")"
    }

    /// Opens (creating when absent) the database in `folder`. Errors name the file and
    /// the fix, for the one line start-up prints.
    public init(folder: String, sync: Sync) throws(StoreError) {
        path = folder + "/" + Self.fileName
        self.sync = sync
        super.init()
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw StoreError("cannot create the data folder \(folder): \(error.localizedDescription); create it, or pass --data DIR or --data none")
            }
        } else if !isDir.boolValue {
            throw StoreError("the data folder \(folder) is a file, not a folder; pass --data DIR or --data none")
        }
        // One server per data folder: a second one would interleave its logs with ours.
        let lockPath = folder + "/chartwire.lock"
        lockFD = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else {
            throw StoreError("cannot open \(lockPath): \(String(cString: strerror(errno))); make the data folder writable, or pass --data DIR")
        }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            close(lockFD); lockFD = -1
            throw StoreError("\(lockPath): another server uses this data folder; stop it, or pass another --data DIR")
        }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            throw StoreError("cannot open \(path): \(message); check the folder's permissions, or pass --data DIR")
        }
        do {
            // Pages of 4 kB (SQLite's default, and the disk's block): a commit writes and
            // syncs whole pages, and the feed's commit of one small append dirties one
            // page. With 64 kB pages (this store's before) the monitoring feed's 200
            // commits a second wrote 13.8 MB a second to the WAL; with 4 kB, 1.1 MB
            // (docs/bench.md, "Durable sessions: the page size"). A chunk's 512 kB column
            // spans 128 pages; the bulk ingest is some 13 % slower for it. Takes effect on
            // a new database; one made before keeps its pages (docs/persistence.md).
            try exec("PRAGMA page_size=4096")
            try exec("PRAGMA journal_mode=WAL")
            try exec("PRAGMA mmap_size=\(1 << 30)")
            // No checkpoint inside a commit: the checkpointer thread copies the WAL into
            // the database beside the commits (`Checkpointer`), so an answer waits for its
            // own commit's sync only, not for a checkpoint's writes and sync.
            try exec("PRAGMA wal_autocheckpoint=0")
            // (A PASSIVE checkpoint never holds the writer's lock; should anything else,
            // a commit waits for it rather than failing.)
            sqlite3_busy_timeout(db, 5000)
            try exec("PRAGMA synchronous=\(sync.pragma)")
            // The WAL file shrinks back to this after a checkpoint (a large commit grows
            // it): twice the checkpoint threshold, so that a steady feed reuses the file
            // without growing it (a sync that also changes the file's size costs the
            // file system's journal too) and without truncating it again and again.
            try exec("PRAGMA journal_size_limit=\(2 * Self.checkpointBytes)")
            // The log is keyed by (session, seq) alone (WITHOUT ROWID): an entry is one
            // b-tree insert, so the commit of a small append writes one page to the WAL,
            // not two (the table and its key's index). With a commit per append that
            // halves the bytes written and synced (measured with 64 kB pages: 25 to 12 MB/s
            // of WAL for the monitoring feed, docs/bench.md). A database made before keeps
            // its rowid table: the statements are the same for both.
            try exec("""
                CREATE TABLE IF NOT EXISTS sessions(id TEXT PRIMARY KEY, origin TEXT NOT NULL, spec BLOB NOT NULL, position INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS log(session TEXT NOT NULL, seq INTEGER NOT NULL, kind INTEGER NOT NULL, payload BLOB NOT NULL,
                                               PRIMARY KEY(session, seq)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS snapshots(session TEXT PRIMARY KEY, seq INTEGER NOT NULL, state BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS chunks(session TEXT NOT NULL, series TEXT NOT NULL, first INTEGER NOT NULL,
                                                  x BLOB NOT NULL, v0 BLOB, v1 BLOB, v2 BLOB, v3 BLOB,
                                                  PRIMARY KEY(session, series, first));
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                """)
        } catch {
            throw StoreError("\(path) is damaged or not a ChartWire database (\(error.message)); move it aside (or restore a backup) and start again, or pass --data none")
        }
        try openAppendLog(folder: folder)
        var size = 4096
        try? query("PRAGMA page_size") { s in size = Int(sqlite3_column_int64(s, 0)) }
        pageSize = size
        checkpointer = Checkpointer(path: path, sync: sync, pageSize: size)
        if let checkpointer {
            sqlite3_wal_hook(db, walHook, Unmanaged.passUnretained(checkpointer).toOpaque())
        }
    }

    deinit {
        checkpointer?.stop()
        for s in statements.values { sqlite3_finalize(s) }
        sqlite3_close_v2(db)
        if lockFD >= 0 { close(lockFD) }
    }

    /// Opens the append log and folds what a previous run left in it into the `log`
    /// table, then hands out the next epoch (`AppendLog`): every epoch is written by one
    /// process, from the file's start.
    private func openAppendLog(folder: String) throws(StoreError) {
        let log = try AppendLog(folder: folder)
        do {
            var folded: Int64 = 0, handed: Int64 = 0
            try query("SELECT key, value FROM meta WHERE key IN ('log_folded', 'log_epoch')") { s in
                if text(s, 0) == "log_folded" { folded = sqlite3_column_int64(s, 1) } else { handed = sqlite3_column_int64(s, 1) }
            }
            let found = log.recover(folded: UInt64(folded))
            let last = max(handed, Int64(found.epoch), folded)
            try withFullSync { () throws(SQLError) in
                try exec("BEGIN IMMEDIATE")
                for e in found.entries {
                    // (A session removed or snapshotted past the entry since: nothing to add.)
                    try runBlobs("""
                        INSERT OR IGNORE INTO log(session, seq, kind, payload) SELECT ?1, ?2, ?3, ?4
                        WHERE EXISTS(SELECT 1 FROM sessions WHERE id=?1) AND ?2 > coalesce((SELECT seq FROM snapshots WHERE session=?1), 0)
                        """, [.text(e.session), .int(e.seq), .int(Int64(e.kind))], blobs: [e.payload])
                }
                try noteEpochs(folded: last)
                try exec("COMMIT")
            }
            log.start(epoch: UInt64(last + 1))
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw StoreError("\(path) is damaged or not a ChartWire database (\(error.message)); move it aside (or restore a backup) and start again, or pass --data none")
        }
        appendLog = log
    }

    /// Records, in the transaction under way, that every epoch up to `folded` is in the
    /// database and that `folded + 1` is handed out.
    private func noteEpochs(folded: Int64) throws(SQLError) {
        try run("INSERT OR REPLACE INTO meta(key, value) VALUES('log_folded', ?1)", folded)
        try run("INSERT OR REPLACE INTO meta(key, value) VALUES('log_epoch', ?1)", folded + 1)
    }

    /// Runs `body` with the connection's commits synced (`synchronous=FULL`), whatever
    /// the `--fsync` mode, except `off`. A fold's commit is synced before the append log
    /// starts again over the entries it folded: with `batch`, an OS crash could
    /// otherwise lose the fold but keep later entries, a gap in the log.
    private func withFullSync(if folding: Bool = true, _ body: () throws(SQLError) -> Void) throws(SQLError) {
        let switched = folding && sync == .batch
        if switched { try exec("PRAGMA synchronous=FULL") }
        defer { if switched { _ = sqlite3_exec(db, "PRAGMA synchronous=\(sync.pragma)", nil, nil, nil) } }
        try body()
    }

    // MARK: Reading

    public func loadAll() throws(StoreError) -> [StoredSession] {
        do {
            var sessions: [StoredSession] = []
            try query("SELECT id, origin, spec FROM sessions ORDER BY position") { s in
                let origin = SessionOrigin(rawValue: text(s, 1)) ?? .runtime
                sessions.append(StoredSession(id: text(s, 0), origin: origin, spec: blob(s, 2), snapshot: nil, log: []))
            }
            var index: [String: Int] = [:]
            for (i, s) in sessions.enumerated() { index[s.id] = i }
            try query("SELECT session, seq, state FROM snapshots") { s in
                guard let i = index[text(s, 0)] else { return }
                sessions[i].snapshot = StoredSnapshot(seq: sqlite3_column_int64(s, 1), state: blob(s, 2), chunks: [])
            }
            try query("SELECT session, series, first, x, v0, v1, v2, v3 FROM chunks ORDER BY session, series, first") { s in
                guard let i = index[text(s, 0)], sessions[i].snapshot != nil else { return }
                var columns = [blob(s, 3)]
                for c in 4...7 where sqlite3_column_type(s, Int32(c)) != SQLITE_NULL { columns.append(blob(s, Int32(c))) }
                sessions[i].snapshot!.chunks.append(StoredChunk(series: text(s, 1), first: Int(sqlite3_column_int64(s, 2)), columns: columns))
            }
            try query("SELECT session, seq, kind, payload FROM log ORDER BY session, seq") { s in
                guard let i = index[text(s, 0)] else { return }
                let seq = sqlite3_column_int64(s, 1)
                if let snap = sessions[i].snapshot, seq <= snap.seq { return }
                sessions[i].log.append(StoredEntry(seq: seq, kind: UInt8(truncatingIfNeeded: sqlite3_column_int(s, 2)), payload: blob(s, 3)))
            }
            // The entries the append log holds, not folded yet, come after.
            for case let .append(id, seq, kind, payload) in appendLog?.held ?? [] {
                guard let i = index[id], seq > max(sessions[i].log.last?.seq ?? 0, sessions[i].snapshot?.seq ?? 0) else { continue }
                sessions[i].log.append(StoredEntry(seq: seq, kind: kind, payload: payload))
            }
            noteLoaded(sessions)
            return sessions
        } catch {
            throw StoreError("\(path) is damaged (\(error.message)); move it aside (or restore a backup) and start again, or pass --data none")
        }
    }

    // MARK: Writing

    /// Writes the entries the append log holds into the database (with whatever is
    /// buffered), as the next commit other than appends would.
    public func foldAppendLog() throws(StoreError) {
        try commit(folding: true)
    }

    public func commit() throws(StoreError) {
        try commit(folding: false)
    }

    private func commit(folding: Bool) throws(StoreError) {
        guard !pending.isEmpty || folding && appendLog?.held.isEmpty == false else { return }
        // Appends only (the feeds' small inputs): written to the append log, one write
        // and (with `--fsync always`) one sync, no SQLite transaction.
        if !folding, let appendLog, pending.allSatisfy({ if case .append = $0 { true } else { false } }) {
            let record = appendLog.encode(pending)
            if appendLog.fits(record.count) {
                try appendLog.write(record, entries: pending, sync: syncsAppendLog())
                pending = []
                return
            }
        }
        // Anything else, or a full log: one transaction with the log's entries first.
        let held = appendLog?.held ?? []
        let writes = held + pending
        pending = []
        // A log entry followed in this commit by a snapshot (or a redefinition, or the
        // removal) of its session is deleted by it in this same transaction: it is not
        // written at all (a bulk append goes to disk once, as the snapshot's chunks).
        var covered = Set<String>(), skip = [Bool](repeating: false, count: writes.count)
        for (i, w) in writes.enumerated().reversed() {
            switch w {
            case let .snapshot(id, _, _, _), let .define(id, _, _), let .remove(id): covered.insert(id)
            case let .append(id, _, _, _): skip[i] = covered.contains(id)
            }
        }
        do {
            try withFullSync(if: !held.isEmpty) { () throws(SQLError) in
                try exec("BEGIN IMMEDIATE")
                for (i, w) in writes.enumerated() where !skip[i] { try write(w) }
                if let appendLog, !held.isEmpty { try noteEpochs(folded: Int64(appendLog.epoch)) }
                try exec("COMMIT")
            }
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw StoreError("\(path): \(error.message)")
        }
        if let appendLog, !held.isEmpty { appendLog.start(epoch: appendLog.epoch + 1) }
    }

    /// Whether a commit of appends is synced before it returns (`--fsync always`).
    public var syncsEachCommit: Bool { sync == .always }

    /// Whether this commit's records in the append log are synced: each with `--fsync
    /// always`; with `batch`, one a second at most (as SQLite's WAL is synced at its
    /// checkpoints), so an OS crash loses about the last second's appends at most.
    private func syncsAppendLog() -> Bool {
        switch sync {
        case .always: return true
        case .off: return false
        case .batch:
            let now = ProcessInfo.processInfo.systemUptime
            guard now - lastLogSync >= 1 else { return false }
            lastLogSync = now
            return true
        }
    }
    private var lastLogSync = 0.0

    /// One buffered write, in the transaction under way.
    private func write(_ w: StoreWrite) throws(SQLError) {
        switch w {
        case let .define(id, origin, spec):
            try run("DELETE FROM log WHERE session=?1", id)
            try run("DELETE FROM snapshots WHERE session=?1", id)
            try run("DELETE FROM chunks WHERE session=?1", id)
            try run("""
                INSERT INTO sessions(id, origin, spec, position) VALUES(?1, ?2, ?3, (SELECT coalesce(max(position), 0) + 1 FROM sessions))
                ON CONFLICT(id) DO UPDATE SET origin=excluded.origin, spec=excluded.spec
                """, id, origin.rawValue, spec)
        case let .append(id, seq, kind, payload):
            try runBlobs("INSERT INTO log(session, seq, kind, payload) VALUES(?1, ?2, ?3, ?4)",
                         [.text(id), .int(seq), .int(Int64(kind))], blobs: [payload])
        case let .remove(id):
            for table in ["log", "snapshots", "chunks"] { try run("DELETE FROM \(table) WHERE session=?1", id) }
            try run("DELETE FROM sessions WHERE id=?1", id)
        case let .snapshot(id, seq, state, writes):
            for series in writes.clear { try run("DELETE FROM chunks WHERE session=?1 AND series=?2", id, series) }
            // A FIFO series' evicted points leave the disk with the chunks that held them.
            for (series, key) in writes.evict.sorted(by: { $0.key < $1.key }) {
                try run("DELETE FROM chunks WHERE session=?1 AND series=?2 AND first + length(x) / 8 <= ?3", id, series, Int64(key))
            }
            for c in writes.add {
                var args: [SQLValue] = [.text(id), .text(c.series), .int(Int64(c.first))]
                for k in c.columns.count..<5 { args.append(.null) }
                // Named in the order bound: the columns left null, then the blobs.
                let names = ["x", "v0", "v1", "v2", "v3"]
                let sql = "INSERT OR REPLACE INTO chunks(session, series, first, "
                    + (names.dropFirst(c.columns.count) + names.prefix(c.columns.count)).joined(separator: ", ")
                    + ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                try runBlobs(sql, args, blobs: c.columns)
            }
            try run("INSERT INTO snapshots(session, seq, state) VALUES(?1, ?2, ?3) ON CONFLICT(session) DO UPDATE SET seq=excluded.seq, state=excluded.state",
                    id, seq, state)
            try run("DELETE FROM log WHERE session=?1 AND seq<=?2", id, seq)
        }
    }

    /// Bytes of the database, its WAL and the append log on disk.
    public var fileBytes: Int {
        ([path, path + "-wal"] + [appendLog?.path].compactMap { $0 }).reduce(0) { total, p in
            total + ((try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0)
        }
    }

    // MARK: SQLite

    struct SQLError: Error { let message: String }
    enum SQLValue { case int(Int64), text(String), blob([UInt8]), null }

    private func exec(_ sql: String) throws(SQLError) {
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &err) == SQLITE_OK else {
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(err)
            throw SQLError(message: message)
        }
    }

    private func prepared(_ sql: String) throws(SQLError) -> OpaquePointer {
        if let s = statements[sql] { return s }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &s, nil) == SQLITE_OK, let s else {
            throw SQLError(message: String(cString: sqlite3_errmsg(db)))
        }
        statements[sql] = s
        return s
    }

    private func bind(_ s: OpaquePointer, _ args: [SQLValue]) {
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
        for (i, a) in args.enumerated() {
            let k = Int32(i + 1)
            switch a {
            case let .int(v): sqlite3_bind_int64(s, k, v)
            case let .text(t): sqlite3_bind_text(s, k, t, -1, cw_sqlite_transient())
            case let .blob(b): b.withUnsafeBytes { _ = sqlite3_bind_blob64(s, k, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count), cw_sqlite_transient()) }
            case .null: sqlite3_bind_null(s, k)
            }
        }
    }

    private func runValues(_ sql: String, _ args: [SQLValue]) throws(SQLError) {
        let s = try prepared(sql)
        bind(s, args)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw SQLError(message: String(cString: sqlite3_errmsg(db))) }
    }

    /// Runs a statement with `args` bound first, then `blobs` bound in place (no copy:
    /// the bytes stay valid until the step is done).
    private func runBlobs(_ sql: String, _ args: [SQLValue], blobs: [[UInt8]]) throws(SQLError) {
        let s = try prepared(sql)
        bind(s, args)
        func step(_ k: Int) -> Int32 {
            guard k < blobs.count else { return sqlite3_step(s) }
            return blobs[k].withUnsafeBytes { raw in
                _ = sqlite3_bind_blob64(s, Int32(args.count + k + 1), raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                        sqlite3_uint64(raw.count), nil)
                return step(k + 1)
            }
        }
        let rc = step(0)
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
        guard rc == SQLITE_DONE else { throw SQLError(message: String(cString: sqlite3_errmsg(db))) }
    }

    private func run(_ sql: String, _ args: Any...) throws(SQLError) {
        try runValues(sql, args.map { a -> SQLValue in
            switch a {
            case let v as Int64: return .int(v)
            case let v as String: return .text(v)
            case let v as [UInt8]: return .blob(v)
            default: return .null
            }
        })
    }

    private func query(_ sql: String, _ row: (OpaquePointer) throws(SQLError) -> Void) throws(SQLError) {
        let s = try prepared(sql)
        sqlite3_reset(s)
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                let message = String(cString: sqlite3_errmsg(db))
                sqlite3_reset(s)
                throw SQLError(message: message)
            }
            try row(s)
        }
        sqlite3_reset(s)
    }
}

private func text(_ s: OpaquePointer, _ i: Int32) -> String {
    guard let p = sqlite3_column_text(s, i) else { return "" }
    return String(cString: p)
}

private func blob(_ s: OpaquePointer, _ i: Int32) -> [UInt8] {
    let n = Int(sqlite3_column_bytes(s, i))
    guard n > 0, let p = sqlite3_column_blob(s, i) else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: p, count: n))
}

/// Copies the WAL into the database on a thread of its own, through a connection of its
/// own (SQLite's PASSIVE checkpoint: it never blocks the writer, which goes on
/// appending to the WAL meanwhile; then a RESTART, which holds the writer back while it
/// copies what came meanwhile, so that the WAL starts again from its beginning). The
/// writer's WAL hook tells it how many frames the WAL holds after each commit; it
/// checkpoints once `SQLiteStore.checkpointBytes` of them wait, or after a second without
/// commits while some wait, so the WAL is reset and stays near that size. With `--fsync always` the checkpoint syncs the database
/// file here, not on the server's thread.
final class Checkpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopping = false
    /// Frames in the WAL (the writer's last commit), and those already checkpointed.
    private var frames = 0, checkpointed = 0
    private let pageSize: Int
    private var db: OpaquePointer?
    private var thread: Thread?
    private var finished = false

    init?(path: String, sync: SQLiteStore.Sync, pageSize: Int) {
        self.pageSize = max(pageSize, 512)
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            sqlite3_close_v2(db)
            return nil
        }
        sqlite3_exec(db, "PRAGMA synchronous=\(sync.pragma)", nil, nil, nil)
        sqlite3_exec(db, "PRAGMA wal_autocheckpoint=0", nil, nil, nil)
        sqlite3_busy_timeout(db, 100)
        let t = Thread { [self] in run() }
        t.name = "sqlite-checkpoint"
        thread = t
        t.start()
    }

    /// A commit left `frames` frames in the WAL (from the writer's WAL hook).
    func committed(frames n: Int) {
        condition.lock()
        if n < frames { checkpointed = 0 }   // the WAL started again from its beginning
        frames = n
        if (frames - checkpointed) * pageSize >= SQLiteStore.checkpointBytes { condition.signal() }
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        // The WAL a previous run left (a crash leaves up to a few commits' worth) is
        // folded into the database and the file truncated, once, when no reader or
        // writer is busy (tried a few times while start-up reads the database).
        for _ in 0..<20 {
            var log: Int32 = 0, done: Int32 = 0
            if sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, &log, &done) == SQLITE_OK { break }
            usleep(250_000)
        }
        condition.lock()
        while !stopping {
            let due = (frames - checkpointed) * pageSize >= SQLiteStore.checkpointBytes
            if !due {
                let before = frames
                // A second of quiet with frames waiting also checkpoints.
                if condition.wait(until: Date().addingTimeInterval(1)) || frames != before || frames == checkpointed || stopping { continue }
            }
            condition.unlock()
            var log: Int32 = 0, done: Int32 = 0
            var rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &done)
            // The WAL starts again from its beginning only when a commit begins with all of
            // it copied, which a steady feed's commits, arriving while the copy runs, never
            // let happen: the WAL would grow by every commit for as long as the feed goes on
            // (with 64 kB pages, 13 MB a second for the monitoring feed). So the PASSIVE
            // copy, which never stops a commit, is followed by a RESTART: it waits for the
            // commit under way, holds the next one back while it copies the frames that came
            // meanwhile (a few) and syncs, and makes that next commit start the WAL again.
            // (Not when a large commit came meanwhile, a snapshot's chunks: the next commit
            // would wait for their copy. The next round copies them beside the commits.)
            if rc == SQLITE_OK && Int(log - done) * pageSize <= SQLiteStore.restartBytes {
                rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_RESTART, &log, &done)
            }
            condition.lock()
            if rc == SQLITE_OK { checkpointed = Int(done) } else { _ = condition.wait(until: Date().addingTimeInterval(0.1)) }
        }
        sqlite3_close_v2(db)
        db = nil
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The writer connection's WAL hook: tells the checkpointer (its context) how many
/// frames the WAL holds after a commit.
private func walHook(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: Int(frames))
    return SQLITE_OK
}

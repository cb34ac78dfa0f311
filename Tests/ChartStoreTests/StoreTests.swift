import Foundation
import Testing
import ChartStore
import SQLiteStore
import CSQLite

/// The stores keep what was committed, in order, and nothing else.
@Suite struct StoreTests {
    func folder() -> String {
        let dir = NSTemporaryDirectory() + "chartwire-store-\(UUID().uuidString)"
        return dir
    }

    /// The size of the file at `path`, nil when there is none.
    func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int
    }

    /// The page size of the database at `path`, read through a connection of its own.
    func pageSize(_ path: String) -> Int {
        var db: OpaquePointer?, statement: OpaquePointer?
        defer { sqlite3_finalize(statement); sqlite3_close(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
              sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { return 0 }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Drives a store through every write, then reads it back as a restart would.
    func exercise(_ store: any SessionStore) throws -> [StoredSession] {
        store.define("a", origin: .runtime, spec: Array(#"{"id":"a"}"#.utf8))
        store.append("a", kind: 4, payload: [4, 1])
        store.append("a", kind: 4, payload: [4, 2])
        store.append("a", kind: 4, payload: [4, 9])
        store.withdrawLast("a")  // refused: never committed
        store.define("b", origin: .config, spec: Array(#"{"id":"b"}"#.utf8))
        store.append("b", kind: 2, payload: [2])
        try store.commit()
        #expect(!store.hasPending)
        store.append("a", kind: 4, payload: [4, 3])
        let x = [UInt8](repeating: 7, count: 16), y = [UInt8](repeating: 8, count: 16)
        store.snapshot("a", state: [9], chunks: ChunkWrites(add: [StoredChunk(series: "s", first: 0, columns: [x, y]),
                                                                  StoredChunk(series: "gone", first: 0, columns: [x])]))
        // The next snapshot: a FIFO evicted key 0 and 1 (the first chunk goes whole), a
        // series went, new points came.
        store.snapshot("a", state: [1, 2, 3], chunks: ChunkWrites(clear: ["gone"], evict: ["s": 3],
                                                                 add: [StoredChunk(series: "s", first: 2, columns: [x, y]),
                                                                       StoredChunk(series: "s", first: 4, columns: [x, y])]))
        store.append("a", kind: 4, payload: [4, 4])
        store.define("c", origin: .runtime, spec: [1])
        store.remove("c")
        try store.commit()
        #expect(store.usage("a").logEntries == 1 && store.usage("a").snapshotBytes == 3 + 64)
        return try store.loadAll()
    }

    func check(_ loaded: [StoredSession]) {
        #expect(loaded.map(\.id) == ["a", "b"])
        let a = loaded[0]
        #expect(a.origin == .runtime && a.spec == Array(#"{"id":"a"}"#.utf8))
        #expect(a.snapshot?.seq == 3 && a.snapshot?.state == [1, 2, 3])
        #expect(a.snapshot?.chunks.map(\.first) == [2, 4] && a.snapshot?.chunks.allSatisfy { $0.series == "s" && $0.columns.count == 2 } == true)
        #expect(a.log == [StoredEntry(seq: 4, kind: 4, payload: [4, 4])], "the log after the snapshot, withdrawn input gone")
        #expect(loaded[1].origin == .config && loaded[1].log.map(\.payload) == [[2]])
    }

    @Test func memoryStoreKeepsWhatWasCommitted() throws {
        let store = MemoryStore()
        check(try exercise(store))
        store.append("a", kind: 4, payload: [4, 5])
        store.crash()
        check(try store.loadAll())
    }

    @Test func sqliteStoreKeepsWhatWasCommittedAcrossReopening() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let store = try SQLiteStore(folder: dir, sync: .always)
            check(try exercise(store))
            // Not committed: lost with the process.
            store.append("a", kind: 4, payload: [4, 5])
        }
        let reopened = try SQLiteStore(folder: dir, sync: .batch)
        let loaded = try reopened.loadAll()
        check(loaded)
        // Sequence numbers go on after the stored ones.
        reopened.append("a", kind: 4, payload: [4, 6])
        try reopened.commit()
        #expect(try reopened.loadAll()[0].log.map(\.seq) == [4, 5])
    }

    @Test func oneServerPerFolderAndDamagedFilesAreNamed() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try SQLiteStore(folder: dir, sync: .always)
        #expect(throws: StoreError.self) { _ = try SQLiteStore(folder: dir, sync: .always) }
        _ = first

        let damaged = folder()
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: damaged + "/" + SQLiteStore.fileName))
        do {
            _ = try SQLiteStore(folder: damaged, sync: .always)
            Issue.record("a damaged database opened")
        } catch {
            #expect(error.message.contains(SQLiteStore.fileName) && error.message.contains("move it aside"))
        }
    }

    /// A log entry covered by a snapshot of its session in the same commit is never
    /// written (a bulk append reaches the disk once, as chunks); chunks of every width
    /// (x alone up to x and four value columns) come back column for column.
    @Test func sqliteStoreSkipsLogEntriesItsSnapshotCoversAndKeepsEveryWidth() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(folder: dir, sync: .off)
        store.define("a", origin: .runtime, spec: [1])
        try store.commit()
        let before = store.fileBytes
        store.append("a", kind: 4, payload: [UInt8](repeating: 3, count: 8 << 20))
        let columns = (0..<5).map { k in [UInt8](repeating: UInt8(k + 1), count: 16) }
        store.snapshot("a", state: [5], chunks: ChunkWrites(add: (1...5).map { n in
            StoredChunk(series: "w\(n)", first: 0, columns: Array(columns.prefix(n)))
        }))
        store.append("a", kind: 4, payload: [4, 7])   // after the snapshot: logged
        try store.commit()
        #expect(store.fileBytes - before < 2 << 20, "the covered 8 MB entry was written: \(store.fileBytes - before) bytes more")
        let loaded = try store.loadAll()
        #expect(loaded.first?.log.map(\.payload) == [[4, 7]] && loaded.first?.log.first?.seq == 2)
        let chunks = try #require(loaded.first?.snapshot?.chunks)
        #expect(chunks.map(\.series) == ["w1", "w2", "w3", "w4", "w5"])
        for c in chunks { #expect(c.columns == Array(columns.prefix(c.columns.count)) && c.columns.count == Int(c.series.dropFirst())!) }
    }

    /// The checkpointer thread copies the WAL into the database once enough of it
    /// waits (no commit runs a checkpoint itself), and at start-up folds and truncates
    /// the WAL a previous run left.
    @Test func checkpointsRunBesideTheCommits() throws {
        let dir = folder(), crashed = folder()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: crashed) }
        func size(_ name: String) -> Int { fileSize(dir + "/" + name) ?? 0 }
        func waitFor(_ what: () -> Bool) -> Bool {
            for _ in 0..<100 where !what() { usleep(50_000) }
            return what()
        }
        let column = [UInt8](repeating: 5, count: 512 << 10)
        do {
            let store = try SQLiteStore(folder: dir, sync: .off)
            store.define("a", origin: .runtime, spec: [1])
            store.snapshot("a", state: [1], chunks: ChunkWrites(add: (0..<24).map { StoredChunk(series: "s", first: $0 * 65_536, columns: [column, column]) }))
            try store.commit()
            let wal = size(SQLiteStore.fileName + "-wal")
            #expect(wal >= 24 << 20, "the commit went to the WAL")
            #expect(waitFor { size(SQLiteStore.fileName) >= 24 << 20 }, "the checkpointer copied it into the database")
            // The files as a crash leaves them (copied while the store is open: closing it
            // would checkpoint and delete the WAL): a commit in the WAL.
            store.snapshot("a", state: [2], chunks: ChunkWrites(add: [StoredChunk(series: "s", first: 24 * 65_536, columns: [column, column])]))
            try store.commit()
            try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
            for f in [SQLiteStore.fileName, SQLiteStore.fileName + "-wal"] {
                try FileManager.default.copyItem(atPath: dir + "/" + f, toPath: crashed + "/" + f)
            }
        }
        let walLeft = fileSize(crashed + "/" + SQLiteStore.fileName + "-wal") ?? 0
        #expect(walLeft > 0)
        let reopened = try SQLiteStore(folder: crashed, sync: .off)
        #expect(waitFor {
            fileSize(crashed + "/" + SQLiteStore.fileName + "-wal") == 0
        }, "the WAL left by the last run is folded and truncated at start-up")
        #expect(try reopened.loadAll().first?.snapshot?.chunks.count == 25)
    }

    /// A new database has pages of 4 kB, the disk's block (AppendLogTests: a small
    /// append's commit does not reach the WAL at all).
    @Test func aNewDatabaseHas4kBPages() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(folder: dir, sync: .off)
        store.define("a", origin: .runtime, spec: [1])
        try store.commit()
        for k in 1...10 {
            store.append("a", kind: 4, payload: [4, UInt8(k)])
            try store.commit()
        }
        #expect(pageSize(store.path) == 4_096 && store.pageSize == 4_096 && store.pageSizeNote == nil)
        #expect(try store.loadAll().first?.log.map(\.seq) == Array(1...10))
    }

    /// A steady feed, its commits coming while the checkpointer copies, still lets the
    /// WAL start again from its beginning: 3,000 commits of 64 kB each (190 MB of frames;
    /// a snapshot every 100 keeps the database itself small) go through a WAL file that
    /// stays within three checkpoints' worth.
    @Test func theWALStaysBoundedUnderASteadyFeed() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(folder: dir, sync: .batch)
        store.define("a", origin: .runtime, spec: [1])
        try store.commit()
        func wal() -> Int { fileSize(store.path + "-wal") ?? 0 }
        var largest = 0
        for k in 1...3_000 {
            store.append("a", kind: 4, payload: [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: 60_000))
            if k % 100 == 0 { store.snapshot("a", state: [7], chunks: ChunkWrites()) }
            try store.commit()
            usleep(500)
            if k % 25 == 0 { largest = max(largest, wal()) }
        }
        #expect(largest <= 3 * SQLiteStore.checkpointBytes, "the WAL reached \(largest >> 20) MB")
        let loaded = try store.loadAll().first
        #expect(loaded?.snapshot?.seq == 3_000 && loaded?.log.isEmpty == true)
    }

    /// A data folder made before the log was `WITHOUT ROWID` (a rowid table and an index
    /// on its key) opens, reads back, and takes new entries as before.
    @Test func aLogTableMadeBeforeKeepsWorking() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var db: OpaquePointer?
        #expect(sqlite3_open(dir + "/" + SQLiteStore.fileName, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, """
            PRAGMA page_size=65536; PRAGMA journal_mode=WAL;
            CREATE TABLE sessions(id TEXT PRIMARY KEY, origin TEXT NOT NULL, spec BLOB NOT NULL, position INTEGER NOT NULL);
            CREATE TABLE log(session TEXT NOT NULL, seq INTEGER NOT NULL, kind INTEGER NOT NULL, payload BLOB NOT NULL, PRIMARY KEY(session, seq));
            INSERT INTO sessions VALUES('a', 'runtime', x'7b7d', 1);
            INSERT INTO log VALUES('a', 1, 4, x'0401'), ('a', 2, 4, x'0402');
            """, nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        do {
            let store = try SQLiteStore(folder: dir, sync: .always)
            // Its 64 kB pages are kept, and the server's log is told how to convert them.
            #expect(store.pageSize == 65_536 && pageSize(store.path) == 65_536)
            #expect(store.pageSizeNote?.contains("64 kB pages") == true && store.pageSizeNote?.contains("PRAGMA page_size=4096; VACUUM") == true)
            #expect(try store.loadAll().first?.log.map(\.payload) == [[4, 1], [4, 2]])
            store.append("a", kind: 4, payload: [4, 3])
            try store.commit()
            store.snapshot("a", state: [7], chunks: ChunkWrites())
            store.append("a", kind: 4, payload: [4, 4])
            try store.commit()
        }
        let loaded = try SQLiteStore(folder: dir, sync: .always).loadAll()
        #expect(loaded.first?.snapshot?.seq == 3 && loaded.first?.log.map(\.seq) == [4] && loaded.first?.log.first?.payload == [4, 4])
    }
}

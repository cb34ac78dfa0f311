import Foundation
import Testing
import ChartStore
@testable import SQLiteStore

/// The append log in front of the database (`AppendLog`): commits made of appends only
/// are records in its file; what a crash leaves there is read back whole commits at a
/// time, once, and folded into the database.
@Suite struct AppendLogTests {
    func folder() -> String { NSTemporaryDirectory() + "chartwire-applog-\(UUID().uuidString)" }

    func fileSize(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0 }

    /// Copies the data folder's files as a `kill -9` would leave them (the store still
    /// open: closing it would checkpoint).
    func crashCopy(_ from: String, to: String) throws {
        try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true)
        for f in [SQLiteStore.fileName, SQLiteStore.fileName + "-wal", AppendLog.fileName]
        where FileManager.default.fileExists(atPath: from + "/" + f) {
            try FileManager.default.copyItem(atPath: from + "/" + f, toPath: to + "/" + f)
        }
    }

    /// A store in `dir` holding session "a", fed `payloads`, a commit each.
    func fed(_ dir: String, sync: SQLiteStore.Sync, _ payloads: [[UInt8]]) throws -> SQLiteStore {
        let store = try SQLiteStore(folder: dir, sync: sync)
        store.define("a", origin: .runtime, spec: [1])
        try store.commit()
        for p in payloads {
            store.append("a", kind: 4, payload: p)
            try store.commit()
        }
        return store
    }

    func append(_ id: String, _ seq: Int64, _ payload: [UInt8]) -> StoreWrite {
        .append(id, seq: seq, kind: 4, payload: payload)
    }

    /// A small append's commit is one record in the append log: the WAL does not grow,
    /// and a crash right after keeps it.
    @Test func appendsGoToTheLogFileNotTheWAL() throws {
        let dir = folder(), crashed = folder()
        defer { for d in [dir, crashed] { try? FileManager.default.removeItem(atPath: d) } }
        do {
            let store = try SQLiteStore(folder: dir, sync: .always)
            store.define("a", origin: .runtime, spec: [1])
            try store.commit()
            usleep(300_000)   // (the checkpointer's start-up fold of the WAL is done)
            store.define("b", origin: .runtime, spec: [2])
            try store.commit()
            let wal = fileSize(store.path + "-wal")
            #expect(wal > 0)
            for k in 1...10 {
                store.append("a", kind: 4, payload: [4, UInt8(k)])
                try store.commit()
            }
            #expect(fileSize(store.path + "-wal") == wal, "appends wrote to the WAL")
            #expect(fileSize(dir + "/" + AppendLog.fileName) == AppendLog.capacity, "the file keeps its size")
            try withExtendedLifetime(store) { try crashCopy(dir, to: crashed) }
        }
        for _ in 0..<2 {   // the second opening finds the entries folded, not twice
            let loaded = try SQLiteStore(folder: crashed, sync: .always).loadAll()
            #expect(loaded.first?.log.map(\.seq) == Array(1...10))
            #expect(loaded.first?.log.map(\.payload) == (1...10).map { [4, UInt8($0)] })
        }
    }

    /// Entries written after a fold (here a definition's commit) follow the folded ones
    /// once each, though the file still holds the folded records after them.
    @Test func entriesAfterAFoldFollowTheFoldedOnesOnce() throws {
        let dir = folder(), crashed = folder()
        defer { for d in [dir, crashed] { try? FileManager.default.removeItem(atPath: d) } }
        do {
            let store = try fed(dir, sync: .batch, (1...5).map { [UInt8](repeating: UInt8($0), count: 100) })
            store.define("b", origin: .runtime, spec: [2])   // folds a's 5 entries
            try store.commit()
            store.append("a", kind: 4, payload: [UInt8](repeating: 6, count: 100))   // as long: the stale records align
            store.append("b", kind: 4, payload: [1])
            try store.commit()
            try withExtendedLifetime(store) { try crashCopy(dir, to: crashed) }
        }
        let loaded = try SQLiteStore(folder: crashed, sync: .batch).loadAll()
        #expect(loaded.map(\.id) == ["a", "b"])
        #expect(loaded.first?.log.map { $0.payload[0] } == [1, 2, 3, 4, 5, 6])
        #expect(loaded.last?.log.map(\.payload) == [[1]])
    }

    /// A full file folds into the database and starts again; nothing is lost or doubled.
    @Test func aFullLogFoldsAndStartsAgain() throws {
        let dir = folder(), crashed = folder()
        defer { for d in [dir, crashed] { try? FileManager.default.removeItem(atPath: d) } }
        let n = 3 * AppendLog.capacity / 50_000
        do {
            let store = try fed(dir, sync: .off, (1...n).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 50_000) })
            try withExtendedLifetime(store) { try crashCopy(dir, to: crashed) }   // (open, as a crash leaves it)
        }
        let log = try SQLiteStore(folder: crashed, sync: .off).loadAll().first?.log ?? []
        #expect(log.map(\.seq) == (1...n).map(Int64.init))
        #expect(log.allSatisfy { $0.payload == [UInt8](repeating: UInt8(truncatingIfNeeded: $0.seq), count: 50_000) })
    }

    /// A clean stop folds the append log: the database alone then holds every entry.
    @Test func foldingLeavesEverythingInTheDatabase() throws {
        let dir = folder(), copy = folder()
        defer { for d in [dir, copy] { try? FileManager.default.removeItem(atPath: d) } }
        do {
            let store = try fed(dir, sync: .always, [[1], [2], [3]])
            try store.foldAppendLog()
            try withExtendedLifetime(store) { try crashCopy(dir, to: copy) }
            try FileManager.default.removeItem(atPath: copy + "/" + AppendLog.fileName)
        }
        #expect(try SQLiteStore(folder: copy, sync: .always).loadAll().first?.log.map(\.payload) == [[1], [2], [3]])
    }

    /// Damaged files (bytes changed, cut, or garbage written over them) read back as a
    /// whole number of the commits written, from the first: never a commit in part,
    /// never one out of order, never a crash.
    @Test func aDamagedFileReadsAsAPrefixOfItsCommits() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = try AppendLog(folder: dir)
        log.start(epoch: 3)
        var rng = SystemRandomNumberGenerator()
        var commits: [[AppendLog.Recovered]] = [], bytes: [UInt8] = []
        for c in 0..<40 {
            let entries = (0..<Int.random(in: 1...4, using: &rng)).map { k in
                AppendLog.Recovered(session: ["a", "bb", "séance"][k % 3], seq: Int64(c * 10 + k), kind: UInt8(k),
                                    payload: (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            }
            commits.append(entries)
            bytes += log.encode(entries.map { .append($0.session, seq: $0.seq, kind: $0.kind, payload: $0.payload) })
        }
        let prefixes = (0...commits.count).map { Array(commits.prefix($0).joined()) }
        #expect(AppendLog.parse(bytes[...], folded: 2).entries == prefixes.last)
        for round in 0..<3_000 {
            var damaged = bytes
            switch round % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...3, using: &rng) { damaged[Int.random(in: 0..<damaged.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            case 1:
                damaged = Array(damaged.prefix(Int.random(in: 0..<damaged.count, using: &rng)))
            default:
                let at = Int.random(in: 0..<damaged.count, using: &rng)
                for i in at..<min(damaged.count, at + Int.random(in: 1...600, using: &rng)) { damaged[i] = UInt8.random(in: 0...255, using: &rng) }
            }
            let read = AppendLog.parse(damaged[...], folded: 2).entries
            #expect(prefixes.contains(read), "round \(round): \(read.count) entries, not a prefix of whole commits")
        }
    }

    /// Reading the file: whole commits only, of one epoch later than the folded one.
    @Test func readingStopsAtATornCommitAndAtAnotherEpoch() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = try AppendLog(folder: dir)
        log.start(epoch: 7)
        let first = log.encode([append("a", 1, [1])])
        let second = log.encode([append("a", 2, [2, 2]), append("b", 1, [3])])   // one commit of two records
        let whole = first + second
        func read(_ bytes: [UInt8], folded: UInt64 = 6) -> [Int64] {
            AppendLog.parse(bytes[...], folded: folded).entries.map(\.seq)
        }
        #expect(read(whole) == [1, 2, 1])
        #expect(AppendLog.parse(whole[...], folded: 6).entries.last == AppendLog.Recovered(session: "b", seq: 1, kind: 4, payload: [3]))
        #expect(read(whole, folded: 7).isEmpty, "an epoch already folded is skipped whole")
        // Torn anywhere in the second commit: the first alone (its first record alone is
        // not a commit).
        for cut in [whole.count - 1, whole.count - 5, first.count + 9, first.count + 40] {
            #expect(read(Array(whole.prefix(cut)) + [UInt8](repeating: 0, count: 64)) == [1], "cut at \(cut)")
        }
        var flipped = whole
        flipped[whole.count - 1] ^= 0x40
        #expect(read(flipped) == [1], "a changed byte fails the CRC")
        // Records of an earlier epoch after the current ones end the reading.
        log.start(epoch: 6)
        let stale = log.encode([append("a", 9, [9])])
        #expect(read(first + stale, folded: 5) == [1])
        #expect(read([UInt8](repeating: 0, count: 100)).isEmpty)
    }
}

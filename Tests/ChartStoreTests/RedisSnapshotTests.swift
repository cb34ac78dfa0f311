import Testing
import ChartStore
import RedisStore

/// The cluster's snapshot manifest (docs/cluster.md): what a snapshot's chunk writes
/// make of the chunks in Redis, and the manifest's bytes.
@Suite struct RedisSnapshotTests {
    func chunk(_ series: String, _ first: Int, _ points: Int, columns: Int = 2) -> StoredChunk {
        StoredChunk(series: series, first: first,
                    columns: (0..<columns).map { c in (0..<points * 8).map { UInt8(truncatingIfNeeded: first + c + $0) } })
    }

    @Test func aFirstSnapshotWritesEveryChunk() {
        let (refs, added) = SnapshotManifest.next([], ChunkWrites(clear: ["a", "b"], add: [chunk("a", 0, 4), chunk("a", 4, 2), chunk("b", 0, 3, columns: 5)]),
                                                  prefix: "n.10.")
        #expect(refs == [ChunkRef(series: "a", first: 0, points: 4, columns: 2, field: "n.10.0"),
                         ChunkRef(series: "a", first: 4, points: 2, columns: 2, field: "n.10.1"),
                         ChunkRef(series: "b", first: 0, points: 3, columns: 5, field: "n.10.2")])
        #expect(added.map(\.field) == ["n.10.0", "n.10.1", "n.10.2"])
        // A field holds the columns one after the other, as SQLite's blobs hold them.
        #expect(added[2].bytes == chunk("b", 0, 3, columns: 5).columns.flatMap { $0 })
        #expect(SnapshotManifest.columns(added[2].bytes, of: refs[2]) == chunk("b", 0, 3, columns: 5).columns)
        #expect(SnapshotManifest.columns(Array(added[2].bytes.dropLast()), of: refs[2]) == nil)
    }

    @Test func anAppendOnlySeriesGetsOnlyItsNewChunksAndEvictedOnesGo() {
        let base = [ChunkRef(series: "a", first: 0, points: 4, columns: 2, field: "n.10.0"),
                    ChunkRef(series: "a", first: 4, points: 2, columns: 2, field: "n.10.1"),
                    ChunkRef(series: "gone", first: 0, points: 1, columns: 2, field: "n.10.2"),
                    ChunkRef(series: "fifo", first: 0, points: 5, columns: 2, field: "n.10.3"),
                    ChunkRef(series: "fifo", first: 5, points: 5, columns: 2, field: "n.10.4")]
        // "a" was appended to (keys 6..8), "fifo" evicted keys below 6 and got 10..11, "gone" went.
        let writes = ChunkWrites(clear: ["gone"], evict: ["a": 0, "fifo": 6], add: [chunk("a", 6, 3), chunk("fifo", 10, 2)])
        let (refs, added) = SnapshotManifest.next(base, writes, prefix: "m.20.")
        #expect(refs.map(\.field) == ["n.10.0", "n.10.1", "m.20.0", "n.10.4", "m.20.1"])
        #expect(refs.map(\.series) == ["a", "a", "a", "fifo", "fifo"])
        #expect(added.map(\.field) == ["m.20.0", "m.20.1"])
    }

    @Test func aRewrittenSeriesReplacesItsChunks() {
        let base = [ChunkRef(series: "a", first: 0, points: 4, columns: 2, field: "n.10.0")]
        let (refs, added) = SnapshotManifest.next(base, ChunkWrites(clear: ["a"], add: [chunk("a", 0, 3)]), prefix: "m.20.")
        #expect(refs == [ChunkRef(series: "a", first: 0, points: 3, columns: 2, field: "m.20.0")])
        #expect(added.count == 1)
    }

    @Test func theManifestRoundTrips() throws {
        let refs = [ChunkRef(series: "cpu €", first: 65_536, points: 65_536, columns: 2, field: "node.123.0"),
                    ChunkRef(series: "", first: -3, points: 0, columns: 0, field: "x")]
        #expect(try SnapshotManifest.decode(SnapshotManifest.encode(refs)) == refs)
        #expect(try SnapshotManifest.decode(SnapshotManifest.encode([])) == [])
        #expect(throws: SnapshotManifest.DecodeError.self) { try SnapshotManifest.decode(Array(SnapshotManifest.encode(refs).dropLast())) }
        #expect(throws: SnapshotManifest.DecodeError.self) { try SnapshotManifest.decode([2]) }
    }
}

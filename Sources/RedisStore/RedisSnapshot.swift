import ChartStore
import Foundation

/// A session's snapshot in Redis (docs/cluster.md, "What is in Redis"): the state and
/// the sequence number N it covers in `cw:snap:{inc}` (a hash: `seq`, `state`,
/// `chunks`), its points as chunks in the hash `cw:chunks:{inc}`, one field per chunk
/// holding the chunk's float64 columns one after the other (the bytes SQLite's `chunks`
/// rows hold: `SessionCodec.columnBytes`). `chunks` of `cw:snap` is the manifest: which
/// fields hold which series' points.
///
/// A chunk field is never rewritten: a snapshot writes its new chunks under fields
/// named after the node and N, then one script switches the manifest (only if the
/// snapshot it was computed against is still the current one), deletes the fields the
/// new manifest does not name, and trims the stream. A reader that finds a field gone
/// read a manifest that was replaced meanwhile, and reads again.
public struct ChunkRef: Equatable, Sendable {
    public var series: String
    /// Key of its first point (as `StoredChunk.first`).
    public var first: Int
    public var points: Int
    /// Columns (x, then each value field), each `points` float64s.
    public var columns: Int
    /// Its field in `cw:chunks:{inc}`.
    public var field: String
    public init(series: String, first: Int, points: Int, columns: Int, field: String) {
        self.series = series; self.first = first; self.points = points; self.columns = columns; self.field = field
    }
}

public enum SnapshotManifest {
    /// The manifest's bytes: per chunk, series (u32 length, UTF-8), first, points (i64),
    /// columns (u8), field (u32 length, UTF-8); little-endian.
    public static func encode(_ refs: [ChunkRef]) -> [UInt8] {
        var out: [UInt8] = [1]
        func int(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func text(_ s: String) {
            withUnsafeBytes(of: UInt32(s.utf8.count).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: s.utf8)
        }
        for r in refs {
            text(r.series)
            int(Int64(r.first))
            int(Int64(r.points))
            out.append(UInt8(r.columns))
            text(r.field)
        }
        return out
    }

    public struct DecodeError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> [ChunkRef] {
        guard bytes.first == 1 else { throw DecodeError(description: "the snapshot's chunk list has an unknown format") }
        var i = 1
        func take(_ n: Int) throws(DecodeError) -> ArraySlice<UInt8> {
            guard n >= 0, bytes.count - i >= n else { throw DecodeError(description: "the snapshot's chunk list is cut short") }
            defer { i += n }
            return bytes[i..<i + n]
        }
        func int() throws(DecodeError) -> Int {
            let b = try take(8)
            var v: UInt64 = 0
            for (k, byte) in b.enumerated() { v |= UInt64(byte) << (8 * UInt64(k)) }
            return Int(Int64(bitPattern: v))
        }
        func text() throws(DecodeError) -> String {
            let b = try take(4)
            var n: UInt32 = 0
            for (k, byte) in b.enumerated() { n |= UInt32(byte) << (8 * UInt32(k)) }
            return String(decoding: try take(Int(n)), as: UTF8.self)
        }
        var refs: [ChunkRef] = []
        while i < bytes.count {
            let series = try text()
            let first = try int(), points = try int()
            let columns = Int(try take(1).first!)
            refs.append(ChunkRef(series: series, first: first, points: points, columns: columns, field: try text()))
        }
        return refs
    }

    /// The manifest after a snapshot's chunk writes (applied as every store applies
    /// them: `BufferedStore.apply`), and the chunks to write: each new chunk under the
    /// field `prefix` + its index. In series, then key order.
    public static func next(_ base: [ChunkRef], _ writes: ChunkWrites, prefix: String) -> (refs: [ChunkRef], added: [(field: String, bytes: [UInt8])]) {
        var rows: [String: [Int: ChunkRef]] = [:]
        for r in base { rows[r.series, default: [:]][r.first] = r }
        var added: [(field: String, bytes: [UInt8])] = []
        BufferedStore.apply(writes, to: &rows, points: \.points) { c in
            let field = prefix + String(added.count)
            added.append((field, c.columns.flatMap { $0 }))
            return ChunkRef(series: c.series, first: c.first, points: c.points, columns: c.columns.count, field: field)
        }
        let refs = rows.keys.sorted().flatMap { s in rows[s]!.keys.sorted().map { rows[s]![$0]! } }
        // (A chunk added and replaced by a later one of the same writes is not written.)
        let live = Set(refs.map(\.field))
        return (refs, added.filter { live.contains($0.field) })
    }

    /// A chunk's field bytes back as its columns; nil when the length does not match.
    public static func columns(_ bytes: [UInt8], of ref: ChunkRef) -> [[UInt8]]? {
        let width = ref.points * 8
        guard bytes.count == width * ref.columns else { return nil }
        return (0..<ref.columns).map { Array(bytes[$0 * width..<($0 + 1) * width]) }
    }
}

import CZlib
import ChartStore
import Foundation

/// The file in front of the database that takes the commits made of appends only
/// (docs/persistence.md, "The append log"): the monitoring feed's small inputs, each
/// answered once it is in this file (and, with `--fsync always`, synced), without a
/// SQLite transaction. `SQLiteStore` folds what the file holds into the database's `log`
/// table in the transaction of its next other commit (a snapshot, a definition, a
/// removal), or when the file is full, and then starts the file again.
///
/// The file has a fixed size (`capacity`), written once with zeros when it is made, so
/// that a sync never changes its size or its blocks' allocation: it writes the data
/// alone. Records follow one another from its start; each is
///
///     u32 body length, u32 CRC-32 of the body,
///     body: u64 epoch, u8 flags (1: the last record of its commit), u16 id length,
///           the session id (UTF-8), i64 seq, u8 kind, the payload
///
/// little-endian. The **epoch** numbers the file's generations: each is handed out once
/// (recorded in the database's `meta` table before it is used), written by one process
/// from the file's start, records only appended, and the database records the last
/// epoch it has folded in. At start-up the file is read from its start while records are
/// whole (their CRC holds), of one epoch, later than the folded one; a commit counts
/// only when its last record is read, so a commit torn by a crash is left out whole.
/// Bytes of older generations (or zeros) end the reading, as does anything torn.
final class AppendLog {
    static let fileName = "chartwire.log"
    /// The file's size: what it holds before its entries are folded into the database.
    static let capacity = 4 << 20
    static let headerBytes = 8
    /// Epoch, flags, id length, seq, kind.
    static let fixedBodyBytes = 8 + 1 + 2 + 8 + 1

    let path: String
    private let fd: Int32
    /// The generation written now, and where its next record goes.
    private(set) var epoch: UInt64 = 0
    private(set) var end = 0
    /// The entries written in this generation, in order, for the fold.
    private(set) var held: [StoreWrite] = []

    /// An entry read back from the file.
    struct Recovered: Equatable {
        var session: String
        var seq: Int64
        var kind: UInt8
        var payload: [UInt8]
    }

    /// Opens (creating and filling when absent or short) the file in `folder`.
    init(folder: String) throws(StoreError) {
        path = folder + "/" + Self.fileName
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StoreError("cannot open \(path): \(String(cString: strerror(errno))); make the data folder writable, or pass --data DIR")
        }
        var st = stat()
        if fstat(fd, &st) == 0, Int(st.st_size) < Self.capacity {
            // Zeros to its full size, synced once: later syncs then change no metadata.
            // Written a 4 kB block at a time: one large write fills the page cache with
            // large folios (2 MB), and each later small write into one costs 4-5 times
            // as much (measured: 0.9 against 4.7 µs a record unsynced, 38 against 46-59
            // µs synced; docs/bench.md, "Durable sessions: the append log").
            let block = [UInt8](repeating: 0, count: 4096)
            var at = Int(st.st_size) / 4096 * 4096, failed = false
            while at < Self.capacity, !failed {
                failed = (try? writeAll(block, at: at)) == nil
                at += 4096
            }
            guard !failed, fsync(fd) == 0 else {
                throw StoreError("cannot write \(path): \(String(cString: strerror(errno))); free some disk space, or pass --data DIR")
            }
        }
    }

    deinit { close(fd) }

    // MARK: Reading

    /// The whole commits of the generation the file holds, when it is later than
    /// `folded`; its epoch (0 when the file holds none).
    func recover(folded: UInt64) -> (epoch: UInt64, entries: [Recovered]) {
        var bytes = [UInt8](repeating: 0, count: Self.capacity)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return (0, []) }
        return Self.parse(bytes[0..<n], folded: folded)
    }

    /// Reads records from the start of `bytes` (see the type's comment).
    static func parse(_ bytes: ArraySlice<UInt8>, folded: UInt64) -> (epoch: UInt64, entries: [Recovered]) {
        var at = bytes.startIndex
        var epoch: UInt64 = 0
        var accepted: [Recovered] = [], commit: [Recovered] = []
        while bytes.endIndex - at >= headerBytes {
            let length = Int(readLE(bytes, at, UInt32.self))
            let crc = readLE(bytes, at + 4, UInt32.self)
            let body = at + headerBytes
            guard length >= fixedBodyBytes, length <= bytes.endIndex - body,
                  crc == checksum(bytes[body..<body + length])
            else { break }
            let e = readLE(bytes, body, UInt64.self)
            if epoch == 0 {
                guard e > folded else { break }
                epoch = e
            }
            guard e == epoch else { break }
            let flags = bytes[body + 8]
            let idLength = Int(readLE(bytes, body + 9, UInt16.self))
            guard fixedBodyBytes + idLength <= length,
                  let id = String(validating: bytes[body + 11..<body + 11 + idLength], as: UTF8.self) else { break }
            let rest = body + 11 + idLength
            let seq = Int64(bitPattern: readLE(bytes, rest, UInt64.self))
            let kind = bytes[rest + 8]
            commit.append(Recovered(session: id, seq: seq, kind: kind, payload: Array(bytes[rest + 9..<body + length])))
            if flags & 1 != 0 {
                accepted += commit
                commit = []
            }
            at = body + length
        }
        return (epoch, accepted)
    }

    private static func readLE<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, _ at: Int, _: T.Type) -> T {
        var v: T = 0
        for i in 0..<MemoryLayout<T>.size { v |= T(bytes[at + i]) << (8 * i) }
        return v
    }

    // MARK: Writing

    /// The bytes of `writes` (appends only) as one commit's records.
    func encode(_ writes: [StoreWrite]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, w) in writes.enumerated() {
            guard case let .append(id, seq, kind, payload) = w else { continue }
            let idBytes = Array(id.utf8.prefix(Int(UInt16.max)))
            var body: [UInt8] = []
            body.reserveCapacity(Self.fixedBodyBytes + idBytes.count + payload.count)
            Self.appendLE(&body, epoch)
            body.append(i == writes.count - 1 ? 1 : 0)
            Self.appendLE(&body, UInt16(idBytes.count))
            body += idBytes
            Self.appendLE(&body, UInt64(bitPattern: seq))
            body.append(kind)
            body += payload
            Self.appendLE(&out, UInt32(body.count))
            Self.appendLE(&out, Self.checksum(body[...]))
            out += body
        }
        return out
    }

    private static func appendLE<T: FixedWidthInteger>(_ out: inout [UInt8], _ v: T) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    /// A record body's CRC-32 (zlib's).
    private static func checksum(_ body: ArraySlice<UInt8>) -> UInt32 {
        body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// Whether `bytes` more fit in the file.
    func fits(_ bytes: Int) -> Bool { end + bytes <= Self.capacity }

    /// Writes a commit's records (from `encode`) after the last, synced when `sync`.
    func write(_ record: [UInt8], entries: [StoreWrite], sync: Bool) throws(StoreError) {
        do { try writeAll(record, at: end) } catch { throw StoreError("\(path): \(error.message)") }
        if sync, fdatasync(fd) != 0 {
            throw StoreError("\(path): fdatasync: \(String(cString: strerror(errno)))")
        }
        end += record.count
        held += entries
    }

    /// Starts generation `epoch` from the file's start (its earlier entries are folded).
    func start(epoch e: UInt64) {
        epoch = e
        end = 0
        held = []
    }

    struct IOError: Error { let message: String }

    private func writeAll(_ bytes: [UInt8], at offset: Int) throws(IOError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError(message: "write: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }
}

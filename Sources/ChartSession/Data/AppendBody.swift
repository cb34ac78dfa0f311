/// The binary append body: `"CWA1"`, u32 little-endian point count N, then N
/// little-endian float64 x, then N little-endian float64 y. Both columns are 8-byte
/// aligned, so numpy's `x.astype('<f8').tobytes()` is the encoder (docs/protocol.md).
/// Values are checked as a JSON append's are (`XYData.validate`); NaN y is a gap.
public enum AppendBody {
    public static let magic: [UInt8] = Array("CWA1".utf8)
    public static let headerSize = 8

    public struct DecodeError: Error, Equatable, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { "binary body: \(message)" }
    }

    /// True when the body starts with the binary magic (a JSON body never starts with `C`).
    public static func isBinary(_ body: [UInt8]) -> Bool { body.count >= 4 && Array(body[0..<4]) == magic }

    /// Decodes the columns; at most `limit` points.
    public static func decode(_ body: [UInt8], limit: Int = Session.maxAppendPoints) throws(DecodeError) -> (xs: [Double], ys: [Double]) {
        guard isBinary(body) else { throw DecodeError(message: "must start with \"CWA1\"") }
        guard body.count >= headerSize else {
            throw DecodeError(message: "the 8-byte header (\"CWA1\" and a u32 point count) is cut short at \(body.count) bytes")
        }
        let n = Int(UInt32(body[4]) | UInt32(body[5]) << 8 | UInt32(body[6]) << 16 | UInt32(body[7]) << 24)
        guard n <= limit else { throw DecodeError(message: "\(n) points in one append; at most \(limit) are accepted") }
        let need = headerSize + 16 * n
        guard body.count == need else { throw DecodeError(message: "\(n) points need \(need) bytes, got \(body.count)") }
        // Each column copied whole (a little-endian machine's doubles are the body's bytes),
        // into arrays not filled with zeros first.
        func column(_ at: Int) -> [Double] {
            [Double](unsafeUninitializedCapacity: n) { out, made in
                body.withUnsafeBytes { raw in
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[at..<(at + 8 * n)])
                    #if _endian(little)
                    UnsafeMutableRawBufferPointer(out).copyMemory(from: bytes)
                    #else
                    for i in 0..<n { out[i] = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))) }
                    #endif
                }
                made = n
            }
        }
        return (column(headerSize), column(headerSize + 8 * n))
    }

    /// Encodes columns (tests, Swift clients).
    public static func encode(xs: [Double], ys: [Double]) -> [UInt8] {
        precondition(xs.count == ys.count, "x and y must have equal lengths")
        var out = magic
        out.reserveCapacity(headerSize + 16 * xs.count)
        let n = UInt32(xs.count)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((n >> UInt32(shift)) & 0xFF)) }
        for column in [xs, ys] {
            for v in column {
                let b = v.bitPattern
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8((b >> UInt64(shift)) & 0xFF)) }
            }
        }
        return out
    }
}

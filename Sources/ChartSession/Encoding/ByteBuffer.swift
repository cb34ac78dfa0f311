/// Little-endian writer for the binary frame format.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
    mutating func u32(_ v: UInt32) {
        bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8((v >> 8) & 0xFF))
        bytes.append(UInt8((v >> 16) & 0xFF)); bytes.append(UInt8(v >> 24))
    }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func f64(_ v: Double) {
        let b = v.bitPattern
        for i in 0..<8 { bytes.append(UInt8((b >> (8 * UInt64(i))) & 0xFF)) }
    }
    mutating func f32s(_ vs: [Float]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: vs.count * 4))
        bytes.withUnsafeMutableBytes { raw in
            var at = start
            for v in vs {
                raw.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: at, as: UInt32.self)
                at += 4
            }
        }
    }
    /// Pairs of u16 (marker cells) in one pass over a reserved stretch.
    mutating func u16Pairs<C: Collection>(_ items: C, _ pair: (C.Element) -> (UInt16, UInt16)) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: items.count * 4))
        bytes.withUnsafeMutableBytes { raw in
            var at = start
            for item in items {
                let (a, b) = pair(item)
                raw.storeBytes(of: a.littleEndian, toByteOffset: at, as: UInt16.self)
                raw.storeBytes(of: b.littleEndian, toByteOffset: at + 2, as: UInt16.self)
                at += 4
            }
        }
    }
    mutating func patchU32(at offset: Int, _ v: UInt32) {
        bytes[offset] = UInt8(v & 0xFF); bytes[offset + 1] = UInt8((v >> 8) & 0xFF)
        bytes[offset + 2] = UInt8((v >> 16) & 0xFF); bytes[offset + 3] = UInt8(v >> 24)
    }
}

/// A decoding failure: where in the buffer and what was expected.
public struct FrameDecodeError: Error, Equatable, CustomStringConvertible, Sendable {
    public let offset: Int
    public let message: String
    public var description: String { "byte \(offset): \(message)" }
}

/// Little-endian reader with bounds checks.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func need(_ n: Int) throws(FrameDecodeError) {
        guard n >= 0, remaining >= n else {
            throw FrameDecodeError(offset: offset, message: "need \(n) bytes, \(remaining) left")
        }
    }
    mutating func u8() throws(FrameDecodeError) -> UInt8 { try need(1); defer { offset += 1 }; return bytes[offset] }
    mutating func u16() throws(FrameDecodeError) -> UInt16 {
        try need(2); defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
    mutating func u32() throws(FrameDecodeError) -> UInt32 {
        try need(4); defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
    mutating func f32() throws(FrameDecodeError) -> Float { Float(bitPattern: try u32()) }
    mutating func f64() throws(FrameDecodeError) -> Double {
        let lo = UInt64(try u32()), hi = UInt64(try u32())
        return Double(bitPattern: lo | hi << 32)
    }
    mutating func f32s(_ n: Int) throws(FrameDecodeError) -> [Float] {
        try need(n * 4)
        var out = [Float](); out.reserveCapacity(n)
        for _ in 0..<n { out.append(try f32()) }
        return out
    }
    mutating func bytes(_ n: Int) throws(FrameDecodeError) -> ArraySlice<UInt8> {
        try need(n); defer { offset += n }
        return bytes[offset..<(offset + n)]
    }
}

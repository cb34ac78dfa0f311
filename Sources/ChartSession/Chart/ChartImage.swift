import Foundation

/// An image a chart's image annotations draw: PNG, JPEG or GIF bytes, checked and
/// measured once when the chart is defined. The server hands the bytes out over HTTP
/// (`GET /api/sessions/{session}/images/{name}`); a frame names the image by that path,
/// so frames stay small and the browser fetches each image once.
public struct ChartImage: Equatable, Sendable {
    public enum Format: String, Sendable { case png, jpeg, gif }

    public let format: Format
    public let bytes: [UInt8]
    /// Natural size, pixels.
    public let width: Int
    public let height: Int
    /// A hash of the bytes (FNV-1a, 64 bits, hex): the frame's path carries it, so a
    /// replaced image is fetched again and an unchanged one comes from the cache.
    public let version: String

    public var contentType: String { "image/\(format.rawValue)" }

    /// Largest image accepted, bytes.
    public static let maxBytes = 1 << 20
    /// Largest side, pixels.
    public static let maxSide = 8192

    public struct Problem: Error, Equatable, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// Checks the bytes: a PNG, JPEG or GIF (by its signature, whatever it is called)
    /// whose header gives a size of 1 to `maxSide` pixels each way.
    public init(bytes: [UInt8]) throws(Problem) {
        guard !bytes.isEmpty else { throw Problem(message: "the image is empty") }
        guard bytes.count <= Self.maxBytes else { throw Problem(message: "the image is \(bytes.count) bytes; at most \(Self.maxBytes)") }
        guard let (format, w, h) = Self.measure(bytes) else {
            throw Problem(message: "not a PNG, JPEG or GIF image (or its header is cut short)")
        }
        guard (1...Self.maxSide).contains(w), (1...Self.maxSide).contains(h) else {
            throw Problem(message: "the image is \(w)×\(h) pixels; each side must be 1 to \(Self.maxSide)")
        }
        self.format = format; self.bytes = bytes; width = w; height = h
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        version = String(hash, radix: 16)
    }

    /// Reads a `data:` URL: `data:image/png;base64,...` (also `image/jpeg`, `image/gif`).
    public init(dataURL: String) throws(Problem) {
        let prefix = "data:", marker = ";base64,"
        guard dataURL.hasPrefix(prefix), let comma = dataURL.range(of: marker) else {
            throw Problem(message: #"expected a data URL: "data:image/png;base64,...""#)
        }
        let mime = dataURL[dataURL.index(dataURL.startIndex, offsetBy: prefix.count)..<comma.lowerBound]
        guard ["image/png", "image/jpeg", "image/gif"].contains(mime) else {
            throw Problem(message: "image type \"\(mime)\": expected image/png, image/jpeg or image/gif")
        }
        let payload = dataURL[comma.upperBound...]
        guard payload.utf8.count <= (Self.maxBytes / 3 + 1) * 4 + 16 else {
            throw Problem(message: "the image is larger than \(Self.maxBytes) bytes")
        }
        guard let data = Data(base64Encoded: String(payload)) else { throw Problem(message: "the base64 after \"\(marker)\" does not decode") }
        try self.init(bytes: [UInt8](data))
        guard "image/\(format.rawValue)" == mime else {
            throw Problem(message: "the data URL says \(mime) but the bytes are \(contentType)")
        }
    }

    /// Format and natural size from the header, or nil.
    static func measure(_ b: [UInt8]) -> (Format, Int, Int)? {
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        if b.count >= 24, b[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
           b[12..<16].elementsEqual(Array("IHDR".utf8)) {
            return (.png, be32(16), be32(20))
        }
        if b.count >= 10, b[0..<6].elementsEqual(Array("GIF87a".utf8)) || b[0..<6].elementsEqual(Array("GIF89a".utf8)) {
            return (.gif, Int(b[6]) | Int(b[7]) << 8, Int(b[8]) | Int(b[9]) << 8)
        }
        if b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 {
            // Walk the segments to the frame header (SOF0...SOF15 but DHT, JPG, DAC).
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let m = b[i + 1]
                if m == 0xFF { i += 1; continue }                        // fill byte
                if m == 0xD8 || m == 0x01 || (0xD0...0xD7).contains(m) { i += 2; continue }  // no length
                if (0xC0...0xCF).contains(m), m != 0xC4, m != 0xC8, m != 0xCC {
                    return (.jpeg, be16(i + 7), be16(i + 5))
                }
                if m == 0xD9 || m == 0xDA { return nil }                  // end, or scan data before any frame
                i += 2 + be16(i + 2)
            }
        }
        return nil
    }
}

import CZlib
import Foundation

/// gzip request bodies (`Content-Encoding: gzip`), inflated by zlib.
enum Gzip {
    enum Failure: Error, Equatable {
        /// The body inflates to more than the limit (a gzip bomb among them).
        case tooLarge
        /// Not gzip, or cut short.
        case corrupt
        case noMemory
    }

    /// The bytes `body` inflates to, at most `limit` of them: past that, decompression
    /// stops and the body is refused (so a small body that inflates hugely costs at
    /// most `limit` bytes). Members one after another make one body.
    static func decode(_ body: [UInt8], limit: Int) -> Result<[UInt8], Failure> {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        let rc = body.withUnsafeBufferPointer { b in
            cw_gunzip(b.baseAddress, b.count, limit, &out, &count)
        }
        defer { free(out) }
        // The shim's CW_GUNZIP_* results.
        switch rc {
        case 0: return .success(out.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        case 1: return .failure(.tooLarge)
        case 3: return .failure(.noMemory)
        default: return .failure(.corrupt)
        }
    }
}

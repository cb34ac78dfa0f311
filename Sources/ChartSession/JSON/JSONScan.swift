/// Cheap passes over JSON text that build no `JSONValue`: a count of the values a
/// document holds (checked against `SessionLimits.jsonValues` before a parser builds
/// anything), and a reader of points bodies (`{"x":[...],"y":[...]}`) straight into
/// `[Double]` columns.
public enum JSONScan {
    /// The values in `bytes` read as JSON: every number, string (object keys too),
    /// `true`, `false`, `null`, array and object outside strings. Stops counting past
    /// `limit` (returns `limit + 1` then). Malformed text is counted as far as it goes;
    /// the parser reports what is wrong with it.
    @_optimize(speed)
    public static func countValues(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Int {
        var n = 0
        var inString = false, escaped = false, inScalar = false
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22:  // "
                inString = true; inScalar = false; n += 1
            case 0x5B, 0x7B:  // [ {
                inScalar = false; n += 1
            case 0x5D, 0x7D, 0x2C, 0x3A, 0x20, 0x0A, 0x0D, 0x09:  // ] } , : whitespace
                inScalar = false
            default:
                if !inScalar { inScalar = true; n += 1 }
            }
            if n > limit { return n }
        }
        return n
    }

    public static func countValues(_ bytes: [UInt8], limit: Int) -> Int {
        bytes.withUnsafeBytes { countValues($0, limit: limit) }
    }

    /// A points body read into columns.
    public struct Columns {
        /// Each array member's numbers (NaN for `null`), at most `keep` of them.
        public var columns: [String: [Double]] = [:]
        /// How many values each array member had (may exceed what was kept).
        public var counts: [String: Int] = [:]
        /// The array members that held a `null`.
        public var withGaps: Set<String> = []
        /// The members that are not arrays (numbers, strings, booleans, nulls), in order.
        public var scalars: [(String, JSONValue)] = []
    }

    /// Reads a JSON object whose members are arrays of numbers and nulls (named in
    /// `columns`) or scalars, keeping at most `keep` values of each array. nil when the
    /// text is anything else (malformed, nested, escaped or non-ASCII keys, duplicate
    /// keys, an array not named in `columns`, a number a `double` cannot hold): the
    /// caller then parses it as a document, which says precisely what is wrong. Numbers
    /// read as jansson reads them: integers as 64-bit integers, others correctly rounded.
    @_optimize(speed)
    public static func readColumns(_ bytes: UnsafeRawBufferPointer, columns names: Set<String>, keep: Int) -> Columns? {
        var c = Cursor(bytes: bytes)
        return c.readColumns(names: names, keep: keep)
    }

    /// The column reader's position in the text (a struct, so its accesses are checked
    /// statically, not per byte).
    struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var p = 0
        var n: Int { bytes.count }

        @_optimize(speed) @inline(__always)
        mutating func skipSpace() {
            while p < n {
                let b = bytes[p]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                p += 1
            }
        }

        @_optimize(speed) @inline(__always)
        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard p + count <= n else { return false }
            for i in 0..<count where bytes[p + i] != word.utf8Start[i] { return false }
            p += count
            return true
        }

        /// A simple string (printable ASCII, no escapes), p after the opening quote.
        @_optimize(speed)
        mutating func simpleString() -> String? {
            let start = p
            while p < n {
                let b = bytes[p]
                if b == 0x22 {
                    defer { p += 1 }
                    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<p]), as: UTF8.self)
                }
                if b == 0x5C || b < 0x20 || b >= 0x80 { return nil }
                p += 1
            }
            return nil
        }

        @_optimize(speed)
        mutating func column(keep: Int) -> (values: [Double], count: Int, gaps: Bool)? {
            var column: [Double] = []
            var count = 0
            var gaps = false
            skipSpace()
            if p < n, bytes[p] == 0x5D { p += 1; return (column, 0, false) }
            while true {
                guard p < n else { return nil }
                let v: Double
                if bytes[p] == 0x6E {
                    guard literal("null") else { return nil }
                    v = .nan
                    gaps = true
                } else {
                    guard let d = JSONScan.number(bytes, &p) else { return nil }
                    v = d
                }
                if count < keep {
                    if column.capacity == count { column.reserveCapacity(Swift.min(keep, Swift.max(1024, count * 2))) }
                    column.append(v)
                }
                count += 1
                skipSpace()
                guard p < n else { return nil }
                if bytes[p] == 0x2C { p += 1; skipSpace(); continue }
                guard bytes[p] == 0x5D else { return nil }
                p += 1
                return (column, count, gaps)
            }
        }

        @_optimize(speed)
        mutating func readColumns(names: Set<String>, keep: Int) -> Columns? {
            var out = Columns()
            var seen = Set<String>()
            skipSpace()
            guard p < n, bytes[p] == 0x7B else { return nil }
            p += 1
            skipSpace()
            if p < n, bytes[p] == 0x7D {
                p += 1
            } else {
                while true {
                    guard p < n, bytes[p] == 0x22 else { return nil }
                    p += 1
                    guard let key = simpleString(), seen.insert(key).inserted else { return nil }
                    skipSpace()
                    guard p < n, bytes[p] == 0x3A else { return nil }
                    p += 1
                    skipSpace()
                    guard p < n else { return nil }
                    switch bytes[p] {
                    case 0x5B:
                        guard names.contains(key) else { return nil }
                        p += 1
                        guard let c = column(keep: keep) else { return nil }
                        out.columns[key] = c.values
                        out.counts[key] = c.count
                        if c.gaps { out.withGaps.insert(key) }
                    case 0x22:
                        p += 1
                        guard let s = simpleString() else { return nil }
                        out.scalars.append((key, .string(s)))
                    case 0x74:
                        guard literal("true") else { return nil }
                        out.scalars.append((key, .bool(true)))
                    case 0x66:
                        guard literal("false") else { return nil }
                        out.scalars.append((key, .bool(false)))
                    case 0x6E:
                        guard literal("null") else { return nil }
                        out.scalars.append((key, .null))
                    default:
                        let start = p
                        guard let d = JSONScan.number(bytes, &p) else { return nil }
                        let isInteger = !bytes[start..<p].contains { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 }
                        if isInteger {
                            guard d.magnitude < 9e15 else { return nil }
                            out.scalars.append((key, .int(Int64(d))))
                        } else {
                            out.scalars.append((key, .double(d)))
                        }
                    }
                    skipSpace()
                    guard p < n else { return nil }
                    if bytes[p] == 0x2C { p += 1; skipSpace(); continue }
                    guard bytes[p] == 0x7D else { return nil }
                    p += 1
                    break
                }
            }
            skipSpace()
            return p == n ? out : nil
        }
    }

    public static func readColumns(_ bytes: [UInt8], columns: Set<String>, keep: Int) -> Columns? {
        bytes.withUnsafeBytes { readColumns($0, columns: columns, keep: keep) }
    }

    /// Exact powers of ten a double holds.
    private static let powers: [Double] = (0...22).map { e in (0..<e).reduce(1.0) { r, _ in r * 10 } }

    /// One JSON number at `p` (advanced past it), nil when it is not one by JSON's
    /// grammar or does not fit: an integer outside Int64 (jansson refuses it), a real
    /// that overflows. Integers become doubles as jansson's do (`Double(Int64)`).
    @_optimize(speed)
    static func number(_ bytes: UnsafeRawBufferPointer, _ p: inout Int) -> Double? {
        let n = bytes.count
        let start = p
        var negative = false
        if p < n, bytes[p] == 0x2D { negative = true; p += 1 }
        guard p < n else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits in mantissa
        var intDigits = 0
        if bytes[p] == 0x30 {
            p += 1
            intDigits = 1
            if p < n, bytes[p] >= 0x30, bytes[p] <= 0x39 { return nil }  // leading zero
        } else {
            while p < n, bytes[p] >= 0x30, bytes[p] <= 0x39 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[p] - 0x30); digits += 1 } else { digits += 1 }
                intDigits += 1
                p += 1
            }
            guard intDigits > 0 else { return nil }
        }
        var fracDigits = 0
        var isReal = false
        if p < n, bytes[p] == 0x2E {
            isReal = true
            p += 1
            while p < n, bytes[p] >= 0x30, bytes[p] <= 0x39 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[p] - 0x30) }
                digits += 1
                fracDigits += 1
                p += 1
            }
            guard fracDigits > 0 else { return nil }
        }
        var exponent = 0
        if p < n, bytes[p] == 0x65 || bytes[p] == 0x45 {
            isReal = true
            p += 1
            var expNegative = false
            if p < n, bytes[p] == 0x2B || bytes[p] == 0x2D { expNegative = bytes[p] == 0x2D; p += 1 }
            var expDigits = 0
            while p < n, bytes[p] >= 0x30, bytes[p] <= 0x39 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[p] - 0x30) }
                expDigits += 1
                p += 1
            }
            guard expDigits > 0 else { return nil }
            if expNegative { exponent = -exponent }
        }
        if !isReal {
            // jansson reads integers as 64-bit integers and refuses larger ones.
            guard intDigits <= 19 else { return nil }
            if negative {
                guard mantissa <= UInt64(Int64.max) + 1 else { return nil }
                return mantissa == UInt64(Int64.max) + 1 ? Double(Int64.min) : Double(-Int64(mantissa))
            }
            guard mantissa <= UInt64(Int64.max) else { return nil }
            return Double(Int64(mantissa))
        }
        // Clinger's fast path: an exact mantissa times an exact power of ten, one rounding.
        let scale = exponent - fracDigits
        if digits <= 15, (-22...22).contains(scale) {
            let m = Double(mantissa)
            let v = scale < 0 ? m / powers[-scale] : m * powers[scale]
            return negative ? -v : v
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<p]), as: UTF8.self)
        guard let v = Double(text), v.isFinite else { return nil }
        return v
    }
}

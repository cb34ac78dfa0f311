/// The InfluxDB line protocol (what Telegraf's `influx` data format and InfluxDB
/// clients write), parsed strictly and fast:
///
///     measurement[,tag_key=tag_value...] field_key=field_value[,field_key=field_value...] [timestamp]
///
/// - Escapes: `\,` and `\ ` in the measurement; `\,` `\=` `\ ` in tag keys, tag values
///   and field keys; `\"` and `\\` in strings. A backslash before anything else is itself.
/// - Values: float `1.5` `-1e3` `.5`, integer `12i`, unsigned `12u`, string `"…"` (on
///   one line), boolean `t T true True TRUE f F false False FALSE`. NaN, infinities and
///   numbers out of their type's range are refused.
/// - Runs of spaces between the sections, and trailing spaces, are accepted. A field key
///   written twice in a line keeps its last value.
///
/// A body is parsed whole or refused at its first fault, so a caller applies all of
/// it or nothing. The parser is pure (bytes in, values out) and works on the bytes
/// directly: a measurement and tag set seen before, spelled the same, is looked up by
/// its raw bytes and reuses the decoded names and `seriesKey`; field keys likewise.
public enum LineProtocol {
    /// The most lines (points) one body may hold; more is refused (split the write).
    public static let maxLines = 1_000_000

    /// Parses `body`; timestamps count `precision` units and are returned in
    /// nanoseconds. Blank lines and `#` comments are skipped; `\r\n` ends a line too.
    /// More than `maxLines` lines (not counting blank and comment lines) are refused.
    public static func parse(
        _ body: [UInt8], precision: LineProtocolPrecision = .ns, maxLines: Int = LineProtocol.maxLines
    ) throws(LineProtocolError) -> [LineProtocolLine] {
        let result: Result<[LineProtocolLine], LineProtocolError> = body.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return .success([]) }
            var parser = LineProtocolParser(base: base, count: buffer.count, unit: precision.nanosPerUnit, maxLines: maxLines)
            do throws(LineProtocolError) {
                try parser.run()
            } catch {
                return .failure(error)
            }
            return .success(parser.lines)
        }
        return try result.get()
    }
}

/// The unit of a write's integer timestamps (InfluxDB's `precision` query parameter;
/// InfluxDB 1.x also writes `n` and `u` for the first two, see `Router.precision`).
public enum LineProtocolPrecision: String, CaseIterable, Sendable {
    case ns, us, ms, s
    /// Minutes and hours: InfluxDB 1.x's `m` and `h`.
    case m, h

    public var nanosPerUnit: Int64 {
        switch self {
        case .ns: 1
        case .us: 1_000
        case .ms: 1_000_000
        case .s: 1_000_000_000
        case .m: 60_000_000_000
        case .h: 3_600_000_000_000
        }
    }
}

/// A field value, typed as the line spelled it: `1.5` float, `12i` integer, `12u`
/// unsigned, `"text"` string, `true`/`f`… boolean.
public enum LineProtocolValue: Equatable, Sendable {
    case float(Double)
    case integer(Int64)
    case unsigned(UInt64)
    case string(String)
    case bool(Bool)

    /// The value as a chart y: numbers as Double (large integers round), a boolean as
    /// 1 or 0; a string has none.
    public var number: Double? {
        switch self {
        case let .float(d): d
        case let .integer(i): Double(i)
        case let .unsigned(u): Double(u)
        case let .bool(b): b ? 1 : 0
        case .string: nil
        }
    }
}

/// One `key=value` tag, unescaped.
public struct LineProtocolTag: Equatable, Hashable, Sendable {
    public let key: String
    public let value: String
    public init(key: String, value: String) { self.key = key; self.value = value }
}

/// One `key=value` field, the key unescaped.
public struct LineProtocolField: Equatable, Sendable {
    public let key: String
    public let value: LineProtocolValue
    public init(key: String, value: LineProtocolValue) { self.key = key; self.value = value }
}

/// A measurement and its tag set: what names one series, whatever the order the line
/// wrote its tags in. Hashing is O(1) (the hash is computed once), and keys from one
/// parse that are equal share storage, so a caller can cheaply cache its mapping per key.
public struct LineProtocolSeriesKey: Hashable, Sendable, CustomStringConvertible {
    final class Storage: Sendable {
        let measurement: String
        let tags: [LineProtocolTag]
        let text: String
        let hash: UInt64  // `hashBytes` of the text's UTF-8, with `lineProtocolHashSeed`
        init(measurement: String, tags: [LineProtocolTag], text: String, hash: UInt64) {
            self.measurement = measurement; self.tags = tags; self.text = text; self.hash = hash
        }
    }

    let storage: Storage

    public var measurement: String { storage.measurement }
    /// Sorted by key (UTF-8 byte order, as InfluxDB sorts them).
    public var tags: [LineProtocolTag] { storage.tags }
    /// The key written back as line protocol, `cpu,cpu=cpu0,host=web-01`, tags sorted.
    /// Backslashes are escaped as `\\` too, so that distinct keys never share a text.
    public var text: String { storage.text }
    public var description: String { storage.text }

    /// A key from unescaped parts; the tags are sorted here.
    public init(measurement: String, tags: [LineProtocolTag]) {
        self.init(measurement: measurement, sortedTags: tags.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
    }

    init(measurement: String, sortedTags tags: [LineProtocolTag]) {
        var text: [UInt8] = []
        Self.appendText(measurement: measurement, sortedTags: tags, to: &text)
        let hash = text.withUnsafeBufferPointer { hashBytes($0.baseAddress, $0.count, seed: lineProtocolHashSeed) }
        storage = Storage(measurement: measurement, tags: tags, text: String(decoding: text, as: UTF8.self), hash: hash)
    }

    init(storage: Storage) { self.storage = storage }

    /// Appends the bytes of `text`.
    static func appendText(measurement: String, sortedTags tags: [LineProtocolTag], to text: inout [UInt8]) {
        appendEscaped(measurement, to: &text, equals: false)
        for tag in tags {
            text.append(UInt8(ascii: ","))
            appendEscaped(tag.key, to: &text, equals: true)
            text.append(UInt8(ascii: "="))
            appendEscaped(tag.value, to: &text, equals: true)
        }
    }

    private static func appendEscaped(_ s: String, to out: inout [UInt8], equals: Bool) {
        for c in s.utf8 {
            if c == UInt8(ascii: ",") || c == UInt8(ascii: " ") || c == UInt8(ascii: "\\") || (equals && c == UInt8(ascii: "=")) {
                out.append(UInt8(ascii: "\\"))
            }
            out.append(c)
        }
    }

    public static func == (a: Self, b: Self) -> Bool { a.storage === b.storage || a.storage.text == b.storage.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage.hash) }
}

/// One parsed line (a point).
public struct LineProtocolLine: Equatable, Sendable {
    public let seriesKey: LineProtocolSeriesKey
    /// In line order; a key written twice keeps its first place and its last value.
    public let fields: [LineProtocolField]
    /// Nil when the line has none (the caller substitutes the arrival time).
    public let timestampNanos: Int64?
    /// 1-based, counting blank and comment lines.
    public let lineNumber: Int

    public var measurement: String { seriesKey.measurement }
    public var tags: [LineProtocolTag] { seriesKey.tags }

    public init(seriesKey: LineProtocolSeriesKey, fields: [LineProtocolField], timestampNanos: Int64?, lineNumber: Int) {
        self.seriesKey = seriesKey; self.fields = fields; self.timestampNanos = timestampNanos; self.lineNumber = lineNumber
    }
}

/// Where a body is malformed, and how: 1-based line and byte column within the line.
public struct LineProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public let line: Int
    public let column: Int
    public let message: String
    public init(line: Int, column: Int, message: String) { self.line = line; self.column = column; self.message = message }
    public var description: String { "line \(line), column \(column): \(message)" }
}

// MARK: - The parser

private let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), equals = UInt8(ascii: "=")
private let backslash = UInt8(ascii: "\\"), quote = UInt8(ascii: "\""), newline = UInt8(ascii: "\n")
private let minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")

/// `10^0 … 10^22`, each exact in a Double (the range of the exact fast path).
private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

private let notANumberHint = "not a number (float 1.5, integer 12i, unsigned 12u, string \"…\", or boolean)"
private let notAnIntegerHint = "not an integer (digits with an optional sign and the suffix i, e.g. -12i)"
private let notAnUnsignedHint = "not an unsigned integer (digits and the suffix u, e.g. 12u)"

/// The state of one `LineProtocol.parse` call. Positions are byte offsets into the body;
/// `base` is valid only for the duration of the call.
///
/// The helpers are `mutating` though most change nothing: that passes `self` by
/// reference, where a non-mutating call copied the whole struct first (measured).
private struct LineProtocolParser {
    let base: UnsafePointer<UInt8>
    let count: Int
    let unit: Int64
    let maxLines: Int
    var lines: [LineProtocolLine] = []

    var lineNumber = 0
    var lineStart = 0

    /// Measurement and tags by their raw bytes (offsets into the body), then by their
    /// canonical text (offsets into `texts`), so that the same set written in another
    /// tag order shares one key.
    var seriesByRaw = ByteInterner()
    var seriesByText = ByteInterner()
    var texts: [UInt8] = []
    var series: [LineProtocolSeriesKey] = []
    /// Scratch for the series decoder: where each tag's key starts, a canonical text.
    var tagStarts: [Int] = []
    var canonical: [UInt8] = []

    /// Field keys by raw bytes, then by decoded text; per key, the last line (serial)
    /// it appeared on and its index there, to resolve duplicates in O(1).
    var keysByRaw = ByteInterner()
    var keys: [String] = []
    var keysByText: [String: Int32] = [:]
    var keySeenOnLine: [Int] = []
    var keyIndexOnLine: [Int] = []

    /// The field keys as the previous line wrote them (offset, length, key index), the
    /// first `keyGuessCount` of them: a line usually repeats them in order, and
    /// comparing bytes is cheaper than a lookup. Field n of a line reads entry n and
    /// then overwrites it with its own.
    var keyGuesses: [(start: Int, count: Int, key: Int32)] = []
    var keyGuessCount = 0
    let pow10 = powersOfTen
    let seed = lineProtocolHashSeed

    init(base: UnsafePointer<UInt8>, count: Int, unit: Int64, maxLines: Int) {
        self.base = base; self.count = count; self.unit = unit; self.maxLines = maxLines
    }

    mutating func run() throws(LineProtocolError) {
        lines.reserveCapacity(max(0, min(countNewlines() + 1, maxLines)))
        var p = 0
        while p < count {
            lineNumber += 1
            lineStart = p
            let nl = findNewline(from: p)
            var end = nl
            if end > p && base[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            try parseLine(from: p, to: end)
            p = nl + 1
        }
    }

    // MARK: Bytes

    /// The number of `\n` in the body (one less than an upper bound of the lines), 8
    /// bytes at a time.
    func countNewlines() -> Int {
        var n = 0, i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
            // 0x80 in each byte where x has a 0 (exact: no carries between bytes), then
            // summed by one multiply (x86-64 baseline has no popcnt).
            let y = ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x | 0x7F7F_7F7F_7F7F_7F7F)
            n &+= Int(truncatingIfNeeded: ((y >> 7) &* 0x0101_0101_0101_0101) >> 56)
            i += 8
        }
        while i < count { if base[i] == newline { n += 1 }; i += 1 }
        return n
    }

    /// The offset of the next `\n` at or after `p`, or `count`; 8 bytes at a time.
    func findNewline(from p: Int) -> Int {
        var i = p
        let raw = UnsafeRawPointer(base)
        while i + 8 <= count {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
            let zero = (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
            if zero != 0 { return i + zero.trailingZeroBitCount >> 3 }  // the lowest flag is always exact
            i += 8
        }
        while i < count && base[i] != newline { i += 1 }
        return i
    }

    /// The end of the measurement and tags: the first unescaped space at or after `p`,
    /// or `end`. Looks for a space or a backslash 8 bytes at a time.
    func seriesEnd(from p: Int, to end: Int) -> Int {
        let raw = UnsafeRawPointer(base)
        var i = p
        while true {
            while i + 8 <= end {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let a = w ^ 0x2020_2020_2020_2020, b = w ^ 0x5C5C_5C5C_5C5C_5C5C
                let m = ((a &- 0x0101_0101_0101_0101) & ~a | (b &- 0x0101_0101_0101_0101) & ~b) & 0x8080_8080_8080_8080
                if m != 0 { i += m.trailingZeroBitCount >> 3; break }  // each lowest flag is exact
                i += 8
            }
            while i < end && base[i] != space && base[i] != backslash { i += 1 }
            if i == end || base[i] == space { return i }
            i += i + 1 < end && isKeyEscape(base[i + 1]) ? 2 : 1  // a backslash
        }
    }

    /// The end of a value: the next ',' or ' ' at or after `p`, or `end` (for messages).
    func tokenEnd(from p: Int, to end: Int) -> Int {
        var i = p
        while i < end && base[i] != comma && base[i] != space { i += 1 }
        return i
    }

    func fail(_ at: Int, _ message: String) -> LineProtocolError {
        LineProtocolError(line: lineNumber, column: at - lineStart + 1, message: message)
    }

    /// `"text"` for a message, cut at 40 bytes.
    func quoted(_ from: Int, _ to: Int) -> String {
        let cut = min(to, from + 40)
        let text = String(decoding: UnsafeBufferPointer(start: base + from, count: cut - from), as: UTF8.self)
        return "\"\(text)\(cut < to ? "…" : "")\""
    }

    /// The text of `[from, to)`, its escapes resolved if `escaped`; nil if not UTF-8.
    func text(_ from: Int, _ to: Int, escaped: Bool, escapes: (UInt8) -> Bool) -> String? {
        if escaped { return String(validating: unescaped(from, to, escapes: escapes), as: UTF8.self) }
        let bytes = UnsafeBufferPointer(start: base + from, count: to - from)
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }  // the usual case, and a cheaper one
        return String(validating: bytes, as: UTF8.self)
    }

    /// Copies `[from, to)` without its escaping backslashes.
    func unescaped(_ from: Int, _ to: Int, escapes: (UInt8) -> Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(to - from)
        var p = from
        while p < to {
            let c = base[p]
            if c == backslash && p + 1 < to && escapes(base[p + 1]) {
                out.append(base[p + 1]); p += 2
            } else {
                out.append(c); p += 1
            }
        }
        return out
    }

    // MARK: Lines

    mutating func parseLine(from start: Int, to end: Int) throws(LineProtocolError) {
        var p = start
        while p < end && base[p] == space { p += 1 }
        if p == end || base[p] == UInt8(ascii: "#") { return }
        guard lines.count < maxLines else {
            throw fail(start, "more than \(maxLines) lines in one body; split the write into smaller ones")
        }

        // Measurement and tags: up to the first unescaped space.
        let seriesStart = p
        p = seriesEnd(from: p, to: end)
        let seriesLength = p - seriesStart
        let hash = hashBytes(base + seriesStart, seriesLength, seed: seed)
        let seriesIndex: Int32
        if let found = seriesByRaw.find(base + seriesStart, seriesLength, hash, stored: base) {
            seriesIndex = found
        } else {
            seriesIndex = try decodeSeries(from: seriesStart, to: p, rawHash: hash)
            seriesByRaw.insert(seriesStart, seriesLength, hash, seriesIndex)
        }

        while p < end && base[p] == space { p += 1 }
        guard p < end else {
            throw fail(p, "no fields: after the measurement and tags \(quoted(seriesStart, seriesStart + seriesLength)) "
                + "a space and at least one field (key=value) must follow")
        }

        // Fields.
        let serial = lines.count + 1
        var fields: [LineProtocolField] = []
        fields.reserveCapacity(max(keyGuessCount, 1))
        var n = 0
        while true {
            let keyStart = p
            let key: Int32
            // The previous line's bytes in this place, then '=': the same key (a key
            // never ends in a backslash, which would have escaped that '=').
            if n < keyGuessCount, case let guess = keyGuesses[n], keyStart + guess.count < end,
               base[keyStart + guess.count] == equals, bytesEqual(base + keyStart, base + guess.start, guess.count) {
                key = guess.key
                p = keyStart + guess.count
            } else {
                while p < end {
                    let c = base[p]
                    if c == equals || c == comma || c == space { break }
                    p += c == backslash && p + 1 < end && isKeyEscape(base[p + 1]) ? 2 : 1
                }
                guard p < end && base[p] == equals else {
                    if keyStart == p {
                        throw fail(keyStart, n == 0 ? "no fields: a field (key=value) must follow the measurement and tags"
                            : "a field (key=value) must follow ','")
                    }
                    throw fail(keyStart, "field \(quoted(keyStart, p)) has no '=' and value")
                }
                guard p > keyStart else { throw fail(keyStart, "a field key is empty") }
                key = try internKey(from: keyStart, to: p)
            }
            if n < keyGuesses.count { keyGuesses[n] = (keyStart, p - keyStart, key) } else { keyGuesses.append((keyStart, p - keyStart, key)) }
            n += 1
            p += 1

            let value: LineProtocolValue
            if p == end || base[p] == comma || base[p] == space {
                throw fail(p, "field \"\(keys[Int(key)])\" has no value after '='")
            } else if base[p] == quote {
                value = try parseString(&p, end: end, key: key)
            } else {
                value = try parseScalar(&p, end: end, key: key)
            }

            let k = Int(key)
            if keySeenOnLine[k] == serial {
                fields[keyIndexOnLine[k]] = LineProtocolField(key: keys[k], value: value)  // the last one wins
            } else {
                keySeenOnLine[k] = serial
                keyIndexOnLine[k] = fields.count
                fields.append(LineProtocolField(key: keys[k], value: value))
            }
            if p < end && base[p] == comma { p += 1; continue }
            break
        }
        keyGuessCount = n

        // Timestamp.
        while p < end && base[p] == space { p += 1 }
        var timestamp: Int64? = nil
        if p < end {
            timestamp = try parseTimestamp(&p, end: end)
            while p < end && base[p] == space { p += 1 }
            guard p == end else {
                throw fail(p, "unexpected \(quoted(p, end)) after the timestamp; a line ends with its timestamp")
            }
        }

        lines.append(LineProtocolLine(seriesKey: series[Int(seriesIndex)], fields: fields, timestampNanos: timestamp, lineNumber: lineNumber))
    }

    // MARK: Measurement and tags (on first sight of a spelling)

    /// Decodes and checks the measurement and tags in `[start, end)` (whose bytes hash
    /// to `rawHash`), and finds or makes their key.
    mutating func decodeSeries(from start: Int, to end: Int, rawHash: UInt64) throws(LineProtocolError) -> Int32 {
        var p = start
        var escaped = false
        while p < end {
            let c = base[p]
            if c == comma { break }
            if c == backslash { escaped = true }
            p += c == backslash && p + 1 < end && (base[p + 1] == comma || base[p + 1] == space) ? 2 : 1
        }
        guard p > start else { throw fail(start, "the measurement name is empty") }
        guard let measurement = text(start, p, escaped: escaped, escapes: { $0 == comma || $0 == space }) else {
            throw fail(start, "the measurement name is not valid UTF-8")
        }
        var anyEscaped = escaped

        var tags: [LineProtocolTag] = []
        var sorted = true
        tagStarts.removeAll(keepingCapacity: true)
        while p < end {  // at a ','
            p += 1
            let keyStart = p
            escaped = false
            while p < end {
                let c = base[p]
                if c == equals || c == comma { break }
                if c == backslash { escaped = true }
                p += c == backslash && p + 1 < end && isKeyEscape(base[p + 1]) ? 2 : 1
            }
            let keyEnd = p
            guard p < end && base[p] == equals else {
                if keyStart == keyEnd { throw fail(keyStart, "a tag (key=value) must follow ','") }
                throw fail(keyStart, "tag \(quoted(keyStart, keyEnd)) has no '=': tags are written key=value")
            }
            guard keyEnd > keyStart else { throw fail(keyStart, "a tag key is empty") }
            guard let key = text(keyStart, keyEnd, escaped: escaped, escapes: isKeyEscape) else {
                throw fail(keyStart, "tag key \(quoted(keyStart, keyEnd)) is not valid UTF-8")
            }
            anyEscaped = anyEscaped || escaped
            p += 1
            let valueStart = p
            escaped = false
            while p < end {
                let c = base[p]
                if c == comma { break }
                if c == equals { throw fail(p, "tag \"\(key)\" has an unescaped '=' in its value (write it as \\=)") }
                if c == backslash { escaped = true }
                p += c == backslash && p + 1 < end && isKeyEscape(base[p + 1]) ? 2 : 1
            }
            guard p > valueStart else { throw fail(valueStart, "tag \"\(key)\" has an empty value") }
            guard let value = text(valueStart, p, escaped: escaped, escapes: isKeyEscape) else {
                throw fail(valueStart, "the value of tag \"\(key)\" is not valid UTF-8")
            }
            anyEscaped = anyEscaped || escaped
            if let last = tags.last, !last.key.utf8.lexicographicallyPrecedes(key.utf8) { sorted = false }
            tags.append(LineProtocolTag(key: key, value: value))
            tagStarts.append(keyStart)
        }
        if !sorted {  // or a key twice
            var order = Array(tags.indices)
            order.sort { tags[$0].key.utf8.lexicographicallyPrecedes(tags[$1].key.utf8) }
            for (a, b) in zip(order, order.dropFirst()) where tags[a].key == tags[b].key {
                throw fail(tagStarts[max(a, b)], "tag \"\(tags[a].key)\" appears twice")
            }
            tags = order.map { tags[$0] }
        }

        // The canonical text is the raw bytes when the tags are in order and nothing is
        // escaped (then nothing in the names needs escaping either).
        let textHash: UInt64
        let found: Int32?
        if sorted && !anyEscaped {
            textHash = rawHash
            found = seriesByText.find(base + start, end - start, textHash, stored: texts)
        } else {
            canonical.removeAll(keepingCapacity: true)
            LineProtocolSeriesKey.appendText(measurement: measurement, sortedTags: tags, to: &canonical)
            textHash = canonical.withUnsafeBufferPointer { hashBytes($0.baseAddress, $0.count, seed: seed) }
            found = canonical.withUnsafeBufferPointer { seriesByText.find($0.baseAddress, $0.count, textHash, stored: texts) }
        }
        if let found { return found }

        let textStart = texts.count
        if sorted && !anyEscaped {
            texts.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
        } else {
            texts.append(contentsOf: canonical)
        }
        let textBytes = texts[textStart...].withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
        let index = Int32(series.count)
        seriesByText.insert(textStart, texts.count - textStart, textHash, index)
        series.append(LineProtocolSeriesKey(storage: .init(measurement: measurement, tags: tags, text: textBytes, hash: textHash)))
        return index
    }

    // MARK: Fields

    mutating func internKey(from start: Int, to end: Int) throws(LineProtocolError) -> Int32 {
        let hash = hashBytes(base + start, end - start, seed: seed)
        if let found = keysByRaw.find(base + start, end - start, hash, stored: base) { return found }
        var escaped = false
        for i in start..<end where base[i] == backslash { escaped = true }
        guard let key = text(start, end, escaped: escaped, escapes: isKeyEscape) else {
            throw fail(start, "field key \(quoted(start, end)) is not valid UTF-8")
        }
        let index: Int32
        if let known = keysByText[key] {
            index = known
        } else {
            index = Int32(keys.count)
            keys.append(key)
            keysByText[key] = index
            keySeenOnLine.append(0)
            keyIndexOnLine.append(0)
        }
        keysByRaw.insert(start, end - start, hash, index)
        return index
    }

    /// A double-quoted string from `p` (at the opening quote); `\"` and `\\` are escapes,
    /// any other backslash is itself. Leaves `p` after the closing quote.
    mutating func parseString(_ p: inout Int, end: Int, key: Int32) throws(LineProtocolError) -> LineProtocolValue {
        let open = p
        p += 1
        var escaped = false
        while true {
            guard p < end else {
                throw fail(open, "string field \"\(keys[Int(key)])\" has no closing '\"' on its line (a string may not span lines)")
            }
            let c = base[p]
            if c == quote { break }
            if c == backslash && p + 1 < end && (base[p + 1] == quote || base[p + 1] == backslash) {
                escaped = true; p += 2
            } else {
                p += 1
            }
        }
        let close = p
        p += 1
        guard p == end || base[p] == comma || base[p] == space else {
            throw fail(p, "after the closing quote of string field \"\(keys[Int(key)])\" expected ',' or ' ', found \(quoted(p, p + 1))")
        }
        guard let text = text(open + 1, close, escaped: escaped, escapes: { $0 == quote || $0 == backslash }) else { throw fail(open + 1, "string field \"\(keys[Int(key)])\" is not valid UTF-8") }
        return .string(text)
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
    @inline(__always) func endsValue(_ p: Int, _ end: Int) -> Bool { p == end || base[p] == comma || base[p] == space }

    func valueFault(_ start: Int, _ end: Int, _ key: Int32, _ why: String) -> LineProtocolError {
        fail(start, "field \"\(keys[Int(key)])\" has value \(quoted(start, end)): \(why)")
    }

    /// A number or boolean from `p` (not empty, not a string) up to the next ',' or ' '
    /// or the end of the line, where `p` is left. Numbers are read in one pass:
    ///
    ///     float     [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]
    ///     integer   [+-] digits i           (fits Int64)
    ///     unsigned  digits u                (fits UInt64)
    ///
    /// A float is correctly rounded: a significand of at most 2^53 with a power of ten
    /// of at most 22 is one exact IEEE multiply or divide (Clinger's fast path); any
    /// other goes to `Double(String)`, which rounds correctly too. NaN, infinities and
    /// floats beyond the Double range are refused.
    mutating func parseScalar(_ p: inout Int, end: Int, key: Int32) throws(LineProtocolError) -> LineProtocolValue {
        let start = p
        let first = base[start]
        guard isDigit(first) || first == minus || first == plus || first == dot else {
            p = tokenEnd(from: start, to: end)
            switch (p - start, first) {
            case (1, UInt8(ascii: "t")), (1, UInt8(ascii: "T")): return .bool(true)
            case (1, UInt8(ascii: "f")), (1, UInt8(ascii: "F")): return .bool(false)
            case (4, _), (5, _):
                let word = UnsafeBufferPointer(start: base + start, count: p - start)
                for (text, value) in [("true", true), ("True", true), ("TRUE", true), ("false", false), ("False", false), ("FALSE", false)]
                where word.elementsEqual(text.utf8) {
                    return .bool(value)
                }
            default: break
            }
            throw notANumber(start, p, key)
        }

        var q = start
        let negative = first == minus
        if negative || first == plus { q += 1 }
        var significand: UInt64 = 0
        var digits = 0  // significant digits in `significand` (leading zeros are not)
        var exponent = 0
        var long = false  // more than 19 significant digits: not exact in `significand`
        var sawDigit = false
        var whole = true  // no '.' and no exponent
        while q < end {
            let d = base[q] &- UInt8(ascii: "0")
            if d >= 10 { break }
            sawDigit = true
            if digits < 19 {
                significand = significand &* 10 &+ UInt64(d)
                if significand != 0 { digits += 1 }
            } else {
                long = true
                exponent += 1
            }
            q += 1
        }
        if q < end && base[q] == dot {
            whole = false
            q += 1
            while q < end {
                let d = base[q] &- UInt8(ascii: "0")
                if d >= 10 { break }
                sawDigit = true
                if digits < 19 {
                    significand = significand &* 10 &+ UInt64(d)
                    if significand != 0 { digits += 1 }
                    exponent -= 1
                } else {
                    long = true
                }
                q += 1
            }
        }
        if sawDigit && q < end && base[q] | 0x20 == UInt8(ascii: "e") {
            whole = false
            q += 1
            var negativeExponent = false
            if q < end && (base[q] == minus || base[q] == plus) { negativeExponent = base[q] == minus; q += 1 }
            var e = 0
            var sawExponentDigit = false
            while q < end {
                let d = base[q] &- UInt8(ascii: "0")
                if d >= 10 { break }
                sawExponentDigit = true
                if e < 100_000 { e = e * 10 + Int(d) }
                q += 1
            }
            if !sawExponentDigit { sawDigit = false }  // `1e`: a fault, reported below
            exponent += negativeExponent ? -e : e
        }

        // Integer and unsigned: the suffix right after the digits, then the value's end.
        if q < end && (base[q] == UInt8(ascii: "i") || base[q] == UInt8(ascii: "u")) && endsValue(q + 1, end) {
            let signed = base[q] == UInt8(ascii: "i")
            p = q + 1
            guard whole && sawDigit && (signed || first != plus) else {
                if !signed && negative { throw valueFault(start, p, key, "an unsigned integer cannot be negative") }
                throw valueFault(start, p, key, signed ? notAnIntegerHint : notAnUnsignedHint)
            }
            if signed {
                let limit: UInt64 = negative ? 1 << 63 : UInt64(Int64.max)
                guard !long && significand <= limit else {
                    throw valueFault(start, p, key, "does not fit in a 64-bit signed integer (-9223372036854775808i to 9223372036854775807i)")
                }
                return .integer(negative ? Int64(truncatingIfNeeded: 0 &- significand) : Int64(significand))
            }
            if negative { throw valueFault(start, p, key, "an unsigned integer cannot be negative") }
            guard !long else {  // 20 digits or more: may still fit
                var value: UInt64 = 0
                for i in start..<q {
                    let (m, o1) = value.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(UInt64(base[i] &- UInt8(ascii: "0")))
                    guard !o1 && !o2 else {
                        throw valueFault(start, p, key, "does not fit in a 64-bit unsigned integer (at most 18446744073709551615u)")
                    }
                    value = s
                }
                return .unsigned(value)
            }
            return .unsigned(significand)
        }

        guard sawDigit && endsValue(q, end) else {
            p = tokenEnd(from: start, to: end)
            let last = base[p - 1]
            if last == UInt8(ascii: "i") { throw valueFault(start, p, key, notAnIntegerHint) }
            if last == UInt8(ascii: "u") { throw valueFault(start, p, key, negative ? "an unsigned integer cannot be negative" : notAnUnsignedHint) }
            throw notANumber(start, p, key)
        }
        p = q

        if !long {
            if significand == 0 { return .float(negative ? -0.0 : 0.0) }
            if significand <= 1 << 53 && exponent >= -22 && exponent <= 22 {
                let m = Double(significand)
                let v = exponent >= 0 ? m * pow10[exponent] : m / pow10[-exponent]
                return .float(negative ? -v : v)
            }
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: q - start), as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            throw valueFault(start, q, key, "out of range of a 64-bit float (it would be infinity)")
        }
        return .float(v)
    }

    func notANumber(_ start: Int, _ end: Int, _ key: Int32) -> LineProtocolError {
        var p = start
        if base[p] == minus || base[p] == plus { p += 1 }
        if end - p <= 8 {
            let word = (p..<end).map { base[$0] | 0x20 }  // ASCII lowercase
            if ["nan", "inf", "infinity"].contains(where: { $0.utf8.elementsEqual(word) }) {
                return valueFault(start, end, key, "NaN and infinity are not allowed")
            }
        }
        return valueFault(start, end, key, notANumberHint)
    }

    /// `[+-]digits` in the write's precision, to nanoseconds; leaves `p` after it.
    mutating func parseTimestamp(_ p: inout Int, end: Int) throws(LineProtocolError) -> Int64 {
        let start = p
        var q = p
        let negative = base[q] == minus
        if negative || base[q] == plus { q += 1 }
        let digitsStart = q
        while q < end && base[q] == UInt8(ascii: "0") { q += 1 }
        let significantStart = q
        var magnitude: UInt64 = 0
        while q < end {
            let d = base[q] &- UInt8(ascii: "0")
            if d >= 10 { break }
            magnitude = magnitude &* 10 &+ UInt64(d)  // checked below: 19 digits cannot wrap
            q += 1
        }
        p = q
        guard q > digitsStart && (q == end || base[q] == space) else {
            p = q
            while p < end && base[p] != space { p += 1 }
            let looksLikeField = (start..<p).contains { base[$0] == equals }
            throw fail(start, "timestamp \(quoted(start, p)) is not an integer"
                + (looksLikeField ? " (fields are separated by ',', not by spaces)" : ""))
        }
        let limit: UInt64 = negative ? 1 << 63 : UInt64(Int64.max)
        let units = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(truncatingIfNeeded: magnitude)
        let (nanos, overflow) = units.multipliedReportingOverflow(by: unit)
        guard q - significantStart <= 19 && magnitude <= limit && !overflow else {
            let precision = LineProtocolPrecision.allCases.first { $0.nanosPerUnit == unit }?.rawValue ?? "ns"
            throw fail(start, "timestamp \(quoted(start, q)) (\(precision)) is out of range: "
                + "in nanoseconds it must fit a 64-bit signed integer (years 1677 to 2262)")
        }
        return nanos
    }
}

/// `,` `=` and space may be escaped in keys (for the measurement `=` needs no escape,
/// but a backslash before it makes no difference to where the section ends).
@inline(__always) private func isKeyEscape(_ c: UInt8) -> Bool { c == comma || c == equals || c == space }

// MARK: - Byte interning

/// True when no byte has its high bit set.
private func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var bits: UInt8 = 0
    for b in bytes { bits |= b }
    return bits < 0x80
}

/// Seeds `hashBytes`, per process (as Swift seeds `Hasher`), so that a client cannot
/// prepare names that collide in the parser's tables or in a caller's dictionary.
private let lineProtocolHashSeed = UInt64.random(in: 0 ... .max)

/// A hash of `count` bytes, 8 at a time (not Hasher: this one is cheap to start).
@inline(__always) private func hashBytes(_ p: UnsafePointer<UInt8>?, _ count: Int, seed: UInt64) -> UInt64 {
    guard let p, count > 0 else { return seed }
    let raw = UnsafeRawPointer(p)
    var h: UInt64 = seed ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
    var i = 0
    while i + 8 <= count {
        h = (h ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 32
        i += 8
    }
    if i < count {
        var w: UInt64
        if count >= 8 {
            w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))  // overlaps; fine for a hash
        } else {
            w = 0
            var shift: UInt64 = 0
            while i < count { w |= UInt64(p[i]) << shift; shift += 8; i += 1 }
        }
        h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 32
    }
    h ^= h >> 33
    h = h &* 0xC4CE_B9FE_1A85_EC53
    h ^= h >> 33
    return h
}

/// An open-addressing table from byte ranges to small integers. The ranges are stored
/// as offsets into a buffer the caller owns and passes to each lookup (the body, or an
/// array of texts), so a lookup allocates nothing.
private struct ByteInterner {
    struct Entry {
        var hash: UInt64
        var start: Int
        var count: Int
        var value: Int32
    }

    private var slots = [Int32](repeating: 0, count: 64)  // entry index + 1; 0 is empty
    private var entries: [Entry] = []

    /// The value of the `count` bytes at `bytes`, whose entries lie in `stored`.
    func find(_ bytes: UnsafePointer<UInt8>?, _ count: Int, _ hash: UInt64, stored: UnsafePointer<UInt8>) -> Int32? {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return nil }
            let e = entries[Int(slot) - 1]
            if e.hash == hash && e.count == count && (count == 0 || bytesEqual(stored + e.start, bytes!, count)) { return e.value }
            i = (i + 1) & mask
        }
    }

    func find(_ bytes: UnsafePointer<UInt8>?, _ count: Int, _ hash: UInt64, stored: [UInt8]) -> Int32? {
        if entries.isEmpty { return nil }
        return stored.withUnsafeBufferPointer { find(bytes, count, hash, stored: $0.baseAddress!) }
    }

    mutating func insert(_ start: Int, _ count: Int, _ hash: UInt64, _ value: Int32) {
        entries.append(Entry(hash: hash, start: start, count: count, value: value))
        if entries.count * 2 > slots.count {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            for (n, e) in entries.enumerated() { place(e.hash, Int32(n + 1)) }
        } else {
            place(hash, Int32(entries.count))
        }
    }

    private mutating func place(_ hash: UInt64, _ slot: Int32) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = slot
    }
}

@inline(__always) private func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
    var i = 0
    while i + 8 <= count {
        if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i += 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}

/// Reads the metrics that layout needs from the bytes of a TrueType or OpenType font:
/// `head` (units per em), `hhea` (ascender, descender, line gap), `hmtx` (advances) and
/// `cmap` (formats 4 and 12). Kerning, ligatures and every other shaping rule are the
/// shaper's (`TextShaper`, HarfBuzz in the server), not read here.
///
/// Pure: it takes bytes, not a path. Errors name the table that is missing or broken.
public struct FontParseError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { "font: \(message)" }
}

extension FontMetrics {
    public init(trueType bytes: [UInt8], family: String) throws {
        let font = try TrueTypeTables(bytes)
        let head = try font.table("head", minLength: 54)
        let unitsPerEm = Double(try font.u16(head + 18))
        guard unitsPerEm > 0 else { throw FontParseError(message: "head.unitsPerEm is 0") }

        let hhea = try font.table("hhea", minLength: 36)
        let ascender = Double(try font.i16(hhea + 4))
        let descender = Double(try font.i16(hhea + 6))
        let lineGap = Double(try font.i16(hhea + 8))
        let hMetricCount = Int(try font.u16(hhea + 34))
        guard hMetricCount > 0 else { throw FontParseError(message: "hhea.numberOfHMetrics is 0") }

        let hmtx = try font.table("hmtx", minLength: hMetricCount * 4)
        var glyphAdvances = [UInt16](repeating: 0, count: hMetricCount)
        for g in 0..<hMetricCount { glyphAdvances[g] = try font.u16(hmtx + 4 * g) }

        self.init(
            family: family, unitsPerEm: unitsPerEm, ascender: ascender, descender: -descender,
            lineGap: lineGap, cmap: try font.characterMap(), glyphAdvances: glyphAdvances)
    }
}

/// Bounds-checked big-endian access to the table directory of an sfnt file.
struct TrueTypeTables {
    let bytes: [UInt8]
    var tables: [String: (offset: Int, length: Int)] = [:]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        let count = Int(try u16(4))
        for i in 0..<count {
            let record = 12 + 16 * i
            let tagBytes = try (0..<4).map { try u8(record + $0) }
            let tag = String(decoding: tagBytes, as: UTF8.self)
            let offset = Int(try u32(record + 8)), length = Int(try u32(record + 12))
            guard offset + length <= bytes.count else {
                throw FontParseError(message: "table '\(tag)' runs past the end of the file")
            }
            tables[tag] = (offset, length)
        }
    }

    func table(_ tag: String, minLength: Int) throws -> Int {
        guard let t = tables[tag] else { throw FontParseError(message: "no '\(tag)' table") }
        guard t.length >= minLength else { throw FontParseError(message: "'\(tag)' table too short") }
        return t.offset
    }

    func u8(_ at: Int) throws -> UInt8 {
        guard at >= 0, at < bytes.count else { throw FontParseError(message: "read past end at \(at)") }
        return bytes[at]
    }
    func u16(_ at: Int) throws -> UInt16 { UInt16(try u8(at)) << 8 | UInt16(try u8(at + 1)) }
    func i16(_ at: Int) throws -> Int16 { Int16(bitPattern: try u16(at)) }
    func u32(_ at: Int) throws -> UInt32 { UInt32(try u16(at)) << 16 | UInt32(try u16(at + 2)) }

    /// Unicode scalar -> glyph id, from the best Unicode subtable present.
    func characterMap() throws -> [UInt32: UInt16] {
        let cmap = try table("cmap", minLength: 4)
        let count = Int(try u16(cmap + 2))
        var format4: Int? = nil, format12: Int? = nil
        for i in 0..<count {
            let rec = cmap + 4 + 8 * i
            let platform = try u16(rec), encoding = try u16(rec + 2)
            let sub = cmap + Int(try u32(rec + 4))
            let format = try u16(sub)
            let unicode = platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10))
            guard unicode else { continue }
            if format == 12 { format12 = sub } else if format == 4 { format4 = sub }
        }
        if let sub = format12 { return try format12Map(sub) }
        if let sub = format4 { return try format4Map(sub) }
        throw FontParseError(message: "no Unicode cmap subtable of format 4 or 12")
    }

    private func format4Map(_ sub: Int) throws -> [UInt32: UInt16] {
        let segX2 = Int(try u16(sub + 6))
        let ends = sub + 14, starts = ends + segX2 + 2, deltas = starts + segX2, rangeOffsets = deltas + segX2
        var map: [UInt32: UInt16] = [:]
        for s in stride(from: 0, to: segX2, by: 2) {
            let end = try u16(ends + s), start = try u16(starts + s)
            let delta = try u16(deltas + s), rangeOffset = try u16(rangeOffsets + s)
            guard start <= end, start != 0xFFFF else { continue }
            for c in UInt32(start)...UInt32(end) {
                var glyph: UInt16
                if rangeOffset == 0 {
                    glyph = UInt16(truncatingIfNeeded: c &+ UInt32(delta))
                } else {
                    let at = rangeOffsets + s + Int(rangeOffset) + 2 * Int(c - UInt32(start))
                    glyph = try u16(at)
                    if glyph != 0 { glyph = glyph &+ delta }
                }
                if glyph != 0 { map[c] = glyph }
            }
        }
        return map
    }

    private func format12Map(_ sub: Int) throws -> [UInt32: UInt16] {
        let groups = Int(try u32(sub + 12))
        var map: [UInt32: UInt16] = [:]
        for g in 0..<groups {
            let rec = sub + 16 + 12 * g
            let start = try u32(rec), end = try u32(rec + 4), glyph = try u32(rec + 8)
            guard start <= end, end - start < 0x110000 else {
                throw FontParseError(message: "cmap format 12 group \(g) is malformed")
            }
            for c in start...end { map[c] = UInt16(truncatingIfNeeded: glyph + (c - start)) }
        }
        return map
    }
}

/// What a font file says it is: its family (`name` table, the typographic family
/// (ID 16) if given, else ID 1), whether it is bold (`OS/2.usWeightClass` of 600 or
/// more, else `head.macStyle`) and italic (`OS/2.fsSelection` italic or oblique, else
/// `head.macStyle`): how a `--fonts` folder is sorted into families and faces, the way
/// a browser matches `font-family`, `font-weight` and `font-style`.
public struct FontNaming: Equatable, Sendable {
    public var family: String
    public var weight: Int
    public var bold: Bool { weight >= 600 }
    public var italic: Bool

    public init(family: String, weight: Int, italic: Bool) {
        self.family = family; self.weight = weight; self.italic = italic
    }

    public init(trueType bytes: [UInt8]) throws {
        let font = try TrueTypeTables(bytes)
        let name = try font.table("name", minLength: 6)
        let count = Int(try font.u16(name + 2)), strings = name + Int(try font.u16(name + 4))
        var found: [UInt16: String] = [:]
        for i in 0..<count {
            let rec = name + 6 + 12 * i
            let platform = try font.u16(rec), encoding = try font.u16(rec + 2), language = try font.u16(rec + 4)
            let id = try font.u16(rec + 6), length = Int(try font.u16(rec + 8)), offset = Int(try font.u16(rec + 10))
            guard id == 1 || id == 16, found[id] == nil || (platform == 3 && language == 0x409) else { continue }
            let bytes = try (0..<length).map { try font.u8(strings + offset + $0) }
            if platform == 3 && (encoding == 1 || encoding == 10) || platform == 0 {
                let units = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                found[id] = String(decoding: units, as: UTF16.self)
            } else if platform == 1, encoding == 0, bytes.allSatisfy({ $0 < 0x80 }) {
                found[id] = String(decoding: bytes, as: UTF8.self)
            }
        }
        guard let family = found[16] ?? found[1], !family.isEmpty else {
            throw FontParseError(message: "the 'name' table gives no family name")
        }
        let head = try font.table("head", minLength: 54)
        let macStyle = try font.u16(head + 44)
        var weight = macStyle & 1 != 0 ? 700 : 400, italic = macStyle & 2 != 0
        if let os2 = font.tables["OS/2"], os2.length >= 64 {
            weight = Int(try font.u16(os2.offset + 4))
            italic = try font.u16(os2.offset + 62) & 0x201 != 0
        }
        self.init(family: family, weight: weight, italic: italic)
    }
}

/// The horizontal metrics of one font face, as plain values.
///
/// Whoever reads the font file does the I/O and hands the bytes to
/// `FontMetrics(trueType:)`; after that, measuring text is pure arithmetic. The client
/// draws with the very same font file (served to the page through `@font-face`), so
/// widths measured here are the widths the browser draws.
public struct FontMetrics: Equatable, Sendable {
    /// A ligature the font substitutes by default (`liga`/`clig`): when `first` is
    /// followed by `rest`, the glyphs become `glyph`.
    public struct Ligature: Equatable, Sendable {
        public var rest: [UInt16]
        public var glyph: UInt16
        public init(rest: [UInt16], glyph: UInt16) { self.rest = rest; self.glyph = glyph }
    }

    public let family: String
    public let unitsPerEm: Double
    /// Distance above the baseline, in font units (positive).
    public let ascender: Double
    /// Distance below the baseline, in font units (positive).
    public let descender: Double
    public let lineGap: Double
    /// Unicode scalar -> glyph id.
    let cmap: [UInt32: UInt16]
    /// Advance width of each glyph, in font units.
    let glyphAdvances: [UInt16]
    /// Pair kerning in font units, keyed by (left glyph << 16 | right glyph).
    let kerning: [UInt32: Int16]
    /// Default ligatures by first glyph, in the font's order of preference, grouped
    /// by lookup (lookups apply one after another, as a shaper does).
    let ligatureLookups: [[UInt16: [Ligature]]]

    public init(
        family: String, unitsPerEm: Double, ascender: Double, descender: Double, lineGap: Double,
        cmap: [UInt32: UInt16], glyphAdvances: [UInt16], kerning: [UInt32: Int16] = [:],
        ligatureLookups: [[UInt16: [Ligature]]] = []
    ) {
        precondition(!glyphAdvances.isEmpty, "a font has at least the .notdef glyph")
        self.family = family; self.unitsPerEm = unitsPerEm
        self.ascender = ascender; self.descender = descender; self.lineGap = lineGap
        self.cmap = cmap; self.glyphAdvances = glyphAdvances; self.kerning = kerning
        self.ligatureLookups = ligatureLookups
    }

    public var hasKerning: Bool { !kerning.isEmpty }
    public var hasLigatures: Bool { !ligatureLookups.isEmpty }

    /// The glyphs a browser draws for `text`: one per scalar, then the default
    /// ligatures substituted.
    public func glyphs(for text: String, ligatures: Bool = true) -> [UInt16] {
        var glyphs = text.unicodeScalars.map { cmap[$0.value] ?? 0 }
        guard ligatures else { return glyphs }
        for lookup in ligatureLookups {
            var i = 0
            while i < glyphs.count {
                if let candidates = lookup[glyphs[i]] {
                    for lig in candidates where i + lig.rest.count < glyphs.count
                        && glyphs[(i + 1)...(i + lig.rest.count)].elementsEqual(lig.rest) {
                        glyphs.replaceSubrange(i...(i + lig.rest.count), with: [lig.glyph])
                        break
                    }
                }
                i += 1
            }
        }
        return glyphs
    }

    func advance(_ glyph: UInt16) -> Int {
        Int(Int(glyph) < glyphAdvances.count ? glyphAdvances[Int(glyph)] : glyphAdvances[glyphAdvances.count - 1])
    }

    /// Width of `text` set at `size` pixels per em, with the default ligatures and
    /// pair kerning a browser applies (either can be turned off).
    public func width(of text: String, size: Double, kerning useKerning: Bool = true, ligatures: Bool = true) -> Double {
        var units = 0
        var previous: UInt16? = nil
        for glyph in glyphs(for: text, ligatures: ligatures) {
            units += advance(glyph)
            if useKerning, let left = previous, let k = kerning[UInt32(left) << 16 | UInt32(glyph)] {
                units += Int(k)
            }
            previous = glyph
        }
        return Double(units) * size / unitsPerEm
    }

    public func ascent(size: Double) -> Double { ascender * size / unitsPerEm }
    public func descent(size: Double) -> Double { descender * size / unitsPerEm }
    /// Ascent plus descent: the height a line of text occupies (without line gap).
    public func lineHeight(size: Double) -> Double { (ascender + descender) * size / unitsPerEm }
}

/// A font face at one size: what layout code passes around to measure labels.
public struct TextStyle: Equatable, Hashable, Sendable {
    public var size: Double
    public var bold: Bool
    public init(size: Double, bold: Bool = false) { self.size = size; self.bold = bold }
}

/// Measures text for layout. Holds the metrics of the regular face (and of a bold
/// face where one is given).
public struct TextMeasurer: Sendable {
    public let regular: FontMetrics
    public let bold: FontMetrics?

    public init(regular: FontMetrics, bold: FontMetrics? = nil) {
        self.regular = regular; self.bold = bold
    }

    public func metrics(for style: TextStyle) -> FontMetrics { style.bold ? (bold ?? regular) : regular }

    /// Width and line height of a single line of text.
    public func size(of text: String, style: TextStyle) -> Size {
        let m = metrics(for: style)
        return Size(width: m.width(of: text, size: style.size), height: m.lineHeight(size: style.size))
    }
}

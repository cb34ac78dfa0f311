/// The horizontal metrics of one font face, as plain values.
///
/// Whoever reads the font file does the I/O and hands the bytes to
/// `FontMetrics(trueType:)`; after that, measuring text is pure arithmetic. The client
/// draws with the very same font file (served to the page through `@font-face`), so
/// widths measured here are the widths the browser draws.
public struct FontMetrics: Equatable, Sendable {
    public let family: String
    public let unitsPerEm: Double
    /// Distance above the baseline, in font units (positive).
    public let ascender: Double
    /// Distance below the baseline, in font units (positive).
    public let descender: Double
    public let lineGap: Double
    /// Advance width of each mapped Unicode scalar, in font units.
    let advances: [UInt32: UInt16]
    /// Glyph of each mapped scalar, for kerning look-ups.
    let glyphs: [UInt32: UInt16]
    /// Pair kerning in font units, keyed by (left glyph << 16 | right glyph).
    let kerning: [UInt32: Int16]
    let missingAdvance: UInt16

    public init(
        family: String, unitsPerEm: Double, ascender: Double, descender: Double, lineGap: Double,
        advances: [UInt32: UInt16], glyphs: [UInt32: UInt16] = [:], kerning: [UInt32: Int16] = [:],
        missingAdvance: UInt16
    ) {
        self.family = family; self.unitsPerEm = unitsPerEm
        self.ascender = ascender; self.descender = descender; self.lineGap = lineGap
        self.advances = advances; self.glyphs = glyphs; self.kerning = kerning
        self.missingAdvance = missingAdvance
    }

    public var hasKerning: Bool { !kerning.isEmpty }

    /// Width of `text` set at `size` pixels per em, including pair kerning when
    /// `kerning` is on (as a browser's default text rendering does).
    public func width(of text: String, size: Double, kerning useKerning: Bool = true) -> Double {
        var units = 0
        var previousGlyph: UInt16? = nil
        for scalar in text.unicodeScalars {
            let code = scalar.value
            units += Int(advances[code] ?? missingAdvance)
            let glyph = glyphs[code] ?? 0
            if useKerning, let left = previousGlyph, let k = kerning[UInt32(left) << 16 | UInt32(glyph)] {
                units += Int(k)
            }
            previousGlyph = glyph
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

/// The vertical metrics and plain glyph advances of one font face, as values.
///
/// Whoever reads the font file does the I/O and hands the bytes to
/// `FontMetrics(trueType:)`. Widths of real text come from a `TextShaper` (HarfBuzz in
/// the server, as in Chromium): kerning, ligatures, Arabic joining, Indic reordering
/// and fallback fonts are the shaper's. `width(of:size:)` here is the sum of nominal
/// advances, what a measurer without a shaper falls back to.
public struct FontMetrics: Equatable, Sendable {
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

    public init(
        family: String, unitsPerEm: Double, ascender: Double, descender: Double, lineGap: Double,
        cmap: [UInt32: UInt16], glyphAdvances: [UInt16]
    ) {
        precondition(!glyphAdvances.isEmpty, "a font has at least the .notdef glyph")
        self.family = family; self.unitsPerEm = unitsPerEm
        self.ascender = ascender; self.descender = descender; self.lineGap = lineGap
        self.cmap = cmap; self.glyphAdvances = glyphAdvances
    }

    /// Whether the face has a glyph of its own for `scalar`.
    public func covers(_ scalar: Unicode.Scalar) -> Bool { (cmap[scalar.value] ?? 0) != 0 }

    func advance(_ glyph: UInt16) -> Int {
        Int(Int(glyph) < glyphAdvances.count ? glyphAdvances[Int(glyph)] : glyphAdvances[glyphAdvances.count - 1])
    }

    /// The sum of the nominal advances of `text`'s scalars at `size` pixels per em
    /// (.notdef for scalars the face lacks): no kerning, ligatures or fallback fonts.
    public func width(of text: String, size: Double) -> Double {
        var units = 0
        for scalar in text.unicodeScalars { units += advance(cmap[scalar.value] ?? 0) }
        return Double(units) * size / unitsPerEm
    }

    public func ascent(size: Double) -> Double { ascender * size / unitsPerEm }
    public func descent(size: Double) -> Double { descender * size / unitsPerEm }
    /// Ascent plus descent: the height a line of text occupies (without line gap).
    public func lineHeight(size: Double) -> Double { (ascender + descender) * size / unitsPerEm }
}

/// Shapes text as the browser does, for its width. Implementations hold font data and
/// must give the same answer for the same input (layout stays deterministic).
public protocol TextShaper: Sendable {
    /// The advance width of `text` set at one pixel per em (multiply by the size), in
    /// the regular or the bold face of the chart font with its fallbacks.
    func emWidth(of text: String, bold: Bool) -> Double
}

/// A font face at one size: what layout code passes around to measure labels.
/// `family` nil is the chart font (DejaVu Sans and its fallbacks); a name is one of
/// the further families the server loaded (`TextMeasurer.families`), falling back to
/// the chart font for what it lacks.
public struct TextStyle: Equatable, Hashable, Sendable {
    public var size: Double
    public var bold: Bool
    public var italic: Bool
    public var family: String?
    public init(size: Double, bold: Bool = false, italic: Bool = false, family: String? = nil) {
        self.size = size; self.bold = bold; self.italic = italic; self.family = family
    }
}

/// One face of a family: its weight (regular or bold) and slant.
public struct FontFace: Hashable, Sendable, CustomStringConvertible {
    public var bold: Bool
    public var italic: Bool
    public init(bold: Bool = false, italic: Bool = false) { self.bold = bold; self.italic = italic }
    public var description: String {
        switch (bold, italic) {
        case (false, false): "regular"
        case (true, false): "bold"
        case (false, true): "italic"
        case (true, true): "bold italic"
        }
    }
}

/// Measures text for layout: widths from the shaper (or, without one, from nominal
/// advances), vertical metrics from the primary face (regular, and bold where given).
public struct TextMeasurer: Sendable {
    public let regular: FontMetrics
    public let bold: FontMetrics?
    public let shaper: (any TextShaper)?
    /// Further families by name (a chart's own font): each face a measurer of its own,
    /// whose regular and bold metrics are both that face's and whose shaper tries that
    /// face first, then the chart font's faces of the same weight.
    public var families: [String: [FontFace: TextMeasurer]] = [:]

    public init(regular: FontMetrics, bold: FontMetrics? = nil, shaper: (any TextShaper)? = nil) {
        self.regular = regular; self.bold = bold; self.shaper = shaper
    }

    /// Whether text of `style` is measured in its own family's face (else in the chart font).
    public func hasFace(family: String, _ face: FontFace) -> Bool { families[family]?[face] != nil }

    /// The measurer of a style that names a loaded family and face (nil: the chart font's).
    func familyMeasurer(_ style: TextStyle) -> TextMeasurer? {
        guard let family = style.family else { return nil }
        return families[family]?[FontFace(bold: style.bold, italic: style.italic)]
    }

    public func metrics(for style: TextStyle) -> FontMetrics {
        if let m = familyMeasurer(style) { return m.regular }
        return style.bold ? (bold ?? regular) : regular
    }

    /// Width of a single line of text as the browser draws it.
    public func width(of text: String, style: TextStyle) -> Double {
        if let m = familyMeasurer(style) {
            return m.width(of: text, style: TextStyle(size: style.size, bold: style.bold))
        }
        if let shaper { return shaper.emWidth(of: text, bold: style.bold) * style.size }
        return metrics(for: style).width(of: text, size: style.size)
    }

    /// Width and line height of a single line of text.
    public func size(of text: String, style: TextStyle) -> Size {
        Size(width: width(of: text, style: style), height: metrics(for: style).lineHeight(size: style.size))
    }
}

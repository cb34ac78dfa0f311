import CCairo
import FontStack
import Foundation
import LayoutEngine

/// The chart font's faces as Cairo draws them: one Cairo FreeType face per font file
/// and index FontStack shapes with (DejaVu and the Noto fallbacks), made when a label
/// first needs it and kept. Glyph ids come from HarfBuzz over the same file, so they
/// name the same glyphs here.
public final class GlyphFonts: @unchecked Sendable {
    public let shaper: FallbackShaper
    /// Baseline offsets as Chromium's canvas computes them (`TextMetrics::GetFontBaseline`):
    /// the primary face's OS/2 typo ascent and descent, scaled to sum to one em.
    let regularTypo: (ascent: Double, descent: Double)
    let boldTypo: (ascent: Double, descent: Double)
    /// The families of `--fonts` folders: each face's shaper (that face, then the chart
    /// font's) and typo metrics.
    let families: [String: [FontFace: (shaper: FallbackShaper, typo: (ascent: Double, descent: Double))]]

    private struct Key: Hashable { var path: String; var index: Int }
    private var faces: [Key: OpaquePointer] = [:]
    private let lock = NSLock()
    private let library: FT_Library?

    /// The fonts `ChartFonts.load` read (its shaper, and DejaVu's bytes for the typo metrics).
    public init(fonts: ChartFonts) {
        shaper = fonts.shaper
        regularTypo = Self.typoMetrics(fonts.regular)
        boldTypo = Self.typoMetrics(fonts.bold)
        var families: [String: [FontFace: (shaper: FallbackShaper, typo: (ascent: Double, descent: Double))]] = [:]
        for (name, faces) in fonts.measurer.families {
            for (face, measurer) in faces {
                guard let shaper = measurer.shaper as? FallbackShaper, let file = fonts.families[name]?.faces[face] else { continue }
                families[name, default: [:]][face] = (shaper, Self.typoMetrics(file.bytes))
            }
        }
        self.families = families
        var lib: FT_Library?
        library = FT_Init_FreeType(&lib) == 0 ? lib : nil
    }

    /// The shaper and typo metrics text in `font` is drawn with.
    func face(for font: CSSFont) -> (shaper: FallbackShaper, typo: (ascent: Double, descent: Double)) {
        if let family = font.family, let f = families[family]?[FontFace(bold: font.bold, italic: font.italic)] { return f }
        return (shaper, font.bold ? boldTypo : regularTypo)
    }

    /// The Cairo face of a shaped face's file (nil for a face made from bytes, or a file
    /// FreeType cannot open: its text is then not drawn).
    func cairoFace(for face: ShapedFace) -> OpaquePointer? {
        guard let path = face.path, let library else { return nil }
        let key = Key(path: path, index: face.index)
        lock.lock()
        defer { lock.unlock() }
        do {
            if let known = faces[key] { return known }
            var ft: FT_Face?
            guard FT_New_Face(library, path, FT_Long(face.index), &ft) == 0, let ft else { return nil }
            // Hinting as the context's font options say (Painter: slight, vertical only).
            guard let cf = cairo_ft_font_face_create_for_ft_face(ft, 0) else { return nil }
            faces[key] = cf
            return cf
        }
    }

    /// `(ascent, descent)` per em from the OS/2 table's sTypoAscender and sTypoDescender
    /// (normalised to sum to 1, as Chromium does); DejaVu's values when the table is missing.
    static func typoMetrics(_ bytes: [UInt8]) -> (ascent: Double, descent: Double) {
        func u16(_ o: Int) -> Int { o + 1 < bytes.count ? Int(bytes[o]) << 8 | Int(bytes[o + 1]) : 0 }
        func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
        let tables = u16(4)
        for i in 0..<tables {
            let rec = 12 + 16 * i
            guard rec + 16 <= bytes.count else { break }
            if u32(rec) == 0x4F53_2F32 {   // "OS/2"
                let at = u32(rec + 8)
                let ascent = Double(Int16(truncatingIfNeeded: u16(at + 68)))
                let descent = -Double(Int16(truncatingIfNeeded: u16(at + 70)))
                let sum = ascent + descent
                if sum > 0 { return (ascent / sum, descent / sum) }
            }
        }
        return (1556.0 / 2048, 492.0 / 2048)
    }

    deinit {
        for (_, f) in faces { cairo_font_face_destroy(f) }
        // (The FT_Faces belong to the Cairo faces; the library stays for them.)
    }
}

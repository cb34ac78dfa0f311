import Foundation
import LayoutEngine

/// A fallback font: where Debian puts it and which face of the file to use.
public struct FallbackFont: Equatable, Sendable {
    public var name: String
    public var regular: String
    public var bold: String?
    /// The face within a collection (`.ttc`); 0 for a plain font file.
    public var index: Int

    public init(name: String, regular: String, bold: String?, index: Int = 0) {
        self.name = name; self.regular = regular; self.bold = bold; self.index = index
    }

    /// The scripts DejaVu Sans lacks or covers only in part, from Debian's
    /// fonts-noto-cjk and fonts-noto-core, in order of preference. `scripts/make-fonts`
    /// makes the page's subsets of the same files (keep the two lists alike).
    public static let debian: [FallbackFont] = [
        FallbackFont(name: "Noto Sans CJK JP", regular: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                     bold: "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", index: 0),
        noto("Devanagari"), noto("Arabic"), noto("Hebrew"), noto("Thai"),
    ]

    static func noto(_ script: String) -> FallbackFont {
        let dir = "/usr/share/fonts/truetype/noto/NotoSans\(script)"
        return FallbackFont(name: "Noto Sans \(script)", regular: dir + "-Regular.ttf", bold: dir + "-Bold.ttf")
    }
}

public struct FontLoadError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// The chart font as the server measures it: DejaVu Sans (regular and bold) read from
/// a folder, the fallback fonts that are installed, and the measurer over them all.
///
/// Memory follows the text: DejaVu's two files are read once (for the metrics and for
/// serving them) while HarfBuzz maps them; each fallback file is only checked here (its
/// header, through a mapping dropped at once) and mapped for HarfBuzz when a string
/// first has a character no face before it covers (`LazyFace`), so a chart whose text is
/// all Latin never makes the CJK faces. Measuring does no I/O but that first mapping.
public struct ChartFonts: Sendable {
    /// The primary TTFs' bytes (served to the page when there are no subsets).
    public let regular: [UInt8]
    public let bold: [UInt8]
    /// The fallbacks found, with the size of each file (for matching web subsets).
    public let fallbacks: [(font: FallbackFont, regularSize: Int, boldSize: Int?)]
    /// One line per fallback font that is not installed (the start-up log shows them).
    public let missing: [String]
    public let measurer: TextMeasurer

    public static let family = "ChartWire Sans"

    /// The shaper behind `measurer` (what says which faces are made).
    public var shaper: FallbackShaper { measurer.shaper as! FallbackShaper }

    public static func load(primaryDir: String, fallbacks: [FallbackFont] = FallbackFont.debian)
        throws(FontLoadError) -> ChartFonts {
        func read(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
        let regularPath = primaryDir + "/DejaVuSans.ttf", boldPath = primaryDir + "/DejaVuSans-Bold.ttf"
        guard let regular = read(regularPath), let bold = read(boldPath) else {
            throw FontLoadError(message: "cannot read DejaVuSans.ttf and DejaVuSans-Bold.ttf in \(primaryDir) "
                                + "(install fonts-dejavu-core, or pass --font-dir)")
        }
        let regularMetrics: FontMetrics, boldMetrics: FontMetrics
        do {
            regularMetrics = try FontMetrics(trueType: regular, family: family)
            boldMetrics = try FontMetrics(trueType: bold, family: family)
        } catch {
            throw FontLoadError(message: "\(primaryDir): \(error)")
        }
        // HarfBuzz maps the same files rather than copying the bytes read above.
        guard let primary = ShapedFace(path: regularPath), let primaryBold = ShapedFace(path: boldPath) else {
            throw FontLoadError(message: "\(primaryDir): HarfBuzz cannot read DejaVuSans.ttf or DejaVuSans-Bold.ttf")
        }
        var regularFaces = [LazyFace(primary)], boldFaces = [LazyFace(primaryBold)]
        var found: [(font: FallbackFont, regularSize: Int, boldSize: Int?)] = [], missing: [String] = []
        for font in fallbacks {
            guard FileManager.default.isReadableFile(atPath: font.regular) else {
                missing.append("\(font.name): \(font.regular) is not installed (labels in its script are measured "
                               + "with DejaVu's .notdef)")
                continue
            }
            guard let size = ShapedFace.probe(path: font.regular, index: font.index) else {
                missing.append("\(font.name): \(font.regular) has no face \(font.index)")
                continue
            }
            let boldSize = font.bold.flatMap { ShapedFace.probe(path: $0, index: font.index) }
            let face = LazyFace(path: font.regular, index: font.index)
            regularFaces.append(face)
            boldFaces.append(boldSize == nil ? face : font.bold.map { LazyFace(path: $0, index: font.index) } ?? face)
            found.append((font, size, boldSize))
        }
        let shaper = FallbackShaper(regular: regularFaces, bold: boldFaces)
        return ChartFonts(regular: regular, bold: bold, fallbacks: found, missing: missing,
                          measurer: TextMeasurer(regular: regularMetrics, bold: boldMetrics, shaper: shaper))
    }
}

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
    /// Further families (`--fonts DIR`), by name: the chart's own fonts, measured in
    /// the very files served to the page.
    public private(set) var families: [String: FontFamily] = [:]
    /// One line per font file of those folders that is not used (start-up log).
    public private(set) var familyWarnings: [String] = []

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

    /// These fonts with the families of the TTF/OTF files in `dirs` (a `--fonts`
    /// folder each): every file's family, weight and slant come from its own `name`,
    /// `OS/2` and `head` tables. A file of a weight other than regular (350-500) or bold
    /// (600-800), a second file of a face already found, or a file that is not a font
    /// is left out with a warning; a folder that cannot be read is an error.
    public func adding(familyDirs dirs: [String]) throws(FontLoadError) -> ChartFonts {
        var fonts = self
        let before = families.values.reduce(0) { $0 + $1.faces.count }
        for dir in dirs {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                throw FontLoadError(message: "--fonts \(dir): cannot read the folder")
            }
            for name in names.sorted() where [".ttf", ".otf"].contains(where: { name.lowercased().hasSuffix($0) }) {
                let path = dir + "/" + name
                do throws(FontLoadError) { try fonts.add(path: path) } catch { fonts.familyWarnings.append(error.message) }
            }
        }
        if !dirs.isEmpty, fonts.families.values.reduce(0, { $0 + $1.faces.count }) == before {
            throw FontLoadError(message: "--fonts \(dirs.joined(separator: ", ")): no usable TTF or OTF file")
        }
        return fonts
    }

    mutating func add(path: String) throws(FontLoadError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw FontLoadError(message: "\(path): cannot be read") }
        let bytes = [UInt8](data)
        let naming: FontNaming, metrics: FontMetrics
        do {
            naming = try FontNaming(trueType: bytes)
            metrics = try FontMetrics(trueType: bytes, family: naming.family)
        } catch {
            throw FontLoadError(message: "\(path): \(error) (left out)")
        }
        guard naming.family.count <= 64, !naming.family.contains(where: { "\"\\;{}<>\n\r".contains($0) }) else {
            throw FontLoadError(message: "\(path): its family name is not one a page can use in CSS (left out)")
        }
        guard naming.family != Self.family else {
            throw FontLoadError(message: "\(path): its family is named \"\(Self.family)\", the chart font's (left out)")
        }
        let bold: Bool
        switch naming.weight {
        case 350...500: bold = false
        case 600...800: bold = true
        default: throw FontLoadError(message: "\(path): weight \(naming.weight) is neither regular nor bold (left out)")
        }
        let face = FontFace(bold: bold, italic: naming.italic)
        if let other = families[naming.family]?.faces[face] {
            throw FontLoadError(message: "\(path): \(naming.family) \(face) is already \(other.path) (left out)")
        }
        guard let shaped = ShapedFace(path: path) else { throw FontLoadError(message: "\(path): HarfBuzz cannot read it (left out)") }
        // The face first, then the chart font's faces of the same weight: what the page's
        // font list `"Family", "ChartWire Sans"` falls back to for a character it lacks.
        let base = self.shaper
        let chain = [LazyFace(shaped)] + (bold ? base.boldFaces : base.regularFaces)
        var shaper = FallbackShaper(regular: chain, bold: chain)
        shaper.shapesWordByWord = true
        let measurer = TextMeasurer(regular: metrics, bold: metrics, shaper: shaper)
        families[naming.family, default: FontFamily(name: naming.family)].faces[face] = FontFamily.File(path: path, bytes: bytes)
        var all = self.measurer
        all.families[naming.family, default: [:]][face] = measurer
        self = ChartFonts(regular: regular, bold: self.bold, fallbacks: fallbacks, missing: missing, measurer: all,
                          families: families, familyWarnings: familyWarnings)
    }
}

/// A family of a `--fonts` folder: its faces' files, served to the page as they are.
public struct FontFamily: Sendable {
    public struct File: Sendable {
        public var path: String
        public var bytes: [UInt8]
        /// The name the page fetches it by (`/font/<name>`): the file's own, made safe.
        public var servedName: String {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            return String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") ? $0 : "_" })
        }
    }
    public var name: String
    public var faces: [FontFace: File] = [:]
}

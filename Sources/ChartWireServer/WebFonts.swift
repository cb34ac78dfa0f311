import ChartSession
import FontStack
import Foundation

/// The chart font as the page loads it: WOFF2 subsets split by unicode-range
/// (`web/fonts/`, made by `scripts/make-fonts` from the very TTFs the server measures
/// with), or those TTFs themselves when the subsets were made from other files; and
/// the fallback fonts' subsets (`web/fonts/fallback/`, made by `scripts/make-fonts
/// --fallbacks` at setup from the installed Noto files), declared in the same family
/// with unicode-ranges that hold only what the faces before them lack. The chart's own
/// families (`--fonts`) get subsets of the same split (`web/fonts/families/`, made by
/// `scripts/make-fonts --families` at setup) under their own names.
struct WebFonts {
    struct Face: Equatable {
        var file: String
        var weight: Int
        var range: String
        var unicodeRange: String
    }

    /// The subsets, by file name (empty: the TTFs are served instead). The chart font's
    /// (a few hundred KB) are held; the fallback fonts' (about 20 MB, mostly CJK, that
    /// most pages never ask for) and the `--fonts` families' are read from `diskFiles`
    /// (name to path) when asked for.
    var faces: [Face] = []
    var files: [String: [UInt8]] = [:]
    var diskFiles: [String: String] = [:]
    /// Why the subsets are not used, for the start-up log (nil when they are).
    var warning: String?
    /// The fallback fonts' subsets, and why any fallback has none (start-up log).
    var fallbackFaces: [Face] = []
    var fallbackWarnings: [String] = []
    /// The further families (`--fonts`): the rules of each face, its subsets' (one per
    /// unicode-range) or its file's, served as it is at `/font/<file>` (`familyFiles`,
    /// which also serves the files that have subsets); a page fetches a face's subsets
    /// (or file) when it first draws in it.
    var familyRules: [String] = []
    var familyFiles: [String: [UInt8]] = [:]
    /// Why a family face is served as its file rather than as subsets (start-up log), and
    /// how many faces have subsets.
    var familyWarnings: [String] = []
    var familyNote: String?

    static let family = Theme.defaultFontFamily

    /// What goes in the page's `<head>`: preloads of the Latin subsets (so they load in
    /// parallel with the script, before the WebSocket opens) and the `@font-face` rules.
    var headHTML: String {
        func rule(_ f: Face) -> String {
            #"@font-face { font-family: "\#(Self.family)"; src: url(../fonts/\#(f.file)) format("woff2"); "#
                + "font-weight: \(f.weight); font-display: block; unicode-range: \(f.unicodeRange); }\n"
        }
        var html = ""
        for f in faces where f.range == "latin" {
            html += #"<link rel="preload" href="../fonts/\#(f.file)" as="font" type="font/woff2" crossorigin>"# + "\n"
        }
        html += "<style>\n"
        if faces.isEmpty {
            html += #"@font-face { font-family: "\#(Self.family)"; src: url(../font/regular.ttf) format("truetype"); font-weight: 400; font-display: block; }"# + "\n"
            html += #"@font-face { font-family: "\#(Self.family)"; src: url(../font/bold.ttf) format("truetype"); font-weight: 700; font-display: block; }"# + "\n"
        }
        // A page downloads a fallback subset only when it draws a character in its range.
        for f in faces + fallbackFaces { html += rule(f) }
        for r in familyRules { html += r + "\n" }
        return html + "</style>"
    }

    /// Reads `web/fonts/manifest.json` and the subsets it names, if they were made from
    /// `regular` and `bold` (the same size and `head.checkSumAdjustment`).
    static func load(webDir: String, fonts: ChartFonts) -> WebFonts {
        var web = loadPrimary(webDir: webDir, regular: fonts.regular, bold: fonts.bold)
        web.loadFallbacks(dir: webDir + "/fonts/fallback", fonts: fonts)
        web.addFamilies(fonts.families, subsetsDir: webDir + "/fonts/families")
        return web
    }

    static func loadPrimary(webDir: String, regular: [UInt8], bold: [UInt8]) -> WebFonts {
        let dir = webDir + "/fonts"
        guard let data = FileManager.default.contents(atPath: dir + "/manifest.json") else {
            return WebFonts(warning: "\(dir)/manifest.json is missing: serving the TTF fonts")
        }
        guard let manifest = try? Jansson.parse([UInt8](data)), let list = manifest["files"]?.arrayValue else {
            return WebFonts(warning: "\(dir)/manifest.json is not a font manifest: serving the TTF fonts")
        }
        for (face, bytes) in [("regular", regular), ("bold", bold)] {
            let source = manifest["sources"]?[face]
            guard source?["size"]?.doubleValue == Double(bytes.count),
                  source?["checkSumAdjustment"]?.doubleValue == checkSumAdjustment(bytes).map(Double.init) else {
                return WebFonts(warning: "the WOFF2 subsets in \(dir) were made from another \(face) font than the one "
                                + "measured with (run scripts/make-fonts): serving the TTF fonts")
            }
        }
        var fonts = WebFonts()
        for item in list {
            guard let file = item["file"]?.stringValue, let weight = item["weight"]?.doubleValue,
                  let range = item["range"]?.stringValue, let unicodeRange = item["unicodeRange"]?.stringValue,
                  file.hasSuffix(".woff2"), !file.contains("/"),
                  let bytes = FileManager.default.contents(atPath: dir + "/" + file) else {
                return WebFonts(warning: "\(dir)/manifest.json names a font file that cannot be read: serving the TTF fonts")
            }
            fonts.faces.append(Face(file: file, weight: Int(weight), range: range, unicodeRange: unicodeRange))
            fonts.files[file] = [UInt8](bytes)
        }
        return fonts
    }

    /// Reads `fallback/manifest.json` and the subsets of each fallback font the server
    /// measures with, if they were made from the same files (same sizes).
    mutating func loadFallbacks(dir: String, fonts: ChartFonts) {
        guard !fonts.fallbacks.isEmpty else { return }
        guard let data = FileManager.default.contents(atPath: dir + "/manifest.json"),
              let manifest = try? Jansson.parse([UInt8](data)), let list = manifest["files"]?.arrayValue else {
            fallbackWarnings.append("\(dir)/manifest.json is missing or unreadable (run scripts/make-fonts --fallbacks): "
                                    + "pages draw CJK, Devanagari, Thai, ... with the viewer's own fonts")
            return
        }
        for (font, regularSize, boldSize) in fonts.fallbacks {
            let source = manifest["sources"]?[font.name]
            guard source?["regular"]?["size"]?.doubleValue == Double(regularSize),
                  source?["bold"]?["size"]?.doubleValue == boldSize.map(Double.init) else {
                fallbackWarnings.append("\(font.name): the subsets in \(dir) were made from other files than the ones "
                                        + "measured with (run scripts/make-fonts --fallbacks): not served")
                continue
            }
            var subsets: [Face] = [], paths: [String: String] = [:]
            for item in list where item["font"]?.stringValue == font.name {
                guard let file = item["file"]?.stringValue, let weight = item["weight"]?.doubleValue,
                      let unicodeRange = item["unicodeRange"]?.stringValue,
                      file.hasSuffix(".woff2"), !file.contains("/"), files[file] == nil, diskFiles[file] == nil,
                      FileManager.default.isReadableFile(atPath: dir + "/" + file) else {
                    fallbackWarnings.append("\(font.name): \(dir)/manifest.json names a file that cannot be read: not served")
                    subsets = []
                    break
                }
                subsets.append(Face(file: file, weight: Int(weight), range: font.name, unicodeRange: unicodeRange))
                paths[file] = dir + "/" + file
            }
            fallbackFaces += subsets
            diskFiles.merge(paths) { a, _ in a }
        }
    }

    /// The families of the `--fonts` folders: each face's file is served as it is at
    /// `/font/<file>` (`familyFiles`); the page's rules name its WOFF2 subsets
    /// (`subsetsDir`, made by `scripts/make-fonts --families`, read from disk when asked
    /// for) when the manifest there names that very file (the same size and
    /// `head.checkSumAdjustment`), else the file itself. Why a face gets no subsets goes
    /// to `familyWarnings` (the start-up log), how many do to `familyNote`.
    mutating func addFamilies(_ families: [String: FontFamily], subsetsDir dir: String) {
        var manifest: JSONValue? = nil
        if !families.isEmpty {
            if let data = FileManager.default.contents(atPath: dir + "/manifest.json") {
                manifest = try? Jansson.parse([UInt8](data))
                if manifest?["files"]?.arrayValue == nil {
                    manifest = nil
                    familyWarnings.append("\(dir)/manifest.json is not a font manifest: serving the --fonts families' files as they are")
                }
            } else {
                familyWarnings.append("\(dir)/manifest.json is missing (run scripts/make-fonts --families DIR...): "
                                      + "serving the --fonts families' files as they are")
            }
        }
        var unlisted: [String] = [], subsetFaces = 0
        for name in families.keys.sorted() {
            for (face, file) in families[name]!.faces.sorted(by: { $0.value.path < $1.value.path }) {
                let served = file.servedName
                guard familyFiles[served] == nil, served != "regular.ttf", served != "bold.ttf" else { continue }
                familyFiles[served] = file.bytes
                let style = "font-weight: \(face.bold ? 700 : 400); font-style: \(face.italic ? "italic" : "normal"); font-display: block;"
                if let manifest {
                    switch Self.familySubsets(manifest, served: served, bytes: file.bytes, dir: dir,
                                              taken: { files[$0] != nil || diskFiles[$0] != nil }) {
                    case .success(let subsets):
                        for (f, path) in subsets {
                            familyRules.append(#"@font-face { font-family: "\#(name)"; src: url(../fonts/\#(f.file)) format("woff2"); "#
                                + style + " unicode-range: \(f.unicodeRange); }")
                            diskFiles[f.file] = path
                        }
                        subsetFaces += 1
                        continue
                    case .failure(.unlisted):
                        unlisted.append(served)
                    case .failure(.other(let why)):
                        familyWarnings.append("\(file.path): \(why): serving the file as it is")
                    }
                }
                let format = served.lowercased().hasSuffix(".otf") ? "opentype" : "truetype"
                familyRules.append(#"@font-face { font-family: "\#(name)"; src: url(../font/\#(served)) format("\#(format)"); "# + style + " }")
            }
        }
        if !unlisted.isEmpty {
            familyWarnings.append("\(dir)/manifest.json has no subsets of \(unlisted.joined(separator: ", ")) (run scripts/make-fonts "
                                  + "--families with every --fonts folder): serving those files as they are")
        }
        if subsetFaces > 0 { familyNote = "\(subsetFaces) faces of the --fonts families served as WOFF2 subsets from \(dir)" }
    }

    enum SubsetProblem: Error { case unlisted, other(String) }

    /// The subsets `manifest` lists for the file served as `served`, with their paths,
    /// if it was made from these bytes and every subset can be read.
    static func familySubsets(_ manifest: JSONValue, served: String, bytes: [UInt8], dir: String,
                              taken: (String) -> Bool) -> Result<[(Face, String)], SubsetProblem> {
        guard let source = manifest["sources"]?[served] else { return .failure(.unlisted) }
        guard source["size"]?.doubleValue == Double(bytes.count),
              source["checkSumAdjustment"]?.doubleValue == checkSumAdjustment(bytes).map(Double.init) else {
            return .failure(.other("the subsets in \(dir) were made from another \(served) (size or checkSumAdjustment "
                                   + "differ; run scripts/make-fonts --families DIR...)"))
        }
        var subsets: [(Face, String)] = []
        for item in manifest["files"]?.arrayValue ?? [] where item["source"]?.stringValue == served {
            guard let file = item["file"]?.stringValue, let range = item["range"]?.stringValue,
                  let unicodeRange = item["unicodeRange"]?.stringValue,
                  file.hasSuffix(".woff2"), !file.contains("/"), !taken(file),
                  unicodeRange.allSatisfy({ $0.isHexDigit || "U+-,".contains($0) }),
                  FileManager.default.isReadableFile(atPath: dir + "/" + file) else {
                return .failure(.other("\(dir)/manifest.json names a subset of it that cannot be read"))
            }
            subsets.append((Face(file: file, weight: 0, range: range, unicodeRange: unicodeRange), dir + "/" + file))
        }
        return subsets.isEmpty ? .failure(.other("\(dir)/manifest.json lists no subset of it")) : .success(subsets)
    }

    /// The bytes of the subset named `name` (nil: no such subset, or it can no longer be
    /// read).
    func file(_ name: String) -> [UInt8]? {
        if let bytes = files[name] { return bytes }
        return diskFiles[name].flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }
    }

    /// The `head` table's checkSumAdjustment of a TrueType file (its identity).
    static func checkSumAdjustment(_ ttf: [UInt8]) -> UInt32? {
        func u16(_ o: Int) -> Int { o + 2 <= ttf.count ? Int(ttf[o]) << 8 | Int(ttf[o + 1]) : 0 }
        func u32(_ o: Int) -> UInt32? {
            guard o + 4 <= ttf.count else { return nil }
            return UInt32(ttf[o]) << 24 | UInt32(ttf[o + 1]) << 16 | UInt32(ttf[o + 2]) << 8 | UInt32(ttf[o + 3])
        }
        for i in 0..<u16(4) {
            let record = 12 + 16 * i
            guard record + 16 <= ttf.count else { return nil }
            if Array(ttf[record..<(record + 4)]) == Array("head".utf8), let offset = u32(record + 8) {
                return u32(Int(offset) + 8)
            }
        }
        return nil
    }
}

import Foundation
import Testing
import LayoutEngine
@testable import FontStack
@testable import ChartWireServer

/// The `--fonts` families as the page gets them: a face's WOFF2 subsets when
/// `web/fonts/families/manifest.json` names that very file, else the file itself.
@Suite struct WebFontsTests {
    /// The smallest bytes `WebFonts.checkSumAdjustment` reads: a table directory with a
    /// `head` record, and the table's checkSumAdjustment.
    static func font(checksum: UInt32, padding: Int = 0) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var b: [UInt8] = [0, 1, 0, 0] + u16(1) + [0, 0, 0, 0, 0, 0]
        b += Array("head".utf8) + u32(0) + u32(28) + u32(12)
        b += [0, 1, 0, 0, 0, 0, 0, 0] + u32(checksum)
        return b + [UInt8](repeating: 0, count: padding)
    }

    struct Setup {
        let dir: String
        let families: [String: FontFamily]
        let files: [String: [UInt8]]
    }

    /// Five faces in a temporary folder: A (listed, matching), B (listed, another
    /// checksum), C (not listed), D (listed, its subset missing), E (listed, a
    /// unicode-range that is not one).
    static func setup(manifest: Bool = true) throws -> Setup {
        let dir = NSTemporaryDirectory() + "webfonts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/families", withIntermediateDirectories: true)
        let files = ["A.ttf": font(checksum: 11), "B.ttf": font(checksum: 22), "C.ttf": font(checksum: 33),
                     "D.ttf": font(checksum: 44, padding: 4), "E.ttf": font(checksum: 55)]
        for (name, bytes) in files { FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) }
        func file(_ name: String) -> FontFamily.File { FontFamily.File(path: dir + "/" + name, bytes: files[name]!) }
        let families = [
            "Fam": FontFamily(name: "Fam", faces: [FontFace(): file("A.ttf"), FontFace(bold: true): file("B.ttf"),
                                                   FontFace(italic: true): file("C.ttf"), FontFace(bold: true, italic: true): file("D.ttf")]),
            "Other": FontFamily(name: "Other", faces: [FontFace(): file("E.ttf")]),
        ]
        for name in ["a-latin.1.woff2", "a-rest.2.woff2", "b-latin.3.woff2", "e-latin.5.woff2"] {
            FileManager.default.createFile(atPath: dir + "/families/" + name, contents: Data(Array(name.utf8)))
        }
        if manifest {
            let text = #"""
                {"files": [
                  {"file": "a-latin.1.woff2", "source": "A.ttf", "range": "latin", "unicodeRange": "U+0020-007E,U+00A0-00FF"},
                  {"file": "a-rest.2.woff2", "source": "A.ttf", "range": "rest", "unicodeRange": "U+2190-2193"},
                  {"file": "b-latin.3.woff2", "source": "B.ttf", "range": "latin", "unicodeRange": "U+0020-007E"},
                  {"file": "d-latin.4.woff2", "source": "D.ttf", "range": "latin", "unicodeRange": "U+0020-007E"},
                  {"file": "e-latin.5.woff2", "source": "E.ttf", "range": "latin", "unicodeRange": "U+0020; } body { color: red"}],
                 "sources": {
                  "A.ttf": {"size": \#(files["A.ttf"]!.count), "checkSumAdjustment": 11},
                  "B.ttf": {"size": \#(files["B.ttf"]!.count), "checkSumAdjustment": 23},
                  "D.ttf": {"size": \#(files["D.ttf"]!.count), "checkSumAdjustment": 44},
                  "E.ttf": {"size": \#(files["E.ttf"]!.count), "checkSumAdjustment": 55}}}
                """#
            FileManager.default.createFile(atPath: dir + "/families/manifest.json", contents: Data(text.utf8))
        }
        return Setup(dir: dir, families: families, files: files)
    }

    @Test func aMatchingFaceGetsItsSubsetsAndTheOthersTheirFiles() throws {
        let s = try Self.setup()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        var web = WebFonts()
        web.addFamilies(s.families, subsetsDir: s.dir + "/families")
        let head = web.headHTML
        // A: one rule per subset, with its unicode-range; served from disk at /fonts/.
        #expect(head.contains(#"@font-face { font-family: "Fam"; src: url(../fonts/a-latin.1.woff2) format("woff2"); "#
                              + "font-weight: 400; font-style: normal; font-display: block; unicode-range: U+0020-007E,U+00A0-00FF; }"))
        #expect(head.contains(#"src: url(../fonts/a-rest.2.woff2) format("woff2"); font-weight: 400; font-style: normal; font-display: block; unicode-range: U+2190-2193; }"#))
        #expect(!head.contains("url(../font/A.ttf)"))
        #expect(web.file("a-latin.1.woff2") == Array("a-latin.1.woff2".utf8))
        // B (another checksum), C (not listed), D (a subset missing), E (a range that is
        // not one): their files, as before.
        #expect(head.contains(#"@font-face { font-family: "Fam"; src: url(../font/B.ttf) format("truetype"); font-weight: 700; font-style: normal; font-display: block; }"#))
        #expect(head.contains(#"src: url(../font/C.ttf) format("truetype"); font-weight: 400; font-style: italic; font-display: block; }"#))
        #expect(head.contains(#"src: url(../font/D.ttf) format("truetype"); font-weight: 700; font-style: italic; font-display: block; }"#))
        #expect(head.contains(#"@font-face { font-family: "Other"; src: url(../font/E.ttf) format("truetype");"#))
        #expect(!head.contains("b-latin") && !head.contains("e-latin") && !head.contains("color: red"))
        #expect(web.file("b-latin.3.woff2") == nil && web.file("e-latin.5.woff2") == nil)
        // Every file is still served at /font/<file>.
        #expect(web.familyFiles == s.files)
        // The start-up log says why, face by face.
        let dir = s.dir + "/families"
        #expect(web.familyWarnings.contains("\(s.dir)/B.ttf: the subsets in \(dir) were made from another B.ttf (size or "
                                            + "checkSumAdjustment differ; run scripts/make-fonts --families DIR...): serving the file as it is"))
        #expect(web.familyWarnings.contains("\(s.dir)/D.ttf: \(dir)/manifest.json names a subset of it that cannot be read: serving the file as it is"))
        #expect(web.familyWarnings.contains("\(s.dir)/E.ttf: \(dir)/manifest.json names a subset of it that cannot be read: serving the file as it is"))
        #expect(web.familyWarnings.contains("\(dir)/manifest.json has no subsets of C.ttf (run scripts/make-fonts --families with every "
                                            + "--fonts folder): serving those files as they are"))
        #expect(web.familyWarnings.count == 4)
        #expect(web.familyNote == "1 faces of the --fonts families served as WOFF2 subsets from \(dir)")
    }

    @Test func withoutAManifestEveryFaceIsItsFile() throws {
        let s = try Self.setup(manifest: false)
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        var web = WebFonts()
        web.addFamilies(s.families, subsetsDir: s.dir + "/families")
        #expect(web.familyRules.count == 5 && web.familyRules.allSatisfy { $0.contains("format(\"truetype\")") && $0.hasSuffix("}") })
        #expect(web.familyWarnings == ["\(s.dir)/families/manifest.json is missing (run scripts/make-fonts --families DIR...): "
                                       + "serving the --fonts families' files as they are"])
        #expect(web.familyNote == nil)
        // No families, nothing to say.
        var none = WebFonts()
        none.addFamilies([:], subsetsDir: s.dir + "/families")
        #expect(none.familyRules.isEmpty && none.familyWarnings.isEmpty)
    }
}

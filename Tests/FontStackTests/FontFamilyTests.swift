import Foundation
import FontStack
import Testing
import TestSupport
@testable import LayoutEngine

/// A chart's own font families (`--fonts`): read from the files' own tables, measured
/// with HarfBuzz in those files, falling back to the chart font for what they lack.
@Suite struct FontFamilyTests {
    let fonts = TestFonts.fonts
    var measurer: TextMeasurer { fonts.measurer }

    @Test func theLiberationFolderGivesFourFamiliesOfFourFaces() throws {
        let all: Set<FontFace> = [FontFace(), FontFace(bold: true), FontFace(italic: true), FontFace(bold: true, italic: true)]
        #expect(fonts.families.keys.sorted() == ["Liberation Mono", "Liberation Sans", "Liberation Sans Narrow", "Liberation Serif"])
        for (name, family) in fonts.families { #expect(Set(family.faces.keys) == all, "\(name)") }
        #expect(fonts.families["Liberation Serif"]?.faces[FontFace(bold: true, italic: true)]?.servedName == "LiberationSerif-BoldItalic.ttf")
        #expect(fonts.familyWarnings.isEmpty, "\(fonts.familyWarnings)")
    }

    @Test func namingComesFromTheFilesOwnTables() throws {
        let dir = TestFonts.familyDir
        func naming(_ file: String) throws -> FontNaming {
            try FontNaming(trueType: [UInt8](try #require(FileManager.default.contents(atPath: "\(dir)/\(file)"))))
        }
        #expect(try naming("LiberationSerif-BoldItalic.ttf") == FontNaming(family: "Liberation Serif", weight: 700, italic: true))
        #expect(try naming("LiberationSansNarrow-Regular.ttf") == FontNaming(family: "Liberation Sans Narrow", weight: 400, italic: false))
        #expect(try FontNaming(trueType: TestFonts.bytes("DejaVuSans-Bold.ttf")).family == "DejaVu Sans")
        #expect(throws: FontParseError.self) { try FontNaming(trueType: Array("not a font at all, not at all".utf8)) }
    }

    /// Chromium 156's canvas `measureText` at 100 px for the same files served through
    /// @font-face (scripts run against /api/measure; the browser test checks it live).
    @Test(arguments: [
        ("Liberation Serif", "AV To Wa", 416.40625), ("Liberation Serif", "office fluffy", 482.2265625),
        ("Liberation Sans", "AV To Wa", 433.447265625), ("Liberation Sans", "office fluffy", 474.365234375),
    ])
    func widthsMatchChromium(family: String, text: String, chromium: Double) {
        let width = measurer.width(of: text, style: TextStyle(size: 100, family: family))
        #expect(abs(width - chromium) < 0.01, "\(width)")
    }

    @Test func aFamilyIsMeasuredInItsOwnFaceAndFallsBackToTheChartFont() {
        let serif = TextStyle(size: 20, family: "Liberation Serif"), chart = TextStyle(size: 20)
        #expect(abs(measurer.width(of: "Harbour tide", style: serif) - measurer.width(of: "Harbour tide", style: chart)) > 5)
        // Italic and bold are faces of their own.
        var italic = serif; italic.italic = true
        var bold = serif; bold.bold = true
        let widths = Set([serif, italic, bold].map { measurer.width(of: "Harbour tide", style: $0) })
        #expect(widths.count == 3)
        // Liberation has no CJK: the chart font's fallback (Noto CJK) measures it, as in the page.
        #expect(measurer.width(of: "東京", style: serif) == measurer.width(of: "東京", style: chart))
        #expect(measurer.width(of: "東京", style: serif) > 0)
        // Vertical metrics are the family's.
        #expect(measurer.metrics(for: serif).family == "Liberation Serif")
        #expect(measurer.metrics(for: chart).family == ChartFonts.family)
        // A family the measurer does not have measures in the chart font.
        #expect(measurer.width(of: "Harbour", style: TextStyle(size: 20, family: "Nope")) == measurer.width(of: "Harbour", style: chart))
    }

    @Test func spacesAreShapedApartAsInChromium() {
        // Liberation Serif kerns "V" before a space (its `kern` table); Chromium shapes
        // word by word and does not: so neither does the server.
        let s = TextStyle(size: 100, family: "Liberation Serif")
        let parts = ["AV", " ", "To", " ", "Wa"].map { measurer.width(of: $0, style: s) }.reduce(0, +)
        #expect(abs(measurer.width(of: "AV To Wa", style: s) - parts) < 1e-9)
    }

    @Test func aFolderWithoutFontsIsAnErrorAndOddFilesAreLeftOutWithAWarning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fonts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: FontLoadError.self) { _ = try TestFonts.fonts.adding(familyDirs: [dir.path]) }
        try Data("junk".utf8).write(to: dir.appendingPathComponent("Broken.ttf"))
        try FileManager.default.copyItem(atPath: TestFonts.familyDir + "/LiberationMono-Regular.ttf",
                                         toPath: dir.appendingPathComponent("Mono.ttf").path)
        try FileManager.default.copyItem(atPath: TestFonts.familyDir + "/LiberationMono-Regular.ttf",
                                         toPath: dir.appendingPathComponent("Mono-again.ttf").path)
        try FileManager.default.copyItem(atPath: TestFonts.dir + "/DejaVuSans-ExtraLight.ttf",
                                         toPath: dir.appendingPathComponent("Light.ttf").path)
        let fonts = try ChartFonts.load(primaryDir: TestFonts.dir).adding(familyDirs: [dir.path])
        #expect(fonts.families.keys.sorted() == ["Liberation Mono"])
        #expect(fonts.familyWarnings.count == 3, "\(fonts.familyWarnings)")
        #expect(fonts.familyWarnings.contains { $0.contains("Broken.ttf") })
        #expect(fonts.familyWarnings.contains { $0.contains("Mono.ttf") && $0.contains("already") })
        #expect(fonts.familyWarnings.contains { $0.contains("Light.ttf") && $0.contains("weight 200") })
        #expect(throws: FontLoadError.self) { _ = try TestFonts.fonts.adding(familyDirs: ["/no/such/folder"]) }
    }
}

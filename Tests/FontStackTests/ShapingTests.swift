import Foundation
import FontStack
import Testing
import Synchronization
import TestSupport
@testable import LayoutEngine

@Suite struct ShapingTests {
    let measurer = TestFonts.measurer
    var shaper: FallbackShaper { measurer.shaper as! FallbackShaper }

    /// Widths Chromium 156's canvas `measureText` reports for the same font files
    /// (DejaVu Sans and DejaVu Sans Bold served through @font-face). The browser test
    /// checks the same agreement live, for every script; this table keeps Latin checked
    /// without a browser.
    @Test(arguments: [
        (false, 12.0, "0", 7.634765625), (false, 12, "-0.5", 23.4140625), (false, 12, "1.25", 26.71875),
        (false, 12, "Time (s)", 48.796875), (false, 12, "Random walk", 80.947265625),
        (false, 12, "AVAWAY To", 64.69921875), (false, 12, "fi fl ffi", 34.34765625),
        (false, 12, "Temperature (°C)", 103.5703125),
        (true, 16, "0", 11.1328125), (true, 16, "Time (s)", 73.640625), (true, 16, "Random walk", 120.8984375),
        (true, 16, "AVAWAY To", 98.9765625), (true, 16, "fi fl ffi", 52.703125),
        (true, 16, "Temperature (°C)", 155.0234375),
    ])
    func widthsMatchChromium(bold: Bool, size: Double, text: String, chromium: Double) {
        #expect(abs(measurer.width(of: text, style: TextStyle(size: size, bold: bold)) - chromium) < 0.01)
    }

    @Test func everyFallbackFontIsInstalled() {
        // fonts-noto-cjk and fonts-noto-core are part of scripts/setup.
        #expect(TestFonts.fonts.missing.isEmpty, "\(TestFonts.fonts.missing)")
        #expect(TestFonts.fonts.fallbacks.map(\.font.name) == FallbackFont.debian.map(\.name))
    }

    @Test func kerningAndLigaturesComeFromTheShaper() {
        let style = TextStyle(size: 100)
        let plain = TestFonts.regular
        // HarfBuzz kerns "AV"; the nominal advances do not.
        #expect(measurer.width(of: "AV", style: style) < plain.width(of: "AV", size: 100) - 1)
        // "ffi" becomes one ligature glyph, whose advance differs from three letters'.
        #expect(measurer.width(of: "ffi", style: style) != plain.width(of: "ffi", size: 100))
    }

    @Test func latinIsOneRunInThePrimaryFace() {
        #expect(shaper.runs(of: "Time (s)", bold: false) == [.init(range: 0..<8, face: 0, script: Script.tag("Latn"))])
        // Digits alone have no script of their own: HarfBuzz guesses.
        #expect(shaper.runs(of: "12.5", bold: false) == [.init(range: 0..<4, face: 0, script: 0)])
    }

    @Test func cjkFallsBackToNotoAndPunctuationStaysInDejaVu() {
        // Spaces and punctuation are Common: they take the script before them, and the
        // primary face, which has them.
        let hani = Script.tag("Hani"), latin = Script.tag("Latn")
        #expect(shaper.runs(of: "温度 (°C)", bold: false) == [
            .init(range: 0..<2, face: 1, script: hani), .init(range: 2..<5, face: 0, script: hani),
            .init(range: 5..<7, face: 0, script: latin),
        ])
        // Ideographs are one em wide in Noto Sans CJK.
        #expect(abs(shaper.emWidth(of: "温度", bold: false) - 2) < 1e-9)
        #expect(abs(shaper.emWidth(of: "温度", bold: true) - 2) < 1e-9)
        // Kana too; the mixed string is the sum of its runs.
        let mixed = shaper.emWidth(of: "温度 (°C)", bold: false)
        #expect(abs(mixed - 2 - shaper.emWidth(of: " (°C)", bold: false)) < 0.05)
    }

    @Test func devanagariIsShapedNotSummed() {
        let runs = shaper.runs(of: "तापमान", bold: false)
        #expect(runs.count == 1 && runs[0].face == 2 && runs[0].script == Script.tag("Deva"))
        // A conjunct: KA + VIRAMA + SSA shape into one glyph, narrower than the three
        // letters' advances side by side.
        let conjunct = shaper.emWidth(of: "क्ष", bold: false)
        let apart = ["क", "्", "ष"].map { shaper.emWidth(of: $0, bold: false) }.reduce(0, +)
        #expect(conjunct < apart - 0.1)
    }

    @Test func arabicJoinsInDejaVu() {
        // DejaVu Sans has Arabic, so the primary face draws it, right to left.
        let runs = shaper.runs(of: "درجة الحرارة", bold: false)
        #expect(runs.count == 1 && runs[0].face == 0 && runs[0].script == Script.tag("Arab"))
        // Joined forms are narrower than isolated letters.
        let word = "الحرارة"
        let isolated = word.map { shaper.emWidth(of: String($0), bold: false) }.reduce(0, +)
        #expect(shaper.emWidth(of: word, bold: false) < isolated - 0.1)
    }

    @Test func clustersStayTogetherAndUnknownScalarsGetThePrimaryFace() {
        // A vowel sign stays with its consonant in the Devanagari face; so does a mark
        // only DejaVu has (U+0301), since no face has the whole cluster but Noto has its base.
        #expect(shaper.runs(of: "कि", bold: false).map(\.face) == [2])
        #expect(shaper.runs(of: "क\u{0301}", bold: false).map(\.face) == [2])
        #expect(shaper.runs(of: "e\u{0301}", bold: false).map(\.face) == [0])
        // Nobody has U+10FFFD: the primary face's .notdef, which has a width.
        #expect(shaper.runs(of: "\u{10FFFD}", bold: false).map(\.face) == [0])
        #expect(shaper.emWidth(of: "\u{10FFFD}", bold: false) > 0)
        #expect(shaper.emWidth(of: "", bold: false) == 0)
    }

    @Test func cachedWidthsAreTheShapedOnes() {
        let text = "Überschrift 温度 तापमान"
        let first = shaper.emWidth(of: text, bold: true)
        let fresh = FallbackShaper(regular: shaper.regularFaces, bold: shaper.boldFaces)
        #expect(fresh.emWidth(of: text, bold: true) == first)
        #expect(shaper.emWidth(of: text, bold: true) == first)
    }

    /// A fresh font stack (the shared one has made faces other tests needed).
    static func freshFonts() throws -> ChartFonts { try ChartFonts.load(primaryDir: TestFonts.dir) }

    @Test func aLatinChartLeavesEveryFallbackFaceUnmade() throws {
        let fonts = try Self.freshFonts()
        let shaper = fonts.shaper
        // The two DejaVu faces only.
        #expect(shaper.loadedFaceCount == 2)
        let engine = ChartLayoutEngine(measurer: fonts.measurer)
        let layout = engine.layout(ChartLayoutSpec(size: Size(width: 800, height: 500), title: "Random walk (°C)", axes: [
            AxisSpec(id: "x", alignment: .bottom, visibleRange: DoubleRange(0, 20), title: "Time (s)"),
            AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(-1.2, 1.2), title: "Überschrift – Value"),
        ]))
        #expect(layout.axis("y")?.ticks.isEmpty == false)
        #expect(fonts.measurer.width(of: "Temperature", style: TextStyle(size: 16, bold: true)) > 0)
        #expect(shaper.loadedFaceCount == 2)
        #expect(shaper.regularFaces.dropFirst().allSatisfy { !$0.isLoaded })
        #expect(shaper.boldFaces.dropFirst().allSatisfy { !$0.isLoaded })
        #expect(shaper.regularFaces[1].path == FallbackFont.debian[0].regular)

        // CJK text makes the CJK face, and only it (Devanagari stays unmade); bold makes
        // the bold collection's.
        _ = fonts.measurer.width(of: "温度 (°C)", style: TextStyle(size: 12))
        #expect(shaper.regularFaces[1].isLoaded && !shaper.regularFaces[2].isLoaded && !shaper.boldFaces[1].isLoaded)
        #expect(shaper.loadedFaceCount == 3)
        _ = fonts.measurer.width(of: "温度", style: TextStyle(size: 12, bold: true))
        #expect(shaper.boldFaces[1].isLoaded && shaper.loadedFaceCount == 4)
    }

    /// The faces made lazily from mapped files measure exactly what faces made at once
    /// from the bytes read whole (the way the server loaded them before) measure.
    @Test func mappedLazyFacesMeasureAsTheReadOnes() throws {
        func read(_ path: String) throws -> [UInt8] { try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) }) }
        func face(_ path: String, _ index: Int) throws -> ShapedFace { try #require(ShapedFace(bytes: read(path), index: index)) }
        var regular = [try face(TestFonts.dir + "/DejaVuSans.ttf", 0)], bold = [try face(TestFonts.dir + "/DejaVuSans-Bold.ttf", 0)]
        for font in FallbackFont.debian {
            regular.append(try face(font.regular, font.index))
            bold.append(try face(try #require(font.bold), font.index))
        }
        let read = FallbackShaper(regular: regular, bold: bold)
        let mapped = try Self.freshFonts().shaper
        let texts = ["Time (s)", "AVAWAY To", "温度 (°C)", "東京の気温", "तापमान क्ष", "درجة الحرارة", "עברית 12",
                     "ภาษาไทย", "Überschrift 温度 तापमान", "e\u{0301} \u{10FFFD}", "12.5", "😀 emoji"]
        for text in texts {
            for isBold in [false, true] {
                #expect(mapped.emWidth(of: text, bold: isBold) == read.emWidth(of: text, bold: isBold), "\(text)")
                #expect(mapped.runs(of: text, bold: isBold) == read.runs(of: text, bold: isBold), "\(text)")
            }
        }
    }

    @Test func firstUseFromManyThreadsMakesOneFace() throws {
        let fonts = try Self.freshFonts()
        @Sendable func text(_ i: Int) -> String { "東京の気温 (°C)" + String(repeating: "x", count: i) }
        let expected = (0..<16).map { TestFonts.measurer.width(of: text($0), style: TextStyle(size: 13)) }
        let widths = Mutex<[Int: Double]>([:])
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            // Different strings, so the width cache does not answer for the face.
            let w = fonts.measurer.width(of: text(i), style: TextStyle(size: 13))
            widths.withLock { $0[i] = w }
        }
        #expect(fonts.shaper.loadedFaceCount == 3)
        #expect(widths.withLock { $0 } == Dictionary(uniqueKeysWithValues: expected.enumerated().map { ($0, $1) }))
        #expect(Set(expected).count == 16)
    }

    @Test func fontFilesAreProbedAndMapped() {
        let path = TestFonts.dir + "/DejaVuSans.ttf"
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        #expect(ShapedFace.probe(path: path) == size)
        #expect(ShapedFace.probe(path: path, index: 1) == nil)
        #expect(ShapedFace.probe(path: "/nonexistent.ttf") == nil)
        #expect(ShapedFace(path: "/nonexistent.ttf") == nil)
        #expect(ShapedFace(path: path, index: 1) == nil)
        #expect(ShapedFace(path: FallbackFont.debian[0].regular, index: 0)?.unitsPerEm == 1000)
        // A face whose file went away after start-up covers nothing (the primary draws).
        let gone = LazyFace(path: "/nonexistent.ttf")
        #expect(!gone.isLoaded && !gone.covers(0x6E29) && gone.isLoaded && gone.face == nil)
    }

    @Test func metricsAreSane() {
        let m = TestFonts.regular
        #expect(m.unitsPerEm == 2048)
        #expect(m.ascent(size: 12) > 10 && m.ascent(size: 12) < 12)
        #expect(m.descent(size: 12) > 2 && m.descent(size: 12) < 4)
        #expect(m.width(of: "", size: 12) == 0)
        // A scalar the font lacks gets the .notdef advance, not zero.
        #expect(m.width(of: "\u{10FFFD}", size: 12) > 0)
    }

    @Test func brokenFontsAreRefused() {
        #expect(throws: FontParseError.self) { try FontMetrics(trueType: [], family: "x") }
        #expect(throws: FontParseError.self) { try FontMetrics(trueType: Array(repeating: 0xFF, count: 64), family: "x") }
        let real = TestFonts.bytes("DejaVuSans.ttf")
        #expect(throws: FontParseError.self) { try FontMetrics(trueType: Array(real.prefix(2000)), family: "x") }
        #expect(ShapedFace(bytes: []) == nil)
        #expect(ShapedFace(bytes: Array(repeating: 0xFF, count: 64)) == nil)
        #expect(ShapedFace(bytes: real, index: 1) == nil)
        #expect(throws: FontLoadError.self) { try ChartFonts.load(primaryDir: "/nonexistent") }
    }
}

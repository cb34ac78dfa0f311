import Testing
import TestSupport
@testable import LayoutEngine

@Suite struct FontMetricsTests {
    /// Widths Chromium 156's canvas `measureText` reports for the same font files
    /// (DejaVu Sans and DejaVu Sans Bold served through @font-face). The browser test
    /// checks the same agreement live; this table keeps it checked without a browser.
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
        let m = bold ? TestFonts.bold : TestFonts.regular
        #expect(abs(m.width(of: text, size: size) - chromium) < 0.01)
    }

    @Test func kerningNarrowsPairs() {
        let m = TestFonts.regular
        #expect(m.hasKerning)
        #expect(m.width(of: "AV", size: 100) < m.width(of: "A", size: 100) + m.width(of: "V", size: 100))
        #expect(m.width(of: "AV", size: 100, kerning: false) == m.width(of: "A", size: 100) + m.width(of: "V", size: 100))
    }

    @Test func ligaturesReplaceGlyphs() {
        let m = TestFonts.regular
        #expect(m.hasLigatures)
        #expect(m.glyphs(for: "fi").count == 1)
        #expect(m.glyphs(for: "ffi").count == 1)
        #expect(m.glyphs(for: "fi", ligatures: false).count == 2)
        #expect(m.glyphs(for: "f i").count == 3)
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
    }
}

import ChartExport
import ChartSession
import FontStack
import LayoutEngine
import TestSupport
import XCTest

final class ImageRendererTests: XCTestCase {
    static let fonts = GlyphFonts(fonts: TestFonts.fonts)
    let renderer = ImageRenderer(fonts: ImageRendererTests.fonts)

    func list(_ w: Int, _ h: Int, dpr: Double = 1, background: [DrawCommand] = [], series: [DrawCommand] = [],
              overlay: [DrawCommand] = []) -> DisplayList {
        DisplayList(width: w, height: h, dpr: dpr, layers: [
            Layer(id: .background, version: 1, commands: background), Layer(id: .series, version: 1, commands: series),
            Layer(id: .overlay, version: 1, commands: overlay),
        ])
    }

    func testRectFillLandsOnItsPixelsAtTheDevicePixelRatio() throws {
        let p = try renderer.raster(list(20, 10, dpr: 2, background: [
            .rect(x: 0, y: 0, w: 20, h: 10, fill: "#ffffff", stroke: nil, lineWidth: 0),
            .rect(x: 2, y: 3, w: 4, h: 2, fill: "rgb(255, 0, 0)", stroke: nil, lineWidth: 0),
        ]))
        XCTAssertEqual(p.width, 40); XCTAssertEqual(p.height, 20)
        // CSS (2,3)-(6,5) is device (4,6)-(12,10).
        XCTAssertTrue(p.rgba(4, 6) == (255, 0, 0, 255))
        XCTAssertTrue(p.rgba(11, 9) == (255, 0, 0, 255))
        XCTAssertTrue(p.rgba(3, 6) == (255, 255, 255, 255))
        XCTAssertTrue(p.rgba(12, 9) == (255, 255, 255, 255))
        XCTAssertTrue(p.rgba(4, 10) == (255, 255, 255, 255))
    }

    func testRectStrokeIsInsetHalfADevicePixel() throws {
        // strokeRect(x + 0.5/dpr, ...) with a one-pixel line: the outline is the rect's
        // outermost device pixels, fully covered, the inside untouched.
        let p = try renderer.raster(list(10, 10, background: [
            .rect(x: 2, y: 2, w: 6, h: 6, fill: nil, stroke: "#0000ff", lineWidth: 1),
        ]))
        XCTAssertTrue(p.rgba(2, 4) == (0, 0, 255, 255))
        XCTAssertTrue(p.rgba(7, 4) == (0, 0, 255, 255))
        XCTAssertEqual(p.rgba(1, 4).a, 0)
        XCTAssertEqual(p.rgba(4, 4).a, 0)
    }

    func testClipRestrictsDrawingUntilUnclip() throws {
        let p = try renderer.raster(list(10, 10, series: [
            .clip(x: 0, y: 0, w: 5, h: 10),
            .rect(x: 0, y: 0, w: 10, h: 5, fill: "#00ff00", stroke: nil, lineWidth: 0),
            .unclip,
            .rect(x: 0, y: 5, w: 10, h: 5, fill: "#00ff00", stroke: nil, lineWidth: 0),
        ]))
        XCTAssertTrue(p.rgba(2, 2) == (0, 255, 0, 255))
        XCTAssertEqual(p.rgba(7, 2).a, 0, "clipped away")
        XCTAssertTrue(p.rgba(7, 7) == (0, 255, 0, 255), "after unclip")
    }

    func testOpacityAppliesUntilTheClipEnds() throws {
        let p = try renderer.raster(list(10, 10, series: [
            .clip(x: 0, y: 0, w: 10, h: 10),
            .opacity(0.5),
            .rect(x: 0, y: 0, w: 5, h: 10, fill: "#000000", stroke: nil, lineWidth: 0),
            .unclip,
            .rect(x: 5, y: 0, w: 5, h: 10, fill: "#000000", stroke: nil, lineWidth: 0),
        ]))
        XCTAssertEqual(p.rgba(2, 2).a, 128, accuracy: 1)
        XCTAssertEqual(p.rgba(7, 2).a, 255, "globalAlpha is restored with the clip")
    }

    func testLayersDrawInOrderBackgroundSeriesOverlay() throws {
        let p = try renderer.raster(DisplayList(width: 4, height: 4, dpr: 1, layers: [
            Layer(id: .overlay, version: 1, commands: [.rect(x: 0, y: 0, w: 4, h: 4, fill: "#0000ff", stroke: nil, lineWidth: 0)]),
            Layer(id: .background, version: 1, commands: [.rect(x: 0, y: 0, w: 4, h: 4, fill: "#ff0000", stroke: nil, lineWidth: 0)]),
            Layer(id: .modifier, version: 1, commands: [.rect(x: 0, y: 0, w: 4, h: 4, fill: "#00ff00", stroke: nil, lineWidth: 0)]),
        ]))
        XCTAssertTrue(p.rgba(1, 1) == (0, 0, 255, 255), "overlay above background; the viewer's modifier layer is not exported")
    }

    func testTextPixelsLieWhereTheLabelIsMeasured() throws {
        let text = "Throughput 42"
        let width = TestFonts.measurer.width(of: text, style: TextStyle(size: 20, bold: false))
        let p = try renderer.raster(list(300, 60, background: [
            .text(x: 150, y: 30, text: text, font: "20px ChartWire Sans", fill: "#000000", align: .center, baseline: .middle, angle: 0),
        ]))
        var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1
        for y in 0..<p.height { for x in 0..<p.width where p.rgba(x, y).a > 100 {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        } }
        XCTAssertGreaterThan(maxX, 0, "the label has ink")
        // Centred on x = 150 across the measured width (ink sits within a pixel or two of the advance box).
        XCTAssertEqual(Double(minX), 150 - width / 2, accuracy: 3)
        XCTAssertEqual(Double(maxX), 150 + width / 2, accuracy: 3)
        // Middle baseline: the capitals span about 0.73 em around y = 30 minus a bit.
        XCTAssertTrue((14...22).contains(minY), "top of the capitals at \(minY)")
        XCTAssertTrue((30...40).contains(maxY), "bottom of the ink at \(maxY)")
    }

    func testRightAlignedBoldTextEndsAtItsAnchor() throws {
        let p = try renderer.raster(list(200, 40, background: [
            .text(x: 150, y: 30, text: "HH", font: "bold 16px ChartWire Sans", fill: "#ff0000", align: .right, baseline: .alphabetic, angle: 0),
        ]))
        var maxX = -1, maxY = -1
        for y in 0..<p.height { for x in 0..<p.width where p.rgba(x, y).a > 100 { maxX = max(maxX, x); maxY = max(maxY, y) } }
        XCTAssertTrue((146...150).contains(maxX), "ink ends at \(maxX)")
        XCTAssertEqual(maxY, 29, "an H sits on the alphabetic baseline")
    }

    func testBarsLandOnWholeDevicePixels() throws {
        let bars = BarSet(fill: "#ff00ff", stroke: nil, lineWidth: 0, x0: 1.2, y0: 0.4, unit: 0.5,
                          bars: [BarSet.Bar(left: 2, width: 3, top: 1, height: 4)])
        let p = try renderer.raster(list(10, 10, dpr: 2, series: [.bars(bars)]))
        // X0 = round(1.2 * 2) = 2, Y0 = round(0.8) = 1; step 1 device pixel.
        XCTAssertTrue(p.rgba(4, 2) == (255, 0, 255, 255))
        XCTAssertTrue(p.rgba(6, 5) == (255, 0, 255, 255))
        XCTAssertEqual(p.rgba(3, 3).a, 0)
        XCTAssertEqual(p.rgba(7, 3).a, 0)
        XCTAssertEqual(p.rgba(4, 6).a, 0)
    }

    func testMarkerSpriteIsStampedAtItsCell() throws {
        let m = MarkerSet(shape: .square, size: 4, fill: "#00ffff", stroke: nil, lineWidth: 0, x0: 10.5, y0: 10.5, unit: 1,
                          cells: [MarkerSet.Cell(x: 5, y: 0)])
        let p = try renderer.raster(list(30, 30, series: [.markers(m)]))
        // Centre (15.5, 10.5): the square covers device pixels 13...17 by 8...12 (with AA edges).
        XCTAssertTrue(p.rgba(15, 10) == (0, 255, 255, 255))
        XCTAssertEqual(p.rgba(15, 4).a, 0)
        XCTAssertEqual(p.rgba(20, 10).a, 0)
    }

    func testSVGAndPDFAreDocuments() throws {
        let l = list(100, 50, background: [
            .rect(x: 0, y: 0, w: 100, h: 50, fill: "#ffffff", stroke: nil, lineWidth: 0),
            .text(x: 10, y: 30, text: "Hello", font: "12px ChartWire Sans", fill: "#000", align: .left, baseline: .alphabetic, angle: 0),
        ])
        let svg = String(decoding: try renderer.render(l, format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("<svg"), svg.prefix(200).description)
        XCTAssertTrue(svg.contains("width=\"100px\"") || svg.contains("width=\"100\""), svg.prefix(300).description)
        let pdf = try renderer.render(l, format: .pdf)
        XCTAssertEqual(Array(pdf.prefix(5)), Array("%PDF-".utf8))
        let png = try renderer.render(l, format: .png)
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    func testTooLargeIsRefused() {
        XCTAssertNotNil(ImageRenderer.sizeProblem(width: 16_384, height: 16_384, dpr: 2))
        XCTAssertNil(ImageRenderer.sizeProblem(width: 1920, height: 1080, dpr: 2))
        XCTAssertThrowsError(try renderer.render(list(10_000, 10_000, dpr: 1), format: .png))
    }

    func testCSSColours() {
        XCTAssertEqual(CSSColor.parse("#f00"), RGBA(1, 0, 0, 1))
        XCTAssertEqual(CSSColor.parse("rgba(255,255,255,0.5)"), RGBA(1, 1, 1, 0.5))
        XCTAssertEqual(CSSColor.parse("rgb(0 0 255 / 25%)"), RGBA(0, 0, 1, 0.25))
        XCTAssertEqual(CSSColor.parse("Red"), RGBA(1, 0, 0, 1))
        XCTAssertEqual(CSSColor.parse("hsl(120, 100%, 50%)"), RGBA(0, 1, 0, 1))
        XCTAssertNil(CSSColor.parse("#12"))
        XCTAssertNil(CSSColor.parse("notacolour"))
        XCTAssertEqual(CSSFont.parse("bold 12px ChartWire Sans"), CSSFont(size: 12, bold: true))
        XCTAssertEqual(CSSFont.parse("11.5px ChartWire Sans"), CSSFont(size: 11.5, bold: false))
        XCTAssertNil(CSSFont.parse("ChartWire Sans"))
        // A chart's own family, named before the chart font (Theme.cssFont).
        XCTAssertEqual(CSSFont.parse(#"italic bold 15px "Liberation Serif", ChartWire Sans"#),
                       CSSFont(size: 15, bold: true, italic: true, family: "Liberation Serif"))
        XCTAssertEqual(CSSFont.parse(#"13px "Liberation Mono", ChartWire Sans"#),
                       CSSFont(size: 13, bold: false, italic: false, family: "Liberation Mono"))
    }
}

final class PNGEncoderTests: XCTestCase {
    /// A chart-like picture: flat fill, repeated rows, a gradient, lines, and (when
    /// `translucent`) see-through pixels; odd sizes so rows do not align to words.
    func pixels(width: Int, height: Int, translucent: Bool) -> ImageRenderer.Pixels {
        let stride = width * 4 + 8
        var bytes = [UInt8](repeating: 0, count: stride * height)
        var rng = SplitMix(seed: 7)
        for y in 0..<height {
            for x in 0..<width {
                var (r, g, b, a): (Int, Int, Int, Int) = (251, 251, 253, 255)
                if y % 37 == 0 || x % 53 == 0 { (r, g, b) = (227, 229, 234) }
                if x > width / 2 && y > height / 2 { (r, g, b) = (x % 256, y % 256, (x + y) % 256) }
                if abs(y - (height / 2 + Int(20 * sin(Double(x) / 9)))) < 2 { (r, g, b) = (31, 119, 180) }
                if rng.chance(0.01) { (r, g, b) = (Int(rng.next() % 256), Int(rng.next() % 256), Int(rng.next() % 256)) }
                if translucent && x < width / 3 { a = (x * 7 + y) % 256 }
                // Premultiplied, native-endian ARGB.
                let pr = r * a / 255, pg = g * a / 255, pb = b * a / 255
                let o = y * stride + x * 4
                bytes[o] = UInt8(pb); bytes[o + 1] = UInt8(pg); bytes[o + 2] = UInt8(pr); bytes[o + 3] = UInt8(a)
            }
        }
        return ImageRenderer.Pixels(width: width, height: height, stride: stride, bytes: bytes)
    }

    func testOpaqueImagesRoundTripExactly() throws {
        let p = pixels(width: 301, height: 157, translucent: false)
        let png = ImageRenderer.encodePNG(p)
        XCTAssertEqual(png[25], 2, "colour type RGB when every pixel is opaque")
        let back = try XCTUnwrap(ImageRenderer.decodePNG(png), "libpng reads it (checksums included)")
        XCTAssertEqual(back.width, 301); XCTAssertEqual(back.height, 157)
        for y in 0..<157 { for x in 0..<301 { XCTAssertTrue(back.rgba(x, y) == p.rgba(x, y), "(\(x), \(y))"); if back.rgba(x, y) != p.rgba(x, y) { return } } }
        XCTAssertLessThan(png.count, 301 * 157 * 3 / 2, "flat areas compress")
    }

    func testTranslucentImagesKeepTheirAlpha() throws {
        let p = pixels(width: 203, height: 99, translucent: true)
        let png = ImageRenderer.encodePNG(p)
        XCTAssertEqual(png[25], 6, "colour type RGBA")
        let back = try XCTUnwrap(ImageRenderer.decodePNG(png))
        for y in 0..<99 { for x in 0..<203 {
            let a = p.rgba(x, y), b = back.rgba(x, y)
            XCTAssertEqual(a.a, b.a)
            // Premultiplied both ways: colours agree within the rounding of low alphas.
            let tolerance = a.a == 0 ? 255 : 255 / a.a + 1
            XCTAssertLessThanOrEqual(abs(a.r - b.r), tolerance, "(\(x), \(y)) alpha \(a.a)")
            if abs(a.r - b.r) > tolerance { return }
        } }
    }

    func testAnExportedChartDecodesToTheSamePixels() throws {
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts)
        let list = DisplayList(width: 120, height: 80, dpr: 1.5, layers: [Layer(id: .background, version: 1, commands: [
            .rect(x: 0, y: 0, w: 120, h: 80, fill: "#fff", stroke: nil, lineWidth: 0),
            .polyline(points: [0, 0, 60, 70, 120, 10], stroke: "#d62728", width: 2, dash: [4, 2]),
            .text(x: 60, y: 40, text: "Ünïcode 12", font: "bold 13px ChartWire Sans", fill: "#1d2029", align: .center, baseline: .middle, angle: -30),
        ])])
        let raster = try renderer.raster(list)
        let back = try XCTUnwrap(ImageRenderer.decodePNG(try renderer.png(list)))
        XCTAssertEqual(back.bytes.count, raster.bytes.count)
        XCTAssertEqual(back.bytes, raster.bytes)
    }
}

final class ImageRendererEdgeTests: XCTestCase {
    let renderer = ImageRenderer(fonts: ImageRendererTests.fonts)

    func testTranslucentMarkersStayInsideTheLayersClip() throws {
        let m = MarkerSet(shape: .square, size: 6, fill: "#0000ff", stroke: nil, lineWidth: 0, x0: 0.5, y0: 10.5, unit: 1,
                          cells: [MarkerSet.Cell(x: 5, y: 0), MarkerSet.Cell(x: 25, y: 0)])
        let p = try renderer.raster(DisplayList(width: 40, height: 20, dpr: 1, layers: [Layer(id: .series, version: 1, commands: [
            .clip(x: 0, y: 0, w: 15, h: 20), .opacity(0.5), .markers(m),
            // A rect after the markers, still clipped: the clip outlived the stamps.
            .rect(x: 0, y: 0, w: 40, h: 2, fill: "#ff0000", stroke: nil, lineWidth: 0),
        ])]))
        XCTAssertEqual(p.rgba(5, 10).a, 128, accuracy: 1, "the marker inside the clip, at half opacity")
        XCTAssertEqual(p.rgba(25, 10).a, 0, "the one outside the clip is not drawn")
        XCTAssertEqual(p.rgba(30, 1).a, 0, "the clip still holds after the markers")
        XCTAssertEqual(p.rgba(5, 1).a, 128, accuracy: 1)
    }

    func testNonFiniteNumbersDrawNothingAndBreakNothing() throws {
        let p = try renderer.raster(DisplayList(width: 10, height: 10, dpr: 1, layers: [Layer(id: .background, version: 1, commands: [
            .rect(x: .nan, y: 0, w: 10, h: 10, fill: "#ff0000", stroke: "#ff0000", lineWidth: 1),
            .text(x: .infinity, y: 5, text: "x", font: "12px ChartWire Sans", fill: "#000", align: .left, baseline: .top, angle: 0),
            .polyline(points: [0, 0, .nan, 5, 10, 10], stroke: "#00ff00", width: 1, dash: [0, 0]),
            .rect(x: 0, y: 0, w: 2, h: 2, fill: "#0000ff", stroke: nil, lineWidth: 0),
        ])]))
        XCTAssertTrue(p.rgba(1, 1) == (0, 0, 255, 255), "drawing went on after the bad commands")
        XCTAssertEqual(p.rgba(8, 2).a, 0, "no red rect from a NaN x")
    }
}

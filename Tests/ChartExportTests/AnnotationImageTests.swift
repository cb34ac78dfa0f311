import ChartExport
import ChartSession
import Foundation
import LayoutEngine
import TestSupport
import XCTest

/// JPEG and GIF annotation images in the export (CExport's decoders, libjpeg-turbo and
/// giflib). The fixtures were written with libjpeg-turbo's and giflib's own encoders
/// (quality 95, no chroma subsampling), 16×16 pixels each:
/// - rgb.jpg: the left half red, the right half blue;
/// - gray.jpg: grayscale, all 128;
/// - cmyk.jpg: CMYK with the Adobe marker, every pixel stored 255,0,0,255 (Adobe's
///   inverted inks: C=0 M=100% Y=100% K=0, red);
/// - anim.gif: palette red, green, blue, black with black (3) transparent; frame 1 is
///   interlaced, rows 0-7 red, rows 8-15 green on the left half and transparent on the
///   right; frame 2 is all blue and must not be drawn.
final class AnnotationImageTests: XCTestCase {
    static let rgbJPEG = [UInt8](Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgr/wAARCAAQABADAREAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD4vr+Uz/fw+Q6/6qD/AJrz68r/AJVz/pQPkOv+qg/5rz//2Q==")!)
    static let grayJPEG = [UInt8](Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/wAALCAAQABABAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/ACiiiv/Z")!)
    static let cmykJPEG = [UInt8](Data(base64Encoded: "/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwACAQEBAQECAQEBAgICAgIEAwICAgIFBAQDBAYFBgYGBQYGBgcJCAYHCQcGBggLCAkKCgoKCgYICwwLCgwJCgoK/8AAFAgAEAAQBEMRAE0RAFkRAEsRAP/EAB8AAAEFAQEBAQEBAAAAAAAAAAABAgMEBQYHCAkKC//EALUQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+v/aAA4EQwBNAFkASwAAPwD9/K/n/r+f+v38oooooooooooor//Z")!)
    static let animGIF = [UInt8](Data(base64Encoded: "R0lGODlhEAAQAPEAAP8AAAD/AAAA/wAAACH5BAEKAAMALAAAAAAQABAAQAIghI8Jwc0DI1T0OCdl3TzdlkXfEw7diabpGJQD68KlHBYALAAAAAAQABAAAAIOlI+py+0Po5y02ouzPgUAOw==")!)

    /// A 40×20 white chart with one image command drawing `bytes` into (x, y, w, h).
    func draw(_ bytes: [UInt8], x: Float, y: Float, w: Float, h: Float) throws -> ImageRenderer.Pixels {
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0 == "img" ? bytes : nil })
        return try renderer.raster(list(x: x, y: y, w: w, h: h))
    }

    func list(x: Float, y: Float, w: Float, h: Float) -> DisplayList {
        DisplayList(width: 40, height: 20, dpr: 1, layers: [
            Layer(id: .background, version: 1, commands: [.rect(x: 0, y: 0, w: 40, h: 20, fill: "#ffffff", stroke: nil, lineWidth: 0)]),
            Layer(id: .overlay, version: 1, commands: [.image(x: x, y: y, w: w, h: h, src: "img")]),
        ])
    }

    func assertNear(_ p: ImageRenderer.Pixels, _ x: Int, _ y: Int, _ rgb: (Int, Int, Int), within: Int = 0,
                    file: StaticString = #filePath, line: UInt = #line) {
        let c = p.rgba(x, y)
        XCTAssertEqual(c.a, 255, "alpha at (\(x), \(y))", file: file, line: line)
        XCTAssertTrue(abs(c.r - rgb.0) <= within && abs(c.g - rgb.1) <= within && abs(c.b - rgb.2) <= within,
                      "(\(x), \(y)) is \(c), expected \(rgb) within \(within)", file: file, line: line)
    }

    /// An image annotation's `opacity` reaches the export as an `opacity` command around
    /// the image: the grey (128) JPEG at 0.5 over white is 191-192, the opaque one 128.
    func testAnImageAfterAnOpacityCommandIsBlendedWithTheBackground() throws {
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0 == "img" ? Self.grayJPEG : nil })
        var faded = list(x: 4, y: 2, w: 32, h: 16)
        faded.layers[1].commands = [.opacity(0.5), .image(x: 4, y: 2, w: 32, h: 16, src: "img"), .opacity(1),
                                    .rect(x: 0, y: 0, w: 2, h: 2, fill: "#000000", stroke: nil, lineWidth: 0)]
        let p = try renderer.raster(faded)
        assertNear(p, 20, 10, (191, 191, 191), within: 2)
        assertNear(p, 1, 1, (0, 0, 0))   // drawn after `opacity 1`: opaque again
        assertNear(try draw(Self.grayJPEG, x: 4, y: 2, w: 32, h: 16), 20, 10, (128, 128, 128), within: 2)
    }

    /// From the spec to the export: a session whose grey image annotation has opacity 0.5
    /// exports it half way between the grey (128) and the plot's background; the same
    /// image without opacity exports grey.
    func testASessionsFadedImageAnnotationExportsFaded() throws {
        let url = "data:image/jpeg;base64," + Data(Self.grayJPEG).base64EncodedString()
        func spec(_ annotations: String) -> String {
            #"{"sessions":[{"id":"fade","chart":{"xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"#
                + #""yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"images":{"g":""# + url + #""},"#
                + #""annotations":["# + annotations + #"],"series":[{"id":"s","data":{"x":[0,10],"y":[1,1]}}]}}]}"#
        }
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0.contains("/images/g?") ? Self.grayJPEG : nil })
        let size = ViewerSize(width: 400, height: 300, dpr: 1)
        // Image centres at x 3 and 7, y 5; the plot's background sampled at y 7 (between gridlines).
        let session = try ConfigSpec.decode(foundationJSON(spec(
            #"{"type":"image","image":"g","x":3,"y":5,"width":20},{"type":"image","image":"g","x":7,"y":5,"width":20,"opacity":0.5}"#
        )))[0].makeSession(measurer: TestFonts.measurer)
        let layout = session.layout(size: size)
        let x = layout.axis("x")!.calculator, y = layout.axis("y")!.calculator
        let p = try renderer.raster(session.displayList(size: size))
        let opaque = p.rgba(Int(x.pixel(3)), Int(y.pixel(5))), faded = p.rgba(Int(x.pixel(7)), Int(y.pixel(5)))
        let background = p.rgba(Int(x.pixel(7)), Int(y.pixel(7)))
        XCTAssertTrue(abs(opaque.r - 128) <= 2 && abs(opaque.g - 128) <= 2, "\(opaque)")
        XCTAssertGreaterThan(background.r, 200)
        for (f, b) in [(faded.r, background.r), (faded.g, background.g), (faded.b, background.b)] {
            XCTAssertLessThanOrEqual(abs(Double(f) - (128 + Double(b)) / 2), 3, "faded \(faded), background \(background)")
        }
    }

    func testFixturesAreTheImagesChartImageAccepts() throws {
        XCTAssertEqual(try ChartImage(bytes: Self.rgbJPEG).format, .jpeg)
        XCTAssertEqual(try ChartImage(bytes: Self.cmykJPEG).format, .jpeg)
        XCTAssertEqual(try ChartImage(bytes: Self.animGIF).format, .gif)
        XCTAssertEqual(try ChartImage(bytes: Self.animGIF).width, 16)
    }

    func testJPEGPixelsLandInTheCommandsRectangleScaled() throws {
        // 16×16 into (4, 2, 32, 16): each image pixel two device pixels wide.
        let p = try draw(Self.rgbJPEG, x: 4, y: 2, w: 32, h: 16)
        assertNear(p, 6, 4, (255, 0, 0), within: 8)
        assertNear(p, 17, 16, (255, 0, 0), within: 8)
        assertNear(p, 22, 4, (0, 0, 255), within: 8)
        assertNear(p, 34, 16, (0, 0, 255), within: 8)
        // Outside the rectangle: the background.
        assertNear(p, 3, 10, (255, 255, 255))
        assertNear(p, 36, 10, (255, 255, 255))
        assertNear(p, 20, 1, (255, 255, 255))
        assertNear(p, 20, 18, (255, 255, 255))
    }

    func testGrayscaleAndAdobeCMYKJPEGsComeOutInRGB() throws {
        let g = try draw(Self.grayJPEG, x: 0, y: 0, w: 16, h: 16)
        assertNear(g, 8, 8, (128, 128, 128), within: 2)
        let c = try draw(Self.cmykJPEG, x: 0, y: 0, w: 16, h: 16)
        assertNear(c, 8, 8, (255, 0, 0), within: 8)
        assertNear(c, 20, 8, (255, 255, 255))
    }

    func testGIFFirstFrameWithItsTransparencyAndInterlacing() throws {
        let p = try draw(Self.animGIF, x: 4, y: 2, w: 16, h: 16)
        // Every row of the interlaced frame in its place: rows 0-7 red, 8-15 green | clear.
        for row in 0..<16 {
            assertNear(p, 5, 2 + row, row < 8 ? (255, 0, 0) : (0, 255, 0))
            assertNear(p, 15, 2 + row, row < 8 ? (255, 0, 0) : (255, 255, 255))
        }
        // The second frame (blue) is not drawn anywhere.
        for y in 0..<20 { for x in 0..<40 { let c = p.rgba(x, y); XCTAssertFalse(c.b > 200 && c.r < 50 && c.g < 50, "blue at (\(x), \(y))") } }
    }

    func testBrokenJPEGAndGIFDrawNothingAndDoNotCrash() throws {
        var rng = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = [
            Array(Self.rgbJPEG.prefix(300)), Array(Self.rgbJPEG.prefix(Self.rgbJPEG.count / 2)),
            Array(Self.rgbJPEG.dropLast(2)),                    // no end-of-image marker
            Array(Self.animGIF.prefix(40)), Array(Self.animGIF.prefix(13)),
            [0xFF, 0xD8] + (0..<500).map { _ in UInt8.random(in: 0...255, using: &rng) },
            Array("GIF89a".utf8) + [16, 0, 16, 0] + (0..<500).map { _ in UInt8.random(in: 0...255, using: &rng) },
            // A GIF whose screen is larger than ChartImage allows (9000×1).
            Array("GIF89a".utf8) + [0x28, 0x23, 1, 0] + Array(Self.animGIF.dropFirst(10)),
        ]
        // A JPEG whose frame header claims 9000×9000.
        var huge = Self.rgbJPEG
        if let sof = (0..<huge.count - 9).first(where: { huge[$0] == 0xFF && huge[$0 + 1] == 0xC0 }) {
            huge[sof + 5] = 0x23; huge[sof + 6] = 0x28; huge[sof + 7] = 0x23; huge[sof + 8] = 0x28
            cases.append(huge)
        } else { XCTFail("no SOF0 in the fixture") }
        for (i, bytes) in cases.enumerated() {
            let p = try draw(bytes, x: 0, y: 0, w: 40, h: 20)
            for (x, y) in [(2, 2), (10, 10), (30, 15), (38, 18)] {
                XCTAssertTrue(p.rgba(x, y) == (255, 255, 255, 255), "case \(i): (\(x), \(y)) is \(p.rgba(x, y))")
            }
        }
        // Bytes flipped at random: whatever decodes, nothing crashes.
        for _ in 0..<200 {
            var j = Self.rgbJPEG, g = Self.animGIF
            for _ in 0..<4 { j[Int.random(in: 20..<j.count, using: &rng)] = .random(in: 0...255, using: &rng) }
            for _ in 0..<4 { g[Int.random(in: 13..<g.count, using: &rng)] = .random(in: 0...255, using: &rng) }
            _ = try draw(j, x: 0, y: 0, w: 40, h: 20)
            _ = try draw(g, x: 0, y: 0, w: 40, h: 20)
        }
    }

    func testSVGAndPDFCarryTheDecodedImage() throws {
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0 == "img" ? Self.rgbJPEG : nil })
        let none = ImageRenderer(fonts: ImageRendererTests.fonts)
        let svg = String(decoding: try renderer.render(list(x: 4, y: 2, w: 32, h: 16), format: .svg), as: UTF8.self)
        let bare = String(decoding: try none.render(list(x: 4, y: 2, w: 32, h: 16), format: .svg), as: UTF8.self)
        XCTAssertTrue(svg.contains("<image"), "the SVG has no image element")
        XCTAssertFalse(bare.contains("<image"))
        let gif = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0 == "img" ? Self.animGIF : nil })
        let pdf = try gif.render(list(x: 4, y: 2, w: 32, h: 16), format: .pdf)
        let barePDF = try none.render(list(x: 4, y: 2, w: 32, h: 16), format: .pdf)
        XCTAssertEqual(Array(pdf.prefix(5)), Array("%PDF-".utf8))
        XCTAssertTrue(String(decoding: pdf, as: UTF8.self).contains("/Subtype /Image"), "the PDF has no image XObject")
        XCTAssertFalse(String(decoding: barePDF, as: UTF8.self).contains("/Subtype /Image"))
    }
}

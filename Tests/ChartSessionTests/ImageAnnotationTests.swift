import Foundation
import Testing
import TestSupport
@testable import ChartSession
import LayoutEngine

/// Image annotations: images checked and measured from their headers, named by the
/// chart, drawn by path (the bytes travel once, over HTTP).
@Suite struct ImageAnnotationTests {
    /// The start of a PNG: signature and IHDR (all `ChartImage` reads).
    static func png(width: Int, height: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
    }

    static func dataURL(_ mime: String, _ bytes: [UInt8]) -> String { "data:\(mime);base64," + Data(bytes).base64EncodedString() }

    @Test func headersGiveFormatAndSize() throws {
        let p = try ChartImage(bytes: Self.png(width: 120, height: 40))
        #expect(p.format == .png && p.width == 120 && p.height == 40 && p.contentType == "image/png")
        let gif = try ChartImage(bytes: Array("GIF89a".utf8) + [0x2C, 0x01, 0x10, 0x00] + [0, 0, 0])
        #expect(gif.format == .gif && gif.width == 300 && gif.height == 16)
        // A JPEG: SOI, an APP0 segment to skip, then a baseline frame header (SOF0).
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03] + [UInt8](repeating: 0, count: 9)
        let j = try ChartImage(bytes: jpeg)
        #expect(j.format == .jpeg && j.width == 640 && j.height == 480)
        // The version follows the bytes.
        #expect(p.version == (try ChartImage(bytes: Self.png(width: 120, height: 40))).version)
        #expect(p.version != (try ChartImage(bytes: Self.png(width: 121, height: 40))).version)
    }

    @Test func badImagesAreRefusedWithTheReason() {
        func problem(_ f: () throws -> ChartImage) -> String? {
            do { _ = try f(); return nil } catch { return (error as? ChartImage.Problem)?.message ?? "\(error)" }
        }
        #expect(problem { try ChartImage(bytes: []) } == "the image is empty")
        #expect(problem { try ChartImage(bytes: Array("<svg></svg>".utf8)) }?.hasPrefix("not a PNG, JPEG or GIF") == true)
        #expect(problem { try ChartImage(bytes: Array(Self.png(width: 1, height: 1).prefix(20))) }?.hasPrefix("not a PNG") == true)
        #expect(problem { try ChartImage(bytes: Self.png(width: 0, height: 5)) }?.contains("each side must be 1 to 8192") == true)
        #expect(problem { try ChartImage(bytes: Self.png(width: 9000, height: 5)) }?.contains("9000×5") == true)
        #expect(problem { try ChartImage(bytes: [UInt8](repeating: 0, count: ChartImage.maxBytes + 1)) }?.contains("at most") == true)
        #expect(problem { try ChartImage(dataURL: "https://example.com/logo.png") }?.hasPrefix("expected a data URL") == true)
        #expect(problem { try ChartImage(dataURL: Self.dataURL("image/svg+xml", [1])) }?.contains("image/svg+xml") == true)
        #expect(problem { try ChartImage(dataURL: "data:image/png;base64,@@@") }?.contains("does not decode") == true)
        #expect(problem { try ChartImage(dataURL: Self.dataURL("image/gif", Self.png(width: 2, height: 2))) }
                == "the data URL says image/gif but the bytes are image/png")
        #expect(problem { try ChartImage(dataURL: Self.dataURL("image/png", Self.png(width: 2, height: 2))) } == nil)
    }

    static func spec(_ annotation: String, images: String? = nil) -> String {
        let logo = images ?? #"{"logo":""# + dataURL("image/png", png(width: 100, height: 50)) + #""}"#
        return #"{"sessions":[{"id":"img","chart":{"xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"images":"# + logo + #","annotations":["# + annotation + "],"
            + #""series":[{"id":"s","data":{"x":[0,10],"y":[0,10]}}]}}]}"#
    }

    @Test func drawnCentredOrStretchedBetweenCorners() throws {
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        for (annotation, expectSize) in [(#"{"type":"image","image":"logo","x":5,"y":5}"#, (100.0, 50.0)),
                                         (#"{"type":"image","image":"logo","x":5,"y":5,"width":40}"#, (40, 20)),
                                         (#"{"type":"image","image":"logo","x":5,"y":5,"height":40}"#, (80, 40))] {
            let session = try ConfigSpec.decode(parseJSON(Self.spec(annotation)))[0].makeSession(measurer: TestFonts.measurer)
            let list = session.displayList(size: size)
            let layout = session.layout(size: size)
            let images = list.layers.flatMap(\.commands).compactMap { c -> (Float, Float, Float, Float, String)? in
                if case let .image(x, y, w, h, src) = c { return (x, y, w, h, src) }
                return nil
            }
            let img = try #require(images.first)
            #expect(images.count == 1)
            let version = session.chart.images["logo"]!.version
            #expect(img.4 == "/api/sessions/img/images/logo?v=\(version)")
            #expect(Double(img.2) == expectSize.0 && Double(img.3) == expectSize.1)
            // Centred on (5, 5): the middle of the plot.
            #expect(abs(Double(img.0 + img.2 / 2) - layout.plotRect.midX) < 0.01)
            #expect(abs(Double(img.1 + img.3 / 2) - layout.plotRect.midY) < 0.01)
        }
        let stretched = try ConfigSpec.decode(parseJSON(Self.spec(#"{"type":"image","image":"logo","x":0,"y":10,"x2":10,"y2":0,"layer":"below"}"#)))[0]
            .makeSession(measurer: TestFonts.measurer)
        let plot = stretched.layout(size: size).plotRect
        let cmd = try #require(stretched.displayList(size: size).layers.flatMap(\.commands).first { $0.op == "image" })
        guard case let .image(x, y, w, h, _) = cmd else { return }
        #expect(abs(Double(x) - plot.minX) < 0.01 && abs(Double(y) - plot.minY) < 0.01)
        #expect(abs(Double(w) - plot.width) < 0.01 && abs(Double(h) - plot.height) < 0.01, "it fills the plot: the corners are the range's")
    }

    /// Issue 31: at tile size the gallery's image took most of the plot, over a marker.
    /// A fixed-size image keeps to a third of the plot each way, and shrinks (to half at
    /// most) to leave a marker annotation beside it uncovered; its proportions stay.
    @Test func aFixedSizeImageKeepsToAThirdOfThePlotAndOffAMarker() throws {
        func image(_ annotations: String, _ size: ViewerSize) throws -> (Rect, Rect) {
            let session = try ConfigSpec.decode(parseJSON(Self.spec(annotations)))[0].makeSession(measurer: TestFonts.measurer)
            let cmd = try #require(session.displayList(size: size).layers.flatMap(\.commands).first { $0.op == "image" })
            guard case let .image(x, y, w, h, _) = cmd else { throw CancellationError() }
            return (Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h)), session.layout(size: size).plotRect)
        }
        let big = ViewerSize(width: 600, height: 400, dpr: 1)
        let alone = try image(#"{"type":"image","image":"logo","x":5,"y":5}"#, big).0
        #expect(alone.width == 100 && alone.height == 50)
        // A marker 0.8 to the right: about 43 px from the centre, under the 100 px image.
        let (beside, plot) = try image(#"{"type":"image","image":"logo","x":5,"y":5},{"type":"marker","x":5.8,"y":5}"#, big)
        let mx = plot.minX + 0.58 * plot.width, reach = 4.0
        #expect(beside.width < 100 && beside.maxX <= mx - reach + 0.01, "\(beside) \(mx)")
        #expect(abs(beside.width / beside.height - 2) < 1e-9)
        #expect(abs(beside.midX - alone.midX) < 0.01 && abs(beside.midY - alone.midY) < 0.01)
        // A tile: a third of the plot's height at most.
        let (tile, tilePlot) = try image(#"{"type":"image","image":"logo","x":5,"y":5}"#, ViewerSize(width: 300, height: 160, dpr: 1))
        #expect(tile.height <= tilePlot.height / 3 + 0.01 && tile.width <= tilePlot.width / 3 + 0.01 && tile.height < 50)
        #expect(abs(tile.width / tile.height - 2) < 1e-9)
    }

    /// `opacity` fades an image: the renderer wraps its `image` command in an `opacity`
    /// command and one back to 1 (so the labels and lines after it stay opaque); an opaque
    /// image gets neither.
    @Test func opacityWrapsTheImageInOpacityCommands() throws {
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        func overlay(_ annotation: String) throws -> [DrawCommand] {
            let session = try ConfigSpec.decode(parseJSON(Self.spec(annotation)))[0].makeSession(measurer: TestFonts.measurer)
            return session.displayList(size: size).layers.flatMap(\.commands)
        }
        func around(_ commands: [DrawCommand]) throws -> (DrawCommand, DrawCommand) {
            let i = try #require(commands.firstIndex { $0.op == "image" })
            return (commands[i - 1], commands[i + 1])
        }
        let faded = try overlay(#"{"type":"image","image":"logo","x":5,"y":5,"opacity":0.4},{"type":"text","x":1,"y":1,"text":"after"}"#)
        let (before, after) = try around(faded)
        guard case let .opacity(a) = before, case let .opacity(b) = after else {
            Issue.record("expected opacity commands around the image, found \(before.op) and \(after.op)"); return
        }
        #expect(a == 0.4 && b == 1)
        #expect(faded.filter { $0.op == "opacity" }.count == 2)
        let opaque = try overlay(#"{"type":"image","image":"logo","x":5,"y":5,"opacity":1}"#)
        #expect(!opaque.contains { $0.op == "opacity" }, "an opaque image needs no opacity command")
        let stretched = try overlay(#"{"type":"image","image":"logo","x":0,"y":0,"x2":5,"y2":5,"opacity":0}"#)
        let (b0, _) = try around(stretched)
        guard case let .opacity(zero) = b0 else { Issue.record("no opacity before a stretched image"); return }
        #expect(zero == 0)
    }

    @Test func opacityIsCheckedAndOnlyForImages() {
        func error(_ text: String) -> JSONReadError? {
            do { _ = try ConfigSpec.decode(parseJSON(text)); return nil } catch { return error }
        }
        let base = "$.sessions[0].chart.annotations[0]"
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1,"opacity":1.5}"#))
                == JSONReadError(path: "\(base).opacity", message: "must be at most 1"))
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1,"opacity":-0.1}"#))
                == JSONReadError(path: "\(base).opacity", message: "must be at least 0"))
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1,"opacity":"half"}"#))?.path == "\(base).opacity")
        #expect(error(Self.spec(#"{"type":"marker","x":1,"y":1,"opacity":0.5}"#))
                == JSONReadError(path: "\(base).opacity", message: "only an image annotation has opacity"))
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1,"opacity":0.5}"#)) == nil)
    }

    @Test func specErrorsNameThePath() {
        func error(_ text: String) -> JSONReadError? {
            do { _ = try ConfigSpec.decode(parseJSON(text)); return nil } catch { return error }
        }
        let base = "$.sessions[0].chart"
        #expect(error(Self.spec(#"{"type":"image","image":"nope","x":1,"y":1}"#))
                == JSONReadError(path: "\(base).annotations[0].image", message: #"no image "nope" in the chart's images (logo)"#))
        #expect(error(Self.spec(#"{"type":"image","x":1,"y":1}"#))?.path == "\(base).annotations[0].image")
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1,"x2":3}"#))?.message.contains("both x2 and y2") == true)
        #expect(error(Self.spec(#"{"type":"text","x":1,"y":1,"text":"t","width":3}"#))?.path == "\(base).annotations[0].width")
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1}"#, images: #"{"bad name":"x"}"#))?.path == "\(base).images.bad name")
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1}"#, images: #"{"logo":"data:image/png;base64,AAAA"}"#))
                == JSONReadError(path: "\(base).images.logo", message: "not a PNG, JPEG or GIF image (or its header is cut short)"))
        #expect(error(Self.spec(#"{"type":"image","image":"logo","x":1,"y":1}"#, images: "[1]"))?.path == "\(base).images")
    }
}

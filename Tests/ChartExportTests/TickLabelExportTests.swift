import ChartExport
import ChartSession
import Foundation
import LayoutEngine
import TestSupport
import XCTest

/// A tick label a Swift hook turned and gave a background (`TickMark.labelAngle`,
/// `labelBackground`) is exported as the page draws it: the box filled, the text turned.
final class TickLabelExportTests: XCTestCase {
    func testATurnedLabelOnItsBackgroundExportsTurnedOnTheBox() throws {
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.tickHook = TickHook("turned-boxed") { mark in
            if mark.value == 4 { mark.label = "four hundred"; mark.labelAngle = -90; mark.labelBackground = "#ffee00" }
        }
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        let session = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        let label = try XCTUnwrap(session.layout(size: size).axis("x")?.labels.first { $0.text == "four hundred" })
        let b = label.bounds
        XCTAssertEqual(label.angle, -90)
        XCTAssertGreaterThan(b.height, b.width * 3)   // a standing column
        let p = try ImageRenderer(fonts: ImageRendererTests.fonts).raster(session.displayList(size: size))
        var yellow = 0, inkLow = 0, area = 0
        for py in Int(b.minY.rounded(.up))..<Int(b.maxY.rounded(.down)) {
            for px in Int(b.minX.rounded(.up))..<Int(b.maxX.rounded(.down)) {
                area += 1
                let c = p.rgba(px, py)
                if c.r == 255, c.g == 238, c.b == 0 { yellow += 1 }
                // Ink in the lower half of the column: only a turned text reaches there (a flat
                // one would lie along its anchor, at the column's top).
                if py > Int(b.midY), c.r + c.g + c.b < 3 * 160 { inkLow += 1 }
            }
        }
        XCTAssertGreaterThan(yellow, area / 3, "the box behind the label")
        XCTAssertGreaterThan(inkLow, 10, "turned text in the lower half of its box")
    }

    /// An image in place of a label (`TickMark.labelImage`) exports from the chart's image
    /// into the label's box: the grey (128) JPEG fills it.
    func testAnImageLabelExportsIntoItsBox() throws {
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.tickHook = TickHook("grey") { mark in if mark.value == 4 { mark.labelImage = TickImage(src: "g", width: 24, height: 30) } }
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        var chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        chart.images["g"] = try ChartImage(bytes: AnnotationImageTests.grayJPEG)
        let session = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        let b = try XCTUnwrap(session.layout(size: size).axis("x")?.labels.first { $0.image != nil }).bounds
        let renderer = ImageRenderer(fonts: ImageRendererTests.fonts, images: { $0.contains("/images/g?") ? AnnotationImageTests.grayJPEG : nil })
        let p = try renderer.raster(session.displayList(size: size))
        for (px, py) in [(b.midX, b.midY), (b.minX + 2, b.minY + 2), (b.maxX - 2, b.maxY - 2)] {
            let c = p.rgba(Int(px), Int(py))
            XCTAssertTrue(abs(c.r - 128) <= 2 && abs(c.g - 128) <= 2 && abs(c.b - 128) <= 2, "(\(px), \(py)) is \(c)")
        }
        let outside = p.rgba(Int(b.maxX + 3), Int(b.midY))
        XCTAssertGreaterThan(outside.r, 200)   // the grey stays in the box
    }
}

/// A custom-content annotation (`CustomAnnotation`) exports as the page draws it: its
/// content inside its box, clipped there.
final class CustomAnnotationExportTests: XCTestCase {
    func testItsContentExportsClippedToItsBox() throws {
        let x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        // A red square twice the box's size, centred on it: only the box shows red.
        chart.customAnnotations = [CustomAnnotation("red", x: .data(4), y: .data(0.4), x2: .data(6), y2: .data(0.6)) { ctx in
            let b = ctx.box
            return [.rect(x: Float(b.minX - b.width / 2), y: Float(b.minY - b.height / 2), w: Float(b.width * 2), h: Float(b.height * 2),
                          fill: "#ff0000", stroke: nil, lineWidth: 0)]
        }]
        let session = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        let layout = session.layout(size: size)
        let xc = try XCTUnwrap(layout.axis("x")).calculator, yc = try XCTUnwrap(layout.axis("y")).calculator
        let p = try ImageRenderer(fonts: ImageRendererTests.fonts).raster(session.displayList(size: size))
        func isRed(_ px: Double, _ py: Double) -> Bool { let c = p.rgba(Int(px), Int(py)); return c.r > 240 && c.g < 20 && c.b < 20 }
        XCTAssertTrue(isRed(xc.pixel(5), yc.pixel(0.5)), "the box's middle")
        XCTAssertTrue(isRed(xc.pixel(4) + 2, yc.pixel(0.6) + 2), "inside its top-left corner")
        XCTAssertFalse(isRed(xc.pixel(4) - 4, yc.pixel(0.5)), "left of the box")
        XCTAssertFalse(isRed(xc.pixel(5), yc.pixel(0.6) - 4), "above the box")
    }
}

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
}

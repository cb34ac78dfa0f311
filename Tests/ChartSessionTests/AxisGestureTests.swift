import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Pan and zoom turned on and off per axis (ShinobiCharts' `enableGesturePanning`,
/// `enableGestureZooming`), not only per direction.
@Suite struct AxisGestureTests {
    /// The static chart (y = x) with a second, right Y axis `r` (a fixed 0...200), its
    /// axes' gestures as given.
    func rig(_ modifiers: [ChartModifierBase], x: (pan: Bool, zoom: Bool) = (true, true),
             r: (pan: Bool, zoom: Bool) = (true, true)) throws -> ModifierTests.Rig {
        var data = XYData()
        try data.append(xs: (0..<100).map(Double.init), ys: (0..<100).map(Double.init))
        var xAxis = AxisConfig(id: "x", alignment: .bottom)
        xAxis.gesturePanning = x.pan; xAxis.gestureZooming = x.zoom
        var right = AxisConfig(id: "r", alignment: .right, mode: .fixed, range: DoubleRange(0, 200))
        right.gesturePanning = r.pan; right.gestureZooming = r.zoom
        let chart = Chart(title: nil, xAxes: [xAxis], yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents), right],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        let rig = try ModifierTests.Rig(modifiers, chart: chart)
        chart.setRange("x", DoubleRange(20, 60))   // room to pan within the data
        return rig
    }

    func range(_ rig: ModifierTests.Rig, _ id: String) -> DoubleRange { rig.session.chart.resolvedRanges()[id]! }

    func drag(_ rig: ModifierTests.Rig, dx: Double, dy: Double) {
        let plot = rig.plot
        rig.pointer(.down, plot.midX, plot.midY)
        rig.pointer(.move, plot.midX + dx / 2, plot.midY + dy / 2, dt: 200)
        rig.pointer(.move, plot.midX + dx, plot.midY + dy, dt: 200)
        rig.pointer(.up, plot.midX + dx, plot.midY + dy, dt: 200)
    }

    @Test func aDragPansOnlyTheAxesThatPan() throws {
        let rig = try rig([ZoomPanModifier(clipMode: .none)], r: (pan: false, zoom: true))
        let (x0, y0, r0) = (range(rig, "x"), range(rig, "y"), range(rig, "r"))
        drag(rig, dx: 40, dy: 40)
        #expect(range(rig, "x") != x0 && range(rig, "y") != y0, "x and y pan")
        #expect(range(rig, "r") == r0, "r has panning off")

        let still = try self.rig([ZoomPanModifier(clipMode: .none)], x: (pan: false, zoom: true))
        let sx = range(still, "x")
        drag(still, dx: 40, dy: 0)
        #expect(range(still, "x") == sx)
    }

    @Test func theWheelAndABoxZoomOnlyTheAxesThatZoom() throws {
        let rig = try rig([MouseWheelZoomModifier(direction: .xy)], x: (pan: true, zoom: false))
        let (x0, y0) = (range(rig, "x"), range(rig, "y"))
        let plot = rig.plot
        _ = rig.session.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -100)), from: rig.first)
        #expect(range(rig, "x") == x0, "x has zooming off")
        #expect(range(rig, "y").span < y0.span)

        let box = try self.rig([RubberBandXyZoomModifier(key: .none)], r: (pan: true, zoom: false))
        let (bx, br) = (range(box, "x"), range(box, "r"))
        drag(box, dx: 100, dy: 80)
        #expect(range(box, "x").span < bx.span)
        #expect(range(box, "r") == br, "r has zooming off")
    }

    @Test func anAxisDragNeedsItsAxisGesture() throws {
        let rig = try rig([AxisDragModifier()], r: (pan: true, zoom: false))
        let layout = rig.session.layout(size: Fixtures.size)
        let r0 = range(rig, "r"), r = try #require(layout.axis("r")).rect
        rig.pointer(.down, r.midX, r.midY)
        rig.pointer(.move, r.midX, r.midY - 30)
        rig.pointer(.up, r.midX, r.midY - 60)
        #expect(range(rig, "r") == r0, "scaling zooms: off for r")
        let y = try #require(layout.axis("y")).rect, y0 = range(rig, "y")
        rig.pointer(.down, y.midX, y.midY, dt: 500)
        rig.pointer(.move, y.midX, y.midY - 30)
        rig.pointer(.up, y.midX, y.midY - 60)
        #expect(range(rig, "y") != y0, "y still scales")
    }

    @Test func theSpecNamesThemPerAxis() throws {
        let spec = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "g", "chart": {"xAxes": [{"id": "x", "enableGesturePanning": false}],
                                  "yAxes": [{"id": "y", "enableGestureZooming": false}]}}
            """#))
        #expect(spec.chart.xAxes[0].gesturePanning == false && spec.chart.xAxes[0].gestureZooming)
        #expect(spec.chart.yAxes[0].gestureZooming == false && spec.chart.yAxes[0].gesturePanning)
        // A patch turning one off is a change of the axis' definition.
        let s = spec.makeSession(measurer: TestFonts.measurer)
        try s.applyPatch(foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "enableGesturePanning": true}]}}"#))
        #expect(s.chart.axis("x")?.config.gesturePanning == true)
    }
}

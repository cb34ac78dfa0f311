import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The rest of ShinobiCharts' delegate (issue 29, "The whole delegate"): series
/// animations starting and finishing, radial pans, selections with their pixel and
/// nearest point, data loading before it starts (PullSourceTests).
@Suite struct DelegateEventTests {
    final class Events { var list: [ChartEvent] = [] }

    func recording(_ chart: Chart) -> Events {
        let e = Events()
        chart.addEventHandler { e.list.append($0) }
        return e
    }

    @Test func seriesAnimationsReportTheirStartAndFinish() throws {
        var d = XYData()
        try d.append(xs: [0, 1, 2], ys: [1, 2, 3])
        var s = Series(id: "a", name: "A", color: "#000", xAxisId: "x", yAxisId: "y", data: d)
        s.animationEnabled = true
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                          series: [s])
        let e = recording(chart)
        chart.advanceAnimations(to: 0, watched: true)
        #expect(e.list == [.seriesAnimationStarted(series: "a", entry: true)])
        chart.advanceAnimations(to: 0.3, watched: true)
        #expect(e.list.count == 1, "nothing while it runs")
        chart.advanceAnimations(to: 5, watched: true)
        #expect(e.list.last == .seriesAnimationFinished(series: "a", entry: true))
        chart.setHidden("a", true)
        chart.advanceAnimations(to: 6, watched: true)
        chart.advanceAnimations(to: 9, watched: true)
        #expect(e.list.suffix(2) == [.seriesAnimationStarted(series: "a", entry: false), .seriesAnimationFinished(series: "a", entry: false)])
        #expect(chart.series[0].isHidden)
    }

    @Test func aRadialPanReportsItsStartEachStepAndItsEnd() throws {
        let rig = try ModifierTests.Rig([PieRotationModifier(rotationFriction: 20)], chart: ModifierTests.pie())
        let e = recording(rig.session.chart)
        let plot = rig.plot, c = Point(x: plot.midX, y: plot.midY), r = min(plot.width, plot.height) / 4
        rig.pointer(.down, c.x, c.y - r)
        for k in 1...9 {
            let a = Double(k) * 10 * .pi / 180
            rig.pointer(.move, c.x + r * sin(a), c.y - r * cos(a), dt: 10)
        }
        rig.pointer(.up, c.x + r, c.y, dt: 200)
        let v = rig.first
        #expect(e.list.first == .radialPanStarted(viewer: v, series: "p"))
        let steps = e.list.compactMap { if case let .radialPanning(_, _, rotation) = $0 { return rotation } else { return nil } }
        #expect(steps.count >= 8 && abs(steps.last! - 90) < 1e-6, "\(steps)")
        #expect(e.list.last == .radialPanEnded(viewer: v, series: "p", rotation: rig.session.chart.series[0].style.rotation))
        // Viewers are told of the start and the end (not each step).
        let told = rig.session.takeEvents().compactMap { $0["event"]?.stringValue }
        #expect(told == ["radialPanStarted", "radialPanEnded"])
    }

    @Test func aSeriesSelectionTellsThePixelAndTheNearestPoint() throws {
        let rig = try ModifierTests.Rig([SeriesSelectionModifier()], chart: ModifierTests.twoLines())
        let e = recording(rig.session.chart)
        let layout = rig.session.layout(size: Fixtures.size)
        let x = layout.axis("x")!.calculator, y = layout.axis("y")!.calculator
        let px = x.pixel(42.2), py = y.pixel(90) + 3
        rig.pointer(.down, px, py, dt: 1000)
        rig.pointer(.up, px, py, dt: 50)
        #expect(rig.session.chart.series[1].isSelected)
        let at = e.list.compactMap { event -> ChartEvent? in if case .selectionAt = event { return event } else { return nil } }
        #expect(at == [.selectionAt(viewer: rig.first, series: "high", pixelX: px, pixelY: py, point: 42, x: 42, y: 90, selected: true)])
        // It follows selectionToggled.
        let names = e.list.map(\.name)
        #expect(names.firstIndex(of: "selectionToggled")! < names.firstIndex(of: "selectionAt")!)
        #expect(at.first?.json["pixelX"] == .number(px))
    }
}

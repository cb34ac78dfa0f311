import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The five defects of issue 29, each as a user meets it: a patch of an axis' range
/// alone, a Swift host assigning the title, theme or legend, numbers that look like
/// Unix times, and a fling that carries the chart off its data.
@Suite struct DefectTests {
    // MARK: A patch of visibleRange alone

    @Test func aPatchOfOnlyAVisibleRangeZoomsTheAxisAndIsReadBack() throws {
        let s = try LiveControlTests().session()
        let before = s.chart.version
        let result = try s.submit(.patch(foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "visibleRange": [0.5, 1.5]}]}}"#)))
        #expect(result.version > before)
        #expect(s.chart.axis("x")?.userRange == DoubleRange(0.5, 1.5))
        #expect(s.chart.resolvedRanges()["x"] == DoubleRange(0.5, 1.5))
        let x = try #require(s.liveSpec()?["chart"]?["xAxes"]?.arrayValue?.first)
        #expect(x["visibleRange"] == [0.5, 1.5], "GET .../spec shows the range")

        // Another patch of the same axis' range moves it again; null gives it back to its mode.
        try s.submit(.patch(foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "visibleRange": [1, 2]}]}}"#)))
        #expect(s.chart.axis("x")?.userRange == DoubleRange(1, 2))
        try s.submit(.patch(foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "visibleRange": null}]}}"#)))
        #expect(s.chart.axis("x")?.userRange == nil)
        #expect(s.liveSpec()?["chart"]?["xAxes"]?.arrayValue?.first?["visibleRange"] == nil)

        // A patch that leaves the range out keeps the zoom a user made.
        s.chart.setRange("x", DoubleRange(0.25, 1.75))
        try s.submit(.patch(foundationJSON(#"{"chart": {"yAxes": [{"id": "y", "visibleRange": [0, 10]}]}}"#)))
        #expect(s.chart.axis("x")?.userRange == DoubleRange(0.25, 1.75))
        #expect(s.chart.axis("y")?.userRange == DoubleRange(0, 10))
    }

    @Test func aPatchedVisibleRangeReplaysToTheSameState() throws {
        let s = try LiveControlTests().session()
        let patch = foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "visibleRange": [0.5, 1.5]}]}}"#)
        try s.submit(.patch(patch))
        let replayed = try LiveControlTests().session()
        try replayed.apply(.patch(patch))
        #expect(replayed.chart.axis("x")?.userRange == s.chart.axis("x")?.userRange)
    }

    // MARK: A patch adding y axes

    @Test func aPatchAddingYAxesKeepsTheDefaultOne() throws {
        let s = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "d", "chart": {"series": [{"id": "a", "data": {"x": [0, 1], "y": [1, 2]}}]}}
            """#)).makeSession(measurer: TestFonts.measurer)
        #expect(s.chart.yAxes.map(\.id) == ["y"])
        try s.submit(.patch(foundationJSON(#"{"chart": {"yAxes": [{"id": "right", "alignment": "right"}]}}"#)))
        #expect(s.chart.yAxes.map(\.id) == ["y", "right"], "the default y axis stays")
        #expect(s.chart.series[0].yAxisId == "y", "and the series on it")
        // Removing it is said so.
        try s.submit(.patch(foundationJSON(#"""
            {"chart": {"yAxes": [{"id": "y", "remove": true}], "series": [{"id": "a", "yAxis": "right"}]}}
            """#)))
        #expect(s.chart.yAxes.map(\.id) == ["right"])
        #expect(s.chart.series[0].yAxisId == "right")
        // The same for x axes.
        try s.submit(.patch(foundationJSON(#"{"chart": {"xAxes": [{"id": "top", "alignment": "top"}]}}"#)))
        #expect(s.chart.xAxes.map(\.id) == ["x", "top"])
    }

    // MARK: A Swift host assigning title, theme, legend

    @Test func assigningTitleThemeOrLegendSendsAFrame() throws {
        let chart = Fixtures.staticChart()
        let s = Fixtures.session(chart)
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        var now = 0.0
        var held = HeldDisplayList()
        func frame() throws -> Frame? {
            now += 1
            if s.publishDue(now: now) != nil { s.publish(now: now) }
            guard let out = s.nextFrame(for: v) else { return nil }
            _ = s.receive(.ack, from: v)
            let f = try BinaryFrame.decodeFrame(try #require(out.bytes))
            try held.apply(f)
            return f
        }
        func commands() -> [DrawCommand] { held.displayList.layers.flatMap(\.commands) }
        func texts() -> [String] {
            commands().compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t }; return nil }
        }
        _ = try frame()
        #expect(try frame() == nil, "up to date")

        chart.title = "Renamed in Swift"
        #expect(try frame() != nil, "a title change sends a frame")
        #expect(texts().contains("Renamed in Swift"))

        chart.theme = Theme.presets["dark"]!
        #expect(try frame() != nil, "a theme change sends a frame")
        #expect(commands().contains { "\($0)".contains("#15171c") }, "in the dark theme's background")

        chart.legend = LegendConfig(position: .bottomRight)
        #expect(try frame() != nil, "a legend change sends a frame")
        chart.legend = nil
        let unlisted = try #require(try frame(), "hiding the legend sends a frame")
        #expect(unlisted.layers.contains { $0.id == .overlay })
        #expect(!texts().contains("Line"), "the legend's entry is gone")

        // Assigning what is there already changes nothing.
        let version = chart.version
        chart.title = "Renamed in Swift"
        chart.theme = Theme.presets["dark"]!
        chart.legend = nil
        #expect(chart.version == version)
    }

    // MARK: Unix times on a numeric axis

    @Test func unixSecondsOnANumericAxisAreWarnedAbout() throws {
        let t0 = 1_790_000_000.0
        let spec = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "u", "chart": {"series": [{"id": "a", "data": {"x": [\#(t0), \#(t0 + 60), \#(t0 + 120)], "y": [1, 2, 3]}}]}}
            """#))
        let s = spec.makeSession(measurer: TestFonts.measurer)
        let warnings = s.chart.warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("$.chart.xAxes[0]") == true && warnings.first?.contains(#""type": "time""#) == true, "\(warnings)")
        // Milliseconds too.
        let ms = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "m", "chart": {"series": [{"id": "a", "data": {"x": [\#(t0 * 1000), \#(t0 * 1000 + 5000)], "y": [1, 2]}}]}}
            """#)).makeSession(measurer: TestFonts.measurer)
        #expect(ms.chart.warnings().first?.contains("milliseconds") == true)
        // A time axis, or ordinary numbers, get none.
        let time = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "t", "chart": {"xAxes": [{"id": "x", "type": "time"}], "series": [{"id": "a", "data": {"x": [\#(t0)], "y": [1]}}]}}
            """#)).makeSession(measurer: TestFonts.measurer)
        #expect(time.chart.warnings().isEmpty)
        #expect(Fixtures.session(Fixtures.staticChart()).chart.warnings().isEmpty)
    }

    @Test func aControllersPatchMessageIsAnsweredWithTheWarnings() throws {
        let s = try LiveControlTests().session()
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        // (Series b, at x 0 ... 2, goes: the axis holds only Unix times then.)
        let patch = #"{"type": "patch", "spec": {"chart": {"series": [{"id": "a", "data": {"x": [1790000000, 1790000060], "y": [1, 2]}}, {"id": "b", "remove": true}]}}}"#
        let answer = try #require(s.receive(json: foundationJSON(patch), from: v).first?.json)
        #expect(answer["type"] == "patched")
        #expect(answer["warnings"]?.arrayValue?.first?.stringValue?.contains("Unix times in seconds") == true, "\(answer)")
        let plain = #"{"type": "patch", "spec": {"chart": {"series": [{"id": "a", "data": {"x": [0, 1], "y": [1, 2]}}]}}}"#
        #expect(try #require(s.receive(json: foundationJSON(plain), from: v).first?.json)["warnings"] == nil)
    }

    @Test func unixSecondsAreLabelledReadably() throws {
        let t0 = 1_790_000_000.0
        var data = XYData()
        try data.append(xs: (0..<600).map { t0 + Double($0) }, ys: (0..<600).map { Double($0) })
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .visible)],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        let layout = Fixtures.session(chart).layout(size: Fixtures.size)
        let labels = try #require(layout.axis("x")).ticks.map(\.label)
        #expect(!labels.isEmpty)
        #expect(labels.allSatisfy { !$0.hasSuffix("G") }, "\(labels)")
        #expect(labels.allSatisfy { $0.hasPrefix("17900") && Double($0) != nil }, "\(labels)")
    }

    // MARK: A fling off the data

    /// The static chart zoomed to x 40...60 of its 0...99, with a zoomPan of `clip`.
    func zoomedRig(_ clip: ZoomPanModifier.ClipMode?, direction: ModifierDirection = .x) throws -> (ModifierTests.Rig, ZoomPanModifier) {
        let pan = clip.map { ZoomPanModifier(direction: direction, clipMode: $0) } ?? ZoomPanModifier(direction: direction)
        let rig = try ModifierTests.Rig([pan])
        rig.session.chart.setRange("x", DoubleRange(40, 60))
        return (rig, pan)
    }

    /// A quick drag to the left (towards larger x), released moving: a fling.
    func fling(_ rig: ModifierTests.Rig, dx: Double = -60, dy: Double = 0) {
        let plot = rig.plot
        rig.pointer(.down, plot.midX, plot.midY)
        for k in 1...5 { rig.pointer(.move, plot.midX + Double(k) * dx, plot.midY + Double(k) * dy, dt: 10) }
        rig.pointer(.up, plot.midX + 5 * dx, plot.midY + 5 * dy, dt: 5)
    }

    func glide(_ rig: ModifierTests.Rig) {
        var clock = 100.0
        for _ in 0..<500 where rig.session.needsClock {
            rig.session.advance(to: clock)
            clock += 0.02
        }
    }

    @Test func aFlingStopsAtTheDataByDefault() throws {
        let (rig, pan) = try zoomedRig(nil)
        #expect(pan.clipMode == .clipAtExtents)
        fling(rig)
        glide(rig)
        #expect(!pan.isGliding)
        #expect(rig.x.max == 99 && abs(rig.x.span - 20) < 1e-9, "stopped at the last point, span kept: \(rig.x)")
        // Dragged the other way, it stops at the first point.
        fling(rig, dx: 150)
        glide(rig)
        #expect(rig.x.min == 0 && abs(rig.x.span - 20) < 1e-9, "\(rig.x)")
    }

    @Test func stretchAtExtentsHoldsTheEndAndNoneGoesOn() throws {
        let (stretch, _) = try zoomedRig(.stretchAtExtents)
        fling(stretch)
        glide(stretch)
        #expect(stretch.x.max == 99 && stretch.x.span < 20 && stretch.x.span > 0, "the end held, the range narrowed: \(stretch.x)")

        let (free, _) = try zoomedRig(ZoomPanModifier.ClipMode.none)
        fling(free)
        glide(free)
        #expect(free.x.max > 100, "no clip: past the data, as before: \(free.x)")
    }

    @Test func panLimitsAreTheExtentsWhenGiven() throws {
        var data = XYData()
        try data.append(xs: (0..<100).map(Double.init), ys: (0..<100).map(Double.init))
        var x = AxisConfig(id: "x", alignment: .bottom)
        x.panLimits = DoubleRange(10, 80)
        let chart = Chart(title: nil, xAxes: [x], yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents)],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        let pan = ZoomPanModifier(direction: .x)
        let rig = try ModifierTests.Rig([pan], chart: chart)
        chart.setRange("x", DoubleRange(40, 60))
        fling(rig)
        glide(rig)
        #expect(rig.x.max == 80 && abs(rig.x.min - 60) < 1e-9, "stopped at the pan limit: \(rig.x)")
    }

    @Test func aLogAxisStopsAtItsDataKeepingItsRatio() throws {
        var data = XYData()
        try data.append(xs: (0...40).map { pow(10, Double($0) / 10) }, ys: (0...40).map(Double.init))   // 1 ... 10^4
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, type: .logarithmic)],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents)],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        let pan = ZoomPanModifier(direction: .x)
        let rig = try ModifierTests.Rig([pan], chart: chart)
        chart.setRange("x", DoubleRange(10, 100))
        fling(rig, dx: -150)
        glide(rig)
        #expect(rig.x.max == 10_000 && abs(rig.x.min - 1000) < 1e-6, "a decade wide, at the last point: \(rig.x)")
    }

    @Test func aGlideDoesNotCarryYOffItsData() throws {
        let (rig, pan) = try zoomedRig(nil, direction: .xy)
        rig.session.chart.setRange("y", DoubleRange(40, 60))
        fling(rig, dx: 0, dy: 80)
        glide(rig)
        #expect(!pan.isGliding)
        let y = rig.y, all = try #require(rig.session.chart.dataRange("y"))
        #expect(y.min >= all.min - 1e-9 && y.max <= all.max + 0.1 * all.span + 1e-9, "\(y) within \(all) (and its padding)")
    }

    @Test func clipModeIsReadFromTheSpec() throws {
        let spec = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "c", "chart": {"modifiers": [{"type": "zoomPan", "clipMode": "stretchAtExtents"}]}}
            """#))
        #expect(spec.chart.modifiers == [.zoomPan(direction: .xy, momentum: true, clipMode: .stretchAtExtents)])
        let made = try #require(spec.chart.modifiers[0].make() as? ZoomPanModifier)
        #expect(made.clipMode == .stretchAtExtents)
        #expect(throws: JSONReadError.self) {
            try ConfigSpec.decodeSession(foundationJSON(#"{"id": "c", "chart": {"modifiers": [{"type": "zoomPan", "clipMode": "clip"}]}}"#))
        }
    }
}

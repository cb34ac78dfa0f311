import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The rollover, cursor and crosshair write values as the axis writes its labels: a
/// time axis' dateFormat, the Swift label generator, labelDecimals.
@Suite struct InspectFormatTests {
    static let t0 = 1_790_000_000.0   // 2026-09-21 14:13:20 UTC

    /// 100 points a minute apart from t0 on x (as given), y = 0 ... 99 on y (as given).
    func rig(_ modifier: ChartModifierBase, x: AxisConfig, y: AxisConfig = AxisConfig(id: "y", alignment: .left, mode: .extents)) throws -> ModifierTests.Rig {
        var data = XYData()
        try data.append(xs: (0..<100).map { Self.t0 + 60 * Double($0) }, ys: (0..<100).map(Double.init))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y],
                          series: [Series(id: "s", name: "Line", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)])
        return try ModifierTests.Rig([modifier], chart: chart)
    }

    func texts(_ rig: ModifierTests.Rig) throws -> [String] {
        _ = try rig.frame(rig.first)
        return rig.own(rig.first).compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t }; return nil }
    }

    /// Hovers over the point 50 (15:03:20, y 50).
    func hover(_ rig: ModifierTests.Rig) {
        let layout = rig.session.layout(size: Fixtures.size)
        let px = layout.axis("x")!.calculator.pixel(Self.t0 + 3000), py = layout.axis("y")!.calculator.pixel(50)
        rig.pointer(.move, px, py, buttons: 0)
    }

    @Test func theCrosshairTooltipUsesTheTimeAxisDateFormat() throws {
        var x = AxisConfig(id: "x", alignment: .bottom, type: .time)
        x.dateFormat = "dd/MM HH:mm"
        let rig = try rig(CrosshairModifier(), x: x)
        hover(rig)
        let shown = try texts(rig)
        #expect(shown.contains("x: 21/09 15:03"), "\(shown)")
        // Without a dateFormat, the full date and time as before.
        let plain = try self.rig(CrosshairModifier(), x: AxisConfig(id: "x", alignment: .bottom, type: .time))
        hover(plain)
        #expect(try texts(plain).contains("x: 2026-09-21 15:03:20"))
    }

    @Test func theRolloverUsesTheLabelGeneratorAndTheCursorTheDecimals() throws {
        var y = AxisConfig(id: "y", alignment: .left, mode: .extents)
        y.labelGenerator = TickLabelGenerator("percent") { "\(Int($0))%" }
        let rig = try rig(RolloverModifier(), x: AxisConfig(id: "x", alignment: .bottom, type: .time), y: y)
        hover(rig)
        #expect(try texts(rig).contains("Line: 50%"))

        var decimals = AxisConfig(id: "y", alignment: .left, mode: .extents)
        decimals.labelDecimals = 3
        let cursor = try self.rig(CursorModifier(), x: AxisConfig(id: "x", alignment: .bottom, type: .time), y: decimals)
        hover(cursor)
        let shown = try texts(cursor)
        // (The cursor sits on the pixel's centre: about 50, written with three decimals.)
        #expect(shown.contains { t in t.split(separator: ".").last?.count == 3 && Double(t).map { abs($0 - 50) < 0.5 } == true }, "\(shown)")
    }

    @Test func numbersFollowTheLabelFormat() {
        #expect(valueText(123_456_789, axis: AxisConfig(id: "x", alignment: .bottom)) == "123456789")
        #expect(valueText(120_000_000, axis: AxisConfig(id: "x", alignment: .bottom)) == "120M")
        #expect(valueText(2500, axis: AxisConfig(id: "x", alignment: .bottom, labelFormat: .si)) == "2.5K")
        #expect(valueText(2500, axis: AxisConfig(id: "x", alignment: .bottom, labelFormat: .decimal)) == "2500")
    }
}

/// A time axis' calendar tick frequencies in the spec, drawn.
@Suite struct TimeFrequencySpecTests {
    @Test func aTimeAxisTicksEveryMonthOnTheAnchorsDay() throws {
        // 2026-01-01 to 2026-07-01, daily points; ticks every month on the 15th.
        let start = 1_767_225_600.0, anchor = 1_768_435_200.0   // 2026-01-01, 2026-01-15 UTC
        let xs = (0...181).map { start + 86_400 * Double($0) }
        let spec = try ConfigSpec.decodeSession(foundationJSON(#"""
            {"id": "t", "chart": {"xAxes": [{"id": "x", "type": "time", "dateFormat": "d MMM",
                                             "majorTickFrequency": {"unit": "month", "count": 1}, "tickAnchor": \#(anchor),
                                             "minorTickFrequency": {"unit": "week"}}],
                                  "series": [{"id": "a", "data": {"x": \#(xs), "y": \#(xs.map { _ in 1 })}}]}}
            """#))
        #expect(spec.chart.xAxes[0].tickPlacement.majorTime == TimeFrequency(TimeStep(1, .month), anchor: anchor))
        #expect(spec.chart.xAxes[0].tickPlacement.minorTime == TimeFrequency(TimeStep(1, .week), anchor: anchor))
        let layout = spec.makeSession(measurer: TestFonts.measurer).layout(size: Fixtures.size)
        let x = try #require(layout.axis("x"))
        #expect(x.ticks.map(\.label) == ["15 Jan", "15 Feb", "15 Mar", "15 Apr", "15 May", "15 Jun"])
        #expect(x.minorTicks.count >= 20, "weekly minor ticks: \(x.minorTicks.count)")
    }

    @Test func frequenciesAreCheckedAgainstTheAxisType() {
        let bad: [(String, String)] = [
            (#"{"id": "x", "type": "time", "majorTickFrequency": 3600}"#, "$.chart.xAxes[0].majorTickFrequency"),
            (#"{"id": "x", "majorTickFrequency": {"unit": "day"}}"#, "$.chart.xAxes[0].majorTickFrequency"),
            (#"{"id": "x", "type": "time", "majorTickFrequency": {"unit": "fortnight"}}"#, "$.chart.xAxes[0].majorTickFrequency.unit"),
            (#"{"id": "x", "type": "time", "majorTickFrequency": {"unit": "day", "count": 0}}"#, "$.chart.xAxes[0].majorTickFrequency.count"),
        ]
        for (axis, path) in bad {
            #expect(throws: JSONReadError.self) { try ConfigSpec.decodeSession(foundationJSON(#"{"id": "t", "chart": {"xAxes": [\#(axis)]}}"#)) }
            do { _ = try ConfigSpec.decodeSession(foundationJSON(#"{"id": "t", "chart": {"xAxes": [\#(axis)]}}"#)) } catch {
                #expect(error.path == path, "\(axis): \(error)")
            }
        }
    }
}

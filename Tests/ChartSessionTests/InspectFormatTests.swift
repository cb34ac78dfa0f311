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

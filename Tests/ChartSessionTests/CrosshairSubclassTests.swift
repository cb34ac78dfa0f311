import Testing
import LayoutEngine
import TestSupport
// Not @testable: a subclass here compiles only because `CrosshairModifier` is `open`
// and its override points are `open`, as for a program using the library.
import ChartSession

/// A crosshair as a user would subclass it (ShinobiCharts' subclassing hook): its value
/// labels and its line style overridden, the rest as the base draws it.
final class UnitsCrosshair: CrosshairModifier {
    override func valueLabel(_ value: Double, axis: AxisConfig?) -> String {
        axis?.id == "y" ? "\(Int(value)) °C" : super.valueLabel(value, axis: axis)
    }
    override func lineStyle(for target: Target) -> LineStyle {
        LineStyle(color: "#ff0000", width: 2, dash: [])
    }
}

@Suite struct CrosshairSubclassTests {
    /// The crosshair's own layer after hovering near the "high" line (y = 90).
    func hovered(_ crosshair: CrosshairModifier) throws -> [DrawCommand] {
        let rig = try ModifierTests.Rig([crosshair], chart: ModifierTests.twoLines())
        let y = rig.session.layout(size: Fixtures.size).axis("y")!.calculator
        rig.pointer(.move, rig.plot.midX, y.pixel(80), buttons: 0)
        _ = try rig.frame(rig.first)
        return rig.own(rig.first)
    }

    func texts(_ commands: [DrawCommand]) -> [String] {
        commands.compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t }; return nil }
    }

    func lines(_ commands: [DrawCommand]) -> (stroke: String, width: Float, dash: [Float])? {
        for c in commands { if case let .segments(_, stroke, width, dash) = c { return (stroke, width, dash) } }
        return nil
    }

    @Test func aSubclassesOverridesShowInTheFrame() throws {
        let base = try hovered(CrosshairModifier())
        let baseTexts = texts(base)
        #expect(baseTexts.count == 3 && baseTexts.first == "High" && baseTexts.last == "y: 90")
        let baseLines = try #require(lines(base))
        #expect(baseLines.stroke == "#1d2029" && baseLines.width == 1 && baseLines.dash == [3, 3])

        let own = try hovered(UnitsCrosshair())
        #expect(texts(own) == ["High", baseTexts[1], "y: 90 °C"], "the y value through the override, x as the base writes it")
        let ownLines = try #require(lines(own))
        #expect(ownLines.stroke == "#ff0000" && ownLines.width == 2 && ownLines.dash.isEmpty)
        // What it does not override stays: the target circle in the crosshair's colour.
        let marker = own.compactMap { c -> MarkerSet? in if case let .markers(m) = c { return m }; return nil }.first
        #expect(marker?.stroke == "#1d2029" && marker?.size == 14)
    }

    @Test func theTooltipClosureStillWinsOverTheDefaultLines() throws {
        let crosshair = UnitsCrosshair()
        crosshair.tooltip = { t, _ in ["\(t.seriesName) at \(Int(t.y))"] }
        #expect(texts(try hovered(crosshair)) == ["High at 90"])
    }
}

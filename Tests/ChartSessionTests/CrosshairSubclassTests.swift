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

/// A crosshair subclass named in the spec: the program registers a factory under a
/// name (`CrosshairModifier.register`), a spec says `{"type": "crosshair", "class":
/// name}`. Each test registers names of its own: the registry is the process's.
@Suite struct CrosshairClassTests {
    static func spec(_ className: String) -> JSONValue {
        foundationJSON(#"{"id":"c","chart":{"series":[{"id":"s","data":{"x":[0,1,2],"y":[1,2,3]}}],"#
                       + #""modifiers":[{"type":"zoomPan"},{"type":"crosshair","mode":"floating","class":""# + className + #""}]}}"#)
    }

    static func make(_ spec: SessionSpec) -> Session { spec.makeSession(measurer: TestFonts.measurer) }

    @Test func aRegisteredClassIsMadeFromTheSpec() throws {
        CrosshairModifier.register("units-made") { config in
            UnitsCrosshair(mode: config.mode, interpolatePoints: config.interpolatePoints)
        }
        defer { CrosshairModifier.unregister("units-made") }
        let hub = SessionHub()
        try hub.submit(.define(spec: Self.spec("units-made")), session: "c", make: Self.make)
        let crosshair = try #require(hub.session("c")?.chart.modifiers[1] as? UnitsCrosshair)
        #expect(crosshair.mode == .floating && crosshair.missingClass == nil)
        #expect(hub.session("c")?.chart.warnings() == [])
        // It draws as the subclass: the y value in °C, solid red lines.
        let decoded = try ConfigSpec.decodeSession(Self.spec("units-made"))
        let hovered = try CrosshairSubclassTests().hovered(try #require(decoded.chart.modifiers[1].make() as? CrosshairModifier))
        #expect(CrosshairSubclassTests().texts(hovered).last == "y: 90 °C")
        #expect(CrosshairSubclassTests().lines(hovered)?.stroke == "#ff0000")
    }

    /// A live definition or patch naming a class the program has not registered is
    /// refused with the JSON path and the names it has; nothing changes.
    @Test func anUnknownClassIsRefusedAtTheDoor() throws {
        CrosshairModifier.register("units-door") { _ in UnitsCrosshair() }
        defer { CrosshairModifier.unregister("units-door") }
        let hub = SessionHub()
        do {
            try hub.submit(.define(spec: Self.spec("trade-unknown")), session: "c", make: Self.make)
            Issue.record("accepted an unknown class")
        } catch {
            #expect(error.description.hasPrefix(#"$.chart.modifiers[1].class: no crosshair class "trade-unknown" in this program: it registers "#), "\(error)")
            #expect(error.description.contains(#""units-door""#), "\(error)")
        }
        #expect(hub.session("c") == nil)
        try hub.submit(.define(spec: Self.spec("units-door")), session: "c", make: Self.make)
        let session = try #require(hub.session("c"))
        let patch = foundationJSON(#"{"chart":{"modifiers":[{"type":"crosshair","class":"trade-unknown"}]}}"#)
        do {
            try session.submit(.patch(patch))
            Issue.record("accepted an unknown class in a patch")
        } catch {
            #expect(error.description.hasPrefix(#"$.chart.modifiers[0].class: no crosshair class "trade-unknown""#), "\(error)")
        }
        #expect(session.chart.modifiers.count == 2 && session.chart.modifiers[1] is UnitsCrosshair)
        // A malformed name is the reader's: refused wherever the spec comes from.
        do {
            _ = try ConfigSpec.decodeSession(Self.spec(""))
            Issue.record("accepted an empty class name")
        } catch {
            #expect(error.description == "$.chart.modifiers[1].class: expected a class name of 1 to 64 characters")
        }
    }

    /// A stored session is rebuilt whatever the program registers: a class it does not
    /// have (any more) gives the plain crosshair, with a warning naming it; once the
    /// program registers it again, the session made from the same spec has the subclass.
    /// Replay (`apply`) takes what the door took, registered or not.
    @Test func aRestoredSessionGetsTheClassOnceRegistered() throws {
        let stored = try ConfigSpec.decodeSession(Self.spec("units-restored"), runtime: false)
        let before = Self.make(stored)
        let plain = try #require(before.chart.modifiers[1] as? CrosshairModifier)
        #expect(type(of: plain) == CrosshairModifier.self && plain.missingClass == "units-restored" && plain.mode == .floating)
        #expect(before.chart.warnings() == [#"$.chart.modifiers[1].class: crosshair class "units-restored" is not registered in this program "#
                                            + "(CrosshairModifier.register): the plain crosshair stands in"])
        // Replayed from a log, a patch naming an unregistered class is applied.
        try before.apply(.patch(foundationJSON(#"{"chart":{"modifiers":[{"type":"crosshair","class":"units-replayed"}]}}"#)))
        #expect((before.chart.modifiers.first as? CrosshairModifier)?.missingClass == "units-replayed")

        CrosshairModifier.register("units-restored") { config in UnitsCrosshair(mode: config.mode) }
        defer { CrosshairModifier.unregister("units-restored") }
        let after = Self.make(stored)
        #expect(after.chart.modifiers[1] is UnitsCrosshair && after.chart.warnings().isEmpty)
        #expect(CrosshairModifier.registeredClasses.contains("units-restored"))
    }
}

import Testing
import TestSupport
@testable import LayoutEngine

@Suite struct TickStepTests {
    @Test(arguments: [
        (0.447, 5, -1), (1.0, 1, 0), (1.4, 1, 0), (1.5, 2, 0), (3.1, 2, 0), (3.2, 5, 0), (7.0, 5, 0),
        (7.1, 1, 1), (0.1, 1, -1), (100.0, 1, 2), (0.00123, 1, -3), (2.5e-12, 2, -12), (6e15, 5, 15),
    ])
    func nearestNiceStep(raw: Double, factor: Int, power: Int) {
        #expect(TickStep(near: raw) == TickStep(factor: factor, power: power))
    }

    @Test(arguments: [0.0, -1.0, Double.nan, Double.infinity, -Double.infinity, 1e-320])
    func noStepForDegenerateInput(raw: Double) {
        #expect(TickStep(near: raw) == nil)
    }

    @Test func coarserWalksOneTwoFive() {
        var s = TickStep(factor: 1, power: -1)
        var seen: [String] = []
        for _ in 0..<5 { seen.append(s.description); s = s.coarser }
        #expect(seen == ["1e-1", "2e-1", "5e-1", "1e0", "2e0"])
    }

    @Test func finerWalksBack() {
        var s = TickStep(factor: 2, power: 0)
        var seen: [String] = []
        for _ in 0..<4 { seen.append(s.description); #expect(s.finer.coarser == s); s = s.finer }
        #expect(seen == ["2e0", "1e0", "5e-1", "2e-1"])
    }

    /// Issue 31: a short value axis showed one label (9 to 91 on 108 px: 50 alone at
    /// the step nearest the target spacing). It refines the step while labels fit.
    @Test func aShortAxisGetsTwoLabelsWhereTheyFit() {
        func labels(_ lo: Double, _ hi: Double, _ length: Double) -> [String] {
            let c = CoordinateCalculator(range: DoubleRange(lo, hi), pixelStart: length, pixelEnd: 0)
            return TickGenerator.ticks(range: c.range, calculator: c, length: length, horizontal: false, policy: TickPolicy(),
                                       measure: { _ in Size(width: 20, height: 14) })?.ticks.map(\.label) ?? []
        }
        #expect(labels(9, 91, 108) == ["20", "40", "60", "80"])      // at 27 px: 14 px labels keep their 8 px gap
        #expect(labels(0, 44e6, 66).count >= 2)
        // On 32 px only with the tight gap (line boxes may touch): 0 and 10, 17 px apart.
        #expect(labels(-2.2, 16.6, 32) == ["0", "10"])
        #expect(labels(96.9, 103, 46) == ["98", "100", "102"])   // 15 px apart
        // Where no step fits two, one label stays (rather than labels on each other)...
        #expect(labels(-12, 12, 30) == ["0"])
        #expect(labels(-2.2, 16.6, 26) == ["0"])
        // ... also where the step nearest the target spacing has none in the range.
        #expect(labels(9, 91, 46) == ["50"])
        // A long axis is as before: the step nearest the target spacing.
        #expect(labels(9, 91, 400) == ["20", "40", "60", "80"])
        #expect(labels(0, 100, 160) == ["0", "50", "100"])
        // Labels side by side keep the policy's gap (touching, 2000 and 2020 read 20002020):
        // 20 px labels 22 px apart on a horizontal axis stay one label; along a side, two.
        func across(_ lo: Double, _ hi: Double, _ length: Double, horizontal: Bool) -> [String] {
            let c = CoordinateCalculator(range: DoubleRange(lo, hi), pixelStart: 0, pixelEnd: length)
            return TickGenerator.ticks(range: c.range, calculator: c, length: length, horizontal: horizontal, policy: TickPolicy(),
                                       measure: { _ in Size(width: 20, height: 20) })?.ticks.map(\.label) ?? []
        }
        #expect(across(1995, 2025, 33, horizontal: true) == ["2000"])
        #expect(across(1995, 2025, 33, horizontal: false) == ["2000", "2020"])
    }

    @Test func fractionalValuesAreExact() {
        let s = TickStep(factor: 1, power: -1)
        #expect(s.value(at: 3) == 0.3)
        #expect(s.value(at: 7) == 0.7)
        #expect(TickStep(factor: 2, power: -2).value(at: 3) == 0.06)
    }

    @Test func indicesIncludeBothEnds() {
        let s = TickStep(factor: 1, power: -1)
        #expect(s.indices(in: DoubleRange(0, 1)) == 0..<11)
        #expect(s.indices(in: DoubleRange(0.3, 0.7)) == 3..<8)
        #expect(s.indices(in: DoubleRange(-0.05, 0.05)) == 0..<1)
        #expect(s.indices(in: DoubleRange(0.01, 0.02))?.isEmpty == true)
        #expect(TickStep(factor: 5, power: 0).indices(in: DoubleRange(-12, 12)) == -2..<3)
    }

    @Test func indicesRefuseTooManyAndInvalid() {
        let s = TickStep(factor: 1, power: 0)
        #expect(s.indices(in: DoubleRange(0, 1e6), limit: 100) == nil)
        #expect(s.indices(in: DoubleRange(.nan, 1)) == nil)
        #expect(s.indices(in: DoubleRange(2, 1)) == nil)
        #expect(s.indices(in: DoubleRange(0, .infinity)) == nil)
    }
}

@Suite struct TickLabelTests {
    @Test(arguments: [
        (Int64(3), 1, -1, "0.3"), (-5, 5, -1, "-2.5"), (0, 2, -1, "0.0"), (0, 1, 0, "0"), (7, 1, 3, "7000"),
        (1, 1, 20, "1e20"), (25, 1, -13, "2.5e-12"), (-3, 2, -2, "-0.06"), (123, 1, -2, "1.23"),
        (10, 5, -1, "5.0"), (-1, 1, 0, "-1"), (3, 5, 14, "1.5e15"), (1, 1, -10, "1e-10"), (1, 2, -9, "0.000000002"),
    ])
    func exactLabels(index: Int64, factor: Int, power: Int, label: String) {
        #expect(TickLabelFormatter.label(index: index, step: TickStep(factor: factor, power: power)) == label)
    }

    @Test(arguments: [
        (0.0, "0"), (1.5, "1.5"), (-2.25, "-2.25"), (1234567.0, "1234567"), (0.000123456789, "0.000123457"),
        (Double.nan, "NaN"), (Double.infinity, "∞"), (100.0, "100"),
    ])
    func generalLabels(value: Double, label: String) {
        #expect(TickLabelFormatter.general(value) == label)
    }
}

@Suite struct TickGeneratorTests {
    let measurer = TestFonts.measurer

    func ticks(_ range: DoubleRange, length: Double, horizontal: Bool) -> (step: TickStep, ticks: [Tick])? {
        let calc = CoordinateCalculator(range: range, pixelStart: 0, pixelEnd: length)
        let policy = horizontal ? TickPolicy(targetSpacing: 90, minLabelGap: 12) : TickPolicy(targetSpacing: 50, minLabelGap: 6)
        return TickGenerator.ticks(range: range, calculator: calc, length: length, horizontal: horizontal,
                                   policy: policy, measure: { measurer.size(of: $0, style: TextStyle(size: 12)) })
    }

    @Test func typicalAxis() throws {
        let t = try #require(ticks(DoubleRange(0, 20), length: 1000, horizontal: true))
        #expect(t.step == TickStep(factor: 2, power: 0))
        #expect(t.ticks.map(\.label) == ["0", "2", "4", "6", "8", "10", "12", "14", "16", "18", "20"])
        #expect(t.ticks.map(\.pixel) == [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    }

    @Test func coarsensUntilLabelsFit() throws {
        // Long labels on a short axis: a 1 step would need more room than there is.
        let t = try #require(ticks(DoubleRange(1_000_000, 1_000_010), length: 200, horizontal: true))
        let widest = t.ticks.map(\.labelSize.width).max()!
        let spacing = t.step.value / 10 * 200
        #expect(spacing >= widest + 12)
        #expect(t.step.value >= 2)
    }

    @Test func emptyAndInvalidRanges() throws {
        let single = try #require(ticks(DoubleRange(5, 5), length: 300, horizontal: false))
        #expect(single.ticks.contains { $0.value == 5 })
        #expect(ticks(DoubleRange(.nan, 1), length: 300, horizontal: true) == nil)
        #expect(ticks(DoubleRange(0, 1), length: 0, horizontal: true) == nil)
    }

    /// Over many ranges and lengths: ticks lie in the range, are evenly spaced, and
    /// their labels (centred on the ticks) never overlap.
    @Test func labelsNeverOverlap() {
        let ranges = [
            DoubleRange(0, 1), DoubleRange(-1, 1), DoubleRange(0, 0.003), DoubleRange(-1e9, 1e9),
            DoubleRange(1e9, 1e9 + 0.001), DoubleRange(-123.456, 789.01), DoubleRange(0.1, 0.11),
            DoubleRange(-5e-7, 2e-7), DoubleRange(99_990, 100_020), DoubleRange(-3, -2.9),
        ]
        for range in ranges {
            for length in stride(from: 20.0, through: 2000, by: 37) {
                for horizontal in [true, false] {
                    guard let t = ticks(range, length: length, horizontal: horizontal) else {
                        Issue.record("no ticks for \(range) at \(length)"); continue
                    }
                    for tick in t.ticks { #expect(range.contains(tick.value), "\(tick.value) outside \(range)") }
                    for (a, b) in zip(t.ticks, t.ticks.dropFirst()) {
                        let extentA = horizontal ? a.labelSize.width : a.labelSize.height
                        let extentB = horizontal ? b.labelSize.width : b.labelSize.height
                        let gap = abs(b.pixel - a.pixel) - (extentA + extentB) / 2
                        #expect(gap >= -1e-9, "labels \(a.label) and \(b.label) overlap for \(range) at \(length)")
                    }
                    #expect(Set(t.ticks.map(\.label)).count == t.ticks.count, "duplicate labels for \(range)")
                }
            }
        }
    }
}

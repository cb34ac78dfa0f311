import Testing
@testable import LayoutEngine

/// Automatic number labels stay readable: an SI suffix only where it makes the labels
/// shorter (issue 29: Unix seconds were labelled "1.7900000G, 1.7900005G").
@Suite struct LabelReadabilityTests {
    func labels(_ indices: [Int64], factor: Int, power: Int, _ format: NumberLabelFormat = .auto) -> [String] {
        TickLabelFormatter.labels(indices: indices, step: TickStep(factor: factor, power: power), format: format)
    }

    @Test func noSuffixWhereItDoesNotShorten() {
        // Unix seconds every 100 s, every second, every 0.1 s: plain digits.
        #expect(labels([17_900_000, 17_900_005], factor: 1, power: 2) == ["1790000000", "1790000500"])
        #expect(labels([1_790_000_000, 1_790_000_001], factor: 1, power: 0) == ["1790000000", "1790000001"])
        #expect(labels([17_900_000_001], factor: 1, power: -1) == ["1790000000.1"])
        // Unix milliseconds a second apart: shorter with a suffix, but all offset.
        #expect(labels([1_790_000_001, 1_790_000_002], factor: 1, power: 3) == ["1790000001000", "1790000002000"])
        // Where the suffix shortens the labels it stays (the default's old behaviour).
        #expect(labels([0, 2, 4, 6], factor: 2, power: 7) == ["0", "40M", "80M", "120M"])
        #expect(labels([1, 2, 3], factor: 5, power: 5) == ["0.5M", "1.0M", "1.5M"])
        #expect(labels([1_790, 1_791], factor: 1, power: 6) == ["1.790G", "1.791G"])
        // "si" asked for keeps it whatever the length.
        #expect(labels([17_900_000, 17_900_005], factor: 1, power: 2, .si) == ["1.7900000G", "1.7900005G"])
    }

    @Test func givenValuesToo() {
        #expect(TickLabelFormatter.labels(values: [1_790_000_000, 1_790_000_500], format: .auto) == ["1790000000", "1790000500"])
        #expect(TickLabelFormatter.labels(values: [0, 120_000_000], format: .auto) == ["0", "120M"])
    }
}

/// Ticks over huge offsets (Unix seconds and milliseconds, 10^15) read as numbers: each
/// label is distinct, names its tick's value, and takes a suffix only over few digits.
@Suite struct HugeOffsetLabelTests {
    @Test func labelsNameTheirTicksAtHugeOffsets() throws {
        let measure = { (s: String) in Size(width: Double(s.utf8.count) * 7, height: 12) }
        var seen: [String] = []
        for offset in [1.79e9, 1.79e12, 1e15] {
            for span in [1.0, 60, 3600, 1e6, 1e8] where span >= offset * 1e-9 {
                let range = DoubleRange(offset, offset + span)
                let calc = CoordinateCalculator(range: range, pixelStart: 0, pixelEnd: 800)
                let result = try #require(TickGenerator.ticks(range: range, calculator: calc, length: 800, horizontal: true,
                                                             policy: TickPolicy(targetSpacing: 90, minLabelGap: 12), format: .auto,
                                                             measure: measure))
                let labels = result.ticks.map(\.label)
                seen.append(labels.joined(separator: " "))
                #expect(Set(labels).count == labels.count, "distinct: \(labels)")
                for tick in result.ticks {
                    let digits = TickLabelFormatter.significantDigits(tick.label)
                    let suffix = tick.label.last.map { "KMGTPE".contains($0) } ?? false
                    #expect(!suffix || digits <= TickLabelFormatter.maxSIDigits, "\(tick.label)")
                    if !suffix, let v = Double(tick.label) {
                        #expect(abs(v - tick.value) <= max(1e-9 * abs(tick.value), 1e-6), "\(tick.label) names \(tick.value)")
                    }
                }
            }
        }
        #expect(!seen.isEmpty)
    }
}

import Testing
import TestSupport
@testable import LayoutEngine

/// Ranges, coordinate calculators and tick generators stay finite and bounded for any
/// finite input (issue 25): spans wider than the largest double, spans of a few ulps or
/// denormals, [-0, 0].
@Suite struct ExtremeRangeTests {
    static let ranges: [DoubleRange] = [
        DoubleRange(-1e308, 1e308), DoubleRange(-.greatestFiniteMagnitude, .greatestFiniteMagnitude),
        DoubleRange(1e308.nextDown, 1e308), DoubleRange(-1e308, -1e308.nextDown), DoubleRange(0, .leastNonzeroMagnitude),
        DoubleRange(-.leastNonzeroMagnitude, .leastNonzeroMagnitude), DoubleRange(-0.0, 0), DoubleRange(5, 5),
        DoubleRange(1e308, 1e308), DoubleRange(1, 1.0.nextUp), DoubleRange(.leastNormalMagnitude, 1e308),
        DoubleRange(-3, 7), DoubleRange(1e-300, 1e-299),
    ]
    static let values: [Double] = [0, -0.0, 1, -1, 1e308, -1e308, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                   .leastNonzeroMagnitude, 1e308.nextDown, 0.5, 1e-300]
    static let lengths: [(Double, Double)] = [(0, 0), (0, 1), (10, 0), (0.5, 1200.25), (700, 3), (0, 65_535)]

    @Test func linearPixelsAreFinite() {
        for r in Self.ranges {
            for (a, b) in Self.lengths {
                let c = CoordinateCalculator(range: r, pixelStart: a, pixelEnd: b)
                for v in Self.values + [r.min, r.max] {
                    let p = c.pixel(v)
                    #expect(p.isFinite && abs(p) <= Pixel.limit, "\(r) on \(a)...\(b): pixel(\(v)) = \(p)")
                }
                #expect(c.value(a).isFinite && c.value(b).isFinite && c.valuePerPixel.isFinite, "\(r)")
                let z = c.range(zoomedBy: 3, aboutPixel: (a + b) / 2), p = c.range(pannedFrom: a, to: b)
                #expect(z.isValid && p.isValid, "\(r): zoomed \(z), panned \(p)")
            }
        }
    }

    /// The ends of a range land on the ends of the axis, also when the span overflows.
    @Test func wideRangesStillMapEndToEnd() {
        let c = CoordinateCalculator(range: DoubleRange(-1e308, 1e308), pixelStart: 0, pixelEnd: 1000)
        #expect(c.pixel(-1e308) == 0 && c.pixel(1e308) == 1000 && c.pixel(0) == 500)
        #expect(c.value(500) == 0 && c.value(1000) == 1e308)
        let full = CoordinateCalculator(range: DoubleRange(-.greatestFiniteMagnitude, .greatestFiniteMagnitude), pixelStart: 100, pixelEnd: 0)
        #expect(full.pixel(0) == 50 && full.pixel(.greatestFiniteMagnitude) == 0)
    }

    @Test func logPixelsAreFinite() {
        for base in [10, 2, 1.000001, 1e6] {
            for r in Self.ranges {
                for (a, b) in Self.lengths {
                    let c = CoordinateCalculator(range: r, pixelStart: a, pixelEnd: b, logBase: base)
                    for v in Self.values {
                        let p = c.pixel(v)
                        #expect(p.isFinite, "log\(base) \(r) on \(a)...\(b): pixel(\(v)) = \(p)")
                    }
                    #expect(c.range.isValid, "log\(base) \(r) -> \(c.range)")
                }
            }
        }
    }

    /// Left-out ranges whose compression overflows (found by the frame fuzzer: an
    /// excluded range as wide as the doubles turned the axis' range around, and the
    /// line's point range `start..<end` trapped).
    @Test func discontinuousAxesStayOrdered() {
        let breaks = [AxisBreaks(ranges: [DoubleRange(-1e308, 1e308)]), AxisBreaks(ranges: [DoubleRange(0, 1e308)]),
                      AxisBreaks(ranges: [DoubleRange(-1e308, -1e300)], pattern: AxisBreaks.Pattern(period: 1e-9, stretches: [(0, 5e-10)]))]
        for b in breaks {
            for r in Self.ranges {
                let c = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 400, breaks: b)
                #expect(c.range.isValid, "\(r) with \(b.ranges): \(c.range)")
                for v in Self.values { #expect(c.pixel(v).isFinite, "\(r) with \(b.ranges): pixel(\(v))") }
            }
        }
    }

    @Test func rangeArithmeticStaysFinite() {
        for r in Self.ranges {
            for g in [0, 0.1, 10] {
                #expect(r.grownBy(lower: g, upper: g).isValid, "\(r) grown by \(g)")
            }
            #expect(r.widenedIfEmpty().isValid && r.widenedIfEmpty().span >= DoubleRange.minSpan || r.widenedIfEmpty().span.isInfinite)
            #expect(r.shifted(by: 1e308).isValid && r.scaled(by: 1e6, about: 0).isValid)
            #expect(r.stabilized(previous: nil).isValid && r.stabilized(previous: DoubleRange(0, 1)).isValid, "\(r)")
        }
        #expect(DoubleRange(-1e308, 1e308).grownBy(lower: 0.1, upper: 0.1) == DoubleRange(-1.2e308, 1.2e308))
        #expect(DoubleRange(-1e308, 1e308).grownBy(lower: 1, upper: 1) == DoubleRange(-.greatestFiniteMagnitude, .greatestFiniteMagnitude))
    }

    /// Ticks are finite, inside the range, few, and found in a bounded number of steps.
    @Test func numericTicksAreBounded() {
        for r in Self.ranges {
            for length in [1.0, 300, 4000] {
                let c = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: length)
                let t = TickGenerator.ticks(range: c.range, calculator: c, length: length, horizontal: true, policy: TickPolicy(),
                                            measure: { Size(width: Double($0.count) * 7, height: 12) })
                for tick in t?.ticks ?? [] {
                    #expect(tick.value.isFinite && tick.pixel.isFinite && c.range.contains(tick.value), "\(r): \(tick)")
                }
                #expect((t?.ticks.count ?? 0) <= TickPolicy().maxTicks)
            }
        }
        // A range as wide as the doubles still gets labelled ticks.
        let wide = CoordinateCalculator(range: DoubleRange(-1e308, 1e308), pixelStart: 0, pixelEnd: 800)
        let t = TickGenerator.ticks(range: wide.range, calculator: wide, length: 800, horizontal: true, policy: TickPolicy(),
                                    measure: { Size(width: Double($0.count) * 7, height: 12) })
        #expect((t?.ticks.count ?? 0) >= 2)
    }

    @Test func logTicksAreBounded() {
        for base in [10, 2, 1.000001] {
            for r in Self.ranges {
                let c = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 500, logBase: base)
                let t = LogTickGenerator.ticks(calculator: c, length: 500, horizontal: true, policy: TickPolicy(), base: base,
                                               format: .auto, measure: { Size(width: Double($0.count) * 7, height: 12) })
                for tick in t ?? [] { #expect(tick.pixel.isFinite && tick.value.isFinite, "log\(base) \(r): \(tick)") }
            }
        }
    }

    @Test func timeAndCategoryTicksTakeAnyRange() {
        for r in Self.ranges {
            let c = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 640)
            let t = TimeTickGenerator.ticks(range: c.range, calculator: c, length: 640, horizontal: true, policy: TickPolicy(),
                                            zone: .utc, measure: { Size(width: Double($0.count) * 7, height: 12) })
            for tick in t?.ticks ?? [] { #expect(tick.pixel.isFinite) }
            let k = CategoryTickGenerator.ticks(calculator: c, length: 640, horizontal: true, policy: TickPolicy(),
                                                categories: ["a", "b", "c"], measure: { Size(width: Double($0.count) * 7, height: 12) })
            for tick in k ?? [] { #expect(tick.pixel.isFinite && (0...2).contains(tick.value)) }
        }
        // Calendar arithmetic on instants no calendar reaches.
        for v in Self.values + [.nan] {
            let t = CivilTime(seconds: v)
            #expect((1...12).contains(t.month) && (1...31).contains(t.day), "\(v): \(t)")
            _ = TimeTickGenerator.label(v, step: TimeStep(1, .year), zone: .utc)
            _ = TimeTickGenerator.format(v, pattern: "yyyy-MM-dd HH:mm:ss.SSS EEE", zone: .utc)
        }
    }

    @Test func pixelIntegersNeverTrap() {
        for v in [Double.nan, .infinity, -.infinity, 1e308, -1e308, 0.7, -0.7, 1e12 + 5] {
            let i = Int(pixel: v)
            #expect(abs(Double(i)) <= Pixel.limit)
        }
        #expect(Int(pixel: 3.9) == 3 && Int(pixel: -3.9) == -3 && Int(pixel: .nan) == 0)
        #expect(Double.lerp(-1e308, 1e308, 0.5) == 0 && Double.lerp(-1e308, 1e308, 1) == 1e308)
        #expect(Double.fraction(0, from: -1e308, to: 1e308) == 0.5)
    }
}

import Foundation
import Testing
import TestSupport
@testable import LayoutEngine

/// The European Union's summer time as plain offsets (CET/CEST): from 01:00 UTC on the
/// last Sunday of March to 01:00 UTC on the last Sunday of October.
func centralEuropean(years: ClosedRange<Int>) -> TimeZoneOffsets {
    func lastSunday(_ year: Int, _ month: Int) -> Double {
        let last = CivilTime(year: year, month: month, day: 31)
        return Double(last.days - (last.weekday % 7)) * 86_400 + 3600
    }
    var t: [TimeZoneOffsets.Transition] = []
    for y in years {
        t.append(.init(at: lastSunday(y, 3), offset: 7200))
        t.append(.init(at: lastSunday(y, 10), offset: 3600))
    }
    return TimeZoneOffsets(initial: 3600, transitions: t)
}

@Suite struct CivilTimeTests {
    @Test func knownDates() {
        #expect(CivilTime.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilTime.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilTime.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilTime(year: 2026, month: 11, day: 23).weekday == 1)   // a Monday
        #expect(CivilTime(seconds: 1_795_444_215.25).description == "2026-11-23T14:30:15")
        #expect(CivilTime(seconds: -1).description == "1969-12-31T23:59:59")
    }

    @Test func daysRoundTrip() {
        var rng = SplitMix(seed: 1)
        for _ in 0..<5000 {
            let d = Int(rng.next() % 2_000_000) - 1_000_000
            let (y, m, day) = CivilTime.civil(fromDays: d)
            #expect(CivilTime.days(year: y, month: m, day: day) == d)
            #expect((1...12).contains(m) && (1...31).contains(day))
        }
    }

    @Test func summerTimeReadings() throws {
        let berlin = centralEuropean(years: 2026...2026)
        // 29 March 2026: 02:00 -> 03:00 local; 02:30 never happens.
        let gap = CivilTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30).seconds
        #expect(berlin.utc(fromLocal: gap) == nil)
        let after = CivilTime(year: 2026, month: 3, day: 29, hour: 3, minute: 30).seconds
        #expect(berlin.utc(fromLocal: after) == CivilTime(year: 2026, month: 3, day: 29, hour: 1, minute: 30).seconds)
        // 25 October 2026: 02:30 happens twice; the first is 00:30 UTC.
        let twice = CivilTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30).seconds
        #expect(berlin.utc(fromLocal: twice) == CivilTime(year: 2026, month: 10, day: 25, hour: 0, minute: 30).seconds)
        #expect(berlin.offset(atUTC: CivilTime(year: 2026, month: 7, day: 1).seconds) == 7200)
    }
}

@Suite struct TimeAxisTests {
    let measurer = TestFonts.measurer
    let policy = TickPolicy(targetSpacing: 90, minLabelGap: 12)

    func ticks(_ r: DoubleRange, length: Double, zone: TimeZoneOffsets = .utc) -> (step: TimeStep, ticks: [Tick])? {
        TimeTickGenerator.ticks(range: r, calculator: CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: length),
                                length: length, horizontal: true, policy: policy, zone: zone,
                                measure: { measurer.size(of: $0, style: TextStyle(size: 12)) })
    }

    @Test func labelsSayWhatTheStepResolves() {
        let t = CivilTime(year: 2026, month: 11, day: 23, hour: 14, minute: 30, second: 15, fraction: 0.25).seconds
        let midnight = CivilTime(year: 2026, month: 11, day: 23).seconds
        func label(_ v: Double, _ step: TimeStep) -> String { TimeTickGenerator.label(v, step: step, zone: .utc) }
        #expect(label(t, TimeStep(1, .year)) == "2026")
        #expect(label(t, TimeStep(3, .month)) == "Nov 2026")
        #expect(label(t, TimeStep(1, .day)) == "Nov 23")
        #expect(label(t, TimeStep(15, .minute)) == "14:30")
        #expect(label(midnight, TimeStep(6, .hour)) == "Nov 23")
        #expect(label(t, TimeStep(5, .second)) == "14:30:15")
        #expect(label(t, TimeStep(50, .millisecond)) == "30:15.250")
        // In Berlin (CET in November) the same instant reads an hour later.
        #expect(TimeTickGenerator.label(t, step: TimeStep(15, .minute), zone: centralEuropean(years: 2026...2026)) == "15:30")
    }

    @Test func datePatterns() {
        let t = CivilTime(year: 2026, month: 3, day: 9, hour: 7, minute: 5, second: 3, fraction: 0.042).seconds
        func f(_ p: String) -> String { TimeTickGenerator.format(t, pattern: p, zone: .utc) }
        #expect(f("yyyy-MM-dd HH:mm:ss.SSS") == "2026-03-09 07:05:03.042")
        #expect(f("EEE d MMM yy") == "Mon 9 Mar 26")
        #expect(f("H'h'mm") == "7h05")
        #expect(f("'Week of' d/M") == "Week of 9/3")
        // A pattern replaces the step's own labels.
        let r = DoubleRange(t, t + 3 * 86_400)
        let ticks = TimeTickGenerator.ticks(range: r, calculator: CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 900),
                                            length: 900, horizontal: true, policy: TickPolicy(targetSpacing: 90, minLabelGap: 12),
                                            zone: .utc, format: "dd/MM HH:mm", measure: { measurer.size(of: $0, style: TextStyle(size: 12)) })
        #expect(ticks?.ticks.allSatisfy { $0.label.count == 11 && $0.label.contains("/03 ") } == true)
    }

    /// Issue 31: a live minute in a dashboard cell (the demo's queue at 215x198: 60 s
    /// on 141 px) showed one label, the step nearest the target spacing being a
    /// minute. As on numeric axes, a finer step where two labels fit.
    @Test func aShortTimeAxisGetsTwoLabelsWhereTheyFit() throws {
        let start = CivilTime(year: 2026, month: 11, day: 23, hour: 14, minute: 3).seconds + 0.43
        let minute = DoubleRange(start, start + 60)
        #expect(try #require(ticks(minute, length: 141)).ticks.map(\.label) == ["14:03:30", "14:04:00"])
        // Where no finer step fits two, the one label stays (not two on each other)...
        #expect(try #require(ticks(minute, length: 60)).ticks.map(\.label) == ["14:04"])
        // ... also where two would fit only touching, side by side (6 px apart, the policy asking 12).
        let w = measurer.size(of: "14:03:30", style: TextStyle(size: 12)).width
        #expect(try #require(ticks(minute, length: 2 * (w + 6))).ticks.map(\.label) == ["14:04"])
        #expect(try #require(ticks(minute, length: 2 * (w + 13))).ticks.map(\.label) == ["14:03:30", "14:04:00"])
        // A long axis is as before.
        #expect(try #require(ticks(minute, length: 1200)).step == TimeStep(5, .second))
    }

    @Test func anHourOfData() throws {
        let start = CivilTime(year: 2026, month: 11, day: 23, hour: 14, minute: 3).seconds
        let result = try #require(self.ticks(DoubleRange(start, start + 3600), length: 1200))
        #expect(result.step == TimeStep(5, .minute))
        #expect(result.ticks.first?.label == "14:05" && result.ticks.last?.label == "15:00")
    }

    /// Over random ranges from a millisecond to a century, sizes and two time zones:
    /// ticks fall on calendar boundaries of their step in the axis' zone, stay inside
    /// the range in order, labels keep apart, and the same input gives the same output.
    @Test func ticksFallOnCalendarBoundaries() throws {
        let zones = [TimeZoneOffsets.utc, centralEuropean(years: 1965...2140)]
        var rng = SplitMix(seed: 42)
        var checked = 0
        for i in 0..<3000 {
            let zone = zones[i % 2]
            let span = pow(10, -3 + Double(rng.next() % 10_000) / 10_000 * 12.5)   // 1 ms ... ~100 years
            let start = 0.5e9 + Double(rng.next() % 3_000_000_000)  // 1985 ... 2080
            let length = 100 + Double(rng.next() % 1900)
            let r = DoubleRange(start, start + span)
            guard let (step, ticks) = self.ticks(r, length: length, zone: zone) else {
                Issue.record("no ticks for \(r) on \(length) px"); continue
            }
            #expect(ticks.map(\.value) == self.ticks(r, length: length, zone: zone)?.ticks.map(\.value))
            for (k, t) in ticks.enumerated() {
                #expect(t.value >= r.min && t.value <= r.max && t.pixel.isFinite)
                if k > 0 {
                    let p = ticks[k - 1]
                    #expect(t.value > p.value)
                    #expect(abs(t.pixel - p.pixel) >= (t.labelSize.width + p.labelSize.width) / 2,
                            "labels \(p.label) and \(t.label) overlap (\(step), \(r), \(length) px)")
                }
                let c = CivilTime(seconds: zone.local(t.value))
                let onBoundary: Bool
                switch step.unit {
                case .millisecond:
                    let ms = (c.fraction * 1000).rounded()
                    onBoundary = abs(c.fraction * 1000 - ms) < 1e-3 && Int(ms) % step.count == 0
                case .second: onBoundary = c.fraction < 1e-6 && c.second % step.count == 0
                case .minute: onBoundary = c.fraction < 1e-6 && c.second == 0 && c.minute % step.count == 0
                case .hour: onBoundary = c.fraction < 1e-6 && c.second == 0 && c.minute == 0 && c.hour % step.count == 0
                case .day: onBoundary = c.fraction == 0 && c.hour == 0 && c.minute == 0 && c.second == 0
                case .week:
                    onBoundary = c.fraction == 0 && c.hour == 0 && c.minute == 0 && c.second == 0 && c.weekday == 1
                        && ((c.days - 4) / 7) % step.count == 0
                case .month: onBoundary = c.hour == 0 && c.minute == 0 && c.day == 1 && (c.month - 1) % step.count == 0
                case .year: onBoundary = c.hour == 0 && c.day == 1 && c.month == 1 && c.year % step.count == 0
                }
                #expect(onBoundary, "\(t.label) at \(c) is not on a \(step) boundary")
            }
            // Ticks cover the range: with room for six steps there are at least two.
            if length >= 6 * policy.targetSpacing { #expect(ticks.count >= 2, "\(r) on \(length) px: \(ticks.map(\.label))") }
            checked += ticks.count
        }
        #expect(checked > 3000)
    }
}

@Suite struct NumberLabelFormatTests {
    func labels(_ indices: ClosedRange<Int64>, factor: Int, power: Int, _ format: NumberLabelFormat) -> [String] {
        TickLabelFormatter.labels(indices: Array(indices), step: TickStep(factor: factor, power: power), format: format)
    }

    @Test func suffixesFromAMillionByDefault() {
        #expect(labels(0...6, factor: 2, power: 7, .auto) == ["0", "20M", "40M", "60M", "80M", "100M", "120M"])
        #expect(labels(1...3, factor: 5, power: 5, .auto) == ["0.5M", "1.0M", "1.5M"])
        #expect(labels(1...3, factor: 2, power: 5, .auto) == ["200000", "400000", "600000"])
        #expect(labels(5...6, factor: 5, power: 8, .auto) == ["2.5G", "3.0G"])
    }

    @Test func siAndDecimalOnRequest() {
        #expect(labels(4...5, factor: 5, power: 2, .si) == ["2.0K", "2.5K"])
        #expect(labels(0...2, factor: 2, power: 2, .si) == ["0", "200", "400"])
        #expect(labels(5...6, factor: 2, power: 7, .decimal) == ["100000000", "120000000"])
        #expect(labels(-2...(-1), factor: 5, power: 6, .auto) == ["-10M", "-5M"])
    }
}

@Suite struct LogAxisTests {
    let measurer = TestFonts.measurer

    @Test func calculatorMapsPowersEvenly() {
        let c = CoordinateCalculator(range: DoubleRange(1, 1000), pixelStart: 0, pixelEnd: 300, logBase: 10)
        #expect(abs(c.pixel(1)) < 1e-9 && abs(c.pixel(10) - 100) < 1e-9 && abs(c.pixel(1000) - 300) < 1e-9)
        #expect(abs(c.value(200) - 100) < 1e-9)
        #expect(c.pixel(0).isFinite && c.pixel(-5) < -1000)    // no place on the axis, but no NaN either
        // Zooming about a pixel keeps the value under it; panning moves by pixels.
        let z = c.range(zoomedBy: 0.5, aboutPixel: 100)
        let zc = CoordinateCalculator(range: z, pixelStart: 0, pixelEnd: 300, logBase: 10)
        #expect(abs(zc.value(100) - 10) < 1e-9)
        let p = c.range(pannedFrom: 100, to: 200)
        #expect(abs(p.min - 0.1) < 1e-12 && abs(p.max - 100) < 1e-9)
        // Linear calculators zoom and pan as before.
        let l = CoordinateCalculator(range: DoubleRange(0, 10), pixelStart: 0, pixelEnd: 100)
        #expect(l.range(zoomedBy: 0.5, aboutPixel: 50) == DoubleRange(2.5, 7.5))
        #expect(l.range(pannedFrom: 10, to: 0) == DoubleRange(1, 11))
    }

    func ticks(_ r: DoubleRange, length: Double, base: Double = 10, horizontal: Bool = false) -> [Tick]? {
        let c = CoordinateCalculator(range: r, pixelStart: length, pixelEnd: 0, logBase: base)
        return LogTickGenerator.ticks(calculator: c, length: length, horizontal: horizontal,
                                      policy: horizontal ? TickPolicy(targetSpacing: 90, minLabelGap: 12) : TickPolicy(targetSpacing: 50, minLabelGap: 6),
                                      base: base, format: .auto, measure: { measurer.size(of: $0, style: TextStyle(size: 12)) })
    }

    @Test func decadesAreLabelledExactly() throws {
        #expect(try #require(ticks(DoubleRange(1, 1e6), length: 500)).map(\.label) == ["1", "10", "100", "1000", "10K", "100K", "1M"])
        #expect(try #require(ticks(DoubleRange(1e-3, 1), length: 300)).map(\.label) == ["0.001", "0.01", "0.1", "1"])
        #expect(try #require(ticks(DoubleRange(1, 1e12), length: 200)).map(\.label) == ["1", "1000", "1M", "1G", "1T"])
        #expect(try #require(ticks(DoubleRange(1, 1024), length: 500, base: 2)).map(\.label).first == "1")
        // Less than a decade: nice linear steps (suffixed from ten thousand, as the powers are).
        #expect(try #require(ticks(DoubleRange(2, 8), length: 400)).map(\.label) == ["2", "3", "4", "5", "6", "7", "8"])
        #expect(try #require(ticks(DoubleRange(20_000, 80_000), length: 400)).map(\.label).first == "20K")
        // A linear axis keeps plain digits below a million.
        #expect(TickLabelFormatter.labels(indices: [1, 2], step: TickStep(factor: 1, power: 4), format: .auto) == ["10000", "20000"])
    }

    /// Issue 31: a log axis over one power (5 to 60 has only 10) showed one label. In
    /// base 10 it takes 1, 2 and 5 times the powers, else 1 and 3 times, where two fit.
    @Test func aLogAxisOverOnePowerGetsTwoLabelsWhereTheyFit() throws {
        let r = DoubleRange(5, 60)
        #expect(try #require(ticks(r, length: 100)).map(\.label) == ["5", "10", "20", "50"])
        #expect(try #require(ticks(r, length: 200, horizontal: true)).map(\.label) == ["5", "10", "20", "50"])
        #expect(try #require(ticks(r, length: 40)).map(\.label) == ["10", "30"])   // with the tight gap
        #expect(try #require(ticks(r, length: 16)).map(\.label) == ["10"])         // none fits two: one
        // Less than a power: a finer linear step (2.2 to 3.1 on 40 px: 2.5 alone at the first step that fits).
        #expect(try #require(ticks(DoubleRange(2.2, 3.1), length: 40)).count >= 2)
        // Across several powers: powers only, every one where every 2nd leaves one (100).
        #expect(try #require(ticks(DoubleRange(5, 6000), length: 100)).map(\.label) == ["10", "100", "1000"])
        #expect(try #require(ticks(DoubleRange(1, 1e6), length: 500)).count == 7)
    }

    /// Over random positive ranges and sizes: ticks in range and in order, labels apart,
    /// and across a decade or more, every tick a whole power of the base, but where one
    /// power alone is ticked: then, in base 10, 1, 2, 3 or 5 times a power.
    @Test func ticksAreSound() throws {
        var rng = SplitMix(seed: 9)
        for i in 0..<2000 {
            let base = [10.0, 2, M_E][i % 3]
            let lo = pow(10, -6 + Double(rng.next() % 1000) / 1000 * 12)
            let hi = lo * pow(10, Double(rng.next() % 1000) / 1000 * 10 + 0.01)
            let length = 60 + Double(rng.next() % 1500)
            let horizontal = i % 2 == 0
            guard let t = ticks(DoubleRange(lo, hi), length: length, base: base, horizontal: horizontal) else { continue }
            for (a, b) in zip(t, t.dropFirst()) {
                #expect(b.value > a.value)
                let need = horizontal ? (a.labelSize.width + b.labelSize.width) / 2 : (a.labelSize.height + b.labelSize.height) / 2
                #expect(abs(b.pixel - a.pixel) >= need, "\(a.label) / \(b.label) overlap on [\(lo), \(hi)] base \(base)")
            }
            let powers = t.filter { let e = log($0.value) / log(base); return abs(e - e.rounded()) < 1e-9 }
            for tick in t {
                #expect(tick.value >= lo * (1 - 1e-9) && tick.value <= hi * (1 + 1e-9) && tick.pixel.isFinite)
                if log(hi / lo) / log(base) >= 1 + 1e-6 {
                    let e = log(tick.value) / log(base)
                    let m = tick.value / pow(10, log10(tick.value).rounded(.down))
                    let inView = Int((log(hi) / log(base) + 1e-9).rounded(.down)) - Int((log(lo) / log(base) - 1e-9).rounded(.up)) + 1
                    #expect(abs(e - e.rounded()) < 1e-9 || base == 10 && inView <= 1 && powers.count <= 1 && t.count >= 2
                            && [1.0, 2, 3, 5].contains { abs(m - $0) < 1e-9 }, "\(tick.value) is not a power of \(base)")
                }
            }
        }
    }
}

@Suite struct AxisBreaksTests {
    let day = 86_400.0

    @Test func compressedSkipsWhatIsLeftOut() throws {
        let b = AxisBreaks(ranges: [DoubleRange(10, 20), DoubleRange(15, 30)])   // merged: 10 ..< 30
        #expect(b.ranges == [DoubleRange(10, 30)])
        #expect(b.compressed(5) == 5 && b.compressed(10) == 10 && b.compressed(25) == 10 && b.compressed(40) == 20)
        #expect(b.isExcluded(10) && b.isExcluded(29.9) && !b.isExcluded(30))
        #expect(abs(b.expanded(10) - 30) < 1e-9 && abs(b.expanded(15) - 35) < 1e-9 && abs(b.expanded(5) - 5) < 1e-9)
    }

    /// Weekends (a weekly pattern) and a holiday range overlapping one: each left-out
    /// second counts once, and mapping there and back returns every included value.
    @Test func patternsAndRangesCountOnce() throws {
        let weekend = try #require(AxisBreaks.Pattern(period: 7 * day, stretches: [(2 * day, 2 * day)]))
        let saturday = CivilTime(year: 2026, month: 11, day: 21).seconds
        let holiday = DoubleRange(saturday - day, saturday + 3 * day)   // Friday to Monday night
        let b = AxisBreaks(ranges: [holiday], pattern: weekend)
        let before = saturday - 2 * day, after = saturday + 4 * day    // Thursday, Wednesday
        #expect(abs((b.compressed(after) - b.compressed(before)) - 2 * day) < 1e-6)   // Thu + Tue shown
        var rng = SplitMix(seed: 3)
        var last = -Double.infinity
        for _ in 0..<3000 {
            let v = saturday - 30 * day + Double(rng.next() % 6_000_000)
            let t = b.compressed(v)
            #expect(t.isFinite)
            if !b.isExcluded(v) { #expect(abs(b.expanded(t) - v) < 1e-5, "\(v)") }
            _ = last; last = t
        }
        // Monotone.
        var prev = b.compressed(saturday - 30 * day)
        for k in 1...5000 {
            let t = b.compressed(saturday - 30 * day + Double(k) * 1000)
            #expect(t >= prev - 1e-9)
            prev = t
        }
    }

    @Test func weekendsHaveNoTicksAndNoPixels() throws {
        let weekend = try #require(AxisBreaks.Pattern(period: 7 * day, stretches: [(2 * day, 2 * day)]))
        let breaks = AxisBreaks(pattern: weekend)
        let monday = CivilTime(year: 2026, month: 11, day: 16).seconds
        let r = DoubleRange(monday, monday + 14 * day)
        let calc = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 1000, breaks: breaks)
        // Friday midnight and the following Monday midnight meet.
        #expect(abs(calc.pixel(monday + 5 * day) - calc.pixel(monday + 7 * day)) < 1e-9)
        #expect(abs(calc.pixel(r.max) - 1000) < 1e-9)
        let ticks = try #require(TimeTickGenerator.ticks(range: r, calculator: calc, length: 1000, horizontal: true,
                                                        policy: TickPolicy(targetSpacing: 90, minLabelGap: 12), zone: .utc,
                                                        measure: { TestFonts.measurer.size(of: $0, style: TextStyle(size: 12)) }))
        #expect(ticks.ticks.count >= 5)
        for t in ticks.ticks { #expect(CivilTime(seconds: t.value).weekday <= 5, "\(t.label)") }
    }
}

import Foundation
import Testing
import TestSupport
@testable import LayoutEngine

/// Calendar rules a date-time axis leaves out: holidays, a day of every month, weekly
/// and daily stretches, and the transform they make (value <-> compressed position).
@Suite struct CalendarExclusionTests {
    let day = 86_400.0

    func date(_ y: Int, _ m: Int, _ d: Int, _ h: Double = 0) -> Double { CivilTime(year: y, month: m, day: d).seconds + h * 3600 }

    /// The days a rule leaves out over 2026, as "MM-DD" in UTC.
    func days(_ rule: CalendarExclusion, year: Int = 2026, zone: TimeZoneOffsets = .utc) throws -> [String] {
        let window = DoubleRange(date(year, 1, 1), date(year + 1, 1, 1) - 1)
        let ranges = try #require(CalendarExclusion.ranges([rule], in: window, zone: zone))
        return ranges.map { r in
            let c = CivilTime(seconds: zone.local(r.min))
            return "\(c.month < 10 ? "0" : "")\(c.month)-\(c.day < 10 ? "0" : "")\(c.day)"
        }
    }

    @Test func monthDays() throws {
        // Every month's last Friday in 2026.
        #expect(try days(.monthly(.weekday(ordinal: -1, weekday: 5), days: 1))
                == ["01-30", "02-27", "03-27", "04-24", "05-29", "06-26", "07-31", "08-28", "09-25", "10-30", "11-27", "12-25"])
        // The first Monday; the fifth Monday only in months that have one.
        #expect(try days(.monthly(.weekday(ordinal: 1, weekday: 1), days: 1)).prefix(3) == ["01-05", "02-02", "03-02"])
        #expect(try days(.monthly(.weekday(ordinal: 5, weekday: 1), days: 1)) == ["03-30", "06-29", "08-31", "11-30"])
        // The 31st skips the months without one; "last" is each month's own last day.
        #expect(try days(.monthly(.day(31), days: 1)) == ["01-31", "03-31", "05-31", "07-31", "08-31", "10-31", "12-31"])
        #expect(try days(.monthly(.last, days: 1)).prefix(3) == ["01-31", "02-28", "03-31"])
        #expect(try days(.monthly(.last, days: 1), year: 2028).prefix(2) == ["01-31", "02-29"])
    }

    @Test func yearlyAndDates() throws {
        #expect(try days(.yearly(month: 12, day: 25, days: 2)) == ["12-25"])
        #expect(try days(.yearly(month: 2, day: 29, days: 1)) == [])                 // 2026 is a common year
        #expect(try days(.yearly(month: 2, day: 29, days: 1), year: 2028) == ["02-29"])
        #expect(try days(.date(year: 2026, month: 5, day: 1, days: 1)) == ["05-01"])
        #expect(try days(.date(year: 2025, month: 5, day: 1, days: 1)) == [])
        // A holiday running into the window from before it is still listed.
        let r = try #require(CalendarExclusion.ranges([.yearly(month: 12, day: 31, days: 3)],
                                                      in: DoubleRange(date(2027, 1, 1), date(2027, 1, 10)), zone: .utc))
        #expect(r.contains(DoubleRange(date(2026, 12, 31), date(2027, 1, 3))))
        #expect(try #require(CalendarExclusion.ranges([.date(year: 2026, month: 12, day: 24, days: 3)], in: DoubleRange(date(2026, 12, 1), date(2027, 1, 1)), zone: .utc))
                == [DoubleRange(date(2026, 12, 24), date(2026, 12, 27))])
    }

    /// Local midnight to local midnight, each at its own offset: a holiday in summer
    /// time starts an hour earlier in UTC than one in winter.
    @Test func localDaysAtTheirOwnOffsets() throws {
        // Berlin-like: +1 h, +2 h from 2026-03-29 01:00 UTC to 2026-10-25 01:00 UTC.
        let zone = TimeZoneOffsets(initial: 3600, transitions: [.init(at: date(2026, 3, 29) + 3600, offset: 7200),
                                                                .init(at: date(2026, 10, 25) + 3600, offset: 3600)])
        let r = try #require(CalendarExclusion.ranges([.date(year: 2026, month: 7, day: 1, days: 1),
                                                       .date(year: 2026, month: 12, day: 1, days: 1)],
                                                      in: DoubleRange(date(2026, 1, 1), date(2027, 1, 1)), zone: zone))
        #expect(r == [DoubleRange(date(2026, 7, 1) - 7200, date(2026, 7, 2) - 7200),
                      DoubleRange(date(2026, 12, 1) - 3600, date(2026, 12, 2) - 3600)])
        // The day summer time starts is 23 hours long.
        let spring = try #require(CalendarExclusion.ranges([.date(year: 2026, month: 3, day: 29, days: 1)],
                                                           in: DoubleRange(date(2026, 3, 1), date(2026, 4, 1)), zone: zone))
        #expect(spring.count == 1 && spring[0].span == 23 * 3600)
    }

    /// An early close as local times: a date's afternoon (13:00 to 16:00), a yearly
    /// afternoon to the day's end (24 December from 13:00), each at its own offset in a
    /// New York-like zone (-4 h in July, -5 h in November and December).
    @Test func earlyClosesAtLocalTimes() throws {
        let h = 3600.0
        // -5 h, -4 h from 2027-03-14 07:00 UTC to 2027-11-07 06:00 UTC.
        let summer = TimeZoneOffsets.Transition(at: date(2027, 3, 14, 7), offset: -4 * 3600)
        let winter = TimeZoneOffsets.Transition(at: date(2027, 11, 7, 6), offset: -5 * 3600)
        let zone = TimeZoneOffsets(initial: -5 * 3600, transitions: [summer, winter])
        let july: CalendarExclusion = .date(year: 2027, month: 7, day: 2, days: 1, from: 13 * h, to: 16 * h)
        let november: CalendarExclusion = .date(year: 2027, month: 11, day: 26, days: 1, from: 13 * h, to: 16 * h)
        let eve: CalendarExclusion = .yearly(month: 12, day: 24, days: 1, from: 13 * h)
        let window = DoubleRange(date(2027, 6, 1), date(2028, 1, 1))
        let r: [DoubleRange] = try #require(CalendarExclusion.ranges([july, november, eve], in: window, zone: zone))
        let expected: [DoubleRange] = [DoubleRange(date(2027, 7, 2, 17), date(2027, 7, 2, 20)),       // 13:00-16:00 EDT
                                       DoubleRange(date(2027, 11, 26, 18), date(2027, 11, 26, 21)),   // 13:00-16:00 EST
                                       DoubleRange(date(2027, 12, 24, 18), date(2027, 12, 25, 5))]    // 13:00 EST to midnight
        #expect(r == expected)
        // Past midnight: from 22:00 on the first day to 06:00 on the second.
        let nights: CalendarExclusion = .monthly(.day(1), days: 2, from: 22 * h, to: 6 * h)
        let night: [DoubleRange] = try #require(CalendarExclusion.ranges([nights], in: DoubleRange(date(2027, 1, 1), date(2027, 2, 15)), zone: .utc))
        let nightExpected: [DoubleRange] = [DoubleRange(date(2027, 1, 1, 22), date(2027, 1, 2, 6)), DoubleRange(date(2027, 2, 1, 22), date(2027, 2, 2, 6))]
        #expect(night == nightExpected)
        // Whole days are the default times: the two spellings are one rule.
        let whole: CalendarExclusion = .date(year: 2027, month: 1, day: 1, days: 1, from: 0, to: day)
        #expect(CalendarExclusion.date(year: 2027, month: 1, day: 1, days: 1) == whole)
        // Into the hour summer time skips (02:00-03:00 local on 14 March): from its
        // change, 07:00 UTC; a stretch wholly inside it leaves nothing out.
        let into: CalendarExclusion = .date(year: 2027, month: 3, day: 14, days: 1, from: 2.5 * h, to: 4 * h)
        let inside: CalendarExclusion = .date(year: 2027, month: 3, day: 14, days: 1, from: 2 * h, to: 2.5 * h)
        let skipped: [DoubleRange] = try #require(CalendarExclusion.ranges([into, inside], in: DoubleRange(date(2027, 3, 1), date(2027, 4, 1)), zone: zone))
        #expect(skipped == [DoubleRange(date(2027, 3, 14, 7), date(2027, 3, 14, 8))])
    }

    /// New York's nights (16:00 to 09:30) and weekends across 8 March 2026, when summer
    /// time begins: listed night by night, each at its own offset, so trading opens at
    /// 09:30 local on both sides (14:30 UTC before, 13:30 UTC after).
    @Test func nightsKeepTheirLocalHoursAcrossSummerTime() throws {
        let zone = TimeZoneOffsets(initial: -5 * 3600, transitions: [.init(at: date(2026, 3, 8) + 7 * 3600, offset: -4 * 3600)])
        let rules: [CalendarExclusion] = [.weekly(start: 5 * day, length: 2 * day), .daily(start: 16 * 3600, length: 17.5 * 3600)]
        let ranges = try #require(CalendarExclusion.patternRanges(rules, in: DoubleRange(date(2026, 3, 2), date(2026, 3, 14)), zone: zone))
        let b = AxisBreaks(ranges: ranges)
        // Thursday 5 March (EST): 09:15 is night, 09:45 is open, 15:45 open, 16:15 night.
        for (utcHour, shut) in [(14.25, true), (14.75, false), (20.75, false), (21.25, true)] {
            #expect(b.isExcluded(date(2026, 3, 5, utcHour)) == shut, "5 March \(utcHour) UTC")
        }
        // Tuesday 10 March (EDT): the same local hours an hour earlier in UTC.
        for (utcHour, shut) in [(13.25, true), (13.75, false), (19.75, false), (20.25, true)] {
            #expect(b.isExcluded(date(2026, 3, 10, utcHour)) == shut, "10 March \(utcHour) UTC")
        }
        // The weekend is Saturday and Sunday local: Friday 21:00 UTC (16:00 EST) to Monday 13:30 UTC (09:30 EDT).
        #expect(b.isExcluded(date(2026, 3, 7, 12)) && b.isExcluded(date(2026, 3, 9, 13.25)) && !b.isExcluded(date(2026, 3, 9, 13.75)))
        // Each trading day takes 6.5 hours of the axis on both sides.
        #expect(abs(b.compressed(date(2026, 3, 5, 21)) - b.compressed(date(2026, 3, 5, 14.5)) - 6.5 * 3600) < 1e-6)
        #expect(abs(b.compressed(date(2026, 3, 10, 20)) - b.compressed(date(2026, 3, 10, 13.5)) - 6.5 * 3600) < 1e-6)
        // Friday's close meets Monday's open though the offset changed between them.
        #expect(b.compressed(date(2026, 3, 6, 21)) == b.compressed(date(2026, 3, 9, 13.5)))
        // The pattern at one offset (EST) misses that: Tuesday's first hour is left out.
        let one = AxisBreaks(pattern: AxisBreaks.Pattern(period: 7 * day, stretches: CalendarExclusion.weekStretches(rules, offset: -5 * 3600)))
        #expect(one.isExcluded(date(2026, 3, 10, 13.75)))
    }

    @Test func tooManyForTheWindowIsNil() {
        // A monthly rule over 10,000 years: far more than the limit.
        let r = CalendarExclusion.ranges([.monthly(.day(1), days: 1)], in: DoubleRange(date(2000, 1, 1), date(2000, 1, 1) + 1e6 * 365 * day), zone: .utc)
        #expect(r == nil)
        #expect(CalendarExclusion.ranges([.weekly(start: 0, length: day)], in: DoubleRange(0, 1e12), zone: .utc) == [])
    }

    @Test func weekStretchesMatchWeekends() throws {
        // Saturday 00:00 local is 2 days after Unix 0 (a Thursday); at +2 h two hours earlier.
        let s = CalendarExclusion.weekStretches([.weekly(start: 5 * day, length: 2 * day)], offset: 7200)
        let p = try #require(AxisBreaks.Pattern(period: 7 * day, stretches: s))
        #expect(p.stretches == [DoubleRange(2 * day - 7200, 4 * day - 7200)])
        // Nights 18:00 to 09:00: 15 hours a day, every day.
        let n = try #require(AxisBreaks.Pattern(period: 7 * day, stretches: CalendarExclusion.weekStretches([.daily(start: 18 * 3600, length: 15 * 3600)], offset: 0)))
        #expect(abs(n.length - 7 * 15 * 3600) < 1e-6)
    }

    /// Weekends, nights and a year of holidays and last Fridays: the transform is
    /// monotone, flat only across left-out stretches, and inverts every shown value.
    func tradingBreaks() throws -> AxisBreaks {
        let rules: [CalendarExclusion] = [.weekly(start: 5 * day, length: 2 * day), .daily(start: 17 * 3600, length: 16 * 3600)]
        let pattern = try #require(AxisBreaks.Pattern(period: 7 * day, stretches: CalendarExclusion.weekStretches(rules, offset: 0)))
        let ranges = try #require(CalendarExclusion.ranges([.yearly(month: 12, day: 25, days: 2), .yearly(month: 1, day: 1, days: 1),
                                                            .monthly(.weekday(ordinal: -1, weekday: 5), days: 1),
                                                            .date(year: 2026, month: 4, day: 3, days: 4)],
                                                           in: DoubleRange(date(2025, 1, 1), date(2028, 1, 1)), zone: .utc))
        #expect(ranges.count > 30)
        return AxisBreaks(ranges: ranges, pattern: pattern)
    }

    @Test func transformIsMonotoneAndInvertible() throws {
        let b = try tradingBreaks()
        var rng = SplitMix(seed: 29)
        var prev = b.compressed(date(2025, 6, 1))
        var v = date(2025, 6, 1)
        var flat = 0.0, shown = 0.0
        for _ in 0..<20_000 {
            let step = Double(rng.next() % 7200) + 1
            let next = v + step
            let t = b.compressed(next)
            #expect(t >= prev - 1e-6, "not monotone at \(CivilTime(seconds: next))")
            if t - prev < 1e-9 { flat += step } else { shown += step }
            if !b.isExcluded(next) {
                #expect(abs(b.expanded(t) - next) < 1e-4, "\(CivilTime(seconds: next))")
            } else {
                // Inside a left-out stretch the position is that of the first value shown after it.
                let after = b.expanded(t)
                #expect(after > next && !b.isExcluded(after + 1e-3), "\(CivilTime(seconds: next))")
            }
            prev = t; v = next
        }
        #expect(flat > 0 && shown > 0)
    }

    /// The binary search over ranges gives what walking every range gave.
    @Test func compressedMatchesTheWalkOverEveryRange() throws {
        let b = try tradingBreaks()
        let p = try #require(b.pattern)
        var rng = SplitMix(seed: 7)
        for _ in 0..<5000 {
            let v = date(2024, 12, 1) + Double(rng.next() % UInt64(40_000_000))
            var t = v - p.excluded(upTo: v)
            for r in b.ranges where v > r.min {
                let end = min(v, r.max)
                t -= (end - r.min) - (p.excluded(upTo: end) - p.excluded(upTo: r.min))
            }
            #expect(abs(b.compressed(v) - t) < 1e-6)
            #expect(b.isExcluded(v) == (b.ranges.contains { v >= $0.min && v < $0.max } || p.contains(v)))
        }
    }

    /// Friday's close meets the next open: over a weekend, and over a weekend with a
    /// Monday holiday (Easter Monday 2026, inside the 3-6 April holiday) to Tuesday.
    @Test func fridayToMondayHasNoGap() throws {
        let b = try tradingBreaks()
        let calc = CoordinateCalculator(range: DoubleRange(date(2026, 3, 30), date(2026, 4, 20)), pixelStart: 0, pixelEnd: 1000, breaks: b)
        // Friday 13 March 17:00 and Monday 16 March 09:00 (not a last Friday).
        #expect(abs(calc.pixel(date(2026, 3, 13) + 17 * 3600) - calc.pixel(date(2026, 3, 16) + 9 * 3600)) < 1e-9)
        // Thursday 2 April 17:00 and Tuesday 7 April 09:00.
        #expect(abs(calc.pixel(date(2026, 4, 2) + 17 * 3600) - calc.pixel(date(2026, 4, 7) + 9 * 3600)) < 1e-9)
        // An hour of trading is the same width everywhere.
        let hour1 = calc.pixel(date(2026, 4, 2) + 10 * 3600) - calc.pixel(date(2026, 4, 2) + 9 * 3600)
        let hour2 = calc.pixel(date(2026, 4, 14) + 16 * 3600) - calc.pixel(date(2026, 4, 14) + 15 * 3600)
        #expect(hour1 > 0 && abs(hour1 - hour2) < 1e-9)
        // And a pixel maps back to the value shown there.
        let v = date(2026, 4, 8) + 11 * 3600
        #expect(abs(calc.value(calc.pixel(v)) - v) < 1e-3)
    }

    /// At every zoom from a day to a year, no tick lands in a left-out stretch.
    @Test func noTickInsideAnExclusion() throws {
        let b = try tradingBreaks()
        let start = date(2026, 3, 2) + 9 * 3600
        for spanDays in [1.0, 3, 7, 20, 45, 120, 300] {
            let r = DoubleRange(start, start + spanDays * day)
            let calc = CoordinateCalculator(range: r, pixelStart: 0, pixelEnd: 900, breaks: b)
            let ticks = try #require(TimeTickGenerator.ticks(range: r, calculator: calc, length: 900, horizontal: true,
                                                            policy: TickPolicy(targetSpacing: 90, minLabelGap: 12), zone: .utc,
                                                            measure: { TestFonts.measurer.size(of: $0, style: TextStyle(size: 12)) }))
            #expect(ticks.ticks.count >= 2, "\(spanDays) days")
            for t in ticks.ticks {
                #expect(!b.isExcluded(t.value), "\(spanDays) days: \(t.label) at \(CivilTime(seconds: t.value))")
            }
        }
    }
}

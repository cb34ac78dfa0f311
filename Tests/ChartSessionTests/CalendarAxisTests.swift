import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// A time axis' `exclude` rules: weekends, nights, holidays and a day of every month
/// take no width; ticks avoid them; a drag pans through them.
@Suite struct CalendarAxisTests {
    static let day = 86_400.0
    static func date(_ y: Int, _ m: Int, _ d: Int, _ h: Double = 0) -> Double { CivilTime(year: y, month: m, day: d).seconds + h * 3600 }

    static let axis = #"{"id":"t","type":"time","exclude":["#
        + #"{"every":"week","from":"Sat 00:00","length":"2d"},{"every":"day","from":"17:00","to":"09:00"},"#
        + #"{"every":"year","on":"12-25","days":2},{"date":"2027-01-01"},{"every":"month","on":"last Fri"}]}"#

    /// December 2026 to mid January 2027, hourly in trading hours (09:00-17:00 UTC).
    static func session(_ axis: String = axis) throws -> Session {
        let xs = stride(from: date(2026, 12, 1), to: date(2027, 1, 15), by: 3600).filter { x in
            let c = CivilTime(seconds: x)
            return c.weekday <= 5 && c.hour >= 9 && c.hour < 17
        }
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":["# + axis + #"],"series":[{"id":"s","data":{"x":["#
            + xs.map { "\(Int($0))" }.joined(separator: ",") + #"],"y":["# + xs.indices.map { "\($0 % 23)" }.joined(separator: ",") + "]}}]}}]}"
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    @Test func theSpecReadsEachRule() throws {
        let s = try Self.session()
        let c = try #require(s.chart.axis("t")).config
        let expected: [CalendarExclusion] = [
            .weekly(start: 5 * Self.day, length: 2 * Self.day), .daily(start: 17 * 3600, length: 16 * 3600),
            .yearly(month: 12, day: 25, days: 2), .date(year: 2027, month: 1, day: 1, days: 1),
            .monthly(.weekday(ordinal: -1, weekday: 5), days: 1),
        ]
        #expect(c.calendarExclusions == expected)
        #expect(c.isDiscontinuous)
    }

    @Test func holidaysTakeNoWidthAndHaveNoTicks() throws {
        let s = try Self.session()
        let axis = try #require(s.layout(size: ViewerSize(width: 1000, height: 400, dpr: 1)).axis("t"))
        let calc = axis.calculator
        let b = try #require(calc.breaks)
        // Thursday 24 December's close meets Monday 28 December's open: Christmas Day
        // and the 26th, a Saturday, with the weekend.
        #expect(abs(calc.pixel(Self.date(2026, 12, 24, 17)) - calc.pixel(Self.date(2026, 12, 28, 9))) < 1e-6)
        // 31 December (Thursday) closes into Monday 4 January: New Year's Day, the weekend.
        #expect(abs(calc.pixel(Self.date(2026, 12, 31, 17)) - calc.pixel(Self.date(2027, 1, 4, 9))) < 1e-6)
        // 27 November 2026, a last Friday, and 18 December, a Friday that is not.
        #expect(b.isExcluded(Self.date(2026, 11, 27, 12)) && !b.isExcluded(Self.date(2026, 12, 18, 12)))
        // An hour of trading is as wide before the holidays as after them.
        let before = calc.pixel(Self.date(2026, 12, 2, 11)) - calc.pixel(Self.date(2026, 12, 2, 10))
        let after = calc.pixel(Self.date(2027, 1, 6, 11)) - calc.pixel(Self.date(2027, 1, 6, 10))
        #expect(before > 0 && abs(before - after) < 1e-6)
        #expect(axis.ticks.count >= 3)
        for t in axis.ticks { #expect(!b.isExcluded(t.value), "\(t.label) at \(CivilTime(seconds: t.value))") }
    }

    /// A drag of `dx` pixels from the plot's middle (down, two moves, up; 300 ms apart)
    /// on axis "t" of `session` showing `range`: the value under the pointer when it went
    /// down, the axis' calculator after, and where the pointer came up.
    static func drag(_ session: Session, from range: DoubleRange, by dx: Double) throws -> (grabbed: Double, after: CoordinateCalculator, endX: Double) {
        let chart = session.chart
        let rig = try ModifierTests.Rig([ZoomPanModifier(clipMode: .none)], chart: chart)
        chart.setRange("t", range)
        let plot = rig.plot
        let startX = plot.midX, endX = plot.midX + dx
        let grabbed = try #require(rig.session.layout(size: Fixtures.size).axis("t")).calculator.value(startX)
        rig.pointer(.down, startX, plot.midY)
        rig.pointer(.move, startX + dx / 2, plot.midY, dt: 300)
        rig.pointer(.move, endX, plot.midY, dt: 300)
        rig.pointer(.up, endX, plot.midY, dt: 300)
        return (grabbed, try #require(rig.session.layout(size: Fixtures.size).axis("t")).calculator, endX)
    }

    /// A drag moves the axis by what the pointer covered in shown time: the value under
    /// the pointer when it went down is under it when it comes up, across a holiday.
    @Test func aDragPansThroughTheExclusions() throws {
        let (grabbed, calc, endX) = try Self.drag(try Self.session(), from: DoubleRange(Self.date(2026, 12, 28), Self.date(2027, 1, 8)), by: 150)
        #expect(calc.range.min < Self.date(2026, 12, 28))
        #expect(abs(calc.value(endX) - grabbed) < 60, "\(CivilTime(seconds: calc.value(endX))) vs \(CivilTime(seconds: grabbed))")
    }

    /// A box drawn from Wednesday 23 December 12:00 to Tuesday 29 December 12:00 zooms
    /// to those instants, across Christmas and the weekend.
    @Test func aBoxZoomsToTheInstantsUnderItsCorners() throws {
        let chart = try Self.session().chart
        let rig = try ModifierTests.Rig([RubberBandXyZoomModifier(direction: .x, key: .none)], chart: chart)
        chart.setRange("t", DoubleRange(Self.date(2026, 12, 14), Self.date(2027, 1, 8)))
        let layout = rig.session.layout(size: Fixtures.size)
        let calc = try #require(layout.axis("t")).calculator
        let (a, b) = (Self.date(2026, 12, 23, 12), Self.date(2026, 12, 29, 12))
        let y = layout.plotRect.midY
        rig.pointer(.down, calc.pixel(a), y)
        rig.pointer(.move, (calc.pixel(a) + calc.pixel(b)) / 2, y)
        rig.pointer(.move, calc.pixel(b), y)
        rig.pointer(.up, calc.pixel(b), y)
        let r = try #require(rig.session.chart.axis("t")?.userRange)
        #expect(abs(r.min - a) < 60 && abs(r.max - b) < 60, "\(CivilTime(seconds: r.min)) ... \(CivilTime(seconds: r.max))")
    }

    /// The crosshair reads the instant under the pointer back through the exclusions:
    /// after Christmas, not shifted by the days left out before it.
    @Test func theCrosshairReadsTheInstantUnderThePointer() throws {
        let axis = Self.axis.replacingOccurrences(of: #"{"id":"t","type":"time","#, with: #"{"id":"t","type":"time","dateFormat":"dd/MM HH:mm","#)
        let chart = try Self.session(axis).chart
        let rig = try ModifierTests.Rig([CrosshairModifier()], chart: chart)
        chart.setRange("t", DoubleRange(Self.date(2026, 12, 14), Self.date(2027, 1, 8)))
        let layout = rig.session.layout(size: Fixtures.size)
        // Over the point of 29 December 10:00 (the crosshair takes the nearest point on screen).
        let v = Self.date(2026, 12, 29, 10), data = chart.series[0].data
        let i = data.lowerBound(v)
        #expect(data.x(i) == v)
        let x = try #require(layout.axis("t")).calculator.pixel(v), y = try #require(layout.axis("y")).calculator.pixel(data.y(i))
        rig.pointer(.move, x, y, buttons: 0)
        _ = try rig.frame(rig.first)
        let shown = rig.own(rig.first).compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t }; return nil }
        #expect(shown.contains { $0.contains("29/12 10:00") }, "\(shown)")
    }

    /// weekends and tradingHours in New York across 8 March 2026 (summer time begins):
    /// the market opens at 09:30 local on both sides.
    @Test func tradingHoursFollowSummerTime() throws {
        let axis = #"{"id":"t","type":"time","timeZone":"America/New_York","weekends":true,"tradingHours":["09:30","16:00"]}"#
        let s = try Self.session(axis)
        s.chart.setRange("t", DoubleRange(Self.date(2026, 3, 2), Self.date(2026, 3, 14)))
        let calc = try #require(s.layout(size: Fixtures.size).axis("t")).calculator
        let b = try #require(calc.breaks)
        #expect(b.isExcluded(Self.date(2026, 3, 5, 14.25)) && !b.isExcluded(Self.date(2026, 3, 5, 14.75)))   // 09:15, 09:45 EST
        #expect(b.isExcluded(Self.date(2026, 3, 10, 13.25)) && !b.isExcluded(Self.date(2026, 3, 10, 13.75)))  // 09:15, 09:45 EDT
        // Friday 16:00 EST meets Monday 09:30 EDT.
        #expect(abs(calc.pixel(Self.date(2026, 3, 6, 21)) - calc.pixel(Self.date(2026, 3, 9, 13.5))) < 1e-6)
        // Zoomed into a week without a change, the same hours from the one weekly pattern.
        s.chart.setRange("t", DoubleRange(Self.date(2026, 4, 6), Self.date(2026, 4, 7)))
        let april = try #require(s.layout(size: Fixtures.size).axis("t")?.calculator.breaks)
        #expect(april.pattern != nil && april.isExcluded(Self.date(2026, 4, 6, 13.25)) && !april.isExcluded(Self.date(2026, 4, 6, 13.75)))
    }

    /// New York with its early closes: the day after Thanksgiving 2026 (Friday 27
    /// November) 13:00 to 16:00 by date, and 24 December from 13:00 every year, with
    /// Christmas, weekends and trading hours.
    static let earlyCloses = #"{"id":"t","type":"time","timeZone":"America/New_York","weekends":true,"tradingHours":["09:30","16:00"],"#
        + #""exclude":[{"date":"2026-11-27","from":"13:00","to":"16:00"},{"every":"year","on":"12-24","from":"13:00"},{"every":"year","on":"12-25"}]}"#

    @Test func earlyClosesAreLocalTimes() throws {
        let s = try Self.session(Self.earlyCloses)
        let h = 3600.0
        let expected: [CalendarExclusion] = [
            .date(year: 2026, month: 11, day: 27, days: 1, from: 13 * h, to: 16 * h),
            .yearly(month: 12, day: 24, days: 1, from: 13 * h), .yearly(month: 12, day: 25, days: 1),
        ]
        #expect(s.chart.axis("t")?.config.calendarExclusions == expected)
        s.chart.setRange("t", DoubleRange(Self.date(2026, 11, 23), Self.date(2026, 12, 31)))
        let axis = try #require(s.layout(size: ViewerSize(width: 1000, height: 400, dpr: 1)).axis("t"))
        let calc = axis.calculator
        let b = try #require(calc.breaks)
        // Friday 27 November (EST, -5 h): 12:45 open, 13:15 shut.
        #expect(!b.isExcluded(Self.date(2026, 11, 27, 17.75)) && b.isExcluded(Self.date(2026, 11, 27, 18.25)))
        // Thursday 24 December's 13:00 close meets Monday 28 December's 09:30 open.
        #expect(abs(calc.pixel(Self.date(2026, 12, 24, 18)) - calc.pixel(Self.date(2026, 12, 28, 14.5))) < 1e-6)
        // Its three and a half hours are as wide as three and a half of Wednesday's.
        let half = calc.pixel(Self.date(2026, 12, 24, 18)) - calc.pixel(Self.date(2026, 12, 24, 14.5))
        let wednesday = calc.pixel(Self.date(2026, 12, 23, 18)) - calc.pixel(Self.date(2026, 12, 23, 14.5))
        #expect(half > 0 && abs(half - wednesday) < 1e-6)
        #expect(axis.ticks.count >= 3)
        for t in axis.ticks { #expect(!b.isExcluded(t.value), "\(t.label) at \(CivilTime(seconds: t.value))") }
        // Zoomed into the afternoon of 24 December: ticks up to 13:00 and from Monday.
        s.chart.setRange("t", DoubleRange(Self.date(2026, 12, 24, 16), Self.date(2026, 12, 28, 17)))
        let close = try #require(s.layout(size: ViewerSize(width: 1000, height: 400, dpr: 1)).axis("t"))
        #expect(close.ticks.count >= 3)
        for t in close.ticks {
            #expect(!(Self.date(2026, 12, 24, 18) ..< Self.date(2026, 12, 28, 14.5)).contains(t.value), "\(t.label) at \(CivilTime(seconds: t.value))")
        }
    }

    /// A drag across 24 December's early close keeps the instant under the pointer.
    @Test func aDragPansThroughAnEarlyClose() throws {
        let (grabbed, calc, endX) = try Self.drag(try Self.session(Self.earlyCloses), from: DoubleRange(Self.date(2026, 12, 28), Self.date(2026, 12, 31)), by: 200)
        // About five and a half trading hours back: past the three and a half of 24 December.
        #expect(calc.range.min < Self.date(2026, 12, 24, 14.5), "\(CivilTime(seconds: calc.range.min))")
        #expect(abs(calc.value(endX) - grabbed) < 60, "\(CivilTime(seconds: calc.value(endX))) vs \(CivilTime(seconds: grabbed))")
    }

    /// A PATCH adds a holiday to the live axis (through the one door, as every change),
    /// and a bad rule is refused with its path, leaving the axis as it was.
    @Test func aPatchAddsAHoliday() throws {
        let s = try Self.session(#"{"id":"t","type":"time","weekends":true}"#)
        s.chart.setRange("t", DoubleRange(Self.date(2026, 12, 21), Self.date(2027, 1, 2)))
        func shut(_ v: Double) throws -> Bool { try #require(s.layout(size: Fixtures.size).axis("t")?.calculator.breaks).isExcluded(v) }
        #expect(try !shut(Self.date(2026, 12, 24, 12)))
        try s.applyPatch(foundationJSON(#"{"chart": {"xAxes": [{"id": "t", "exclude": [{"date": "2026-12-24", "days": 2}]}]}}"#))
        #expect(s.chart.axis("t")?.config.calendarExclusions == [.date(year: 2026, month: 12, day: 24, days: 2)])
        #expect(s.chart.axis("t")?.config.excludeWeekends == true, "a patch changes the fields it gives")
        #expect(try shut(Self.date(2026, 12, 24, 12)) && shut(Self.date(2026, 12, 25, 12)) && !shut(Self.date(2026, 12, 28, 12)))
        do {
            try s.applyPatch(foundationJSON(#"{"chart": {"xAxes": [{"id": "t", "exclude": [{"every": "month", "on": "last Caturday"}]}]}}"#))
            Issue.record("accepted a bad rule")
        } catch {
            #expect(error.path == "$.chart.xAxes[0].exclude[0].on", "\(error)")
        }
        #expect(s.chart.axis("t")?.config.calendarExclusions == [.date(year: 2026, month: 12, day: 24, days: 2)])
    }

    @Test(arguments: [
        (#"{"id":"t","exclude":[{"date":"2026-12-25"}]}"#, "$.sessions[0].chart.xAxes[0].exclude", #"only applies with type "time""#),
        (#"{"id":"t","type":"time","exclude":[{"date":"2026-02-30"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].date", #"expected a date "YYYY-MM-DD""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"fortnight"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].every", #"expected "year", "month", "week" or "day""#),
        (#"{"id":"t","type":"time","exclude":[{"days":2}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0]", #"give "date" (one date) or "every" ("year", "month", "week" or "day")"#),
        (#"{"id":"t","type":"time","exclude":[{"every":"year","on":"13-01"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].on", #"expected a month and day "MM-DD""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"month","on":"6th Mon"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].on", #"expected a day ("15"), "last", or a weekday of the month ("first Mon", "2nd Tue", "last Fri")"#),
        (#"{"id":"t","type":"time","exclude":[{"every":"week","from":"Caturday 00:00","to":"Mon 00:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].from", #"expected a weekday and time, "Sat 00:00""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"day","from":"18:00","to":"25:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].to", #"expected a time of day, "HH:MM""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"day","from":"18:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0]", #"give "to" or "length", one of them"#),
        (#"{"id":"t","type":"time","exclude":[{"every":"day","from":"18:00","length":"1d"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].length", #"expected a duration shorter than a day, "15h", "90m", "8h30m""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"week","from":"Sat 00:00","days":2}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].days", #"give "from" and "to" or "length" for a weekly or daily stretch"#),
        (#"{"id":"t","type":"time","exclude":[{"date":"2026-12-25","length":"3h"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].length", #"only applies with "every": "week" or "day"; a dated rule takes "days", "from" and "to""#),
        (#"{"id":"t","type":"time","exclude":[{"date":"2026-12-24","from":"1pm"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].from", #"expected a time of day, "HH:MM""#),
        (#"{"id":"t","type":"time","exclude":[{"date":"2026-12-24","from":"22:00","to":"06:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].to", #"ends at or before it begins: "to" is on the rule's last day; past midnight, give "days": 2"#),
        (#"{"id":"t","type":"time","exclude":[{"every":"year","on":"12-24","from":"24:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].from", #"ends at or before it begins: "to" is on the rule's last day; past midnight, give "days": 2"#),
        (#"{"id":"t","type":"time","exclude":[{"every":"month","on":"last Fri","to":"24:30"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].to", #"expected a time of day, "HH:MM""#),
        (#"{"id":"t","type":"time","exclude":[{"every":"day","from":"12:00","to":"10:00"},{"every":"day","from":"10:00","to":"12:00"}]}"#, "$.sessions[0].chart.xAxes[0].exclude", "these rules leave out the whole week: leave part of it shown"),
        (#"{"id":"t","type":"time","exclude":[{"every":"day","from":"18:00","to":"09:00"}],"excludedPeriod":{"period":10,"ranges":[[0,1]]}}"#, "$.sessions[0].chart.xAxes[0].excludedPeriod", "give weekends, tradingHours and weekly or daily exclude rules, or excludedPeriod, not both"),
        (#"{"id":"t","type":"time","exclude":[{"date":"2026-12-25","colour":"red"}]}"#, "$.sessions[0].chart.xAxes[0].exclude[0].colour", "unknown field"),
    ])
    func badRules(axis: String, path: String, message: String) {
        expectRefusedXAxis(axis, path: path, message: message)
    }
}

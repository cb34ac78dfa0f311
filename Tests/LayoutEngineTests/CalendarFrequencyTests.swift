import Testing
@testable import LayoutEngine

/// Date-time ticks at a calendar frequency (ShinobiCharts' `SChartDateFrequency` as
/// `majorTickFrequency`), with an anchor.
@Suite struct CalendarFrequencyTests {
    func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0) -> Double {
        CivilTime(year: y, month: m, day: d, hour: h, minute: min).seconds
    }
    func civil(_ v: [Double], zone: TimeZoneOffsets = .utc) -> [String] {
        v.map { TimeTickGenerator.format($0, pattern: "yyyy-MM-dd HH:mm", zone: zone) }
    }

    @Test func monthlyFromAnAnchor() {
        let range = DoubleRange(utc(2026, 1, 1), utc(2026, 5, 1))
        let anchored = TimeTickGenerator.instants(in: range, every: TimeStep(1, .month), from: utc(2025, 11, 15, 9, 30), zone: .utc, limit: 100)
        #expect(civil(anchored) == ["2026-01-15 09:30", "2026-02-15 09:30", "2026-03-15 09:30", "2026-04-15 09:30"])
        // From the 31st: the last day of shorter months.
        let ends = TimeTickGenerator.instants(in: range, every: TimeStep(1, .month), from: utc(2025, 12, 31), zone: .utc, limit: 100)
        #expect(civil(ends) == ["2026-01-31 00:00", "2026-02-28 00:00", "2026-03-31 00:00", "2026-04-30 00:00"])
        // Every quarter, and no anchor: on the boundaries.
        let quarters = TimeTickGenerator.instants(in: DoubleRange(utc(2026, 1, 1), utc(2027, 1, 1)), every: TimeStep(3, .month), from: nil,
                                                  zone: .utc, limit: 100)
        #expect(civil(quarters) == ["2026-01-01 00:00", "2026-04-01 00:00", "2026-07-01 00:00", "2026-10-01 00:00", "2027-01-01 00:00"])
    }

    @Test func hoursDaysAndWeeksFromAnAnchorInAZone() {
        // UTC+2: every 6 hours from 03:00 local.
        let plus2 = TimeZoneOffsets(initial: 7200)
        let range = DoubleRange(utc(2026, 3, 10, 0), utc(2026, 3, 11, 0))
        let sixes = TimeTickGenerator.instants(in: range, every: TimeStep(6, .hour), from: utc(2026, 1, 1, 1), zone: plus2, limit: 100)
        #expect(civil(sixes, zone: plus2) == ["2026-03-10 03:00", "2026-03-10 09:00", "2026-03-10 15:00", "2026-03-10 21:00"])
        // Every other Tuesday (2026-03-03 is a Tuesday).
        let weeks = TimeTickGenerator.instants(in: DoubleRange(utc(2026, 3, 1), utc(2026, 4, 15)), every: TimeStep(2, .week),
                                               from: utc(2026, 3, 3), zone: .utc, limit: 100)
        #expect(civil(weeks) == ["2026-03-03 00:00", "2026-03-17 00:00", "2026-03-31 00:00", "2026-04-14 00:00"])
        #expect(weeks.allSatisfy { CivilTime(seconds: $0).weekday == 2 })
    }

    @Test func ticksThinOutAndTakeTheDateFormat() {
        let range = DoubleRange(utc(2026, 1, 1), utc(2027, 1, 1))
        let calc = CoordinateCalculator(range: range, pixelStart: 0, pixelEnd: 800)
        let measure = { (s: String) in Size(width: Double(s.count) * 7, height: 12) }
        // Hourly over a year with at most 10 ticks: every 900-odd hours, still from the anchor.
        let thin = TimeTickGenerator.ticks(at: TimeFrequency(TimeStep(1, .hour), anchor: utc(2026, 1, 1, 12)), range: range,
                                           calculator: calc, policy: TickPolicy(maxTicks: 10), zone: .utc, measure: measure)
        #expect(thin.count <= 10 && thin.count >= 8, "\(thin.count)")
        #expect(thin.allSatisfy { Int($0.value - utc(2026, 1, 1, 12)) % 3600 == 0 })
        let monthly = TimeTickGenerator.ticks(at: TimeFrequency(TimeStep(1, .month)), range: range, calculator: calc,
                                              policy: TickPolicy(), zone: .utc, format: "MMM", measure: measure)
        #expect(monthly.map(\.label) == ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan"])
        #expect(abs(monthly[6].pixel - calc.pixel(utc(2026, 7, 1))) < 1e-9)
    }
}

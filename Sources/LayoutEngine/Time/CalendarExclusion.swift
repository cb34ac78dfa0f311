/// A calendar rule a date-time axis leaves out (ShinobiCharts' excluded time periods
/// and `SChartRepeatedTimePeriod`), in the axis' local time: a date, a date every
/// year, a day of every month (the 15th, the last, the last Friday), a stretch of every
/// week or of every day. Plain numbers: the time zone comes in as `TimeZoneOffsets`.
///
/// A dated rule leaves out `days` local days from `from` seconds after its first
/// day's midnight to `to` seconds after its last day's midnight: whole days by default
/// (0 and 86,400), an exchange's early close with `from` at 13:00 (`to` at 16:00, or at
/// the day's end). A stretch past midnight is `days: 2` with `to` on the second day.
///
/// Weekly and daily rules repeat at a fixed length and become the axis' repeated
/// pattern (`weekStretches`, for `AxisBreaks.Pattern`) at one offset, or, where the
/// zone's offset changes, ranges listed night by night (`patternRanges`); the others
/// fall on calendar days of varying distance and become ranges, listed for a window
/// around the visible range (`ranges(_:in:...)`).
public enum CalendarExclusion: Equatable, Hashable, Sendable {
    /// Which day of a month.
    public enum MonthDay: Equatable, Hashable, Sendable {
        /// Day 1 ... 31; a month without it has none (the 31st skips April).
        case day(Int)
        /// The month's last day.
        case last
        /// The `ordinal` (1 ... 5, or -1 for the last) ISO `weekday` (1 Monday ... 7
        /// Sunday) of the month; a month without a fifth one has none.
        case weekday(ordinal: Int, weekday: Int)
    }

    /// `days` days from a date (whole days unless `from` and `to`, in seconds after
    /// the first and the last day's local midnight, trim them).
    case date(year: Int, month: Int, day: Int, days: Int, from: Double = 0, to: Double = 86_400)
    /// `days` days from a date every year (a 29 February only in leap years), trimmed
    /// as `date`'s.
    case yearly(month: Int, day: Int, days: Int, from: Double = 0, to: Double = 86_400)
    /// `days` days from a day of every month, trimmed as `date`'s.
    case monthly(MonthDay, days: Int, from: Double = 0, to: Double = 86_400)
    /// `length` seconds from `start` seconds after Monday 00:00, every week (wrapping
    /// past Sunday's end).
    case weekly(start: Double, length: Double)
    /// `length` seconds from `start` seconds after midnight, every day (wrapping past
    /// midnight).
    case daily(start: Double, length: Double)

    static let day = 86_400.0
    static let week = 7 * day

    /// Whether the rule repeats at a fixed length (a week or a day).
    public var isPattern: Bool {
        switch self {
        case .weekly, .daily: return true
        default: return false
        }
    }

    /// The weekly and daily rules as stretches of a one-week pattern counted from Unix
    /// time 0, at the zone's `offset` (seconds east of UTC). Unix time 0 was a Thursday:
    /// Monday 00:00 local is 4 days in, less the offset.
    public static func weekStretches(_ rules: [CalendarExclusion], offset: Double) -> [(start: Double, length: Double)] {
        var out: [(start: Double, length: Double)] = []
        for rule in rules {
            switch rule {
            case let .weekly(start, length):
                out.append((4 * day + start - offset, min(length, week)))
            case let .daily(start, length):
                for d in 0..<7 { out.append((Double(d) * day + start - offset, min(length, day))) }
            default: break
            }
        }
        return out
    }

    /// The local days (days since 1970-01-01) on which the dated rule starts, between
    /// days `from` and `to` inclusive (a start a few days before `from` is included
    /// when its stretch reaches into it).
    func startDays(from: Int, to: Int) -> [Int] {
        switch self {
        case let .date(y, m, d, days, _, _):
            let start = CivilTime.days(year: y, month: m, day: d)
            return start + days > from && start <= to ? [start] : []
        case let .yearly(m, d, days, _, _):
            let first = CivilTime.civil(fromDays: from - days).year, last = CivilTime.civil(fromDays: to).year
            guard first <= last else { return [] }
            return (first...last).compactMap { y in
                let start = CivilTime.days(year: y, month: m, day: d)
                // 29 February of a common year reads as 1 March: none that year.
                let back = CivilTime.civil(fromDays: start)
                guard back.month == m, back.day == d, start + days > from, start <= to else { return nil }
                return start
            }
        case let .monthly(which, days, _, _):
            let a = CivilTime.civil(fromDays: from - days), b = CivilTime.civil(fromDays: to)
            var out: [Int] = []
            var (y, m) = (a.year, a.month)
            while y < b.year || (y == b.year && m <= b.month) {
                if let start = Self.day(which, year: y, month: m), start + days > from, start <= to { out.append(start) }
                m += 1
                if m > 12 { m = 1; y += 1 }
            }
            return out
        case .weekly, .daily:
            return []
        }
    }

    /// The day (since 1970-01-01) `which` names in month `month` of `year`, if any.
    static func day(_ which: MonthDay, year: Int, month: Int) -> Int? {
        let first = CivilTime.days(year: year, month: month, day: 1)
        let next = month == 12 ? CivilTime.days(year: year + 1, month: 1, day: 1) : CivilTime.days(year: year, month: month + 1, day: 1)
        let length = next - first
        switch which {
        case let .day(d):
            return d >= 1 && d <= length ? first + d - 1 : nil
        case .last:
            return next - 1
        case let .weekday(ordinal, weekday):
            // ISO weekday of day n: ((n % 7 + 7) % 7 + 3) % 7 + 1.
            func isoWeekday(_ n: Int) -> Int { ((n % 7 + 7) % 7 + 3) % 7 + 1 }
            if ordinal > 0 {
                let firstMatch = first + (weekday - isoWeekday(first) + 7) % 7
                let d = firstMatch + 7 * (ordinal - 1)
                return d < next ? d : nil
            }
            let lastDay = next - 1
            return lastDay - (isoWeekday(lastDay) - weekday + 7) % 7
        }
    }

    var days: Int {
        switch self {
        case let .date(_, _, _, d, _, _), let .yearly(_, _, d, _, _), let .monthly(_, d, _, _): return d
        case .weekly, .daily: return 0
        }
    }

    /// A dated rule's local times: seconds after its first day's midnight where it
    /// begins, after its last day's midnight where it ends (0 and 86,400: whole days).
    public var localTimes: (from: Double, to: Double) {
        switch self {
        case let .date(_, _, _, _, f, t), let .yearly(_, _, _, f, t), let .monthly(_, _, f, t): return (f, t)
        case .weekly, .daily: return (0, Self.day)
        }
    }

    /// The stretches the weekly and daily rules leave out over `window` (Unix seconds),
    /// each at the offset `zone` has there: across a change to or from summer time the
    /// nights stay at their local hours on both sides (a one-week pattern at one offset
    /// would leave an hour of trading out on one side and show an hour of night). nil
    /// when they would be more than `limit` (then the pattern at one offset serves).
    public static func patternRanges(_ rules: [CalendarExclusion], in window: DoubleRange, zone: TimeZoneOffsets,
                                     limit: Int = 10_000) -> [DoubleRange]? {
        let repeated = rules.filter(\.isPattern)
        guard !repeated.isEmpty else { return [] }
        guard window.min.isFinite, window.max.isFinite, abs(window.min) < 1e13, abs(window.max) < 1e13 else { return nil }
        // From the day (or week) before the window: a stretch may reach into it.
        let from = Int((zone.local(window.min) / day).rounded(.down)) - 8
        let to = Int((zone.local(window.max) / day).rounded(.down)) + 1
        let weeks = Double(to - from + 1) / 7 + 2
        let estimate = repeated.reduce(0.0) { n, rule in
            if case .daily = rule { return n + weeks * 7 } else { return n + weeks }
        }
        guard estimate <= Double(limit) else { return nil }
        var out: [DoubleRange] = []
        for rule in repeated {
            switch rule {
            case let .daily(start, length):
                for d in from...to {
                    let a = Double(d) * day + start
                    out.append(DoubleRange(utc(a, zone), utc(a + min(length, day), zone)))
                }
            case let .weekly(start, length):
                // Day 4 since 1970-01-01 was a Monday.
                var monday = from - ((from - 4) % 7 + 7) % 7
                while monday <= to {
                    let a = Double(monday) * day + start
                    out.append(DoubleRange(utc(a, zone), utc(a + min(length, week), zone)))
                    monday += 7
                }
            default: break
            }
        }
        return out
    }

    /// The UTC instant of the wall-clock reading `local`: of two (the hour repeated
    /// when summer time ends) the first; for one summer time skips, the change itself.
    static func utc(_ local: Double, _ zone: TimeZoneOffsets) -> Double {
        if let u = zone.utc(fromLocal: local) { return u }
        let before = local - Double(zone.offset(atUTC: local - 2 * day))
        return zone.transitions.last { $0.at <= before && $0.at > before - day }?.at ?? before
    }

    /// The stretches the dated rules leave out over `window` (Unix seconds), each from
    /// its local start to its local end in `zone`, local midnight to local midnight
    /// unless the rule gives times (a local time that summer time skips: the first
    /// instant after it; one it repeats: the first of the two). nil when they would be more than `limit` (an axis
    /// zoomed out over centuries, where a day is far below a pixel) or the window is
    /// past the calendar's reach.
    public static func ranges(_ rules: [CalendarExclusion], in window: DoubleRange, zone: TimeZoneOffsets,
                              limit: Int = 10_000) -> [DoubleRange]? {
        let dated = rules.filter { !$0.isPattern }
        guard !dated.isEmpty else { return [] }
        guard window.min.isFinite, window.max.isFinite, abs(window.min) < 1e13, abs(window.max) < 1e13 else { return nil }
        let from = Int((zone.local(window.min) / day).rounded(.down))
        let to = Int((zone.local(window.max) / day).rounded(.down))
        // Estimate first: a monthly rule starts about every 30 days, a yearly one every 365.
        let span = Double(to - from + 1)
        let estimate = dated.reduce(0.0) { n, rule in
            switch rule {
            case .date: return n + 1
            case .yearly: return n + span / 365 + 2
            case .monthly: return n + span / 28 + 2
            case .weekly, .daily: return n
            }
        }
        guard estimate <= Double(limit) else { return nil }
        var out: [DoubleRange] = []
        for rule in dated {
            let times = rule.localTimes
            for start in rule.startDays(from: from, to: to) {
                let a = utc(Double(start) * day + times.from, zone)
                let b = utc(Double(start + rule.days - 1) * day + times.to, zone)
                if b > a { out.append(DoubleRange(a, b)) }
            }
        }
        return out
    }
}

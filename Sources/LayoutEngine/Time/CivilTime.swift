/// Calendar arithmetic for date-time axes, on plain numbers: no clock, no time zone
/// database. Instants are seconds since 1970-01-01T00:00:00Z (Unix time, as data x
/// values are); the proleptic Gregorian calendar; days counted from 1970-01-01.

/// A date and time of day as a wall clock shows it.
public struct CivilTime: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var year: Int, month: Int, day: Int
    public var hour: Int, minute: Int, second: Int
    /// Fraction of the second, 0 ..< 1.
    public var fraction: Double

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, fraction: Double = 0) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.fraction = fraction
    }

    /// The wall-clock reading `seconds` after 1970-01-01T00:00:00 (no time zone: the
    /// caller adds the offset first).
    /// Readings beyond ±`maxSeconds` (about 3 million years) read as that limit, and NaN
    /// as 0, so that the calendar arithmetic in integers never overflows.
    public init(seconds: Double) {
        let seconds = seconds.isNaN ? 0 : Swift.min(Swift.max(seconds, -CivilTime.maxSeconds), CivilTime.maxSeconds)
        let whole = seconds.rounded(.down)
        let days = Int((whole / 86_400).rounded(.down))
        let inDay = Int(whole - Double(days) * 86_400)
        (year, month, day) = CivilTime.civil(fromDays: days)
        hour = inDay / 3600; minute = inDay / 60 % 60; second = inDay % 60
        fraction = seconds - whole
    }

    /// The largest magnitude of seconds `init(seconds:)` reads as given.
    public static let maxSeconds = 1e14

    /// Seconds after 1970-01-01T00:00:00 of this reading.
    public var seconds: Double {
        Double(CivilTime.days(year: year, month: month, day: day)) * 86_400
            + Double(hour * 3600 + minute * 60 + second) + fraction
    }

    /// Days since 1970-01-01 (negative before), 0 = Thursday.
    public var days: Int { CivilTime.days(year: year, month: month, day: day) }

    /// ISO weekday: 1 = Monday ... 7 = Sunday.
    public var weekday: Int { ((days % 7 + 7) % 7 + 3) % 7 + 1 }

    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
    }

    /// Days since 1970-01-01 of a Gregorian date (H. Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The Gregorian date `days` after 1970-01-01 (`civil_from_days`).
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// A time zone's offsets from UTC over some span, handed in as a value (whoever owns
/// the time zone database reads it): the offset before the first transition, and each
/// transition with the offset from then on.
public struct TimeZoneOffsets: Equatable, Hashable, Sendable {
    public struct Transition: Equatable, Hashable, Sendable {
        /// The UTC instant (Unix seconds) from which `offset` applies.
        public var at: Double
        /// Seconds east of UTC.
        public var offset: Int
        public init(at: Double, offset: Int) { self.at = at; self.offset = offset }
    }

    public var initial: Int
    /// Ascending by `at`.
    public var transitions: [Transition]

    public init(initial: Int, transitions: [Transition] = []) {
        self.initial = initial
        self.transitions = transitions.sorted { $0.at < $1.at }
    }

    public static let utc = TimeZoneOffsets(initial: 0)

    /// Seconds east of UTC at the UTC instant `t`.
    public func offset(atUTC t: Double) -> Int {
        var a = 0, b = transitions.count
        while a < b {
            let m = (a + b) / 2
            if transitions[m].at <= t { a = m + 1 } else { b = m }
        }
        return a == 0 ? initial : transitions[a - 1].offset
    }

    /// The wall-clock reading (as seconds after 1970-01-01T00:00:00) at UTC instant `t`.
    public func local(_ t: Double) -> Double { t + Double(offset(atUTC: t)) }

    /// The UTC instant whose wall-clock reading is `local`; nil when that reading does
    /// not exist (skipped by a change to summer time). Of two instants with the same
    /// reading (the repeated hour when summer time ends) the earlier is returned.
    public func utc(fromLocal local: Double) -> Double? {
        var candidates: [Double] = []
        let near = offset(atUTC: local - Double(offset(atUTC: local)))
        for o in Set([near, offset(atUTC: local - 86_400), offset(atUTC: local + 86_400)]) {
            let u = local - Double(o)
            if offset(atUTC: u) == o { candidates.append(u) }
        }
        return candidates.min()
    }
}

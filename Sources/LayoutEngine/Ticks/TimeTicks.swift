/// Calendar units a date-time axis steps by.
public enum TimeUnit: Int, Comparable, Sendable, CaseIterable {
    case millisecond, second, minute, hour, day, week, month, year

    /// Length in seconds (months and years: their Gregorian average).
    public var seconds: Double {
        switch self {
        case .millisecond: return 0.001
        case .second: return 1
        case .minute: return 60
        case .hour: return 3600
        case .day: return 86_400
        case .week: return 604_800
        case .month: return 2_629_746
        case .year: return 31_556_952
        }
    }

    public static func < (a: TimeUnit, b: TimeUnit) -> Bool { a.rawValue < b.rawValue }
}

/// A step between date-time ticks: `count` calendar units, ticks falling on the unit's
/// boundaries in the axis' time zone (midnight, the 1st of the month, 1 January) at
/// multiples of `count` (every 6 hours from midnight, every quarter from January).
public struct TimeStep: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var unit: TimeUnit
    public var count: Int

    public init(_ count: Int, _ unit: TimeUnit) { self.unit = unit; self.count = count }

    public var approximateSeconds: Double { Double(count) * unit.seconds }

    public var description: String { "\(count) \(unit)" }

    /// Every step a date-time axis may take, finest first.
    public static let ladder: [TimeStep] = {
        var steps: [TimeStep] = []
        for c in [1, 2, 5, 10, 20, 50, 100, 200, 500] { steps.append(TimeStep(c, .millisecond)) }
        for c in [1, 2, 5, 10, 15, 30] { steps.append(TimeStep(c, .second)) }
        for c in [1, 2, 5, 10, 15, 30] { steps.append(TimeStep(c, .minute)) }
        for c in [1, 2, 3, 6, 12] { steps.append(TimeStep(c, .hour)) }
        for c in [1, 2] { steps.append(TimeStep(c, .day)) }
        for c in [1, 2] { steps.append(TimeStep(c, .week)) }
        for c in [1, 2, 3, 6] { steps.append(TimeStep(c, .month)) }
        for c in [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000] { steps.append(TimeStep(c, .year)) }
        return steps
    }()
}

/// Ticks every `step` of calendar time (one month, 6 hours, 2 weeks) on a date-time
/// axis (ShinobiCharts' `SChartDateFrequency`), counted in the axis' time zone from
/// `anchor` (a Unix time: every month on the 15th at 09:30, every 6 hours from 03:00)
/// or, without one, on the unit's boundaries (the 1st of the month, midnight), as the
/// automatic ticks fall. A month from the 31st falls on the last day of shorter months.
public struct TimeFrequency: Equatable, Hashable, Sendable {
    public var step: TimeStep
    public var anchor: Double?
    public init(_ step: TimeStep, anchor: Double? = nil) { self.step = step; self.anchor = anchor }
}

/// Ticks and labels for a date-time axis (values: Unix seconds).
public enum TimeTickGenerator {
    /// Major ticks at a calendar frequency: every `frequency.step`, thinned to every
    /// 2nd, 3rd ... one past `policy.maxTicks` (as numeric frequencies are), labelled
    /// by `format` or as much of the date as the step resolves.
    public static func ticks(at frequency: TimeFrequency, range: DoubleRange, calculator: CoordinateCalculator,
                             policy: TickPolicy, zone: TimeZoneOffsets, format: String? = nil, measure: (String) -> Size) -> [Tick] {
        let r = range.widenedIfEmpty()
        guard r.isValid, r.min > -1e13, r.max < 1e13 else { return [] }
        let step = thinned(frequency.step, over: r, most: policy.maxTicks)
        var values = instants(in: r, every: step, from: frequency.anchor, zone: zone, limit: policy.maxTicks + 2)
        if let breaks = calculator.breaks { values.removeAll { breaks.isExcluded($0) } }
        return values.map { v in
            let label = format.map { Self.format(v, pattern: $0, zone: zone) } ?? self.label(v, step: step, zone: zone)
            return Tick(value: v, pixel: calculator.pixel(v), label: label, labelSize: measure(label))
        }
    }

    /// `step` made `k` times longer, the least `k` that leaves at most `most` steps over
    /// `range`.
    static func thinned(_ step: TimeStep, over range: DoubleRange, most: Int) -> TimeStep {
        let n = range.span / max(step.approximateSeconds, 1e-9)
        // (Months and years vary in length: a little room.)
        let every = max(1, (n * 1.05 / Double(max(1, most))).rounded(.up))
        guard every > 1 else { return step }
        return TimeStep(Int(min(Double(step.count) * every, 1e9)), step.unit)
    }

    /// The UTC instants in `range` every `step` of local calendar time in `zone` from
    /// `anchor`; without an anchor, the boundaries of `step` (`instants(in:step:zone:limit:)`).
    public static func instants(in range: DoubleRange, every step: TimeStep, from anchor: Double?, zone: TimeZoneOffsets,
                                limit: Int) -> [Double] {
        guard let anchor, anchor.isFinite else { return instants(in: range, step: step, zone: zone, limit: limit) }
        var out: [Double] = []
        let a = zone.local(anchor), lo = zone.local(range.min), hi = zone.local(range.max)
        func add(_ local: Double) -> Bool {
            // A reading summer time skips has no tick; one repeated has its first instant.
            guard let u = zone.utc(fromLocal: local) ?? (step.unit >= .day ? zone.utc(fromLocal: local + 3600) : nil) else { return true }
            if u >= range.min, u <= range.max, out.last.map({ u > $0 }) ?? true { out.append(u) }
            return out.count <= limit
        }
        switch step.unit {
        case .millisecond, .second, .minute, .hour, .day, .week:
            let s = step.unit == .millisecond ? Double(step.count) / 1000 : step.approximateSeconds
            var k = ((lo - a) / s).rounded(.down) - 1
            let last = ((hi - a) / s).rounded(.up) + 1
            guard last - k < Double(limit) * 4 + 8 else { return out }
            while k <= last {
                if !add(a + k * s) { break }
                k += 1
            }
        case .month, .year:
            let months = step.unit == .year ? 12 * step.count : step.count
            let c = CivilTime(seconds: a)
            let timeOfDay = a - Double(c.days) * 86_400
            let base = c.year * 12 + c.month - 1
            func monthIndex(_ local: Double) -> Int { let t = CivilTime(seconds: local); return t.year * 12 + t.month - 1 }
            var k = Int((Double(monthIndex(lo) - base) / Double(months)).rounded(.down)) - 1
            let last = Int((Double(monthIndex(hi) - base) / Double(months)).rounded(.up)) + 1
            guard last - k < limit * 4 + 8 else { return out }
            while k <= last {
                let m = base + k * months
                let year = Int((Double(m) / 12).rounded(.down)), month = m - year * 12 + 1
                let next = month == 12 ? CivilTime.days(year: year + 1, month: 1, day: 1) : CivilTime.days(year: year, month: month + 1, day: 1)
                let length = next - CivilTime.days(year: year, month: month, day: 1)
                let day = min(c.day, length)
                if !add(Double(CivilTime.days(year: year, month: month, day: day)) * 86_400 + timeOfDay) { break }
                k += 1
            }
        }
        return out
    }

    /// The finest step of the ladder whose ticks are at least `policy.targetSpacing`
    /// apart and whose labels keep `policy.minLabelGap` between them. Where that step
    /// leaves one label (or none: a minute of data in a dashboard cell ticked every
    /// minute), a finer step whose two or more labels fit, with the policy's gap, else
    /// (along a side) with `TickGenerator.tightLabelGap` (`TickGenerator.fallbackGaps`);
    /// the one label where none fits two.
    public static func ticks(
        range: DoubleRange, calculator: CoordinateCalculator, length: Double, horizontal: Bool,
        policy: TickPolicy, zone: TimeZoneOffsets, format: String? = nil, measure: (String) -> Size
    ) -> (step: TimeStep, ticks: [Tick])? {
        let r = range.widenedIfEmpty()
        guard r.isValid, length > 0, r.min > -1e13, r.max < 1e13 else { return nil }
        // (On a discontinuous axis only the seconds shown take pixels.)
        let pixelsPerSecond = length / max(calculator.transformed(r.max) - calculator.transformed(r.min), 1e-300)
        let first = TimeStep.ladder.firstIndex { $0.approximateSeconds * pixelsPerSecond >= policy.targetSpacing }
            ?? TimeStep.ladder.count - 1
        /// The ticks of `step` and the least distance between two (nil: too many ticks).
        func attempt(_ step: TimeStep) -> (ticks: [Tick], closest: Double, extent: Double)? {
            // Months vary in length: allow a little more than the average count.
            guard r.span / step.approximateSeconds <= Double(policy.maxTicks) * 1.2 else { return nil }
            var values = instants(in: r, step: step, zone: zone, limit: policy.maxTicks + 1)
            if let breaks = calculator.breaks {
                if step.unit >= .day {
                    // A day, week, month or year starting in a stretch left out (a
                    // weekend, the night before trading opens) is ticked where it shows.
                    var moved: [Double] = []
                    for v in values {
                        let w = breaks.isExcluded(v) ? breaks.expanded(breaks.compressed(v)) : v
                        if w <= r.max, moved.last.map({ w > $0 }) ?? true { moved.append(w) }
                    }
                    values = moved
                } else {
                    values.removeAll { breaks.isExcluded($0) }
                }
            }
            guard values.count <= policy.maxTicks else { return nil }
            var ticks: [Tick] = []
            var extent = 0.0
            var previousDay: Int? = nil
            for v in values {
                var label = format.map { Self.format(v, pattern: $0, zone: zone) } ?? self.label(v, step: step, zone: zone)
                // On a discontinuous axis a day's first tick may not be at midnight (the
                // night is left out): it still says which day begins; so does the axis'
                // first tick (a time alone would not say which day it is).
                let day = CivilTime(seconds: zone.local(v)).days
                if format == nil, calculator.breaks != nil, step.unit < .day, previousDay.map({ $0 != day }) ?? true {
                    let t = CivilTime(seconds: zone.local(v))
                    label = monthNames[t.month - 1] + " \(t.day)"
                }
                previousDay = day
                let size = measure(label)
                extent = max(extent, horizontal ? size.width : size.height)
                ticks.append(Tick(value: v, pixel: calculator.pixel(v), label: label, labelSize: size))
            }
            var closest = Double.infinity
            for i in ticks.indices.dropFirst() { closest = min(closest, abs(ticks[i].pixel - ticks[i - 1].pixel)) }
            return (ticks, closest, extent)
        }
        for (index, step) in TimeStep.ladder.enumerated().dropFirst(first) {
            guard let made = attempt(step) else { continue }
            if made.ticks.count >= 2 {
                if made.closest >= made.extent + policy.minLabelGap { return (step, made.ticks) }
                continue
            }
            // One tick or none: a finer step with two or more whose labels still fit.
            for gap in TickGenerator.fallbackGaps(policy, horizontal: horizontal) {
                for finer in TimeStep.ladder[..<index].reversed() {
                    guard let more = attempt(finer), more.ticks.count < 2 || more.closest >= more.extent + gap else { break }
                    if more.ticks.count >= 2 { return (finer, more.ticks) }
                }
            }
            return (step, made.ticks)
        }
        return nil
    }

    /// The UTC instants in `range` where local time in `zone` is on a boundary of `step`.
    public static func instants(in range: DoubleRange, step: TimeStep, zone: TimeZoneOffsets, limit: Int) -> [Double] {
        var out: [Double] = []
        func add(_ local: Double, exact: Bool) -> Bool {
            guard let u = zone.utc(fromLocal: local) ?? (exact ? nil : zone.utc(fromLocal: local + 3600)) else { return true }
            if u > range.max { return false }
            if u >= range.min, out.last.map({ u > $0 }) ?? true { out.append(u) }
            return out.count <= limit
        }
        let lo = zone.local(range.min) - 86_400, hi = zone.local(range.max) + 86_400
        switch step.unit {
        case .millisecond, .second, .minute, .hour:
            // Multiples of the step in local time (a reading skipped by summer time has
            // no tick; one repeated when it ends has its first instant).
            let s = step.approximateSeconds
            var k = ((zone.local(range.min) - s) / s).rounded(.down)
            let end = zone.local(range.max) + s
            while k * s <= end {
                let local = step.unit == .millisecond ? k * Double(step.count) / 1000 : k * s
                if !add(local, exact: true) { break }
                k += 1
            }
        case .day, .week:
            // Midnights: every `count` days counted from 1970-01-01, weeks from Monday
            // 5 January 1970.
            let per = step.unit == .week ? 7 * step.count : step.count
            let origin = step.unit == .week ? 4 : 0
            var d = Int((lo / 86_400).rounded(.down)) - origin
            d -= ((d % per) + per) % per
            d += origin
            while Double(d) * 86_400 <= hi {
                if !add(Double(d) * 86_400, exact: false) { break }
                d += per
            }
        case .month, .year:
            let months = step.unit == .year ? 12 * step.count : step.count
            let start = CivilTime(seconds: lo)
            var m = start.year * 12 + (start.month - 1)
            m -= ((m % months) + months) % months
            while true {
                let local = Double(CivilTime.days(year: Int((Double(m) / 12).rounded(.down)), month: ((m % 12) + 12) % 12 + 1, day: 1)) * 86_400
                if local > hi || !add(local, exact: false) { break }
                m += months
            }
        }
        return out
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `value` written by a date pattern, in the zone: `yyyy` `yy` year, `MMM` month
    /// name, `MM` `M` month, `dd` `d` day, `EEE` weekday, `HH` `H` hour, `mm` minute,
    /// `ss` second, `SSS` millisecond; text in single quotes and any other character
    /// as it is (`"yyyy-MM-dd HH:mm"`, `"EEE d MMM"`, `"HH'h'"`).
    public static func format(_ value: Double, pattern: String, zone: TimeZoneOffsets) -> String {
        let t = CivilTime(seconds: zone.local(value))
        func pad(_ v: Int, _ n: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, n - s.count)) + s }
        let chars = Array(pattern)
        var out = "", i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                i += 1
                while i < chars.count, chars[i] != "'" { out.append(chars[i]); i += 1 }
                i += 1
                continue
            }
            var n = 1
            while i + n < chars.count, chars[i + n] == c { n += 1 }
            switch (c, n) {
            case ("y", 2): out += pad(((t.year % 100) + 100) % 100, 2)
            case ("y", _): out += pad(t.year, 4)
            case ("M", 3...): out += monthNames[t.month - 1]
            case ("M", 2): out += pad(t.month, 2)
            case ("M", _): out += String(t.month)
            case ("d", 2...): out += pad(t.day, 2)
            case ("d", _): out += String(t.day)
            case ("E", _): out += weekdayNames[t.weekday - 1]
            case ("H", 2...): out += pad(t.hour, 2)
            case ("H", _): out += String(t.hour)
            case ("m", _): out += pad(t.minute, 2)
            case ("s", _): out += pad(t.second, 2)
            case ("S", _): out += pad(min(999, Int((t.fraction * 1000).rounded())), 3)
            default: out += String(repeating: c, count: n)
            }
            i += n
        }
        return out
    }

    /// The label of a tick at `value` on an axis stepping by `step`: as much of the
    /// date and time as the step resolves ("2026", "Nov 2026", "Nov 23", "14:30",
    /// "14:30:15", "30:15.250"); a tick of a sub-day step at midnight shows the date.
    public static func label(_ value: Double, step: TimeStep, zone: TimeZoneOffsets) -> String {
        let t = CivilTime(seconds: zone.local(value))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let date = monthNames[t.month - 1] + " \(t.day)"
        switch step.unit {
        case .year: return "\(t.year)"
        case .month: return monthNames[t.month - 1] + " \(t.year)"
        case .week, .day: return date
        case .hour, .minute:
            return t.hour == 0 && t.minute == 0 ? date : "\(two(t.hour)):\(two(t.minute))"
        case .second:
            return t.hour == 0 && t.minute == 0 && t.second == 0 ? date : "\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
        case .millisecond:
            let ms = min(999, Int((t.fraction * 1000).rounded()))
            let frac = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
            return "\(two(t.minute)):\(two(t.second)).\(frac)"
        }
    }
}

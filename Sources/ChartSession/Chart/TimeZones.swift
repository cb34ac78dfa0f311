import Foundation
import LayoutEngine

/// The time zone database (Foundation's, read from the system) turned into the plain
/// offsets `LayoutEngine` works with.
public enum TimeZones {
    /// Whether `identifier` names a time zone this machine knows.
    public static func isKnown(_ identifier: String) -> Bool { TimeZone(identifier: identifier) != nil }

    /// The offsets of `identifier` over `range` (Unix seconds) and a day either side,
    /// at most `limit` transitions (a range of centuries in a zone with summer time).
    public static func offsets(_ identifier: String, over range: DoubleRange, limit: Int = 1000) -> TimeZoneOffsets {
        guard let zone = TimeZone(identifier: identifier), range.min.isFinite, range.max.isFinite else { return .utc }
        let from = max(range.min, -1e12) - 86_400 * 2, to = min(range.max, 1e12) + 86_400 * 2
        var transitions: [TimeZoneOffsets.Transition] = []
        var t = Date(timeIntervalSince1970: from)
        while transitions.count < limit, let next = zone.nextDaylightSavingTimeTransition(after: t),
              next.timeIntervalSince1970 <= to {
            transitions.append(.init(at: next.timeIntervalSince1970, offset: zone.secondsFromGMT(for: next)))
            t = next
        }
        return TimeZoneOffsets(initial: zone.secondsFromGMT(for: Date(timeIntervalSince1970: from)), transitions: transitions)
    }
}

/// A closed numeric interval `[min, max]` on a data axis.
///
/// A range is *valid* when both ends are finite and `min <= max`. A zero-width range
/// (one data point) is valid; layout widens it before use (see `widenedIfEmpty`).
public struct DoubleRange: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var min: Double
    public var max: Double

    public init(_ min: Double, _ max: Double) { self.min = min; self.max = max }

    public var span: Double { max - min }
    public var isValid: Bool { min.isFinite && max.isFinite && min <= max }
    public var isEmpty: Bool { !(span > 0) }

    public func contains(_ v: Double) -> Bool { v >= min && v <= max }

    public func union(_ other: DoubleRange) -> DoubleRange {
        DoubleRange(Swift.min(min, other.min), Swift.max(max, other.max))
    }

    /// Grows the range by fractions of its span on each side (SciChart's `GrowBy`).
    public func grownBy(lower: Double, upper: Double) -> DoubleRange {
        DoubleRange(min - span * lower, max + span * upper)
    }

    /// A zero-width range becomes one of width 1 centred on the value (or ±10 % of a
    /// large value), so that coordinates and ticks are defined.
    public func widenedIfEmpty() -> DoubleRange {
        guard isEmpty else { return self }
        let half = Swift.max(abs(min) * 0.1, 0.5)
        return DoubleRange(min - half, max + half)
    }

    /// Shifts both ends by `delta`.
    public func shifted(by delta: Double) -> DoubleRange { DoubleRange(min + delta, max + delta) }

    /// Scales the range about `anchor` by `factor` (< 1 zooms in, > 1 zooms out).
    public func scaled(by factor: Double, about anchor: Double) -> DoubleRange {
        DoubleRange(anchor - (anchor - min) * factor, anchor + (max - anchor) * factor)
    }

    public var description: String { "[\(min), \(max)]" }
}

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

extension DoubleRange {
    /// An automatic range that does not move with every new value, so that a live
    /// chart's axes (and everything drawn against them) stay still between frames.
    ///
    /// `self` is the range the data asks for. `previous`, the range shown so far, is
    /// kept while it still holds the data and is at most `slack` times wider than it.
    /// Otherwise the data range is rounded outward to a quantum of 1/20 to 1/200 of
    /// its span, with 5 % headroom on a side that outgrew `previous`, so that a trend
    /// moves the range now and then rather than on every tick.
    public func stabilized(previous: DoubleRange?, slack: Double = 1.3) -> DoubleRange {
        guard isValid, !isEmpty, span.isFinite else { return self }
        if let p = previous, p.isValid, p.min <= min, p.max >= max, p.span <= span * slack { return p }
        var lo = min, hi = max
        if let p = previous, p.isValid {
            if hi > p.max { hi += span * 0.05 }
            if lo < p.min { lo -= span * 0.05 }
        }
        let q = pow10Signed(Int((span / 20).log10Value))
        let r = DoubleRange((lo / q).rounded(.down) * q, (hi / q).rounded(.up) * q)
        return r.isValid && r.min <= lo && r.max >= hi ? r : DoubleRange(lo, hi)
    }
}

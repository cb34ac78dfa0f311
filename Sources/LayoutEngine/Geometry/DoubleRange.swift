/// A closed numeric interval `[min, max]` on a data axis.
///
/// A range is *valid* when both ends are finite and `min <= max`. A zero-width range
/// (one data point) is valid; layout widens it before use (see `widenedIfEmpty`).
public struct DoubleRange: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var min: Double
    public var max: Double

    public init(_ min: Double, _ max: Double) { self.min = min; self.max = max }

    /// `max - min`: infinite when the range is wider than the largest double
    /// (-1e308 to 1e308). Arithmetic that must stay finite uses `halfSpan`.
    public var span: Double { max - min }
    /// Half the span, finite for any finite ends.
    public var halfSpan: Double { max * 0.5 - min * 0.5 }
    public var isValid: Bool { min.isFinite && max.isFinite && min <= max }
    public var isEmpty: Bool { !(span > 0) }

    public func contains(_ v: Double) -> Bool { v >= min && v <= max }

    public func union(_ other: DoubleRange) -> DoubleRange {
        DoubleRange(Swift.min(min, other.min), Swift.max(max, other.max))
    }

    /// Grows the range by fractions of its span on each side (SciChart's `GrowBy`).
    /// Finite for finite ends: the ends stop at the largest doubles.
    public func grownBy(lower: Double, upper: Double) -> DoubleRange {
        let half = halfSpan
        return DoubleRange((min - half * (2 * lower)).clampedFinite, (max + half * (2 * upper)).clampedFinite)
    }

    /// A zero-width range becomes one of width 1 centred on the value (or ±10 % of a
    /// large value), so that coordinates and ticks are defined.
    /// A span too small for pixels (below `minSpan`: denormals, [-0, 0]) counts as empty.
    public func widenedIfEmpty() -> DoubleRange {
        guard isEmpty || span < DoubleRange.minSpan else { return self }
        let half = Swift.max(abs(min) * 0.1, 0.5)
        return DoubleRange((min - half).clampedFinite, (max + half).clampedFinite)
    }

    /// The narrowest span an axis shows: pixels per unit stay finite on any canvas.
    public static let minSpan = 1e-290

    /// Shifts both ends by `delta` (stopping at the largest doubles).
    public func shifted(by delta: Double) -> DoubleRange { DoubleRange((min + delta).clampedFinite, (max + delta).clampedFinite) }

    /// Scales the range about `anchor` by `factor` (< 1 zooms in, > 1 zooms out),
    /// stopping at the largest doubles.
    public func scaled(by factor: Double, about anchor: Double) -> DoubleRange {
        DoubleRange((anchor - (anchor - min) * factor).clampedFinite, (anchor + (max - anchor) * factor).clampedFinite)
    }

    /// Ends past the largest doubles brought back to them; nil when an end is NaN.
    public var finite: DoubleRange? {
        guard !min.isNaN, !max.isNaN else { return nil }
        return DoubleRange(min.clampedFinite, max.clampedFinite)
    }

    public var description: String { "[\(min), \(max)]" }
}

extension DoubleRange {
    /// An automatic range that does not move with every new value, so that a live
    /// chart's axes (and everything drawn against them) stay still between frames.
    ///
    /// `self` is the range the data asks for. `previous`, the range shown so far, is
    /// kept while it still holds the data and leaves at most `(slack - 1) / 2` of its
    /// span free on either side (so it is at most `slack` times as wide, and the slack is
    /// never all on one side: a range a spike widened lets go of it once the spike has
    /// scrolled out, instead of keeping the data in two thirds of the plot).
    /// Otherwise the data range is rounded outward to a quantum of 1/20 to 1/200 of
    /// its span, with 5 % headroom on a side that outgrew `previous`, so that a trend
    /// moves the range now and then rather than on every tick.
    public func stabilized(previous: DoubleRange?, slack: Double = 1.3) -> DoubleRange {
        guard isValid, !isEmpty, span.isFinite, span >= DoubleRange.minSpan else { return self }
        let free = span * (slack - 1) / 2
        if let p = previous, p.isValid, p.min <= min, p.max >= max, min - p.min <= free, p.max - max <= free { return p }
        var lo = min, hi = max
        if let p = previous, p.isValid {
            if hi > p.max { hi = (hi + span * 0.05).clampedFinite }
            if lo < p.min { lo = (lo - span * 0.05).clampedFinite }
        }
        let q = pow10Signed(Int((span / 20).log10Value))
        let r = DoubleRange((lo / q).rounded(.down) * q, (hi / q).rounded(.up) * q)
        return r.isValid && r.min <= lo && r.max >= hi ? r : DoubleRange(lo, hi)
    }
}

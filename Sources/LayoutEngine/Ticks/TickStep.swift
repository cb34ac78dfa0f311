import Foundation

/// A "nice" distance between ticks: `factor x 10^power` with factor 1, 2 or 5.
///
/// Tick values are produced as `index * step` from an integer index, and fractional
/// steps divide by a power of ten instead of multiplying by one, so `3 * 0.1` gives
/// `0.3`, never `0.30000000000000004` (the discipline of d3-array's `ticks.js`).
/// Labels are formatted from the integers alone, so they are exact too.
public struct TickStep: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let factor: Int
    public let power: Int

    public init(factor: Int, power: Int) {
        precondition(factor == 1 || factor == 2 || factor == 5, "factor must be 1, 2 or 5")
        self.factor = factor
        self.power = power
    }

    /// The nice step nearest to `rawStep` in the geometric sense (thresholds at
    /// sqrt(2), sqrt(10), sqrt(50)). `nil` for zero, negative or non-finite input.
    public init?(near rawStep: Double) {
        guard rawStep.isFinite, rawStep > 0 else { return nil }
        var power = Int((rawStep.log10Value).rounded(.down))
        let error = rawStep / pow10Signed(power)
        var factor: Int
        if error >= 50.0.squareRoot() { factor = 1; power += 1 }
        else if error >= 10.0.squareRoot() { factor = 5 }
        else if error >= 2.0.squareRoot() { factor = 2 }
        else { factor = 1 }
        // (Up to 5e307, the largest nice step a double holds.)
        guard power > -300, power < 308 else { return nil }
        self.init(factor: factor, power: power)
    }

    public var value: Double {
        power >= 0 ? Double(factor) * pow10(power) : Double(factor) / pow10(-power)
    }

    /// The next larger nice step: 1 -> 2 -> 5 -> 10.
    public var coarser: TickStep {
        switch factor {
        case 1: return TickStep(factor: 2, power: power)
        case 2: return TickStep(factor: 5, power: power)
        default: return TickStep(factor: 1, power: power + 1)
        }
    }

    /// The next smaller nice step: 10 -> 5 -> 2 -> 1.
    public var finer: TickStep {
        switch factor {
        case 5: return TickStep(factor: 2, power: power)
        case 2: return TickStep(factor: 1, power: power)
        default: return TickStep(factor: 5, power: power - 1)
        }
    }

    /// The value of tick number `index` (tick 0 is at zero).
    public func value(at index: Int64) -> Double {
        let n = Double(index) * Double(factor)
        return power >= 0 ? n * pow10(power) : n / pow10(-power)
    }

    /// Indices of the ticks inside `range` (ends included), as a half-open range that
    /// is empty when no tick falls inside; nil when there would be more than `limit`.
    public func indices(in range: DoubleRange, limit: Int = 10_000) -> Range<Int64>? {
        guard range.isValid else { return nil }
        let v = value
        guard v.isFinite, v > 0 else { return nil }
        let lo = (range.min / v).rounded(.up)
        let hi = (range.max / v).rounded(.down)
        guard lo.magnitude < 9e15, hi.magnitude < 9e15 else { return nil }
        var first = Int64(lo), last = Int64(hi)
        // Division rounding can put an end tick one step off; settle on the true ends.
        if value(at: first) < range.min { first += 1 }
        if value(at: first - 1) >= range.min { first -= 1 }
        if value(at: last) > range.max { last -= 1 }
        if value(at: last + 1) <= range.max { last += 1 }
        guard last >= first else { return first..<first }
        guard last - first < Int64(limit) else { return nil }
        return first..<(last + 1)
    }

    public var description: String { "\(factor)e\(power)" }
}

@inline(__always)
func pow10(_ n: Int) -> Double {
    // Exact for 0...22; beyond that the nearest double, which is all we can have.
    var result = 1.0
    var base = 10.0
    var e = n
    while e > 0 {
        if e & 1 == 1 { result *= base }
        base *= base
        e >>= 1
    }
    return result
}

extension Double {
    /// floor(log10(self)) for positive finite values, exact at powers of ten.
    var log10Value: Double {
        guard self > 0, isFinite else { return self > 0 ? 308 : -324 }
        var p = Int(Foundation.log10(self).rounded(.down))
        if pow10Signed(p + 1) <= self { p += 1 }
        if pow10Signed(p) > self { p -= 1 }
        return Double(p)
    }
}

@inline(__always)
func pow10Signed(_ n: Int) -> Double { n >= 0 ? pow10(n) : 1 / pow10(-n) }

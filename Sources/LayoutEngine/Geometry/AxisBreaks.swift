/// The stretches of a discontinuous axis that are left out: fixed ranges, and a
/// pattern repeated every period (weekends, nights outside trading hours). A left-out
/// stretch takes no pixels: what precedes it meets what follows it.
///
/// The axis maps a value through `compressed(_:)`, which subtracts the excluded length
/// up to it (flat across an excluded stretch), and back through `expanded(_:)`, which
/// lands on the first included value. Overlaps between the ranges and the pattern
/// count once.
public struct AxisBreaks: Equatable, Hashable, Sendable {
    /// Every `period` data units (counted from 0), the stretches `[start, start + length)`
    /// are left out.
    public struct Pattern: Equatable, Hashable, Sendable {
        public let period: Double
        /// Within one period: sorted, merged, inside [0, period).
        public let stretches: [DoubleRange]
        /// Their total length.
        public let length: Double

        /// `stretches` as (start, length) pairs within a period; those running past its
        /// end wrap around to its start.
        public init?(period: Double, stretches: [(start: Double, length: Double)]) {
            guard period > 0, period.isFinite else { return nil }
            var pieces: [DoubleRange] = []
            for s in stretches where s.length > 0 && s.start.isFinite && s.length.isFinite {
                let a = (s.start.truncatingRemainder(dividingBy: period) + period).truncatingRemainder(dividingBy: period)
                let len = min(s.length, period)
                if a + len <= period { pieces.append(DoubleRange(a, a + len)) } else {
                    pieces.append(DoubleRange(a, period))
                    pieces.append(DoubleRange(0, a + len - period))
                }
            }
            let merged = AxisBreaks.merge(pieces)
            let total = merged.reduce(0) { $0 + $1.span }
            guard !merged.isEmpty, total < period * 0.999 else { return nil }
            self.period = period; self.stretches = merged; self.length = total
        }

        /// Excluded length in [0, v) (negative for v < 0).
        @inline(__always)
        func excluded(upTo v: Double) -> Double {
            let k = (v / period).rounded(.down)
            let into = v - k * period
            var e = k * length
            for s in stretches { e += min(max(into - s.min, 0), s.span) }
            return e
        }

        func contains(_ v: Double) -> Bool {
            let into = (v.truncatingRemainder(dividingBy: period) + period).truncatingRemainder(dividingBy: period)
            return stretches.contains { into >= $0.min && into < $0.max }
        }
    }

    /// Excluded ranges, sorted and merged.
    public let ranges: [DoubleRange]
    public let pattern: Pattern?
    /// `netBefore[i]`: the length ranges `0 ..< i` leave out beyond what the pattern
    /// already does, so a value is mapped by a binary search, not a walk over every
    /// range (a calendar's holidays over decades).
    private let netBefore: [Double]

    public init(ranges: [DoubleRange] = [], pattern: Pattern? = nil) {
        let merged = Self.merge(ranges)
        self.ranges = merged
        self.pattern = pattern
        var net: [Double] = [0]
        net.reserveCapacity(merged.count + 1)
        for r in merged {
            let own = (r.max - r.min) - ((pattern?.excluded(upTo: r.max) ?? 0) - (pattern?.excluded(upTo: r.min) ?? 0))
            net.append(net[net.count - 1] + own)
        }
        self.netBefore = net
    }

    public static func == (a: AxisBreaks, b: AxisBreaks) -> Bool { a.ranges == b.ranges && a.pattern == b.pattern }
    public func hash(into h: inout Hasher) { h.combine(ranges); h.combine(pattern) }

    /// How many ranges end at or before `v`.
    @inline(__always)
    private func rangesEnded(before v: Double) -> Int {
        var a = 0, b = ranges.count
        while a < b {
            let m = (a + b) / 2
            if ranges[m].max <= v { a = m + 1 } else { b = m }
        }
        return a
    }

    static func merge(_ ranges: [DoubleRange]) -> [DoubleRange] {
        var merged: [DoubleRange] = []
        for r in ranges.filter({ $0.isValid && $0.span > 0 }).sorted(by: { $0.min < $1.min }) {
            if let last = merged.last, r.min <= last.max {
                merged[merged.count - 1] = DoubleRange(last.min, max(last.max, r.max))
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    public var isEmpty: Bool { ranges.isEmpty && pattern == nil }

    /// Whether `v` falls in a left-out stretch.
    public func isExcluded(_ v: Double) -> Bool {
        let k = rangesEnded(before: v)
        return (k < ranges.count && v >= ranges[k].min) || (pattern?.contains(v) ?? false)
    }

    /// `v` less the excluded length before it: what the axis lays out linearly.
    @inline(__always)
    public func compressed(_ v: Double) -> Double {
        let p = { (x: Double) in self.pattern?.excluded(upTo: x) ?? 0 }
        let pv = p(v)
        guard !ranges.isEmpty else { return v - pv }
        // Ranges wholly before v, then the part of the one v is in, less what the
        // pattern already left out.
        let k = rangesEnded(before: v)
        var t = v - pv - netBefore[k]
        if k < ranges.count, v > ranges[k].min {
            let r = ranges[k]
            t -= (v - r.min) - (pv - p(r.min))
        }
        return t
    }

    /// The first value shown at compressed position `t`: at a stretch left out, its end.
    public func expanded(_ t: Double) -> Double {
        guard !isEmpty else { return t }
        // Bracket (compressed is monotone and unbounded both ways), then bisect.
        var step = max(1, abs(t) * 1e-3, pattern?.period ?? 0)
        var lo = t - step, hi = t + step
        while compressed(lo) > t, step < 1e300 { lo -= step; step *= 2 }
        step = max(1, abs(t) * 1e-3, pattern?.period ?? 0)
        while compressed(hi) <= t, step < 1e300 { hi += step; step *= 2 }
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            // `<=`: across a flat (left-out) stretch, go to its end, the first value shown.
            if compressed(mid) <= t { lo = mid } else { hi = mid }
            if hi - lo <= max(abs(hi), 1) * 1e-15 { break }
        }
        return hi
    }
}

import LayoutEngine

/// Reduces a column series to device-pixel rectangles (see `BarSet`).
///
/// Each column is centred on its point, `columnWidth` times the series' smallest X
/// spacing wide (`XYData.minSpacing`), from the baseline to the value. Its edges are rounded to
/// device pixels and it is at least one pixel wide. When columns come out narrower
/// than one device pixel, they are *collapsed*: every device column holding columns
/// gets one rectangle from the highest to the lowest of them, read from the series'
/// min/max index, which is exactly the union of the one-pixel columns the full drawing
/// would paint there. A frame then costs the plot's width in pixels, times a logarithm,
/// whatever the point count. Neighbouring collapsed columns with the same extent are
/// merged into one rectangle.
public enum BarReducer {
    public struct Style: Sendable {
        public var fill: String
        public var stroke: String?
        public var lineWidth: Double
        public var baseline: Double
        public var widthFraction: Double
        /// Where the column's centre sits from its point, as a fraction of the X
        /// spacing (columns grouped side by side on one X axis).
        public var offset: Double
        /// The X spacing widths and offsets are measured in (nil: the series' own).
        public var spacing: Double?
        public init(fill: String, stroke: String? = nil, lineWidth: Double = 1, baseline: Double = 0, widthFraction: Double = 0.8,
                    offset: Double = 0, spacing: Double? = nil) {
            self.fill = fill; self.stroke = stroke; self.lineWidth = lineWidth
            self.baseline = baseline; self.widthFraction = widthFraction; self.offset = offset; self.spacing = spacing
        }
    }

    /// - Parameters:
    ///   - xAlongWidth: whether the X axis runs across (columns); false draws bars
    ///     (a rotated chart: X up the side, values across).
    ///   - collapse: false draws every column however narrow (the naive baseline, tests).
    public static func reduce(
        _ data: XYData, x: CoordinateCalculator, y: CoordinateCalculator, xAlongWidth: Bool = true,
        dpr: Double, plot: Rect, style: Style, collapse: Bool = true
    ) -> BarSet? {
        guard !data.isEmpty, dpr > 0, plot.width > 0, plot.height > 0 else { return nil }
        // The grid: the plot's device pixels and one more on every side (the layer clips).
        let gx0 = (plot.minX * dpr).rounded(.down) - 1, gy0 = (plot.minY * dpr).rounded(.down) - 1
        let gw = (plot.maxX * dpr).rounded(.up) + 1 - gx0, gh = (plot.maxY * dpr).rounded(.up) + 1 - gy0
        guard gw <= 65_535, gh <= 65_535 else { return nil }
        // Along: the direction X runs in (device pixels from the grid's start); across: values.
        let (along0, alongLen, across0, acrossLen) = xAlongWidth ? (gx0, gw, gy0, gh) : (gy0, gh, gx0, gw)
        func alongPx(_ v: Double) -> Double { x.pixel(v) * dpr - along0 }
        func acrossPx(_ v: Double) -> Double { y.pixel(v) * dpr - across0 }
        let base = acrossPx(style.baseline).clamped(-1, acrossLen + 1)

        var bars: [BarSet.Bar] = []
        func emit(_ a0: Double, _ a1: Double, _ c0: Double, _ c1: Double) {
            // Clamp to the grid, in whole device pixels.
            let lo = max(a0, 0), hi = min(a1, alongLen), top = max(c0, 0), bottom = min(c1, acrossLen)
            guard hi > lo, bottom > top else { return }
            let (l, wd, t, ht) = (UInt16(lo), UInt16(hi - lo), UInt16(top), UInt16(bottom - top))
            bars.append(xAlongWidth ? BarSet.Bar(left: l, width: wd, top: t, height: ht)
                                    : BarSet.Bar(left: t, width: ht, top: l, height: wd))
        }

        // The points in view (and one either side, whose columns may reach in).
        let v1 = x.value((xAlongWidth ? plot.minX : plot.minY)), v2 = x.value((xAlongWidth ? plot.maxX : plot.maxY))
        let start = max(0, data.lowerBound(min(v1, v2)) - 1), end = min(data.count, data.upperBound(max(v1, v2)) + 1)
        guard start < end else { return set(style, gx0, gy0, dpr, []) }
        var spacing = style.spacing ?? data.minSpacing
        // (Halves: the visible span may be wider than the largest double.)
        if !spacing.isFinite { spacing = abs(v2 * 0.5 - v1 * 0.5) / 10 }
        let shift = style.offset * spacing
        /// The centre of point `i`'s column, device pixels along X.
        @inline(__always) func centre(_ i: Int) -> Double { alongPx(data.x(i) + shift) }
        let width = style.widthFraction * spacing * abs(x.pixel(1) - x.pixel(0)) * dpr
        let half = width / 2

        /// A column's device columns: [round(c - w/2), max(that + 1, round(c + w/2))).
        @inline(__always) func left(_ c: Double) -> Double { (c - half).rounded(.toNearestOrAwayFromZero) }

        if !collapse || width >= 1 || x.logBase != nil || x.breaks != nil {
            for i in start..<end {
                let c = centre(i), v = data.y(i)
                guard c.isFinite, v.isFinite else { continue }
                let l = left(c), r = max(l + 1, (c + half).rounded(.toNearestOrAwayFromZero))
                let p = acrossPx(v).clamped(-1, acrossLen + 1)
                emit(l, r, min(p, base).rounded(.toNearestOrAwayFromZero), max(p, base).rounded(.toNearestOrAwayFromZero))
            }
            return set(style, gx0, gy0, dpr, bars)
        }

        // Collapsed: every column is one device pixel wide, at round(c - w/2). Device
        // column k holds the points whose column lands there, found by binary search on
        // that (monotone) function of the index.
        let increasing = centre(end - 1) >= centre(start)
        func columnOf(_ i: Int) -> Double { left(centre(i)) }
        /// The first index in lo..<end whose column is past `k` (in the direction X runs).
        func firstPast(_ k: Double, from lo: Int, guess: Int) -> Int {
            Gallop.first(from: lo, to: end, guess: guess) { let col = columnOf($0); return increasing ? col > k : col < k }
        }
        var i = start, run = 1
        var pending: (a0: Double, a1: Double, c0: Double, c1: Double)? = nil
        while i < end {
            let k = columnOf(i)
            guard k.isFinite else { i += 1; continue }
            let j = firstPast(k, from: i + 1, guess: run)
            run = j - i
            let s = data.ySummary(i..<j)
            i = j
            guard s.min <= s.max else { continue }   // only gaps
            let p1 = acrossPx(s.min).clamped(-1, acrossLen + 1), p2 = acrossPx(s.max).clamped(-1, acrossLen + 1)
            let c0 = min(p1, p2, base).rounded(.toNearestOrAwayFromZero), c1 = max(p1, p2, base).rounded(.toNearestOrAwayFromZero)
            guard c1 > c0 else { continue }
            if let p = pending, p.c0 == c0, p.c1 == c1, increasing ? p.a1 == k : p.a0 == k + 1 {
                pending = increasing ? (p.a0, k + 1, c0, c1) : (k, p.a1, c0, c1)
            } else {
                if let p = pending { emit(p.a0, p.a1, p.c0, p.c1) }
                pending = (k, k + 1, c0, c1)
            }
        }
        if let p = pending { emit(p.a0, p.a1, p.c0, p.c1) }
        return set(style, gx0, gy0, dpr, bars)
    }

    static func set(_ style: Style, _ gx0: Double, _ gy0: Double, _ dpr: Double, _ bars: [BarSet.Bar]) -> BarSet {
        BarSet(fill: style.fill, stroke: style.stroke, lineWidth: style.stroke == nil ? 0 : Float(style.lineWidth),
               x0: Float(gx0 / dpr), y0: Float(gy0 / dpr), unit: Float(1 / dpr), bars: bars)
    }
}

extension Double {
    @inline(__always) func clamped(_ lo: Double, _ hi: Double) -> Double { Swift.min(Swift.max(self, lo), hi) }
}

/// Searches for the first index where a predicate, false up to some index and true
/// from it on, holds: galloping from `lo + guess` (the previous run's length, when
/// walking device column by device column), then bisecting. Consecutive columns cost
/// a few reads near each other instead of a bisection of the whole range, whose reads
/// are cache misses (columns and candles).
enum Gallop {
    @inline(__always)
    static func first(from lo: Int, to end: Int, guess: Int, _ isPast: (Int) -> Bool) -> Int {
        var a = lo, step = max(1, guess)
        var b = end
        while a < end {
            let probe = min(end - 1, a + step - 1)
            if isPast(probe) { b = probe; break }
            a = probe + 1
            step *= 2
        }
        while a < b {
            let m = (a + b) / 2
            if isPast(m) { b = m } else { a = m + 1 }
        }
        return a
    }
}

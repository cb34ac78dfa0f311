import LayoutEngine

/// Reduces a candlestick or OHLC series to device-pixel rectangles (`BarSet`s).
///
/// A candle is centred on its x, `columnWidth` times the series' smallest X spacing
/// wide: a body from open to close over a wick from low to high (candlestick), or a
/// stick from low to high with a tick left at the open and right at the close (OHLC),
/// in the rising colour when close >= open, else the falling one. Edges are on device
/// pixels, bodies at least one pixel each way.
///
/// When candles come out narrower than one device pixel they are *aggregated*: every
/// device column holding candles gets one candle whose open is the first candle's
/// open, close the last one's close, and high and low the extremes of all of them,
/// read from the min/max index of the high and low values. So a frame costs the plot's
/// width in pixels, times a logarithm, whatever the candle count.
public enum CandleReducer {
    public struct Style: Sendable {
        public var ohlc: Bool
        public var rising: String
        public var falling: String
        /// Wicks and body outlines in one colour (nil: each candle's wick in its body's colour).
        public var stroke: String?
        /// Wick, stick and tick thickness, and outline width, in CSS pixels.
        public var lineWidth: Double
        public var widthFraction: Double
        public init(ohlc: Bool = false, rising: String, falling: String, stroke: String? = nil, lineWidth: Double = 1,
                    widthFraction: Double = 0.8) {
            self.ohlc = ohlc; self.rising = rising; self.falling = falling; self.stroke = stroke
            self.lineWidth = lineWidth; self.widthFraction = widthFraction
        }
    }

    /// One candle to draw: its centre (device pixels along X, from the grid's start;
    /// for an aggregate, its device column plus half the width) and values.
    public struct Candle: Equatable, Sendable {
        public var center: Double
        public var open: Double, high: Double, low: Double, close: Double
    }

    /// The device-pixel grid of a plot: one device pixel more on every side (the layer clips).
    struct Grid {
        var x0: Double, y0: Double, width: Double, height: Double
        init(plot: Rect, dpr: Double) {
            x0 = (plot.minX * dpr).rounded(.down) - 1; y0 = (plot.minY * dpr).rounded(.down) - 1
            width = (plot.maxX * dpr).rounded(.up) + 1 - x0; height = (plot.maxY * dpr).rounded(.up) + 1 - y0
        }
    }

    /// The candles to draw for `series` in view, aggregated per device column when
    /// narrower than a device pixel (and `aggregate`), with the body width in device pixels.
    public static func candles(
        _ series: Series, x: CoordinateCalculator, xAlongWidth: Bool, dpr: Double, plot: Rect,
        widthFraction: Double, aggregate: Bool = true
    ) -> (candles: [Candle], width: Double) {
        let data = series.data
        guard let high = series.values("high"), let low = series.values("low"), let close = series.values("close"),
              !data.isEmpty, dpr > 0 else { return ([], 0) }
        let grid = Grid(plot: plot, dpr: dpr)
        let along0 = xAlongWidth ? grid.x0 : grid.y0
        func alongPx(_ v: Double) -> Double { x.pixel(v) * dpr - along0 }
        let v1 = x.value(xAlongWidth ? plot.minX : plot.minY), v2 = x.value(xAlongWidth ? plot.maxX : plot.maxY)
        let start = max(0, data.lowerBound(min(v1, v2)) - 1), end = min(data.count, data.upperBound(max(v1, v2)) + 1)
        guard start < end else { return ([], 0) }
        var spacing = data.minSpacing
        if !spacing.isFinite { spacing = abs(v2 * 0.5 - v1 * 0.5) / 10 }  // (halves: a span past the largest double)
        let width = widthFraction * spacing * abs(x.pixel(1) - x.pixel(0)) * dpr
        var out: [Candle] = []

        if !aggregate || width >= 1 || x.logBase != nil || x.breaks != nil {
            for i in start..<end {
                let o = data.y(i)
                // A point inside an excluded range (a Sunday bar on an axis without
                // weekends) is not drawn: it would land on its neighbour's place.
                guard !o.isNaN, !(x.breaks?.isExcluded(data.x(i)) ?? false) else { continue }
                out.append(Candle(center: alongPx(data.x(i)), open: o, high: high.y(i), low: low.y(i), close: close.y(i)))
            }
            return (out, width)
        }

        // Aggregated: device column k holds the candles the full drawing paints there,
        // those whose body starts at round(centre - width/2) = k; found by binary search
        // on that monotone function of the index.
        let increasing = alongPx(data.x(end - 1)) >= alongPx(data.x(start))
        let half = width / 2
        func columnOf(_ i: Int) -> Double { (alongPx(data.x(i)) - half).rounded(.toNearestOrAwayFromZero) }
        /// The first index in lo..<end whose column is past `k` (in the direction X runs).
        func firstPast(_ k: Double, from lo: Int, guess: Int) -> Int {
            Gallop.first(from: lo, to: end, guess: guess) { let col = columnOf($0); return increasing ? col > k : col < k }
        }
        var i = start, run = 1
        while i < end {
            let k = columnOf(i)
            let j = firstPast(k, from: i + 1, guess: run)
            defer { run = j - i; i = j }
            guard k.isFinite else { continue }
            // Gaps are whole candles (all four values NaN): skip them at either end.
            var a = i, b = j - 1
            while a <= b, data.y(a).isNaN { a += 1 }
            while b >= a, close.y(b).isNaN { b -= 1 }
            guard a <= b else { continue }
            let h = high.ySummary(a..<(b + 1)).max, l = low.ySummary(a..<(b + 1)).min
            out.append(Candle(center: k + half, open: data.y(a), high: h, low: l, close: close.y(b)))
        }
        return (out, width)
    }

    /// The rectangles of `series` in view: for a candlestick, one set per colour (wicks
    /// first when they have their own colour); for OHLC, one per direction.
    public static func reduce(
        _ series: Series, x: CoordinateCalculator, y: CoordinateCalculator, xAlongWidth: Bool = true,
        dpr: Double, plot: Rect, style: Style, aggregate: Bool = true
    ) -> [BarSet] {
        let grid = Grid(plot: plot, dpr: dpr)
        guard grid.width <= 65_535, grid.height <= 65_535 else { return [] }
        let (candles, width) = candles(series, x: x, xAlongWidth: xAlongWidth, dpr: dpr, plot: plot,
                                       widthFraction: style.widthFraction, aggregate: aggregate)
        let (alongLen, across0, acrossLen) = xAlongWidth ? (grid.width, grid.y0, grid.height) : (grid.height, grid.x0, grid.width)
        func acrossPx(_ v: Double) -> Double { (y.pixel(v) * dpr - across0).clamped(-1, acrossLen + 1) }
        let t = max(1, (style.lineWidth * dpr).rounded(.down))
        // OHLC ticks reach at most 30 % of the spacing either side, so a bar's close tick
        // and the next one's open tick (often the same value) keep a gap and do not
        // join into a staircase.
        let half = style.ohlc ? min(width, 0.6 * width / max(style.widthFraction, 1e-9)) / 2 : width / 2

        var rising: [BarSet.Bar] = [], falling: [BarSet.Bar] = [], wicks: [BarSet.Bar] = []
        func rect(_ a0: Double, _ a1: Double, _ c0: Double, _ c1: Double, into list: inout [BarSet.Bar]) {
            let lo = max(a0, 0), hi = min(a1, alongLen), top = max(c0, 0), bottom = min(c1, acrossLen)
            guard hi > lo, bottom > top else { return }
            let (l, wd, tp, ht) = (UInt16(lo), UInt16(hi - lo), UInt16(top), UInt16(bottom - top))
            list.append(xAlongWidth ? BarSet.Bar(left: l, width: wd, top: tp, height: ht)
                                    : BarSet.Bar(left: tp, width: ht, top: l, height: wd))
        }
        /// [round(min), max(round(min) + 1, round(max))): at least one pixel.
        func span(_ p: Double, _ q: Double) -> (Double, Double) {
            let a = min(p, q).rounded(.toNearestOrAwayFromZero)
            return (a, max(a + 1, max(p, q).rounded(.toNearestOrAwayFromZero)))
        }
        for c in candles {
            let up = c.close >= c.open
            let l = (c.center - half).rounded(.toNearestOrAwayFromZero), r = max(l + 1, (c.center + half).rounded(.toNearestOrAwayFromZero))
            // The wick: `t` pixels wide, centred, within the body's columns when it is narrower.
            let wl = min(max((c.center - t / 2).rounded(.toNearestOrAwayFromZero), l), max(l, r - t)), wr = min(wl + t, max(r, wl + 1))
            let (h0, h1) = span(acrossPx(c.high), acrossPx(c.low))
            if style.ohlc {
                let po = acrossPx(c.open), pc = acrossPx(c.close)
                let o0 = (po - t / 2).rounded(.toNearestOrAwayFromZero), c0 = (pc - t / 2).rounded(.toNearestOrAwayFromZero)
                // Ticks: open to the left (before the stick in X), close to the right.
                let (openFrom, openTo, closeFrom, closeTo) = xAlongWidth ? (l, wl, wr, r) : (wr, r, l, wl)
                if up {
                    rect(wl, wr, h0, h1, into: &rising)
                    rect(openFrom, openTo, o0, o0 + t, into: &rising)
                    rect(closeFrom, closeTo, c0, c0 + t, into: &rising)
                } else {
                    rect(wl, wr, h0, h1, into: &falling)
                    rect(openFrom, openTo, o0, o0 + t, into: &falling)
                    rect(closeFrom, closeTo, c0, c0 + t, into: &falling)
                }
                continue
            }
            // The body, at least a pixel tall, kept within the wick's pixels (a candle
            // whose open or close is its high or low would otherwise poke a pixel out).
            var (b0, b1) = span(acrossPx(c.open), acrossPx(c.close))
            if b1 > h1 { (b0, b1) = (min(b0, h1 - 1), h1) }
            if style.stroke != nil { rect(wl, wr, h0, h1, into: &wicks) }
            if up {
                if style.stroke == nil { rect(wl, wr, h0, h1, into: &rising) }
                rect(l, r, b0, b1, into: &rising)
            } else {
                if style.stroke == nil { rect(wl, wr, h0, h1, into: &falling) }
                rect(l, r, b0, b1, into: &falling)
            }
        }
        let (x0, y0, unit) = (Float(grid.x0 / dpr), Float(grid.y0 / dpr), Float(1 / dpr))
        var sets: [BarSet] = []
        if let stroke = style.stroke, !wicks.isEmpty {
            sets.append(BarSet(fill: stroke, stroke: nil, lineWidth: 0, x0: x0, y0: y0, unit: unit, bars: wicks))
        }
        let outline = style.ohlc ? nil : style.stroke
        for (fill, bars) in [(style.rising, rising), (style.falling, falling)] where !bars.isEmpty {
            sets.append(BarSet(fill: fill, stroke: outline, lineWidth: outline == nil ? 0 : Float(style.lineWidth),
                               x0: x0, y0: y0, unit: unit, bars: bars))
        }
        return sets
    }
}

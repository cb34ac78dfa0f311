import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Candlesticks and OHLC bars narrower than a device pixel are aggregated per device
/// column: the aggregate's open, high, low and close are those of the candles the full
/// drawing paints in that column, and the aggregated drawing covers the same pixels.
@Suite struct CandleReducerTests {
    /// A random walk of `n` candles, x at uneven steps, every 101st a gap.
    static func candles(_ n: Int, seed: UInt64, gaps: Bool = true) -> Series {
        var rng = SplitMix(seed: seed)
        var xs: [Double] = [], o: [Double] = [], h: [Double] = [], l: [Double] = [], c: [Double] = []
        var x = 0.0, price = 100.0
        for i in 0..<n {
            x += 0.5 + rng.unit()
            xs.append(x)
            if gaps && i % 101 == 50 { o.append(.nan); h.append(.nan); l.append(.nan); c.append(.nan); continue }
            let open = price
            price += (rng.unit() - 0.5) * 4
            o.append(open); c.append(price)
            h.append(max(open, price) + rng.unit() * 3); l.append(min(open, price) - rng.unit() * 3)
        }
        var s = Series(id: "c", name: "c", kind: .candlestick, color: "#000", xAxisId: "x", yAxisId: "y")
        try! s.append(xs: xs, values: [o, h, l, c])
        return s
    }

    @Test(arguments: [(1.0, false), (2.0, false), (1.5, true)])
    func aggregatesAreTheCandlesOfEachDeviceColumn(dpr: Double, flipped: Bool) throws {
        let s = Self.candles(60_000, seed: 5)
        let plot = Rect(x: 30, y: 10, width: 400, height: 250)
        let r = try #require(s.data.xRange)
        let x = CoordinateCalculator(range: DoubleRange(r.min + 100, r.max - 100),
                                     pixelStart: flipped ? plot.maxX : plot.minX, pixelEnd: flipped ? plot.minX : plot.maxX)
        let reduced = CandleReducer.candles(s, x: x, xAlongWidth: true, dpr: dpr, plot: plot, widthFraction: 0.8)
        let full = CandleReducer.candles(s, x: x, xAlongWidth: true, dpr: dpr, plot: plot, widthFraction: 0.8, aggregate: false)
        #expect(reduced.width < 1)
        #expect(reduced.candles.count <= Int(plot.width * dpr) + 4)
        #expect(full.candles.count > 20 * reduced.candles.count)
        // Brute force: group the full candles by the column the full drawing paints them
        // in (their body's first device column), in data order.
        let half = full.width / 2
        var expected: [Double: CandleReducer.Candle] = [:]
        var order: [Double] = []
        for c in full.candles {
            let k = (c.center - half).rounded(.toNearestOrAwayFromZero)
            if var e = expected[k] {
                e.high = max(e.high, c.high); e.low = min(e.low, c.low); e.close = c.close
                expected[k] = e
            } else {
                expected[k] = CandleReducer.Candle(center: k + half, open: c.open, high: c.high, low: c.low, close: c.close)
                order.append(k)
            }
        }
        let got = reduced.candles.map { ($0.center - half).rounded(.toNearestOrAwayFromZero) }
        #expect(got == order)
        for c in reduced.candles {
            let k = (c.center - half).rounded(.toNearestOrAwayFromZero)
            let e = try #require(expected[k])
            #expect(c.open == e.open && c.high == e.high && c.low == e.low && c.close == e.close, "column \(k)")
        }
    }

    @Test(arguments: [false, true])
    func aggregatedDrawingCoversTheFullDrawingsPixels(ohlc: Bool) {
        let s = Self.candles(40_000, seed: 8)
        let plot = Rect(x: 0, y: 0, width: 300, height: 200)
        let r = s.data.xRange!
        let x = CoordinateCalculator(range: DoubleRange(r.min, r.max), pixelStart: plot.minX, pixelEnd: plot.maxX)
        let y = CoordinateCalculator(range: DoubleRange(s.valueRange(indices: 0..<s.data.count)!.min,
                                                        s.valueRange(indices: 0..<s.data.count)!.max),
                                     pixelStart: plot.maxY, pixelEnd: plot.minY)
        let style = CandleReducer.Style(ohlc: ohlc, rising: "g", falling: "r")
        let reduced = CandleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot, style: style)
        let full = CandleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot, style: style, aggregate: false)
        func pixels(_ sets: [BarSet]) -> Set<Int64> {
            sets.reduce(into: Set<Int64>()) { $0.formUnion(SeriesReducerTests.raster($1, dpr: 1, clip: (0, 0, 300, 200))) }
        }
        let a = pixels(reduced), b = pixels(full)
        #expect(a == b)
        if a != b {
            let only = { (s: Set<Int64>) in s.sorted().prefix(8).map { "(\($0 >> 32),\($0 & 0xffffffff))" } }
            Issue.record("only reduced: \(only(a.subtracting(b))) only full: \(only(b.subtracting(a)))")
        }
        #expect(reduced.map(\.bars.count).reduce(0, +) <= 2 * 302)
    }

    @Test func wideCandleHasBodyAndWick() {
        var s = Series(id: "c", name: "c", kind: .candlestick, color: "#000", xAxisId: "x", yAxisId: "y")
        try! s.append(xs: [1, 2], values: [[10, 6], [14, 9], [4, 1], [6, 8]])   // falling, then rising
        let plot = Rect(x: 0, y: 0, width: 300, height: 200)
        let x = CoordinateCalculator(range: DoubleRange(0, 3), pixelStart: 0, pixelEnd: 300)
        let y = CoordinateCalculator(range: DoubleRange(0, 20), pixelStart: 200, pixelEnd: 0)
        let sets = CandleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot,
                                        style: .init(rising: "up", falling: "down", widthFraction: 0.5))
        #expect(sets.map(\.fill) == ["up", "down"])
        // Grid origin (-1, -1). Candle 1 at x = 100, 50 px wide: body 75..<125 from 10 (y 100)
        // to 6 (y 140); wick 100..<101 (halves round away from zero) from 14 (y 60) to 4 (y 160).
        #expect(sets[1].bars == [.init(left: 101, width: 1, top: 61, height: 100), .init(left: 76, width: 50, top: 101, height: 40)])
        #expect(sets[0].bars == [.init(left: 201, width: 1, top: 111, height: 80), .init(left: 176, width: 50, top: 121, height: 20)])
        // OHLC: a stick, the open tick left of it, the close tick right.
        let bars = CandleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot,
                                        style: .init(ohlc: true, rising: "up", falling: "down", widthFraction: 0.5))
        #expect(bars[1].bars == [.init(left: 101, width: 1, top: 61, height: 100), .init(left: 76, width: 25, top: 101, height: 1),
                                 .init(left: 102, width: 24, top: 141, height: 1)])
    }

    @Test func badCandlesAreRefusedWhole() {
        var s = Series(id: "c", name: "c", kind: .ohlc, color: "#000", xAxisId: "x", yAxisId: "y")
        #expect(throws: AppendError.candleOutOfOrder(index: 1, open: 5, high: 6, low: 5.5, close: 6)) {
            try s.append(xs: [1, 2], values: [[1, 5], [2, 6], [0, 5.5], [1.5, 6]])
        }
        #expect(throws: AppendError.partialGap(index: 0)) { try s.append(xs: [1], values: [[.nan], [2], [0], [1]]) }
        #expect(throws: AppendError.wrongFields(kind: "ohlc", fields: ["open", "high", "low", "close"])) {
            try s.append(xs: [1], values: [[1]])
        }
        #expect(throws: AppendError.lengthMismatch(x: 1, y: 2, field: "low")) { try s.append(xs: [1], values: [[1], [2], [0, 0], [1]]) }
        #expect(s.data.isEmpty && s.more.allSatisfy(\.isEmpty))
        try! s.append(xs: [1, 2], values: [[1, .nan], [2, .nan], [0, .nan], [1.5, .nan]])
        let range = s.valueRange(indices: 0..<2)
        #expect(range?.min == 0 && range?.max == 2)
    }
}

/// Bubbles: one marker set per device diameter, biggest first, at most one bubble of a
/// diameter per device pixel.
@Suite struct BubbleReducerTests {
    @Test func sizesScaleAreasAndDuplicatesDrop() throws {
        var s = Series(id: "b", name: "b", kind: .bubble, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
        // Sizes 1, 4 and 16: areas in that ratio, so diameters 10, 20, 40 (the biggest auto-scaled to 40).
        try s.append(xs: [1, 2, 3, 3.0001, 4], values: [[5, 5, 5, 5, .nan], [1, 4, 16, 16, 2]])
        let plot = Rect(x: 0, y: 0, width: 400, height: 200)
        let x = CoordinateCalculator(range: DoubleRange(0, 5), pixelStart: 0, pixelEnd: 400)
        let y = CoordinateCalculator(range: DoubleRange(0, 10), pixelStart: 200, pixelEnd: 0)
        let m = try #require(s.effectiveMarker)
        let sets = BubbleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot, marker: m)
        #expect(sets.map(\.size) == [40, 20, 10])
        // The two size-16 bubbles fall on one device pixel: one is sent; the NaN point draws none.
        #expect(sets.map(\.cells.count) == [1, 1, 1])
        let full = BubbleReducer.reduce(s, x: x, y: y, dpr: 1, plot: plot, marker: m, dedupe: false)
        #expect(full.map(\.cells.count) == [2, 1, 1])
        func pixels(_ sets: [MarkerSet]) -> Set<Int64> { sets.reduce(into: []) { $0.formUnion(SeriesReducerTests.raster($1, dpr: 1)) } }
        #expect(pixels(sets) == pixels(full))
        // With a scale, a bubble's area is size × scale px².
        s.style.bubbleScale = 100 * .pi / 4   // size 1 → 10 px across
        #expect(BubbleReducer.reduce(s, x: x, y: y, dpr: 2, plot: plot, marker: m).map(\.size) == [40, 20, 10])
        #expect(throws: AppendError.negativeSize(index: 0, value: -1)) { try s.append(xs: [9], values: [[1], [-1]]) }
        // The Y range takes y only, not sizes.
        let range = s.valueRange()
        #expect(range?.min == 5 && range?.max == 5)
    }
}

/// Bands: two lines with the fill between them, one colour where y is above y1 and
/// another where below.
@Suite struct BandTests {
    func session(_ extra: String) throws -> Session {
        let spec = #"{"sessions":[{"id":"b","chart":{"legend":{"show":false},"# + extra + #""series":[{"id":"b","type":"band","#
            + ##""fill":"#0000ff","fillY1":"#ff0000","data":{"x":[0,1,2,3],"y":[2,4,1,3],"y1":[1,1,2,2]}}]}}]}"##
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    @Test func reducedBandFillsBetweenItsLines() throws {
        let s = try session("")
        let commands = s.displayList(size: ViewerSize(width: 600, height: 300, dpr: 1)).layers.first { $0.id == .series }!.commands
        let band = try #require(commands.compactMap { if case let .band(b) = $0 { b } else { nil } }.first)
        // The Y axis runs upwards: y above y1 is the first line above the second on screen: `fill`.
        #expect(band.fill == "#0000ff" && band.fillY1 == "#ff0000")
        #expect(commands.filter { if case .columns = $0 { true } else { false } }.count == 2)
        // Both lines' ranges are in the Y axis.
        let r = try #require(s.chart.visibleRange("y"))
        #expect(r.min <= 1 && r.max >= 4)
    }

    @Test func rotatedBandSplitsAtCrossings() throws {
        let s = try session(#""xAxes":[{"id":"x","alignment":"left"}],"yAxes":[{"id":"y","alignment":"bottom"}],"#)
        let commands = s.displayList(size: ViewerSize(width: 600, height: 300, dpr: 1)).layers.first { $0.id == .series }!.commands
        let fills = commands.compactMap { if case let .polygon(_, fill, _) = $0 { fill } else { nil } }
        // y - y1: +1, +3, -1, +1: three runs, blue, red, blue.
        #expect(fills == ["#0000ff", "#ff0000", "#0000ff"])
    }

    @Test func bandGapsAreWhole() {
        var s = Series(id: "b", name: "b", kind: .band, color: "#000", xAxisId: "x", yAxisId: "y")
        #expect(throws: AppendError.partialBandGap(index: 1)) { try s.append(xs: [0, 1], values: [[1, .nan], [0, 2]]) }
    }
}

import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Stacked series (ShinobiCharts' `stackIndex`): each member draws the running sum of
/// the stack at each point, kept as points arrive.
@Suite struct StackTests {
    static func chart(_ kinds: [SeriesKind], percent: Bool = false, capacity: Int? = nil) -> Chart {
        let series = kinds.enumerated().map { k, kind in
            var s = Series(id: "s\(k)", name: "S\(k)", kind: kind, color: "#1f77b4", xAxisId: "x", yAxisId: "y",
                           data: XYData(capacity: capacity))
            s.stackIndex = 0
            s.stackPercent = percent
            return s
        }
        return Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                     series: series)
    }

    @Test func membersDrawRunningSums() throws {
        let c = Self.chart([.area, .area, .area])
        try c.append(seriesId: "s0", xs: [0, 1, 2], ys: [1, 2, .nan])
        try c.append(seriesId: "s1", xs: [0, 1, 2], ys: [10, 20, 30])
        // Only the points all members hold are stacked.
        #expect(c.series[2].plotted.count == 0)
        try c.append(seriesId: "s2", xs: [0, 1], ys: [100, 200])
        let sums = (0..<3).map { k in (0..<c.series[k].plotted.count).map { c.series[k].plotted.y($0) } }
        #expect(sums[0] == [1, 2])
        #expect(sums[1] == [11, 22])
        #expect(sums[2] == [111, 222])
        try c.append(seriesId: "s2", xs: [2], ys: [300])
        // A gap is a gap in its own series and counts 0 above it.
        #expect(c.series[0].plotted.y(2).isNaN)
        #expect(c.series[1].plotted.y(2) == 30 && c.series[2].plotted.y(2) == 330)
        // The Y axis takes in the sums and the baseline (areas fill down to it).
        #expect(c.dataRange("y") == DoubleRange(0, 330))
    }

    @Test func percentStacksToAHundred() throws {
        let c = Self.chart([.column, .column], percent: true)
        try c.append(seriesId: "s0", xs: [0, 1, 2], ys: [1, 3, 0])
        try c.append(seriesId: "s1", xs: [0, 1, 2], ys: [3, 1, 0])
        #expect((0..<3).map { c.series[0].plotted.y($0) } == [25, 75, 0])
        #expect((0..<3).map { c.series[1].plotted.y($0) } == [100, 100, 0])
    }

    /// Appends in any interleaving, with FIFO eviction, give the stacked values a chart
    /// built from all the data at once gives.
    @Test func incrementalEqualsFresh() throws {
        var rng = SplitMix(seed: 11)
        let live = Self.chart([.line, .line, .line], capacity: 500)
        var all: [[Double]] = [[], [], []], xs: [Double] = []
        var sent = [0, 0, 0]
        for _ in 0..<300 {
            let n = 1 + Int(rng.unit() * 20)
            for _ in 0..<n { xs.append(Double(xs.count)); for k in 0..<3 { all[k].append((rng.unit() * 10).rounded()) } }
            // Members catch up at different times.
            for k in 0..<3 where rng.unit() < 0.6 {
                try live.append(seriesId: "s\(k)", xs: Array(xs[sent[k]...]), ys: Array(all[k][sent[k]...]))
                sent[k] = xs.count
            }
        }
        for k in 0..<3 where sent[k] < xs.count {
            try live.append(seriesId: "s\(k)", xs: Array(xs[sent[k]...]), ys: Array(all[k][sent[k]...]))
        }
        let fresh = Self.chart([.line, .line, .line], capacity: 500)
        for k in 0..<3 { try fresh.append(seriesId: "s\(k)", xs: xs, ys: all[k]) }
        for k in 0..<3 {
            let a = live.series[k].plotted, b = fresh.series[k].plotted
            #expect(a.count == 500 && b.count == 500)
            #expect((0..<a.count).map { a.x($0) } == (0..<b.count).map { b.x($0) })
            #expect((0..<a.count).map { a.y($0) } == (0..<b.count).map { b.y($0) })
            #expect(a.yRange(indices: 0..<a.count)! == b.yRange(indices: 0..<b.count)!)
        }
    }

    @Test func mismatchedXIsRefused() throws {
        let c = Self.chart([.line, .line])
        try c.append(seriesId: "s0", xs: [0, 1, 2], ys: [1, 1, 1])
        #expect(throws: AppendError.stackMismatch(index: 1, x: 1.5, series: "s0", expected: 1)) {
            try c.append(seriesId: "s1", xs: [0, 1.5], ys: [1, 1])
        }
        #expect(c.series[1].data.isEmpty)
    }

    /// Stacked columns far narrower than a pixel: the reduced drawing colours every
    /// pixel as the full drawing does (members drawn from the top of the stack down).
    @Test func collapsedStackedColumnsShowTheRightColours() throws {
        let colours = ["#d62728", "#2ca02c", "#1f77b4"]
        var series: [Series] = []
        var rng = SplitMix(seed: 3)
        let n = 30_000
        let xs = (0..<n).map(Double.init)
        for k in 0..<3 {
            var d = XYData()
            try d.append(xs: xs, ys: xs.map { _ in (rng.unit() * 10).rounded() })
            var s = Series(id: "c\(k)", name: "C\(k)", kind: .column, color: colours[k], xAxisId: "x", yAxisId: "y", data: d)
            s.stackIndex = 1
            series.append(s)
        }
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents)], series: series, legend: nil)
        let size = Size(width: 500, height: 300)
        func paint(_ renderer: ChartRenderer) -> [Int64: String] {
            var out: [Int64: String] = [:]
            for case let .bars(b) in renderer.render(chart, size: size, dpr: 1).layers[.series]! {
                for p in SeriesReducerTests.raster(b, dpr: 1, clip: (0, 0, 500, 300)) { out[p] = b.fill }
            }
            return out
        }
        let reduced = paint(ChartRenderer(measurer: TestFonts.measurer))
        let full = paint(ChartRenderer(measurer: TestFonts.measurer, reducesLines: false))
        #expect(Set(reduced.values) == Set(colours))
        #expect(reduced == full)
    }
}

/// Changes other than appends: each atomic, the min/max index and everything derived
/// (reductions, stacks) follow.
@Suite struct DataOperationTests {
    func values(_ d: XYData) -> [Double] { (0..<d.count).map { d.y($0) } }

    @Test func insertUpdateRemoveReplace() throws {
        var d = XYData(capacity: 6)
        try d.append(xs: [0, 1, 2, 3], ys: [10, 11, 12, 13])
        try d.insert(at: 2, xs: [1.5, 1.7], ys: [50, 51])
        #expect((0..<d.count).map { d.x($0) } == [0, 1, 1.5, 1.7, 2, 3])
        #expect(d.yRange(indices: 0..<6)! == (10, 51))
        // Past the capacity, the oldest points make room.
        try d.insert(at: 6, xs: [4], ys: [-5])
        #expect(d.count == 6 && d.x(0) == 1 && d.yRange(indices: 0..<6)! == (-5, 51))
        #expect(throws: AppendError.insertOutOfOrder(index: 1, x: 0.5, bound: 1, before: true)) { try d.insert(at: 1, xs: [0.5], ys: [0]) }
        #expect(throws: AppendError.indexOutOfRange(index: 7, count: 6, inclusive: true)) { try d.insert(at: 7, xs: [9], ys: [0]) }
        try d.update(at: 1, ys: [1, 2])
        #expect(values(d) == [11, 1, 2, 12, 13, -5])
        #expect(d.yRange(indices: 1..<3)! == (1, 2))
        #expect(throws: AppendError.indexOutOfRange(index: 6, count: 6, inclusive: false)) { try d.update(at: 5, ys: [1, 2]) }
        let before = d.generation
        try d.removeFirst(2)
        #expect(values(d) == [2, 12, 13, -5] && d.generation > before)
        try d.replaceAll(xs: [7, 8], ys: [1, .nan])
        #expect(d.count == 2 && d.y(1).isNaN)
        #expect(throws: AppendError.xNotSorted(index: 1)) { try d.replaceAll(xs: [2, 1], ys: [0, 0]) }
        #expect(d.count == 2)
        d.clear()
        #expect(d.isEmpty)
        d.checkInvariants()
    }

    /// A reduction cached before an update is not reused after it.
    @Test func reductionsFollowChanges() throws {
        var d = XYData()
        try d.append(xs: (0..<1000).map(Double.init), ys: (0..<1000).map { Double($0 % 10) })
        let plot = Rect(x: 0, y: 0, width: 200, height: 100)
        let x = CoordinateCalculator(range: DoubleRange(0, 999), pixelStart: 0, pixelEnd: 200)
        let y = CoordinateCalculator(range: DoubleRange(-100, 100), pixelStart: 100, pixelEnd: 0)
        var cache: ColumnReducer.Cache? = nil
        _ = ColumnReducer.reduce(d, x: x, y: y, dpr: 1, plot: plot, style: .init(stroke: "s", width: 1), cache: &cache)
        try d.update(at: 500, ys: [-90])
        let cached = ColumnReducer.reduce(d, x: x, y: y, dpr: 1, plot: plot, style: .init(stroke: "s", width: 1), cache: &cache)
        #expect(cached == ColumnReducer.reduce(d, x: x, y: y, dpr: 1, plot: plot, stroke: "s", width: 1, dash: []))
    }

    @Test func stacksFollowChangesAndKeepTheirX() throws {
        let c = StackTests.chart([.line, .line])
        try c.append(seriesId: "s0", xs: [0, 1, 2], ys: [1, 2, 3])
        try c.append(seriesId: "s1", xs: [0, 1, 2], ys: [10, 20, 30])
        try c.change(seriesId: "s0") { (s: inout Series) throws(AppendError) in try s.update(at: 1, values: [[5]]) }
        #expect((0..<3).map { c.series[1].plotted.y($0) } == [11, 25, 33])
        // An insert would shift one member's x against the other's: refused, nothing changes.
        #expect(throws: AppendError.self) {
            try c.change(seriesId: "s1") { (s: inout Series) throws(AppendError) in try s.insert(at: 1, xs: [0.5], values: [[0]]) }
        }
        #expect(c.series[1].data.count == 3)
        // Candle values are checked as appends check them.
        var candles = Series(id: "k", name: "k", kind: .candlestick, color: "#000", xAxisId: "x", yAxisId: "y")
        try candles.append(xs: [1], values: [[1], [2], [0], [1.5]])
        #expect(throws: AppendError.candleOutOfOrder(index: 0, open: 1, high: 1.2, low: 0, close: 1.5)) {
            try candles.update(at: 0, values: [[1], [1.2], [0], [1.5]])
        }
    }
}

/// Column series sharing an X axis stand side by side (ShinobiCharts' interSeriesPadding
/// and interSeriesSetPadding).
@Suite struct GroupedColumnTests {
    @Test func columnsShareEachSlot() throws {
        let spec = #"{"sessions":[{"id":"g","chart":{"legend":{"show":false},"#
            + #""xAxes":[{"id":"x","mode":"fixed","range":[-0.5,2.5],"growBy":[0,0],"interSeriesSetPadding":0.2,"interSeriesPadding":0.5}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"#
            + #""series":[{"id":"a","type":"column","data":{"x":[0,1,2],"y":[5,5,5]}},{"id":"b","type":"column","data":{"x":[0,1,2],"y":[7,7,7]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 700, height: 300, dpr: 1)
        let layout = s.layout(size: size)
        let xc = layout.axis("x")!.calculator
        let sets = s.displayList(size: size).layers.first { $0.id == .series }!.commands.compactMap { c -> BarSet? in
            if case let .bars(b) = c { b } else { nil }
        }
        #expect(sets.count == 2)
        // Group 0.8 of the spacing, two slots of 0.4, each column half its slot (0.2): centred at x - 0.2 and x + 0.2.
        let unit = abs(xc.pixel(1) - xc.pixel(0))
        for (k, set) in sets.enumerated() {
            let first = set.bars[0]
            let left = Double(set.x0) + Double(first.left) * Double(set.unit)
            let width = Double(first.width) * Double(set.unit)
            let centre = xc.pixel(0) + (k == 0 ? -0.2 : 0.2) * unit
            #expect(abs(left + width / 2 - centre) <= 1, "series \(k)")
            #expect(abs(width - 0.2 * unit) <= 1)
        }
    }
}

/// X in any order: late points are merged where their x belongs, for every type.
@Suite struct UnsortedXTests {
    @Test func lateBatchesMergeIntoXOrder() throws {
        var s = Series(id: "s", name: "s", kind: .candlestick, color: "#000", xAxisId: "x", yAxisId: "y",
                       data: XYData(capacity: 5))
        try s.append(xs: [1, 3, 5], values: [[1, 3, 5], [2, 4, 6], [0, 2, 4], [1.5, 3.5, 5.5]])
        // Unsorted within the batch and behind the newest point; equal x keep arrival order.
        try s.append(xs: [4, 2, 3], values: [[40, 20, 31], [41, 21, 32], [39, 19, 30], [40, 20, 31]])
        // Capacity 5: the smallest x made room.
        #expect((0..<5).map { s.data.x($0) } == [2, 3, 3, 4, 5])
        #expect((0..<5).map { s.data.y($0) } == [20, 3, 31, 40, 5])
        #expect((0..<5).map { s.values("close")!.y($0) } == [20, 3.5, 31, 40, 5.5])
        #expect(s.valueRange()! == (2, 41))
        s.data.checkInvariants()
        // A reload in any order is sorted too.
        try s.replaceAll(xs: [9, 7], values: [[1, 2], [1, 2], [1, 2], [1, 2]])
        #expect((0..<2).map { s.data.x($0) } == [7, 9] && s.data.y(0) == 2)
    }

    @Test func renderedLinesAfterLateDataEqualAFreshSeries() throws {
        var late = Series(id: "s", name: "s", color: "#000", xAxisId: "x", yAxisId: "y")
        try late.append(xs: [0, 2, 4, 6], values: [[0, 2, 4, 6]])
        try late.append(xs: [5, 1, 3], values: [[5, 1, 3]])
        var fresh = Series(id: "s", name: "s", color: "#000", xAxisId: "x", yAxisId: "y")
        try fresh.append(xs: [0, 1, 2, 3, 4, 5, 6], values: [[0, 1, 2, 3, 4, 5, 6]])
        let plot = Rect(x: 0, y: 0, width: 100, height: 50)
        let x = CoordinateCalculator(range: DoubleRange(0, 6), pixelStart: 0, pixelEnd: 100)
        let y = CoordinateCalculator(range: DoubleRange(0, 6), pixelStart: 50, pixelEnd: 0)
        #expect(ColumnReducer.reduce(late.data, x: x, y: y, dpr: 1, plot: plot, stroke: "s", width: 1, dash: [])
                == ColumnReducer.reduce(fresh.data, x: x, y: y, dpr: 1, plot: plot, stroke: "s", width: 1, dash: []))
    }

    /// A stack with a `retention` evicts its stacked values with its points: what is
    /// plotted is the running sums of the points kept, and no more of them.
    @Test func retentionEvictsStackedValues() throws {
        let series = (0..<2).map { k in
            var s = Series(id: "s\(k)", name: "S\(k)", kind: .area, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
            s.stackIndex = 0
            s.retention = 10
            return s
        }
        let c = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                      series: series)
        for start in stride(from: 0, to: 100, by: 7) {
            let xs = (start..<start + 7).map(Double.init)
            try c.append(seriesId: "s0", xs: xs, ys: xs.map { _ in 1 })
            try c.append(seriesId: "s1", xs: xs, ys: xs.map { $0 })
        }
        for k in c.series.indices {
            // (The last batch is x 98...104: x from 94 are kept.)
            #expect(c.series[k].data.firstX == 94 && c.series[k].data.lastX == 104)
            #expect(c.series[k].plotted.count == 11 && c.series[k].plotted.firstSequence == 94)
        }
        #expect((0..<11).map { c.series[1].plotted.y($0) } == (94...104).map { Double($0) + 1 })
    }
}

/// `retention` in a spec: seconds above 0, the same for every series of a stack, and
/// every value field of a series evicted alike.
@Suite struct RetentionSpecTests {
    func session(_ json: String) throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(json), runtime: true).makeSession(measurer: TestFonts.measurer)
    }

    @Test func retentionIsCheckedAndAppliedToEveryField() throws {
        #expect(throws: (any Error).self) { _ = try session(#"{"id": "a", "chart": {"series": [{"id": "s", "retention": 0}]}}"#) }
        #expect(throws: (any Error).self) { _ = try session(#"{"id": "a", "chart": {"series": [{"id": "s", "retention": "1h"}]}}"#) }
        #expect(throws: (any Error).self) {
            _ = try session(#"{"id": "a", "chart": {"series": [{"id": "s", "stackIndex": 1, "retention": 5}, {"id": "t", "stackIndex": 1}]}}"#)
        }
        let s = try session(#"{"id": "a", "chart": {"series": [{"id": "b", "type": "band", "retention": 2.5, "data": {"x": [0, 1, 2, 3], "y": [0, 1, 2, 3], "y1": [5, 6, 7, 8]}}]}}"#)
        let band = s.chart.series[0]
        #expect(band.data.arrays.xs == [1, 2, 3] && band.values("y1")?.arrays.ys == [6, 7, 8])
        _ = try s.append(seriesId: "b", xs: [10], values: [[10], [20]])
        #expect(s.chart.series[0].data.arrays.xs == [10] && s.chart.series[0].values("y1")?.arrays.ys == [20])
    }
}

/// A series reloaded from a store's chunks (`Series.reload(chunks:skip:count:)`) holds
/// what a reload of the same points as whole columns holds, every value field alike.
@Suite struct ReloadChunksTests {
    static func bytes(_ v: [Double]) -> [UInt8] { v.withUnsafeBytes { Array($0) } }

    @Test func chunksEqualColumns() throws {
        let xs = (0..<10_000).map { Double($0) * 0.5 }, lo = xs.map { $0.truncatingRemainder(dividingBy: 7) }, hi = lo.map { $0 + 3 }
        // Chunks of 3000, 3000, 4000; the first 1234 and the last 766 are not the series'.
        let cuts = [0, 3000, 6000, 10_000]
        let chunks = (0..<3).map { k in [xs, lo, hi].map { Self.bytes(Array($0[cuts[k]..<cuts[k + 1]])) } }
        var a = Series(id: "b", name: "B", kind: .band, color: "#000", xAxisId: "x", yAxisId: "y", data: XYData(capacity: 5000))
        var b = a
        try a.reload(chunks: chunks, skip: 1234, count: 8000)
        try b.reload(xs: Array(xs[1234..<9234]), values: [Array(lo[1234..<9234]), Array(hi[1234..<9234])])
        #expect(a.data.arrays.xs == b.data.arrays.xs && a.data.count == 5000)
        #expect(a.values("y1")?.arrays.ys == b.values("y1")?.arrays.ys && a.data.arrays.ys == b.data.arrays.ys)
        #expect(a.data.firstSequence == b.data.firstSequence && a.data.ySummary(0..<5000) == b.data.ySummary(0..<5000))
        // Too few points stored, or a column cut short: refused, the series unchanged.
        #expect(throws: AppendError.self) { try a.reload(chunks: chunks, skip: 5000, count: 8000) }
        var cut = chunks
        cut[1][2].removeLast(8)
        #expect(throws: AppendError.self) { try a.reload(chunks: cut, skip: 0, count: 100) }
        #expect(a.data.arrays.xs == b.data.arrays.xs)
    }
}

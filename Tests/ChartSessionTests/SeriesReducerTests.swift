import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Scatter markers and columns are reduced to what can be seen; each test rasterises
/// the reduced drawing and the full drawing (every point) the way the client draws
/// them, and finds the same pixels.
@Suite struct SeriesReducerTests {
    /// Device pixels covered by markers, stamped as the client stamps its sprite: the
    /// sprite's pixels are those within `reach` of its centre (a disc), offset by the cell.
    static func raster(_ m: MarkerSet, dpr: Double) -> Set<Int64> {
        let r = Int((Double(m.size) / 2 * dpr).rounded(.up))
        var out: Set<Int64> = []
        for c in m.cells {
            // Device pixel of the centre: (x0 + cell · unit) · dpr - 0.5.
            let cx = Int(((Double(m.x0) + Double(c.x) * Double(m.unit)) * dpr - 0.5).rounded())
            let cy = Int(((Double(m.y0) + Double(c.y) * Double(m.unit)) * dpr - 0.5).rounded())
            for dy in -r...r { for dx in -r...r where dx * dx + dy * dy <= r * r { out.insert(Int64(cx + dx) << 32 | Int64(cy + dy)) } }
        }
        return out
    }

    /// Device pixels filled by bars, inside `clip` (the plot, in device pixels).
    static func raster(_ b: BarSet, dpr: Double, clip: (Int, Int, Int, Int)) -> Set<Int64> {
        var out: Set<Int64> = []
        let x0 = Int((Double(b.x0) * dpr).rounded()), y0 = Int((Double(b.y0) * dpr).rounded())
        let step = Double(b.unit) * dpr
        for r in b.bars {
            let l = x0 + Int(Double(r.left) * step), t = y0 + Int(Double(r.top) * step)
            for x in l..<(l + Int(Double(r.width) * step)) where x >= clip.0 && x < clip.2 {
                for y in t..<(t + Int(Double(r.height) * step)) where y >= clip.1 && y < clip.3 { out.insert(Int64(x) << 32 | Int64(y)) }
            }
        }
        return out
    }

    static func randomData(_ n: Int, seed: UInt64, gaps: Bool = false, noise: Double = 30) -> XYData {
        var rng = SplitMix(seed: seed)
        var xs: [Double] = [], ys: [Double] = []
        var x = 0.0
        for i in 0..<n {
            x += rng.unit() * 0.01
            xs.append(x)
            ys.append(gaps && i % 97 == 0 ? .nan : sin(x) * 40 + (rng.unit() - 0.5) * noise)
        }
        var d = XYData()
        try! d.append(xs: xs, ys: ys)
        return d
    }

    @Test(arguments: [(1.0, UInt64(1), false, 50.0), (2.0, 2, false, 50), (1.25, 3, false, 50), (1.0, 4, true, 50), (2.0, 5, true, 50),
                      (1.0, 6, false, 20), (1.5, 7, true, 20), (1.0, 8, false, -50), (1.25, 9, false, -20)])
    func scatterReductionDrawsTheSamePixels(dpr: Double, seed: UInt64, outlined: Bool, yHalf signedHalf: Double) {
        // A negative half range flips the X axis (values growing leftwards) as well.
        let yHalf = abs(signedHalf), flipped = signedHalf < 0
        let data = Self.randomData(20_000, seed: seed, gaps: true, noise: 4)
        let plot = Rect(x: 40.5, y: 10, width: 300, height: 200)
        // The X range cuts the data: markers just outside the plot still reach in.
        let span = data.xRange!
        let x = CoordinateCalculator(range: DoubleRange(span.min + 10, span.max - 10), pixelStart: flipped ? plot.maxX : plot.minX,
                                     pixelEnd: flipped ? plot.minX : plot.maxX)
        // yHalf 20: the range cuts the wave too, so many points fall above and below the grid.
        let y = CoordinateCalculator(range: DoubleRange(-yHalf, yHalf), pixelStart: plot.maxY, pixelEnd: plot.minY)
        // One colour, or an outline over a fill (then every marker's outline shows).
        let style = MarkerStyle(shape: .circle, size: 7, fill: outlined ? "#fff" : "#000", stroke: outlined ? "#000" : nil)
        let reduced = MarkerReducer.reduce(data, x: x, y: y, dpr: dpr, plot: plot, style: style)!
        let full = MarkerReducer.reduce(data, x: x, y: y, dpr: dpr, plot: plot, style: style, dedupe: false)!
        #expect(reduced.cells.count < full.cells.count, "dense data reduces")
        #expect(Set(reduced.cells.map { Int($0.x) << 16 | Int($0.y) }).count == reduced.cells.count, "one marker per pixel")
        #expect(Self.raster(reduced, dpr: dpr) == Self.raster(full, dpr: dpr))
        // Every point whose marker can reach the plot is drawn: compare with a brute-force
        // pass over the grid the reducer uses (the plot's device pixels and a margin of
        // the marker's reach and one pixel about them).
        var expected: Set<Int> = []
        let margin = (style.reach * dpr).rounded(.up) + 1
        let gx = (plot.minX * dpr).rounded(.down) - margin, gy = (plot.minY * dpr).rounded(.down) - margin
        let gw = (plot.maxX * dpr).rounded(.up) + margin - gx + 1, gh = (plot.maxY * dpr).rounded(.up) + margin - gy + 1
        // Points are looked at in the X stretch whose markers can reach across the plot.
        let xEnds = (x.value(plot.minX - style.reach), x.value(plot.maxX + style.reach))
        let xLo = min(xEnds.0, xEnds.1), xHi = max(xEnds.0, xEnds.1)
        for i in 0..<data.count where data.y(i).isFinite && data.x(i) >= xLo && data.x(i) <= xHi {
            let px = x.pixel(data.x(i)) * dpr - gx, py = y.pixel(data.y(i)) * dpr - gy
            if px >= 0, px < gw, py >= 0, py < gh {
                expected.insert(Int(px) << 16 | Int(py))
            }
        }
        let got = Set(reduced.cells.map { Int($0.x) << 16 | Int($0.y) })
        if outlined {
            #expect(got == expected)
        } else {
            // In one colour a marker with all four neighbours drawn adds no pixel and is left out.
            let boundary = expected.filter { c in
                ![c - (1 << 16), c + (1 << 16), c - 1, c + 1].allSatisfy(expected.contains)
            }
            #expect(got == boundary)
            if yHalf == 50 && !flipped { #expect(got.count < expected.count, "some interior markers are left out") }
        }
    }

    @Test func rotatedScatterSwapsAxes() {
        var d = XYData()
        try! d.append(xs: [0, 5, 10], ys: [0, 50, 100])
        let plot = Rect(x: 0, y: 0, width: 100, height: 100)
        // X up the side (bottom to top), Y across.
        let x = CoordinateCalculator(range: DoubleRange(0, 10), pixelStart: 100, pixelEnd: 0)
        let y = CoordinateCalculator(range: DoubleRange(0, 100), pixelStart: 0, pixelEnd: 100)
        let m = MarkerReducer.reduce(d, x: x, y: y, xAlongWidth: false, dpr: 1, plot: plot, style: MarkerStyle(size: 4, fill: "#000"))!
        let centres = m.cells.indices.map { m.centre($0) }
        #expect(centres.map(\.x) == [0.5, 50.5, 99.5] || centres.map(\.x) == [0.5, 50.5, 100.5])
        #expect(centres.first!.y > centres.last!.y)
    }

    @Test(arguments: [1.0, 2.0, 1.5])
    func collapsedColumnsEqualTheFullDrawing(dpr: Double) {
        let data = Self.randomData(50_000, seed: 9, gaps: true)
        let plot = Rect(x: 40, y: 10, width: 400, height: 200)
        let span = data.xRange!
        let x = CoordinateCalculator(range: DoubleRange(span.min + 5, span.max - 5), pixelStart: plot.minX, pixelEnd: plot.maxX)
        let y = CoordinateCalculator(range: DoubleRange(-60, 60), pixelStart: plot.maxY, pixelEnd: plot.minY)
        let style = BarReducer.Style(fill: "#000", baseline: 3)
        let reduced = BarReducer.reduce(data, x: x, y: y, dpr: dpr, plot: plot, style: style)!
        let full = BarReducer.reduce(data, x: x, y: y, dpr: dpr, plot: plot, style: style, collapse: false)!
        #expect(reduced.bars.count <= Int(plot.width * dpr) + 2)
        #expect(full.bars.count > 10 * reduced.bars.count)
        let clip = (Int((plot.minX * dpr).rounded()), Int((plot.minY * dpr).rounded()),
                    Int((plot.maxX * dpr).rounded()), Int((plot.maxY * dpr).rounded()))
        #expect(Self.raster(reduced, dpr: dpr, clip: clip) == Self.raster(full, dpr: dpr, clip: clip))
    }

    @Test func flippedAxisCollapsesToo() {
        let data = Self.randomData(30_000, seed: 4)
        let plot = Rect(x: 0, y: 0, width: 300, height: 150)
        let span = data.xRange!
        let x = CoordinateCalculator(range: DoubleRange(span.min, span.max), pixelStart: plot.maxX, pixelEnd: plot.minX)
        let y = CoordinateCalculator(range: DoubleRange(-60, 60), pixelStart: plot.maxY, pixelEnd: plot.minY)
        let style = BarReducer.Style(fill: "#000")
        let reduced = BarReducer.reduce(data, x: x, y: y, dpr: 1, plot: plot, style: style)!
        let full = BarReducer.reduce(data, x: x, y: y, dpr: 1, plot: plot, style: style, collapse: false)!
        #expect(Self.raster(reduced, dpr: 1, clip: (0, 0, 300, 150)) == Self.raster(full, dpr: 1, clip: (0, 0, 300, 150)))
    }

    @Test func wideColumnsAreCentredOnTheirPoints() {
        var d = XYData()
        try! d.append(xs: [1, 2, 3], ys: [10, -5, 0])
        let plot = Rect(x: 0, y: 0, width: 400, height: 200)
        let x = CoordinateCalculator(range: DoubleRange(0, 4), pixelStart: 0, pixelEnd: 400)
        let y = CoordinateCalculator(range: DoubleRange(-10, 10), pixelStart: 200, pixelEnd: 0)
        let b = BarReducer.reduce(d, x: x, y: y, dpr: 1, plot: plot, style: .init(fill: "#000", widthFraction: 0.5))!
        // x = 1 at pixel 100, 50 px wide; 10 up from the baseline (pixel 100) is pixel 0.
        // Grid origin is one pixel outside the plot (-1, -1). The zero-height column at x = 3 is not drawn.
        #expect(b.bars == [.init(left: 76, width: 50, top: 1, height: 100), .init(left: 176, width: 50, top: 101, height: 50)])
    }

    @Test func columnRangesIncludeTheBaselineAndHalfAColumn() throws {
        var d = XYData()
        try d.append(xs: [0, 1, 2], ys: [5, 7, 6])
        var s = Series(id: "c", name: "c", kind: .column, color: "#000", xAxisId: "x", yAxisId: "y", data: d)
        s.style.columnWidth = 0.5
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, growBy: (0, 0))],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents, growBy: (0, 0))], series: [s])
        #expect(chart.visibleRange("y") == DoubleRange(0, 7))
        // Half a column (0.25) past the outer points, at least.
        let xr = try #require(chart.visibleRange("x"))
        #expect(xr.min <= -0.25 && xr.max >= 2.25 && xr.min > -0.5 && xr.max < 2.5)
    }
}

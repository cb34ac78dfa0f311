import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Unsorted lines (SciChart's unsorted data; spec `unsorted`): drawn in the order the
/// points are given, reduced without assuming x sorted.
@Suite struct UnsortedLineTests {
    /// A Lissajous figure: x = sin(3t), y = sin(2t), t over one period.
    static func lissajous(_ n: Int) -> (xs: [Double], ys: [Double]) {
        let ts = (0..<n).map { Double($0) / Double(n - 1) * 2 * Double.pi }
        return (ts.map { sin(3 * $0) }, ts.map { sin(2 * $0) })
    }

    static func spec(_ n: Int, extra: String = "") -> String {
        let (xs, ys) = lissajous(n)
        func list(_ v: [Double]) -> String { "[" + v.map { "\($0)" }.joined(separator: ",") + "]" }
        return #"{"id": "u", "chart": {"series": [{"id": "l", "unsorted": true\#(extra), "data": {"x": \#(list(xs)), "y": \#(list(ys))}}]}}"#
    }

    @Test func unorderedDataKeepsTheOrderGiven() throws {
        var d = XYData(ordered: false)
        try d.append(xs: [3, 1, 2], ys: [0, 1, 2])
        try d.append(xs: [-4], ys: [5])
        #expect(d.arrays.xs == [3, 1, 2, -4])
        #expect(d.xRange! == (-4, 3))
        #expect(d.nearestIndex(toX: 1.2) == 1 && d.nearestIndex(toX: -10) == 3)
        #expect(d.lowerBound(2) == 0 && d.upperBound(2) == 4)
        // Sorted data still refuses x going back.
        var sorted = XYData()
        #expect(throws: AppendError.self) { try sorted.append(xs: [3, 1], ys: [0, 0]) }
    }

    @Test func aSessionAppendsInTheOrderGivenThroughTheDoor() throws {
        let s = try ConfigSpec.decodeSession(foundationJSON(Self.spec(10))).makeSession(measurer: TestFonts.measurer)
        try s.submit(.append(series: "l", xs: [5, -5, 0], values: [[1, 2, 3]]))
        let xs = s.chart.series[0].data.arrays.xs
        #expect(xs.suffix(3) == [5, -5, 0])
        #expect(s.chart.series[0].isUnsorted)
        // The x axis' extents are those of every point, not the first and last.
        let r = try #require(s.chart.resolvedRanges()["x"])
        #expect(r.min <= -5 && r.max >= 5)
    }

    /// The reduced line visits every device pixel the full line's points fall in, in
    /// the same order: each point's pixel is the pixel of the kept point it follows or
    /// of the next one. (A reduction that sorted x, or kept one entry per column,
    /// breaks this at the first turn of the figure.)
    @Test func theReducedLineFollowsEveryPointInOrder() throws {
        let n = 100_000
        let s = try ConfigSpec.decodeSession(foundationJSON(Self.spec(n))).makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 800, height: 500, dpr: 2)
        let list = s.displayList(size: size)
        let series = try #require(list.layers.first { $0.id == .series })
        let lines = series.commands.compactMap { c -> [Float]? in if case let .polyline(p, _, _, _) = c { return p } else { return nil } }
        #expect(lines.count == 1, "one polyline, no columns: \(series.commands.count) commands")
        let kept = try #require(lines.first)
        // (The figure's path is about 10,000 device pixels long at this size.)
        #expect(kept.count / 2 < n / 5, "reduced: \(kept.count / 2) of \(n) points")
        #expect(kept.count / 2 > 500)
        let layout = s.layout(size: size)
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        func cell(_ px: Double, _ py: Double) -> [Int] { [Int((Double(Float(px)) * 2).rounded(.down)), Int((Double(Float(py)) * 2).rounded(.down))] }
        let keptCells = stride(from: 0, to: kept.count, by: 2).map { cell(Double(kept[$0]), Double(kept[$0 + 1])) }
        let (xs, ys) = Self.lissajous(n)
        var k = 0
        for i in 0..<n {
            let c = cell(xl.calculator.pixel(xs[i]), yl.calculator.pixel(ys[i]))
            if c == keptCells[k] { continue }
            k += 1
            guard k < keptCells.count, c == keptCells[k] else {
                Issue.record("point \(i) at \(c) is not on the reduced line's next pixel \(k < keptCells.count ? keptCells[k] : [])")
                return
            }
        }
        #expect(k == keptCells.count - 1)
        // The figure turns back in x: the kept points do too (drawn in data order).
        let px = stride(from: 0, to: kept.count, by: 2).map { kept[$0] }
        #expect(zip(px, px.dropFirst()).contains { $0 > $1 } && zip(px, px.dropFirst()).contains { $0 < $1 })
    }

    @Test func hitTestingFindsThePointUnderThePointerAnywhereInTheArray() throws {
        let n = 400
        let s = try ConfigSpec.decodeSession(foundationJSON(Self.spec(n))).makeSession(measurer: TestFonts.measurer)
        let layout = s.layout(size: ViewerSize(width: 800, height: 500, dpr: 1))
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        let (xs, ys) = Self.lissajous(n)
        let target = 333  // late in the array, at an x many earlier points share
        let p = Point(x: xl.calculator.pixel(xs[target]), y: yl.calculator.pixel(ys[target]))
        let m = SeriesSelectionModifier()
        m.mode = .point
        let found = m.nearestPoint(to: p, chart: s.chart, layout: layout)
        #expect(found?.1 == target)
    }

    @Test func theSpecFieldIsForLinesAlone() throws {
        #expect(try ConfigSpec.decodeSession(foundationJSON(Self.spec(3))).chart.series[0].unsorted)
        for (extra, says) in [(#", "type": "column""#, "line"), (#", "stackIndex": 0"#, "stackIndex"), (#", "marker": {}"#, "markers")] {
            do {
                _ = try ConfigSpec.decodeSession(foundationJSON(Self.spec(3, extra: extra)))
                Issue.record("accepted \(extra)")
            } catch { #expect("\(error)".contains(says) && "\(error)".contains("unsorted"), "\(error)") }
        }
    }
}

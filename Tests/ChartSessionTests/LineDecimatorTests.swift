import Testing
import LayoutEngine
@testable import ChartSession

@Suite struct LineDecimatorTests {
    func reduce(_ xs: [Double], _ ys: [Double], width: Double, dpr: Double = 1, flipped: Bool = false) -> [Float] {
        let x = CoordinateCalculator(range: DoubleRange(xs.first!, xs.last!), pixelStart: flipped ? width : 0,
                                           pixelEnd: flipped ? 0 : width)
        let y = CoordinateCalculator(range: DoubleRange(-1000, 1000), pixelStart: 1000, pixelEnd: 0)
        var data = XYData()
        try! data.append(xs: xs, ys: ys)
        var out: [Float] = []
        LineDecimator.reduce(data, indices: 0..<xs.count, x: x, y: y, dpr: dpr, into: &out)
        return out
    }

    /// A noisy series of many points: at most 4 points per device column, and in each
    /// column the same first, last, lowest and highest pixel as the full line.
    @Test(arguments: [(100_000, 200.0, 1.0, false), (50_000, 300.0, 2.0, false), (1_000, 800.0, 1.0, false),
                      (7, 500.0, 1.5, false), (100_000, 200.0, 1.0, true), (3_000, 700.0, 2.0, true)])
    func keepsEveryColumnsExtremes(count: Int, width: Double, dpr: Double, flipped: Bool) {
        var rng = SplitMix64(seed: 42)
        let xs = (0..<count).map(Double.init)
        let ys = (0..<count).map { _ in rng.nextUnit() * 1800 - 900 }
        let reduced = reduce(xs, ys, width: width, dpr: dpr, flipped: flipped)
        let full = reduce(xs, ys, width: width * 1e6, dpr: dpr, flipped: flipped)  // wide enough to keep every point
        #expect(full.count == count * 2)

        func columns(_ pts: [Float]) -> [Int: (first: Float, last: Float, lo: Float, hi: Float, n: Int)] {
            var out: [Int: (first: Float, last: Float, lo: Float, hi: Float, n: Int)] = [:]
            for i in stride(from: 0, to: pts.count, by: 2) {
                let c = Int((Double(pts[i]) * dpr).rounded(.down))
                let y = pts[i + 1]
                if let e = out[c] { out[c] = (e.first, y, min(e.lo, y), max(e.hi, y), e.n + 1) }
                else { out[c] = (y, y, y, y, 1) }
            }
            return out
        }
        // Map the full line's points to the narrow width's columns.
        let x = CoordinateCalculator(range: DoubleRange(0, Double(count - 1)), pixelStart: flipped ? width : 0,
                                           pixelEnd: flipped ? 0 : width)
        var fullInNarrow: [Float] = []
        for i in 0..<count { fullInNarrow += [Float(x.pixel(xs[i])), full[2 * i + 1]] }
        let a = columns(reduced), b = columns(fullInNarrow)
        #expect(a.count == b.count)
        for (c, e) in a {
            let f = b[c]!
            #expect(e.n <= 4)
            #expect(e.first == f.first && e.last == f.last && e.lo == f.lo && e.hi == f.hi, "column \(c)")
        }
        #expect(reduced.count / 2 <= Int(width * dpr + 1) * 4)
    }

    @Test func keepsDataOrder() {
        // In one column: down to -900, up to 900, end at 0. Order first, min, max, last.
        let pts = reduce([0, 0.1, 0.2, 0.3, 100], [0, -900, 900, 0, 0], width: 1)
        let ys = stride(from: 1, to: pts.count, by: 2).map { pts[$0] }
        #expect(ys == [500, 950, 50, 500, 500])
    }
}

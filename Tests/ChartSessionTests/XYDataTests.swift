import Testing
@testable import ChartSession

@Suite struct XYDataTests {
    @Test func appendsAndSearches() throws {
        var d = XYData()
        try d.append(xs: [1, 2, 2, 5], ys: [10, 20, 30, 40])
        #expect(d.count == 4)
        #expect(d.lowerBound(2) == 1 && d.upperBound(2) == 3)
        #expect(d.lowerBound(0) == 0 && d.upperBound(9) == 4)
        #expect(d.yRange(xFrom: 2, to: 4)! == (20, 30))
        #expect(d.yRange(xFrom: 6, to: 7) == nil)
        #expect(d.xRange! == (1, 5))
    }

    @Test func refusedAppendsChangeNothing() throws {
        var d = XYData()
        try d.append(xs: [1, 2], ys: [1, 2])
        #expect(throws: AppendError.lengthMismatch(x: 2, y: 1)) { try d.append(xs: [3, 4], ys: [1]) }
        #expect(throws: AppendError.nonFinite(field: "y", index: 1)) { try d.append(xs: [3, 4], ys: [1, -.infinity]) }
        #expect(throws: AppendError.nonFinite(field: "x", index: 0)) { try d.append(xs: [.infinity], ys: [1]) }
        #expect(throws: AppendError.xNotSorted(index: 0)) { try d.append(xs: [1.5], ys: [1]) }
        #expect(throws: AppendError.xNotSorted(index: 2)) { try d.append(xs: [3, 4, 3.5], ys: [1, 1, 1]) }
        #expect(d.count == 2 && d.lastX == 2)
    }

    @Test func fifoKeepsTheNewest() throws {
        var d = XYData(capacity: 5)
        for i in 0..<23 { d.append(x: Double(i), y: Double(i) * 2) }
        #expect(d.count == 5)
        #expect((0..<5).map { d.x($0) } == [18, 19, 20, 21, 22])
        #expect((0..<5).map { d.y($0) } == [36, 38, 40, 42, 44])
        try d.append(xs: Array(100..<112).map(Double.init), ys: Array(repeating: 1, count: 12))
        #expect(d.count == 5 && d.firstX == 107 && d.lastX == 111)
        #expect(d.lowerBound(109) == 2)
        #expect((0..<5).map { d.x($0) } == [107, 108, 109, 110, 111])
    }

    @Test func generatorIsDeterministicAndTiedToTheClock() {
        var a = DataGenerator(kind: .randomWalk, rate: 50, seed: 9)
        var b = DataGenerator(kind: .randomWalk, rate: 50, seed: 9)
        let p1 = a.points(upTo: 1.0)
        #expect(p1.xs.count == 51)  // x = 0, 0.02, ..., 1.0
        #expect(p1.xs.last == 1.0)
        #expect(b.points(upTo: 0.5).ys + b.points(upTo: 1.0).ys == p1.ys)
        #expect(a.points(upTo: 1.0).xs.isEmpty)
        var sine = DataGenerator(kind: .sine, rate: 4, amplitude: 2, period: 1)
        let s = sine.points(upTo: 0.5)
        #expect(s.xs == [0, 0.25, 0.5])
        #expect(abs(s.ys[1] - 2) < 1e-12 && abs(s.ys[2]) < 1e-12)
        // After a long stall it catches up by a bounded number of points.
        var g = DataGenerator(kind: .sine, rate: 1000)
        #expect(g.points(upTo: 3600).xs.count == DataGenerator.maxCatchUp)
    }
}

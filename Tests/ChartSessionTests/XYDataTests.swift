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

    /// Chunked storage: a FIFO across many chunk boundaries keeps exactly its newest
    /// points, and a copy taken midway (as an independent view takes one) keeps the points
    /// it saw while the original goes on appending and evicting.
    @Test func copiesKeepTheirPointsWhileTheOriginalMovesOn() throws {
        var d = XYData(capacity: 10_000)
        func y(_ i: Int) -> Double { i % 97 == 0 ? .nan : Double((i * 7919) % 1000) }
        for i in 0..<25_000 { d.append(x: Double(i), y: y(i)) }
        let copy = d
        try d.append(xs: (25_000..<40_000).map(Double.init), ys: (25_000..<40_000).map(y))
        for i in 40_000..<41_234 { d.append(x: Double(i), y: y(i)) }
        #expect(d.count == 10_000 && d.firstX == 31_234 && d.lastX == 41_233 && d.firstSequence == 31_234)
        #expect(copy.count == 10_000 && copy.firstX == 15_000 && copy.lastX == 24_999)
        #expect((0..<10_000).allSatisfy { d.x($0) == Double(31_234 + $0) && d.y($0).isNaN == y(31_234 + $0).isNaN })
        #expect((0..<10_000).allSatisfy { copy.x($0) == Double(15_000 + $0) && (copy.y($0) == y(15_000 + $0) || y(15_000 + $0).isNaN) })
        d.checkInvariants(); copy.checkInvariants()
        // Stretches cover a range in order, chunk by chunk.
        var xs: [Double] = []
        copy.withStretches(123..<9_000) { x, _ in xs += x }
        #expect(xs == (15_123..<24_000).map(Double.init))
        // The min/max index answers for the copy from the copy's points.
        let expected = (15_100..<24_100).map(y).filter { !$0.isNaN }
        #expect(copy.yRange(indices: 100..<9_100)! == (expected.min()!, expected.max()!))
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

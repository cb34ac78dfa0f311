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

/// X values on a line are kept as the line (`XRamp`); every value reads back bit for bit.
@Suite struct XRampTests {
    /// Appends `xs` (with y = index) in batches of `batch` (1: one point at a time) and
    /// checks every way of reading x against what went in, bit for bit.
    func roundTrip(_ xs: [Double], batch: Int, capacity: Int? = nil) throws -> XYData {
        var d = XYData(capacity: capacity)
        var i = 0
        while i < xs.count {
            let n = min(batch, xs.count - i)
            if n == 1 { d.append(x: xs[i], y: Double(i)) } else {
                try d.append(xs: Array(xs[i..<i + n]), ys: (i..<i + n).map(Double.init))
            }
            i += n
        }
        let kept = Array(xs.suffix(d.count))
        #expect(d.count == min(xs.count, capacity ?? xs.count))
        #expect((0..<d.count).allSatisfy { d.x($0).bitPattern == kept[$0].bitPattern })
        #expect(d.arrays.xs.map(\.bitPattern) == kept.map(\.bitPattern))
        var stretched: [Double] = []
        let lo = min(3, d.count), hi = max(lo, d.count - 2)
        d.withStretches(lo..<hi) { x, _ in stretched += x }
        #expect(stretched.map(\.bitPattern) == Array(kept[lo..<hi]).map(\.bitPattern))
        if let first = kept.first { #expect(d.lowerBound(first) == 0 && d.upperBound(kept.last!) == d.count) }
        d.checkInvariants()
        return d
    }

    @Test func sampleIndicesCostNoBytes() throws {
        let xs = (0..<100_000).map(Double.init)
        for batch in [1, 7, 1000, 100_000] {
            let d = try roundTrip(xs, batch: batch)
            #expect(d.xHeapBytes == 0, "batch \(batch): \(d.xHeapBytes) bytes")
        }
        // Plain values for the same count: 8 bytes a point.
        var rng = SystemRandomNumberGenerator()
        var x = 0.0
        let irregular = (0..<100_000).map { _ in x += Double.random(in: 0.5...1.5, using: &rng); return x }
        let plain = try roundTrip(irregular, batch: 1000)
        #expect(plain.xHeapBytes >= 100_000 * 8)
    }

    /// A sender adding its period up (`t += 0.1` from a Unix time) drifts off the exact
    /// line by a few units in the last place: two bytes a point, read back exactly.
    @Test func accumulatedTimestampsReadBackExactly() throws {
        var t = 1_790_000_000.0
        let xs = (0..<50_000).map { _ -> Double in defer { t += 0.1 }; return t }
        var u = 0.0
        let small = (0..<50_000).map { _ -> Double in defer { u += 0.001 }; return u }
        for batch in [1, 333, 50_000] {
            let d = try roundTrip(xs, batch: batch)
            #expect(d.xHeapBytes <= 50_000 * 2 + 4 * 4096, "batch \(batch): \(d.xHeapBytes) bytes")
            _ = try roundTrip(small, batch: batch)
        }
    }

    /// Values that leave the line mid-chunk, repeats, -0.0, and steps that overflow.
    @Test func valuesOffTheLineBecomePlain() throws {
        var xs = (0..<3000).map(Double.init)
        xs += [3000, 3000, 3000, 5000.5, 5001, 1e300, 1.7e308]            // off the line mid-chunk
        xs += (0..<6000).map { 1.7e308 + Double($0) }                        // (equal doubles: step 0)
        _ = try roundTrip(xs, batch: 1)
        _ = try roundTrip(xs, batch: 500)
        _ = try roundTrip(xs, batch: xs.count)
        let signed: [Double] = [-0.0, 0.0, 1, 2, 3]
        let d = try roundTrip(signed, batch: 1)
        #expect(d.x(0).sign == .minus)
        _ = try roundTrip([-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude], batch: 1)
        _ = try roundTrip([-Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude], batch: 3)
        // Whole chunks of repeats, then negative values rising to zero.
        _ = try roundTrip(Array(repeating: 7.25, count: 9000) + (1...9000).map { 7.25 + Double($0) / 1024 }, batch: 4096)
        _ = try roundTrip((0..<9000).map { -1 + Double($0) / 9000 }, batch: 1)
    }

    /// A FIFO evicts ramp chunks and plain ones alike, and copies keep their points.
    @Test func fifoAndCopiesKeepExactValues() throws {
        var t = 1_790_000_000.0
        let xs = (0..<40_000).map { i -> Double in defer { t += i % 5000 < 4000 ? 0.25 : Double(i % 7) / 3 }; return t }
        for batch in [1, 999] {
            var d = try roundTrip(xs, batch: batch, capacity: 10_000)
            let copy = d
            try d.append(xs: (1...5000).map { t + Double($0) }, ys: Array(repeating: 1, count: 5000))
            #expect(copy.arrays.xs.map(\.bitPattern) == xs.suffix(10_000).map(\.bitPattern))
            #expect(d.firstX == xs[35_000] && d.lastX == t + 5000)
            d.checkInvariants()
        }
    }
}

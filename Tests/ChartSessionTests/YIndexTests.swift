import Testing
import TestSupport
@testable import ChartSession

/// The min/max index against a plain model of the points: every combination of
/// capacities around the block sizes, batch sizes and query ranges.
@Suite struct YIndexTests {
    struct Model {
        var xs: [Double] = [], ys: [Double] = []
        let capacity: Int?
        mutating func append(_ x: [Double], _ y: [Double]) {
            xs += x; ys += y
            if let capacity, xs.count > capacity { xs.removeFirst(xs.count - capacity); ys.removeFirst(ys.count - capacity) }
        }
        func summary(_ r: Range<Int>) -> XYData.YSummary {
            var s = XYData.YSummary()
            for i in r { s.add(ys[i]) }
            return s
        }
    }

    static let capacities: [Int?] = [nil, 1, 2, 3, 15, 16, 17, 255, 256, 257, 1000, 4097]

    @Test(arguments: capacities)
    func summariesMatchAScan(capacity: Int?) throws {
        var rng = SplitMix64(seed: UInt64(capacity ?? 0) &+ 99)
        var data = XYData(capacity: capacity)
        var model = Model(capacity: capacity)
        var x = 0.0, y = 0.0
        for round in 0..<60 {
            let n = [0, 1, 5, 16, 17, 100, 300, 1200][Int(rng.nextUnit() * 8)]
            var bx: [Double] = [], by: [Double] = []
            for _ in 0..<n {
                if rng.nextUnit() > 0.1 { x += rng.nextUnit() }     // runs of equal x
                y += rng.nextUnit() - 0.5
                let r = rng.nextUnit()
                by.append(r < 0.03 ? .nan : r < 0.06 ? 5 : y)           // gaps and constant stretches
                bx.append(x)
            }
            try data.append(xs: bx, ys: by)
            model.append(bx, by)
            #expect(data.count == model.xs.count)
            data.checkInvariants()
            let c = data.count
            guard c > 0 else { continue }
            #expect((0..<c).allSatisfy { data.x($0) == model.xs[$0] && data.y($0).bitPattern == model.ys[$0].bitPattern })
            // Query ranges: empty, single, whole, block-aligned and not, random.
            var ranges: [Range<Int>] = [0..<0, 0..<1, 0..<c, (c - 1)..<c, 0..<min(c, 16), 0..<min(c, 256)]
            for _ in 0..<40 {
                let a = Int(rng.nextUnit() * Double(c)), b = a + Int(rng.nextUnit() * Double(c - a + 1))
                ranges.append(a..<min(b, c))
            }
            for r in ranges {
                let got = data.ySummary(r), want = model.summary(r)
                #expect(got == want, "round \(round), range \(r) of \(c): \(got) != \(want)")
                let yr = data.yRange(indices: r)
                #expect(yr?.min == (want.min <= want.max ? want.min : nil))
            }
            for v in [x - 3, x - 0.5, x, x + 1, model.xs[0], model.xs[c / 2]] {
                #expect(data.lowerBound(v) == model.xs.firstIndex { $0 >= v } ?? c)
                #expect(data.upperBound(v) == model.xs.firstIndex { $0 > v } ?? c)
            }
        }
    }

    @Test func gapsInfinitiesAndNaNX() throws {
        var d = XYData()
        try d.append(xs: [0, 1, 2], ys: [1, .nan, 3])
        #expect(d.ySummary(0..<3) == XYData.YSummary(min: 1, max: 3, hasGap: true))
        #expect(d.yRange(indices: 1..<2) == nil)   // only a gap
        #expect(throws: AppendError.nonFinite(field: "y", index: 1)) { try d.append(xs: [3, 4], ys: [0, .infinity]) }
        #expect(throws: AppendError.nonFinite(field: "x", index: 0)) { try d.append(xs: [.nan], ys: [0]) }
        #expect(d.count == 3)
    }

    @Test func aBatchLargerThanTheCapacityKeepsItsNewestPoints() throws {
        var d = XYData(capacity: 20)
        try d.append(xs: (0..<7).map(Double.init), ys: (0..<7).map(Double.init))
        try d.append(xs: (10..<110).map(Double.init), ys: (10..<110).map { Double($0 % 13) })
        #expect(d.count == 20 && d.firstX == 90 && d.lastX == 109)
        #expect(d.firstSequence == 87 && d.endSequence == 107)
        d.checkInvariants()
        #expect(d.ySummary(0..<20) == XYData.YSummary(min: 0, max: 12))
        for i in 110..<200 { d.append(x: Double(i), y: -Double(i)) }
        d.checkInvariants()
        #expect(d.ySummary(0..<20).min == -199)
    }
}

/// A large batch is stored a chunk at a time (`appendInBulk`): the same series as the
/// same points appended one by one.
@Suite struct BulkAppendTests {
    @Test(arguments: [0, 1, 15, 16, 4095, 4096, 5000])
    func bulkEqualsPointByPoint(already: Int) throws {
        var rng = SplitMix64(seed: UInt64(already) &+ 7)
        var x = 0.0
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<(already + 20_000) {
            x += [0, 0.5, 1, 0.25][Int(rng.nextUnit() * 4)]
            xs.append(x)
            ys.append(rng.nextUnit() < 0.02 ? .nan : rng.nextUnit())
        }
        var bulk = XYData(), single = XYData()
        try bulk.append(xs: Array(xs[..<already]), ys: Array(ys[..<already]))
        try bulk.append(xs: Array(xs[already...]), ys: Array(ys[already...]))
        for i in xs.indices { try single.append(xs: [xs[i]], ys: [ys[i]]) }
        bulk.checkInvariants()
        #expect(bulk.count == single.count && bulk.minSpacing == single.minSpacing)
        #expect(bulk.arrays.xs == single.arrays.xs && bulk.arrays.ys.map(\.bitPattern) == single.arrays.ys.map(\.bitPattern))
        for r in [0..<bulk.count, 3..<4099, 4096..<8192, 100..<17_000, (bulk.count - 5)..<bulk.count] {
            #expect(bulk.ySummary(r) == single.ySummary(r), "\(r)")
        }
        // And it goes on point by point from there.
        try bulk.append(xs: [x + 1], ys: [2]); try single.append(xs: [x + 1], ys: [2])
        #expect(bulk.ySummary(0..<bulk.count) == single.ySummary(0..<single.count))
        bulk.checkInvariants()
    }

    /// A full FIFO (`capacity`) takes a large batch a chunk at a time too, the oldest
    /// points making room first: the same points, index and spacing as one by one.
    @Test(arguments: [(5000, 3000), (10_000, 4096), (9000, 9000), (20_000, 300), (4096, 4000)])
    func bulkIntoFullFifoEqualsPointByPoint(capacity: Int, batch: Int) throws {
        var rng = SplitMix64(seed: UInt64(capacity &* 31 &+ batch))
        var x = 0.0
        var bulk = XYData(capacity: capacity), single = XYData(capacity: capacity)
        for _ in 0..<6 {
            var xs: [Double] = [], ys: [Double] = []
            for _ in 0..<batch {
                x += [0, 0.5, 1, 0.25][Int(rng.nextUnit() * 4)]
                xs.append(x)
                ys.append(rng.nextUnit() < 0.02 ? .nan : rng.nextUnit())
            }
            try bulk.append(xs: xs, ys: ys)
            for i in xs.indices { try single.append(xs: [xs[i]], ys: [ys[i]]) }
            bulk.checkInvariants()
            #expect(bulk.count == single.count && bulk.firstSequence == single.firstSequence)
            #expect(bulk.minSpacing == single.minSpacing)
            #expect(bulk.arrays.xs == single.arrays.xs && bulk.arrays.ys.map(\.bitPattern) == single.arrays.ys.map(\.bitPattern))
            for r in [0..<bulk.count, 3..<min(bulk.count, 4099), (bulk.count / 3)..<bulk.count, (bulk.count - 5)..<bulk.count] {
                #expect(bulk.ySummary(r) == single.ySummary(r), "\(r)")
            }
        }
    }

    /// `evict(before:)` (a retention) drops the oldest points as a FIFO does: the run
    /// and sequence numbers go on, the index answers for what is left.
    @Test func evictBeforeKeepsTheRun() throws {
        var d = XYData()
        let xs = (0..<10_000).map(Double.init)
        try d.append(xs: xs, ys: xs.map { $0.truncatingRemainder(dividingBy: 97) })
        let lineage = d.lineage
        #expect(d.evict(before: 5000.5) == 5001)
        #expect(d.firstX == 5001 && d.count == 4999 && d.firstSequence == 5001 && d.lineage == lineage)
        d.checkInvariants()
        #expect(d.ySummary(0..<d.count) == XYData.YSummary(min: 0, max: 96))
        #expect(d.evict(before: 1) == 0 && d.count == 4999)
        #expect(d.evict(before: 1e9) == 4999 && d.isEmpty && d.endSequence == 10_000)
        try d.append(xs: [2e9, 2e9 + 1], ys: [1, 2])
        d.checkInvariants()
        #expect(d.firstSequence == 10_000 && d.ySummary(0..<2) == XYData.YSummary(min: 1, max: 2))
    }
}

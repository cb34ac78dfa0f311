import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The reduced line against the full line: for every device-pixel column of the plot,
/// the span of y the full line covers there is covered by the reduced drawing within
/// one device pixel in x and in y, and the reduced drawing covers nothing else.
@Suite struct ColumnReducerTests {
    /// Per device column, the hull of the y (device px) a set of polylines covers
    /// inside that column, clipped to the plot's height and to two device pixels
    /// beyond its sides (a column just outside the plot counts as a neighbour).
    static func coverage(_ lines: [[Float]], dpr: Double, plot: Rect) -> [Int: (lo: Double, hi: Double)] {
        var out: [Int: (lo: Double, hi: Double)] = [:]
        let left = plot.minX * dpr - 2, right = plot.maxX * dpr + 2, top = plot.minY * dpr, bottom = plot.maxY * dpr
        func add(_ c: Int, _ a: Double, _ b: Double) {
            let lo = max(min(a, b), top), hi = min(max(a, b), bottom)
            guard lo <= hi else { return }
            if let e = out[c] { out[c] = (min(e.lo, lo), max(e.hi, hi)) } else { out[c] = (lo, hi) }
        }
        for pts in lines {
            var i = 0
            while i + 3 < pts.count {
                let x1 = Double(pts[i]) * dpr, y1 = Double(pts[i + 1]) * dpr
                let x2 = Double(pts[i + 2]) * dpr, y2 = Double(pts[i + 3]) * dpr
                i += 2
                let xa = max(min(x1, x2), left), xb = min(max(x1, x2), right - 1e-9)
                guard xa <= xb else { continue }
                func yAt(_ x: Double) -> Double { x2 == x1 ? y1 : y1 + (y2 - y1) * (x - x1) / (x2 - x1) }
                var c = Int(xa.rounded(.down))
                while Double(c) <= xb {
                    let s = max(xa, Double(c)), e = min(xb, Double(c + 1))
                    if x1 == x2 { add(c, y1, y2) } else { add(c, yAt(s), yAt(e)) }
                    c += 1
                }
            }
        }
        return out
    }

    /// The columns in `inside` where `a` is not within the hull of `b`'s columns one
    /// either side, widened by `tolerance` device pixels.
    static func covered(_ a: [Int: (lo: Double, hi: Double)], by b: [Int: (lo: Double, hi: Double)],
                        tolerance: Double, inside: Range<Int>) -> [Int] {
        a.keys.sorted().filter { inside.contains($0) }.filter { c in
            let near = [b[c - 1], b[c], b[c + 1]].compactMap { $0 }
            guard let lo = near.map(\.lo).min(), let hi = near.map(\.hi).max() else { return true }
            return a[c]!.lo < lo - tolerance || a[c]!.hi > hi + tolerance
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var points: Int, width: Double, dpr: Double, window: (Double, Double), gaps: Bool, capacity: Int?, sparse: Bool
        var flipped = false
        var step = false
        var testDescription: String {
            "\(points) pts, \(width) px @\(dpr), window \(window), gaps \(gaps), cap \(capacity.map(String.init) ?? "-"), sparse \(sparse)"
                + (flipped ? ", flipped" : "") + (step ? ", step" : "")
        }
    }

    static let cases: [Case] = [
        Case(points: 20_000, width: 300, dpr: 1, window: (0, 1), gaps: false, capacity: nil, sparse: false),
        Case(points: 20_000, width: 300, dpr: 2, window: (0.2, 0.5), gaps: true, capacity: nil, sparse: false),
        Case(points: 5_000, width: 700, dpr: 1.5, window: (0.01, 0.05), gaps: false, capacity: 3_000, sparse: false),
        Case(points: 400, width: 900, dpr: 1, window: (0.1, 0.9), gaps: true, capacity: nil, sparse: true),
        Case(points: 300, width: 640, dpr: 2, window: (0.45, 0.47), gaps: false, capacity: nil, sparse: true),
        Case(points: 50_000, width: 250, dpr: 1, window: (0.97, 1.2), gaps: true, capacity: 20_000, sparse: false),
        Case(points: 2_000, width: 500, dpr: 1, window: (-0.3, 0.01), gaps: false, capacity: nil, sparse: true),
        Case(points: 30_000, width: 600, dpr: 1.25, window: (0.1, 0.7), gaps: true, capacity: nil, sparse: false, flipped: true),
        Case(points: 500, width: 300, dpr: 3, window: (0.2, 0.3), gaps: false, capacity: nil, sparse: true, flipped: true),
        // Step lines: dense, sparse (long horizontal holds), gaps, a flipped axis.
        Case(points: 20_000, width: 300, dpr: 2, window: (0.2, 0.5), gaps: true, capacity: nil, sparse: false, step: true),
        Case(points: 400, width: 900, dpr: 1, window: (0.1, 0.9), gaps: true, capacity: nil, sparse: true, step: true),
        Case(points: 2_000, width: 500, dpr: 1.5, window: (-0.3, 0.01), gaps: false, capacity: nil, sparse: true, step: true),
        Case(points: 500, width: 300, dpr: 3, window: (0.2, 0.3), gaps: false, capacity: nil, sparse: true, flipped: true,
             step: true),
        Case(points: 5_000, width: 700, dpr: 1.25, window: (0.01, 0.05), gaps: false, capacity: 3_000, sparse: false,
             step: true),
    ]

    @Test(arguments: cases)
    func reducedLineCoversWhatTheFullLineCovers(_ c: Case) throws {
        var rng = SplitMix64(seed: UInt64(c.points) &* 31 &+ UInt64(c.width))
        var data = XYData(capacity: c.capacity)
        var x = 0.0, y = 0.0
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<c.points {
            x += c.sparse ? rng.nextUnit() * 5 : (rng.nextUnit() < 0.05 ? 0 : rng.nextUnit())   // repeats of x too
            y += (rng.nextUnit() - 0.5) * (rng.nextUnit() < 0.01 ? 400 : 4)                      // and some jumps
            xs.append(x)
            ys.append(c.gaps && rng.nextUnit() < 0.01 ? .nan : y)
        }
        try data.append(xs: xs, ys: ys)
        let first = data.x(0), last = data.x(data.count - 1)
        let span = last - first
        let xr = DoubleRange(first + span * c.window.0, first + span * c.window.1)
        let plot = Rect(x: 40, y: 20, width: c.width, height: 300)
        let xc = CoordinateCalculator(range: xr, pixelStart: c.flipped ? plot.maxX : plot.minX,
                                            pixelEnd: c.flipped ? plot.minX : plot.maxX)
        let yr = try #require(data.yRange(indices: 0..<data.count))
        // A y range somewhat narrower than the data: some of the line leaves the plot.
        let yc = CoordinateCalculator(range: DoubleRange(yr.min + (yr.max - yr.min) * 0.1, yr.max),
                                            pixelStart: plot.maxY, pixelEnd: plot.minY)
        var cache: ColumnReducer.Cache? = nil
        let line = try #require(ColumnReducer.reduce(data, x: xc, y: yc, dpr: c.dpr, plot: plot,
                                                     style: .init(stroke: "red", width: 1, step: c.step), cache: &cache))
        #expect(line.step == c.step)

        // The full line: every point, split at NaN, in CSS pixels; a step line holds
        // each value until the next point's x.
        var full: [[Float]] = [[]]
        for i in 0..<data.count {
            let v = data.y(i)
            if v.isNaN { full.append([]); continue }
            let px = Float(xc.pixel(data.x(i))), py = Float(yc.pixel(v))
            if c.step, let held = full[full.count - 1].last { full[full.count - 1] += [px, held] }
            full[full.count - 1] += [px, py]
        }
        let f = Self.coverage(full, dpr: c.dpr, plot: plot)
        let r = Self.coverage(line.polylines, dpr: c.dpr, plot: plot)
        #expect(!f.isEmpty || !c.sparse)
        let inside = Int((plot.minX * c.dpr).rounded(.down))..<Int((plot.maxX * c.dpr).rounded(.up))
        #expect(Self.covered(f, by: r, tolerance: 1, inside: inside) == [], "full line pixels the reduced line misses")
        #expect(Self.covered(r, by: f, tolerance: 1, inside: inside) == [], "reduced line pixels the full line does not cover")
        // At most a few entries per device column: the frame follows pixels.
        #expect(line.entries.count <= Int(c.width * c.dpr) * 2 + 8)
    }

    /// Reusing the previous reduction gives exactly what computing afresh gives, through
    /// appends (some beyond the far edge), FIFO evictions (some in view), gaps, and
    /// changes of scale.
    @Test(arguments: [nil, 700, 5_000] as [Int?])
    func incrementalEqualsFresh(capacity: Int?) throws {
        var rng = SplitMix64(seed: UInt64(capacity ?? 1))
        var data = XYData(capacity: capacity)
        var cache: ColumnReducer.Cache? = nil
        let plot = Rect(x: 30, y: 10, width: 400, height: 250)
        var x = 0.0, y = 0.0, reusedScale = 0
        var range = DoubleRange(0, 100)
        for step in 0..<400 {
            var xs: [Double] = [], ys: [Double] = []
            for _ in 0..<(1 + Int(rng.nextUnit() * 40)) {
                x += rng.nextUnit() * 0.3
                y += rng.nextUnit() - 0.5
                xs.append(x); ys.append(rng.nextUnit() < 0.01 ? .nan : y)
            }
            try data.append(xs: xs, ys: ys)
            // Mostly a still range (the live case), sometimes a new one.
            if rng.nextUnit() < 0.08 {
                let lo = max(0, x - 60 - rng.nextUnit() * 200)
                range = DoubleRange(lo, lo + 20 + rng.nextUnit() * 250)
            } else { reusedScale += 1 }
            let xc = CoordinateCalculator(range: range, pixelStart: plot.minX, pixelEnd: plot.maxX)
            let yc = CoordinateCalculator(range: DoubleRange(-30, 30), pixelStart: plot.maxY, pixelEnd: plot.minY)
            let dpr = step % 3 == 0 ? 1.0 : 1.0
            let incremental = ColumnReducer.reduce(data, x: xc, y: yc, dpr: dpr, plot: plot, style: .init(stroke: "s", width: 1),
                                                   cache: &cache)
            let fresh = ColumnReducer.reduce(data, x: xc, y: yc, dpr: dpr, plot: plot, stroke: "s", width: 1, dash: [])
            #expect(incremental == fresh, "step \(step)")
            if incremental != fresh { break }
        }
        #expect(reusedScale > 300)
    }

    /// A chart following its newest points (Unix-time x, a window whose span varies in
    /// its last bits from frame to frame, a FIFO evicting, gaps, a second canvas size):
    /// the reduction reuses the columns it had, and gives exactly what a fresh one gives.
    /// (As a line and as a step line, whose connections read the columns' first and last
    /// values; now and then the points are sparser than the columns, so connections
    /// cross empty columns and read them too.)
    @Test(arguments: [1.0, 2.0], [false, true])
    func scrollingReductionReusesAndEqualsFresh(dpr: Double, step isStep: Bool) throws {
        var rng = SplitMix64(seed: UInt64(dpr * 7))
        var data = XYData(capacity: 3_000)
        var cache: ColumnReducer.Cache? = nil
        let plot = Rect(x: 41, y: 12, width: 523, height: 240)
        var x = 1_763_900_000.0, y = 0.0, reused = 0, steps = 0, moved = 0, address = 0
        for i in 0..<2_500 { x += 0.02; y += rng.nextUnit() - 0.5; data.append(x: x, y: i % 500 == 7 ? .nan : y) }
        for step in 0..<300 {
            var xs: [Double] = [], ys: [Double] = []
            for _ in 0..<(1 + Int(rng.nextUnit() * 3)) {
                x += rng.nextUnit() < 0.05 ? 0.3 : 0.02
                y += rng.nextUnit() - 0.5
                xs.append(x); ys.append(rng.nextUnit() < 0.02 ? .nan : y)
            }
            try data.append(xs: xs, ys: ys)
            let window = 20.0 + (step % 50 == 49 ? 5 : 0)   // now and then the window changes
            let xc = CoordinateCalculator(range: DoubleRange(x - window, x), pixelStart: plot.minX, pixelEnd: plot.maxX)
            let yc = CoordinateCalculator(range: DoubleRange(-30, 30), pixelStart: plot.maxY, pixelEnd: plot.minY)
            let style = ColumnReducer.Style(stroke: "s", width: 1, step: isStep)
            let incremental = ColumnReducer.reduce(data, x: xc, y: yc, dpr: dpr, plot: plot, style: style, cache: &cache)
            var none: ColumnReducer.Cache? = nil
            let fresh = ColumnReducer.reduce(data, x: xc, y: yc, dpr: dpr, plot: plot, style: style, cache: &none)
            #expect(incremental == fresh, "step \(step)")
            if incremental != fresh { break }
            steps += 1
            if let a = cache?.raws.storageAddress, a != address { moved += 1; address = a }
            if (cache?.reused ?? 0) > (incremental?.entries.count ?? 0) / 2 { reused += 1 }
        }
        #expect(steps == 300)
        // All but the first reduction and those just after a change of window.
        #expect(reused >= 285)
        // The kept columns stay where they are: the run moves only when it grows past its
        // capacity or a change of window starts it afresh, not at every scroll.
        #expect(moved < 30, "the kept run was moved \(moved) times in 300 reductions")
    }

    /// A FIFO shorter than the window, sparse and with gaps: the oldest point lies inside
    /// the plot and leaves it with every append, so the kept columns' first one meets a
    /// new neighbour, or none, at every frame. Incremental and fresh reductions agree.
    @Test(arguments: [false, true])
    func evictedStartInsideTheWindowEqualsFresh(step isStep: Bool) throws {
        var rng = SplitMix64(seed: isStep ? 5 : 6)
        var data = XYData(capacity: 60)
        var cache: ColumnReducer.Cache? = nil
        let plot = Rect(x: 10, y: 10, width: 400, height: 200)
        var x = 1_000.0, y = 0.0, reused = 0
        for step in 0..<400 {
            for _ in 0..<(1 + Int(rng.nextUnit() * 2)) {
                x += rng.nextUnit() < 0.3 ? 0.05 : 0.4
                y += rng.nextUnit() - 0.5
                try data.append(xs: [x], ys: [rng.nextUnit() < 0.08 ? .nan : y])
            }
            let xc = CoordinateCalculator(range: DoubleRange(x - 30, x + 0.5), pixelStart: plot.minX, pixelEnd: plot.maxX)
            let yc = CoordinateCalculator(range: DoubleRange(-15, 15), pixelStart: plot.maxY, pixelEnd: plot.minY)
            let style = ColumnReducer.Style(stroke: "s", width: 1, step: isStep)
            let incremental = ColumnReducer.reduce(data, x: xc, y: yc, dpr: 1, plot: plot, style: style, cache: &cache)
            var none: ColumnReducer.Cache? = nil
            let fresh = ColumnReducer.reduce(data, x: xc, y: yc, dpr: 1, plot: plot, style: style, cache: &none)
            #expect(incremental == fresh, "step \(step)")
            if incremental != fresh { break }
            if (cache?.reused ?? 0) > 0 { reused += 1 }
        }
        #expect(reused > 300)
    }

    /// The search for the kept stretch's ends finds what a scan finds, whatever its
    /// guess (right, near, far, outside the run) and however the columns repeat (gaps
    /// split a column into several entries) or skip (sparse data).
    @Test func partitionFindsWhatAScanFinds() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<200 {
            var columns: [Int] = []
            var k = Int(rng.nextUnit() * 100) - 50
            for _ in 0..<Int(rng.nextUnit() * 60) {
                columns.append(k)
                let r = rng.nextUnit()
                k += r < 0.1 ? 0 : r < 0.8 ? 1 : Int(rng.nextUnit() * 20)
            }
            let run = ColumnReducer.RawRun(columns.map {
                .init(column: $0, lo: 0, hi: 0, first: 0, last: 0, joined: true, lastSequence: 0)
            })
            for _ in 0..<20 {
                let column = (columns.first ?? 0) + Int(rng.nextUnit() * 90) - 10
                let scan = columns.firstIndex { $0 > column } ?? columns.count
                for guess in [column - (columns.first ?? 0), -5, 0, columns.count / 2, columns.count - 1, columns.count + 7,
                              Int(rng.nextUnit() * 80) - 10] {
                    #expect(ColumnReducer.partition(run, guess: guess) { $0.column > column } == scan,
                            "columns \(columns) past \(column) guess \(guess)")
                }
            }
        }
    }

    /// The run a reduction keeps in place holds exactly what an array given the same
    /// changes holds, through many scrolls (its start moves on, it runs out of room in
    /// front, and it is moved back once more room than run lies before it).
    @Test func rawRunKeepsWhatAnArrayKeeps() {
        var rng = SplitMix64(seed: 11)
        func raw(_ k: Int) -> ColumnReducer.Raw {
            .init(column: k, lo: Double(k), hi: Double(k) + 1, first: 0, last: 0, joined: k % 3 == 0, lastSequence: k * 2)
        }
        var run = ColumnReducer.RawRun((0..<200).map(raw))
        var model = (0..<200).map(raw)
        var next = 200
        for step in 0..<3_000 {
            // Drop a few at the front and the recomputed end, put 0–40 in front, append some.
            let lo = Int(rng.nextUnit() * 4), hi = model.count - Int(rng.nextUnit() * 3)
            guard hi > lo else { break }
            run.keep(lo..<hi); model = Array(model[lo..<hi])
            let near = (0..<(step % 97 == 0 ? 40 : Int(rng.nextUnit() * 3))).map { raw(-$0 - step) }
            run.prepend(near); model = near + model
            for _ in 0..<Int(rng.nextUnit() * 5) { run.append(raw(next)); model.append(raw(next)); next += 1 }
            if step % 500 == 0 { run.keep(0..<min(run.count, 10)); model = Array(model.prefix(10)) }
            #expect(run.count == model.count, "step \(step)")
            guard run.count == model.count else { break }
            let same = zip(run, model).allSatisfy { $0.column == $1.column && $0.lastSequence == $1.lastSequence }
            #expect(same, "step \(step)")
            if !same { break }
        }
    }

    /// Scrolling by whole columns keeps every column's content: a patch carries only
    /// the columns at the new end.
    @Test func scrollingReusesColumns() throws {
        var data = XYData(capacity: 10_000)
        for i in 0..<10_000 { data.append(x: Double(i) * 0.01, y: sin(Double(i) * 0.013)) }
        let plot = Rect(x: 0, y: 0, width: 500, height: 200)
        func reduce(_ hi: Double) -> ColumnLine {
            let xc = CoordinateCalculator(range: DoubleRange(hi - 50, hi), pixelStart: 0, pixelEnd: 500)
            let yc = CoordinateCalculator(range: DoubleRange(-1, 1), pixelStart: 200, pixelEnd: 0)
            return ColumnReducer.reduce(data, x: xc, y: yc, dpr: 1, plot: plot, stroke: "red", width: 1, dash: [])!
        }
        let a = reduce(data.lastX!)
        for i in 10_000..<10_030 { data.append(x: Double(i) * 0.01, y: sin(Double(i) * 0.013)) }
        let b = reduce(data.lastX!)
        let patch = try #require(ColumnsPatch.diff(from: a, to: b))
        #expect(patch.keepCount >= a.entries.count - 5)
        #expect(patch.head.count + patch.tail.count <= 6)
        #expect(try patch.apply(to: a, op: 0) == b)
    }

    /// A scrolling line's patch from the line reduced just before starts from the entries
    /// the reducer says it kept (`lineage`), and is the patch that comparing every entry
    /// finds; from an older line, or once the entries were changed, it compares.
    @Test(arguments: [false, true])
    func lineagePatchEqualsComparedPatch(step isStep: Bool) throws {
        var rng = SplitMix64(seed: isStep ? 3 : 4)
        var data = XYData(capacity: 4_000)
        var cache: ColumnReducer.Cache? = nil
        let plot = Rect(x: 40, y: 10, width: 600, height: 300)
        let yc = CoordinateCalculator(range: DoubleRange(-20, 20), pixelStart: plot.maxY, pixelEnd: plot.minY)
        var x = 0.0, y = 0.0, lines: [ColumnLine] = [], fromLineage = 0
        for step in 0..<200 {
            var xs: [Double] = [], ys: [Double] = []
            for _ in 0..<(1 + Int(rng.nextUnit() * 6)) {
                x += 0.02 + rng.nextUnit() * 0.02
                y += rng.nextUnit() - 0.5
                xs.append(x); ys.append(rng.nextUnit() < 0.01 ? .nan : y)
            }
            try data.append(xs: xs, ys: ys)
            let xc = CoordinateCalculator(range: DoubleRange(x - 30, x), pixelStart: plot.minX, pixelEnd: plot.maxX)
            let line = try #require(ColumnReducer.reduce(data, x: xc, y: yc, dpr: 1, plot: plot,
                                                         style: .init(stroke: "s", width: 1, step: isStep), cache: &cache))
            if let previous = lines.last {
                var unmarked = line
                unmarked.lineage = nil
                let patch = try #require(ColumnsPatch.diff(from: previous, to: line))
                #expect(patch == ColumnsPatch.diff(from: previous, to: unmarked), "step \(step)")
                #expect(try patch.apply(to: previous, op: 0) == line)
                if line.lineage?.parent == previous.lineage?.id, line.lineage?.count ?? 0 > 0 { fromLineage += 1 }
            }
            if lines.count >= 3 {
                // Three lines back: not the parent, so the entries are compared.
                let old = lines[lines.count - 3]
                #expect(line.lineage?.parent != old.lineage?.id)
                #expect(try #require(ColumnsPatch.diff(from: old, to: line)).apply(to: old, op: 0) == line)
            }
            lines.append(line)
        }
        #expect(fromLineage > 150)
        // Changed entries are no longer what the reducer kept.
        var changed = lines[lines.count - 1]
        changed.entries[changed.entries.count / 2].hi &+= 1
        #expect(changed.lineage == nil)
    }
}

private func sin(_ v: Double) -> Double {
    // A smooth, exactly reproducible wave (no libm differences between machines).
    let t = v.truncatingRemainder(dividingBy: 2 * 3.141592653589793) / 3.141592653589793 - 1
    return 4 * t * (1 - abs(t)) * (t < 0 ? -1 : 1) * -1
}

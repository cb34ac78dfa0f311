import LayoutEngine
import Synchronization

/// Reduces a line series to a `ColumnLine`: one entry per device-pixel column that
/// holds data, its extremes read from the series' min/max index. A frame costs the
/// number of columns times the logarithm of the point count, not the point count.
///
/// Columns are anchored to the data: column `k` holds the points with
/// `k·w <= x < (k+1)·w`, `w` being the data width of one device pixel. The line
/// reaches both plot edges: the column just outside each edge holds the neighbouring
/// data, or where that lies further away, the point where the line crosses that column.
public enum ColumnReducer {
    /// Vertical room (in quanta) kept above and below the plot for values outside it.
    static let margin = 16_384
    /// The finest quantum: a quarter of a device pixel.
    static let quantaPerDevicePixel = 4.0

    /// One column entry before quantisation (CSS pixels; the absolute column, so a kept
    /// entry stands as it was whatever the window's first column now is).
    struct Raw: Sendable {
        var column: Int
        var lo: Double, hi: Double, first: Double, last: Double
        var joined: Bool
        /// Sequence number of the last point it stands for.
        var lastSequence: Int
    }

    /// What the previous reduction of a series at one canvas size computed, so that the
    /// next one recomputes only the columns whose points changed: appended points change
    /// the columns from the previous newest point's onwards, evicted ones the columns up
    /// to the oldest remaining point's, and the two edge columns are always recomputed.
    /// A column's content depends only on its points and the column width, not on where
    /// the axis starts: with an unchanged scale (a still range, or one scrolling with the
    /// data, as a live chart's does) a publication costs a few columns.
    public struct Cache: Sendable {
        /// The column width (X data units) and the absolute columns of the two edges.
        var w: Double, firstColumn: Int, lastColumn: Int
        var y: CoordinateCalculator
        var dpr: Double, plot: Rect, step: Bool
        /// The data's generation: any change but an append or eviction makes it stale.
        var generation: Int
        var firstSequence: Int, endSequence: Int
        /// Absolute columns, in column order.
        var raws: RawRun
        /// `raws` quantised and normalised, entry for entry (nil when a connection had to be
        /// clipped).
        var entries: [ColumnLine.Entry]?
        /// How many of `raws` the reduction that made this cache took from the one before.
        var reused = 0
        /// The number of the line it made (`ColumnLine.Lineage`).
        var lineID: UInt64 = 0
    }

    /// Numbers for the lines reductions make, unique in the process: a line's lineage
    /// names its parent by number, and a patch trusts it only between the two lines.
    private static let lineIDs = Atomic<UInt64>(0)

    /// Raws in column order, kept in place from one reduction to the next. A scroll keeps
    /// most of them: the columns that left at the front only move where the run starts,
    /// the recomputed ones at the end replace the old end, and a new edge goes into the
    /// room before the start. So a publication costs the columns that changed, not a copy
    /// of all of them (with a view per viewer, that copy was the largest single cost).
    struct RawRun: RandomAccessCollection, Sendable {
        private var storage: [Raw] = []
        /// Where the run starts in `storage`; the slots before are room for `prepend`.
        private var start = 0
        /// Room left before the start when the storage is rebuilt.
        static let room = 32

        init() {}
        init(_ raws: [Raw]) { storage = raws }

        /// Where the storage lives (tests: a scroll changes the run in place, not a copy).
        var storageAddress: Int { storage.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } }
        var startIndex: Int { 0 }
        var endIndex: Int { storage.count - start }
        subscript(i: Int) -> Raw { storage[start + i] }

        mutating func append(_ r: Raw) { storage.append(r) }
        mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(start + n) }

        /// Keeps only `range` (of the run's indices).
        mutating func keep(_ range: Range<Int>) {
            storage.removeLast(storage.count - start - range.upperBound)
            start += range.lowerBound
            // Once more room than run lies in front, move the run back (amortised: at
            // least `count` columns were dropped since the last move).
            if start > Self.room, start > count { rebuild(prepending: []) }
        }

        /// Puts `raws` in front of the run.
        mutating func prepend(_ raws: [Raw]) {
            guard raws.count <= start else { return rebuild(prepending: raws) }
            start -= raws.count
            storage.withUnsafeMutableBufferPointer { b in
                for (i, r) in raws.enumerated() { b[start + i] = r }
            }
        }

        private mutating func rebuild(prepending raws: [Raw]) {
            let filler = Raw(column: 0, lo: 0, hi: 0, first: 0, last: 0, joined: false, lastSequence: 0)
            var s = [Raw](repeating: filler, count: Self.room)
            s.reserveCapacity(Self.room + raws.count + count + Self.room)
            s += raws
            s += storage[start...]
            storage = s
            start = Self.room
        }
    }

    /// How the reduced line is drawn: its stroke, whether it steps, and its fill (an
    /// area) down to `baseline` (Y data units).
    public struct Style: Equatable, Sendable {
        public var stroke: String
        public var width: Float
        public var dash: [Float]
        public var step: Bool
        public var fill: Fill?

        public init(stroke: String, width: Float, dash: [Float] = [], step: Bool = false, fill: Fill? = nil) {
            self.stroke = stroke; self.width = width; self.dash = dash; self.step = step; self.fill = fill
        }
    }

    /// An area's fill: a colour, optionally a gradient to a second colour at the
    /// baseline, and the baseline in Y data units.
    public struct Fill: Equatable, Sendable {
        public var color: String
        public var gradient: String?
        public var baseline: Double
        public init(color: String, gradient: String? = nil, baseline: Double = 0) {
            self.color = color; self.gradient = gradient; self.baseline = baseline
        }
    }

    /// The columns of `data` between the plot edges, or nil when the X axis does not
    /// run horizontally or its scale cannot be anchored (callers then draw points).
    public static func reduce(
        _ data: XYData, x: CoordinateCalculator, y: CoordinateCalculator, dpr: Double, plot: Rect,
        stroke: String, width: Float, dash: [Float]
    ) -> ColumnLine? {
        var cache: Cache? = nil
        return reduce(data, x: x, y: y, dpr: dpr, plot: plot, style: Style(stroke: stroke, width: width, dash: dash), cache: &cache)
    }

    /// The same in any style, reusing and updating `cache` (nil: compute everything).
    public static func reduce(
        _ data: XYData, x: CoordinateCalculator, y: CoordinateCalculator, dpr: Double, plot: Rect,
        style: Style, cache: inout Cache?
    ) -> ColumnLine? {
        let step = style.step
        let devicePerUnit = (x.pixelEnd - x.pixelStart) / x.range.span * dpr
        let w = snappedWidth(1 / abs(devicePerUnit))
        guard w.isFinite, w > 0, !data.isEmpty else { return nil }
        let kA = (x.range.min / w).rounded(.down), kB = (x.range.max / w).rounded(.down)
        guard abs(kA) < 1e15, abs(kB) < 1e15, kB - kA < 1e6 else { return nil }
        let firstColumn = Int(kA) - 1          // column 0 of the line: just outside the near edge
        let lastColumn = Int(kB) + 1           // just outside the far edge
        let yOf = { (v: Double) in y.pixel(v) }

        var raws = RawRun()
        /// The data index of the last point the entries so far end with (-2: none).
        var lastEmitted = -2

        /// The column of point `i`, by the same comparisons the column searches make.
        func column(_ i: Int) -> Int {
            let v = data.x(i)
            // Only the columns from just before the first to just after the last are
            // told apart: far points (x = ±1e308, v / w infinite) stop two beyond them.
            let q = (v / w).rounded(.down)
            if !(q > Double(firstColumn - 2)) { return firstColumn - 2 }
            if !(q < Double(lastColumn + 2)) { return lastColumn + 2 }
            var k = Int(q)
            if v < Double(k) * w { k -= 1 } else if v >= Double(k + 1) * w { k += 1 }
            return k
        }

        /// Emits the entries of column `k` holding points `s..<e` (non-empty).
        func emitColumn(_ k: Int, _ s: Int, _ e: Int) {
            let summary = data.ySummary(s..<e)
            if !summary.hasGap {
                raws.append(Raw(column: k, lo: yOf(summary.min), hi: yOf(summary.max),
                                first: yOf(data.y(s)), last: yOf(data.y(e - 1)), joined: lastEmitted == s - 1,
                                lastSequence: data.firstSequence + e - 1))
                lastEmitted = e - 1
                return
            }
            // A gap splits the column: one entry per stretch of finite values.
            var i = s
            while i < e {
                while i < e, data.y(i).isNaN { i += 1 }
                guard i < e else { break }
                let a = i
                var lo = data.y(i), hi = lo
                while i < e, !data.y(i).isNaN {
                    lo = min(lo, data.y(i)); hi = max(hi, data.y(i)); i += 1
                }
                raws.append(Raw(column: k, lo: yOf(lo), hi: yOf(hi), first: yOf(data.y(a)),
                                last: yOf(data.y(i - 1)), joined: lastEmitted == a - 1, lastSequence: data.firstSequence + i - 1))
                lastEmitted = i - 1
            }
        }

        /// The point where the segment between points `p` and `p+1` crosses the centre
        /// of column `k`, as a one-point entry.
        func emitCrossing(_ k: Int, between p: Int) {
            let (xa, ya, xb, yb) = (data.x(p), data.y(p), data.x(p + 1), data.y(p + 1))
            guard ya.isFinite, yb.isFinite, xb > xa else { return }
            let t = Double.fraction((Double(k) + 0.5) * w, from: xa, to: xb)
            // A step line holds the earlier value until the next point. (Both finite
            // however far apart the points: -1e308 to 1e308.)
            let v = yOf(step ? ya : Double.lerp(ya, yb, t))
            raws.append(Raw(column: k, lo: v, hi: v, first: v, last: v, joined: lastEmitted == p,
                            lastSequence: data.firstSequence + p))
            lastEmitted = p
        }

        let count = data.count
        var runGuess = max(1, count / max(1, lastColumn - firstColumn))

        /// The near edge and the visible columns up to `upTo` (inclusive); returns the
        /// first point past them.
        func front(upTo: Int) -> Int {
            let s = data.lowerBound(Double(firstColumn + 1) * w)   // first point of the first visible column
            if s > 0 {
                if column(s - 1) == firstColumn {
                    emitColumn(firstColumn, data.lowerBound(Double(firstColumn) * w), s)
                } else if s < count {
                    emitCrossing(firstColumn, between: s - 1)
                }
            }
            return columns(from: s, k: firstColumn + 1, upTo: min(upTo, lastColumn - 1))
        }

        /// The columns `k...upTo` from point `s` on, skipping empty stretches; returns
        /// the first point past them.
        func columns(from start: Int, k first: Int, upTo: Int) -> Int {
            var s = start, k = first
            while k <= upTo, s < count {
                k = max(k, column(s))
                guard k <= upTo else { break }
                let e = firstIndex(data, atLeast: Double(k + 1) * w, from: s + 1, guess: s + runGuess)
                emitColumn(k, s, e)
                runGuess = max(1, e - s)
                s = e
                k += 1
            }
            return s
        }

        /// The far edge, from the first point past the visible columns.
        func back(_ s: Int) {
            guard s < count else { return }
            if column(s) == lastColumn {
                emitColumn(lastColumn, s, firstIndex(data, atLeast: Double(lastColumn + 1) * w, from: s + 1, guess: s + runGuess))
            } else if s > 0 {
                emitCrossing(lastColumn, between: s - 1)
            }
        }

        // What the previous reduction at this scale can give: the columns strictly inside
        // both its edges and these, after the oldest point's (if points were evicted) and
        // before the previous newest point's (if points were appended). Absolute columns.
        // (When reused: the cached raws kept, and where they sit in `raws`.)
        var kept: (from: Range<Int>, at: Int, shift: Int)? = nil
        var plan: (kept: Range<Int>, before: Int, shift: Int)? = nil
        if let c = cache, c.w == w, c.y == y, c.dpr == dpr, c.plot.minY == plot.minY, c.plot.height == plot.height,
           c.step == step, c.generation == data.generation,
           data.firstSequence >= c.firstSequence, data.endSequence >= c.endSequence, c.endSequence > data.firstSequence {
            var after = max(firstColumn, c.firstColumn)
            if data.firstSequence > c.firstSequence { after = max(after, column(0)) }
            var before = min(lastColumn, c.lastColumn)
            if data.endSequence > c.endSequence { before = min(before, column(c.endSequence - 1 - data.firstSequence)) }
            // Raws are in column order: the kept ones are one stretch.
            // (Where a column's entry should be, were there one entry per column.)
            let first = c.raws.isEmpty ? 0 : c.raws[0].column
            let lo = partition(c.raws, guess: after + 1 - first) { $0.column > after }
            let hi = max(lo, partition(c.raws, guess: before - first) { $0.column >= before })
            if hi > lo, hi - lo > c.raws.count / 2 { plan = (lo..<hi, before, c.firstColumn - firstColumn) }
        }
        if let plan {
            // The cached run is taken out (so it is the only reference and changes in
            // place), cut to the kept stretch, and the near edge put in front of it.
            _ = front(upTo: cache!.raws[plan.kept.lowerBound].column - 1)
            let near = Array(raws)
            lastEmitted = cache!.raws[plan.kept.upperBound - 1].lastSequence - data.firstSequence
            raws = cache!.raws
            cache!.raws = RawRun()
            raws.keep(plan.kept)
            raws.prepend(near)
            kept = (plan.kept, near.count, plan.shift)
            // The columns from `before` on, and the far edge.
            back(columns(from: data.lowerBound(Double(plan.before) * w), k: plan.before, upTo: lastColumn - 1))
        } else {
            raws.reserveCapacity(lastColumn - firstColumn + 2)
            back(front(upTo: lastColumn - 1))
        }

        let dy = max(0.25 / dpr, plot.height / 32_768)
        let y0 = plot.minY - Double(margin) * dy
        let (low, high) = (y0, y0 + 65_535 * dy)
        let entries: [ColumnLine.Entry]
        var entriesMatchRaws = true
        /// Where the entries need normalising (nil: everywhere).
        var unsettled: [Range<Int>]? = nil
        let outside = { (r: Raw) in r.lo < low || r.hi > high }
        /// The entries taken from the cached line as they were: new `start..<start+count`
        /// are its `parentStart...` (nil: none).
        var inherited: (start: Int, parentStart: Int, count: Int)? = nil
        if let (from, at, shift) = kept, let cached = cache?.entries,
           !raws[..<at].contains(where: outside), !raws[(at + from.count)...].contains(where: outside) {
            // Same scale, nothing to clip: the kept columns' entries stand as they were,
            // normalised as they were, but for the stretch's two ends, which meet new
            // neighbours: those are quantised again and normalised with the new entries.
            var e: [ColumnLine.Entry] = []
            e.reserveCapacity(raws.count)
            for r in raws[..<at] { e.append(quantise(r, firstColumn: firstColumn, y0: y0, dy: dy)) }
            e += cached[from]
            if shift != 0 {
                let d = Int32(shift)
                e.withUnsafeMutableBufferPointer { b in for i in at..<(at + from.count) { b[i].column += d } }
            }
            for r in raws[(at + from.count)...] { e.append(quantise(r, firstColumn: firstColumn, y0: y0, dy: dy)) }
            let last = at + from.count - 1
            e[at] = quantise(raws[at], firstColumn: firstColumn, y0: y0, dy: dy)
            e[last] = quantise(raws[last], firstColumn: firstColumn, y0: y0, dy: dy)
            entries = e
            unsettled = [0..<(at + 1), last..<e.count]
            // Only the stretch's two ends were quantised and normalised again.
            if from.count > 2 { inherited = (at + 1, from.lowerBound + 1, from.count - 2) }
        } else {
            if let clipped = clipGapConnections(raws, low: low, high: high) {
                entriesMatchRaws = clipped.count == raws.count
                entries = quantise(clipped, firstColumn: firstColumn, y0: y0, dy: dy)
            } else {
                entries = quantise(raws, firstColumn: firstColumn, y0: y0, dy: dy)
            }
        }
        let sign: Double = devicePerUnit > 0 ? 1 : -1
        var area: ColumnLine.Area? = nil
        if let fill = style.fill {
            let base = y.pixel(fill.baseline)
            // The gradient starts at the plot edge on the far side of the baseline.
            let top = abs(plot.minY - base) >= abs(plot.maxY - base) ? plot.minY : plot.maxY
            area = ColumnLine.Area(fill: fill.color, gradient: fill.gradient,
                                   base: quantiseClamped(base, y0: y0, dy: dy), top: quantiseClamped(top, y0: y0, dy: dy))
        }
        var line = ColumnLine(stroke: style.stroke, width: style.width, dash: style.dash,
                              x0: Float(x.pixel((Double(firstColumn) + 0.5) * w)), dx: Float(sign / dpr),
                              y0: Float(y0), dy: Float(dy), entries: entries, step: step, area: area)
        line.anchor = Int64(firstColumn)
        if let unsettled { for r in unsettled { line.normalize(r) } } else { line.normalize() }
        let id = lineIDs.wrappingAdd(1, ordering: .relaxed).newValue
        if let inherited, let parent = cache?.lineID, parent != 0 {
            line.lineage = .init(id: id, parent: parent, start: inherited.start, parentStart: inherited.parentStart,
                                 count: inherited.count)
        } else {
            line.lineage = .init(id: id, parent: 0, start: 0, parentStart: 0, count: 0)
        }
        // The cache holds the entries normalised: the line shares them, and the next
        // reduction keeps them as they are.
        cache = Cache(w: w, firstColumn: firstColumn, lastColumn: lastColumn, y: y, dpr: dpr, plot: plot, step: step,
                      generation: data.generation, firstSequence: data.firstSequence, endSequence: data.endSequence,
                      raws: raws, entries: entriesMatchRaws ? line.entries : nil, reused: kept?.from.count ?? 0,
                      lineID: entriesMatchRaws ? id : 0)
        return line
    }

    /// The column width rounded to 20 significant bits. A scrolling axis' span (newest x
    /// minus a window) varies from frame to frame in its last bits; rounded, the columns
    /// stay where they were, so the previous frame's columns can be reused. (Columns are
    /// drawn one device pixel apart: at most 2^-20 of a pixel's width off per column.)
    static func snappedWidth(_ w: Double) -> Double {
        guard w.isFinite, w > 0 else { return w }
        let unit = Double(sign: .plus, exponent: w.exponent - 20, significand: 1)
        return (w / unit).rounded() * unit
    }

    /// First index in `from...count` whose x is at least `value`, given that every
    /// index below `from` has a smaller x; starts at `guess` and gallops.
    static func firstIndex(_ data: XYData, atLeast value: Double, from lo: Int, guess: Int) -> Int {
        firstPast(from: lo, to: data.count, guess: guess) { data.x($0) >= value }
    }

    /// The first index in `lo...n` at which `isPast` holds, a predicate false up to some
    /// index and true from it on: searched from `guess` outwards, galloping, then halving.
    /// A good guess costs a probe or two, where halving the whole range would probe (and,
    /// out of the cache, miss) at every step.
    @inline(__always)
    static func firstPast(from lo: Int, to n: Int, guess: Int, _ isPast: (Int) -> Bool) -> Int {
        guard lo < n else { return n }
        let g = min(max(guess, lo), n - 1)
        var a: Int, b: Int  // answer in a...b
        if !isPast(g) {
            a = g + 1; b = n
            var step = 1
            while g + step < n {
                if isPast(g + step) { b = g + step; break }
                a = g + step + 1
                step <<= 1
            }
        } else {
            a = lo; b = g
            var step = 1
            while g - step >= lo {
                if !isPast(g - step) { a = g - step + 1; break }
                b = g - step
                step <<= 1
            }
        }
        while a < b {
            let mid = (a + b) >> 1
            if isPast(mid) { b = mid } else { a = mid + 1 }
        }
        return a
    }

    /// Where a connection across empty columns leaves the quantisable band (far
    /// outside the plot), it is cut at the band's edge: the visible part keeps its
    /// direction, and the part outside is not drawn. Nil when every entry lies inside the
    /// band (nothing to cut, and no copy of the run made).
    static func clipGapConnections(_ raws: RawRun, low: Double, high: Double) -> [Raw]? {
        guard raws.contains(where: { $0.lo < low || $0.hi > high }) else { return nil }
        var out: [Raw] = []
        out.reserveCapacity(raws.count + 4)
        for var e in raws {
            guard let p = out.last, e.joined, e.column > p.column + 1,
                  !(low...high).contains(p.last) || !(low...high).contains(e.first) else {
                out.append(e); continue
            }
            // The part of the segment p.last -> e.first inside [low, high], as t in [0, 1].
            let (ya, yb) = (p.last, e.first)
            var t0 = 0.0, t1 = 1.0
            if ya != yb {
                let ta = Double.fraction(low, from: ya, to: yb), tb = Double.fraction(high, from: ya, to: yb)
                t0 = max(t0, min(ta, tb)); t1 = min(t1, max(ta, tb))
            }
            guard t0 < t1 else { e.joined = false; out.append(e); continue }
            func point(_ t: Double, joined: Bool) -> Raw {
                // (A column index, not a pixel: up to 1e15, so not clamped as pixels are.
                // Finite: t is in [0, 1] and both columns are integers.)
                let c = Int((Double(p.column) + t * Double(e.column - p.column)).rounded())
                let v = min(max(Double.lerp(ya, yb, t), low), high)
                return Raw(column: c, lo: v, hi: v, first: v, last: v, joined: joined, lastSequence: p.lastSequence)
            }
            if t0 > 0 { out.append(point(t0, joined: false)) }
            if t1 < 1 {
                out.append(point(t1, joined: true))
                e.joined = false
            }
            out.append(e)
        }
        return out
    }

    /// The first index of `raws` (in column order) whose entry satisfies `isPast`, a
    /// predicate false up to some column and true from it on, searched from `guess`
    /// (`firstPast`). Raws mostly hold one entry per column, so a guess from the column
    /// numbers lands on or next to the answer: a view's raws are rarely in the cache.
    static func partition(_ raws: RawRun, guess: Int, _ isPast: (Raw) -> Bool) -> Int {
        firstPast(from: 0, to: raws.count, guess: guess) { isPast(raws[$0]) }
    }

    /// One CSS y as a quantised value, clamped to the quantisable band (which reaches
    /// far beyond the plot, so a clamped baseline still fills all of the plot).
    static func quantiseClamped(_ v: Double, y0: Double, dy: Double) -> UInt16 {
        let t = ((v - y0) / dy).rounded()
        return t.isNaN ? 0 : UInt16(min(max(t, 0), 65_535))
    }

    static func quantise<C: Collection<Raw>>(_ raws: C, firstColumn: Int, y0: Double, dy: Double) -> [ColumnLine.Entry] {
        raws.map { quantise($0, firstColumn: firstColumn, y0: y0, dy: dy) }
    }

    @inline(__always)
    static func quantise(_ r: Raw, firstColumn: Int, y0: Double, dy: Double) -> ColumnLine.Entry {
        @inline(__always) func q(_ v: Double) -> UInt16 {
            // Rounds half up as `rounded()` does for these non-negative values, without
            // a call into libm per value.
            let t = (v - y0) / dy
            return t <= 0 || t.isNaN ? 0 : t >= 65_534.5 ? 65_535 : UInt16(truncatingIfNeeded: Int(t + 0.5))
        }
        let a = q(r.lo), b = q(r.hi)
        return ColumnLine.Entry(column: Int32(r.column - firstColumn), lo: min(a, b), hi: max(a, b),
                                first: q(r.first), last: q(r.last), joined: r.joined)
    }
}

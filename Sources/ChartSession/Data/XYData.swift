import Synchronization

/// Why an append was refused. Nothing of a refused append is applied.
public enum AppendError: Error, Equatable, CustomStringConvertible, Sendable {
    case lengthMismatch(x: Int, y: Int, field: String = "y", key: String = "x")
    case nonFinite(field: String, index: Int)
    case xNotSorted(index: Int)
    case tooMany(count: Int, limit: Int)
    /// The batch does not carry the values the series' type has.
    case wrongFields(kind: String, fields: [String], key: String = "x")
    case candleOutOfOrder(index: Int, open: Double, high: Double, low: Double, close: Double)
    case partialGap(index: Int)
    case negativeSlice(index: Int, value: Double)
    case negativeSize(index: Int, value: Double)
    case partialBandGap(index: Int, fields: String = "y and y1")
    case stackedNotSorted(index: Int)
    case indexOutOfRange(index: Int, count: Int, inclusive: Bool)
    case insertOutOfOrder(index: Int, x: Double, bound: Double, before: Bool)
    case stackMismatch(index: Int, x: Double, series: String, expected: Double)

    public var description: String {
        switch self {
        case let .lengthMismatch(x, y, field, key): return "\(key) has \(x) values but \(field) has \(y); they must be equal"
        case let .wrongFields(kind, fields, key):
            return "a \(kind) series takes \(key) and " + fields.joined(separator: ", ") + " (each point's values, in equal-length arrays)"
        case let .stackMismatch(i, x, other, expected):
            return "x[\(i)] is \(x) but the same point of \"\(other)\", stacked with this series, has x \(expected); stacked series share their x"
        case let .indexOutOfRange(i, n, inclusive):
            return "index \(i) is out of range: the series holds \(n) points (indices 0" + (inclusive ? "...\(n))" : "..<\(n))")
        case let .insertOutOfOrder(i, x, bound, before):
            return before ? "the inserted x \(x) is smaller than x \(bound) of the point before index \(i); x values must not decrease"
                          : "the inserted x \(x) is larger than x \(bound) of the point at index \(i); x values must not decrease"
        case let .stackedNotSorted(i):
            return "x[\(i)] is smaller than the x before it; a stacked series takes its points in x order"
        case let .partialBandGap(i, fields):
            return "point \(i): \(fields) must both be numbers, or both null (a gap)"
        case let .negativeSize(i, v):
            return "size[\(i)] is \(v); a bubble's size must be 0 or more (or null for none)"
        case let .negativeSlice(i, v):
            return "y[\(i)] is \(v); a slice's value must be 0 or more (or null for none)"
        case let .partialGap(i):
            return "point \(i): open, high, low and close must all be numbers, or all null (a gap)"
        case let .candleOutOfOrder(i, o, h, l, c):
            return "point \(i): low \(l) and high \(h) must enclose open \(o) and close \(c)"
        case let .nonFinite(field, index):
            return field != "x" ? "\(field)[\(index)] is infinite; \(field) values must be finite, or NaN (null in JSON) for a gap"
                                : "\(field)[\(index)] is not a finite number"
        case let .xNotSorted(index):
            return "x[\(index)] is smaller than the x before it; x values must not decrease"
        case let .tooMany(count, limit): return "\(count) points in one append; at most \(limit) are accepted"
        }
    }
}

/// The points of one X/Y series: x sorted ascending (equal values allowed), y finite
/// or NaN (a gap: the line breaks there). With a `capacity` the series is a FIFO:
/// appending past it drops the oldest points, as a scrolling monitor wants, and it
/// never holds more than `capacity` points (plus one chunk) in memory.
///
/// Points are stored in chunks of 4096, each a copy-on-write array of its own, so a
/// copy of the data (an independent view's chart, a spec read back) shares every chunk
/// and the next append copies only the chunk it writes to (32 kB), not the series.
/// A chunk's x values that lie on a straight line (sample indices, a fixed rate's
/// timestamps) are kept as that line (`XRamp`): 0 or 2 bytes a point instead of 8.
///
/// A min/max index (`YIndex`) summarises y in blocks of 16, 256, 4096, ... points, so
/// the extremes of any stretch of points cost a few dozen reads, not one per point.
public struct XYData: Sendable {
    /// Chunk `k` holds the points with sequence numbers `base + k·4096 ..< base + (k+1)·4096`
    /// (the last one may be shorter); the first `firstSequence - base` of them are evicted.
    /// A chunk's x values are `xr[k]` when that is a ramp (`xc[k]` is then empty),
    /// else `xc[k]`.
    private var xc: [[Double]] = []
    private var xr: [XRamp] = []
    private var yc: [[Double]] = []
    private var base = 0
    static let chunkShift = 12
    static let chunkSize = 1 << chunkShift
    public private(set) var count = 0
    public let capacity: Int?
    /// x in order (the default), or points kept in the order given (an unsorted line,
    /// SciChart's unsorted data: a trajectory, a Lissajous figure). Unordered data takes
    /// any x; `lowerBound`/`upperBound` then answer 0 and `count` (every point is a
    /// candidate: callers scan), and `xRange` reads every point.
    public let ordered: Bool
    /// Names this run of points: appends and FIFO evictions keep it, any other change
    /// (which rebuilds the data) makes a new one. A store that has the points of a run
    /// up to some sequence number need only add the newer ones (docs/persistence.md).
    public private(set) var lineage = XYData.nextLineage()
    private static let lineages = Atomic<UInt64>(0)
    static func nextLineage() -> UInt64 { lineages.wrappingAdd(1, ordering: .relaxed).newValue }
    /// Points ever evicted: the sequence number of the first live point.
    public private(set) var firstSequence = 0
    /// The smallest positive distance between neighbouring X values ever stored
    /// (infinity below two distinct values): what column widths are measured against.
    public private(set) var minSpacing = Double.infinity
    private var index = YIndex()

    public init(capacity: Int? = nil, ordered: Bool = true) {
        precondition(capacity.map { $0 > 0 } ?? true, "capacity must be positive")
        self.capacity = capacity
        self.ordered = ordered
    }

    /// Empty, its first point to have sequence number `firstSequence` (values derived
    /// from another series' points, numbered as those are).
    init(capacity: Int?, firstSequence: Int, ordered: Bool = true) {
        self.init(capacity: capacity, ordered: ordered)
        self.firstSequence = firstSequence
        self.base = firstSequence
    }

    public var isEmpty: Bool { count == 0 }
    /// Points ever appended: one past the sequence number of the newest point.
    public var endSequence: Int { firstSequence + count }

    /// Read access in the live index space `0..<count`.
    @inline(__always) public func x(_ i: Int) -> Double {
        let s = firstSequence - base + i
        let k = s >> Self.chunkShift
        if xr[k].isRamp { return xr[k].value(s & (Self.chunkSize - 1)) }
        return xc[k][s & (Self.chunkSize - 1)]
    }
    @inline(__always) public func y(_ i: Int) -> Double {
        let s = firstSequence - base + i
        return yc[s >> Self.chunkShift][s & (Self.chunkSize - 1)]
    }

    /// Calls `body` with the storage of the points `range` (live indices) as contiguous
    /// stretches of x and y values (one per chunk touched), oldest first: tight loops
    /// over many points.
    func withStretches(_ range: Range<Int>, _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> Void) {
        guard !range.isEmpty else { return }
        var s = firstSequence - base + range.lowerBound
        let end = firstSequence - base + range.upperBound
        while s < end {
            let k = s >> Self.chunkShift, from = s & (Self.chunkSize - 1)
            let to = min(Self.chunkSize, from + (end - s))
            if xr[k].isRamp {
                let ramp = xr[k]
                withUnsafeTemporaryAllocation(of: Double.self, capacity: to - from) { x in
                    for j in from..<to { x.initializeElement(at: j - from, to: ramp.value(j)) }
                    yc[k].withUnsafeBufferPointer { y in
                        body(UnsafeBufferPointer(x), UnsafeBufferPointer(rebasing: y[from..<to]))
                    }
                }
            } else {
                xc[k].withUnsafeBufferPointer { x in
                    yc[k].withUnsafeBufferPointer { y in
                        body(UnsafeBufferPointer(rebasing: x[from..<to]), UnsafeBufferPointer(rebasing: y[from..<to]))
                    }
                }
            }
            s += to - from
        }
    }

    public var lastX: Double? { isEmpty ? nil : x(count - 1) }
    public var firstX: Double? { isEmpty ? nil : x(0) }

    /// Checks a batch without changing anything.
    public func validate(xs: [Double], ys: [Double]) throws(AppendError) {
        guard xs.count == ys.count else { throw .lengthMismatch(x: xs.count, y: ys.count, field: "y") }
        var previous = lastX ?? -Double.infinity
        for i in 0..<xs.count {
            guard xs[i].isFinite else { throw .nonFinite(field: "x", index: i) }
            guard !ys[i].isInfinite else { throw .nonFinite(field: "y", index: i) }
            guard xs[i] >= previous || !ordered else { throw .xNotSorted(index: i) }
            previous = xs[i]
        }
    }

    /// Appends a batch atomically: either all of it is checked and applied, or an error
    /// is thrown and the data is unchanged.
    public mutating func append(xs: [Double], ys: [Double]) throws(AppendError) {
        try validate(xs: xs, ys: ys)
        if let capacity, xs.count > capacity {
            // Only the newest `capacity` points can stay; the others pass through the
            // sequence numbers without being stored.
            let skip = xs.count - capacity
            dropAll(passing: skip)
            for i in skip..<xs.count { store(xs[i], ys[i]) }
        } else if xs.count >= Self.bulkMinimum {
            // Points a full FIFO must let go make room first, whole chunks at once.
            let last = lastX
            if let capacity, count + xs.count > capacity { evictOldest(count + xs.count - capacity) }
            appendInBulk(xs, ys, after: last)
        } else {
            for i in 0..<xs.count { store(xs[i], ys[i]) }
        }
    }

    /// Batches at least this long, evicting nothing, are stored a chunk at a time.
    static let bulkMinimum = 256

    /// What `store` does point by point, for a checked batch with room for it (a full
    /// FIFO evicted first, `evictOldest`): the chunks filled by whole stretches, then the
    /// index blocks completed on the way, in the order `store` completes them (a series
    /// reloaded from storage, a large append). `after`: the x the series ended with
    /// before any eviction made room.
    private mutating func appendInBulk(_ xs: [Double], _ ys: [Double], after: Double?) {
        var last = after, spacing = minSpacing
        for x in xs {
            if let l = last, x > l, x - l < spacing { spacing = x - l }
            last = x
        }
        minSpacing = spacing
        let start = endSequence
        var i = 0
        while i < xs.count {
            let k = (endSequence - base) >> Self.chunkShift
            let n = min(Self.chunkSize - ((endSequence - base) & (Self.chunkSize - 1)), xs.count - i)
            if k == xc.count {
                xc.append([]); xr.append(XRamp()); yc.append(Array(ys[i..<i + n]))
            } else {
                yc[k] += ys[i..<i + n]
            }
            addX(xs[i..<i + n], chunk: k)
            count += n
            i += n
        }
        var idx = index
        index = YIndex()          // idx now holds the only reference: no copy
        var end = (start / YIndex.fanout + 1) * YIndex.fanout
        while end <= endSequence {
            idx.completeBlocks(endingAt: end - 1, data: self)
            end += YIndex.fanout
        }
        index = idx
    }

    // MARK: Changes other than appends

    /// Bumped by every change other than an append or a FIFO eviction (an insert, an
    /// update, a removal from the start, a clear, a replacement): whatever was derived
    /// from the points (a reduction's cache, a stack's sums) is stale.
    public private(set) var generation = 0

    /// The live points, oldest first.
    public var arrays: (xs: [Double], ys: [Double]) {
        var x: [Double] = [], y: [Double] = []
        x.reserveCapacity(count); y.reserveCapacity(count)
        withStretches(0..<count) { a, b in x += a; y += b }
        return (x, y)
    }

    /// These points in place of the live ones, numbered from the same first sequence
    /// number (already checked: sorted x, finite x, no infinite y).
    private mutating func rebuild(xs newX: [Double], ys newY: [Double], firstSequence first: Int) {
        var d = XYData(capacity: capacity, firstSequence: first, ordered: ordered)
        try! d.append(xs: newX, ys: newY)
        d.generation = generation + 1
        self = d
    }

    /// Empty, numbered from the same first sequence number, as a change other than an
    /// append leaves it (`rebuild` with no points): to be filled by appends (a reload).
    func emptied() -> XYData {
        var d = XYData(capacity: capacity, firstSequence: firstSequence, ordered: ordered)
        d.generation = generation + 1
        return d
    }

    /// Checks `newX`/`newY` as the whole of a series' points.
    static func check(xs newX: [Double], ys newY: [Double], ordered: Bool = true) throws(AppendError) {
        try XYData(ordered: ordered).validate(xs: newX, ys: newY)
    }

    /// Checks an insert of a sorted batch before live point `index` (0...count).
    public func validateInsert(at index: Int, xs newX: [Double], ys newY: [Double]) throws(AppendError) {
        guard index >= 0, index <= count else { throw .indexOutOfRange(index: index, count: count, inclusive: true) }
        try Self.check(xs: newX, ys: newY, ordered: ordered)
        guard ordered else { return }
        if let first = newX.first, index > 0, first < x(index - 1) {
            throw .insertOutOfOrder(index: index, x: first, bound: x(index - 1), before: true)
        }
        if let last = newX.last, index < count, last > x(index) {
            throw .insertOutOfOrder(index: index, x: last, bound: x(index), before: false)
        }
    }

    /// Inserts a sorted batch before live point `index`, atomically. With a capacity,
    /// the oldest points make room as appends do.
    public mutating func insert(at index: Int, xs newX: [Double], ys newY: [Double]) throws(AppendError) {
        try validateInsert(at: index, xs: newX, ys: newY)
        guard !newX.isEmpty else { return }
        var (x, y) = arrays
        x.insert(contentsOf: newX, at: index); y.insert(contentsOf: newY, at: index)
        rebuild(xs: x, ys: y, firstSequence: firstSequence)
    }

    /// Checks an update of the y values of live points `index..<index + newY.count`.
    public func validateUpdate(at index: Int, ys newY: [Double], field: String = "y") throws(AppendError) {
        guard index >= 0, index + newY.count <= count else {
            throw .indexOutOfRange(index: index + newY.count - 1, count: count, inclusive: false)
        }
        if let i = newY.firstIndex(where: \.isInfinite) { throw .nonFinite(field: field, index: i) }
    }

    /// Replaces the y values of live points `index...`, atomically (x stays).
    public mutating func update(at index: Int, ys newY: [Double]) throws(AppendError) {
        try validateUpdate(at: index, ys: newY)
        guard !newY.isEmpty else { return }
        let (x, old) = arrays
        var y = old
        y.replaceSubrange(index..<(index + newY.count), with: newY)
        rebuild(xs: x, ys: y, firstSequence: firstSequence)
    }

    /// Removes the oldest `n` points (0...count).
    public mutating func removeFirst(_ n: Int) throws(AppendError) {
        guard n >= 0, n <= count else { throw .indexOutOfRange(index: n, count: count, inclusive: true) }
        guard n > 0 else { return }
        let (x, y) = arrays
        rebuild(xs: Array(x[n...]), ys: Array(y[n...]), firstSequence: firstSequence + n)
    }

    /// Removes every point.
    public mutating func clear() { rebuild(xs: [], ys: [], firstSequence: endSequence) }

    /// These points in place of all the live ones (a reload), atomically.
    public mutating func replaceAll(xs newX: [Double], ys newY: [Double]) throws(AppendError) {
        try Self.check(xs: newX, ys: newY, ordered: ordered)
        rebuild(xs: newX, ys: newY, firstSequence: firstSequence)
    }

    /// Appends one point already known to be valid (generators).
    public mutating func append(x: Double, y: Double) {
        precondition(x.isFinite && !y.isInfinite && (x >= (lastX ?? -.infinity) || !ordered), "invalid point")
        store(x, y)
    }

    /// Drops the oldest `n` live points (0...count) as a FIFO does: their sequence
    /// numbers pass, whole chunks go, and the run (`lineage`) stays the same, so a store
    /// holding the newer points keeps them (a full capacity making room for a batch, a
    /// `retention` in x).
    mutating func evictOldest(_ n: Int) {
        precondition(n >= 0 && n <= count, "evicting more points than the series holds")
        guard n > 0 else { return }
        firstSequence += n
        count -= n
        let dead = (firstSequence - base) >> Self.chunkShift
        if dead > 0 {
            xc.removeFirst(dead); xr.removeFirst(dead); yc.removeFirst(dead)
            base += dead << Self.chunkShift
        }
        if count == 0 { xc = []; xr = []; yc = []; base = firstSequence }
        var idx = index
        index = YIndex()
        idx.evict(upTo: firstSequence)
        index = idx
    }

    /// Drops the points whose x is below `x` (a `retention`): how many went.
    @discardableResult
    public mutating func evict(before x: Double) -> Int {
        let n = lowerBound(x)
        evictOldest(n)
        return n
    }

    /// Empties the series and advances the sequence numbers by `passing` points more
    /// (a batch larger than the capacity evicts everything, and some of itself).
    private mutating func dropAll(passing: Int) {
        firstSequence += count + passing
        count = 0
        xc = []; xr = []; yc = []
        base = firstSequence
        var idx = index
        index = YIndex()
        idx.evict(upTo: firstSequence)
        index = idx
    }

    @inline(__always) private mutating func store(_ x: Double, _ y: Double) {
        if let last = lastX, x > last, x - last < minSpacing { minSpacing = x - last }
        let k = (endSequence - base) >> Self.chunkShift
        if k == xc.count {
            // A new chunk: a series past its first chunk gets whole ones at once.
            var cy: [Double] = []
            if k > 0 { cy.reserveCapacity(Self.chunkSize) }
            cy.append(y)
            xc.append([]); xr.append(XRamp()); yc.append(cy)
        } else {
            yc[k].append(y)
        }
        addX(x, chunk: k)
        count += 1
        if let capacity, count > capacity {
            // Full: the oldest point goes, and with it its chunk once that is all evicted.
            firstSequence += 1
            count -= 1
            if firstSequence - base >= Self.chunkSize {
                xc.removeFirst(); xr.removeFirst(); yc.removeFirst()
                base += Self.chunkSize
            }
        }
        // Every 16th point completes index blocks; every 16th eviction may free some.
        if endSequence & (YIndex.fanout - 1) == 0 || firstSequence - index.evictedUpTo >= YIndex.fanout {
            var idx = index
            index = YIndex()          // idx now holds the only reference: no copy
            if endSequence & (YIndex.fanout - 1) == 0 { idx.completeBlocks(endingAt: endSequence - 1, data: self) }
            if firstSequence - idx.evictedUpTo >= YIndex.fanout { idx.evict(upTo: firstSequence) }
            index = idx
        }
    }

    /// Adds `x` to chunk `k`'s x values: on its line while the chunk is a ramp (a new
    /// chunk starts as one), else as a plain value.
    @inline(__always) private mutating func addX(_ x: Double, chunk k: Int) {
        if xr[k].isRamp || xc[k].isEmpty {
            if xr[k].add(x) { return }
            makePlain(k)
        }
        if xc[k].isEmpty && k > 0 { xc[k].reserveCapacity(Self.chunkSize) }
        xc[k].append(x)
    }

    private mutating func addX(_ xs: ArraySlice<Double>, chunk k: Int) {
        var i = xs.startIndex
        if xr[k].isRamp || xc[k].isEmpty {
            while i < xs.endIndex, xr[k].add(xs[i]) { i += 1 }
            guard i < xs.endIndex else { return }
            makePlain(k)
        }
        xc[k] += xs[i...]
    }

    /// Chunk `k`'s x values as plain numbers from now on.
    private mutating func makePlain(_ k: Int) {
        if xr[k].isRamp { xc[k] = xr[k].values }
        xr[k] = XRamp()
    }

    /// Bytes held by the x values (chunks' buffers and ramps' offsets: tests, stats).
    var xHeapBytes: Int {
        xc.reduce(0) { $0 + $1.capacity * MemoryLayout<Double>.stride } + xr.reduce(0) { $0 + $1.heapBytes }
    }

    /// y of the point with sequence number `s` (live).
    @inline(__always) func y(sequence s: Int) -> Double { y(s - firstSequence) }

    /// First index whose x is >= `value` (count if none).
    public func lowerBound(_ value: Double) -> Int {
        guard ordered else { return 0 }
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if x(mid) < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// First index whose x is > `value` (count if none).
    public func upperBound(_ value: Double) -> Int {
        guard ordered else { return count }
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if x(mid) <= value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Range of x over all points.
    public var xRange: (min: Double, max: Double)? {
        guard !isEmpty else { return nil }
        guard !ordered else { return (x(0), x(count - 1)) }
        var lo = Double.infinity, hi = -Double.infinity
        withStretches(0..<count) { xs, _ in for v in xs { lo = Swift.min(lo, v); hi = Swift.max(hi, v) } }
        return (lo, hi)
    }

    /// The point whose x is nearest `value` (the first of equals), nil when empty:
    /// a binary search, or a scan of unordered data.
    public func nearestIndex(toX value: Double) -> Int? {
        guard !isEmpty else { return nil }
        guard !ordered else {
            let i = lowerBound(value)
            return [i - 1, i].filter { $0 >= 0 && $0 < count }.min { abs(x($0) - value) < abs(x($1) - value) }
        }
        var best = 0, distance = Double.infinity, i = 0
        withStretches(0..<count) { xs, _ in
            for v in xs { if abs(v - value) < distance { distance = abs(v - value); best = i }; i += 1 }
        }
        return best
    }

    /// Summary of y over live indices: the min and max of its non-NaN values (min =
    /// +inf, max = -inf when it has none) and whether any y is NaN.
    public struct YSummary: Equatable, Sendable {
        public var min: Double
        public var max: Double
        public var hasGap: Bool
        public init(min: Double = .infinity, max: Double = -.infinity, hasGap: Bool = false) {
            self.min = min; self.max = max; self.hasGap = hasGap
        }
        @inline(__always) mutating func add(_ v: Double) {
            if v.isNaN { hasGap = true; return }
            if v < min { min = v }
            if v > max { max = v }
        }
        @inline(__always) mutating func add(_ s: YSummary) {
            if s.min < min { min = s.min }
            if s.max > max { max = s.max }
            if s.hasGap { hasGap = true }
        }
    }

    /// The summary of `indices` (within `0..<count`), from the index: O(16 · log₁₆ n).
    public func ySummary(_ indices: Range<Int>) -> YSummary {
        precondition(indices.lowerBound >= 0 && indices.upperBound <= count, "indices out of range")
        return index.summary(firstSequence + indices.lowerBound, firstSequence + indices.upperBound, data: self)
    }

    /// Min and max of y over the points whose x lies in `[lo, hi]` (NaN ignored; nil
    /// when there is no such finite value).
    public func yRange(xFrom lo: Double, to hi: Double) -> (min: Double, max: Double)? {
        let start = lowerBound(lo), end = upperBound(hi)
        return start < end ? yRange(indices: start..<end) : nil
    }

    public func yRange(indices: Range<Int>) -> (min: Double, max: Double)? {
        guard !indices.isEmpty else { return nil }
        let s = ySummary(indices)
        return s.min <= s.max ? (s.min, s.max) : nil
    }

    /// Asserts that the index agrees with the data (tests).
    func checkInvariants() {
        index.check(data: self)
    }
}

/// The min/max index of an `XYData`: level k (k >= 1) holds, for every complete block
/// of 16^k consecutive points (by sequence number), the min and max of its non-NaN y
/// and whether it holds a NaN. A block is added when its last point arrives, from the
/// 16 blocks (or points) below it, so each point costs O(1) amortised. A query reads
/// only blocks lying wholly inside the queried points, all of them complete and live;
/// blocks that eviction has cut into are dropped from the front lazily.
struct YIndex: Sendable {
    static let shift = 4
    static let fanout = 1 << shift

    /// One level's block summaries (17 bytes a block): each block's min and max side
    /// by side, so a query's block costs one cache line, and whether it holds a gap in
    /// a column of its own (an eighth of the size, mostly in cache).
    struct Level: Sendable {
        struct Bounds: Sendable { var min: Double, max: Double }
        var bounds: [Bounds] = [], gaps: [Bool] = []
        /// How many blocks hold a gap: without any (most series), queries skip `gaps`.
        private(set) var gapCount = 0
        var count: Int { bounds.count }
        var isEmpty: Bool { bounds.isEmpty }
        subscript(j: Int) -> XYData.YSummary { XYData.YSummary(min: bounds[j].min, max: bounds[j].max, hasGap: gaps[j]) }
        mutating func append(_ s: XYData.YSummary) {
            bounds.append(Bounds(min: s.min, max: s.max)); gaps.append(s.hasGap)
            if s.hasGap { gapCount += 1 }
        }
        mutating func removeFirst(_ n: Int) {
            if gapCount > 0 { gapCount -= gaps[..<n].reduce(0) { $0 + ($1 ? 1 : 0) } }
            bounds.removeFirst(n); gaps.removeFirst(n)
        }
        mutating func removeAll() {
            bounds.removeAll(keepingCapacity: true); gaps.removeAll(keepingCapacity: true); gapCount = 0
        }
    }

    /// Per level (index 0 is level 1): summaries of blocks `base[k]...`.
    private var levels: [Level] = []
    private var base: [Int] = []
    private(set) var evictedUpTo = 0

    /// Point `s` (whose sequence number + 1 is a multiple of 16) completed one or more
    /// blocks: add their summaries, level by level.
    mutating func completeBlocks(endingAt s: Int, data: XYData) {
        var level = 1
        while true {
            let size = 1 << (Self.shift * level)
            guard (s + 1) & (size - 1) == 0 else { return }
            let block = s >> (Self.shift * level)
            let first = block << (Self.shift * level)
            var summary = XYData.YSummary()
            if first >= data.firstSequence {
                if level == 1 {
                    for q in first...s { summary.add(data.y(sequence: q)) }
                } else {
                    let below = level - 2
                    let from = (block << Self.shift) - base[below]
                    guard from >= 0 else { summary = Self.unknown; store(summary, level: level, block: block); level += 1; continue }
                    for c in from..<(from + Self.fanout) { summary.add(levels[below][c]) }
                }
            } else {
                summary = Self.unknown   // partly evicted before it was complete: never read
            }
            store(summary, level: level, block: block)
            level += 1
        }
    }

    /// Stands in for a block whose points were not all live when it completed. Such a
    /// block is larger than the series' capacity, so no query can cover it.
    static let unknown = XYData.YSummary(min: .nan, max: .nan, hasGap: true)

    private mutating func store(_ s: XYData.YSummary, level: Int, block: Int) {
        let k = level - 1
        if levels.count <= k {
            levels.append(Level())
            base.append(block)
        }
        if levels[k].isEmpty || block != base[k] + levels[k].count {
            // The first block, or one after a batch larger than the capacity skipped
            // whole blocks (everything before it was evicted).
            precondition(levels[k].isEmpty || block > base[k] + levels[k].count, "index blocks out of order")
            levels[k].removeAll()
            base[k] = block
        }
        levels[k].append(s)
    }

    /// Points below sequence `s` were evicted: drop blocks that start before it once
    /// they are as many as the live ones (amortised O(1)).
    mutating func evict(upTo s: Int) {
        evictedUpTo = s
        for k in levels.indices {
            let firstLive = (s + (1 << (Self.shift * (k + 1))) - 1) >> (Self.shift * (k + 1))  // first block starting at or after s
            let dead = min(levels[k].count, max(0, firstLive - base[k]))
            if dead > 0, dead >= levels[k].count - dead {
                levels[k].removeFirst(dead)
                base[k] += dead
            }
        }
    }

    /// The summary of points with sequence numbers `a..<b` (all live).
    func summary(_ a: Int, _ b: Int, data: XYData) -> XYData.YSummary {
        var out = XYData.YSummary()
        guard a < b else { return out }
        var lo = a, hi = b
        var level = 0
        while true {
            let unit = Self.shift * level
            let next = Self.shift * (level + 1)
            // Blocks of the next level wholly inside [lo, hi), if that level exists.
            let nextLo = ((lo + (1 << next) - 1) >> next) << next
            let nextHi = (hi >> next) << next
            if level >= levels.count || nextLo >= nextHi {
                add(level: level, from: lo >> unit, to: hi >> unit, into: &out, data: data)
                return out
            }
            add(level: level, from: lo >> unit, to: nextLo >> unit, into: &out, data: data)
            add(level: level, from: nextHi >> unit, to: hi >> unit, into: &out, data: data)
            lo = nextLo; hi = nextHi
            level += 1
        }
    }

    /// Adds blocks `from..<to` of `level` (level 0: the points themselves).
    @inline(__always) private func add(level: Int, from: Int, to: Int, into out: inout XYData.YSummary, data: XYData) {
        guard from < to else { return }
        if level == 0 {
            for s in from..<to { out.add(data.y(sequence: s)) }
        } else {
            let k = level - 1
            let l = levels[k]
            let range = (from - base[k])..<(to - base[k])
            for j in range {
                let b = l.bounds[j]
                if b.min < out.min { out.min = b.min }
                if b.max > out.max { out.max = b.max }
            }
            if l.gapCount > 0, !out.hasGap, l.gaps[range].contains(true) { out.hasGap = true }
        }
    }

    /// Checks every stored live block against the points (tests).
    func check(data: XYData) {
        for k in levels.indices {
            let size = 1 << (Self.shift * (k + 1))
            for j in 0..<levels[k].count {
                let s = levels[k][j]
                let first = (base[k] + j) * size
                guard first >= data.firstSequence, first + size <= data.endSequence else { continue }
                var expected = XYData.YSummary()
                for q in first..<(first + size) { expected.add(data.y(sequence: q)) }
                precondition(s == expected || (s.min.isNaN && s.max.isNaN),
                             "level \(k + 1) block \(base[k] + j): \(s) but the points give \(expected)")
            }
        }
    }
}

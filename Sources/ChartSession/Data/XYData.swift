/// Why an append was refused. Nothing of a refused append is applied.
public enum AppendError: Error, Equatable, CustomStringConvertible, Sendable {
    case lengthMismatch(x: Int, y: Int)
    case nonFinite(field: String, index: Int)
    case xNotSorted(index: Int)
    case tooMany(count: Int, limit: Int)

    public var description: String {
        switch self {
        case let .lengthMismatch(x, y): return "x has \(x) values but y has \(y); they must be equal"
        case let .nonFinite(field, index): return "\(field)[\(index)] is not a finite number"
        case let .xNotSorted(index):
            return "x[\(index)] is smaller than the x before it; x values must not decrease"
        case let .tooMany(count, limit): return "\(count) points in one append; at most \(limit) are accepted"
        }
    }
}

/// The points of one X/Y series: x sorted ascending (equal values allowed), stored as
/// two contiguous arrays. With a `capacity` the series is a FIFO: appending past it
/// drops the oldest points, as a scrolling monitor wants.
public struct XYData: Sendable {
    /// Storage; the live points are `storageX[head...]`.
    private(set) var storageX: [Double] = []
    private(set) var storageY: [Double] = []
    private var head = 0
    public let capacity: Int?

    public init(capacity: Int? = nil) {
        precondition(capacity.map { $0 > 0 } ?? true, "capacity must be positive")
        self.capacity = capacity
    }

    public var count: Int { storageX.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Read access in the live index space `0..<count`.
    @inline(__always) public func x(_ i: Int) -> Double { storageX[head + i] }
    @inline(__always) public func y(_ i: Int) -> Double { storageY[head + i] }

    public var lastX: Double? { isEmpty ? nil : storageX[storageX.count - 1] }
    public var firstX: Double? { isEmpty ? nil : storageX[head] }

    /// Checks a batch without changing anything.
    public func validate(xs: [Double], ys: [Double]) throws(AppendError) {
        guard xs.count == ys.count else { throw .lengthMismatch(x: xs.count, y: ys.count) }
        var previous = lastX ?? -Double.infinity
        for i in 0..<xs.count {
            guard xs[i].isFinite else { throw .nonFinite(field: "x", index: i) }
            guard ys[i].isFinite else { throw .nonFinite(field: "y", index: i) }
            guard xs[i] >= previous else { throw .xNotSorted(index: i) }
            previous = xs[i]
        }
    }

    /// Appends a batch atomically: either all of it is checked and applied, or an error
    /// is thrown and the data is unchanged.
    public mutating func append(xs: [Double], ys: [Double]) throws(AppendError) {
        try validate(xs: xs, ys: ys)
        storageX.append(contentsOf: xs)
        storageY.append(contentsOf: ys)
        trimToCapacity()
    }

    /// Appends one point already known to be valid (generators).
    public mutating func append(x: Double, y: Double) {
        precondition(x.isFinite && y.isFinite && x >= (lastX ?? -.infinity), "invalid point")
        storageX.append(x)
        storageY.append(y)
        trimToCapacity()
    }

    private mutating func trimToCapacity() {
        guard let capacity, count > capacity else { return }
        head += count - capacity
        // Compact once the dead prefix is as large as the live part: amortised O(1).
        if head >= capacity {
            storageX.removeFirst(head)
            storageY.removeFirst(head)
            head = 0
        }
    }

    /// First index whose x is >= `value` (count if none).
    public func lowerBound(_ value: Double) -> Int {
        var lo = head, hi = storageX.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if storageX[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo - head
    }

    /// First index whose x is > `value` (count if none).
    public func upperBound(_ value: Double) -> Int {
        var lo = head, hi = storageX.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if storageX[mid] <= value { lo = mid + 1 } else { hi = mid }
        }
        return lo - head
    }

    /// Range of x over all points.
    public var xRange: (min: Double, max: Double)? {
        isEmpty ? nil : (storageX[head], storageX[storageX.count - 1])
    }

    /// Min and max of y over the points whose x lies in `[lo, hi]`.
    public func yRange(xFrom lo: Double, to hi: Double) -> (min: Double, max: Double)? {
        let start = lowerBound(lo), end = upperBound(hi)
        return yRange(indices: start..<end)
    }

    public func yRange(indices: Range<Int>) -> (min: Double, max: Double)? {
        guard !indices.isEmpty else { return nil }
        return storageY.withUnsafeBufferPointer { ys in
            var mn = Double.infinity, mx = -Double.infinity
            for i in (indices.lowerBound + head)..<(indices.upperBound + head) {
                let v = ys[i]
                if v < mn { mn = v }
                if v > mx { mx = v }
            }
            return (mn, mx)
        }
    }

    /// Direct read access to the live points for hot loops (decimation).
    public func withBuffers<R>(_ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) throws -> R) rethrows -> R {
        try storageX.withUnsafeBufferPointer { xs in
            try storageY.withUnsafeBufferPointer { ys in
                try body(UnsafeBufferPointer(rebasing: xs[head...]), UnsafeBufferPointer(rebasing: ys[head...]))
            }
        }
    }
}

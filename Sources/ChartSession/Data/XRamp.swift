/// The x values of one chunk of an `XYData` when they lie on a straight line: point `j`
/// of the chunk has x = `first + j·step`, moved by `offsets[j]` units in the last place
/// when the values are near the line but not on it (timestamps a fixed rate apart,
/// written by a sender that adds its period up rather than multiplying it). Regularly
/// spaced x (sample indices, a fixed rate's timestamps) then costs no bytes a point, or
/// two, instead of eight; a chunk whose x leaves the line is stored as plain values.
///
/// Every value reads back bit for bit as it was appended: the line is computed the same
/// way (IEEE 754 multiply, then add) when a value is checked and when it is read, and
/// an offset is the difference of the two bit patterns.
struct XRamp: Sendable {
    /// Points on the line; 0: the chunk is not a ramp (its values are plain).
    private(set) var count = 0
    private(set) var first = 0.0
    private(set) var step = 0.0
    /// Empty while every point lies exactly on the line; then one offset a point.
    private(set) var offsets: [Int16] = []

    var isRamp: Bool { count != 0 }

    @inline(__always) private static func line(_ first: Double, _ step: Double, _ j: Int) -> Double {
        first + Double(j) * step
    }

    /// x of point `j` (`0..<count`).
    @inline(__always) func value(_ j: Int) -> Double {
        let p = Self.line(first, step, j)
        if offsets.isEmpty { return p }
        return Double(bitPattern: UInt64(bitPattern: Int64(bitPattern: p.bitPattern) &+ Int64(offsets[j])))
    }

    /// Adds `x` as point `count` when it lies on the line or within an offset of it
    /// (the second point sets the step); false, and nothing changed, when it does not.
    @inline(__always) mutating func add(_ x: Double) -> Bool {
        if count == 0 {
            // -0.0 would read back as +0.0 (-0.0 + 0·step): such a chunk stays plain.
            guard x.bitPattern != (-0.0).bitPattern else { return false }
            first = x; count = 1
            return true
        }
        let s = count == 1 ? x - first : step
        guard s.isFinite else { return false }
        let d = Int64(bitPattern: x.bitPattern) &- Int64(bitPattern: Self.line(first, s, count).bitPattern)
        if d == 0 {
            if !offsets.isEmpty { offsets.append(0) }
        } else {
            guard d >= Int64(Int16.min), d <= Int64(Int16.max) else { return false }
            if offsets.isEmpty {
                offsets.reserveCapacity(XYData.chunkSize)
                offsets.append(contentsOf: repeatElement(0, count: count))
            }
            offsets.append(Int16(d))
        }
        step = s
        count += 1
        return true
    }

    init() {}

    /// A whole column as a ramp; nil when it does not lie on one.
    init?(column: [Double]) {
        for x in column { guard add(x) else { return nil } }
    }

    /// The values as plain numbers.
    var values: [Double] {
        var out: [Double] = []
        out.reserveCapacity(XYData.chunkSize)
        for j in 0..<count { out.append(value(j)) }
        return out
    }

    /// Bytes held beyond the struct itself (tests, stats).
    var heapBytes: Int { offsets.capacity * MemoryLayout<Int16>.stride }
}

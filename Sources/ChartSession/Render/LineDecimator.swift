import LayoutEngine

/// Reduces a line to at most four points per device-pixel column: the first, the
/// lowest, the highest and the last point that fall in the column, in data order.
///
/// Drawing the reduced line covers exactly the pixels the full line covers: inside a
/// column the full line moves between its extremes, and first and last keep the
/// joins to the neighbouring columns. So a frame costs the canvas width, not the
/// number of points.
public enum LineDecimator {
    /// Appends the reduced points of `indices` (CSS pixels, flat x,y pairs) to `out`.
    public static func reduce(
        xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>, indices: Range<Int>,
        x: LinearCoordinateCalculator, y: LinearCoordinateCalculator, dpr: Double,
        into out: inout [Float]
    ) {
        guard !indices.isEmpty else { return }
        let scale = max(dpr, 0.01)
        var column = Int.min
        var first = 0, low = 0, high = 0, last = 0

        @inline(__always) func emit(_ i: Int) {
            out.append(Float(x.pixel(xs[i])))
            out.append(Float(y.pixel(ys[i])))
        }
        @inline(__always) func flush() {
            guard column != Int.min else { return }
            emit(first)
            let (a, b) = low < high ? (low, high) : (high, low)
            if a != first { emit(a) }
            if b != a, b != first { emit(b) }
            if last != b, last != first { emit(last) }
        }

        for i in indices {
            // Columns are taken from the coordinate as it is sent (a Float), so that
            // what the client draws falls in the column it was reduced in.
            let px = Double(Float(x.pixel(xs[i]))) * scale
            let c = Int(min(max(px, -1e12), 1e12).rounded(.down))
            if c != column {
                flush()
                column = c
                first = i; low = i; high = i; last = i
            } else {
                last = i
                let v = ys[i]
                if v < ys[low] { low = i }
                if v > ys[high] { high = i }
            }
        }
        flush()
    }
}

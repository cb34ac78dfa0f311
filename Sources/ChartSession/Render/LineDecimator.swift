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
    /// Used where columns cannot be anchored (`ColumnReducer` returns nil).
    public static func reduce(
        _ data: XYData, indices: Range<Int>,
        x: CoordinateCalculator, y: CoordinateCalculator, dpr: Double,
        into out: inout [Float]
    ) {
        guard !indices.isEmpty else { return }
        let scale = max(dpr, 0.01)

        // The device column of a point. Columns are taken from the coordinate as it is
        // sent (a Float), so what the client draws falls in the column it was reduced
        // in. Sorted x makes the column monotonic in the index.
        @inline(__always) func column(_ i: Int) -> Int {
            let px = Double(Float(x.pixel(data.x(i)))) * scale
            return Int(pixel: px.rounded(.down))
        }
        @inline(__always) func emit(_ i: Int) {
            out.append(Float(x.pixel(data.x(i))))
            out.append(Float(y.pixel(data.y(i))))
        }

        var start = indices.lowerBound
        let end = indices.upperBound
        while start < end {
            let c = column(start)
            // The run of points in column `c` ends where the column changes: gallop
            // ahead, then bisect, so a dense column costs a few look-ups, not one per point.
            var step = 1, inside = start
            while inside + step < end, column(inside + step) == c {
                inside += step
                step *= 2
            }
            var lo = inside + 1, hi = min(inside + step, end)  // column(hi) != c, or hi == end
            while lo < hi {
                let mid = (lo + hi) >> 1
                if column(mid) == c { lo = mid + 1 } else { hi = mid }
            }
            let runEnd = lo  // first index past the run

            // The lowest and highest point of the run (the first of equals), in one pass.
            var low = start, high = start
            var lowValue = data.y(start), highValue = data.y(start)
            var i = start + 1
            while i < runEnd {
                let v = data.y(i)
                if v < lowValue { lowValue = v; low = i }
                if v > highValue { highValue = v; high = i }
                i += 1
            }

            let last = runEnd - 1
            emit(start)
            let (a, b) = low < high ? (low, high) : (high, low)
            if a != start { emit(a) }
            if b != a, b != start { emit(b) }
            if last != b, last != start { emit(last) }
            start = runEnd
        }
    }
}

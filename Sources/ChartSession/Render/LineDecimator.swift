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

/// Reduces a line drawn in the order its points were given (an unsorted line: a
/// trajectory, a Lissajous figure), where x may go back and forth, so no column or
/// binary search applies. A point is kept when it lands in another device pixel than
/// the point kept before it; the points dropped lie in that pixel, so the line they
/// drew stays inside it and the drawing covers the same pixels. A gap (NaN y) is kept
/// as a break. The cost is one pass over the points; what is sent is at most one point
/// per device pixel the line enters (a line that scribbles over the plot again and
/// again sends each return).
public enum UnsortedLineReducer {
    /// Appends the kept points (CSS pixels, flat x,y pairs; NaN pairs at gaps) to `out`.
    public static func reduce(_ data: XYData, x: CoordinateCalculator, y: CoordinateCalculator, dpr: Double,
                              into out: inout [Float]) {
        let scale = max(dpr, 0.01)
        var lastCell: (Int, Int)? = nil
        var pending: (Float, Float)? = nil  // the last point dropped since the last kept one
        data.withStretches(0..<data.count) { xs, ys in
            for k in xs.indices {
                guard !ys[k].isNaN else {
                    if let p = pending { out.append(p.0); out.append(p.1); pending = nil }
                    if lastCell != nil { out.append(.nan); out.append(.nan) }
                    lastCell = nil
                    continue
                }
                let px = Float(x.pixel(xs[k])), py = Float(y.pixel(ys[k]))
                let cell = (Int(pixel: (Double(px) * scale).rounded(.down)), Int(pixel: (Double(py) * scale).rounded(.down)))
                if let c = lastCell, c == cell { pending = (px, py); continue }
                pending = nil
                out.append(px); out.append(py)
                lastCell = cell
            }
        }
        // The line ends where its last point is.
        if let p = pending { out.append(p.0); out.append(p.1) }
    }
}

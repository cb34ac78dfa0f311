import LayoutEngine

/// Reduces a series' points to the markers that can be seen: those whose drawing
/// reaches into the plot, at most one per device pixel.
///
/// Centres are snapped to device-pixel centres (see `MarkerSet`), so two points on one
/// pixel draw the same marker and the reduction keeps the first: the reduced drawing
/// is the full drawing, pixel for pixel, for opaque colours. The visible X stretch is
/// found through the series' sorted X (two binary searches), then each point in it is
/// placed and tested against a bitmap of the plot's device pixels: a frame costs the
/// points in view, a few nanoseconds each, and at most one marker per pixel on the wire.
public enum MarkerReducer {
    /// The largest grid side, in device pixels (cells are sent as u16).
    static let maxSide = 65_535

    /// - Parameters:
    ///   - xAlongWidth: whether the X axis runs across (false: a rotated chart, X up the side).
    ///   - dedupe: false keeps every point in view (the naive baseline, and tests).
    public static func reduce(
        _ data: XYData, x: CoordinateCalculator, y: CoordinateCalculator, xAlongWidth: Bool = true,
        dpr: Double, plot: Rect, style: MarkerStyle, dedupe: Bool = true
    ) -> MarkerSet? {
        guard !data.isEmpty, dpr > 0, plot.width > 0, plot.height > 0 else { return nil }
        let reach = style.reach
        let margin = (reach * dpr).rounded(.up) + 1
        let gx0 = (plot.minX * dpr).rounded(.down) - margin, gy0 = (plot.minY * dpr).rounded(.down) - margin
        let w = Int((plot.maxX * dpr).rounded(.up) + margin - gx0) + 1
        let h = Int((plot.maxY * dpr).rounded(.up) + margin - gy0) + 1
        guard w > 0, h > 0, w <= maxSide, h <= maxSide else { return nil }

        // The points whose marker can reach the plot, by X.
        let (alongLo, alongHi) = xAlongWidth ? (plot.minX, plot.maxX) : (plot.minY, plot.maxY)
        let v1 = x.value(alongLo - reach), v2 = x.value(alongHi + reach)
        let start = data.lowerBound(min(v1, v2)), end = data.upperBound(max(v1, v2))
        guard start < end else { return set(style, gx0, gy0, dpr, []) }

        // Device position relative to the grid: d = v · a + b per axis (or through the
        // calculator on log and discontinuous axes).
        let (hCalc, vCalc) = xAlongWidth ? (x, y) : (y, x)
        let hMap = hCalc.linearMap.map { ($0.a * dpr, $0.b * dpr - gx0) }
        let vMap = vCalc.linearMap.map { ($0.a * dpr, $0.b * dpr - gy0) }
        let fw = Double(w), fh = Double(h)
        var seen = [UInt64](repeating: 0, count: dedupe ? (w * h + 63) / 64 : 0)
        var cells: [MarkerSet.Cell] = []
        cells.reserveCapacity(min(end - start, dedupe ? w * h : Int.max))

        data.withStretches(start..<end) { xs, ys in
            let (hs, vs) = xAlongWidth ? (xs, ys) : (ys, xs)
            seen.withUnsafeMutableBufferPointer { bits in
                @inline(__always) func place(_ fx: Double, _ fy: Double) {
                    // Outside the grid, or NaN (a gap): no marker.
                    guard fx >= 0, fx < fw, fy >= 0, fy < fh else { return }
                    let cx = Int(fx), cy = Int(fy)   // truncation is floor here: both are >= 0
                    if dedupe {
                        let bit = cy &* w &+ cx
                        let word = bit &>> 6, mask = UInt64(1) &<< UInt64(bit & 63)
                        if bits[word] & mask != 0 { return }
                        bits[word] |= mask
                    }
                    cells.append(MarkerSet.Cell(x: UInt16(truncatingIfNeeded: cx), y: UInt16(truncatingIfNeeded: cy)))
                }
                if let (ha, hb) = hMap, let (va, vb) = vMap {
                    for i in 0..<hs.count { place(hs[i] * ha + hb, vs[i] * va + vb) }
                } else {
                    for i in 0..<hs.count { place(hCalc.pixel(hs[i]) * dpr - gx0, vCalc.pixel(vs[i]) * dpr - gy0) }
                }
            }
        }
        return set(style, gx0, gy0, dpr, cells)
    }

    static func set(_ style: MarkerStyle, _ gx0: Double, _ gy0: Double, _ dpr: Double, _ cells: [MarkerSet.Cell]) -> MarkerSet {
        // Cell (0, 0) is the device pixel at (gx0, gy0); a marker stands at its centre.
        MarkerSet(style: style, x0: Float((gx0 + 0.5) / dpr), y0: Float((gy0 + 0.5) / dpr), unit: Float(1 / dpr), cells: cells)
    }
}

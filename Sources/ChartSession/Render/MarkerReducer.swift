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
        let w = Int(pixel: (plot.maxX * dpr).rounded(.up) + margin - gx0) + 1
        let h = Int(pixel: (plot.maxY * dpr).rounded(.up) + margin - gy0) + 1
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
        /// Places the points in view on the grid (device pixels from its origin), NaN
        /// and points off the grid left out: `body(cx, cy)` for each, in data order.
        @inline(__always) func forEachCell(_ body: (Int, Int) -> Void) {
            data.withStretches(start..<end) { xs, ys in
                let (hs, vs) = xAlongWidth ? (xs, ys) : (ys, xs)
                if let (ha, hb) = hMap, let (va, vb) = vMap {
                    for i in 0..<hs.count {
                        let fx = hs[i] * ha + hb, fy = vs[i] * va + vb
                        guard fx >= 0, fx < fw, fy >= 0, fy < fh else { continue }
                        body(Int(fx), Int(fy))   // truncation is floor here: both are >= 0
                    }
                } else {
                    for i in 0..<hs.count {
                        let fx = hCalc.pixel(hs[i]) * dpr - gx0, fy = vCalc.pixel(vs[i]) * dpr - gy0
                        guard fx >= 0, fx < fw, fy >= 0, fy < fh else { continue }
                        body(Int(fx), Int(fy))
                    }
                }
            }
        }

        guard dedupe else {
            var cells: [MarkerSet.Cell] = []
            cells.reserveCapacity(end - start)
            forEachCell { cells.append(MarkerSet.Cell(x: UInt16(truncatingIfNeeded: $0), y: UInt16(truncatingIfNeeded: $1))) }
            return set(style, gx0, gy0, dpr, cells)
        }

        // A bitmap of the grid, column-major with each column padded to whole words: the
        // points of one device column (consecutive in a sorted series) meet in a few
        // cache lines, and a cell's neighbours across are a column's words away.
        let perColumn = (h + 63) / 64
        // One word more than the grid: `setCells` writes the points off the grid there.
        var bits = [UInt64](repeating: 0, count: w * perColumn + 1)

        if isOneColour(style) {
            // One colour: which pixels hold a marker is all that shows, so the bitmap is
            // all the loop builds (no branch on whether a pixel was seen), and the cells
            // are read from it afterwards, column by column.
            bits.withUnsafeMutableBufferPointer { b in
                if let (ha, hb) = hMap, let (va, vb) = vMap {
                    // The common case, written out so the loop is a few instructions.
                    data.withStretches(start..<end) { xs, ys in
                        if xAlongWidth {
                            setCellsByColumn(xs, ys, ha, hb, va, vb, w: w, h: h, perColumn: perColumn, b)
                        } else {
                            setCells(ys, xs, ha, hb, va, vb, w: w, h: h, perColumn: perColumn, b)
                        }
                    }
                } else {
                    forEachCell { cx, cy in b[cx &* perColumn &+ cy &>> 6] |= 1 &<< UInt64(cy & 63) }
                }
            }
            bits[w * perColumn] = 0
            return set(style, gx0, gy0, dpr, boundaryCells(bits, w: w, perColumn: perColumn))
        }

        // Several colours (an outline over a fill): the first marker on each pixel is
        // kept, in data order, as the full drawing would show it.
        var cells = [MarkerSet.Cell](repeating: MarkerSet.Cell(x: 0, y: 0), count: min(end - start, w * h + 1))
        var n = 0
        cells.withUnsafeMutableBufferPointer { out in
            bits.withUnsafeMutableBufferPointer { b in
                forEachCell { cx, cy in
                    // Written always, kept only when the pixel's bit was clear: no branch
                    // on a coin toss in a dense cloud.
                    out[n] = MarkerSet.Cell(x: UInt16(truncatingIfNeeded: cx), y: UInt16(truncatingIfNeeded: cy))
                    let word = cx &* perColumn &+ cy &>> 6, shift = UInt64(cy & 63)
                    let old = b[word]
                    b[word] = old | (1 &<< shift)
                    n &+= Int(truncatingIfNeeded: ~(old &>> shift) & 1)
                }
            }
        }
        cells.removeLast(cells.count - n)
        return set(style, gx0, gy0, dpr, cells)
    }

    /// Sets the bit of each point's device pixel (`d = v · a + b` across and down) in a
    /// column-major bitmap whose last word (after `w` columns of `perColumn` words)
    /// takes the points off the grid and NaN. Four points at a time, without a branch
    /// (`floor4`; the grid test keeps the points placed within its range).
    /// `floor(v)` for 0 <= v < 2^31 without a branch or a checked conversion: adding
    /// 1.5 · 2^52 rounds to an integer in the low bits; step down where that rounded up.
    @inline(__always)
    static func floor4(_ v: SIMD4<Double>) -> SIMD4<Int64> {
        let magic = SIMD4<Double>(repeating: 6_755_399_441_055_744)   // 1.5 · 2^52
        let t = v + magic
        var i = unsafeBitCast(t, to: SIMD4<Int64>.self) & SIMD4<Int64>(repeating: 0xFFFF_FFFF)
        i.replace(with: i &- SIMD4<Int64>(repeating: 1), where: t - magic .> v)
        return i
    }

    static func setCells(
        _ hs: UnsafeBufferPointer<Double>, _ vs: UnsafeBufferPointer<Double>,
        _ ha: Double, _ hb: Double, _ va: Double, _ vb: Double,
        w: Int, h: Int, perColumn: Int, _ bits: UnsafeMutableBufferPointer<UInt64>
    ) {
        guard let xp = hs.baseAddress, let yp = vs.baseAddress, let b = bits.baseAddress else { return }
        let n = min(hs.count, vs.count), fw = Double(w), fh = Double(h)
        let trash = Int64(w * perColumn) * 64
        let perColumnBits = SIMD4<Int64>(repeating: Int64(perColumn) * 64)
        let xr = UnsafeRawPointer(xp), yr = UnsafeRawPointer(yp)
        @inline(__always) func set(_ bit: Int64) {
            b[Int(truncatingIfNeeded: bit &>> 6)] |= 1 &<< UInt64(truncatingIfNeeded: bit & 63)
        }
        var i = 0
        while i &+ 4 <= n {
            let fx = xr.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Double>.self) * ha + hb
            let fy = yr.loadUnaligned(fromByteOffset: i &* 8, as: SIMD4<Double>.self) * va + vb
            let onGrid = (fx .>= 0) .& (fx .< fw) .& (fy .>= 0) .& (fy .< fh)
            // Bit index: column-major, each column `perColumn` words.
            var bit = floor4(fx) &* perColumnBits &+ floor4(fy)
            bit.replace(with: trash, where: .!onGrid)
            set(bit[0]); set(bit[1]); set(bit[2]); set(bit[3])
            i &+= 4
        }
        while i < n {
            let fx = xp[i] * ha + hb, fy = yp[i] * va + vb
            if fx >= 0, fx < fw, fy >= 0, fy < fh { set(Int64(Int(fx) * perColumn * 64 + Int(fy))) }
            i &+= 1
        }
    }

    /// The same when the points' X (sorted) runs across: the points of one device
    /// column are consecutive, so each column's stretch is found by galloping over X
    /// (testing `x · ha + hb` itself, so a point's column is exactly its floor), and
    /// only Y is placed point by point, four at a time: a byte a pixel into a buffer
    /// for the column, then packed eight bytes at a time into the column's words. On a
    /// 10^6-point cloud this is about twice as fast as placing both coordinates.
    static func setCellsByColumn(
        _ xs: UnsafeBufferPointer<Double>, _ ys: UnsafeBufferPointer<Double>,
        _ ha: Double, _ hb: Double, _ va: Double, _ vb: Double,
        w: Int, h: Int, perColumn: Int, _ bits: UnsafeMutableBufferPointer<UInt64>
    ) {
        guard let xp = xs.baseAddress, let yp = ys.baseAddress, let b = bits.baseAddress else { return }
        let n = min(xs.count, ys.count), fw = Double(w), fh = Double(h)
        let yr = UnsafeRawPointer(yp)
        // One column's bytes, and a spare byte past them for points off the grid.
        let stride = perColumn * 64 + 8
        let column = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stride)
        defer { column.deallocate() }
        var i = 0, run = 1
        while i < n {
            let fx = xp[i] * ha + hb
            guard fx >= 0, fx < fw else { i &+= 1; continue }
            let k = fx.rounded(.towardZero)
            // The stretch i..<e in column k: fx stays in [k, k + 1) (X is sorted, and
            // x · ha + hb is monotonic whichever way the axis runs).
            @inline(__always) func inColumn(_ j: Int) -> Bool { let f = xp[j] * ha + hb; return f >= k && f < k + 1 }
            // Search from the guess that this column holds as many points as the last
            // (on evenly spaced data, two reads side by side), galloping out from it:
            // points below `lo` are in the column, from `hi` on they are not.
            let g = min(i + run, n)
            var lo: Int, hi: Int
            if g < n, inColumn(g) {
                lo = g + 1; hi = g + 1
                var step = 1
                while hi < n, inColumn(hi) { lo = hi + 1; hi = min(n, hi + step); step &*= 2 }
            } else {
                hi = g; lo = g - 1
                var step = 1
                while lo > i, !inColumn(lo) { hi = lo; lo = max(i, lo - step); step &*= 2 }
                lo += 1
            }
            while lo < hi { let m = (lo + hi) / 2; if inColumn(m) { lo = m + 1 } else { hi = m } }
            let e = lo
            run = max(1, e - i)
            // A byte a pixel of the column (plain stores, no chain through memory when
            // points meet in one word), packed into the column's words afterwards.
            let m = column.baseAddress!
            m.initialize(repeating: 0, count: stride)
            let trashV = SIMD4<Int64>(repeating: Int64(stride - 1))
            var j = i
            while j &+ 4 <= e {
                let fy = yr.loadUnaligned(fromByteOffset: j &* 8, as: SIMD4<Double>.self) * va + vb
                let onGrid = (fy .>= 0) .& (fy .< fh)
                var cy = floor4(fy)
                cy.replace(with: trashV, where: .!onGrid)
                m[Int(truncatingIfNeeded: cy[0])] = 1; m[Int(truncatingIfNeeded: cy[1])] = 1
                m[Int(truncatingIfNeeded: cy[2])] = 1; m[Int(truncatingIfNeeded: cy[3])] = 1
                j &+= 4
            }
            while j < e {
                let fy = yp[j] * va + vb
                if fy >= 0, fy < fh { m[Int(fy)] = 1 }
                j &+= 1
            }
            let words = b + Int(k) * perColumn, raw = UnsafeRawPointer(m)
            for w in 0..<perColumn {
                var word: UInt64 = 0
                for q in 0..<8 {
                    let v = raw.loadUnaligned(fromByteOffset: (w &* 8 &+ q) &* 8, as: UInt64.self)
                    word |= ((v &* 0x0102_0408_1020_4080) &>> 56) &<< UInt64(q &* 8)
                }
                words[w] |= word
            }
            i = e
        }
    }

    /// The set cells of a column-major bitmap, except those whose four neighbours are
    /// all set: such a marker adds no pixel, since every pixel of a disc, square,
    /// diamond, triangle or cross sprite lies one step (towards its centre) from a pixel
    /// of the sprite beside it. In one opaque colour, leaving it out leaves the covered
    /// pixels as they were (antialiased edges may differ by a shade where markers
    /// overlap). Word at a time: a word's cells above and below are its own bits shifted
    /// (with the neighbouring word's edge bit), those left and right the same word of
    /// the neighbouring columns.
    static func boundaryCells(_ bits: [UInt64], w: Int, perColumn k: Int) -> [MarkerSet.Cell] {
        var cells: [MarkerSet.Cell] = []
        bits.withUnsafeBufferPointer { b in
            for c in 0..<w {
                let base = c * k
                for j in 0..<k {
                    let v = b[base + j]
                    guard v != 0 else { continue }
                    let above = (v << 1) | (j > 0 ? b[base + j - 1] >> 63 : 0)
                    let below = (v >> 1) | (j + 1 < k ? b[base + j + 1] << 63 : 0)
                    let left = c > 0 ? b[base - k + j] : 0, right = c + 1 < w ? b[base + k + j] : 0
                    var keep = v & ~(above & below & left & right)
                    while keep != 0 {
                        let bit = keep.trailingZeroBitCount
                        cells.append(MarkerSet.Cell(x: UInt16(truncatingIfNeeded: c), y: UInt16(truncatingIfNeeded: j * 64 + bit)))
                        keep &= keep - 1
                    }
                }
            }
        }
        return cells
    }

    /// Markers drawn in one colour (filled without outline, outlined without fill, or
    /// both alike): overlapping ones cannot show through each other.
    static func isOneColour(_ style: MarkerStyle) -> Bool {
        switch (style.fill, style.stroke) {
        case let (f?, nil): return isOpaque(f)
        case let (nil, s?): return isOpaque(s)
        case let (f?, s?): return f == s && isOpaque(f)
        case (nil, nil): return false
        }
    }

    /// False for CSS colours that may be translucent (rgba, hsla, a `/` alpha, 4- or
    /// 8-digit hex, transparent), where overdraw shows.
    static func isOpaque(_ color: String) -> Bool {
        let c = color.lowercased()
        if c.hasPrefix("#") { return c.count == 4 || c.count == 7 }
        return !(c.contains("rgba") || c.contains("hsla") || c.contains("/") || c.contains("transparent"))
    }

    static func set(_ style: MarkerStyle, _ gx0: Double, _ gy0: Double, _ dpr: Double, _ cells: [MarkerSet.Cell]) -> MarkerSet {
        // Cell (0, 0) is the device pixel at (gx0, gy0); a marker stands at its centre.
        MarkerSet(style: style, x0: Float((gx0 + 0.5) / dpr), y0: Float((gy0 + 0.5) / dpr), unit: Float(1 / dpr), cells: cells)
    }
}

import LayoutEngine

/// Reduces a bubble series to the bubbles that can be seen: one marker set per bubble
/// diameter (in whole device pixels), at most one bubble of a diameter per device
/// pixel, the biggest drawn first so the smaller ones stay visible.
///
/// A bubble's area is its size times `bubbleScale` (CSS px² per unit, ShinobiCharts'
/// `scale`); without a scale the biggest size in the series is drawn
/// `biggestBubbleDiameterForAutoScaling` px across and the others by area relative to it.
public enum BubbleReducer {
    /// The diameter in CSS pixels of a bubble of `size`, given the series' scaling.
    static func diameter(_ size: Double, style: SeriesStyle, biggest: Double) -> Double {
        guard size > 0 else { return 0 }
        if let scale = style.bubbleScale { return 2 * (size * scale / .pi).squareRoot() }
        guard biggest > 0 else { return 0 }
        return style.biggestBubbleDiameterForAutoScaling * (size / biggest).squareRoot()
    }

    /// - Parameter dedupe: false keeps every bubble in view (the naive baseline, tests).
    public static func reduce(
        _ s: Series, x: CoordinateCalculator, y: CoordinateCalculator, xAlongWidth: Bool = true,
        dpr: Double, plot: Rect, marker: MarkerStyle, dedupe: Bool = true
    ) -> [MarkerSet] {
        let data = s.data
        guard let sizes = s.values("size"), !data.isEmpty, dpr > 0, plot.width > 0, plot.height > 0 else { return [] }
        let biggest = sizes.yRange(indices: 0..<sizes.count)?.max ?? 0
        // The largest diameter in the series bounds how far outside the plot a bubble can reach in.
        // (Bubbles are drawn at most twice the plot's perimeter across: a size times the
        // scale may overflow to infinity, and a wider bubble covers the plot anyway.)
        let largest = 2 * (plot.width + plot.height)
        let maxDiameter = min(diameter(biggest, style: s.style, biggest: biggest), largest)
        let outline = marker.stroke == nil ? 0 : marker.lineWidth
        let reach = maxDiameter / 2 + outline / 2
        let margin = (reach * dpr).rounded(.up) + 1
        let gx0 = (plot.minX * dpr).rounded(.down) - margin, gy0 = (plot.minY * dpr).rounded(.down) - margin
        let w = (plot.maxX * dpr).rounded(.up) + margin - gx0 + 1, h = (plot.maxY * dpr).rounded(.up) + margin - gy0 + 1
        guard w <= 65_535, h <= 65_535 else { return [] }

        let (alongLo, alongHi) = xAlongWidth ? (plot.minX, plot.maxX) : (plot.minY, plot.maxY)
        let v1 = x.value(alongLo - reach), v2 = x.value(alongHi + reach)
        let start = data.lowerBound(min(v1, v2)), end = data.upperBound(max(v1, v2))
        guard start < end else { return [] }

        var cellsByDiameter: [Int: [MarkerSet.Cell]] = [:]
        var seen = Set<Int64>()
        for i in start..<end {
            let v = data.y(i), size = sizes.y(i)
            guard v.isFinite, size.isFinite else { continue }
            let d = (min(diameter(size, style: s.style, biggest: biggest), largest) * dpr).rounded()
            guard d >= 1 else { continue }
            let px = x.pixel(data.x(i)) * dpr, py = y.pixel(v) * dpr
            let (fx, fy) = xAlongWidth ? (px - gx0, py - gy0) : (py - gx0, px - gy0)
            guard fx >= 0, fx < w, fy >= 0, fy < h else { continue }
            let cx = Int(pixel: fx), cy = Int(pixel: fy), di = Int(pixel: d)
            if dedupe, !seen.insert(Int64(di) << 40 | Int64(cx) << 20 | Int64(cy)).inserted { continue }
            cellsByDiameter[di, default: []].append(MarkerSet.Cell(x: UInt16(cx), y: UInt16(cy)))
        }
        return cellsByDiameter.keys.sorted(by: >).map { di in
            var style = marker
            style.size = Double(di) / dpr
            return MarkerSet(style: style, x0: Float((gx0 + 0.5) / dpr), y0: Float((gy0 + 0.5) / dpr), unit: Float(1 / dpr),
                             cells: cellsByDiameter[di]!)
        }
    }
}

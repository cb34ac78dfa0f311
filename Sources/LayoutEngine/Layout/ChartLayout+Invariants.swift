/// Checks a finished layout against the rules every layout must keep. Tests call it
/// over many sizes and ranges; an empty answer means the layout is sound.
extension ChartLayout {
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        let canvas = Rect(x: 0, y: 0, width: size.width, height: size.height)
        if !canvas.contains(plotRect) { problems.append("plot \(plotRect) leaves the canvas") }
        for axis in axes {
            // Inner axes belong inside the plot, and may cross each other there.
            if !axis.isInner, axis.rect.intersects(plotRect) { problems.append("axis \(axis.id) overlaps the plot area") }
            for other in axes where !axis.isInner && !other.isInner && other.id < axis.id && other.rect.intersects(axis.rect) {
                problems.append("axes \(other.id) and \(axis.id) overlap")
            }
            // (The boxes of turned, parallel labels overlap while their text does not.)
            for (a, b) in zip(axis.labels, axis.labels.dropFirst()) where a.angle == 0 && a.bounds.intersects(b.bounds) {
                problems.append("axis \(axis.id): labels '\(a.text)' and '\(b.text)' overlap")
            }
            for label in axis.labels {
                if !canvas.contains(label.bounds) { problems.append("axis \(axis.id): label '\(label.text)' leaves the canvas") }
                if !axis.isInner, label.bounds.intersects(plotRect) { problems.append("axis \(axis.id): label '\(label.text)' enters the plot") }
            }
            for tick in axis.ticks {
                let inside = axis.alignment.isHorizontal
                    ? tick.pixel >= plotRect.minX - 1e-6 && tick.pixel <= plotRect.maxX + 1e-6
                    : tick.pixel >= plotRect.minY - 1e-6 && tick.pixel <= plotRect.maxY + 1e-6
                if !inside { problems.append("axis \(axis.id): tick \(tick.label) outside the plot span") }
            }
            for t in [axis.title].compactMap({ $0 }) + axis.moreTitleLines {
                if !canvas.contains(t.bounds) { problems.append("axis \(axis.id): title leaves the canvas") }
                if !axis.isInner, t.bounds.intersects(plotRect) { problems.append("axis \(axis.id): title enters the plot") }
                for label in axis.labels where label.bounds.intersects(t.bounds) {
                    problems.append("axis \(axis.id): title overlaps label '\(label.text)'")
                }
            }
        }
        return problems
    }
}

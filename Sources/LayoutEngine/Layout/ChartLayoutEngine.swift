/// The measure pass and the layout pass.
///
/// Measure: each axis reports how thick it must be (ticks, labels, title) for the
/// length it would get. Layout: the axes are stacked outwards from the plot area, side
/// by side in the order given, and the plot area gets what is left. Because a vertical
/// axis' thickness depends on its labels, and its labels on the plot height left by
/// the horizontal axes (and vice versa), the two passes repeat until the thicknesses
/// settle, at most `maxPasses` times (as uPlot does).
public struct ChartLayoutEngine: Sendable {
    public let measurer: TextMeasurer
    public var maxPasses = 4

    public init(measurer: TextMeasurer) { self.measurer = measurer }

    public func layout(_ spec: ChartLayoutSpec) -> ChartLayout {
        let canvas = Rect(x: 0, y: 0, width: spec.size.width, height: spec.size.height)
        var content = canvas.inset(by: spec.padding)

        var title: PlacedText? = nil
        if let text = spec.title, !text.isEmpty {
            let m = measurer.metrics(for: spec.titleStyle)
            let h = m.lineHeight(size: spec.titleStyle.size)
            let w = m.width(of: text, size: spec.titleStyle.size)
            let anchor = Point(x: content.midX, y: content.minY + m.ascent(size: spec.titleStyle.size))
            title = PlacedText(text: text, anchor: anchor, align: .center, angle: 0, style: spec.titleStyle,
                               bounds: Rect(x: content.midX - w / 2, y: content.minY, width: w, height: h))
            content = content.inset(by: EdgeInsets(top: (h + spec.titlePadding).rounded(.up)))
        }

        var thickness = [Double](repeating: 0, count: spec.axes.count)
        var reserve = EdgeInsets()
        var plot = content
        var passes = 0
        while passes < maxPasses {
            passes += 1
            plot = Self.plotRect(content: content.inset(by: reserve), axes: spec.axes, thickness: thickness)
            let measured = spec.axes.map { measure($0, plot: plot) }
            let overhang = labelOverhang(spec.axes, plot: plot, padding: spec.padding, hasTitle: title != nil)
            if measured == thickness && overhang == reserve { break }
            thickness = measured
            reserve = overhang
            if passes == maxPasses {
                plot = Self.plotRect(content: content.inset(by: reserve), axes: spec.axes, thickness: thickness)
            }
        }

        var axes: [AxisLayout] = []
        var offsets: [AxisAlignment: Double] = [:]
        for (i, axis) in spec.axes.enumerated() {
            let offset = offsets[axis.alignment, default: 0]
            offsets[axis.alignment] = offset + thickness[i]
            let band = Self.band(for: axis.alignment, plot: plot, offset: offset, thickness: thickness[i])
            axes.append(place(axis, band: band, plot: plot, canvas: canvas))
        }
        return ChartLayout(size: spec.size, plotRect: plot, title: title, axes: axes, passes: passes)
    }

    // MARK: Measure

    /// The thickness (pixels across the axis) that `axis` needs beside `plot`.
    public func measure(_ axis: AxisSpec, plot: Rect) -> Double {
        // A horizontal axis' labels are a line of text whatever they say: no ticks needed.
        let ticks = axis.alignment.isHorizontal ? [] : ticks(axis, plot: plot)?.ticks ?? []
        let labels = axis.reservedLabelExtent(measured: labelExtent(axis, ticks: ticks))
        var total = axis.tickLength + axis.labelPadding + labels
        if let title = axis.title, !title.isEmpty {
            total += axis.titlePadding + measurer.metrics(for: axis.titleStyle).lineHeight(size: axis.titleStyle.size)
        }
        return total.rounded(.up)
    }

    /// Space to keep free beside the plot so that the labels at the ends of an axis,
    /// centred on their ticks, are not cut by the canvas edge where no axis on that
    /// side makes room anyway (label-space reservation). Half the widest label of the
    /// horizontal axes left and right, half a label's height above; the canvas
    /// padding counts towards it. Whole pixels, so the plot keeps whole-pixel edges.
    func labelOverhang(_ axes: [AxisSpec], plot: Rect, padding: EdgeInsets, hasTitle: Bool) -> EdgeInsets {
        var half = 0.0, halfHeight = 0.0
        for axis in axes {
            if axis.alignment.isHorizontal {
                half = max(half, (ticks(axis, plot: plot)?.ticks.map(\.labelSize.width).max() ?? 0) / 2)
            } else {
                halfHeight = max(halfHeight, measurer.metrics(for: axis.labelStyle).lineHeight(size: axis.labelStyle.size) / 2)
            }
        }
        let sides = Set(axes.map(\.alignment))
        return EdgeInsets(
            top: sides.contains(.top) || hasTitle ? 0 : max(0, halfHeight - padding.top).rounded(.up),
            left: sides.contains(.left) ? 0 : max(0, half - padding.left).rounded(.up),
            bottom: sides.contains(.bottom) ? 0 : max(0, halfHeight - padding.bottom).rounded(.up),
            right: sides.contains(.right) ? 0 : max(0, half - padding.right).rounded(.up))
    }

    func calculator(_ axis: AxisSpec, plot: Rect) -> LinearCoordinateCalculator {
        let (start, end) = axis.alignment.isHorizontal ? (plot.minX, plot.maxX) : (plot.maxY, plot.minY)
        return axis.flipped
            ? LinearCoordinateCalculator(range: axis.visibleRange, pixelStart: end, pixelEnd: start)
            : LinearCoordinateCalculator(range: axis.visibleRange, pixelStart: start, pixelEnd: end)
    }

    /// The axis' ticks, and its step when it is numeric.
    func ticks(_ axis: AxisSpec, plot: Rect) -> (step: TickStep?, ticks: [Tick])? {
        let horizontal = axis.alignment.isHorizontal
        let calc = calculator(axis, plot: plot), length = horizontal ? plot.width : plot.height
        let measure = { (s: String) in measurer.size(of: s, style: axis.labelStyle) }
        switch axis.kind {
        case let .numeric(format):
            return TickGenerator.ticks(range: axis.visibleRange, calculator: calc, length: length, horizontal: horizontal,
                                       policy: axis.tickPolicy, format: format, measure: measure)
                .map { ($0.step, $0.ticks) }
        case let .dateTime(zone):
            return TimeTickGenerator.ticks(range: axis.visibleRange, calculator: calc, length: length, horizontal: horizontal,
                                           policy: axis.tickPolicy, zone: zone, measure: measure)
                .map { (nil, $0.ticks) }
        }
    }

    /// How far across the axis `ticks`' labels reach: the widest label of a vertical
    /// axis, a line of text for a horizontal one.
    func labelExtent(_ axis: AxisSpec, ticks: [Tick]) -> Double {
        axis.alignment.isHorizontal
            ? measurer.metrics(for: axis.labelStyle).lineHeight(size: axis.labelStyle.size)
            : ticks.map(\.labelSize.width).max() ?? 0
    }

    // MARK: Layout

    static func plotRect(content: Rect, axes: [AxisSpec], thickness: [Double]) -> Rect {
        var sums: [AxisAlignment: Double] = [:]
        for (i, a) in axes.enumerated() { sums[a.alignment, default: 0] += thickness[i] }
        var plot = content.inset(by: EdgeInsets(
            top: sums[.top, default: 0], left: sums[.left, default: 0],
            bottom: sums[.bottom, default: 0], right: sums[.right, default: 0]))
        // On a canvas too small for its axes the plot collapses, but stays on it.
        plot.x = min(plot.x, content.maxX)
        plot.y = min(plot.y, content.maxY)
        return plot
    }

    static func band(for alignment: AxisAlignment, plot: Rect, offset: Double, thickness: Double) -> Rect {
        switch alignment {
        case .left: return Rect(x: plot.minX - offset - thickness, y: plot.minY, width: thickness, height: plot.height)
        case .right: return Rect(x: plot.maxX + offset, y: plot.minY, width: thickness, height: plot.height)
        case .top: return Rect(x: plot.minX, y: plot.minY - offset - thickness, width: plot.width, height: thickness)
        case .bottom: return Rect(x: plot.minX, y: plot.maxY + offset, width: plot.width, height: thickness)
        }
    }

    func place(_ axis: AxisSpec, band: Rect, plot: Rect, canvas: Rect) -> AxisLayout {
        let calc = calculator(axis, plot: plot)
        let generated = ticks(axis, plot: plot)
        let m = measurer.metrics(for: axis.labelStyle)
        let ascent = m.ascent(size: axis.labelStyle.size), descent = m.descent(size: axis.labelStyle.size)
        let inset = axis.tickLength + axis.labelPadding

        var labels: [PlacedText] = []
        let measured = labelExtent(axis, ticks: generated?.ticks ?? [])
        let labelExtent = axis.reservedLabelExtent(measured: measured)
        for tick in generated?.ticks ?? [] {
            let s = tick.labelSize
            let placed: PlacedText
            switch axis.alignment {
            case .bottom, .top:
                let top = axis.alignment == .bottom ? band.minY + inset : band.maxY - inset - s.height
                placed = PlacedText(text: tick.label, anchor: Point(x: tick.pixel, y: top + ascent), align: .center,
                                    angle: 0, style: axis.labelStyle,
                                    bounds: Rect(x: tick.pixel - s.width / 2, y: top, width: s.width, height: s.height))
            case .left, .right:
                let baseline = tick.pixel + (ascent - descent) / 2
                let left = axis.alignment == .left ? band.maxX - inset - s.width : band.minX + inset
                placed = PlacedText(text: tick.label,
                                    anchor: Point(x: axis.alignment == .left ? left + s.width : left, y: baseline),
                                    align: axis.alignment == .left ? .right : .left, angle: 0, style: axis.labelStyle,
                                    bounds: Rect(x: left, y: baseline - ascent, width: s.width, height: s.height))
            }
            guard canvas.contains(placed.bounds) else { continue }
            labels.append(placed)
        }

        var title: PlacedText? = nil
        if let text = axis.title, !text.isEmpty {
            let tm = measurer.metrics(for: axis.titleStyle)
            let size = axis.titleStyle.size
            let w = tm.width(of: text, size: size), h = tm.lineHeight(size: size)
            let a = tm.ascent(size: size), d = tm.descent(size: size)
            // The title's band: just outside the labels, `h` thick.
            let out = inset + labelExtent + axis.titlePadding
            switch axis.alignment {
            case .bottom:
                let top = band.minY + out
                title = PlacedText(text: text, anchor: Point(x: plot.midX, y: top + a), align: .center, angle: 0,
                                   style: axis.titleStyle, bounds: Rect(x: plot.midX - w / 2, y: top, width: w, height: h))
            case .top:
                let top = band.maxY - out - h
                title = PlacedText(text: text, anchor: Point(x: plot.midX, y: top + a), align: .center, angle: 0,
                                   style: axis.titleStyle, bounds: Rect(x: plot.midX - w / 2, y: top, width: w, height: h))
            case .left:
                let left = band.maxX - out - h
                // Rotated -90 degrees: the ascent points left, so the baseline sits right of centre.
                title = PlacedText(text: text, anchor: Point(x: left + h / 2 + (a - d) / 2, y: plot.midY), align: .center,
                                   angle: -90, style: axis.titleStyle,
                                   bounds: Rect(x: left, y: plot.midY - w / 2, width: h, height: w))
            case .right:
                let left = band.minX + out
                title = PlacedText(text: text, anchor: Point(x: left + h / 2 - (a - d) / 2, y: plot.midY), align: .center,
                                   angle: 90, style: axis.titleStyle,
                                   bounds: Rect(x: left, y: plot.midY - w / 2, width: h, height: w))
            }
        }

        // A title with no room on the canvas is left out, as labels are.
        if let t = title, !canvas.contains(t.bounds) { title = nil }

        return AxisLayout(id: axis.id, alignment: axis.alignment, rect: band, calculator: calc,
                          step: generated?.step, ticks: generated?.ticks ?? [], labels: labels, title: title,
                          tickLength: axis.tickLength, labelExtent: measured)
    }
}

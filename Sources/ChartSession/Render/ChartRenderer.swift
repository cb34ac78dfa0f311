import Foundation
import LayoutEngine

/// Turns chart state into the commands of each layer, for one canvas size.
public struct ChartRenderer: Sendable {
    public let measurer: TextMeasurer
    /// Reduce lines to device-pixel columns read from the min/max index (the
    /// default). Off, every visible point is sent: the naive baseline the benchmark
    /// compares against.
    public var reducesLines: Bool

    public init(measurer: TextMeasurer, reducesLines: Bool = true) {
        self.measurer = measurer
        self.reducesLines = reducesLines
    }

    public struct Output: Sendable {
        public var layout: ChartLayout
        public var layers: [LayerID: [DrawCommand]]
        /// Where the legend went (nil: none), for `Chart.noteShownLegend` once shown.
        public var legend: Chart.ShownLegend? = nil
    }

    /// The layout at a canvas size. An X axis that follows its data scrolls by whole
    /// device pixels: the end of its window is rounded up to a multiple of the data
    /// width of one device pixel, so columns of data keep their pixels from frame to
    /// frame and a scroll moves them by whole pixels.
    public func layout(_ chart: Chart, size: Size, dpr: Double) -> ChartLayout {
        layout(chart, size: size, dpr: dpr, resolved: chart.resolvedRanges())
    }

    func layout(_ chart: Chart, size: Size, dpr: Double, resolved: [String: DoubleRange],
                earlierTicks: TickMemo? = nil, sharedTicks: SharedTickMemo? = nil) -> ChartLayout {
        let plan = legendBands(chart, size: size)
        let first = layout(chart, size: size, dpr: dpr, resolved: resolved, band: plan.fixed,
                           earlierTicks: earlierTicks, sharedTicks: sharedTicks)
        guard let band = plan.moved, legendMovesOut(chart, layout: first) else { return first }
        return layout(chart, size: size, dpr: dpr, resolved: resolved, band: band, earlierTicks: earlierTicks, sharedTicks: sharedTicks)
    }

    /// The layout with `band` (an outside legend's room) left out of it.
    func layout(_ chart: Chart, size: Size, dpr: Double, resolved: [String: DoubleRange], band: LegendBand?,
                earlierTicks: TickMemo?, sharedTicks: SharedTickMemo?) -> ChartLayout {
        var engine = ChartLayoutEngine(measurer: measurer, manager: chart.layoutManager)
        // (Only our manager is lent earlier ticks: it passes the axes as they are defined.)
        if chart.layoutManager is DefaultLayoutManager { engine.earlierTicks = earlierTicks; engine.sharedTicks = sharedTicks }
        var spec = chart.layoutSpec(size: size, ranges: resolved, reserved: band?.reserved ?? .all(0))
        // A following X axis scrolls by whole device pixels: its range snaps to the length
        // each pass gives it, so the passes settle the plot and the snapped range together.
        for i in spec.axes.indices {
            guard let axis = chart.axis(spec.axes[i].id), axis.isXAxis, axis.userRange == nil, axis.config.mode == .follow,
                  axis.config.type != .logarithmic, !axis.config.isDiscontinuous else { continue }
            spec.axes[i].snapsToDevicePixels = dpr
        }
        var layout = engine.layout(spec)
        layout.legendArea = band?.area
        layout.legendPosition = band?.position
        // A legend band at the top goes below the chart's title, not above it: the title
        // moves up into the band's place and the band down by the title's room.
        if let band, band.reserved.top > 0, var title = layout.title {
            let room = (title.bounds.height + spec.titlePadding).rounded(.up)
            title.anchor.y -= band.reserved.top
            title.bounds.y -= band.reserved.top
            layout.title = title
            layout.legendArea?.y += room
        }
        return layout
    }

    public func render(_ chart: Chart, size: Size, dpr: Double) -> Output {
        var memo = Memo()
        return render(chart, size: size, dpr: dpr, memo: &memo)
    }

    /// What the previous render at one canvas size can lend the next: each line
    /// series' reduction (`ColumnReducer.Cache`, by series id), and the layout and
    /// background, which stand while the ranges, size, title, axes and theme do (a live
    /// chart with stable ranges lays out once, not at every publication).
    public struct Memo: Sendable {
        var reductions: [String: ColumnReducer.Cache] = [:]
        /// The last two layouts and backgrounds made, by what they were made from.
        var layouts: [(key: LayoutKey, layout: ChartLayout, background: [DrawCommand])] = []
        /// The ticks the last layout made, while the axes' definitions stay (a live chart's
        /// still axes keep their ticks; a scrolling one's are made again).
        var ticks = TickMemo()
        var ticksAxes: [AxisConfig]?
        var ticksImages: [String: String] = [:]
        /// The legend's commands, while its entries, box and theme stand.
        var legend: LegendMemo?
        /// The font names the layers' text commands use.
        var fonts = FontNames()
        public init() {}
    }

    /// Ticks several charts with the same axes share while they render at one moment
    /// (a session's views, see `SharedTickMemo`), and the axes they were made for: a
    /// chart whose axes are defined otherwise does not use them.
    public struct SharedTicks: Sendable {
        public let memo: SharedTickMemo
        public let axes: [AxisConfig]
        public init(memo: SharedTickMemo, axes: [AxisConfig]) { self.memo = memo; self.axes = axes }
    }

    /// Everything the layout and the background layer depend on.
    struct LayoutKey: Equatable, Sendable {
        var ranges: [String: DoubleRange]
        var title: String?
        var axes: [AxisConfig]
        var userRanges: [DoubleRange?]
        var theme: Theme
        var size: Size
        var dpr: Double
        var layoutManagerGeneration: Int
        var axisSpacing: Double
        var margins: EdgeInsets
        var fontFamily: String?
        var titleFont: TextFont
        var titleSize: Double
        var legend: LegendConfig?
        /// The room an outside legend takes from the layout.
        var band: LegendBand?
        /// The chart's images by version, where a tick hook may draw them as labels
        /// (`TickMark.labelImage`; empty without hooks): an image added or replaced
        /// lays the axes out again.
        var labelImages: [String: String] = [:]
    }

    /// The same, reusing (and updating) what `memo` holds from the previous render.
    public func render(_ chart: Chart, size: Size, dpr: Double, memo: inout Memo, shared: SharedTicks? = nil) -> Output {
        let plan = legendBands(chart, size: size)
        var key = LayoutKey(ranges: chart.resolvedRanges(), title: chart.title, axes: chart.axes.map(\.config),
                            userRanges: chart.axes.map(\.userRange), theme: chart.theme, size: size, dpr: dpr,
                            layoutManagerGeneration: chart.layoutManagerGeneration, axisSpacing: chart.axisSpacing,
                            margins: chart.margins, fontFamily: chart.fontFamily, titleFont: chart.titleFont,
                            titleSize: chart.titleSize, legend: chart.legend, band: plan.fixed)
        if !chart.images.isEmpty, chart.axes.contains(where: { $0.config.tickHook != nil }) {
            key.labelImages = chart.images.mapValues(\.version)
        }
        var (layout, background) = memoLayout(chart, key: key, memo: &memo, shared: shared)
        // A legend free to move that covers data wherever it goes inside the plot goes
        // to its band outside (the same choice `layout` makes).
        var movedOut = false
        if let band = plan.moved, legendMovesOut(chart, layout: layout) {
            key.band = band
            movedOut = true
            (layout, background) = memoLayout(chart, key: key, memo: &memo, shared: shared)
        }
        let overlay = overlayCommands(chart, layout: layout, memo: &memo.legend, fonts: &memo.fonts)
        let shown = chart.legend == nil || memo.legend == nil ? nil
            : Chart.ShownLegend(outside: movedOut, position: layout.legendArea == nil ? memo.legend?.position : nil)
        return Output(layout: layout,
                      layers: [.background: background,
                               .series: seriesCommands(chart, layout: layout, dpr: dpr, caches: &memo.reductions),
                               .overlay: overlay],
                      legend: shown)
    }

    /// The layout and background for `key`, from `memo` when it holds them (it keeps
    /// the last two: a legend that moves out of the plot and back uses both).
    func memoLayout(_ chart: Chart, key: LayoutKey, memo: inout Memo, shared: SharedTicks?) -> (ChartLayout, [DrawCommand]) {
        if let i = memo.layouts.firstIndex(where: { $0.key == key }) {
            let hit = memo.layouts[i]
            if i != memo.layouts.count - 1 { memo.layouts.remove(at: i); memo.layouts.append(hit) }
            return (hit.layout, hit.background)
        }
        if memo.ticksAxes != key.axes || memo.ticksImages != key.labelImages {
            memo.ticks = TickMemo(); memo.ticksAxes = key.axes; memo.ticksImages = key.labelImages
        }
        // (Ticks shared between views are keyed by the axes alone: not where a hook's
        // labels depend on the chart's images.)
        let sharedTicks = key.labelImages.isEmpty ? shared.flatMap { $0.axes == key.axes ? $0.memo : nil } : nil
        let layout = self.layout(chart, size: key.size, dpr: key.dpr, resolved: key.ranges, band: key.band,
                                 earlierTicks: memo.ticks, sharedTicks: sharedTicks)
        let background = backgroundCommands(chart, layout: layout, dpr: key.dpr, fonts: &memo.fonts)
        memo.layouts.append((key, layout, background))
        if memo.layouts.count > 2 { memo.layouts.removeFirst() }
        return (layout, background)
    }

    /// Centres a 1-device-pixel line on a device pixel, so it is drawn sharp.
    static func crisp(_ v: Double, dpr: Double) -> Float {
        Float(((v * dpr).rounded(.down) + 0.5) / dpr)
    }

    func text(_ t: PlacedText, fill: String, theme: Theme, fonts: inout FontNames) -> DrawCommand {
        let align: DrawCommand.TextAlign = switch t.align {
        case .left: .left
        case .center: .center
        case .right: .right
        }
        return .text(x: Float(t.anchor.x), y: Float(t.anchor.y), text: t.text, font: fonts.name(t.style, theme: theme),
                     fill: fill, align: align, baseline: .alphabetic, angle: Float(t.angle))
    }

    /// The CSS font of each text style, made once: a font name is longer than a string
    /// kept inline, so each label's own would be an allocation. A view's memo keeps them
    /// from frame to frame, so an unchanged label is the same bytes as the frame before's
    /// and its layer's diff compares it without reading the strings.
    struct FontNames: Sendable {
        private var made: [(style: TextStyle, family: String, name: String)] = []
        mutating func name(_ style: TextStyle, theme: Theme) -> String {
            if let hit = made.first(where: { $0.style == style && $0.family == theme.fontFamily }) { return hit.name }
            let name = theme.cssFont(style)
            // (A handful of styles; a theme change starts afresh.)
            if made.count >= 16 { made.removeAll() }
            made.append((style, theme.fontFamily, name))
            return name
        }
    }

    // MARK: Background layer

    /// How far across the plot an axis' gridlines and bands run: the whole plot, or
    /// where the axes its series are plotted against are stacked into a part of it
    /// (a pane of stacked Y axes), that part: each pane's gridlines from its own axis.
    func gridSpan(_ chart: Chart, _ axis: AxisLayout, layout: ChartLayout) -> (Double, Double) {
        let plot = layout.plotRect
        let across = axis.alignment.isHorizontal
        let full = across ? (plot.minY, plot.maxY) : (plot.minX, plot.maxX)
        var lo = Double.infinity, hi = -Double.infinity
        let series = chart.series
        for i in series.indices where !series[i].isHidden {
            let other: String
            if series[i].xAxisId == axis.id { other = series[i].yAxisId }
            else if series[i].yAxisId == axis.id { other = series[i].xAxisId }
            else { continue }
            guard let o = layout.axes.first(where: { $0.id == other }), o.alignment.isHorizontal != across else { return full }
            lo = min(lo, across ? o.rect.minY : o.rect.minX)
            hi = max(hi, across ? o.rect.maxY : o.rect.maxX)
        }
        // (Only a part clearly inside the plot: an axis along the whole plot keeps it all.)
        guard lo < hi, lo > full.0 + 1 || hi < full.1 - 1 else { return full }
        return (max(full.0, lo), min(full.1, hi))
    }

    func backgroundCommands(_ chart: Chart, layout: ChartLayout, dpr: Double, fonts: inout FontNames) -> [DrawCommand] {
        let theme = chart.theme
        let plot = layout.plotRect
        var out: [DrawCommand] = [
            .rect(x: 0, y: 0, w: Float(layout.size.width), h: Float(layout.size.height),
                  fill: theme.background, stroke: nil, lineWidth: 0),
            .rect(x: Float(plot.x), y: Float(plot.y), w: Float(plot.width), h: Float(plot.height),
                  fill: theme.plotBackground, stroke: nil, lineWidth: 0),
        ]
        let lineWidth = Float(1 / dpr)

        // Alternate bands between major ticks, under everything else.
        for axis in layout.axes where chart.axis(axis.id)?.config.bands ?? false {
            let pixels = axis.ticks.map(\.pixel)
            for k in stride(from: 0, to: pixels.count - 1, by: 2) {
                let (a, b) = (min(pixels[k], pixels[k + 1]), max(pixels[k], pixels[k + 1]))
                out.append(axis.alignment.isHorizontal
                    ? .rect(x: Float(a), y: Float(plot.minY), w: Float(b - a), h: Float(plot.height), fill: theme.band, stroke: nil, lineWidth: 0)
                    : .rect(x: Float(plot.minX), y: Float(a), w: Float(plot.width), h: Float(b - a), fill: theme.band, stroke: nil, lineWidth: 0))
            }
        }

        // Minor gridlines, where asked for, under the major ones.
        /// Segments across the plot at `pixels` along an axis.
        /// (Built in one array: a frame makes these for every view at every publication.)
        func grid<C: Collection<Double>>(_ pixels: C, _ axis: AxisLayout) -> [Float] {
            var out: [Float] = []
            out.reserveCapacity(pixels.count * 4)
            let across = axis.alignment.isHorizontal
            let (from, to) = gridSpan(chart, axis, layout: layout)
            for pixel in pixels {
                let p = Self.crisp(pixel, dpr: dpr)
                if across {
                    out.append(p); out.append(Float(from)); out.append(p); out.append(Float(to))
                } else {
                    out.append(Float(from)); out.append(p); out.append(Float(to)); out.append(p)
                }
            }
            return out
        }
        for axis in layout.axes where chart.axis(axis.id)?.config.minorGridLines ?? false {
            let lines = grid(axis.minorTicks, axis)
            if !lines.isEmpty { out.append(.segments(coords: lines, stroke: theme.minorGridLine, width: lineWidth, dash: [])) }
        }

        // Gridlines, then each axis' line and ticks, one command per axis: a chart that
        // scrolls in x changes the x axis' commands and leaves the others as they were,
        // so a patch carries only those.
        for axis in layout.axes where chart.axis(axis.id)?.config.showGridLines ?? true {
            let config = chart.axis(axis.id)?.config
            let lines = grid(axis.ticks.lazy.map(\.pixel), axis)
            let width = config?.gridLineWidth.map(Float.init) ?? lineWidth
            if !lines.isEmpty, width > 0 {
                out.append(.segments(coords: lines, stroke: config?.gridLineColor ?? theme.gridLine, width: width,
                                     dash: (config?.gridLineDash ?? []).map(Float.init)))
            }
        }

        for axis in layout.axes where !axis.isHidden {
            let config = chart.axis(axis.id)?.config
            var lines: [Float] = []
            lines.reserveCapacity(4 * (1 + axis.ticks.count + axis.minorTicks.count))
            func add(_ a: Float, _ b: Float, _ c: Float, _ d: Float) {
                lines.append(a); lines.append(b); lines.append(c); lines.append(d)
            }
            let r = axis.rect
            // Major ticks full length, minor ones half, after the line: the line is the
            // band's edge opposite to where ticks and labels point.
            let major = Float(axis.tickLength), minor = Float(axis.tickLength / 2)
            func marks(_ body: (Double, Float) -> Void) {
                for t in axis.ticks { body(t.pixel, major) }
                for m in axis.minorTicks { body(m, minor) }
            }
            switch axis.facing {
            case .bottom:
                let y = Self.crisp(r.minY, dpr: dpr)
                add(Float(r.minX), y, Float(r.maxX), y)
                marks { pixel, t in let x = Self.crisp(pixel, dpr: dpr); add(x, y, x, y + t) }
            case .top:
                let y = Self.crisp(r.maxY, dpr: dpr) - lineWidth
                add(Float(r.minX), y, Float(r.maxX), y)
                marks { pixel, t in let x = Self.crisp(pixel, dpr: dpr); add(x, y, x, y - t) }
            case .left:
                let x = Self.crisp(r.maxX, dpr: dpr) - lineWidth
                add(x, Float(r.minY), x, Float(r.maxY))
                marks { pixel, t in let y = Self.crisp(pixel, dpr: dpr); add(x, y, x - t, y) }
            case .right:
                let x = Self.crisp(r.minX, dpr: dpr)
                add(x, Float(r.minY), x, Float(r.maxY))
                marks { pixel, t in let y = Self.crisp(pixel, dpr: dpr); add(x, y, x + t, y) }
            }
            // A floating axis with fixed labels: its line where it floats, ticks at the edge.
            if let line = axis.line {
                let p = Self.crisp(line, dpr: dpr)
                lines.replaceSubrange(0..<4, with: axis.alignment.isHorizontal ? [Float(r.minX), p, Float(r.maxX), p]
                                                                             : [p, Float(r.minY), p, Float(r.maxY)])
            }
            let width = config?.lineWidth.map(Float.init) ?? lineWidth
            let stroke = config?.lineColor ?? theme.axisLine
            if config?.tickColor != nil || config?.tickWidth != nil {
                // Ticks styled apart: the line alone, then the ticks in their own style.
                if width > 0 { out.append(.segments(coords: Array(lines[0..<4]), stroke: stroke, width: width, dash: [])) }
                let tickWidth = config?.tickWidth.map(Float.init) ?? width
                if tickWidth > 0, lines.count > 4 {
                    out.append(.segments(coords: Array(lines[4...]), stroke: config?.tickColor ?? stroke, width: tickWidth, dash: []))
                }
            } else if width > 0 {
                out.append(.segments(coords: lines, stroke: stroke, width: width, dash: []))
            }
        }

        for axis in layout.axes {
            let config = chart.axis(axis.id)?.config
            let fill = config?.labelColor ?? theme.tickLabel
            // (Labels on a background go above the series: the overlay layer draws them.)
            if !(config?.drawsLabelBackground ?? false) {
                for label in axis.labels {
                    // (A label a hook gave a background, `TickMark.labelBackground`: its box first.)
                    if let box = label.background { out.append(labelBox(label, fill: box)) }
                    out.append(labelCommand(label, fill: label.fill ?? fill, chart: chart, fonts: &fonts))
                }
            }
            let titleFill = config?.titleColor ?? theme.title
            if let title = axis.title { out.append(text(title, fill: titleFill, theme: theme, fonts: &fonts)) }
            for line in axis.moreTitleLines { out.append(text(line, fill: titleFill, theme: theme, fonts: &fonts)) }
        }
        if let title = layout.title { out.append(text(title, fill: theme.title, theme: theme, fonts: &fonts)) }
        return out
    }

    // MARK: Series layer

    func seriesCommands(_ chart: Chart, layout: ChartLayout, dpr: Double,
                        caches: inout [String: ColumnReducer.Cache]) -> [DrawCommand] {
        let plot = layout.plotRect
        // Series are clipped to the plot unless the chart says otherwise (`clipSeries`).
        var out: [DrawCommand] = []
        out.reserveCapacity(chart.series.count + 2)
        if chart.clipSeries { out.append(.clip(x: Float(plot.x), y: Float(plot.y), w: Float(plot.width), h: Float(plot.height))) }
        // A stack is drawn from its top member down, each filled (or its columns drawn)
        // from the baseline to its running sum: opaque fills then show each band in
        // its own colour, and columns too thin to tell apart still show the right one.
        var drawn = Set<Int>()
        var order: [Int] = []
        let groups = chart.stackGroups
        for i in chart.series.indices where !drawn.contains(i) {
            if let group = groups.first(where: { $0.contains(i) }) {
                order += group.reversed()
                drawn.formUnion(group)
            } else {
                order.append(i)
            }
        }
        let columnSlots = self.columnSlots(chart)
        out += annotationCommands(chart, layout: layout, dpr: dpr, layer: .below)
        for i in order {
            let s = chart.series[i].drawn
            guard !s.isHidden else { continue }
            var commands: [DrawCommand]
            let animation = s.animationProgress
            if let a = animation, a.progress <= 0.001 { continue }
            if s.kind.isRadial {
                var grow = 1.0, shift = 0.0
                if let a = animation {
                    switch a.effect {
                    case .grow: grow = a.progress
                    case .slide: shift = (1 - a.progress) * plot.height
                    case .fade: break
                    }
                }
                commands = PieRenderer.commands(s, plot: plot, theme: chart.theme, measurer: measurer, grow: grow, shift: shift)
            } else {
                guard var xl = layout.axis(s.xAxisId), var yl = layout.axis(s.yAxisId), !s.plotted.isEmpty else { continue }
                if let a = animation, a.effect != .fade {
                    // (The value axis: a vertical band's is its X axis.)
                    if s.isVertical {
                        xl.calculator = Self.animated(xl.calculator, s, effect: a.effect, progress: a.progress, plot: plot,
                                                      across: yl.alignment.isHorizontal)
                    } else {
                        yl.calculator = Self.animated(yl.calculator, s, effect: a.effect, progress: a.progress, plot: plot,
                                                      across: xl.alignment.isHorizontal)
                    }
                }
                commands = xyCommands(s, index: i, xl: xl, yl: yl, plot: plot, dpr: dpr, theme: chart.theme,
                                      columnSlots: columnSlots, caches: &caches)
            }
            if let a = animation, a.effect == .fade, !commands.isEmpty {
                commands = [.opacity(Float(a.progress))] + commands + [.opacity(1)]
            }
            out += commands
        }
        out += annotationCommands(chart, layout: layout, dpr: dpr, layer: .above)
        if chart.clipSeries { out.append(.unclip) }
        return out
    }

    /// The value axis' calculator for a series partway through a grow or slide: values
    /// drawn closer to the baseline (`grow`), or shifted along the value axis from
    /// below the plot (from its left on a rotated chart).
    static func animated(_ c: CoordinateCalculator, _ s: Series, effect: SeriesAnimation.Effect, progress p: Double,
                         plot: Rect, across: Bool) -> CoordinateCalculator {
        let (lo, hi) = across ? (plot.minY, plot.maxY) : (plot.minX, plot.maxX)
        let pivot: Double, scale: Double, shift: Double
        switch effect {
        case .grow:
            let base = c.pixel(s.style.baseline)
            pivot = base.isFinite ? min(max(base, lo), hi) : (across ? hi : lo)
            scale = p; shift = 0
        case .slide:
            pivot = 0; scale = 1; shift = (1 - p) * (hi - lo) * (across ? 1 : -1)
        case .fade:
            return c
        }
        func moved(_ px: Double) -> Double { pivot + (px - pivot) * scale + shift }
        return CoordinateCalculator(range: c.range, pixelStart: moved(c.pixelStart), pixelEnd: moved(c.pixelEnd),
                                    logBase: c.logBase, breaks: c.breaks)
    }

    /// One XY series' commands.
    func xyCommands(_ s: Series, index i: Int, xl: AxisLayout, yl: AxisLayout, plot: Rect, dpr: Double, theme: Theme,
                    columnSlots: [Int: (width: Double, offset: Double, spacing: Double)],
                    caches: inout [String: ColumnReducer.Cache]) -> [DrawCommand] {
        var out: [DrawCommand] = []
        let across = xl.alignment.isHorizontal
        switch s.kind {
        case .line, .step, .area:
            out += lineCommands(s, xl: xl, yl: yl, plot: plot, dpr: dpr, theme: theme, caches: &caches)
        case .band:
            out += bandCommands(s, xl: xl, yl: yl, plot: plot, dpr: dpr, caches: &caches)
        case .scatter, .pie, .donut:
            break
        case .bubble:
            if let m = s.effectiveMarker {
                out += BubbleReducer.reduce(s, x: xl.calculator, y: yl.calculator, xAlongWidth: across, dpr: dpr, plot: plot,
                                            marker: m, dedupe: reducesLines).map { .markers($0) }
            }
        case .candlestick, .ohlc:
            let style = CandleReducer.Style(ohlc: s.kind == .ohlc, rising: s.style.risingColor, falling: s.style.fallingColor,
                                            stroke: s.style.stroke, lineWidth: s.style.strokeWidth,
                                            widthFraction: s.style.columnWidth)
            out += CandleReducer.reduce(s, x: xl.calculator, y: yl.calculator, xAlongWidth: across, dpr: dpr, plot: plot,
                                        style: style, aggregate: reducesLines).map { .bars($0) }
        case .column:
            var style = BarReducer.Style(fill: s.style.fill ?? s.color, stroke: s.style.stroke, lineWidth: s.style.strokeWidth,
                                         baseline: s.style.baseline, widthFraction: s.style.columnWidth)
            if let slot = columnSlots[i] {
                style.widthFraction = slot.width; style.offset = slot.offset; style.spacing = slot.spacing
            }
            if let bars = BarReducer.reduce(s.plotted, x: xl.calculator, y: yl.calculator, xAlongWidth: across, dpr: dpr,
                                            plot: plot, style: style, collapse: reducesLines), !bars.bars.isEmpty {
                out.append(.bars(bars))
            }
        }
        if s.kind != .bubble, let marker = s.effectiveMarker,
           let set = MarkerReducer.reduce(s.plotted, x: xl.calculator, y: yl.calculator, xAlongWidth: across, dpr: dpr,
                                          plot: plot, style: marker, dedupe: reducesLines), !set.cells.isEmpty {
            out.append(.markers(set))
        }
        out += selectedPointCommands(s, xl: xl, yl: yl, plot: plot, dpr: dpr)
        return out
    }

    /// A marker on each selected point in view: the `selectedStyle`'s marker, or a ring
    /// in the selected colour.
    func selectedPointCommands(_ s: Series, xl: AxisLayout, yl: AxisLayout, plot: Rect, dpr: Double) -> [DrawCommand] {
        guard !s.selectedPoints.isEmpty else { return [] }
        let data = s.plotted, across = xl.alignment.isHorizontal
        let color = s.selectedColor ?? s.color
        var style = s.selectedStyle?.marker ?? MarkerStyle(shape: .circle, size: 11, fill: color, stroke: "#ffffff", lineWidth: 2)
        if style.fill == nil, style.stroke == nil { style.fill = color }
        var out: [DrawCommand] = []
        for seq in s.selectedPoints.sorted() {
            let i = seq - data.firstSequence
            guard i >= 0, i < data.count, data.y(i).isFinite else { continue }
            let a = xl.calculator.pixel(data.x(i)), b = yl.calculator.pixel(data.y(i))
            let (px, py) = across ? (a, b) : (b, a)
            guard px >= plot.minX - style.reach, px <= plot.maxX + style.reach, py >= plot.minY - style.reach, py <= plot.maxY + style.reach else { continue }
            // On the device pixel under the point, as series markers are.
            out.append(.markers(MarkerSet(style: style, x0: Float(((px * dpr).rounded(.down) + 0.5) / dpr),
                                          y0: Float(((py * dpr).rounded(.down) + 0.5) / dpr), unit: Float(1 / dpr),
                                          cells: [MarkerSet.Cell(x: 0, y: 0)])))
        }
        return out
    }

    /// Column series that share an X axis stand side by side (a stack takes one slot):
    /// for each, its width and centre offset as fractions of the group's smallest X
    /// spacing, from the axis' `interSeriesSetPadding` (between groups) and
    /// `interSeriesPadding` (between columns of a group). A lone column series keeps
    /// its own `columnWidth`.
    func columnSlots(_ chart: Chart) -> [Int: (width: Double, offset: Double, spacing: Double)] {
        var slotsByAxis: [String: [[Int]]] = [:]
        var axisOrder: [String] = []
        var placed = Set<Int>()
        let groups = chart.stackGroups
        let series = chart.series
        for i in series.indices where series[i].kind == .column && !series[i].isHidden && !placed.contains(i) {
            let slot = groups.first { $0.contains(i) } ?? [i]
            placed.formUnion(slot)
            let axis = series[i].xAxisId
            if slotsByAxis[axis] == nil { axisOrder.append(axis) }
            slotsByAxis[axis, default: []].append(slot)
        }
        var out: [Int: (width: Double, offset: Double, spacing: Double)] = [:]
        for id in axisOrder {
            guard let slots = slotsByAxis[id], slots.count > 1, let config = chart.axis(id)?.config else { continue }
            let spacing = slots.flatMap { $0 }.map { chart.series[$0].plotted.minSpacing }.min() ?? .infinity
            guard spacing.isFinite else { continue }
            let group = 1 - config.interSeriesSetPadding, slot = group / Double(slots.count)
            for (k, members) in slots.enumerated() {
                for i in members {
                    out[i] = (slot * (1 - config.interSeriesPadding), -group / 2 + slot * (Double(k) + 0.5), spacing)
                }
            }
        }
        return out
    }

    // MARK: Annotations

    /// The annotations of one layer, placed through their axes (so they move with pan
    /// and zoom), clipped with the series.
    func annotationCommands(_ chart: Chart, layout: ChartLayout, dpr: Double, layer: Annotation.Layer) -> [DrawCommand] {
        var out: [DrawCommand] = []
        let plot = layout.plotRect
        let labels = annotationLabels(chart, layout: layout, dpr: dpr)
        for (index, a) in chart.annotations.enumerated() where a.layer == layer {
            guard let xl = layout.axis(a.xAxisId), let yl = layout.axis(a.yAxisId) else { continue }
            let across = xl.alignment.isHorizontal
            let xc = xl.calculator, yc = yl.calculator
            /// Screen coordinates of a data point.
            func point(_ x: Double, _ y: Double) -> (Double, Double) {
                across ? (xc.pixel(x), yc.pixel(y)) : (yc.pixel(y), xc.pixel(x))
            }
            /// The plot's extent along the X axis' direction, and along the Y axis'.
            let alongX = across ? (plot.minX, plot.maxX) : (plot.minY, plot.maxY)
            let alongY = across ? (plot.minY, plot.maxY) : (plot.minX, plot.maxX)
            let width = Float(a.lineWidth), dash = a.dash.map(Float.init)
            /// A line at `fixed` (screen coordinate across its run) from `from` to `to`.
            func line(fixed: Double, from: Double, to: Double, vertical: Bool) {
                let f = Double(a.lineWidth * dpr).rounded() == 1 ? Double(Self.crisp(fixed, dpr: dpr)) : fixed
                let coords: [Float] = vertical ? [Float(f), Float(from), Float(f), Float(to)] : [Float(from), Float(f), Float(to), Float(f)]
                out.append(.segments(coords: coords, stroke: a.color, width: width, dash: dash))
            }
            let style = a.font.style(size: a.textSize, chartFamily: chart.fontFamily)
            switch a.kind {
            case .horizontalLine, .verticalLine:
                // A line of constant y (horizontalLine) or x: across the plot, or between
                // the given ends of the other coordinate.
                let constantY = a.kind == .horizontalLine
                guard let v = constantY ? a.y : a.x else { continue }
                let fixed = constantY ? yc.pixel(v) : xc.pixel(v)
                let ends: (Double, Double)
                if constantY, let x1 = a.x, let x2 = a.x2 { ends = (xc.pixel(x1), xc.pixel(x2)) }
                else if !constantY, let y1 = a.y, let y2 = a.y2 { ends = (yc.pixel(y1), yc.pixel(y2)) }
                else { ends = constantY ? alongX : alongY }
                // On screen: a constant-y line runs across when X does.
                let vertical = constantY != across
                line(fixed: fixed, from: min(ends.0, ends.1), to: max(ends.0, ends.1), vertical: vertical)
                if let t = a.text, let l = labels[index] {
                    out.append(.text(x: Float(l.x), y: Float(l.y), text: t, font: chart.theme.cssFont(style), fill: a.color,
                                     align: l.align, baseline: .alphabetic, angle: 0))
                }
            case .box:
                guard let x1 = a.x, let y1 = a.y, let x2 = a.x2, let y2 = a.y2 else { continue }
                let p = point(x1, y1), q = point(x2, y2)
                let left = min(p.0, q.0), top = min(p.1, q.1)
                out.append(.rect(x: Float(left), y: Float(top), w: Float(abs(q.0 - p.0)), h: Float(abs(q.1 - p.1)),
                                 fill: a.fill, stroke: a.lineWidth > 0 ? a.color : nil, lineWidth: width))
                if let t = a.text, let l = labels[index] {
                    out.append(.text(x: Float(l.x), y: Float(l.y), text: t,
                                     font: chart.theme.cssFont(style), fill: a.color, align: l.align, baseline: .alphabetic, angle: 0))
                }
            case .text:
                guard let t = a.text, let l = labels[index] else { continue }
                let p = (l.x, l.y)
                let m = measurer.metrics(for: style)
                if let fill = a.fill {
                    let w = measurer.width(of: t, style: style), h = m.lineHeight(size: style.size)
                    out.append(.rect(x: Float(p.0 - 3), y: Float(p.1 - m.ascent(size: style.size) - 2), w: Float(w + 6), h: Float(h + 4),
                                     fill: fill, stroke: nil, lineWidth: 0))
                }
                out.append(.text(x: Float(p.0), y: Float(p.1), text: t, font: chart.theme.cssFont(style), fill: a.color,
                                 align: .left, baseline: .alphabetic, angle: 0))
            case .marker:
                guard let x = a.x, let y = a.y else { continue }
                let p = point(x, y)
                var m = a.marker ?? MarkerStyle(shape: .circle, size: 8)
                if m.fill == nil, m.stroke == nil { m.fill = a.color }
                // Its centre on the device pixel under the point, as series markers are.
                let cx = ((p.0 * dpr).rounded(.down) + 0.5) / dpr, cy = ((p.1 * dpr).rounded(.down) + 0.5) / dpr
                out.append(.markers(MarkerSet(style: m, x0: Float(cx), y0: Float(cy), unit: Float(1 / dpr),
                                              cells: [MarkerSet.Cell(x: 0, y: 0)])))
                if let t = a.text, let l = labels[index] {
                    out.append(.text(x: Float(l.x), y: Float(l.y), text: t, font: chart.theme.cssFont(style),
                                     fill: a.color, align: l.align, baseline: .alphabetic, angle: 0))
                }
            case .image:
                guard let x = a.x, let y = a.y, let name = a.image, let image = chart.images[name] else { continue }
                let src = chart.imagePath + name + "?v=" + image.version
                let p = point(x, y)
                // A faded image: an `opacity` command before it and one back to 1 after, which
                // every client already draws (no new field in the `image` command).
                let alpha = a.opacity.isNaN ? 1 : min(max(a.opacity, 0), 1)
                if alpha < 1 { out.append(.opacity(Float(alpha))) }
                defer { if alpha < 1 { out.append(.opacity(1)) } }
                if let x2 = a.x2, let y2 = a.y2 {
                    // Stretched between two data corners: it zooms with the axes.
                    let q = point(x2, y2)
                    out.append(.image(x: Float(min(p.0, q.0)), y: Float(min(p.1, q.1)), w: Float(abs(q.0 - p.0)),
                                      h: Float(abs(q.1 - p.1)), src: src))
                } else {
                    // Centred on the point at a fixed screen size (made smaller on a small plot or
                    // over a marker, `fixedImageRect`).
                    let r = fixedImageRect(chart, a, image, at: p, layout: layout)
                    out.append(.image(x: Float(r.minX), y: Float(r.minY), w: Float(r.width), h: Float(r.height), src: src))
                }
            }
        }
        out += customAnnotationCommands(chart, layout: layout, dpr: dpr, layer: layer)
        return out
    }

    /// The chart's custom annotations of `layer`: each one's content, drawn by its
    /// function for its box, between a clip to the box (within the plot when the chart
    /// clips its series) or to the plot, and the series' clip again (or none). The
    /// function's own clips are dropped.
    func customAnnotationCommands(_ chart: Chart, layout: ChartLayout, dpr: Double, layer: Annotation.Layer) -> [DrawCommand] {
        guard !chart.customAnnotations.isEmpty else { return [] }
        var out: [DrawCommand] = []
        let plot = layout.plotRect
        func clip(_ r: Rect) -> DrawCommand { .clip(x: Float(r.minX), y: Float(r.minY), w: Float(r.width), h: Float(r.height)) }
        for a in chart.customAnnotations where a.layer == layer {
            guard let xl = layout.axis(a.xAxisId), let yl = layout.axis(a.yAxisId) else { continue }
            let across = xl.alignment.isHorizontal
            guard let box = a.box(x: xl.calculator, y: yl.calculator, across: across) else { continue }
            var area = a.clip == .plot ? plot : box
            if a.clip == .box, chart.clipSeries {
                let left = max(box.minX, plot.minX), top = max(box.minY, plot.minY)
                let right = min(box.maxX, plot.maxX), bottom = min(box.maxY, plot.maxY)
                guard right > left, bottom > top else { continue }
                area = Rect(x: left, y: top, width: right - left, height: bottom - top)
            }
            let content = a.draw(CustomAnnotation.Context(box: box, plot: plot, xAxis: xl.calculator, yAxis: yl.calculator,
                                                          dpr: dpr, across: across))
            guard !content.isEmpty else { continue }
            out.append(clip(area))
            for c in content {
                switch c {
                case .clip, .unclip: continue
                default: out.append(c)
                }
            }
            // (A clip is one at a time: the series' is set again; it restores the opacity too.)
            out.append(chart.clipSeries ? clip(plot) : .unclip)
        }
        return out
    }

    /// Most of the plot's width and height an image annotation of fixed size takes.
    static let imageShareOfPlot = 1.0 / 3
    /// Smallest scale an image is shrunk to, to keep clear of a marker.
    static let smallestImageScale = 0.5

    /// Where an image annotation of fixed screen size is drawn, centred on its point
    /// `p`: at its size, smaller (proportions kept) where that would take more than
    /// `imageShareOfPlot` of the plot's width or height (a tile-sized chart), and
    /// smaller still, down to `smallestImageScale`, where it would cover a marker
    /// annotation (its reach), so the marker shows beside it.
    func fixedImageRect(_ chart: Chart, _ a: Annotation, _ image: ChartImage, at p: (Double, Double), layout: ChartLayout) -> Rect {
        let aspect = Double(image.width) / Double(image.height)
        let w = a.width ?? a.height.map { $0 * aspect } ?? Double(image.width)
        let h = a.height ?? a.width.map { $0 / aspect } ?? Double(image.height)
        let plot = layout.plotRect
        var scale = min(1, plot.width * Self.imageShareOfPlot / w, plot.height * Self.imageShareOfPlot / h)
        let floor = scale * Self.smallestImageScale
        for m in chart.annotations where m.kind == .marker {
            guard let x = m.x, let y = m.y, let xl = layout.axis(m.xAxisId), let yl = layout.axis(m.yAxisId) else { continue }
            let q = xl.alignment.isHorizontal ? (xl.calculator.pixel(x), yl.calculator.pixel(y)) : (yl.calculator.pixel(y), xl.calculator.pixel(x))
            let r = (m.marker ?? MarkerStyle(shape: .circle, size: 8)).reach
            let dx = abs(q.0 - p.0) - r, dy = abs(q.1 - p.1) - r
            // Clear of it when either half-size stays inside the gap on its side.
            guard w * scale / 2 > dx, h * scale / 2 > dy else { continue }
            let fits = max(dx > 0 ? 2 * dx / w : 0, dy > 0 ? 2 * dy / h : 0)
            scale = max(floor, min(scale, fits))
        }
        let sw = w * scale, sh = h * scale
        return Rect(x: p.0 - sw / 2, y: p.1 - sh / 2, width: sw, height: sh)
    }

    /// Where a text annotation is drawn: at its point, its baseline's start, moved left
    /// (and down) where the text would run past the plot's right (or top) edge, so a
    /// small chart shows it whole rather than cut at the edge; never past the left
    /// (or bottom) edge for that.
    func textAnchor(_ text: String, _ style: TextStyle, at p: (Double, Double), plot: Rect) -> (Double, Double) {
        let m = measurer.metrics(for: style), w = measurer.width(of: text, style: style)
        let ascent = m.ascent(size: style.size), descent = m.lineHeight(size: style.size) - ascent
        // (The background box reaches 3 px past the text at each side.)
        var x = p.0, y = p.1
        if x + w + 3 > plot.maxX { x = max(plot.minX + 3, plot.maxX - w - 3) }
        if y - ascent - 2 < plot.minY { y = min(plot.maxY - descent - 2, plot.minY + ascent + 2) }
        return (x, y)
    }

    /// Where an annotation's label is drawn: its baseline's anchor and alignment.
    struct AnnotationLabel {
        var x: Double, y: Double, align: DrawCommand.TextAlign
        /// Which way it may move further from its marker past a line or outline in the
        /// way (a unit step; none for lines' and boxes' labels).
        var away: (dx: Double, dy: Double) = (0, 0)
    }

    /// How far a marker's label may move from its place to clear a line or outline.
    static let annotationLabelNudge = 12.0
    /// Least space between an annotation's label and the texts, markers and images
    /// placed before it (px, between line boxes).
    static let annotationLabelGap = 3.0

    /// Where text annotations stand (`textAnchor`; one moved inside the plot across a
    /// line or outline is left out) and the labels of the chart's lines, boxes and
    /// markers (by annotation index), each at the first of its places (beside the line,
    /// box or marker; a place reaching past the plot's edge by less than a line of text
    /// is moved inside) that stays in the plot clear of every annotation's line (its own
    /// too: moved inside, a place may lie across it), every box's outline (its own too:
    /// a label inside its box ends before the box does), and by `annotationLabelGap` of
    /// the text annotations, markers, images and the labels placed before it (a marker's
    /// label may move up to `annotationLabelNudge` further out to clear a line or
    /// outline); a label with no such place is left out (a small chart shows less text
    /// rather than text over text or struck through).
    func annotationLabels(_ chart: Chart, layout: ChartLayout, dpr: Double) -> [Int: AnnotationLabel] {
        let plot = layout.plotRect
        var taken: [Rect] = []
        var out: [Int: AnnotationLabel] = [:]
        let annotations = chart.annotations
        /// The screen place of (x, y) through the annotation's axes.
        func screen(_ a: Annotation, _ x: Double, _ y: Double) -> (Double, Double)? {
            guard let xl = layout.axis(a.xAxisId), let yl = layout.axis(a.yAxisId) else { return nil }
            return xl.alignment.isHorizontal ? (xl.calculator.pixel(x), yl.calculator.pixel(y)) : (yl.calculator.pixel(y), xl.calculator.pixel(x))
        }
        func textRect(_ text: String, _ style: TextStyle, _ l: AnnotationLabel) -> Rect {
            let m = measurer.metrics(for: style), w = measurer.width(of: text, style: style)
            let left = l.align == .left ? l.x : l.align == .right ? l.x - w : l.x - w / 2
            return Rect(x: left, y: l.y - m.ascent(size: style.size), width: w, height: m.lineHeight(size: style.size))
        }
        // Lines and box outlines, by annotation: a label crossing one is struck through.
        var strokes: [(owner: Int, rect: Rect)] = []
        for (index, a) in annotations.enumerated() {
            guard let xl = layout.axis(a.xAxisId), let yl = layout.axis(a.yAxisId) else { continue }
            let half = max(a.lineWidth, 1) / 2 + 1
            switch a.kind {
            case .horizontalLine, .verticalLine:
                let constantY = a.kind == .horizontalLine
                guard let v = constantY ? a.y : a.x else { continue }
                let across = xl.alignment.isHorizontal
                let fixed = constantY ? yl.calculator.pixel(v) : xl.calculator.pixel(v)
                var ends = constantY != across ? (plot.minY, plot.maxY) : (plot.minX, plot.maxX)
                if constantY, let x1 = a.x, let x2 = a.x2 { ends = (xl.calculator.pixel(x1), xl.calculator.pixel(x2)) }
                else if !constantY, let y1 = a.y, let y2 = a.y2 { ends = (yl.calculator.pixel(y1), yl.calculator.pixel(y2)) }
                let (lo, hi) = (min(ends.0, ends.1), max(ends.0, ends.1))
                strokes.append((index, constantY != across
                    ? Rect(x: fixed - half, y: lo, width: 2 * half, height: hi - lo)
                    : Rect(x: lo, y: fixed - half, width: hi - lo, height: 2 * half)))
            case .box:
                guard a.lineWidth > 0, let x1 = a.x, let y1 = a.y, let x2 = a.x2, let y2 = a.y2,
                      let p = screen(a, x1, y1), let q = screen(a, x2, y2) else { continue }
                let left = min(p.0, q.0), top = min(p.1, q.1), right = max(p.0, q.0), bottom = max(p.1, q.1)
                // (Its own label may touch none of them either: owner -1.)
                strokes += [Rect(x: left - half, y: top, width: 2 * half, height: bottom - top),
                            Rect(x: right - half, y: top, width: 2 * half, height: bottom - top),
                            Rect(x: left, y: top - half, width: right - left, height: 2 * half),
                            Rect(x: left, y: bottom - half, width: right - left, height: 2 * half)].map { (-1, $0) }
            case .text, .marker, .image: continue
            }
        }
        // What stays where it is: text annotations (at their points, or moved inside the
        // plot: left out when that puts them across a line), markers and images.
        for (index, a) in annotations.enumerated() {
            switch a.kind {
            case .text:
                guard let x = a.x, let y = a.y, let t = a.text, let at = screen(a, x, y) else { continue }
                let style = a.font.style(size: a.textSize, chartFamily: chart.fontFamily)
                let p = textAnchor(t, style, at: at, plot: plot)
                let l = AnnotationLabel(x: p.0, y: p.1, align: .left), r = textRect(t, style, l)
                if p != at, strokes.contains(where: { $0.owner != index && Self.meets($0.rect, r) }) { continue }
                out[index] = l
                taken.append(r)
            case .marker:
                guard let x = a.x, let y = a.y, let p = screen(a, x, y) else { continue }
                let r = (a.marker ?? MarkerStyle(shape: .circle, size: 8)).reach
                taken.append(Rect(x: p.0 - r, y: p.1 - r, width: 2 * r, height: 2 * r))
            case .image:
                guard let x = a.x, let y = a.y, let name = a.image, let image = chart.images[name], let p = screen(a, x, y) else { continue }
                if let x2 = a.x2, let y2 = a.y2, let q = screen(a, x2, y2) {
                    taken.append(Rect(x: min(p.0, q.0), y: min(p.1, q.1), width: abs(q.0 - p.0), height: abs(q.1 - p.1)))
                } else {
                    taken.append(fixedImageRect(chart, a, image, at: p, layout: layout))
                }
            case .horizontalLine, .verticalLine, .box: continue
            }
        }
        for (index, a) in annotations.enumerated() {
            guard let t = a.text, !t.isEmpty, let xl = layout.axis(a.xAxisId), let yl = layout.axis(a.yAxisId) else { continue }
            let style = a.font.style(size: a.textSize, chartFamily: chart.fontFamily)
            let m = measurer.metrics(for: style)
            let ascent = m.ascent(size: style.size), descent = m.lineHeight(size: style.size) - ascent
            let across = xl.alignment.isHorizontal
            let alongX = across ? (plot.minX, plot.maxX) : (plot.minY, plot.maxY)
            let alongY = across ? (plot.minY, plot.maxY) : (plot.minX, plot.maxX)
            var candidates: [AnnotationLabel] = []
            switch a.kind {
            case .horizontalLine, .verticalLine:
                let constantY = a.kind == .horizontalLine
                guard let v = constantY ? a.y : a.x else { continue }
                let fixed = constantY ? yl.calculator.pixel(v) : xl.calculator.pixel(v)
                let ends: (Double, Double)
                if constantY, let x1 = a.x, let x2 = a.x2 { ends = (xl.calculator.pixel(x1), xl.calculator.pixel(x2)) }
                else if !constantY, let y1 = a.y, let y2 = a.y2 { ends = (yl.calculator.pixel(y1), yl.calculator.pixel(y2)) }
                else { ends = constantY ? alongX : alongY }
                let (lo, hi) = (min(ends.0, ends.1), max(ends.0, ends.1))
                if constantY != across {
                    // A vertical line: at its top, right of it, then left of it; then at its foot.
                    candidates = [AnnotationLabel(x: fixed + 4, y: lo + ascent + 2, align: .left),
                                  AnnotationLabel(x: fixed - 4, y: lo + ascent + 2, align: .right),
                                  AnnotationLabel(x: fixed + 4, y: hi - descent - 2, align: .left),
                                  AnnotationLabel(x: fixed - 4, y: hi - descent - 2, align: .right)]
                } else {
                    // A horizontal line: above its far end, below it, then at its near end.
                    candidates = [AnnotationLabel(x: hi - 4, y: fixed - 4, align: .right),
                                  AnnotationLabel(x: hi - 4, y: fixed + ascent + 4, align: .right),
                                  AnnotationLabel(x: lo + 4, y: fixed - 4, align: .left),
                                  AnnotationLabel(x: lo + 4, y: fixed + ascent + 4, align: .left)]
                }
            case .box:
                guard let x1 = a.x, let y1 = a.y, let x2 = a.x2, let y2 = a.y2, let p = screen(a, x1, y1), let q = screen(a, x2, y2) else { continue }
                let left = min(p.0, q.0), top = min(p.1, q.1), right = max(p.0, q.0), bottom = max(p.1, q.1)
                // Inside its top-left corner, its bottom-left corner, then above or below it.
                candidates = [AnnotationLabel(x: left + 4, y: top + 3 + ascent, align: .left),
                              AnnotationLabel(x: left + 4, y: bottom - 3 - descent, align: .left),
                              AnnotationLabel(x: left, y: top - 3 - descent, align: .left),
                              AnnotationLabel(x: left, y: bottom + 3 + ascent, align: .left),
                              AnnotationLabel(x: right, y: top - 3 - descent, align: .right)]
            case .marker:
                guard let x = a.x, let y = a.y, let p = screen(a, x, y) else { continue }
                let cx = ((p.0 * dpr).rounded(.down) + 0.5) / dpr, cy = ((p.1 * dpr).rounded(.down) + 0.5) / dpr
                let r = (a.marker ?? MarkerStyle(shape: .circle, size: 8)).reach
                // Right of the marker, left of it, above it, below it.
                candidates = [AnnotationLabel(x: cx + r + 4, y: cy + 4, align: .left, away: (1, 0)),
                              AnnotationLabel(x: cx - r - 4, y: cy + 4, align: .right, away: (-1, 0)),
                              AnnotationLabel(x: cx, y: cy - r - 3 - descent, align: .center, away: (0, -1)),
                              AnnotationLabel(x: cx, y: cy + r + 3 + ascent, align: .center, away: (0, 1))]
            case .text, .image: continue
            }
            let lineHeight = m.lineHeight(size: style.size)
            for var c in candidates {
                var r = textRect(t, style, c)
                // Past the plot's edge by less than a line: moved inside, beside its place still.
                let dx = r.minX < plot.minX ? plot.minX - r.minX : r.maxX > plot.maxX ? plot.maxX - r.maxX : 0
                let dy = r.minY < plot.minY ? plot.minY - r.minY : r.maxY > plot.maxY ? plot.maxY - r.maxY : 0
                var moved = false
                if dx != 0 || dy != 0, abs(dx) < lineHeight, abs(dy) < lineHeight {
                    c.x += dx; c.y += dy
                    r = textRect(t, style, c)
                    moved = true
                }
                // A marker's label with a line or outline in the way: just past it, if that is near.
                if c.away != (0, 0), let s = strokes.first(where: { $0.owner != index && Self.meets($0.rect, r) })?.rect {
                    let step = c.away.dx > 0 ? s.maxX - r.minX : c.away.dx < 0 ? r.maxX - s.minX
                        : c.away.dy > 0 ? s.maxY - r.minY : r.maxY - s.minY
                    if step + 2 <= Self.annotationLabelNudge {
                        c.x += c.away.dx * (step + 2); c.y += c.away.dy * (step + 2)
                        r = textRect(t, style, c)
                    }
                }
                // (Kept `annotationLabelGap` from what is taken: two labels whose line boxes
                // touch read as one label of two lines.)
                let apart = r.inset(by: .all(-Self.annotationLabelGap))
                guard r.minX >= plot.minX - 0.5, r.maxX <= plot.maxX + 0.5, r.minY >= plot.minY - 0.5, r.maxY <= plot.maxY + 0.5,
                      !taken.contains(where: { Self.meets($0, apart) }),
                      // (Its own line too where moved inside the plot: beside it, a place is clear of it.)
                      !strokes.contains(where: { ($0.owner != index || moved) && Self.meets($0.rect, r) }) else { continue }
                out[index] = c
                taken.append(r)
                break
            }
        }
        return out
    }

    func lineCommands(_ s: Series, xl: AxisLayout, yl: AxisLayout, plot: Rect, dpr: Double, theme: Theme,
                      caches: inout [String: ColumnReducer.Cache]) -> [DrawCommand] {
        let data = s.plotted
        let dash = s.style.dash.map(Float.init)
        let width = Float(s.style.strokeWidth)
        let step = s.kind == .step
        let fill = s.isFilled
            ? ColumnReducer.Fill(color: s.areaFill(over: theme.plotBackground), gradient: s.style.areaColorGradient, baseline: s.style.baseline) : nil
        if !data.ordered {
            // An unsorted line: every point in the order given (UnsortedLineReducer).
            var pts: [Float] = []
            if reducesLines {
                UnsortedLineReducer.reduce(data, x: xl.calculator, y: yl.calculator, dpr: dpr, into: &pts)
            } else {
                data.withStretches(0..<data.count) { xs, ys in
                    for k in xs.indices { pts.append(Float(xl.calculator.pixel(xs[k]))); pts.append(Float(ys[k].isNaN ? .nan : yl.calculator.pixel(ys[k]))) }
                }
            }
            return Self.stretches(pts).map { .polyline(points: Self.placed($0, across: xl.alignment.isHorizontal), stroke: s.color, width: width, dash: dash) }
        }
        if reducesLines, xl.alignment.isHorizontal, xl.calculator.logBase == nil, xl.calculator.breaks == nil,
           let line = ColumnReducer.reduce(data, x: xl.calculator, y: yl.calculator, dpr: dpr, plot: plot,
                                           style: .init(stroke: s.color, width: width, dash: dash, step: step, fill: fill),
                                           cache: &caches[s.id]) {
            return line.entries.isEmpty ? [] : [.columns(line)]
        }
        // A chart with a vertical X axis (rotated), or the naive baseline: points, as
        // (X pixel, Y pixel) pairs until they are placed on the screen.
        let range = xl.calculator.range
        // One point either side of the visible range, so the line runs to the edges.
        let start = max(0, data.lowerBound(range.min) - 1)
        let end = min(data.count, data.upperBound(range.max) + 1)
        guard start < end else { return [] }
        var pts: [Float] = []
        if reducesLines {
            pts.reserveCapacity(min(end - start, Int(pixel: max(plot.width, plot.height) * dpr) * 4 + 8) * 2)
            LineDecimator.reduce(data, indices: start..<end, x: xl.calculator, y: yl.calculator, dpr: dpr, into: &pts)
        } else {
            pts.reserveCapacity((end - start) * 2)
            for i in start..<end {
                pts.append(Float(xl.calculator.pixel(data.x(i))))
                pts.append(Float(yl.calculator.pixel(data.y(i))))
            }
        }
        var out: [DrawCommand] = []
        let across = xl.alignment.isHorizontal
        func placed(_ p: [Float]) -> [Float] { Self.placed(p, across: across) }
        for var stretch in Self.stretches(pts) {
            if step { stretch = Self.steps(stretch) }
            if let fill {
                let base = Float(yl.calculator.pixel(fill.baseline))
                let ring = stretch + [stretch[stretch.count - 2], base, stretch[0], base]
                out.append(.polygon(points: placed(ring), fill: fill.color,
                                    gradient: fill.gradient.map { areaGradient($0, base: base, yl: yl, plot: plot, across: across) }))
            }
            out.append(.polyline(points: placed(stretch), stroke: s.color, width: width, dash: dash))
        }
        return out
    }

    /// A band: the fill between its two lines (in `fill` where y is above y1, `fillY1`
    /// where below), then both lines. Reduced to device-pixel columns like lines; on a
    /// rotated chart or in the naive baseline, polygons split where the lines cross.
    /// A vertical band (`Series.orientation`) is the same drawing with the axes' parts
    /// swapped: its key on the Y axis, its two values (x, x1) on the X axis, so on an
    /// ordinary chart its key runs up the side as a rotated chart's band does (polygons
    /// between the left and right curves, split at their crossings), and on a rotated
    /// chart across, reduced to columns.
    func bandCommands(_ s: Series, xl: AxisLayout, yl: AxisLayout, plot: Rect, dpr: Double,
                      caches: inout [String: ColumnReducer.Cache]) -> [DrawCommand] {
        guard let y1 = s.values("y1") else { return [] }
        // The key's axis and the values' axis.
        let (xl, yl) = s.isVertical ? (yl, xl) : (xl, yl)
        let width = Float(s.style.strokeWidth), dash = s.style.dash.map(Float.init)
        let (fill, fillY1) = s.bandFills
        let stroke1 = s.style.strokeY1 ?? s.color
        // On screen, y above y1 means a smaller pixel y unless the Y axis runs downwards.
        let upwards = yl.calculator.pixelEnd < yl.calculator.pixelStart
        if reducesLines, xl.alignment.isHorizontal, xl.calculator.logBase == nil, xl.calculator.breaks == nil,
           let a = ColumnReducer.reduce(s.data, x: xl.calculator, y: yl.calculator, dpr: dpr, plot: plot,
                                        style: .init(stroke: s.color, width: width, dash: dash), cache: &caches[s.id]),
           let b = ColumnReducer.reduce(y1, x: xl.calculator, y: yl.calculator, dpr: dpr, plot: plot,
                                        style: .init(stroke: stroke1, width: width, dash: dash), cache: &caches[s.id + "\u{0}y1"]) {
            guard !a.entries.isEmpty else { return [] }
            return [.band(BandFill(fill: upwards ? fill : fillY1, fillY1: upwards ? fillY1 : fill,
                                   top: Float(plot.minY), bottom: Float(plot.maxY), a: a, b: b)),
                    .columns(a), .columns(b)]
        }
        // Every point in view, one either side, as (X pixel, Y pixel) pairs.
        let range = xl.calculator.range
        let start = max(0, s.data.lowerBound(range.min) - 1), end = min(s.data.count, s.data.upperBound(range.max) + 1)
        guard start < end else { return [] }
        let across = xl.alignment.isHorizontal
        func placed(_ p: [Float]) -> [Float] { Self.placed(p, across: across) }
        var fills: [DrawCommand] = [], lines: [DrawCommand] = []
        var lineA: [Float] = [], lineB: [Float] = []
        // Runs of points where one line stays above the other, split at gaps and crossings.
        var runA: [Float] = [], runB: [Float] = [], runAbove: Bool? = nil
        func closeRun() {
            if runA.count >= 4, let above = runAbove {
                var ring = runA
                for k in stride(from: runB.count - 2, through: 0, by: -2) { ring += [runB[k], runB[k + 1]] }
                fills.append(.polygon(points: placed(ring), fill: above ? fill : fillY1, gradient: nil))
            }
            runA = []; runB = []; runAbove = nil
        }
        func flushLines() {
            if lineA.count >= 4 {
                lines.append(.polyline(points: placed(lineA), stroke: s.color, width: width, dash: dash))
                lines.append(.polyline(points: placed(lineB), stroke: stroke1, width: width, dash: dash))
            }
            lineA = []; lineB = []
        }
        for i in start..<end {
            let va = s.data.y(i), vb = y1.y(i)
            guard va.isFinite, vb.isFinite else {
                closeRun()
                flushLines()
                continue
            }
            let px = Float(xl.calculator.pixel(s.data.x(i)))
            let pa = Float(yl.calculator.pixel(va)), pb = Float(yl.calculator.pixel(vb))
            let above = va >= vb
            if let was = runAbove, was != above, let ax = runA.dropLast().last, let aPrev = runA.last, let bPrev = runB.last {
                // The crossing between the previous point and this one closes the run.
                // (0 when the lines meet in pixels though not in value: a plot with no height.)
                let d = (aPrev - bPrev) - (pa - pb)
                let t = d == 0 ? 0 : min(max((aPrev - bPrev) / d, 0), 1)
                let cx = ax + (px - ax) * t, cy = aPrev + (pa - aPrev) * t
                runA += [cx, cy]; runB += [cx, cy]
                closeRun()
                runA = [cx, cy]; runB = [cx, cy]
            }
            runAbove = above
            runA += [px, pa]; runB += [px, pb]
            lineA += [px, pa]; lineB += [px, pb]
        }
        closeRun()
        flushLines()
        // Fills under both lines.
        return fills + lines
    }

    /// An area's gradient: from the plot edge away from the baseline to the baseline.
    func areaGradient(_ color: String, base: Float, yl: AxisLayout, plot: Rect, across: Bool) -> Gradient {
        if across {
            let top = Float(abs(plot.minY - Double(base)) >= abs(plot.maxY - Double(base)) ? plot.minY : plot.maxY)
            return Gradient(color: color, x0: 0, y0: top, x1: 0, y1: base)
        }
        let far = Float(abs(plot.minX - Double(base)) >= abs(plot.maxX - Double(base)) ? plot.minX : plot.maxX)
        return Gradient(color: color, x0: far, y0: 0, x1: base, y1: 0)
    }

    /// (X pixel, Y pixel) pairs as screen (x, y): swapped when the X axis runs up the side.
    static func placed(_ p: [Float], across: Bool) -> [Float] {
        guard !across else { return p }
        var q = p
        for k in stride(from: 0, to: q.count - 1, by: 2) { q.swapAt(k, k + 1) }
        return q
    }

    /// Flat point pairs split where a value is NaN (a gap), stretches of at least two points.
    static func stretches(_ pts: [Float]) -> [[Float]] {
        guard pts.contains(where: \.isNaN) else { return pts.count >= 4 ? [pts] : [] }
        var out: [[Float]] = []
        var from = 0
        for k in stride(from: 0, through: pts.count, by: 2) where k == pts.count || pts[k + 1].isNaN || pts[k].isNaN {
            if k - from >= 4 { out.append(Array(pts[from..<k])) }
            from = k + 2
        }
        return out
    }

    /// A stretch of (X pixel, Y pixel) pairs as a step line: each value held until the
    /// next point's X, then a jump to its value.
    static func steps(_ p: [Float]) -> [Float] {
        var out: [Float] = [p[0], p[1]]
        out.reserveCapacity(p.count * 2)
        for k in stride(from: 2, to: p.count - 1, by: 2) { out += [p[k], p[k - 1], p[k], p[k + 1]] }
        return out
    }

    // MARK: Legend

    /// One legend entry: a series, or a slice of a pie or donut (its point index), with
    /// what its row draws (the series as drawn: its selected style while selected).
    /// Equal entries draw equal rows: a legend whose entries, box and theme stand keeps
    /// its commands (`Memo.legend`).
    struct LegendEntry: Equatable {
        var seriesId: String
        var sliceIndex: Int?
        var name: String
        var kind: SeriesKind
        var color: String
        var style: SeriesStyle
        var isHidden: Bool
        /// A pie slice's colour, a band's fill, an area's fill (nil: not filled).
        var fill: String?
        var marker: MarkerStyle?

        /// The entry of `s`, as drawn.
        static func of(_ s: Series, theme: Theme) -> LegendEntry {
            // (Only a selected series is copied, into its selected look.)
            s.isSelected && s.selectedStyle != nil ? entry(s.drawn, slice: nil, theme: theme) : entry(s, slice: nil, theme: theme)
        }

        /// The entry of `s`, a series as drawn, or of one of its slices.
        static func entry(_ s: Series, slice: PieRenderer.Slice?, theme: Theme) -> LegendEntry {
            let fill: String? = switch s.kind {
            case .pie, .donut: slice?.fill
            case .band: s.bandFills.fill
            case .line, .step, .area: s.isFilled ? s.areaFill(over: theme.plotBackground) : nil
            case .column, .candlestick, .ohlc, .scatter, .bubble: nil
            }
            return LegendEntry(seriesId: s.id, sliceIndex: slice?.index, name: slice.map { PieRenderer.name(s, $0.index) } ?? s.name,
                               kind: s.kind, color: s.color, style: s.style, isHidden: s.isHidden, fill: fill,
                               marker: s.effectiveMarker)
        }
    }

    /// The legend's entries, in order: each listed series, or for a pie or donut chart
    /// each slice of its first series (as ShinobiCharts lists them).
    func legendEntries(_ chart: Chart) -> [LegendEntry] {
        let listsHidden = chart.legend?.listsHiddenSeries == true
        let theme = chart.theme
        // (By index, in the array taken once: a series is a large value, and a loop over
        // `series`, or an element read through the chart, copies it.)
        let series = chart.series
        var out: [LegendEntry] = []
        var stacks: [String: [Int]] = [:]
        for i in series.indices where series[i].showInLegend && (!series[i].isHidden || listsHidden) {
            if series[i].kind.isRadial {
                let pie = series[i].drawn
                return PieRenderer.slices(pie, palette: theme.palette).map { LegendEntry.entry(pie, slice: $0, theme: theme) }
            }
            if let k = series[i].stackIndex {
                stacks["\(k)|\(series[i].xAxisId)|\(series[i].yAxisId)", default: []].append(out.count)
            }
            out.append(LegendEntry.of(series[i], theme: theme))
        }
        // A stack is listed as it is drawn: its last member, on top, first.
        var listed = out
        for places in stacks.values where places.count > 1 {
            for (place, from) in zip(places, places.reversed()) { listed[place] = out[from] }
        }
        return listed
    }

    /// The legend's text and place, for `entries` (nil: the chart's legend entries),
    /// each entry as the legend's item renderer leaves it.
    func legendSpec(_ chart: Chart, entries given: [LegendEntry]? = nil) -> LegendSpec? {
        guard let legend = chart.legend else { return nil }
        let entries = given ?? legendEntries(chart)
        guard !entries.isEmpty else { return nil }
        var spec = LegendSpec(entries: entries.map(\.name), position: legend.position, style: legend.font.style(size: legend.textSize, chartFamily: chart.fontFamily),
                              padding: legend.padding ?? 6)
        if let items = legendItems(chart, entries: entries, spec: spec) {
            spec.entries = items.map(\.text)
            spec.entryStyles = items.map { $0.textStyle == spec.style ? nil : $0.textStyle }
            let plain = defaultSymbolSize(spec)
            spec.symbolSizes = items.map { $0.symbolSize == plain ? nil : $0.symbolSize }
        }
        return spec
    }

    /// A legend item's symbol box before a renderer changes it: the swatch's length by
    /// the line's height.
    func defaultSymbolSize(_ spec: LegendSpec) -> Size {
        Size(width: spec.swatchLength, height: measurer.metrics(for: spec.style).lineHeight(size: spec.style.size))
    }

    /// The entries as the legend's item renderer leaves them (nil: the chart has none).
    /// A render measures the legend several times (its band, whether it fits inside,
    /// its rows) and draws it once: the renderer's `item` closure runs once per entry
    /// for a chart version (`Chart.legendItemsMemo`).
    func legendItems(_ chart: Chart, entries: [LegendEntry], spec: LegendSpec) -> [LegendItem]? {
        guard let renderer = chart.legend?.itemRenderer else { return nil }
        let plain = defaultSymbolSize(spec)
        if let m = chart.legendItemsMemo, m.version == chart.version, m.renderer == renderer, m.entries == entries,
           m.style == spec.style, m.symbolSize == plain {
            return m.items
        }
        let items = entries.map { e in
            renderer.altered(LegendItem(seriesId: e.seriesId, sliceIndex: e.sliceIndex, kind: e.kind, color: e.color, fill: e.fill,
                                        isHidden: e.isHidden, text: e.name, textColor: nil, textStyle: spec.style, symbolSize: plain))
        }
        chart.legendItemsMemo = .init(version: chart.version, renderer: renderer, entries: entries, style: spec.style, symbolSize: plain, items: items)
        return items
    }

    /// The room a legend outside the plot takes: the insets the layout leaves out at
    /// the chart's edge, the band they make (where the box goes, at `position`) and
    /// the columns its entries take there (as many as fit in a band above or below).
    struct LegendBand: Equatable, Sendable {
        var reserved: EdgeInsets
        var area: Rect
        var position: LegendPosition
        var columns: Int
    }

    /// Most of the chart's width a legend that leaves the plot takes as a column at
    /// the right; a wider column (a small chart: two entries are a quarter of 480 px)
    /// costs the plot more than a row above it does, and the legend goes there.
    static let legendColumnShare = 0.2
    /// Most of the chart's height that row may take instead (on a chart as short as
    /// 200 px the column stays: the plot has no height to spare).
    static let legendRowShare = 0.15

    /// Where the legend can go at a canvas size: `fixed`, the band of a legend placed
    /// outside the plot (nil: inside); `moved`, for an inside legend its spec leaves
    /// free to move (`LegendConfig.pinned` false), the band it takes when no place
    /// inside the plot is free of data: a column at the right, or where that column is
    /// taller than the chart or wider than a third of it, or wider than
    /// `legendColumnShare` of it where the rows take at most `legendRowShare` of its
    /// height, rows above the plot (below the chart's title).
    func legendBands(_ chart: Chart, size: Size) -> (fixed: LegendBand?, moved: LegendBand?) {
        guard let legend = chart.legend, let spec = legendSpec(chart) else { return (nil, nil) }
        if legend.placement == .outsidePlotArea { return (legendBand(chart, spec: spec, side: spec.position, size: size), nil) }
        guard !legend.pinned else { return (nil, nil) }
        let above = legendBand(chart, spec: spec, side: .topMiddle, size: size)
        if let right = legendBand(chart, spec: spec, side: .topRight, column: true, size: size),
           right.area.height >= (LegendLayout.size(spec, measurer: measurer)?.height ?? 0) + 2 * spec.margin,
           right.reserved.right <= size.width / 3,
           right.reserved.right <= size.width * Self.legendColumnShare
            || (above?.reserved.top ?? .infinity) > size.height * Self.legendRowShare {
            return (nil, right)
        }
        return (nil, above)
    }

    /// The band for `spec` at `side` of the chart (`column`: at the right or left side
    /// whatever the position says; by default a middle-left or middle-right position).
    func legendBand(_ chart: Chart, spec given: LegendSpec, side: LegendPosition, column: Bool = false, size: Size) -> LegendBand? {
        let m = chart.margins
        let full = Rect(x: m.left, y: m.top, width: size.width - m.left - m.right, height: size.height - m.top - m.bottom)
        let atSide = column || side == .middleLeft || side == .middleRight
        var spec = given
        if !atSide { spec.columns = LegendLayout.columnsFitting(spec, width: full.width, measurer: measurer) }
        guard let box = LegendLayout.size(spec, measurer: measurer) else { return nil }
        let across = box.width + 2 * spec.margin, down = box.height + 2 * spec.margin
        var r = EdgeInsets.all(0)
        let area: Rect
        if atSide {
            if side.horizontal == 0 {
                r.left = across; area = Rect(x: full.minX, y: full.minY, width: across, height: full.height)
            } else {
                r.right = across; area = Rect(x: full.maxX - across, y: full.minY, width: across, height: full.height)
            }
        } else if side.vertical == 2 {
            r.bottom = down; area = Rect(x: full.minX, y: full.maxY - down, width: full.width, height: down)
        } else {
            r.top = down; area = Rect(x: full.minX, y: full.minY, width: full.width, height: down)
        }
        return LegendBand(reserved: r, area: area, position: side, columns: spec.columns)
    }

    /// The legend's spec as laid out at `layout`: in its band's columns when outside.
    func placedLegendSpec(_ chart: Chart, entries: [LegendEntry], layout: ChartLayout) -> LegendSpec? {
        guard var spec = legendSpec(chart, entries: entries) else { return nil }
        if let area = layout.legendArea, let position = layout.legendPosition {
            spec.position = position
            if area.width > area.height, position != .middleLeft, position != .middleRight {
                spec.columns = LegendLayout.columnsFitting(spec, width: area.width, measurer: measurer)
            }
        }
        return spec
    }

    /// Whether some place inside `layout`'s plot holds the legend clear of data, and
    /// by `clearance` pixels on every side (within the plot) when asked.
    func legendFitsInside(_ chart: Chart, layout: ChartLayout, clearance: Double = 0) -> Bool {
        guard let spec = legendSpec(chart), let size = LegendLayout.size(spec, measurer: measurer) else { return true }
        let probes = legendProbes(chart, layout: layout)
        let plot = layout.plotRect
        for position in LegendPosition.allCases {
            guard var box = LegendLayout.box(spec, size: size, at: position, in: plot) else { continue }
            if clearance > 0 {
                let x0 = max(plot.minX, box.minX - clearance), y0 = max(plot.minY, box.minY - clearance)
                let x1 = min(plot.maxX, box.maxX + clearance), y1 = min(plot.maxY, box.maxY + clearance)
                box = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
            if !coversData(chart, box: box, layout: layout, probes: probes) { return true }
        }
        return false
    }

    /// How far data must stay from a place inside the plot (px, every side) for a legend
    /// that moved out of the plot to come back to it.
    static let legendReturnClearance = 16.0

    /// Whether a legend free to move goes to its band outside the plot, `layout` being
    /// the layout with it inside. With hysteresis, from where the chart last showed it
    /// at this size (`Chart.shownLegends`): an inside legend goes out when no place
    /// inside is clear of data; an outside one comes back only when a place is clear by
    /// `legendReturnClearance`, so data moving by a pixel or two near a place's edge
    /// does not move the legend, and the plot's width with it, at every frame.
    func legendMovesOut(_ chart: Chart, layout: ChartLayout) -> Bool {
        if chart.shownLegends[layout.size]?.outside == true {
            return !legendFitsInside(chart, layout: layout, clearance: Self.legendReturnClearance)
        }
        return !legendFitsInside(chart, layout: layout)
    }

    /// Where the legend goes: outside, in its band at the chart's edge; inside, where
    /// the chart last showed it at this size (`Chart.shownLegends`) while that place
    /// stays free of data (hysteresis: it moves only when data comes under it), else at
    /// its position, or when data lies under that, at the first other position free of
    /// data (corners first), staying put when none is.
    func legendBox(_ chart: Chart, spec: LegendSpec, layout: ChartLayout) -> Rect? {
        legendPlace(chart, spec: spec, layout: layout)?.box
    }

    /// The legend's box and, inside the plot, the position it takes (see `legendBox`).
    func legendPlace(_ chart: Chart, spec: LegendSpec, layout: ChartLayout) -> (box: Rect, position: LegendPosition?)? {
        guard let size = LegendLayout.size(spec, measurer: measurer) else { return nil }
        if let area = layout.legendArea { return LegendLayout.box(spec, size: size, at: spec.position, in: area).map { ($0, nil) } }
        let plot = layout.plotRect
        // A fixed order after the place last shown, so the frame follows from the chart's
        // state alone (every viewer of a size sees the legend in the same place).
        let shown = chart.shownLegends[layout.size]?.position
        let order = (shown.map { [$0] } ?? []) + ([spec.position] + [LegendPosition.topLeft, .topRight, .bottomLeft, .bottomRight,
                                                   .topMiddle, .bottomMiddle, .middleLeft, .middleRight].filter { $0 != spec.position })
            .filter { $0 != shown }
        let probes = legendProbes(chart, layout: layout)
        for position in order {
            guard let box = LegendLayout.box(spec, size: size, at: position, in: plot) else { continue }
            if !coversData(chart, box: box, layout: layout, probes: probes) { return (box, position) }
        }
        return LegendLayout.box(spec, size: size, at: spec.position, in: plot).map { ($0, spec.position) }
    }

    /// What `coversData` reads of a visible series, gathered once for every box the
    /// legend tries: a series read for each box was copied each time (every array and
    /// string in it retained and released), at every frame.
    struct LegendProbe {
        /// The series' index in the chart (its extent in y is read from it there).
        var index: Int
        /// Its axes' calculators, and whether its X axis runs across.
        var x: CoordinateCalculator, y: CoordinateCalculator
        var across: Bool
        var data: XYData
        /// How far columns and candles reach past their x (0 or less).
        var half: Double
        var isLine: Bool
        /// Its y values are `data`'s alone (one value a point, or stacked sums): the
        /// extent is read from `data` without the series. And the baseline its extent
        /// takes in (columns, areas), if any.
        var dataAlone: Bool
        var baseline: Double?
        /// How far its markers or bubbles draw from their points (px).
        var reach: Double = 0
    }

    /// The probes of the visible series with data, over `layout`'s axes.
    func legendProbes(_ chart: Chart, layout: ChartLayout) -> [LegendProbe] {
        // (By index, reading stored fields only: a series is a large value, copied by a
        // loop over the series, and out of the array for each computed property asked.)
        let series = chart.series
        var probes: [LegendProbe] = []
        probes.reserveCapacity(series.count)
        for i in series.indices where !series[i].isHidden {
            let data = series[i].stacked ?? series[i].data
            // (An axis' calculator found once, not for every box tried: an axis layout is
            // a large value, copied out of the layout for each look.)
            guard !data.isEmpty, var xl = layout.axes.firstIndex(where: { $0.id == series[i].xAxisId }),
                  var yl = layout.axes.firstIndex(where: { $0.id == series[i].yAxisId }) else { continue }
            // (A vertical band: its key along the Y axis, its values along X.)
            if series[i].orientation == .vertical { swap(&xl, &yl) }
            let kind = series[i].kind
            let half = Series.halfColumn(kind, minSpacing: series[i].data.minSpacing, columnWidth: series[i].style.columnWidth) ?? 0
            probes.append(LegendProbe(index: i, x: layout.axes[xl].calculator, y: layout.axes[yl].calculator,
                                      across: layout.axes[xl].alignment.isHorizontal, data: data,
                                      half: -half, isLine: kind.isLine,
                                      dataAlone: Series.valuesArePlotted(kind, stacked: series[i].stacked != nil),
                                      baseline: Series.extentBaseline(kind, showFill: series[i].style.showFill,
                                                                      baseline: series[i].style.baseline),
                                      reach: series[i].markerReach))
        }
        return probes
    }

    /// Whether any visible series draws inside `box` (CSS pixels): its points there,
    /// one either side (a line's segments reach in), and for columns and areas the
    /// baseline, read from the min/max index. Conservative: a line that passes near a
    /// corner of the box may count.
    func coversData(_ chart: Chart, box: Rect, layout: ChartLayout, probes: [LegendProbe]) -> Bool {
        if chart.isRadial {
            // The pie's disc, protrusion included: does the box's nearest point to the
            // centre lie inside it?
            let plot = layout.plotRect
            let r = min(plot.width, plot.height) / 2
            let nx = min(max(plot.midX, box.minX), box.maxX) - plot.midX, ny = min(max(plot.midY, box.minY), box.maxY) - plot.midY
            return nx * nx + ny * ny < r * r
        }
        // The labels and titles of axes drawn inside the plot are not to be covered either.
        for a in layout.axes where a.isInner && !a.isHidden {
            for t in a.labels + (a.title.map { [$0] } ?? []) where Self.meets(t.bounds, box) { return true }
        }
        // (The array taken once: an element read through the chart, a class, is copied.)
        let series = chart.series
        for s in probes {
            // (A marker or bubble whose point is within its reach of the box reaches into it.)
            let r = s.reach
            let (xa, xb) = s.across ? (box.minX - r, box.maxX + r) : (box.minY - r, box.maxY + r)
            let (ya, yb) = s.across ? (box.minY - r, box.maxY + r) : (box.minX - r, box.maxX + r)
            let v1 = s.x.value(xa), v2 = s.x.value(xb)
            // (Columns and candles reach half a column past their x.)
            let lo = min(v1, v2) + s.half, hi = max(v1, v2) - s.half
            var start = s.data.lowerBound(lo), end = s.data.upperBound(hi)
            // (A line's segment reaches in from a neighbour outside only where a point lies
            // on the box's far side of it: past the last point, or before the first, none does.)
            if s.isLine {
                if start < s.data.count { start = max(0, start - 1) }
                if end > 0 { end = min(s.data.count, end + 1) }
            }
            guard start < end else { continue }
            // (The series' own extent, `Series.valueRange` and `yExtent`, read from the probe
            // where its values are the plotted data's alone.)
            let range = s.dataAlone ? s.data.yRange(indices: start..<end) : series[s.index].valueRange(indices: start..<end)
            guard let r = range else { continue }
            let values = Series.extent(r, takingIn: s.baseline)
            let p1 = s.y.pixel(values.min), p2 = s.y.pixel(values.max)
            if max(p1, p2) >= ya && min(p1, p2) <= yb { return true }
        }
        return false
    }

    /// Whether two rectangles share more than an edge.
    static func meets(_ a: Rect, _ b: Rect) -> Bool {
        a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
    }

    // MARK: Overlay layer

    /// The legend's rows as a viewer sees them at `layout`: for each entry, its series
    /// (and slice) and the rectangle of its row (the whole box width), for taps.
    public func legendHitBoxes(_ chart: Chart, layout: ChartLayout) -> [LegendHitBox] {
        let entries = legendEntries(chart)
        guard let spec = placedLegendSpec(chart, entries: entries, layout: layout),
              let box = legendBox(chart, spec: spec, layout: layout) else { return [] }
        let placed = LegendLayout.rows(spec, box: box, measurer: measurer)
        return zip(placed.rows, entries).map { row, entry in
            // (In one column a row is the box's width; side by side, its own entry's.)
            LegendHitBox(seriesId: entry.seriesId, slice: entry.sliceIndex,
                         rect: spec.columns > 1
                            ? Rect(x: row.swatchStart.x, y: row.top - spec.rowGap / 2,
                                   width: row.label.bounds.maxX - row.swatchStart.x, height: row.height + spec.rowGap)
                            : Rect(x: placed.box.minX, y: row.top - spec.rowGap / 2,
                                   width: placed.box.width, height: row.height + spec.rowGap))
        }
    }

    /// The legend's commands, and what they were drawn from.
    struct LegendMemo: Sendable {
        var entries: [LegendEntry], spec: LegendSpec, box: Rect, theme: Theme
        /// The item renderer that drew it (compared by name).
        var renderer: LegendItemRenderer?
        var commands: [DrawCommand]
        /// The position inside the plot the box is at (nil: outside).
        var position: LegendPosition?
    }

    /// The overlay layer: the legend. Where it stays as it was (its entries, box and
    /// theme; a live chart's usually do), the commands `memo` holds are used again.
    func overlayCommands(_ chart: Chart, layout: ChartLayout, memo: inout LegendMemo?, fonts: inout FontNames) -> [DrawCommand] {
        let labels = labelsOnBackground(chart, layout: layout, fonts: &fonts)
        let legend = legendCommands(chart, layout: layout, memo: &memo, fonts: &fonts)
        let paused = pausedCue(chart, layout: layout, fonts: &fonts)
        return labels.isEmpty && paused.isEmpty ? legend : labels + legend + paused
    }

    /// A following X axis a user has panned or zoomed stops following its data: a cue
    /// at the top of the plot says so, and how to follow again when a modifier does it
    /// (`zoomExtents`, double-click or double-tap).
    func pausedCue(_ chart: Chart, layout: ChartLayout, fonts: inout FontNames) -> [DrawCommand] {
        guard chart.axes.contains(where: { $0.isXAxis && $0.config.mode == .follow && $0.userRange != nil }) else { return [] }
        let resumes = chart.modifiers.contains { ($0 as? ZoomExtentsModifier)?.mode == .extents && $0.isEnabled }
        let text = resumes ? "Paused \u{00B7} double-click to follow" : "Paused"
        let style = TextStyle(size: 11)
        let m = measurer.metrics(for: style)
        let w = measurer.width(of: text, style: style) + 12, h = m.lineHeight(size: 11) + 4
        let plot = layout.plotRect
        guard w <= plot.width, h + 4 <= plot.height else { return [] }
        let x = (plot.midX - w / 2).rounded(), y = plot.minY + 4
        let theme = chart.theme
        return [.rect(x: Float(x), y: Float(y), w: Float(w), h: Float(h), fill: theme.legendBackground, stroke: theme.legendBorder, lineWidth: 1),
                .text(x: Float(x + 6), y: Float(y + 2 + m.ascent(size: 11)), text: text, font: fonts.name(style, theme: theme),
                      fill: theme.tickLabel, align: .left, baseline: .alphabetic, angle: 0)]
    }

    /// The labels of axes that draw them on a background (`AxisConfig.labelBackground`,
    /// on by default inside the plot): each on a box of the plot's background, a little
    /// translucent, above the series and gridlines that would strike it through.
    func labelsOnBackground(_ chart: Chart, layout: ChartLayout, fonts: inout FontNames) -> [DrawCommand] {
        var out: [DrawCommand] = []
        let theme = chart.theme
        for axis in layout.axes where !axis.labels.isEmpty {
            guard let config = chart.axis(axis.id)?.config, config.drawsLabelBackground else { continue }
            let fill = config.labelColor ?? theme.tickLabel
            let box = Series.translucent(theme.plotBackground, alpha: 0.85) ?? theme.plotBackground
            for label in axis.labels {
                out.append(labelBox(label, fill: label.background ?? box))
                out.append(labelCommand(label, fill: label.fill ?? fill, chart: chart, fonts: &fonts))
            }
        }
        return out
    }

    /// A tick label's command: its text, or the image a hook put in its place
    /// (`TickMark.labelImage`), over its box, from the chart's served images as image
    /// annotations' (layout keeps a name the chart does not have as text).
    func labelCommand(_ label: PlacedText, fill: String, chart: Chart, fonts: inout FontNames) -> DrawCommand {
        if let tickImage = label.image, let image = chart.images[tickImage.src] {
            let b = label.bounds
            return .image(x: Float(b.minX), y: Float(b.minY), w: Float(b.width), h: Float(b.height),
                          src: chart.imagePath + tickImage.src + "?v=" + image.version)
        }
        return text(label, fill: fill, theme: chart.theme, fonts: &fonts)
    }

    /// The box behind a tick label (an axis' `labelBackground`, a hook's
    /// `labelBackground`): its bounds, 2 px wider each side; a turned label's turned
    /// with it (the text's line box, 2 px longer each end), not the upright box around it.
    func labelBox(_ label: PlacedText, fill: String) -> DrawCommand {
        let b = label.bounds
        guard label.angle != 0, label.image == nil else {
            return .rect(x: Float(b.minX - 2), y: Float(b.minY), w: Float(b.width + 4), h: Float(b.height), fill: fill, stroke: nil, lineWidth: 0)
        }
        let m = measurer.metrics(for: label.style)
        let ascent = m.ascent(size: label.style.size), descent = m.descent(size: label.style.size)
        let w = measurer.width(of: label.text, style: label.style)
        let x0 = label.align == .right ? -w : label.align == .center ? -w / 2 : 0
        let a = label.angle * .pi / 180, (c, s) = (Foundation.cos(a), Foundation.sin(a))
        var points: [Float] = []
        points.reserveCapacity(8)
        for (px, py) in [(x0 - 2, -ascent), (x0 + w + 2, -ascent), (x0 + w + 2, descent), (x0 - 2, descent)] {
            points.append(Float(label.anchor.x + px * c - py * s))
            points.append(Float(label.anchor.y + px * s + py * c))
        }
        return .polygon(points: points, fill: fill, gradient: nil)
    }

    /// The legend's commands. Where it stays as it was (its entries, box and theme; a
    /// live chart's usually do), the commands `memo` holds are used again.
    func legendCommands(_ chart: Chart, layout: ChartLayout, memo: inout LegendMemo?, fonts: inout FontNames) -> [DrawCommand] {
        let listed = legendEntries(chart)
        guard let spec = placedLegendSpec(chart, entries: listed, layout: layout),
              let (box, position) = legendPlace(chart, spec: spec, layout: layout) else { memo = nil; return [] }
        let theme = chart.theme
        let renderer = chart.legend?.itemRenderer
        if let m = memo, m.box == box, m.spec == spec, m.entries == listed, m.theme == theme, m.renderer == renderer {
            memo?.position = position
            return m.commands
        }
        let placed = LegendLayout.rows(spec, box: box, measurer: measurer)
        let b = placed.box
        var out: [DrawCommand] = [
            .rect(x: Float(b.x), y: Float(b.y), w: Float(b.width), h: Float(b.height),
                  fill: theme.legendBackground, stroke: theme.legendBorder, lineWidth: 1),
        ]
        let items = legendItems(chart, entries: listed, spec: spec)
        for (k, (row, entry)) in zip(placed.rows, listed).enumerated() {
            let s = entry
            // A hidden series a legend lists (to show it again) is dimmed.
            if s.isHidden { out.append(.opacity(0.35)) }
            defer { if s.isHidden { out.append(.opacity(1)) } }
            if let item = items?[k], let symbol = renderer?.symbol?(item, row.symbolBox) {
                out += clippedSymbol(symbol, box: row.symbolBox, opacity: s.isHidden ? 0.35 : 1)
                out.append(text(row.label, fill: item.textColor ?? theme.legendText, theme: theme, fonts: &fonts))
                continue
            }
            let a = row.swatchStart
            let mid = Point(x: a.x + row.swatchLength / 2, y: a.y)
            switch s.kind {
            case .band:
                // The fill between two lines.
                out.append(.rect(x: Float(a.x), y: Float(a.y - 4), w: Float(row.swatchLength), h: 8,
                                 fill: s.fill ?? s.color, stroke: nil, lineWidth: 0))
                out.append(.segments(coords: [Float(a.x), Float(a.y - 4), Float(a.x + row.swatchLength), Float(a.y - 4),
                                              Float(a.x), Float(a.y + 4), Float(a.x + row.swatchLength), Float(a.y + 4)],
                                     stroke: s.color, width: Float(s.style.strokeWidth), dash: []))
            case .pie, .donut:
                let side = 10.0
                out.append(.rect(x: Float(mid.x - side / 2), y: Float(mid.y - side / 2), w: Float(side), h: Float(side),
                                 fill: s.fill ?? s.color, stroke: nil, lineWidth: 0))
            case .line, .step, .area:
                if let fill = s.fill {
                    // The fill below the line, as tall as the row's text.
                    out.append(.rect(x: Float(a.x), y: Float(a.y), w: Float(row.swatchLength), h: Float(spec.style.size / 2),
                                     fill: fill, stroke: nil, lineWidth: 0))
                }
                out.append(.polyline(points: [Float(a.x), Float(a.y), Float(a.x + row.swatchLength), Float(a.y)],
                                     stroke: s.color, width: Float(max(2, s.style.strokeWidth)), dash: s.style.dash.map(Float.init)))
            case .column:
                let side = 10.0
                out.append(.rect(x: Float(mid.x - side / 2), y: Float(mid.y - side / 2), w: Float(side), h: Float(side),
                                 fill: s.style.fill ?? s.color, stroke: s.style.stroke,
                                 lineWidth: s.style.stroke == nil ? 0 : Float(s.style.strokeWidth)))
            case .candlestick, .ohlc:
                // A rising and a falling candle side by side, each with its wick.
                for (k, fill) in [s.style.risingColor, s.style.fallingColor].enumerated() {
                    let cx = Float(mid.x) + (k == 0 ? -4 : 4)
                    out.append(.rect(x: cx - 0.5, y: Float(mid.y) - 6, w: 1, h: 12, fill: s.style.stroke ?? fill, stroke: nil, lineWidth: 0))
                    if s.kind == .ohlc {
                        out.append(.rect(x: cx - 3, y: Float(mid.y) + (k == 0 ? 2 : -3), w: 3, h: 1, fill: fill, stroke: nil, lineWidth: 0))
                        out.append(.rect(x: cx, y: Float(mid.y) + (k == 0 ? -3 : 2), w: 3, h: 1, fill: fill, stroke: nil, lineWidth: 0))
                    } else {
                        out.append(.rect(x: cx - 2.5, y: Float(mid.y) - 3, w: 5, h: 6, fill: fill, stroke: nil, lineWidth: 0))
                    }
                }
            case .scatter, .bubble:
                break
            }
            if let m = s.marker {
                // One marker at the swatch's middle, no larger than the row.
                var style = m
                style.size = min(m.size, 10)
                out.append(.markers(MarkerSet(style: style, x0: Float(mid.x), y0: Float(mid.y), unit: 1,
                                              cells: [MarkerSet.Cell(x: 0, y: 0)])))
            }
            out.append(text(row.label, fill: items?[k].textColor ?? theme.legendText, theme: theme, fonts: &fonts))
        }
        memo = LegendMemo(entries: listed, spec: spec, box: box, theme: theme, renderer: renderer, commands: out, position: position)
        return out
    }

    /// A legend item renderer's symbol, clipped to its box: its own clips are dropped
    /// (they could undo the box's), and an opacity it sets is put back to the row's.
    func clippedSymbol(_ symbol: [DrawCommand], box: Rect, opacity: Float) -> [DrawCommand] {
        guard !symbol.isEmpty else { return [] }
        var out: [DrawCommand] = [.clip(x: Float(box.minX), y: Float(box.minY), w: Float(box.width), h: Float(box.height))]
        var setsOpacity = false
        for c in symbol {
            switch c {
            case .clip, .unclip: continue
            case .opacity: setsOpacity = true; out.append(c)
            default: out.append(c)
            }
        }
        if setsOpacity { out.append(.opacity(opacity)) }
        out.append(.unclip)
        return out
    }
}

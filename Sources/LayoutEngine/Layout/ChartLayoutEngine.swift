import Foundation
import Synchronization

/// The measure pass and the layout pass, and what they are made of.
///
/// Measure: each axis reports how thick it must be (ticks, labels, title) for the
/// length it would get. Layout: the manager's strategies place the axes (outer ones
/// stacked outwards from the plot area, in the order given, inner ones inside it) and
/// the plot area gets what is left. Because a vertical axis' thickness depends on its
/// labels, and its labels on the plot height left by the horizontal axes (and vice
/// versa), the two passes repeat until the thicknesses settle, at most `maxPasses`
/// times (as uPlot does). See `DefaultLayoutManager`.
public struct ChartLayoutEngine: Sendable {
    public let measurer: TextMeasurer
    /// Runs the passes; replace it (or one of its strategies) to lay axes out otherwise.
    public var manager: any ChartLayoutManager

    public init(measurer: TextMeasurer, manager: any ChartLayoutManager = DefaultLayoutManager()) {
        self.measurer = measurer
        self.manager = manager
    }

    /// Ticks already made, by axis id and calculator (see `memoizingTicks`).
    private var tickMemo: TickMemo?
    /// Ticks earlier layouts of the same axes made, for the default manager to use (see
    /// `TickMemo`). Whoever sets it vouches that the axes (all but their ranges) are
    /// those of the layouts that filled it.
    public var earlierTicks: TickMemo?
    /// Ticks other layouts of the same axes made (other charts with those axes, at the
    /// same moment), for the default manager to use after its own memo: the views of a
    /// session share the x axis' ticks while each has its own y range. Whoever sets it
    /// vouches, as for `earlierTicks`, that the axes are those that filled it.
    public var sharedTicks: SharedTickMemo?

    /// This engine remembering the ticks it makes in `memo` (nil: a new one, for this
    /// layout only), where an axis id always stands for the same axis: the passes
    /// measure the same axes again over the same plot, and placing them makes their ticks
    /// once more.
    public func memoizingTicks(_ memo: TickMemo? = nil) -> ChartLayoutEngine {
        var e = self
        e.tickMemo = memo ?? TickMemo()
        return e
    }

    public func layout(_ spec: ChartLayoutSpec) -> ChartLayout { manager.layout(spec, engine: self) }

    /// The chart title at the top of `content`, and what is left below it. A title
    /// wider than `content` (a dashboard cell) is cut to the words that fit, with an
    /// ellipsis, rather than run off the canvas.
    public func placeTitle(_ spec: ChartLayoutSpec, in content: Rect) -> (PlacedText?, Rect) {
        guard let whole = spec.title, !whole.isEmpty else { return (nil, content) }
        let m = measurer.metrics(for: spec.titleStyle)
        let h = m.lineHeight(size: spec.titleStyle.size)
        var text = whole
        var w = measurer.width(of: text, style: spec.titleStyle)
        if w > content.width {
            // Whole words first; a single word too long for the width, by characters.
            let words = whole.split(separator: " ", omittingEmptySubsequences: false)
            var fitted: String? = nil
            for n in stride(from: words.count - 1, through: 1, by: -1) {
                let cut = words[..<n].joined(separator: " ") + "\u{2026}"
                if measurer.width(of: cut, style: spec.titleStyle) <= content.width { fitted = cut; break }
            }
            if fitted == nil {
                var chars = Array(whole)
                while !chars.isEmpty {
                    chars.removeLast()
                    let cut = String(chars) + "\u{2026}"
                    if measurer.width(of: cut, style: spec.titleStyle) <= content.width { fitted = cut; break }
                }
            }
            guard let fitted, !fitted.hasPrefix("\u{2026}") else { return (nil, content) }
            text = fitted
            w = measurer.width(of: text, style: spec.titleStyle)
        }
        let anchor = Point(x: content.midX, y: content.minY + m.ascent(size: spec.titleStyle.size))
        let title = PlacedText(text: text, anchor: anchor, align: .center, angle: 0, style: spec.titleStyle,
                               bounds: Rect(x: content.midX - w / 2, y: content.minY, width: w, height: h))
        return (title, content.inset(by: EdgeInsets(top: (h + spec.titlePadding).rounded(.up))))
    }

    // MARK: Measure

    /// The thickness (pixels across the axis) that `axis` needs beside `plot`.
    public func measure(_ axis: AxisSpec, plot: Rect) -> Double {
        if axis.visibility == .hidden { return 0 }
        if let fixed = axis.fixedThickness { return fixed }
        // A horizontal axis' labels are a line of text whatever they say (unless the
        // user's labels may have several lines): no ticks needed.
        let ticks = axis.alignment.isHorizontal && !turned(axis) && !mayWrap(axis) ? [] : ticks(axis, plot: plot)?.ticks ?? []
        let labels = axis.reservedLabelExtent(measured: labelExtent(axis, ticks: ticks))
        var total = axis.tickLength + axis.labelPadding + labels
        if let title = axis.title, !title.isEmpty {
            // (Counted, not split: every pass of every layout measures every axis.)
            let lines = Double(title.utf8.reduce(1) { $1 == 10 ? $0 + 1 : $0 })
            total += axis.titlePadding + lines * measurer.metrics(for: axis.titleStyle).lineHeight(size: axis.titleStyle.size)
        }
        return total.rounded(.up)
    }

    /// Space to keep free beside the plot so that the labels at the ends of an axis,
    /// centred on their ticks, are not cut by the canvas edge where no axis on that
    /// side makes room anyway (SwiftCharts' `.label` padding, at the plot's open
    /// edges). Half the widest label of the horizontal axes left and right, half a
    /// label's height above; the canvas padding counts towards it. Whole pixels, so
    /// the plot keeps whole-pixel edges.
    public func labelOverhang(_ axes: [AxisSpec], plot: Rect, padding: EdgeInsets, hasTitle: Bool,
                              sides: Set<AxisAlignment>) -> EdgeInsets {
        var half = 0.0, halfHeight = 0.0
        for axis in axes {
            if axis.alignment.isHorizontal {
                for tick in ticks(axis, plot: plot)?.ticks ?? [] { half = max(half, tick.labelSize.width / 2) }
            } else {
                halfHeight = max(halfHeight, measurer.metrics(for: axis.labelStyle).lineHeight(size: axis.labelStyle.size) / 2)
            }
        }
        return EdgeInsets(
            top: sides.contains(.top) || hasTitle ? 0 : max(0, halfHeight - padding.top).rounded(.up),
            left: sides.contains(.left) ? 0 : max(0, half - padding.left).rounded(.up),
            bottom: sides.contains(.bottom) ? 0 : max(0, halfHeight - padding.bottom).rounded(.up),
            right: sides.contains(.right) ? 0 : max(0, half - padding.right).rounded(.up))
    }

    public func calculator(_ axis: AxisSpec, plot: Rect) -> CoordinateCalculator {
        let base = calculator(axis, plot: plot, lead: 0, trail: 0)
        guard axis.endPadding.leading != .none || axis.endPadding.trailing != .none else { return base }
        // SwiftCharts' padding: room at the low end (leading) and the high end
        // (trailing) of the axis, from the labels there and/or a fixed size.
        var half = (low: 0.0, high: 0.0)
        if axis.endPadding.needsLabels, let t = ticks(axis, plot: plot, calc: base)?.ticks, let first = t.first, let last = t.last {
            let along = { (tick: Tick) in axis.alignment.isHorizontal ? tick.labelSize.width / 2 : tick.labelSize.height / 2 }
            half = (along(first), along(last))
        }
        let length = abs(base.pixelEnd - base.pixelStart)
        let lead = min(axis.endPadding.leading.size(label: half.low), length / 3)
        let trail = min(axis.endPadding.trailing.size(label: half.high), length / 3)
        return calculator(axis, plot: plot, lead: lead, trail: trail)
    }

    func calculator(_ axis: AxisSpec, plot: Rect, lead: Double, trail: Double) -> CoordinateCalculator {
        let (start, end) = axis.alignment.isHorizontal ? (plot.minX, plot.maxX) : (plot.maxY, plot.minY)
        let dir: Double = end >= start ? 1 : -1
        let (low, high) = axis.flipped ? (end - dir * lead, start + dir * trail) : (start + dir * lead, end - dir * trail)
        return CoordinateCalculator(range: axis.range(alongPixels: abs(high - low)), pixelStart: low, pixelEnd: high,
                                    logBase: axis.kind.logBase, breaks: axis.breaks)
    }

    /// The axis' ticks, and its step when it is numeric.
    func ticks(_ axis: AxisSpec, plot: Rect, calc given: CoordinateCalculator? = nil) -> (step: TickStep?, ticks: [Tick])? {
        let calc = given ?? calculator(axis, plot: plot)
        let along = axis.alignment.isHorizontal ? abs(plot.width) : abs(plot.height)
        let extent = axis.alignment.isHorizontal ? (plot.minX, plot.maxX) : (plot.maxY, plot.minY)
        let makeTicks = { self.makeTicks(axis, calc: calc, extent: along > abs(calc.pixelEnd - calc.pixelStart) + 1 ? extent : nil) }
        guard let memo = tickMemo else { return makeTicks() }
        if let made = memo.find(axis.id, calc) { return made }
        if let made = sharedTicks?.find(axis.id, calc) {
            memo.store(axis.id, calc, made)
            return made
        }
        let made = makeTicks()
        memo.store(axis.id, calc, made)
        sharedTicks?.store(axis.id, calc, made)
        return made
    }

    /// `extent`: the pixels the axis runs over when its end padding (a marker's or
    /// bubble's room) leaves the data a shorter stretch of it.
    private func makeTicks(_ axis: AxisSpec, calc: CoordinateCalculator, extent: (Double, Double)? = nil) -> (step: TickStep?, ticks: [Tick])? {
        let horizontal = axis.alignment.isHorizontal
        let length = abs(calc.pixelEnd - calc.pixelStart)
        let measure = { (s: String) in rotatedSize(textSize(turned(axis) ? oneLine(s) : s, axis.labelStyle), axis) }
        guard var (step, generated) = allTicks(axis, calc: calc, length: length, horizontal: horizontal, measure: measure) else {
            return nil
        }
        // Fewer than two labels over the data's stretch of a padded axis (a bubble chart
        // in a dashboard cell keeps a third of a 64 px axis for its data): ticks over the
        // whole axis, the padding too, where that gives two.
        if generated.count < 2, let (a, b) = extent, case let .numeric(format) = axis.kind, calc.logBase == nil, calc.breaks == nil,
           fixedTicks(axis, calculator: calc, measure: measure) == nil {
            let va = calc.value(a), vb = calc.value(b)
            if va.isFinite, vb.isFinite, va != vb,
               let wide = TickGenerator.ticks(range: DoubleRange(min(va, vb), max(va, vb)), calculator: calc, length: abs(b - a),
                                              horizontal: horizontal, policy: axis.tickPolicy, format: format, measure: measure),
               wide.ticks.count >= 2 {
                (step, generated) = (wide.step, wide.ticks)
            }
        }
        // No tick in a stretch a discontinuous axis leaves out.
        var ticks = calc.breaks.map { b in generated.filter { !b.isExcluded($0.value) } } ?? generated
        if axis.labelGenerator != nil || axis.tickHook != nil || axis.labelDecimals != nil || !axis.labelMap.isEmpty {
            ticks = ticks.compactMap { tick in
                var text = axis.labelGenerator?.label(tick.value) ?? tick.label
                if let d = axis.labelDecimals, axis.labelGenerator == nil, axis.kind.writesNumbers {
                    text = String(format: "%.\(max(0, min(d, 15)))f", tick.value)
                }
                if let mapped = axis.labelMap[tick.value] { text = mapped }
                var mark = TickMark(value: tick.value, label: text)
                axis.tickHook?.alter(&mark)
                guard !mark.isHidden else { return nil }
                let label = mark.isLabelHidden ? "" : mark.label
                var made = Tick(value: tick.value, pixel: tick.pixel, label: label,
                                labelSize: label == tick.label ? tick.labelSize : label.isEmpty ? Size(width: 0, height: 0) : measure(label))
                // An angle of its own (clamped to -90 ... 90): measured turned by it.
                if let a = mark.labelAngle, a.isFinite, min(max(a, -90), 90) != axis.labelAngle, !label.isEmpty {
                    made.labelAngle = min(max(a, -90), 90)
                }
                if var style = mark.labelStyle, style != axis.labelStyle, !label.isEmpty {
                    // (A family or face the server does not have: the chart font, as measured.)
                    if let f = style.family, !measurer.hasFace(family: f, FontFace(bold: style.bold, italic: style.italic)) {
                        style.family = nil
                        style.italic = false
                    }
                    made.labelStyle = style
                }
                if made.labelStyle != nil || made.labelAngle != nil {
                    let angle = made.labelAngle ?? axis.labelAngle
                    made.labelSize = rotatedSize(textSize(angle != 0 ? oneLine(label) : label, made.labelStyle ?? axis.labelStyle),
                                                 axis, angle: angle)
                }
                if let image = mark.labelImage, !label.isEmpty, let natural = axis.labelImages[image.src],
                   let size = image.size(natural: natural) {
                    // An image: its size (both sides, as drawn) is the label's, straight
                    // whatever the axis' angle.
                    made.labelImage = TickImage(src: image.src, width: size.width, height: size.height)
                    made.labelStyle = nil
                    made.labelAngle = axis.labelAngle != 0 ? 0 : nil
                    made.labelSize = size
                }
                made.labelColor = mark.labelColor
                made.labelBackground = label.isEmpty ? nil : mark.labelBackground
                return made
            }
        }
        return (step, ticks)
    }

    private func allTicks(_ axis: AxisSpec, calc: CoordinateCalculator, length: Double, horizontal: Bool,
                          measure: (String) -> Size) -> (step: TickStep?, ticks: [Tick])? {
        if let fixed = fixedTicks(axis, calculator: calc, measure: measure) { return (nil, fixed) }
        switch axis.kind {
        case let .numeric(format):
            return TickGenerator.ticks(range: calc.range, calculator: calc, length: length, horizontal: horizontal,
                                       policy: axis.tickPolicy, format: format, measure: measure)
                .map { ($0.step, $0.ticks) }
        case let .logarithmic(base, format):
            return LogTickGenerator.ticks(calculator: calc, length: length, horizontal: horizontal, policy: axis.tickPolicy,
                                          base: base, format: format, measure: measure).map { (nil, $0) }
        case let .category(names):
            return CategoryTickGenerator.ticks(calculator: calc, length: length, horizontal: horizontal,
                                               policy: axis.tickPolicy, categories: names, measure: measure).map { (nil, $0) }
        case let .dateTime(zone):
            if let f = axis.tickPlacement.majorTime {
                return (nil, TimeTickGenerator.ticks(at: f, range: calc.range, calculator: calc, policy: axis.tickPolicy,
                                                     zone: zone, format: axis.dateFormat, measure: measure))
            }
            return TimeTickGenerator.ticks(range: calc.range, calculator: calc, length: length, horizontal: horizontal,
                                           policy: axis.tickPolicy, zone: zone, format: axis.dateFormat, measure: measure)
                .map { (nil, $0.ticks) }
        }
    }

    /// Major ticks at given values or at a fixed frequency (nil when the axis chooses).
    func fixedTicks(_ axis: AxisSpec, calculator calc: CoordinateCalculator, measure: (String) -> Size) -> [Tick]? {
        let p = axis.tickPlacement, r = calc.range
        var values: [Double]
        if let given = axis.valueGenerator?.values(r, abs(calc.pixelEnd - calc.pixelStart)) ?? p.values {
            // A Swift generator's or the spec's values: those in range, each once (at most
            // 1000 from a generator).
            values = Set(given.filter { $0.isFinite && $0 >= r.min && $0 <= r.max }).sorted()
            if axis.valueGenerator != nil { values = Array(values.prefix(1000)) }
        } else if let f = p.majorFrequency ?? p.multiplier, f > 0, f.isFinite {
            var f = f
            if p.majorFrequency == nil {
                // The multiplier halved while its halves stay `targetSpacing` px apart, or
                // doubled until it is that far apart: ticks `targetSpacing` to twice that apart.
                let shown = calc.transformed(r.max) - calc.transformed(r.min)
                let perUnit = abs(calc.pixelEnd - calc.pixelStart) / shown, target = axis.tickPolicy.targetSpacing
                var n = 0
                while shown > 0, perUnit.isFinite, f / 2 * perUnit >= target, n < 60 { f /= 2; n += 1 }
                while shown > 0, perUnit > 0, perUnit.isFinite, f * perUnit < target, n < 60, (f * 2).isFinite { f *= 2; n += 1 }
            }
            let first = ((r.min - p.anchor) / f).rounded(.up), last = ((r.max - p.anchor) / f).rounded(.down)
            guard last >= first, last - first < 1e7 else { return [] }
            let every = max(1, ((last - first + 1) / Double(axis.tickPolicy.maxTicks)).rounded(.up))
            values = stride(from: (first / every).rounded(.up) * every, through: last, by: every).map { p.anchor + $0 * f }
        } else {
            return nil
        }
        if axis.kind.logBase != nil { values = values.filter { $0 > 0 } }
        let labels = TickLabelFormatter.labels(values: values, format: axis.kind.numberFormat)
        return zip(values, labels).map { Tick(value: $0, pixel: calc.pixel($0), label: $1, labelSize: measure($1)) }
    }

    /// The pixels of an axis' minor ticks, given its major ticks.
    func minorTicks(_ axis: AxisSpec, majors: [Tick], step: TickStep?, calculator calc: CoordinateCalculator) -> [Double] {
        let p = axis.tickPlacement
        let lo = calc.transformed(calc.range.min), hi = calc.transformed(calc.range.max)
        var values: [Double] = []   // in transformed units
        var divisions = 0
        if let f = p.minorTime, case let .dateTime(zone) = axis.kind {
            // Calendar minor ticks: at most 2000 (none when there would be more).
            let r = calc.range
            guard r.span / max(f.step.approximateSeconds, 1e-9) <= 2000 else { return [] }
            values = TimeTickGenerator.instants(in: r, every: f.step, from: f.anchor, zone: zone, limit: 2000).map { calc.transformed($0) }
        } else {
        switch p.minor {
        case .none: return []
        case let .frequency(f):
            guard f > 0, f.isFinite else { return [] }
            let r = calc.range
            let first = ((r.min - p.anchor) / f).rounded(.up), last = ((r.max - p.anchor) / f).rounded(.down)
            guard last >= first, last - first <= 2000 else { return [] }
            values = stride(from: first, through: last, by: 1).map { calc.transformed(p.anchor + $0 * f) }
        case let .divisions(n): divisions = n
        case .auto:
            if let step {
                divisions = step.factor == 2 ? 4 : 5
            } else if axis.kind.logBase == 10, majors.count >= 2,
                      abs(calc.transformed(majors[1].value) - calc.transformed(majors[0].value) - 1) < 1e-9 {
                // 2 ... 9 times each power of ten.
                var e = lo.rounded(.down)
                while e <= hi, values.count <= 2000 {
                    for m in 2...9 { values.append(e + Foundation.log10(Double(m))) }
                    e += 1
                }
            }
        }
        }
        if divisions > 1, majors.count >= 2 {
            let t = majors.map { calc.transformed($0.value) }
            // Between each pair of majors, and one interval beyond each end.
            let interval = t[1] - t[0]
            for i in -1..<t.count {
                let a = i < 0 ? t[0] - interval : t[i], b = i + 1 < t.count ? t[i + 1] : t[i] + interval
                for d in 1..<divisions { values.append(a + (b - a) * Double(d) / Double(divisions)) }
                if values.count > 2000 { break }
            }
        }
        let majorT = majors.map { calc.transformed($0.value) }
        let tolerance = (hi - lo) * 1e-9
        return values.filter { v in v >= lo - tolerance && v <= hi + tolerance && !majorT.contains { abs($0 - v) <= tolerance } }
            .map { calc.pixel(calc.untransformed($0)) }
    }

    /// How far across the axis `ticks`' labels reach: the widest label of a vertical
    /// axis, a line of text for a horizontal one (the tallest turned label when they are).
    func labelExtent(_ axis: AxisSpec, ticks: [Tick]) -> Double {
        if axis.alignment.isHorizontal, turned(axis) || ticks.contains(where: { $0.label.hasLineBreak }) {
            return ticks.map(\.labelSize.height).max() ?? 0
        }
        if axis.alignment.isHorizontal, ticks.contains(where: { $0.labelAngle != nil || $0.labelImage != nil }) {
            // Labels a hook turned (`TickMark.labelAngle`) or made images: the deepest box, or a line.
            let line = measurer.metrics(for: axis.labelStyle).lineHeight(size: axis.labelStyle.size)
            return max(line, ticks.map(\.labelSize.height).max() ?? 0)
        }
        return axis.alignment.isHorizontal
            ? measurer.metrics(for: axis.labelStyle).lineHeight(size: axis.labelStyle.size)
            : ticks.map(\.labelSize.width).max() ?? 0
    }

    /// Whether an axis' labels may come with several lines ("\n"): only labels the
    /// user writes (a generator, a hook, a label map, a date pattern) can.
    func mayWrap(_ axis: AxisSpec) -> Bool {
        axis.labelGenerator != nil || axis.tickHook != nil || axis.labelMap.values.contains { $0.hasLineBreak }
            || (axis.dateFormat?.hasLineBreak ?? false)
    }

    /// The size of text that may have several lines: the widest line, the lines' height.
    func textSize(_ text: String, _ style: TextStyle) -> Size {
        guard text.hasLineBreak else { return measurer.size(of: text, style: style) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { measurer.size(of: String($0), style: style) }
        return Size(width: lines.map(\.width).max() ?? 0, height: lines.reduce(0) { $0 + $1.height })
    }

    func oneLine(_ text: String) -> String { text.hasLineBreak ? text.replacingOccurrences(of: "\n", with: " ") : text }

    /// Whether an axis' labels are turned.
    func turned(_ axis: AxisSpec) -> Bool { axis.labelAngle != 0 }

    /// The room a label of `size` needs once turned: across the axis, the height of its
    /// turned box; along it, what neighbouring parallel labels need between their
    /// ticks (their height over the sine of the angle, at most the turned box' width).
    /// (A vertical axis' the same turned a quarter: across it the turned box' width,
    /// along it the height over the cosine, at most the box' height.)
    /// `angle`: a label's own (`TickMark.labelAngle`) in place of the axis'.
    func rotatedSize(_ size: Size, _ axis: AxisSpec, angle: Double? = nil) -> Size {
        let degrees = angle ?? axis.labelAngle
        guard degrees != 0 else { return size }
        let a = abs(degrees) * .pi / 180
        let (c, s) = (cos(a), sin(a))
        if !axis.alignment.isHorizontal {
            return Size(width: size.width * c + size.height * s,
                        height: min(size.width * s + size.height * c, size.height / max(c, 1e-6)))
        }
        let box = size.width * c + size.height * s
        return Size(width: min(box, size.height / max(s, 1e-6)), height: size.width * s + size.height * c)
    }

    /// A turned label of a horizontal axis: its end at the tick, just outside the
    /// tick mark (above the plot for a top axis, below it for a bottom one).
    func turnedLabel(_ text: String, size s: Size, at x: Double, axis: AxisSpec, band: Rect, inset: Double,
                     ascent: Double, descent: Double, style: TextStyle, angle given: Double? = nil) -> PlacedText {
        let angle = given ?? axis.labelAngle, a = angle * .pi / 180
        let down = axis.facing == .bottom
        // The text ends at the tick when it slants away from the plot, else starts there.
        let align: PlacedText.Align = (angle < 0) == down ? .right : .left
        // Corners of the text in its own frame (anchor at the baseline's end or start),
        // turned by the angle, give the box; the anchor is then moved so the box' near
        // edge sits `inset` away from the axis line.
        let x0 = align == .right ? -s.width : 0, x1 = x0 + s.width
        let corners = [(x0, -ascent), (x1, -ascent), (x0, descent), (x1, descent)].map { (px, py) in
            (px * cos(a) - py * sin(a), px * sin(a) + py * cos(a))
        }
        let minX = corners.map(\.0).min()!, maxX = corners.map(\.0).max()!
        let minY = corners.map(\.1).min()!, maxY = corners.map(\.1).max()!
        let anchorY = down ? band.minY + inset - minY : band.maxY - inset - maxY
        let anchor = Point(x: x, y: anchorY)
        return PlacedText(text: text, anchor: anchor, align: align, angle: angle, style: style,
                          bounds: Rect(x: x + minX, y: anchorY + minY, width: maxX - minX, height: maxY - minY))
    }

    /// A turned label of a vertical axis: its end at the tick (the middle of its end
    /// on the tick's line), just outside the tick mark (left of the plot for a left
    /// axis, right of it for a right one).
    func turnedVerticalLabel(_ text: String, size s: Size, at y: Double, axis: AxisSpec, band: Rect, inset: Double,
                             ascent: Double, descent: Double, style: TextStyle, angle given: Double? = nil) -> PlacedText {
        let angle = given ?? axis.labelAngle, a = angle * .pi / 180
        let left = axis.facing == .left
        let align: PlacedText.Align = left ? .right : .left
        let x0 = left ? -s.width : 0, x1 = x0 + s.width
        let corners = [(x0, -ascent), (x1, -ascent), (x0, descent), (x1, descent)].map { (px, py) in
            (px * cos(a) - py * sin(a), px * sin(a) + py * cos(a))
        }
        let minX = corners.map(\.0).min()!, maxX = corners.map(\.0).max()!
        let minY = corners.map(\.1).min()!, maxY = corners.map(\.1).max()!
        let anchorX = left ? band.maxX - inset - maxX : band.minX + inset - minX
        let anchorY = y + (ascent - descent) / 2 * cos(a)
        return PlacedText(text: text, anchor: Point(x: anchorX, y: anchorY), align: align, angle: angle, style: style,
                          bounds: Rect(x: anchorX + minX, y: anchorY + minY, width: maxX - minX, height: maxY - minY))
    }

    /// A label of several lines as one placed text per line, stacked down its box
    /// (centred on the tick of a vertical axis), appended to `out`.
    /// `repeatingFrom`: the lines of the label before on an axis across; a line after
    /// the first that says what the same line of that label said (the date under each
    /// time of a day) is left out: it is read from the label before.
    func appendLines(of label: PlacedText, lineHeight: Double, ascent: Double, to out: inout [PlacedText],
                     repeatingFrom previous: [String]? = nil) {
        // (A one-line label goes in as it is: most do, for every axis at every layout.)
        guard label.text.hasLineBreak else { return out.append(label) }
        for (k, text) in label.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated() {
            if k > 0, let p = previous, k < p.count, p[k] == text { continue }
            var line = label
            line.text = text
            let top = label.bounds.minY + Double(k) * lineHeight
            line.anchor.y = top + ascent
            let w = measurer.size(of: text, style: label.style).width
            line.bounds = Rect(x: label.align == .center ? label.anchor.x - w / 2 : label.align == .right ? label.anchor.x - w : label.anchor.x,
                               y: top, width: w, height: lineHeight)
            out.append(line)
        }
    }

    // MARK: Layout

    /// The axis laid out in `band`: its calculator over `plot`, ticks, labels, title.
    public func place(_ axis: AxisSpec, band: Rect, plot: Rect, canvas: Rect) -> AxisLayout {
        // The axis spans its band along its direction: the plot's length for an axis
        // beside it, a part of it for axes stacked along the plot.
        let along = axis.alignment.isHorizontal
            ? Rect(x: band.minX, y: plot.minY, width: band.width, height: plot.height)
            : Rect(x: plot.minX, y: band.minY, width: plot.width, height: band.height)
        let calc = calculator(axis, plot: along)
        let generated = ticks(axis, plot: along, calc: calc)
        let m = measurer.metrics(for: axis.labelStyle)
        let ascent = m.ascent(size: axis.labelStyle.size), descent = m.descent(size: axis.labelStyle.size)
        let inset = axis.tickLength + axis.labelPadding

        var labels: [PlacedText] = []
        labels.reserveCapacity(generated?.ticks.count ?? 0)
        var droppedTicks: Set<Double> = []
        var lastBounds: Rect? = nil
        var lastTurnedApart = false
        var lastLines: [String] = []
        let measured = labelExtent(axis, ticks: generated?.ticks ?? [])
        let labelExtent = axis.reservedLabelExtent(measured: measured)
        // At either end of the axis, a label reaching past it follows that end's mode.
        // (Pixels grow rightwards and downwards: the axis' low end is on the left, or at the bottom.)
        let (start, end) = axis.alignment.isHorizontal ? (along.minX, along.maxX) : (along.minY, along.maxY)
        let lowMode = axis.alignment.isHorizontal != axis.flipped ? axis.tickLabelClippingLow : axis.tickLabelClippingHigh
        let highMode = axis.alignment.isHorizontal != axis.flipped ? axis.tickLabelClippingHigh : axis.tickLabelClippingLow
        for tick in generated?.ticks ?? [] {
            // (A label restyled by the tick hook: its own style and vertical metrics.)
            let style = tick.labelStyle ?? axis.labelStyle
            let tm = tick.labelStyle.map { measurer.metrics(for: $0) } ?? m
            let tAscent = tick.labelStyle == nil ? ascent : tm.ascent(size: style.size)
            let tDescent = tick.labelStyle == nil ? descent : tm.descent(size: style.size)
            // (Turned by its own angle, `TickMark.labelAngle`, or the axis'.)
            let angle = tick.labelAngle ?? axis.labelAngle, isTurned = angle != 0
            let s = isTurned ? measurer.size(of: oneLine(tick.label), style: style) : tick.labelSize
            let placed: PlacedText
            switch axis.facing {
            case .bottom where isTurned, .top where isTurned:
                placed = turnedLabel(oneLine(tick.label), size: s, at: tick.pixel, axis: axis, band: band, inset: inset,
                                     ascent: tAscent, descent: tDescent, style: style, angle: angle)
            case .bottom, .top:
                let top = axis.facing == .bottom ? band.minY + inset : band.maxY - inset - s.height
                placed = PlacedText(text: tick.label, anchor: Point(x: tick.pixel, y: top + tAscent), align: .center,
                                    angle: 0, style: style,
                                    bounds: Rect(x: tick.pixel - s.width / 2, y: top, width: s.width, height: s.height))
            case .left where isTurned, .right where isTurned:
                placed = turnedVerticalLabel(oneLine(tick.label), size: s, at: tick.pixel, axis: axis, band: band, inset: inset,
                                             ascent: tAscent, descent: tDescent, style: style, angle: angle)
            case .left, .right:
                // (Several lines: their box centred on the tick.)
                let multiline = tick.label.hasLineBreak || tick.labelImage != nil
                let baseline = multiline ? tick.pixel - s.height / 2 + tAscent : tick.pixel + (tAscent - tDescent) / 2
                let left = axis.facing == .left ? band.maxX - inset - s.width : band.minX + inset
                placed = PlacedText(text: tick.label,
                                    anchor: Point(x: axis.facing == .left ? left + s.width : left, y: baseline),
                                    align: axis.facing == .left ? .right : .left, angle: 0, style: style,
                                    bounds: Rect(x: left, y: baseline - tAscent, width: s.width, height: s.height))
            }
            guard !tick.label.isEmpty, canvas.contains(placed.bounds) else { continue }
            let (lo, hi) = axis.alignment.isHorizontal ? (placed.bounds.minX, placed.bounds.maxX) : (placed.bounds.minY, placed.bounds.maxY)
            if lo < start - 1e-9, lowMode != .ticksAndLabelsPersist {
                if lowMode == .neitherPersist { droppedTicks.insert(tick.value) }
                continue
            }
            if hi > end + 1e-9, highMode != .ticksAndLabelsPersist {
                if highMode == .neitherPersist { droppedTicks.insert(tick.value) }
                continue
            }
            // Given tick values may crowd: a label that would touch the last one kept is left out.
            // (Turned labels are parallel: their boxes overlap while the text does not,
            // and the tick generator already spaced them by their height. A label a hook
            // turned otherwise, or next to one, is not: its box is checked.)
            let parallel = turned(axis) && tick.labelAngle == nil && !lastTurnedApart
            if !parallel, let last = lastBounds, last.intersects(placed.bounds) { continue }
            lastBounds = placed.bounds
            lastTurnedApart = tick.labelAngle != nil
            var restyled = placed
            restyled.fill = tick.labelColor
            restyled.background = tick.labelBackground
            if let image = tick.labelImage {
                // (One box, however many lines the text it stands for has.)
                restyled.image = image
                restyled.text = oneLine(restyled.text)
            }
            appendLines(of: restyled, lineHeight: tm.lineHeight(size: style.size), ascent: tAscent, to: &labels,
                        repeatingFrom: axis.alignment.isHorizontal ? lastLines : nil)
            lastLines = placed.text.hasLineBreak ? placed.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : []
        }

        // The title (SwiftCharts' several title labels: one per line), outside the labels,
        // the first line nearest them.
        var titles: [PlacedText] = []
        if let whole = axis.title, !whole.isEmpty {
            let tm = measurer.metrics(for: axis.titleStyle)
            let size = axis.titleStyle.size
            let h = tm.lineHeight(size: size)
            let a = tm.ascent(size: size), d = tm.descent(size: size)
            // (Most titles are one line: not split into a new array at every layout.)
            let parts = whole.hasLineBreak ? whole.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [whole]
            titles.reserveCapacity(parts.count)
            for (k, text) in parts.enumerated() {
                let w = measurer.width(of: text, style: axis.titleStyle)
                // In reading order: lines run down the page below the plot, and, above
                // it or turned beside it, the last line is the one nearest the labels.
                let row = axis.facing == .bottom ? k : parts.count - 1 - k
                let out = inset + labelExtent + axis.titlePadding + Double(row) * h
                let line: PlacedText
                switch axis.facing {
                case .bottom:
                    let top = band.minY + out
                    line = PlacedText(text: text, anchor: Point(x: along.midX, y: top + a), align: .center, angle: 0,
                                      style: axis.titleStyle, bounds: Rect(x: along.midX - w / 2, y: top, width: w, height: h))
                case .top:
                    let top = band.maxY - out - h
                    line = PlacedText(text: text, anchor: Point(x: along.midX, y: top + a), align: .center, angle: 0,
                                      style: axis.titleStyle, bounds: Rect(x: along.midX - w / 2, y: top, width: w, height: h))
                case .left:
                    let left = band.maxX - out - h
                    // Rotated -90 degrees: the ascent points left, so the baseline sits right of centre.
                    line = PlacedText(text: text, anchor: Point(x: left + h / 2 + (a - d) / 2, y: along.midY), align: .center,
                                      angle: -90, style: axis.titleStyle,
                                      bounds: Rect(x: left, y: along.midY - w / 2, width: h, height: w))
                case .right:
                    let left = band.minX + out
                    line = PlacedText(text: text, anchor: Point(x: left + h / 2 - (a - d) / 2, y: along.midY), align: .center,
                                      angle: 90, style: axis.titleStyle,
                                      bounds: Rect(x: left, y: along.midY - w / 2, width: h, height: w))
                }
                // A title line with no room on the canvas, or longer than its axis (it
                // would run into the chart's title or the next axis), is left out, as
                // labels are.
                let length = axis.facing == .bottom || axis.facing == .top ? along.width : along.height
                if !text.isEmpty, canvas.contains(line.bounds), w <= length + 1e-9 { titles.append(line) }
            }
        }
        let title = titles.first

        var layout = AxisLayout(id: axis.id, alignment: axis.alignment, facing: axis.facing, rect: band, calculator: calc,
                          step: generated?.step, ticks: droppedTicks.isEmpty ? generated?.ticks ?? []
                                                       : (generated?.ticks ?? []).filter { !droppedTicks.contains($0.value) },
                          labels: labels, title: title,
                          tickLength: axis.tickLength, labelExtent: measured)
        layout.minorTicks = minorTicks(axis, majors: generated?.ticks ?? [], step: generated?.step, calculator: calc)
        layout.moreTitleLines = Array(titles.dropFirst())
        if axis.visibility != .visible {
            layout.isHidden = true
            layout.labels = []
            layout.title = nil
            layout.moreTitleLines = []
        }
        return layout
    }
}

extension String {
    /// Whether the text holds a line break ("\n"): a byte scan. (`contains("\n")` would be
    /// Foundation's substring search, which bridges to NSString: a tenth of a view's layout.)
    var hasLineBreak: Bool { utf8.contains(10) }
}

/// Ticks made by axis id and calculator: those of one layout (a handful of axes, each
/// measured over a few plots), and, kept from one layout to the next of the same axes,
/// those of the layout before (a live chart's still axes: the same ticks every frame).
/// An axis' ticks depend on its definition and its calculator alone.
public final class TickMemo: Sendable {
    typealias Made = (step: TickStep?, ticks: [Tick])?
    private struct Entry { var calc: CoordinateCalculator, made: Made }
    /// By axis id (a chart of thousands of axes finds each in one step, not a walk).
    private struct Lists { var current: [String: [Entry]] = [:], previous: [String: [Entry]] = [:] }
    private let lists = Mutex(Lists())

    public init() {}

    func find(_ id: String, _ calc: CoordinateCalculator) -> Made? {
        lists.withLock { l in
            if let e = l.current[id]?.first(where: { $0.calc == calc }) { return e.made }
            guard let e = l.previous[id]?.first(where: { $0.calc == calc }) else { return nil }
            l.current[id, default: []].append(e)
            return e.made
        }
    }

    func store(_ id: String, _ calc: CoordinateCalculator, _ made: Made) {
        lists.withLock { $0.current[id, default: []].append(Entry(calc: calc, made: made)) }
    }

    /// A layout ended: what it used is kept for the next, the rest forgotten.
    public func finishLayout() {
        lists.withLock { l in l.previous = l.current; l.current = [:] }
    }
}

/// Ticks made by axis id and calculator, shared by the layouts of several charts with
/// the same axes (a session's views): one chart's x axis ticks serve every view whose x
/// axis shows the same range over the same length. Found by hash, safe to use from
/// several threads at once; `clear` forgets them (a session clears it at each
/// publication). Calculators of discontinuous axes are not kept.
public final class SharedTickMemo: Sendable {
    private struct Key: Hashable {
        var id: String
        var min: Double, max: Double, start: Double, end: Double
        var logBase: Double?
        init?(_ id: String, _ calc: CoordinateCalculator) {
            guard calc.breaks == nil else { return nil }
            self.id = id
            min = calc.range.min; max = calc.range.max; start = calc.pixelStart; end = calc.pixelEnd
            logBase = calc.logBase
        }
    }
    private struct Table { var made: [Key: TickMemo.Made] = [:], hits = 0 }
    private let table = Mutex(Table())
    /// Most entries kept: beyond it the table starts afresh.
    private static let limit = 4096

    public init() {}

    func find(_ id: String, _ calc: CoordinateCalculator) -> TickMemo.Made? {
        guard let key = Key(id, calc) else { return nil }
        return table.withLock { t in
            guard let made = t.made[key] else { return nil }
            t.hits += 1
            return made
        }
    }

    func store(_ id: String, _ calc: CoordinateCalculator, _ made: TickMemo.Made) {
        guard let key = Key(id, calc) else { return }
        table.withLock {
            if $0.made.count >= Self.limit { $0.made.removeAll(keepingCapacity: true) }
            $0.made[key] = made
        }
    }

    /// Forgets every tick kept.
    public func clear() { table.withLock { $0.made.removeAll(keepingCapacity: true) } }

    /// How many times a layout found an axis' ticks here (since the memo was made).
    public var hits: Int { table.withLock { $0.hits } }
}

/// The axis layout system, after SciChart's: a layout manager runs a measure pass and
/// a layout pass over the axes and returns the viewport (the plot area). It holds one
/// strategy per alignment for outer axes (beside the plot, taking room from it) and one
/// per alignment for inner axes (`isCenterAxis`: inside the plot, taking no room).
/// Every strategy is replaceable, and so is the whole manager (`ChartLayoutEngine`
/// takes any `ChartLayoutManager`).

/// One axis as a strategy sees it: its spec and the thickness the measure pass gave it
/// (pixels across the axis: tick, padding, labels, title).
public struct MeasuredAxis: Equatable, Sendable {
    public var spec: AxisSpec
    public var thickness: Double
    public init(spec: AxisSpec, thickness: Double) { self.spec = spec; self.thickness = thickness }
}

/// What the manager knows during a layout, handed to every strategy: the canvas, the
/// area left for plot and outer axes (canvas minus padding and title), the viewport,
/// and each axis' coordinate calculator for that viewport (to pin an axis to a data
/// value of another, as floating axes do).
public struct ChartLayoutState: Sendable {
    public var canvas: Rect
    public var content: Rect
    public var viewport: Rect
    public var calculators: [String: CoordinateCalculator]
    /// The thickness of the outer axes on each side (SciChart's outer area sizes).
    public var outerAreaSize: [AxisAlignment: Double]
    /// Gap between neighbouring outer axes (`ChartLayoutSpec.axisSpacing`).
    public var axisSpacing: Double = 0

    public init(canvas: Rect, content: Rect, viewport: Rect, calculators: [String: CoordinateCalculator],
                outerAreaSize: [AxisAlignment: Double]) {
        self.canvas = canvas; self.content = content; self.viewport = viewport
        self.calculators = calculators; self.outerAreaSize = outerAreaSize
    }
}

/// Places the axes of one alignment, outer or inner.
public protocol AxisLayoutStrategy: Sendable {
    /// Measure pass: the room these axes take from the viewport on their side.
    func measure(_ axes: [MeasuredAxis], state: ChartLayoutState) -> Double
    /// Layout pass: the band each axis occupies (in order), the viewport being known.
    func layout(_ axes: [MeasuredAxis], state: ChartLayoutState) -> [Rect]
}

/// The helpers strategies are built from: stacks of axes laid out from an edge.
public enum AxisStacking {
    /// Horizontal axes one below the other, the first with its top edge at `top`.
    public static func topToBottom(_ axes: [MeasuredAxis], left: Double, top: Double, right: Double) -> [Rect] {
        var y = top
        return axes.map { a in defer { y += a.thickness }; return Rect(x: left, y: y, width: right - left, height: a.thickness) }
    }
    /// Horizontal axes one above the other, the first with its bottom edge at `bottom`.
    public static func bottomToTop(_ axes: [MeasuredAxis], left: Double, bottom: Double, right: Double) -> [Rect] {
        var y = bottom
        return axes.map { a in y -= a.thickness; return Rect(x: left, y: y, width: right - left, height: a.thickness) }
    }
    /// Vertical axes side by side rightwards, the first with its left edge at `left`.
    public static func leftToRight(_ axes: [MeasuredAxis], left: Double, top: Double, bottom: Double) -> [Rect] {
        var x = left
        return axes.map { a in defer { x += a.thickness }; return Rect(x: x, y: top, width: a.thickness, height: bottom - top) }
    }
    /// Vertical axes side by side leftwards, the first with its right edge at `right`.
    public static func rightToLeft(_ axes: [MeasuredAxis], right: Double, top: Double, bottom: Double) -> [Rect] {
        var x = right
        return axes.map { a in x -= a.thickness; return Rect(x: x, y: top, width: a.thickness, height: bottom - top) }
    }
}

/// Outer axes of one alignment: stacked outwards from the viewport's edge, in order,
/// taking their total thickness from the viewport.
public struct OuterAxisLayoutStrategy: AxisLayoutStrategy {
    public let alignment: AxisAlignment
    public init(_ alignment: AxisAlignment) { self.alignment = alignment }

    public func measure(_ axes: [MeasuredAxis], state: ChartLayoutState) -> Double {
        axes.reduce(0) { $0 + $1.thickness } + state.axisSpacing * Double(max(0, axes.count - 1))
    }

    public func layout(_ axes: [MeasuredAxis], state: ChartLayoutState) -> [Rect] {
        let v = state.viewport
        guard state.axisSpacing == 0 else {
            // Stack with gaps: each axis as a stack of one, moved out by what precedes it.
            var offset = 0.0
            return axes.map { a in
                defer { offset += a.thickness + state.axisSpacing }
                let one = [a]
                switch alignment {
                case .bottom: return AxisStacking.topToBottom(one, left: v.minX, top: v.maxY + offset, right: v.maxX)[0]
                case .top: return AxisStacking.bottomToTop(one, left: v.minX, bottom: v.minY - offset, right: v.maxX)[0]
                case .left: return AxisStacking.rightToLeft(one, right: v.minX - offset, top: v.minY, bottom: v.maxY)[0]
                case .right: return AxisStacking.leftToRight(one, left: v.maxX + offset, top: v.minY, bottom: v.maxY)[0]
                }
            }
        }
        switch alignment {
        case .bottom: return AxisStacking.topToBottom(axes, left: v.minX, top: v.maxY, right: v.maxX)
        case .top: return AxisStacking.bottomToTop(axes, left: v.minX, bottom: v.minY, right: v.maxX)
        case .left: return AxisStacking.rightToLeft(axes, right: v.minX, top: v.minY, bottom: v.maxY)
        case .right: return AxisStacking.leftToRight(axes, left: v.maxX, top: v.minY, bottom: v.maxY)
        }
    }
}

/// Outer axes of one side sharing the plot's length instead of stacking outwards
/// (SciChart's "Stack Axes Vertically or Horizontally"): the first takes the top (or
/// left) slice, the next the one after, `gap` pixels apart. Series plotted against
/// each axis then occupy its slice. The side takes the thickest axis' room.
public struct StackedAlongAxisLayoutStrategy: AxisLayoutStrategy {
    public let alignment: AxisAlignment
    public var gap: Double
    public init(_ alignment: AxisAlignment, gap: Double = 8) { self.alignment = alignment; self.gap = gap }

    public func measure(_ axes: [MeasuredAxis], state: ChartLayoutState) -> Double {
        axes.map(\.thickness).max() ?? 0
    }

    public func layout(_ axes: [MeasuredAxis], state: ChartLayoutState) -> [Rect] {
        let v = state.viewport, n = Double(axes.count)
        let length = ((alignment.isHorizontal ? v.width : v.height) - gap * (n - 1)) / n
        return axes.enumerated().map { i, a in
            let start = (alignment.isHorizontal ? v.minX : v.minY) + Double(i) * (length + gap)
            switch alignment {
            case .left: return Rect(x: v.minX - a.thickness, y: start, width: a.thickness, height: length)
            case .right: return Rect(x: v.maxX, y: start, width: a.thickness, height: length)
            case .top: return Rect(x: start, y: v.minY - a.thickness, width: length, height: a.thickness)
            case .bottom: return Rect(x: start, y: v.maxY, width: length, height: a.thickness)
            }
        }
    }
}

/// Inner axes of one alignment (`isCenterAxis`): inside the viewport, taking no room,
/// their labels facing into the plot. Stacked inwards from the viewport's edge on
/// their side; an axis with a `positionValue` floats instead, its line at that value
/// of the other direction's axis (`positionAxis`, else the first), held at the
/// viewport's edge when the value is outside the range (ShinobiCharts'
/// `axisPositionValue`).
public struct InnerAxisLayoutStrategy: AxisLayoutStrategy {
    public let alignment: AxisAlignment
    public init(_ alignment: AxisAlignment) { self.alignment = alignment }

    public func measure(_ axes: [MeasuredAxis], state: ChartLayoutState) -> Double { 0 }

    public func layout(_ axes: [MeasuredAxis], state: ChartLayoutState) -> [Rect] {
        let v = state.viewport
        var stacked: [MeasuredAxis] = [], bands: [Rect?] = Array(repeating: nil, count: axes.count)
        var stackedIndices: [Int] = []
        for (i, a) in axes.enumerated() {
            guard let line = floatingLine(a.spec, state: state) else { stacked.append(a); stackedIndices.append(i); continue }
            bands[i] = switch alignment {
            case .top: Rect(x: v.minX, y: line, width: v.width, height: a.thickness)
            case .bottom: Rect(x: v.minX, y: line - a.thickness, width: v.width, height: a.thickness)
            case .left: Rect(x: line, y: v.minY, width: a.thickness, height: v.height)
            case .right: Rect(x: line - a.thickness, y: v.minY, width: a.thickness, height: v.height)
            }
        }
        let stackBands: [Rect] = switch alignment {
        case .top: AxisStacking.topToBottom(stacked, left: v.minX, top: v.minY, right: v.maxX)
        case .bottom: AxisStacking.bottomToTop(stacked, left: v.minX, bottom: v.maxY, right: v.maxX)
        case .left: AxisStacking.leftToRight(stacked, left: v.minX, top: v.minY, bottom: v.maxY)
        case .right: AxisStacking.rightToLeft(stacked, right: v.maxX, top: v.minY, bottom: v.maxY)
        }
        for (k, i) in stackedIndices.enumerated() { bands[i] = stackBands[k] }
        return bands.map { $0! }
    }

    /// The pixel (across the plot) where a floating axis' band starts, or nil (also for
    /// one whose labels are fixed: it is stacked at the edge, and only its line floats).
    public func floatingLine(_ spec: AxisSpec, state: ChartLayoutState) -> Double? {
        spec.labelsAreFixed ? nil : Self.positionLine(of: spec, state: state)
    }

    /// Where the line of an axis with a `positionValue` goes: that value's pixel on
    /// its `positionAxis`, held inside the viewport.
    public static func positionLine(of spec: AxisSpec, state: ChartLayoutState) -> Double? {
        guard let value = spec.positionValue, let calc = state.calculators[spec.positionAxis ?? ""] else { return nil }
        let v = state.viewport
        let p = calc.pixel(value)
        let (lo, hi) = spec.alignment.isHorizontal ? (v.minY, v.maxY) : (v.minX, v.maxX)
        return p.isFinite ? min(max(p, lo), hi) : lo
    }
}

/// Runs the measure and layout passes for a chart.
public protocol ChartLayoutManager: Sendable {
    func layout(_ spec: ChartLayoutSpec, engine: ChartLayoutEngine) -> ChartLayout
}

/// SciChart's `SCIDefaultLayoutManager`: eight strategies, outer and inner for each
/// alignment, each replaceable.
public struct DefaultLayoutManager: ChartLayoutManager {
    public var outer: [AxisAlignment: any AxisLayoutStrategy]
    public var inner: [AxisAlignment: any AxisLayoutStrategy]
    /// Most measure/layout rounds before the layout is taken as it is.
    public var maxPasses = 4

    public init() {
        outer = Dictionary(uniqueKeysWithValues: AxisAlignment.allCases.map { ($0, OuterAxisLayoutStrategy($0)) })
        inner = Dictionary(uniqueKeysWithValues: AxisAlignment.allCases.map { ($0, InnerAxisLayoutStrategy($0)) })
    }

    public var topOuterAxisLayoutStrategy: any AxisLayoutStrategy {
        get { outer[.top]! } set { outer[.top] = newValue }
    }
    public var bottomOuterAxisLayoutStrategy: any AxisLayoutStrategy {
        get { outer[.bottom]! } set { outer[.bottom] = newValue }
    }
    public var leftOuterAxisLayoutStrategy: any AxisLayoutStrategy {
        get { outer[.left]! } set { outer[.left] = newValue }
    }
    public var rightOuterAxisLayoutStrategy: any AxisLayoutStrategy {
        get { outer[.right]! } set { outer[.right] = newValue }
    }
    public var topInnerAxisLayoutStrategy: any AxisLayoutStrategy {
        get { inner[.top]! } set { inner[.top] = newValue }
    }
    public var bottomInnerAxisLayoutStrategy: any AxisLayoutStrategy {
        get { inner[.bottom]! } set { inner[.bottom] = newValue }
    }
    public var leftInnerAxisLayoutStrategy: any AxisLayoutStrategy {
        get { inner[.left]! } set { inner[.left] = newValue }
    }
    public var rightInnerAxisLayoutStrategy: any AxisLayoutStrategy {
        get { inner[.right]! } set { inner[.right] = newValue }
    }

    public func layout(_ spec: ChartLayoutSpec, engine: ChartLayoutEngine) -> ChartLayout {
        var spec = spec
        // A floating axis without `positionAxis` floats on the first of the other direction.
        for i in spec.axes.indices where spec.axes[i].positionValue != nil && spec.axes[i].positionAxis == nil {
            let horizontal = spec.axes[i].alignment.isHorizontal
            spec.axes[i].positionAxis = spec.axes.first { $0.alignment.isHorizontal != horizontal }?.id
        }
        // Each pass measures every axis, and placing them makes their ticks once more: the
        // same ticks again wherever the plot came out the same, so they are made once.
        // (Axes are told apart by id, so only when their ids differ.)
        let engine = Set(spec.axes.map(\.id)).count == spec.axes.count ? engine.memoizingTicks(engine.earlierTicks) : engine
        defer { engine.earlierTicks?.finishLayout() }
        let canvas = Rect(x: 0, y: 0, width: spec.size.width, height: spec.size.height)
        let (title, content) = engine.placeTitle(spec, in: canvas.inset(by: spec.padding))

        // The axes of each strategy, in spec order, by index into spec.axes.
        var groups: [(strategy: any AxisLayoutStrategy, indices: [Int])] = []
        groups.reserveCapacity(2 * AxisAlignment.allCases.count)
        for a in AxisAlignment.allCases {
            for isInner in [false, true] {
                let indices = spec.axes.indices.filter { spec.axes[$0].alignment == a && spec.axes[$0].isCenterAxis == isInner }
                if !indices.isEmpty { groups.append(((isInner ? inner : outer)[a]!, indices)) }
            }
        }
        let outerAxes = spec.axes.filter { !$0.isCenterAxis }
        let outerSides = Set(outerAxes.map(\.alignment))
        // Strategies of the user's may read any axis' calculator; ours only for floating axes.
        let floating = spec.axes.contains { $0.positionValue != nil } || groups.contains {
            !($0.strategy is OuterAxisLayoutStrategy || $0.strategy is InnerAxisLayoutStrategy
              || $0.strategy is StackedAlongAxisLayoutStrategy)
        }

        // Every side an outer axis stands on, made once: each pass's state refills it in
        // place (the previous state is gone by then) instead of making a dictionary.
        var outerArea = Dictionary(uniqueKeysWithValues: outerSides.map { ($0, 0.0) })
        func state(_ viewport: Rect, _ thickness: [Double]) -> ChartLayoutState {
            for side in outerSides { outerArea[side] = 0 }
            for (i, a) in spec.axes.enumerated() where !a.isCenterAxis { outerArea[a.alignment]! += thickness[i] }
            // (Calculators only where something reads them.)
            var calcs: [String: CoordinateCalculator] = [:]
            if floating { for a in spec.axes { calcs[a.id] = engine.calculator(a, plot: viewport) } }
            var s = ChartLayoutState(canvas: canvas, content: content, viewport: viewport, calculators: calcs, outerAreaSize: outerArea)
            s.axisSpacing = spec.axisSpacing
            return s
        }
        func measured(_ indices: [Int], _ thickness: [Double]) -> [MeasuredAxis] {
            indices.map { MeasuredAxis(spec: spec.axes[$0], thickness: thickness[$0]) }
        }
        func viewport(_ thickness: [Double], reserve: EdgeInsets) -> Rect {
            let area = content.inset(by: reserve)
            let s = state(area, thickness)
            var room = EdgeInsets()
            for g in groups {
                let r = g.strategy.measure(measured(g.indices, thickness), state: s)
                switch spec.axes[g.indices[0]].alignment {
                case .top: room.top += r
                case .left: room.left += r
                case .bottom: room.bottom += r
                case .right: room.right += r
                }
            }
            var plot = area.inset(by: room)
            // On a canvas too small for its axes the plot collapses, but stays on it.
            plot.x = min(plot.x, area.maxX)
            plot.y = min(plot.y, area.maxY)
            return plot
        }

        var thickness = [Double](repeating: 0, count: spec.axes.count)
        var reserve = EdgeInsets()
        var plot = content
        var passes = 0
        while passes < maxPasses {
            passes += 1
            plot = viewport(thickness, reserve: reserve)
            let next = spec.axes.map { engine.measure($0, plot: plot) }
            let overhang = engine.labelOverhang(outerAxes, plot: plot, padding: spec.padding,
                                                hasTitle: title != nil, sides: outerSides)
            if next == thickness && overhang == reserve { break }
            thickness = next
            reserve = overhang
            if passes == maxPasses { plot = viewport(thickness, reserve: reserve) }
        }

        let s = state(plot, thickness)
        var bands = [Rect](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: spec.axes.count)
        for g in groups {
            for (i, band) in zip(g.indices, g.strategy.layout(measured(g.indices, thickness), state: s)) { bands[i] = band }
        }
        var axes = spec.axes.indices.map { engine.place(spec.axes[$0], band: bands[$0], plot: plot, canvas: canvas) }
        // A floating axis with fixed labels: its ticks and labels at the edge, its line
        // at the value.
        for i in spec.axes.indices where spec.axes[i].labelsAreFixed && spec.axes[i].isCenterAxis {
            axes[i].line = InnerAxisLayoutStrategy.positionLine(of: spec.axes[i], state: s)
        }
        return ChartLayout(size: spec.size, plotRect: plot, title: title, axes: axes, passes: passes)
    }
}

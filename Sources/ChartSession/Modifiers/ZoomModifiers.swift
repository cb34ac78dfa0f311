import Foundation
import LayoutEngine

/// Drag to pan (SciChart's `ZoomPanModifier`): the data under the pointer stays under
/// it. Acts on the X axes, the Y axes or both (`direction`), from drags that start
/// inside the plot. Released while moving fast, the chart glides on (momentum): the
/// server runs the decaying steps, every viewer sees them.
public final class ZoomPanModifier: GestureModifierBase {
    public override var kind: String { "zoomPan" }
    public var direction: ModifierDirection
    /// Glide after a fling (ShinobiCharts' panning momentum).
    public var momentum: Bool
    /// How fast a glide slows: its speed falls by e^(-friction · seconds).
    public var friction: Double

    /// What a pan does at the ends of an X axis' data (SciChart's `ClipModeX`). The
    /// extents are the axis' `panLimits` when it has them, else its data together with
    /// the range zooming to extents shows (its padding). A pan that starts beyond them
    /// may still move back towards them.
    public enum ClipMode: String, CaseIterable, Sendable {
        /// The range stops at the extents, its span kept (the default).
        case clipAtExtents
        /// The end at the extent stays; the other end moves on, so the range narrows
        /// (the data stretches), down to a hundredth of the extents.
        case stretchAtExtents
        /// No clipping: the chart can be flung off its data (the axis' `panLimits`
        /// still hold).
        case none
    }
    /// Clips drags and glides along X axes. A glide (never a drag) also stops at a Y
    /// axis' extents unless the mode is `none`.
    public var clipMode: ClipMode

    private var drags: Set<ViewerID> = []
    private struct Glide { var velocity: Point; var last: Double?; var layout: () -> ChartLayout }
    private var glides: [ViewerID: Glide] = [:]

    public init(direction: ModifierDirection = .xy, momentum: Bool = true, friction: Double = 5, clipMode: ClipMode = .clipAtExtents) {
        self.direction = direction; self.momentum = momentum; self.friction = friction; self.clipMode = clipMode
        super.init()
    }

    /// Drags under way (tests).
    public var activeDrags: Int { drags.count }
    public var isGliding: Bool { !glides.isEmpty }
    public override var consumes: Set<ConsumedInput> { [.drag] }
    public override var needsClock: Bool { super.needsClock || !glides.isEmpty }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        let viewer = args.viewer
        switch gesture {
        case let .pan(.began, _, translation, start):
            guard args.layout.plotRect.contains(start) else { return false }
            // A drag with a box zoom's key held is the box zoom's, whatever the order.
            if let chart = parentSurface, chart.modifiers.contains(where: {
                ($0 as? RubberBandXyZoomModifier).map { $0.isEnabled && $0.keyHeld(args) } ?? false
            }) { return false }
            glides[viewer] = nil
            drags.insert(viewer)
            parentSurface?.emit(.panStarted(viewer: viewer))
            pan(by: translation, layout: args.layout)
            return true
        case let .pan(.changed, _, translation, _):
            guard drags.contains(viewer) else { return false }
            pan(by: translation, layout: args.layout)
            parentSurface?.emit(.panning(viewer: viewer))
            return true
        case let .pan(phase, _, translation, _):
            guard drags.remove(viewer) != nil else { return false }
            if phase == .ended { pan(by: translation, layout: args.layout) }
            parentSurface?.emit(.panEnded(viewer: viewer))
            return true
        case let .fling(_, velocity):
            guard momentum else { return false }
            let layoutNow = args.layoutProvider
            glides[viewer] = Glide(velocity: velocity, last: nil, layout: layoutNow)
            return true
        case .tap:
            // A touch stops a glide.
            return glides.removeValue(forKey: viewer) != nil
        default:
            return false
        }
    }

    public override func onClock(_ now: Double) {
        super.onClock(now)
        for (viewer, var g) in glides {
            guard let last = g.last else { g.last = now; glides[viewer] = g; continue }
            let dt = min(0.1, max(0, now - last))
            g.last = now
            let decay = exp(-friction * dt)
            // The distance covered while the speed decays over dt.
            let k = friction > 0 ? (1 - decay) / friction : dt
            pan(by: Point(x: g.velocity.x * k, y: g.velocity.y * k), layout: g.layout(), gliding: true)
            g.velocity = Point(x: g.velocity.x * decay, y: g.velocity.y * decay)
            glides[viewer] = hypot(g.velocity.x, g.velocity.y) < 20 ? nil : g
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) {
        super.viewerLeft(viewer)
        drags.remove(viewer); glides[viewer] = nil
    }

    private func pan(by t: Point, layout: ChartLayout, gliding: Bool = false) {
        guard t.x != 0 || t.y != 0, let chart = parentSurface else { return }
        for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
            guard axis.isXAxis ? direction.includesX : direction.includesY, axis.config.gesturePanning else { continue }
            let d = l.alignment.isHorizontal ? t.x : t.y
            guard d != 0 else { continue }
            var range = l.calculator.range(pannedFrom: 0, to: d)
            if clipMode != .none, axis.isXAxis || gliding, let e = Self.extents(axis, chart) {
                // In the axis' own measure (powers on a log axis, shown stretches on a
                // discontinuous one), where a pan keeps the span.
                let c = l.calculator
                func t(_ r: DoubleRange) -> DoubleRange { DoubleRange(c.transformed(r.min), c.transformed(r.max)) }
                let clipped = Self.clipped(t(range), from: t(c.range), to: t(e), stretch: axis.isXAxis && clipMode == .stretchAtExtents)
                if clipped != t(range) {
                    // An end held at an extent is the extent itself, not its round trip.
                    func back(_ v: Double) -> Double { v == c.transformed(e.min) ? e.min : v == c.transformed(e.max) ? e.max : c.untransformed(v) }
                    range = DoubleRange(back(clipped.min), back(clipped.max))
                }
            }
            chart.setUserRange(axis.id, range)
        }
    }

    /// The range a pan is clipped to: the pan limits, or the data with the axis' home
    /// range (nil without data: nothing to clip to).
    static func extents(_ axis: Axis, _ chart: Chart) -> DoubleRange? {
        if let p = axis.config.panLimits { return p }
        guard let data = chart.dataRange(axis.id) else { return nil }
        guard let home = chart.defaultRange(axis.id) else { return data }
        return DoubleRange(min(data.min, home.min), max(data.max, home.max))
    }

    /// `range`, panned from `old`, kept to the extents `e`: a range narrower than them
    /// stays inside, a wider one keeps covering them. It never moves further out than
    /// `old` was (a pan from beyond the extents may come back). With `stretch` the end
    /// at an extent holds while the other moves on.
    static func clipped(_ range: DoubleRange, from old: DoubleRange, to e: DoubleRange, stretch: Bool) -> DoubleRange {
        let span = range.span
        let up = range.min > old.min
        if span <= e.span {
            if up {
                let top = max(e.max, old.max)
                guard range.max > top else { return range }
                if stretch { return DoubleRange(min(range.min, top - e.span / 100), top) }
                return DoubleRange(top - span, top)
            }
            let bottom = min(e.min, old.min)
            guard range.min < bottom else { return range }
            if stretch { return DoubleRange(bottom, max(range.max, bottom + e.span / 100)) }
            return DoubleRange(bottom, bottom + span)
        }
        // Wider than the extents: it keeps all of them in view.
        if up {
            let limit = max(e.min, old.min)
            return range.min > limit ? DoubleRange(limit, limit + span) : range
        }
        let limit = min(e.max, old.max)
        return range.max < limit ? DoubleRange(limit - span, limit) : range
    }
}

/// The wheel zooms about the pointer (SciChart's `MouseWheelZoomModifier`): the value
/// under the pointer stays put while the range around it grows or shrinks. Scrolling
/// down (positive deltaY) zooms out. With shift held it acts in the other direction.
public final class MouseWheelZoomModifier: GestureModifierBase {
    public override var kind: String { "mouseWheelZoom" }
    public var direction: ModifierDirection
    /// Zoom factor per 100 pixels of wheel travel.
    public var stepFactor: Double

    public init(direction: ModifierDirection = .x, stepFactor: Double = 1.2) {
        self.direction = direction; self.stepFactor = stepFactor
        super.init()
    }

    public override var consumes: Set<ConsumedInput> { [.wheel] }

    public override func onWheel(_ event: WheelEvent, args: ModifierEventArgs) -> Bool {
        let layout = args.layout
        guard let chart = parentSurface, layout.plotRect.contains(Point(x: event.x, y: event.y)), event.deltaY != 0 else { return false }
        // Clamp a single event to ±500 px so a burst cannot collapse the range.
        let delta = max(-500, min(500, event.deltaY))
        let factor = pow(stepFactor, delta / 100)
        let acting = event.shift ? direction.swapped : direction
        for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
            guard axis.isXAxis ? acting.includesX : acting.includesY, axis.config.gestureZooming else { continue }
            let pixel = l.alignment.isHorizontal ? event.x : event.y
            chart.setUserRange(axis.id, l.calculator.range(zoomedBy: factor, aboutPixel: pixel))
        }
        chart.emit(.zoomed(viewer: args.viewer))
        return true
    }
}

/// Two fingers zoom about their centre and pan with it (SciChart's
/// `PinchZoomModifier`). With `aspectLock` both directions zoom by the change of the
/// fingers' distance; without, X by their spread across and Y by their spread down.
public final class PinchZoomModifier: GestureModifierBase {
    public override var kind: String { "pinchZoom" }
    public var direction: ModifierDirection
    public var aspectLock: Bool
    /// Zoom on after the fingers leave while spreading or closing fast (ShinobiCharts'
    /// zoom momentum), slowing by e^(-friction · s).
    public var momentum = true
    public var friction = 6.0
    /// Per viewer: the pinch under way, its centre, and how fast its scale changed
    /// (natural log a second, the page's clock).
    private var pinches: [ViewerID: (centre: Point, rate: Double, time: Double?)] = [:]
    private var glides: [ViewerID: (centre: Point, rate: Double, last: Double?, layout: () -> ChartLayout)] = [:]

    public init(direction: ModifierDirection = .xy, aspectLock: Bool = false) {
        self.direction = direction; self.aspectLock = aspectLock
        super.init()
    }

    public override var consumes: Set<ConsumedInput> { [.pinch] }
    public override var needsClock: Bool { super.needsClock || !glides.isEmpty }

    public override func onClock(_ now: Double) {
        super.onClock(now)
        for (viewer, var g) in glides {
            guard let last = g.last else { g.last = now; glides[viewer] = g; continue }
            let dt = min(0.1, max(0, now - last))
            let decay = exp(-friction * dt)
            let logScale = g.rate * (1 - decay) / friction
            zoom(scale: exp(logScale), scaleX: exp(logScale), scaleY: exp(logScale), about: g.centre, moved: Point(x: 0, y: 0),
                 layout: g.layout())
            g.rate *= decay
            g.last = now
            glides[viewer] = abs(g.rate) < 0.05 ? nil : g
        }
    }

    private func zoom(scale: Double, scaleX: Double, scaleY: Double, about centre: Point, moved translation: Point, layout: ChartLayout) {
        guard let chart = parentSurface else { return }
        for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
            guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
            let zooms = axis.config.gestureZooming, pans = axis.config.gesturePanning
            guard zooms || pans else { continue }
            let across = l.alignment.isHorizontal
            let s = zooms ? (aspectLock ? scale : (across ? scaleX : scaleY)) : 1
            // Zoom about where the centre was, then follow its move.
            let c = across ? centre.x : centre.y, d = pans ? (across ? translation.x : translation.y) : 0
            var range = l.calculator.range(zoomedBy: 1 / max(0.2, min(5, s)), aboutPixel: c - d)
            if d != 0 {
                let zoomed = CoordinateCalculator(range: range, pixelStart: l.calculator.pixelStart, pixelEnd: l.calculator.pixelEnd,
                                                  logBase: l.calculator.logBase, breaks: l.calculator.breaks)
                range = zoomed.range(pannedFrom: 0, to: d)
            }
            chart.setUserRange(axis.id, range)
        }
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .pinch(phase, centre, scale, scaleX, scaleY, translation) = gesture, let chart = parentSurface else { return false }
        let time = args.input.time / 1000
        switch phase {
        case .began:
            guard args.layout.plotRect.contains(centre) else { return false }
            glides[args.viewer] = nil
            pinches[args.viewer] = (centre, 0, time)
            chart.emit(.zoomStarted(viewer: args.viewer))
            return true
        case .changed:
            guard var p = pinches[args.viewer] else { return false }
            zoom(scale: scale, scaleX: scaleX, scaleY: scaleY, about: centre, moved: translation, layout: args.layout)
            if let t0 = p.time, time - t0 > 0.001 {
                // Smoothed: recent steps count most.
                p.rate = 0.5 * p.rate + 0.5 * log(max(0.2, min(5, scale))) / (time - t0)
            }
            p.centre = centre; p.time = time
            pinches[args.viewer] = p
            chart.emit(.zooming(viewer: args.viewer))
            return true
        case .ended, .cancelled:
            guard let p = pinches.removeValue(forKey: args.viewer) else { return false }
            if phase == .ended, momentum, abs(p.rate) > 0.5, let t0 = p.time, time - t0 < 0.1 {
                glides[args.viewer] = (p.centre, p.rate, nil, args.layoutProvider)
            }
            chart.emit(.zoomEnded(viewer: args.viewer))
            return true
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); pinches[viewer] = nil; glides[viewer] = nil }
}

/// Double tap (or double click) zooms to the extents (SciChart's
/// `ZoomExtentsModifier`): every axis back to its automatic range, the whole data or,
/// on a scrolling chart, the window following the newest points, in an animation of
/// `duration` seconds the server runs (0: at once). In `zoomIn` mode a double tap zooms
/// in by 2 about the point instead (with shift: out).
public final class ZoomExtentsModifier: GestureModifierBase {
    public enum Mode: String, CaseIterable, Sendable { case extents, zoomIn }
    public override var kind: String { "zoomExtents" }
    public var mode: Mode
    public var duration: Double
    private var flight: (from: [String: DoubleRange], to: [String: DoubleRange], start: Double?)?

    public init(mode: Mode = .extents, duration: Double = 0.3) { self.mode = mode; self.duration = duration; super.init() }

    public override var needsClock: Bool { super.needsClock || flight != nil }
    public var isAnimating: Bool { flight != nil }

    public override func onHandledElsewhere(_ args: ModifierEventArgs) {
        super.onHandledElsewhere(args)
        // Someone pans or zooms meanwhile: their gesture wins.
        if case let .pointer(e) = args.input, e.phase == .move { flight = nil }
        if case .wheel = args.input { flight = nil }
    }

    public override func onClock(_ now: Double) {
        super.onClock(now)
        guard var f = flight, let chart = parentSurface else { return }
        let start = f.start ?? now
        f.start = start
        let t = SeriesAnimation.Curve.easeInOut((now - start) / max(duration, 1e-9))
        if t >= 1 {
            // There: back to the automatic ranges themselves (a scrolling chart follows again).
            flight = nil
            chart.resetUserRanges()
            return
        }
        flight = f
        chart.suspendUpdates {
            for (id, a) in f.from {
                guard let b = f.to[id], let axis = chart.axis(id) else { continue }
                let log = axis.config.type == .logarithmic && a.min > 0 && b.min > 0
                func mix(_ u: Double, _ v: Double) -> Double { log ? exp(Foundation.log(u) + (Foundation.log(v) - Foundation.log(u)) * t) : u + (v - u) * t }
                chart.setUserRange(id, DoubleRange(mix(a.min, b.min), mix(a.max, b.max)))
            }
        }
    }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .doubleTap(p) = gesture, let chart = parentSurface else { return false }
        switch mode {
        case .extents:
            let from = chart.resolvedRanges()
            chart.resetUserRanges()
            let to = chart.resolvedRanges()
            if duration > 0, from != to {
                // Back where it was, then there step by step on the clock.
                chart.suspendUpdates { for (id, r) in from { chart.setUserRange(id, r) } }
                flight = (from, to, nil)
            }
            chart.emit(.rangesReset(viewer: args.viewer))
        case .zoomIn:
            let layout = args.layout
            guard layout.plotRect.contains(p) else { return false }
            for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) where axis.config.gestureZooming {
                chart.setUserRange(axis.id, l.calculator.range(zoomedBy: args.input.shift ? 2 : 0.5,
                                                                aboutPixel: l.alignment.isHorizontal ? p.x : p.y))
            }
            chart.emit(.zoomed(viewer: args.viewer))
        }
        return true
    }
}

/// Drag a box to zoom into it (SciChart's `RubberBandXyZoomModifier`). The box is
/// drawn in the dragging viewer's own layer. It is told apart from a pan by a key:
/// by default a drag with shift held is a box zoom (`key`), a plain drag pans (when a
/// `zoomPan` comes after it in the modifier list); with `key` `none` every drag is.
public final class RubberBandXyZoomModifier: GestureModifierBase {
    public enum Key: String, CaseIterable, Sendable { case shift, alt, ctrl, none }
    public override var kind: String { "rubberBandZoom" }
    public var direction: ModifierDirection
    public var key: Key
    public var fill = "rgba(76,143,214,0.15)"
    public var stroke = "#4c8fd6"
    /// The smallest box (px along a direction) that zooms; smaller ones do nothing.
    public var minimumSize = 4.0
    private var boxes: [ViewerID: (start: Point, end: Point)] = [:]

    public init(direction: ModifierDirection = .xy, key: Key = .shift) {
        self.direction = direction; self.key = key
        super.init()
    }

    public override var consumes: Set<ConsumedInput> { [.drag] }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .pan(phase, location, _, start) = gesture, let chart = parentSurface else { return false }
        let viewer = args.viewer
        let plot = args.layout.plotRect
        func clamped(_ p: Point) -> Point { Point(x: min(max(p.x, plot.minX), plot.maxX), y: min(max(p.y, plot.minY), plot.maxY)) }
        switch phase {
        case .began:
            guard keyHeld(args), plot.contains(start) else { return false }
            boxes[viewer] = (start, clamped(location))
            chart.emit(.zoomStarted(viewer: viewer))
        case .changed:
            guard boxes[viewer] != nil else { return false }
            boxes[viewer]!.end = clamped(location)
        case .ended, .cancelled:
            guard let box = boxes.removeValue(forKey: viewer) else { return false }
            if phase == .ended { zoom(to: box.start, clamped(location), layout: args.layout) }
            chart.emit(.zoomEnded(viewer: viewer))
        }
        invalidateOverlay(viewer)
        return true
    }

    /// The event comes with this modifier's key held.
    func keyHeld(_ args: ModifierEventArgs) -> Bool {
        switch key {
        case .shift: return args.input.shift
        case .alt: return args.input.alt
        case .ctrl: return args.input.ctrl
        case .none: return true
        }
    }

    private func zoom(to a: Point, _ b: Point, layout: ChartLayout) {
        guard let chart = parentSurface else { return }
        chart.suspendUpdates {
            for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
                guard axis.isXAxis ? direction.includesX : direction.includesY, axis.config.gestureZooming else { continue }
                let across = l.alignment.isHorizontal
                let (p, q) = across ? (a.x, b.x) : (a.y, b.y)
                guard abs(p - q) >= minimumSize else { continue }
                let u = l.calculator.value(p), v = l.calculator.value(q)
                chart.setUserRange(axis.id, DoubleRange(min(u, v), max(u, v)))
            }
        }
    }

    public override func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] {
        guard let box = boxes[viewer] else { return [] }
        let plot = layout.plotRect
        // Only the acting directions narrow: the others span the plot.
        let x0 = direction.includesX ? min(box.start.x, box.end.x) : plot.minX
        let x1 = direction.includesX ? max(box.start.x, box.end.x) : plot.maxX
        let y0 = direction.includesY ? min(box.start.y, box.end.y) : plot.minY
        let y1 = direction.includesY ? max(box.start.y, box.end.y) : plot.maxY
        return [.rect(x: Float(x0), y: Float(y0), w: Float(x1 - x0), h: Float(y1 - y0), fill: fill, stroke: stroke, lineWidth: 1)]
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); boxes[viewer] = nil }
}

/// Drag along an axis to scale it (SciChart's `AxisDragModifier`): the axis' range
/// stretches or shrinks about its start (`scale`), or moves (`pan`); the others stay.
public final class AxisDragModifier: GestureModifierBase {
    public enum DragMode: String, CaseIterable, Sendable { case scale, pan }
    public override var kind: String { "axisDrag" }
    public var dragMode: DragMode
    /// Range factor per 100 px of drag (scale mode).
    public var factor = 2.0
    private var drags: [ViewerID: String] = [:]

    public init(dragMode: DragMode = .scale) { self.dragMode = dragMode; super.init() }

    public override var consumes: Set<ConsumedInput> { [.drag] }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .pan(phase, _, translation, start) = gesture, let chart = parentSurface else { return false }
        let layout = args.layout
        if phase == .began {
            guard let hit = layout.axes.first(where: { $0.rect.contains(start) && chart.axis($0.id) != nil }),
                  let config = chart.axis(hit.id)?.config else { return false }
            // An axis whose gesture is off is not taken (scaling zooms it, panning pans it).
            guard dragMode == .scale ? config.gestureZooming : config.gesturePanning else { return false }
            drags[args.viewer] = hit.id
        }
        guard let id = drags[args.viewer], let l = layout.axis(id) else { return false }
        if phase == .ended || phase == .cancelled { drags[args.viewer] = nil }
        let horizontal = l.alignment.isHorizontal
        // Along the axis, in the direction its values grow.
        let d = horizontal ? translation.x : translation.y
        guard d != 0 else { return true }
        switch dragMode {
        case .scale:
            let grows = (l.calculator.pixelEnd - l.calculator.pixelStart) * d > 0
            let f = pow(factor, (grows ? -1 : 1) * abs(d) / 100)
            chart.setUserRange(id, l.calculator.range(zoomedBy: f, aboutPixel: l.calculator.pixelStart))
        case .pan:
            chart.setUserRange(id, l.calculator.range(pannedFrom: 0, to: d))
        }
        return true
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); drags[viewer] = nil }
}

/// Drag a pie or donut round its centre to turn it (ShinobiCharts' radial
/// `gesturePanningEnabled`); released while turning, it spins on and slows by
/// `rotationFriction` (its speed falls by e^(-friction · seconds)).
public final class PieRotationModifier: GestureModifierBase {
    public override var kind: String { "pieRotation" }
    public var rotationFriction: Double
    /// A tap on a spinning pie selects a slice too (ShinobiCharts'
    /// `selectionEnabledDuringPanning`); otherwise it only stops the spin.
    public var selectionEnabledDuringPanning = false
    private var turning: [ViewerID: (seriesId: String, last: Point, centre: Point, rate: Double, time: Double)] = [:]
    private var spins: [String: (rate: Double, last: Double?)] = [:]

    public init(rotationFriction: Double = 3) { self.rotationFriction = rotationFriction; super.init() }

    public override var consumes: Set<ConsumedInput> { [.drag] }
    public override var needsClock: Bool { super.needsClock || !spins.isEmpty }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard let chart = parentSurface else { return false }
        switch gesture {
        case let .pan(.began, location, _, start):
            let plot = args.layout.plotRect
            guard let s = chart.series.first(where: { $0.kind.isRadial && !$0.isHidden }),
                  PieRenderer.slice(at: start, series: s, plot: plot, palette: chart.theme.palette) != nil else { return false }
            spins[s.id] = nil
            turning[args.viewer] = (s.id, start, Point(x: plot.midX, y: plot.midY), 0, args.input.time)
            chart.emit(.radialPanStarted(viewer: args.viewer, series: s.id))
            return turn(args.viewer, to: location, time: args.input.time)
        case let .pan(.changed, location, _, _):
            return turn(args.viewer, to: location, time: args.input.time)
        case .pan(.ended, _, _, _), .pan(.cancelled, _, _, _):
            guard let t = turning.removeValue(forKey: args.viewer) else { return false }
            if abs(t.rate) > 30 { spins[t.seriesId] = (t.rate, nil) }
            let rotation = chart.seriesIndex(t.seriesId).map { chart.series[$0].style.rotation } ?? 0
            chart.emit(.radialPanEnded(viewer: args.viewer, series: t.seriesId, rotation: rotation))
            return true
        case .tap:
            // A tap stops a spin (and selects only when allowed during panning).
            guard !spins.isEmpty else { return false }
            spins = [:]
            return !selectionEnabledDuringPanning
        default:
            return false
        }
    }

    /// Turns by the angle the pointer swept about the centre; returns whether it did.
    private func turn(_ viewer: ViewerID, to p: Point, time: Double) -> Bool {
        guard var t = turning[viewer], let chart = parentSurface else { return false }
        let a0 = atan2(t.last.x - t.centre.x, -(t.last.y - t.centre.y)), a1 = atan2(p.x - t.centre.x, -(p.y - t.centre.y))
        var delta = (a1 - a0) * 180 / .pi
        if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
        chart.rotatePie(t.seriesId, by: delta)
        if let i = chart.seriesIndex(t.seriesId) {
            chart.emit(.radialPanning(viewer: viewer, series: t.seriesId, rotation: chart.series[i].style.rotation))
        }
        let dt = (time - t.time) / 1000
        if dt > 0 { t.rate = delta / dt }
        t.last = p; t.time = time
        turning[viewer] = t
        return true
    }

    public override func onClock(_ now: Double) {
        super.onClock(now)
        guard let chart = parentSurface else { return }
        for (id, var s) in spins {
            guard let last = s.last else { s.last = now; spins[id] = s; continue }
            let dt = min(0.1, max(0, now - last))
            let decay = exp(-rotationFriction * dt)
            chart.rotatePie(id, by: s.rate * (1 - decay) / max(rotationFriction, 1e-9))
            s.rate *= decay
            s.last = now
            spins[id] = abs(s.rate) < 5 ? nil : s
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); turning[viewer] = nil }
}

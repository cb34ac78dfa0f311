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

    private var drags: Set<ViewerID> = []
    private struct Glide { var velocity: Point; var last: Double?; var layout: () -> ChartLayout }
    private var glides: [ViewerID: Glide] = [:]

    public init(direction: ModifierDirection = .xy, momentum: Bool = true, friction: Double = 5) {
        self.direction = direction; self.momentum = momentum; self.friction = friction
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
            pan(by: Point(x: g.velocity.x * k, y: g.velocity.y * k), layout: g.layout())
            g.velocity = Point(x: g.velocity.x * decay, y: g.velocity.y * decay)
            glides[viewer] = hypot(g.velocity.x, g.velocity.y) < 20 ? nil : g
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) {
        super.viewerLeft(viewer)
        drags.remove(viewer); glides[viewer] = nil
    }

    private func pan(by t: Point, layout: ChartLayout) {
        guard t.x != 0 || t.y != 0, let chart = parentSurface else { return }
        for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
            guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
            let d = l.alignment.isHorizontal ? t.x : t.y
            guard d != 0 else { continue }
            chart.setUserRange(axis.id, l.calculator.range(pannedFrom: 0, to: d))
        }
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
            guard axis.isXAxis ? acting.includesX : acting.includesY else { continue }
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
    private var pinches: Set<ViewerID> = []

    public init(direction: ModifierDirection = .xy, aspectLock: Bool = false) {
        self.direction = direction; self.aspectLock = aspectLock
        super.init()
    }

    public override var consumes: Set<ConsumedInput> { [.pinch] }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .pinch(phase, centre, scale, scaleX, scaleY, translation) = gesture, let chart = parentSurface else { return false }
        switch phase {
        case .began:
            guard args.layout.plotRect.contains(centre) else { return false }
            pinches.insert(args.viewer)
            chart.emit(.zoomStarted(viewer: args.viewer))
            return true
        case .changed:
            guard pinches.contains(args.viewer) else { return false }
            let layout = args.layout
            for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
                guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
                let across = l.alignment.isHorizontal
                let s = aspectLock ? scale : (across ? scaleX : scaleY)
                // Zoom about where the centre was, then follow its move.
                let c = across ? centre.x : centre.y, d = across ? translation.x : translation.y
                var range = l.calculator.range(zoomedBy: 1 / max(0.2, min(5, s)), aboutPixel: c - d)
                if d != 0 {
                    let zoomed = CoordinateCalculator(range: range, pixelStart: l.calculator.pixelStart, pixelEnd: l.calculator.pixelEnd,
                                                      logBase: l.calculator.logBase, breaks: l.calculator.breaks)
                    range = zoomed.range(pannedFrom: 0, to: d)
                }
                chart.setUserRange(axis.id, range)
            }
            return true
        case .ended, .cancelled:
            guard pinches.remove(args.viewer) != nil else { return false }
            chart.emit(.zoomEnded(viewer: args.viewer))
            return true
        }
    }

    public override func viewerLeft(_ viewer: ViewerID) { super.viewerLeft(viewer); pinches.remove(viewer) }
}

/// Double tap (or double click) zooms to the extents (SciChart's
/// `ZoomExtentsModifier`): every axis back to its automatic range, the whole data or,
/// on a scrolling chart, the window following the newest points. In `zoomIn` mode a
/// double tap zooms in by 2 about the point instead (with shift: out).
public final class ZoomExtentsModifier: GestureModifierBase {
    public enum Mode: String, CaseIterable, Sendable { case extents, zoomIn }
    public override var kind: String { "zoomExtents" }
    public var mode: Mode

    public init(mode: Mode = .extents) { self.mode = mode; super.init() }

    public override func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool {
        guard case let .doubleTap(p) = gesture, let chart = parentSurface else { return false }
        switch mode {
        case .extents:
            chart.resetUserRanges()
            chart.emit(.rangesReset(viewer: args.viewer))
        case .zoomIn:
            let layout = args.layout
            guard layout.plotRect.contains(p) else { return false }
            for (axis, l) in axisLayouts(x: true, in: layout) + axisLayouts(x: false, in: layout) {
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
                guard axis.isXAxis ? direction.includesX : direction.includesY else { continue }
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

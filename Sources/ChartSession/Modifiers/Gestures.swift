import Foundation
import LayoutEngine

/// Where a continuous gesture is.
public enum GesturePhase: String, Sendable { case began, changed, ended, cancelled }

/// A gesture recognised on the server from one viewer's raw pointer stream (SciChart's
/// gesture modifiers; UIKit's recognisers). Points are CSS px from the canvas' top left.
public enum Gesture: Equatable, Sendable {
    /// A press and release without moving, quickly.
    case tap(Point)
    /// A second tap soon after the first, near it (the first was reported as a tap).
    case doubleTap(Point)
    /// A press held still (`began`), then moved (`changed`) and released (`ended`).
    case longPress(GesturePhase, Point)
    /// One pointer dragged: `translation` since the previous report, from `start`.
    case pan(GesturePhase, location: Point, translation: Point, start: Point)
    /// Two pointers: `scale` (and `scaleX`, `scaleY`, the spread along each axis) since
    /// the previous report, about `centre`; `translation` of the centre since then.
    case pinch(GesturePhase, centre: Point, scale: Double, scaleX: Double, scaleY: Double, translation: Point)
    /// A pan released while moving fast: its velocity, px/s.
    case fling(location: Point, velocity: Point)
    /// A mouse (or pen) moving with no button down; `nil` when it left the canvas.
    case hover(Point?)
}

/// Turns one viewer's pointer events into gestures. Time comes from the events (the
/// page's clock, ms) except for the long press, which the session's clock fires.
public struct GestureRecognizer: Sendable {
    /// Movement (px) below which a press is still a tap or a long press.
    public var slop = 6.0
    /// Longest tap, s; the press a long press needs, s.
    public var tapTime = 0.35
    public var longPressTime = 0.5
    /// Longest gap between the taps of a double tap, s, and their greatest distance, px.
    public var doubleTapTime = 0.35
    public var doubleTapDistance = 24.0
    /// Speed (px/s) above which a released pan flings.
    public var flingSpeed = 700.0

    struct Contact: Sendable {
        var start: Point
        var last: Point
        var startTime: Double
        /// Recent (time, point) samples, for the release velocity.
        var samples: [(Double, Point)]
        var moved = false
        /// Session clock when the press was first seen by the clock (long press).
        var clockStart: Double?
    }

    private var contacts: [Int: Contact] = [:]
    private var order: [Int] = []
    private var panning = false
    private var pinching = false
    private var longPressing = false
    private var lastPinch: (distance: Double, dx: Double, dy: Double, centre: Point)?
    private var lastTap: (time: Double, point: Point)?
    /// When (the page's clock, s) the pointer stream last made a double tap.
    public private(set) var lastDoubleTapTime: Double?

    public init() {}

    /// A press is held that may become a long press: the clock must run.
    public var awaitsClock: Bool { contacts.count == 1 && !panning && !longPressing && !(contacts.first?.value.moved ?? true) }

    /// Feeds one pointer event; returns the gestures it completes or continues.
    public mutating func feed(_ e: PointerEvent) -> [Gesture] {
        let t = e.time / 1000
        switch e.phase {
        case .down:
            guard e.pointerType != .mouse || e.button == 0 else { return [] }
            var out: [Gesture] = []
            contacts[e.pointerId] = Contact(start: e.point, last: e.point, startTime: t, samples: [(t, e.point)])
            order.append(e.pointerId)
            if contacts.count == 2 {
                // A second finger: a pan or long press under way gives way to a pinch.
                if panning, let c = contacts[order[0]] {
                    out.append(.pan(.cancelled, location: c.last, translation: Point(x: 0, y: 0), start: c.start))
                    panning = false
                }
                if longPressing, let c = contacts[order[0]] { out.append(.longPress(.cancelled, c.last)); longPressing = false }
                pinching = true
                lastPinch = pinchGeometry()
                if let g = lastPinch { out.append(.pinch(.began, centre: g.centre, scale: 1, scaleX: 1, scaleY: 1, translation: Point(x: 0, y: 0))) }
            }
            return out
        case .move:
            guard var c = contacts[e.pointerId] else {
                return e.pointerType == .touch ? [] : [.hover(e.point)]
            }
            if e.pointerType == .mouse, e.buttons & 1 == 0 {
                // The button came up where we did not see it: end what was under way.
                return release(e, cancelled: true)
            }
            let previous = c.last
            c.last = e.point
            c.samples.append((t, e.point))
            if c.samples.count > 6 { c.samples.removeFirst(c.samples.count - 6) }
            if !c.moved, hypot(e.x - c.start.x, e.y - c.start.y) > slop { c.moved = true }
            contacts[e.pointerId] = c
            if pinching {
                guard let g = pinchGeometry(), let last = lastPinch else { return [] }
                lastPinch = g
                func ratio(_ a: Double, _ b: Double) -> Double { b > 1 && a > 1 ? a / b : 1 }
                return [.pinch(.changed, centre: g.centre, scale: ratio(g.distance, last.distance), scaleX: ratio(g.dx, last.dx),
                               scaleY: ratio(g.dy, last.dy), translation: Point(x: g.centre.x - last.centre.x, y: g.centre.y - last.centre.y))]
            }
            if longPressing { return [.longPress(.changed, e.point)] }
            guard c.moved else { return [] }
            let translation = Point(x: e.x - previous.x, y: e.y - previous.y)
            if !panning {
                panning = true
                // The pan starts where the press did: report the whole way so far.
                return [.pan(.began, location: e.point, translation: Point(x: e.x - c.start.x, y: e.y - c.start.y), start: c.start)]
            }
            return [.pan(.changed, location: e.point, translation: translation, start: c.start)]
        case .up, .cancel:
            return release(e, cancelled: e.phase == .cancel)
        }
    }

    private mutating func release(_ e: PointerEvent, cancelled: Bool) -> [Gesture] {
        guard let c = contacts.removeValue(forKey: e.pointerId) else {
            // A mouse or pen that was only hovering left the canvas.
            return e.pointerType != .touch && e.phase == .cancel ? [.hover(nil)] : []
        }
        order.removeAll { $0 == e.pointerId }
        let t = e.time / 1000
        var out: [Gesture] = []
        if pinching {
            if let g = lastPinch { out.append(.pinch(cancelled ? .cancelled : .ended, centre: g.centre, scale: 1, scaleX: 1, scaleY: 1, translation: Point(x: 0, y: 0))) }
            pinching = contacts.count >= 2
            lastPinch = pinching ? pinchGeometry() : nil
            // The finger left behind starts afresh (no pan jump).
            for id in contacts.keys { contacts[id]!.start = contacts[id]!.last; contacts[id]!.moved = true }
            return out
        }
        if longPressing {
            longPressing = false
            return [.longPress(cancelled ? .cancelled : .ended, e.phase == .up ? e.point : c.last)]
        }
        if panning {
            panning = false
            let last = Point(x: e.phase == .up ? e.x : c.last.x, y: e.phase == .up ? e.y : c.last.y)
            let translation = Point(x: last.x - c.last.x, y: last.y - c.last.y)
            out.append(.pan(cancelled ? .cancelled : .ended, location: last, translation: translation, start: c.start))
            if !cancelled, let v = velocity(c, endTime: t), hypot(v.x, v.y) >= flingSpeed {
                out.append(.fling(location: last, velocity: v))
            }
            return out
        }
        guard !cancelled, !c.moved, t - c.startTime <= tapTime else { return out }
        out.append(.tap(c.start))
        if let previous = lastTap, t - previous.time <= doubleTapTime,
           hypot(c.start.x - previous.point.x, c.start.y - previous.point.y) <= doubleTapDistance {
            out.append(.doubleTap(c.start))
            lastTap = nil
            lastDoubleTapTime = t
        } else {
            lastTap = (t, c.start)
        }
        return out
    }

    /// Advances the long-press timer to session clock time `now`.
    public mutating func clock(_ now: Double) -> [Gesture] {
        guard contacts.count == 1, !panning, !longPressing, let id = order.first, var c = contacts[id], !c.moved else { return [] }
        guard let start = c.clockStart else { c.clockStart = now; contacts[id] = c; return [] }
        guard now - start >= longPressTime else { return [] }
        longPressing = true
        return [.longPress(.began, c.last)]
    }

    /// Forgets everything under way (the viewer left).
    public mutating func reset() { self = GestureRecognizer() }

    /// Px/s over the last samples (the page's clock), nil without enough of them.
    private func velocity(_ c: Contact, endTime: Double) -> Point? {
        guard let first = c.samples.first, let last = c.samples.last, last.0 - first.0 > 0.005, endTime - last.0 < 0.1 else { return nil }
        let dt = last.0 - first.0
        return Point(x: (last.1.x - first.1.x) / dt, y: (last.1.y - first.1.y) / dt)
    }

    private func pinchGeometry() -> (distance: Double, dx: Double, dy: Double, centre: Point)? {
        guard order.count >= 2, let a = contacts[order[0]]?.last, let b = contacts[order[1]]?.last else { return nil }
        return (hypot(a.x - b.x, a.y - b.y), abs(a.x - b.x), abs(a.y - b.y), Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2))
    }
}

/// A modifier that works with gestures rather than raw pointers (SciChart's
/// `SCIGestureModifierBase`): each viewer's pointers go through a `GestureRecognizer`
/// and `onGesture` receives what it recognises. Wheel and double-click events go to
/// `onWheel` and `onGesture(.doubleTap)`.
open class GestureModifierBase: ChartModifierBase {
    private var recognizers: [ViewerID: GestureRecognizer] = [:]
    /// A template for each viewer's recogniser (thresholds).
    public var recognizer = GestureRecognizer()

    public override init() { super.init() }

    /// Handle a gesture: return true when it acts on it (the event is then handled).
    open func onGesture(_ gesture: Gesture, args: ModifierEventArgs) -> Bool { false }
    /// The long press fired by the clock (no event carries it): `layout` is the
    /// viewer's, as of the last event.
    open func onClockGesture(_ gesture: Gesture, viewer: ViewerID) {}
    open func onWheel(_ event: WheelEvent, args: ModifierEventArgs) -> Bool { false }

    open override func onEvent(_ args: ModifierEventArgs) {
        var handled = false
        switch args.input {
        case let .pointer(e):
            var r = recognizers[args.viewer] ?? recognizer
            let gestures = r.feed(e)
            recognizers[args.viewer] = r
            for g in gestures where onGesture(g, args: args) { handled = true }
        case let .wheel(e):
            handled = onWheel(e, args: args)
        case let .doubleClick(e):
            // The page reports a mouse's double click as well as its pointers: the same
            // as a double tap, unless the pointer stream has just made one.
            if let t = recognizers[args.viewer]?.lastDoubleTapTime, abs(e.time / 1000 - t) < 0.5 { break }
            handled = onGesture(.doubleTap(Point(x: e.x, y: e.y)), args: args)
        }
        if handled { args.isHandled = true }
    }

    open override func onHandledElsewhere(_ args: ModifierEventArgs) {
        // Keep the recogniser's picture of the pointers whole; act on nothing.
        guard case let .pointer(e) = args.input else { return }
        var r = recognizers[args.viewer] ?? recognizer
        _ = r.feed(e)
        recognizers[args.viewer] = r
    }

    open override var needsClock: Bool { recognizers.values.contains { $0.awaitsClock } }

    open override func onClock(_ now: Double) {
        for (viewer, var r) in recognizers {
            let gestures = r.clock(now)
            recognizers[viewer] = r
            for g in gestures { onClockGesture(g, viewer: viewer) }
        }
    }

    open override func viewerLeft(_ viewer: ViewerID) { recognizers[viewer] = nil }
}

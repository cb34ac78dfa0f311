import LayoutEngine

/// Gestures as the client reports them: CSS pixels relative to the canvas' top-left.
public struct PointerEvent: Equatable, Sendable {
    public enum Phase: String, CaseIterable, Sendable { case down, move, up, cancel }
    public enum PointerType: String, CaseIterable, Sendable { case mouse, touch, pen }

    public var phase: Phase
    public var x: Double
    public var y: Double
    /// The button that changed (0 primary, 1 middle, 2 secondary); -1 for moves.
    public var button: Int
    /// Bit mask of the buttons held (1 primary, 2 secondary, 4 middle).
    public var buttons: Int
    public var pointerId: Int
    public var pointerType: PointerType
    public var shift: Bool
    public var ctrl: Bool
    public var alt: Bool
    public var time: Double

    public init(phase: Phase, x: Double, y: Double, button: Int = 0, buttons: Int = 0, pointerId: Int = 1,
                pointerType: PointerType = .mouse, shift: Bool = false, ctrl: Bool = false, alt: Bool = false,
                time: Double = 0) {
        self.phase = phase; self.x = x; self.y = y; self.button = button; self.buttons = buttons
        self.pointerId = pointerId; self.pointerType = pointerType; self.shift = shift; self.ctrl = ctrl
        self.alt = alt; self.time = time
    }

    public var point: Point { Point(x: x, y: y) }
}

public struct WheelEvent: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var deltaX: Double
    public var deltaY: Double
    public var time: Double
    /// Keys held (beyond INTERFACE.md; the page sends them).
    public var shift: Bool
    public var ctrl: Bool
    public var alt: Bool
    public init(x: Double, y: Double, deltaX: Double = 0, deltaY: Double, time: Double = 0,
                shift: Bool = false, ctrl: Bool = false, alt: Bool = false) {
        self.x = x; self.y = y; self.deltaX = deltaX; self.deltaY = deltaY; self.time = time
        self.shift = shift; self.ctrl = ctrl; self.alt = alt
    }
}

public struct DoubleClickEvent: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var time: Double
    public init(x: Double, y: Double, time: Double = 0) { self.x = x; self.y = y; self.time = time }
}

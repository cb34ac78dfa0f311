import LayoutEngine

/// Identifies one viewer (one WebSocket connection) within a session.
public typealias ViewerID = Int

/// What a modifier sees when a gesture arrives: the shared chart, the layout of the
/// chart at the size of the viewer that sent the gesture (so pixels convert to data
/// with that viewer's axes), and who sent it.
public struct ModifierContext {
    public let chart: Chart
    public let layout: ChartLayout
    public let viewer: ViewerID

    /// The axes of one direction, with their layout at this viewer's size.
    public func axisLayouts(x: Bool) -> [(axis: Axis, layout: AxisLayout)] {
        chart.axes.filter { $0.isXAxis == x }.compactMap { axis in layout.axis(axis.id).map { (axis, $0) } }
    }
}

/// Which directions a modifier acts in.
public enum ModifierDirection: String, CaseIterable, Sendable {
    case x, y, xy
    public var includesX: Bool { self != .y }
    public var includesY: Bool { self != .x }
}

/// A server-side interaction: it receives gestures and changes the shared chart.
///
/// Modern charting libraries call this a chart modifier (SciChart's
/// `SCIChartModifierBase`): a pluggable behaviour attached to a chart. Here modifiers
/// run on the server; the client only forwards gestures. Modifiers receive events in
/// the order they are attached; an event a modifier handles (returns true for) is not
/// offered to the ones after it. Per-gesture state (a drag in progress) is kept per
/// viewer and pointer, because several people may steer the same chart at once.
public protocol ChartModifier: AnyObject {
    /// The name of the modifier in a chart spec (`"zoomPan"`).
    var kind: String { get }
    func pointer(_ event: PointerEvent, context: ModifierContext) -> Bool
    func wheel(_ event: WheelEvent, context: ModifierContext) -> Bool
    func doubleClick(_ event: DoubleClickEvent, context: ModifierContext) -> Bool
    /// The viewer left: forget any gesture it had in progress.
    func viewerLeft(_ viewer: ViewerID)
}

extension ChartModifier {
    public func pointer(_ event: PointerEvent, context: ModifierContext) -> Bool { false }
    public func wheel(_ event: WheelEvent, context: ModifierContext) -> Bool { false }
    public func doubleClick(_ event: DoubleClickEvent, context: ModifierContext) -> Bool { false }
    public func viewerLeft(_ viewer: ViewerID) {}
}

extension Chart {
    /// Offers an event to the modifiers in order until one handles it.
    func dispatch(_ handle: (any ChartModifier) -> Bool) -> Bool {
        for m in modifiers where handle(m) { return true }
        return false
    }
}

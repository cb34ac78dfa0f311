import LayoutEngine

/// Identifies one viewer (one WebSocket connection) within a session.
public typealias ViewerID = Int

/// Which directions a modifier acts in.
public enum ModifierDirection: String, CaseIterable, Sendable {
    case x, y, xy
    public var includesX: Bool { self != .y }
    public var includesY: Bool { self != .x }
    /// The other direction (x and y swap; xy stays).
    public var swapped: ModifierDirection { self == .x ? .y : self == .y ? .x : .xy }
}

/// What a viewer's input was, as the client reported it.
public enum ModifierInput: Equatable, Sendable {
    case pointer(PointerEvent)
    case wheel(WheelEvent)
    case doubleClick(DoubleClickEvent)

    /// A press, a wheel turn or a double click: input that may change the chart.
    var mayStartSteering: Bool {
        if case let .pointer(e) = self { return e.phase == .down }
        return true
    }

    /// A release, a wheel turn or a double click: a gesture may be over after it.
    var endsGesture: Bool {
        if case let .pointer(e) = self { return e.phase == .up || e.phase == .cancel }
        return true
    }

    /// Where it happened, CSS px from the canvas' top left.
    public var location: Point {
        switch self {
        case let .pointer(e): return e.point
        case let .wheel(e): return Point(x: e.x, y: e.y)
        case let .doubleClick(e): return Point(x: e.x, y: e.y)
        }
    }
    public var shift: Bool {
        switch self {
        case let .pointer(e): return e.shift
        case let .wheel(e): return e.shift
        case .doubleClick: return false
        }
    }
    public var ctrl: Bool {
        switch self {
        case let .pointer(e): return e.ctrl
        case let .wheel(e): return e.ctrl
        case .doubleClick: return false
        }
    }
    public var time: Double {
        switch self {
        case let .pointer(e): return e.time
        case let .wheel(e): return e.time
        case let .doubleClick(e): return e.time
        }
    }
    public var alt: Bool {
        switch self {
        case let .pointer(e): return e.alt
        case let .wheel(e): return e.alt
        case .doubleClick: return false
        }
    }
}

/// One input event on its way through a chart's modifiers (SciChart's
/// `ModifierTouchEventArgs`): the event, who sent it, where it came from, and whether a
/// modifier has handled it. Modifiers see it in order; once one sets `isHandled`, the
/// rest see it only if they `receiveHandledEvents`.
public final class ModifierEventArgs {
    public let input: ModifierInput
    /// The viewer whose input it is.
    public let viewer: ViewerID
    /// The chart the event happened on.
    public let source: Chart
    /// True on the chart the event happened on.
    public let isMaster: Bool
    /// The event lies inside the source chart's plot area.
    public let isInSourceBounds: Bool
    /// Set by the modifier that acts on the event.
    public var isHandled = false
    /// Reads the layout as it is when called (for work that outlives the event).
    public let layoutProvider: () -> ChartLayout

    public init(input: ModifierInput, viewer: ViewerID, source: Chart, isMaster: Bool = true,
                isInSourceBounds: Bool, layout: @escaping () -> ChartLayout) {
        self.input = input; self.viewer = viewer; self.source = source; self.isMaster = isMaster
        self.isInSourceBounds = isInSourceBounds; self.layoutProvider = layout
    }

    /// The chart's layout at this viewer's size, as it is now (a modifier before may
    /// have changed the ranges).
    public var layout: ChartLayout { layoutProvider() }
    /// The legend's entries at this viewer's size: each series (and slice) with the
    /// rectangle of its row.
    public var legendEntries: () -> [LegendHitBox] = { [] }
    public var location: Point { input.location }
    /// The event's time on the page's clock, ms.
    public var time: Double { input.time }
}

/// A server-side interaction (SciChart's `SCIChartModifierBase`): attached to one
/// chart, it receives the viewers' input and changes the chart's state, or draws into
/// the viewer's own `modifier` layer. The browser only reports input; all of this runs
/// on the server.
///
/// Subclass it and override `onEvent` for raw input, or subclass
/// `GestureModifierBase` to receive recognised gestures (tap, double tap, long press,
/// pan, pinch, fling, hover). State that belongs to one viewer's gesture (a drag under
/// way) is kept per viewer: several people may steer one chart at once.
open class ChartModifierBase {
    /// Its name in a chart spec (`"zoomPan"`).
    open var kind: String { "custom" }
    /// The chart it is attached to.
    public private(set) weak var parentSurface: Chart?
    public var isAttached: Bool { parentSurface != nil }
    /// A disabled modifier receives nothing and draws nothing.
    public var isEnabled = true { didSet { parentSurface?.invalidateModifierLayers() } }
    /// Receive events another modifier has handled too.
    public var receiveHandledEvents = false

    public init() {}

    /// The chart's X and Y axes.
    public var xAxes: [Axis] { parentSurface?.xAxes ?? [] }
    public var yAxes: [Axis] { parentSurface?.yAxes ?? [] }

    func attach(to chart: Chart) { parentSurface = chart; onAttached() }
    func detach() { onDetached(); parentSurface = nil }

    /// Called once attached (`parentSurface` is set).
    open func onAttached() {}
    /// Called before it is detached.
    open func onDetached() {}
    /// An input event (in the chart's modifier order).
    open func onEvent(_ args: ModifierEventArgs) {}
    /// An event another modifier handled, when this one does not
    /// `receiveHandledEvents`: for keeping track (a gesture recogniser sees every
    /// pointer), not for acting on it.
    open func onHandledElsewhere(_ args: ModifierEventArgs) {}
    /// The session's clock ticked (seconds). Runs every frame while `needsClock`.
    open func onClock(_ now: Double) {}
    /// The modifier has time-driven work under way (a long press to time, momentum).
    open var needsClock: Bool { false }
    /// What this modifier draws for one viewer, above everything else (its `modifier`
    /// layer), at that viewer's layout.
    open func overlay(for viewer: ViewerID, layout: ChartLayout) -> [DrawCommand] { [] }
    /// The gestures the modifier acts on, so the page lets the others through (a page
    /// scrolls over a chart that consumes no drag).
    open var consumes: Set<ConsumedInput> { [] }
    /// It changes the shared chart (ranges, selection, visibility), so viewers with a
    /// viewer token do not reach it; a modifier that only draws in the viewer's own
    /// layer (a rollover, a cursor) says false. Custom modifiers change the chart
    /// unless they say otherwise.
    open var changesChart: Bool { true }
    /// The viewer left: forget what it had under way.
    open func viewerLeft(_ viewer: ViewerID) {}

    /// Says this modifier's drawing for `viewer` (nil: every viewer) changed, so a
    /// frame carries it.
    public func invalidateOverlay(_ viewer: ViewerID? = nil) { parentSurface?.invalidateModifierLayers(viewer) }

    /// The axes of one direction with their layout.
    public func axisLayouts(x: Bool, in layout: ChartLayout) -> [(axis: Axis, layout: AxisLayout)] {
        (x ? xAxes : yAxes).compactMap { axis in layout.axis(axis.id).map { (axis, $0) } }
    }
}

/// One row of the legend as a viewer sees it: the series (and pie slice) it stands
/// for and where it is.
public struct LegendHitBox: Equatable, Sendable {
    public var seriesId: String
    public var slice: Int?
    public var rect: Rect
}

/// Input a chart's modifiers act on, announced to the page in `welcome`.
public enum ConsumedInput: String, CaseIterable, Sendable {
    /// Dragging with a mouse, a finger or a pen.
    case drag
    /// Two fingers.
    case pinch
    /// The wheel.
    case wheel
}

/// What happened on a chart, for whoever listens (ShinobiCharts' delegate): Swift
/// code through `Chart.addEventHandler`, and every viewer of the session as a
/// `{"type":"event",...}` message (docs/modifiers.md).
public enum ChartEvent: Equatable, Sendable {
    case panStarted(viewer: ViewerID)
    /// Each step of a pan, a pinch (Swift handlers only: they follow every move).
    case panning(viewer: ViewerID)
    case zooming(viewer: ViewerID)
    case panEnded(viewer: ViewerID)
    case zoomStarted(viewer: ViewerID)
    case zoomEnded(viewer: ViewerID)
    /// A zoom in one step (the wheel, a double tap in zoom-in mode).
    case zoomed(viewer: ViewerID)
    /// Back to the automatic ranges (zoom extents).
    case rangesReset(viewer: ViewerID)
    case selectionToggled(viewer: ViewerID, series: String, point: Int?, selected: Bool)
    case visibilityToggled(viewer: ViewerID, series: String, hidden: Bool)
    /// A viewer's crosshair moved to a point (Swift handlers only: it follows a hover).
    case crosshairMoved(viewer: ViewerID, series: String, x: Double, y: Double)
    /// A publication is about to render the chart, and has (Swift handlers only):
    /// `fullRedraw` when the background (axes, layout) changed, not only the data.
    case renderStarted
    case renderFinished(fullRedraw: Bool)
    /// Points arrived for a series (an append or another data operation; Swift
    /// handlers only): ShinobiCharts' data load start and finish in one.
    case dataLoaded(series: String, points: Int)
    /// A pull source is being asked for a series' points in `from...to` (ShinobiCharts'
    /// "will start loading data"; Swift handlers only): `dataLoaded` follows the answer.
    case dataLoading(series: String, from: Double, to: Double)
    /// A series' entry (`entry` true) or exit animation set off, and ended (Swift
    /// handlers only; ShinobiCharts' series animation delegate).
    case seriesAnimationStarted(series: String, entry: Bool)
    case seriesAnimationFinished(series: String, entry: Bool)
    /// A pie or donut turned by a drag (ShinobiCharts' radial pan): begins, each step
    /// (Swift handlers only, with the rotation in degrees), ends.
    case radialPanStarted(viewer: ViewerID, series: String)
    case radialPanning(viewer: ViewerID, series: String, rotation: Double)
    case radialPanEnded(viewer: ViewerID, series: String, rotation: Double)
    /// A selection by tap, with where: the tap's pixel (CSS px in the viewer's canvas)
    /// and the point of the series nearest it (its index, x and y; a slice for a pie),
    /// in series mode too (ShinobiCharts' `toggledSelectionForSeries:nearPoint:atPixelCoordinate:`).
    /// Follows `selectionToggled`; Swift handlers only.
    case selectionAt(viewer: ViewerID, series: String, pixelX: Double, pixelY: Double, point: Int?, x: Double?, y: Double?, selected: Bool)

    /// Sent to every viewer of the session (not a crosshair's every move, nor the
    /// server's own bookkeeping).
    public var isBroadcast: Bool {
        switch self {
        case .crosshairMoved, .renderStarted, .renderFinished, .dataLoaded, .dataLoading, .panning, .zooming,
             .seriesAnimationStarted, .seriesAnimationFinished, .radialPanning, .selectionAt: return false
        default: return true
        }
    }

    public var name: String {
        switch self {
        case .panStarted: return "panStarted"
        case .panning: return "panning"
        case .zooming: return "zooming"
        case .panEnded: return "panEnded"
        case .zoomStarted: return "zoomStarted"
        case .zoomEnded: return "zoomEnded"
        case .zoomed: return "zoomed"
        case .rangesReset: return "rangesReset"
        case .selectionToggled: return "selectionToggled"
        case .visibilityToggled: return "visibilityToggled"
        case .crosshairMoved: return "crosshairMoved"
        case .renderStarted: return "renderStarted"
        case .renderFinished: return "renderFinished"
        case .dataLoaded: return "dataLoaded"
        case .dataLoading: return "dataLoading"
        case .seriesAnimationStarted: return "seriesAnimationStarted"
        case .seriesAnimationFinished: return "seriesAnimationFinished"
        case .radialPanStarted: return "radialPanStarted"
        case .radialPanning: return "radialPanning"
        case .radialPanEnded: return "radialPanEnded"
        case .selectionAt: return "selectionAt"
        }
    }

    /// `{"type":"event","event":name,"viewer":id,...}`.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("type", "event"), ("event", .string(name))]
        switch self {
        case let .panStarted(v), let .panEnded(v), let .zoomStarted(v), let .zoomEnded(v), let .zoomed(v), let .rangesReset(v),
             let .panning(v), let .zooming(v):
            fields.append(("viewer", .int(Int64(v))))
        case let .selectionToggled(v, series, point, selected):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series))]
            if let point { fields.append(("point", .int(Int64(point)))) }
            fields.append(("selected", .bool(selected)))
        case let .visibilityToggled(v, series, hidden):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series)), ("hidden", .bool(hidden))]
        case let .crosshairMoved(v, series, x, y):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series)), ("x", .number(x)), ("y", .number(y))]
        case .renderStarted:
            break
        case let .renderFinished(full):
            fields.append(("fullRedraw", .bool(full)))
        case let .dataLoaded(series, points):
            fields += [("series", .string(series)), ("points", .int(Int64(points)))]
        case let .dataLoading(series, from, to):
            fields += [("series", .string(series)), ("from", .number(from)), ("to", .number(to))]
        case let .seriesAnimationStarted(series, entry), let .seriesAnimationFinished(series, entry):
            fields += [("series", .string(series)), ("entry", .bool(entry))]
        case let .radialPanStarted(v, series):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series))]
        case let .radialPanning(v, series, rotation), let .radialPanEnded(v, series, rotation):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series)), ("rotation", .number(rotation))]
        case let .selectionAt(v, series, px, py, point, x, y, selected):
            fields += [("viewer", .int(Int64(v))), ("series", .string(series)), ("pixelX", .number(px)), ("pixelY", .number(py))]
            if let point { fields.append(("point", .int(Int64(point)))) }
            if let x, let y { fields += [("x", .number(x)), ("y", .number(y))] }
            fields.append(("selected", .bool(selected)))
        }
        return .object(fields)
    }
}

extension Chart {
    /// Offers an event to the modifiers in order (SciChart's rule: once handled, only
    /// modifiers that `receiveHandledEvents` see it).
    func dispatch(_ args: ModifierEventArgs, steering: Bool = true) {
        for m in modifiers where m.isEnabled && (steering || !m.changesChart) {
            if args.isHandled && !m.receiveHandledEvents { m.onHandledElsewhere(args) } else { m.onEvent(args) }
        }
    }
}

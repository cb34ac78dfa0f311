import LayoutEngine
import Synchronization

/// What a session asks the transport to send to one viewer.
public enum Outgoing: Equatable, Sendable {
    case text(JSONValue)
    case binary([UInt8])
}

/// One hosted chart and everyone watching it.
///
/// A session is a state machine the transport drives: it is told of connections,
/// messages, appends and the passing of time, and it answers with what to send. It
/// does no I/O and reads no clock, so tests drive it directly.
public final class Session {
    public let id: String
    public internal(set) var title: String
    /// A sentence about the session for index pages (spec `description`).
    public var description: String?
    public let chart: Chart
    let renderer: ChartRenderer

    /// A chart with its rendered frames: the session's own (`main`), or a viewer's own
    /// view in the independent view mode, which shares the session's data and definition
    /// and keeps its own ranges, visibility, selection and modifiers.
    final class Surface {
        let chart: Chart
        var cache = FrameCache()
        /// The render lane it is drawn in (see `RenderLanes`): a view keeps its thread.
        var lane = 0
        /// The chart version last published.
        var publishedVersion: UInt64 = 0
        /// The session chart's version this view last took its data from.
        var syncedVersion: UInt64 = 0
        /// Being rendered on a render thread for the last publication (`InFlight`): the
        /// transport's thread leaves it alone until `finishRendering`. Read and written
        /// on the transport's thread only.
        var rendering = false
        init(chart: Chart) { self.chart = chart }
    }

    final class Viewer {
        let id: ViewerID
        /// Its own view (independent mode, once it steered); nil: the session's chart.
        var view: Surface?
        var size: ViewerSize?
        var format: FrameFormat = .binary
        /// What this viewer holds: the size it was last sent frames for, and the
        /// version of each layer it has.
        var sentSize: ViewerSize?
        var held = Viewer.holdsNothing
        /// When the first change it has not been sent yet happened (clock seconds), set at
        /// the publication that made its layers stale: frame ages start there.
        var pendingSince: Double?
        /// The sum of its layers' versions at its size at the last publication that found
        /// it lacking layers: a publication that changed what it shows changed the sum
        /// (versions only grow). (Only read while it lacks some: one it is up to date
        /// with has no frame to supersede.)
        var shownVersions: UInt64 = 0
        /// Frames sent and not yet acknowledged.
        var unacked = 0
        /// Gesture-to-frame (`SessionObserver`): when its oldest gesture not yet shown
        /// arrived (clock seconds); whether that gesture changed only its own
        /// `modifier` layer (then the frame carrying that layer shows it), or else
        /// whether a publication has since rendered what it changed.
        var gestureAt: Double?
        var gestureOwnLayerOnly = false
        var gestureRendered = false
        /// Counted in `viewersOwed`: the last publication found it ready for a frame.
        var owed = false
        /// Its own `modifier` layer: the current version, the one before (to patch
        /// from), and whether the modifiers' drawing for it may have changed since.
        var modifierLayer: Layer?
        var modifierPrevious: Layer?
        var modifierDirty = true
        var modifierVersions: UInt32 = 0
        /// What its hello's token allows (nil before an accepted hello).
        var role: SessionAccess.Role?
        /// When it was last told it cannot steer (one `read_only` error a second).
        var lastReadOnlyError = -Double.infinity
        /// The token of its hello, to check again when the session's access changes.
        var token: String?
        /// The session was redefined: a new `welcome` goes before its next frame.
        var welcomeOwed = false
        /// Messages for this viewer alone that go before anything else (an access
        /// change that shut it out).
        var notices: [JSONValue] = []
        init(id: ViewerID) { self.id = id }
        /// The versions of the shared layers it holds (`LayerID.shared` order).
        var sharedHeld: [UInt32?] { Array(held.prefix(LayerID.shared.count)) }
        /// `held` before any frame: indexed by `LayerID.index`.
        static let holdsNothing = [UInt32?](repeating: nil, count: LayerID.allCases.count)
    }

    var viewers: [ViewerID: Viewer] = [:]
    /// Who may watch and steer (spec `access`; open by default).
    public var access = SessionAccess.open
    /// Chart events (`ChartEvent`) not yet handed to the transport, which sends them
    /// to every viewer.
    private var pendingEvents: [JSONValue] = []
    static let maxPendingEvents = 256
    /// The chart events since the last call, as `{"type":"event",...}` messages.
    public func takeEvents() -> [JSONValue] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }
    private var nextViewer: ViewerID = 1
    /// The session's chart and its frames.
    let main: Surface
    /// Shared: one pan, zoom and selection, seen by everyone. Independent: each viewer
    /// pans, zooms, selects and hides series in a view of its own over the shared data
    /// (spec `viewMode`, docs/config.md).
    public enum ViewMode: String, CaseIterable, Sendable { case shared, independent }
    public var viewMode = ViewMode.shared {
        didSet { if viewMode == .shared { finishRendering(); for v in viewers.values where v.view != nil { leaveView(v) } } }
    }
    /// Makes the modifiers of a viewer's own view (independent mode): the session's
    /// spec sets it; a session built in Swift sets it to offer steering to independent
    /// viewers (without it they watch the shared view).
    public var modifierFactory: (() -> [ChartModifierBase])?
    /// The surface a viewer sees.
    func surface(_ v: Viewer) -> Surface { v.view ?? main }
    /// Clock reading (seconds) when the session started, for its generators.
    var startTime: Double?
    /// Where the session's inputs are logged before they are applied (`submit`); nil:
    /// memory only.
    public var journal: (any SessionJournal)?
    /// The shared view state last logged (see `noteViewChange`).
    var loggedView: SharedViewState?
    /// Seconds of the generators' clock last applied (`SessionInput.clock`): a restored
    /// session's clock goes on from there.
    public internal(set) var clockElapsed: Double?

    /// Most frames a viewer is sent before it acknowledges them (announced in `welcome`).
    public let window: Int
    /// Most publications (frames) per second.
    public internal(set) var maxFps: Double
    /// The pacing grid point the last publication counts for (`lateShare`).
    private var lastPublish = -Double.infinity
    /// When the last publication was made (`minSpacing`).
    private var publishedAt = -Double.infinity
    /// When the first change since the last publication happened (clock seconds).
    private var pendingChangeAt: Double?
    /// Wall-clock milliseconds of the newest data (`noteChange`), sent in frame headers.
    public private(set) var dataTime: Double = 0
    public private(set) var stats = SessionStats()
    /// Pull sources, their states and answers (PullSource.swift).
    let pulls = PullDesk()
    /// Told of each frame's age and each gesture-to-frame time as frames leave (the
    /// server's `/metrics`); nil: nobody.
    public var observer: (any SessionObserver)?
    /// The spec the session was made from, with every patch since (nil: built in Swift).
    public internal(set) var specJSON: JSONValue?
    /// How InfluxDB line protocol feeds the chart (`write`); nil: it takes none.
    public var lineProtocol: LineProtocolMapping?
    /// The theme preset of a redefined chart whose spec names none (the server's).
    public var defaultTheme = "light"

    public static let defaultWindow = 2
    public static let defaultMaxFps = 60.0

    public init(id: String, title: String, chart: Chart, measurer: TextMeasurer,
                maxFps: Double = Session.defaultMaxFps, window: Int = Session.defaultWindow) {
        precondition(maxFps > 0 && window >= 1)
        self.id = id
        self.title = title
        self.chart = chart
        self.main = Surface(chart: chart)
        chart.imagePath = "/api/sessions/\(id)/images/"
        chart.measurer = measurer
        chart.presentationThroughDoor = true
        self.renderer = ChartRenderer(measurer: measurer)
        self.maxFps = maxFps
        self.window = window
        chart.addEventHandler { [weak self] event in
            guard let self, event.isBroadcast, self.pendingEvents.count < Self.maxPendingEvents else { return }
            self.pendingEvents.append(event.json)
        }
    }

    /// A publication's views still rendering hold the render threads (and read this
    /// session's views) until collected.
    deinit { finishRendering(); releasePoints() }

    /// Seconds of silence after which the transport sends each viewer a heartbeat
    /// (`{"type":"heartbeat"}`); announced in `welcome` so clients can tell a dead
    /// connection. nil when the transport sends none.
    public var heartbeat: Double?

    public var viewerCount: Int { viewers.count }
    public var viewerIDs: [ViewerID] { viewers.keys.sorted() }

    // MARK: Viewers

    public func connect() -> ViewerID {
        let v = Viewer(id: nextViewer)
        nextViewer += 1
        viewers[v.id] = v
        return v.id
    }

    public func disconnect(_ viewer: ViewerID) {
        finishRendering()
        guard let v = viewers.removeValue(forKey: viewer) else { return }
        if v.owed { viewersOwed -= 1 }
        for m in surface(v).chart.modifiers { m.viewerLeft(viewer) }
        chart.overlaysInvalidated = []
        main.cache.trim(keeping: liveSizes)
    }

    /// Sizes of the viewers of the session's own chart.
    private var liveSizes: Set<ViewerSize> { Set(viewers.values.filter { $0.view == nil }.compactMap(\.size)) }

    /// Handles one decoded message; returns the replies to send to that viewer (the
    /// frames that follow are collected with `nextFrame`). `now` (clock seconds, as
    /// `nextFrame` is given) dates a gesture for the gesture-to-frame time; nil: untimed.
    public func receive(_ message: ClientMessage, from viewerID: ViewerID, at now: Double? = nil) -> [Outgoing] {
        // (An acknowledgement changes only the viewer's count, which a render thread does
        // not read: it need not wait for views still rendering. Anything else may.)
        if message != .ack { finishRendering() }
        guard let viewer = viewers[viewerID] else { return [] }
        if case let .hello(size, format, token) = message {
            switch access.role(for: token) {
            case let .failure(refusal):
                // Refused: it holds nothing and is sent nothing, and may say hello again.
                viewer.role = nil
                viewer.size = nil
                return [.text(ProtocolError(.unauthorized, refusal.message).json)]
            case let .success(role):
                viewer.role = role
            }
            viewer.token = token
            viewer.welcomeOwed = false
            viewer.size = size
            viewer.format = format
            viewer.sentSize = nil
            viewer.held = Viewer.holdsNothing
            viewer.unacked = 0
            viewer.modifierLayer = nil
            viewer.modifierPrevious = nil
            viewer.modifierDirty = true
            if viewer.view != nil { leaveView(viewer) }
            return [.text(welcome(viewer))]
        }
        guard let size = viewer.size else {
            return [.text(ProtocolError(.helloRequired, "send hello before any other message").json)]
        }
        // Modifiers run one after another, and one may change the chart: each reads the
        // layout (at the sender's size) as it is when its turn comes.
        func dispatch(_ input: ModifierInput) {
            // Independent: a press, a wheel turn or a double click moves the viewer into a
            // view of its own first (hovering needs none), and it steers only that.
            let independent = viewMode == .independent && modifierFactory != nil
            if independent, input.mayStartSteering, seesShared(viewer) { enterView(viewer) }
            let s = surface(viewer)
            let versionBefore = s.chart.version
            let layout = { s.cache.layout(s.chart, size: size, renderer: self.renderer) }
            let args = ModifierEventArgs(input: input, viewer: viewerID, source: s.chart,
                                         isInSourceBounds: layout().plotRect.contains(input.location), layout: layout)
            args.legendEntries = { self.renderer.legendHitBoxes(s.chart, layout: layout()) }
            let steering = viewer.role == .controller || viewer.view != nil
            let linkedX = s === main && eventGroup != nil && viewer.role == .controller ? chart.xAxes.first : nil
            s.chart.suspendUpdates { s.chart.dispatch(args, steering: steering) }
            // An event group's charts follow a pan or zoom of the first x axis.
            if let x = linkedX, chart.axis(x.id)?.userRange != x.userRange {
                let range = chart.axis(x.id)?.userRange
                // Only the sessions this viewer may steer follow (docs/limits.md, "Event groups").
                for peer in groupPeers() where peer.steerable(byToken: viewer.token) { peer.followX(range) }
            }
            // What a controller's gesture left of the shared view is an input like any other.
            if s === main { noteViewChange() }
            // The sender's own drawing follows its input; others' only when told.
            viewer.modifierDirty = true
            if let view = viewer.view, Self.needsClock(view) { viewsNeedClock = true }
            collectOverlayInvalidations()
            let changedChart = s.chart.version != versionBefore
            // Its answer is published at once, not on the next `maxFps` slot (`publishDue`).
            if changedChart { gestureWaiting = true }
            // Timed from the oldest gesture not yet shown to the frame that shows it.
            if let now {
                // (A chart change after a gesture that touched only the viewer's own layer,
                // a hover, is timed from itself.)
                if viewer.gestureAt == nil || changedChart && viewer.gestureOwnLayerOnly {
                    (viewer.gestureAt, viewer.gestureRendered, viewer.gestureOwnLayerOnly) = (now, false, !changedChart)
                }
            }
            // Back to the shared view once its own shows the same again (zoomed home), or
            // onto another viewer's view that shows the same.
            if let view = viewer.view, input.endsGesture, !view.chart.modifiers.contains(where: { $0.isEnabled && $0.needsClock }) {
                settle(viewer)
            }
        }
        switch message {
        case .hello: break
        case .ack:
            guard viewer.unacked > 0 else {
                return [.text(ProtocolError(.unexpectedAck, "ack without a frame waiting for one").json)]
            }
            viewer.unacked -= 1
        case let .resize(newSize):
            viewer.size = newSize
            main.cache.trim(keeping: liveSizes)
            if let view = viewer.view { view.cache.trim(keeping: [newSize]) }
        case let .pointer(e): dispatch(.pointer(e))
        case let .wheel(e): dispatch(.wheel(e))
        case let .doubleClick(e): dispatch(.doubleClick(e))
        case let .patch(spec):
            guard viewer.role == .controller else {
                return [.text(ProtocolError(.readOnly, "this viewer watches: changing \"\(title)\" needs a controller token").json)]
            }
            do {
                // Joining a protected event group needs rights there (docs/limits.md).
                try checkPatchRights(spec, token: viewer.token)
                let version = try submit(.patch(spec)).version
                let warnings = chart.warnings()
                return [.text(.object([("type", "patched"), ("version", .int(Int64(truncatingIfNeeded: version)))]
                                      + (warnings.isEmpty ? [] : [("warnings", .array(warnings.map { .string($0) }))])))]
            } catch let SessionInputError.unavailable(why) {
                return [.text(ProtocolError(.unavailable, why).json)]
            } catch {
                return [.text(ProtocolError(.badPatch, "\(error)").json)]
            }
        }
        if viewer.role == .viewer, viewer.view == nil, let refusal = readOnlyRefusal(message, viewer) { return [.text(refusal.json)] }
        return []
    }

    // MARK: Event groups (SciChart's EventGroup)

    /// Sessions with the same event group link their charts: a pan or zoom of one's
    /// first x axis is copied to the others' (shared views), and on a dashboard a
    /// viewer's pointer over one chart is shown by the others' inspection modifiers
    /// (rollover, cursor, crosshair), which receive it with `isMaster == false`.
    public var eventGroup: String?
    /// The other sessions of its event group (the hub keeps it).
    public var groupPeers: () -> [Session] = { [] }
    /// Limits of this session's own, in place of the server's (`SessionLimits.current`):
    /// for embedding programs and tests. Only the point budget reads them.
    public var limits: SessionLimits?
    /// Whether a client holding the token may move this session into the group (the hub
    /// sets it: `SessionHub.mayJoin`).
    public var mayJoinGroup: (String, String?) -> Bool = { _, _ in true }
    /// Whether a token is the server's control token (the hub sets it).
    public var isControlToken: (String) -> Bool = { _ in false }

    /// Whether a viewer of another session of the group, holding `token`, may steer this
    /// one through the group (a followed x range, a dashboard's shared pointer): anyone
    /// an open session; a protected one only with a controller token of its own or the
    /// server's control token (docs/limits.md, "Event groups").
    public func steerable(byToken token: String?) -> Bool {
        if access.isOpen { return true }
        if let token, isControlToken(token) { return true }
        return (try? access.role(for: token).get()) == .controller
    }

    /// Whether `viewer` of this session may carry its gestures to `other` through their
    /// event group: it steers this session (a controller), and `other` lets its token steer.
    public func groupMaySteer(_ other: Session, viewer viewerID: ViewerID) -> Bool {
        guard let v = viewers[viewerID], v.role == .controller else { return false }
        return other.steerable(byToken: v.token)
    }

    /// Shows the x range another chart of the group moved to (nil: back to its mode).
    func followX(_ range: DoubleRange?) {
        finishRendering()
        guard let id = chart.xAxes.first?.id else { return }
        if let range { chart.setUserRange(id, range) } else { chart.resetUserRange(id) }
        noteViewChange()
        // A viewer's gesture moved it: published as that viewer's own chart is.
        gestureWaiting = true
    }

    /// Where a pointer event of `viewer` falls on this chart as a group shares it: the
    /// first x axis' value under it and its height as a fraction of the plot (0 top).
    public func groupLocation(of e: PointerEvent, viewer viewerID: ViewerID) -> (x: Double, yFraction: Double)? {
        finishRendering()
        guard let v = viewers[viewerID], let size = v.size else { return nil }
        let s = surface(v)
        let layout = s.cache.layout(s.chart, size: size, renderer: renderer)
        guard let id = s.chart.xAxes.first?.id, let axis = layout.axis(id), layout.plotRect.height > 0 else { return nil }
        return (axis.calculator.value(axis.alignment.isHorizontal ? e.x : e.y),
                (e.y - layout.plotRect.y) / layout.plotRect.height)
    }

    /// Another chart of the group had `e` at `location` (see `groupLocation`): this
    /// chart's inspection modifiers show it for `viewer` (the same person's viewer
    /// here), as a slave event (`isMaster == false`).
    public func receiveGroupPointer(_ e: PointerEvent, at location: (x: Double, yFraction: Double), source: Chart, viewer viewerID: ViewerID) {
        finishRendering()
        guard let v = viewers[viewerID], let size = v.size else { return }
        let s = surface(v)
        let layoutProvider = { s.cache.layout(s.chart, size: size, renderer: self.renderer) }
        let layout = layoutProvider()
        guard let id = s.chart.xAxes.first?.id, let axis = layout.axis(id) else { return }
        let along = axis.calculator.pixel(location.x)
        var moved = e
        if axis.alignment.isHorizontal {
            moved.x = along
            moved.y = layout.plotRect.y + location.yFraction * layout.plotRect.height
        } else {
            moved.y = along
            moved.x = layout.plotRect.x + location.yFraction * layout.plotRect.width
        }
        let args = ModifierEventArgs(input: .pointer(moved), viewer: viewerID, source: source, isMaster: false,
                                     isInSourceBounds: layout.plotRect.contains(moved.point), layout: layoutProvider)
        // Only what draws for the viewer follows another chart's pointer: steering
        // stays with the chart it happened on (x ranges follow through followX).
        s.chart.suspendUpdates { s.chart.dispatch(args, steering: false) }
        v.modifierDirty = true
        collectOverlayInvalidations()
    }

    /// Whether others see what `v` sees (the session's chart always counts as shared): a
    /// viewer steering it must first have a view of its own.
    private func seesShared(_ v: Viewer) -> Bool {
        let s = surface(v)
        return s === main || othersSee(s, besides: v)
    }

    /// Gives a viewer a view of its own: what it sees now (the session's chart, or a
    /// view it shared with others), with modifiers of its own. It is sent whole layers
    /// from then on.
    private func enterView(_ v: Viewer) {
        guard let factory = modifierFactory else { return }
        let from = surface(v)
        for m in from.chart.modifiers { m.viewerLeft(v.id) }
        let view = Surface(chart: from.chart.makeView(modifiers: factory()))
        view.lane = nextLane
        nextLane &+= 1
        view.syncedVersion = from === main ? chart.version : from.syncedVersion
        move(v, to: view)
    }

    /// After a gesture: a viewer whose own view shows what the session's chart (or
    /// another viewer's view) shows joins that, and shares its frames.
    private func settle(_ v: Viewer) {
        guard let own = v.view else { return }
        let state = own.chart.viewState
        if state == chart.viewState { return leaveView(v) }
        if let same = distinctViews.first(where: { $0 !== own && $0.chart.viewState == state }) {
            move(v, to: same)
        }
    }

    /// Back to the session's chart (its own view showed the same, or the mode changed).
    func leaveView(_ v: Viewer) {
        guard v.view != nil else { return }
        move(v, to: nil)
    }

    /// Moves a viewer onto another surface (nil: the session's chart); a view nobody
    /// sees any more lets its modifiers go.
    private func move(_ v: Viewer, to target: Surface?) {
        if let old = v.view {
            for m in old.chart.modifiers { m.viewerLeft(v.id) }
            if !othersSee(old, besides: v) { old.chart.modifiers = [] }
        }
        v.view = target
        v.held = Viewer.holdsNothing
        v.sentSize = nil
        v.modifierDirty = true
    }

    /// The viewers' own views, each once.
    var distinctViews: [Surface] { viewGroups().map(\.view) }

    /// The viewers' own views, each once, with the viewers (of those `include` takes)
    /// who see it; a view none of them sees is left out.
    func viewGroups(_ include: (Viewer) -> Bool = { _ in true }) -> [(view: Surface, viewers: [Viewer])] {
        var groups: [(view: Surface, viewers: [Viewer])] = []
        var slot: [ObjectIdentifier: Int] = [:]
        for v in viewers.values {
            guard let view = v.view, include(v) else { continue }
            if let i = slot[ObjectIdentifier(view)] {
                groups[i].viewers.append(v)
            } else {
                slot[ObjectIdentifier(view)] = groups.count
                groups.append((view, [v]))
            }
        }
        return groups
    }

    /// Whether a viewer other than `v` sees `surface`.
    private func othersSee(_ surface: Surface, besides v: Viewer) -> Bool {
        viewers.values.contains { $0 !== v && $0.view === surface }
    }

    /// The error a viewer-token viewer gets for a gesture that would steer: a press, a
    /// wheel turn or a double click that a chart-changing modifier acts on (at most one
    /// a second; hovering for a rollover gets none).
    private func readOnlyRefusal(_ message: ClientMessage, _ viewer: Viewer) -> ProtocolError? {
        let kinds = Set(chart.modifiers.filter { $0.isEnabled && $0.changesChart }.flatMap(\.consumes))
        let steers: Bool, time: Double
        switch message {
        case let .pointer(e): steers = e.phase == .down && (kinds.contains(.drag) || chart.modifiers.contains { $0.isEnabled && $0.changesChart && $0.consumes.isEmpty }); time = e.time
        case let .wheel(e): steers = kinds.contains(.wheel); time = e.time
        case let .doubleClick(e): steers = chart.modifiers.contains { $0.isEnabled && $0.changesChart }; time = e.time
        default: return nil
        }
        guard steers, time / 1000 - viewer.lastReadOnlyError >= 1 || time == 0 else { return nil }
        viewer.lastReadOnlyError = time / 1000
        return ProtocolError(.readOnly, "this viewer watches: steering \"\(title)\" needs a controller token")
    }

    /// Marks the viewers whose modifier drawing the modifiers said changed.
    func collectOverlayInvalidations(viewsToo: Bool = true) {
        if let which = chart.overlaysInvalidated {
            chart.overlaysInvalidated = nil
            for v in viewers.values where v.view == nil && (which.isEmpty || which.contains(v.id)) { v.modifierDirty = true }
        }
        guard viewsToo else { return }
        for v in viewers.values {
            guard let view = v.view, view.chart.overlaysInvalidated != nil else { continue }
            view.chart.overlaysInvalidated = nil
            v.modifierDirty = true
        }
    }

    /// Brings a viewer's `modifier` layer up to date with what the modifiers draw for
    /// it now (at its size's current layout): a new version when that changed.
    private func refreshModifierLayer(_ v: Viewer, layout: ChartLayout) {
        guard v.modifierDirty else { return }
        v.modifierDirty = false
        let commands = surface(v).chart.modifiers.filter(\.isEnabled).flatMap { $0.overlay(for: v.id, layout: layout) }
        // (The first time, an empty layer is made too: every viewer holds a version of
        // every layer.)
        if let current = v.modifierLayer, current.commands == commands { return }
        v.modifierVersions &+= 1
        v.modifierPrevious = v.modifierLayer
        v.modifierLayer = Layer(id: .modifier, version: v.modifierVersions, commands: commands)
    }

    /// The viewer's `modifier` layer if it lacks its current version: whole, or
    /// patched from the version before when that is what it holds and smaller.
    private func lackingModifierLayer(_ v: Viewer) -> EncodedLayer? {
        guard let current = v.modifierLayer, v.held[LayerID.modifier.index] != current.version else { return nil }
        let whole = EncodedLayer(layer: .full(current), bytes: BinaryFrame.encodeLayer(current))
        if let base = v.modifierPrevious, v.held[LayerID.modifier.index] == base.version,
           let patch = LayerPatch.diff(from: base, to: current) {
            let bytes = BinaryFrame.encodePatch(patch)
            if bytes.count < whole.bytes.count { return EncodedLayer(layer: .patch(patch), bytes: bytes) }
        }
        return whole
    }

    /// Decodes and handles a text message; a message that cannot be decoded is
    /// answered with an error and changes nothing.
    public func receive(json: JSONValue, from viewer: ViewerID, at now: Double? = nil) -> [Outgoing] {
        do {
            return receive(try ClientMessage.decode(json), from: viewer, at: now)
        } catch {
            return [.text(error.json)]
        }
    }

    func welcome(_ viewer: Viewer) -> JSONValue {
        .object([
            ("type", "welcome"), ("protocol", "chartwire.v1"), ("session", .string(id)),
            ("title", .string(title)), ("viewer", .int(Int64(viewer.id))),
            ("format", .string(viewer.format.rawValue)),
            ("layers", .array(LayerID.allCases.map { .string($0.rawValue) })),
            ("role", .string((viewer.role ?? .viewer).rawValue)),
            ("consumes", .array(ConsumedInput.allCases.filter { c in
                chart.modifiers.contains { $0.isEnabled && $0.consumes.contains(c)
                    && (viewer.role == .controller || !$0.changesChart || (viewMode == .independent && modifierFactory != nil)) }
            }.map { .string($0.rawValue) })),
            ("series", .array(chart.series.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) })),
            ("window", .int(Int64(window))), ("maxFps", .number(maxFps)), ("viewMode", .string(viewMode.rawValue)),
        ] + (heartbeat.map { [("heartbeat", JSONValue.number($0))] } ?? []))
    }

    // MARK: Frames

    /// When the next publication is due (clock seconds, never before `now`), or nil
    /// when the chart has not changed since the last one.
    ///
    /// A publication also waits (up to `maxHold` seconds after the previous one) until
    /// the previous one has been handed to every viewer that was ready for it. When
    /// the server, not the viewers, is the bottleneck (thousands of viewers), frames
    /// then come at the rate it can deliver to all of them, every viewer alike,
    /// instead of some viewers getting every frame and others every other one. Viewers
    /// whose window is full are not waited for: a slow viewer holds back nobody.
    public func publishDue(now: Double) -> Double? {
        // (The last publication's views are still rendering: nothing is due before they are
        // done and collected, `finishRendering`.)
        guard inFlight == nil else { return nil }
        // (Asked after every message a viewer sends: the views are looked at in place,
        // not gathered.)
        guard chart.version != main.publishedVersion
                || viewers.values.contains(where: { v in v.view.map { $0.chart.version != $0.publishedVersion } ?? false })
        else { return nil }
        // A viewer's gesture changed the chart: its answer goes now (at most one
        // publication per `minGestureGap`), not on the next slot, nor held for the viewers
        // the last publication has not reached yet.
        if gestureWaiting { return max(now, lastPublish + Self.minGestureGap) }
        let due = max(lastPublish + 1 / maxFps, publishedAt + Self.minSpacing / maxFps)
        return max(now, viewersOwed > 0 ? max(due, publishedAt + Self.maxHold) : due)
    }

    /// How late a paced publication may be, as a share of the pacing step, and still
    /// count as on time: the next one is then due a step after the grid point, not after
    /// the late one. A late publication (the transport's timer fired late, or the last
    /// publication's frames took a little longer to render and send) is made up at the
    /// next, and viewers keep getting `maxFps` frames a second; one later than this
    /// (the server cannot keep up) starts the grid afresh, so lateness never piles up.
    /// A whole step: on a loaded box the server's thread waits its turn for a core, and
    /// with ten Chromiums beside it on two cores (`bench/browser/latency.py --only
    /// pages`), a tenth of its timers fired 10 ms or more late; at a quarter of a step,
    /// a quarter of its publications started the grid afresh and it published 52 times
    /// a second, not 60 (docs/bench.md).
    static let lateShare = 1.0
    /// Shortest time between two paced publications, as a share of the step: the one
    /// that makes up for a late one still waits half a step, so that it carries half a
    /// step's changes rather than the few of a moment (and a frame the viewers can tell
    /// from the last).
    static let minSpacing = 0.5

    /// A gesture changed the chart (the session's, a view's, or a linked chart's) since
    /// the last publication: the next is due at once (`publishDue`).
    private var gestureWaiting = false
    /// Shortest time between two publications a gesture makes due (a client sending
    /// moves faster than the display shows them costs no more than 240 renders a second).
    public static let minGestureGap = 1.0 / 240

    /// Longest a publication waits for the previous one to reach its viewers.
    public static let maxHold = 0.1
    /// Viewers the last publication found ready (window open, lacking its layers)
    /// that have not been sent a frame since. The transport publishes again when this
    /// drops to zero (see `publishDue`).
    public private(set) var viewersOwed = 0

    /// Publishes the chart's current state: renders it once for every viewer size.
    /// Viewers then collect it (`nextFrame`) as their windows allow. The transport
    /// calls this when `publishDue` says so: at most `maxFps` times a second, and a
    /// publication carries every change since the one before.
    public func publish(now: Double) {
        finishRendering()
        // (The transport asks every viewer after a publication: none needs telling apart.)
        readyViewers = []
        let changedAt = pendingChangeAt ?? now
        pendingChangeAt = nil
        main.publishedVersion = chart.version
        // A publication held back by the pacing goes when the transport's timer fires, a
        // little late, or when the last one's frames are out: count it on the pacing grid
        // (`lateShare`), so the lateness does not add up from one frame to the next
        // (input at maxFps then locks to the grid instead of waiting longer and longer).
        // A publication a gesture made due, off the grid, starts it afresh from itself: the
        // data it carries is not published again a moment later on the old grid.
        let step = 1 / maxFps
        lastPublish = !gestureWaiting && now - lastPublish < step * (1 + Self.lateShare) ? lastPublish + step : now
        publishedAt = now
        gestureWaiting = false

        chart.emit(.renderStarted)
        // The session's chart and its views have the same axes (a view keeps its own
        // ranges): what ticks one of them makes for an axis range and length, the others
        // find made.
        sharedTicks.clear()
        let shared = ChartRenderer.SharedTicks(memo: sharedTicks, axes: chart.axes.map(\.config))
        var fullRedraw = false
        for size in liveSizes {
            let before = main.cache.entry(size)?.layers[.background]?.version
            let after = main.cache.render(chart, size: size, renderer: renderer, dataTime: dataTime, sharedTicks: shared)
                .layers[.background]?.version
            if before != after { fullRedraw = true }
        }
        renderViews(sharedTicks: shared, changedAt: changedAt)
        chart.emit(.renderFinished(fullRedraw: fullRedraw))
        submitPresented()
        viewersOwed = 0
        for v in viewers.values {
            // What a modifier draws may follow the chart (a rollover's values); an
            // empty layer changes only by the viewer's input or the modifier's word.
            if v.modifierLayer?.commands.isEmpty == false { v.modifierDirty = true }
            v.owed = false
            // (A view still rendering: when it is done, `finishRendering`.)
            if v.view?.rendering == true { continue }
            noteOwed(v, changedAt: changedAt)
        }
        stats.publications += 1
        observer?.published()
    }

    /// After a publication rendered what `v` sees: whether it now lacks layers (then it
    /// waits from the first change they show) and may be sent them now (it is owed).
    private func noteOwed(_ v: Viewer, changedAt: Double) {
        let lacks = v.sentSize != nil && lacksSharedLayers(v)
        // A gesture that changed the chart shows in the frames of this publication; one
        // whose change left this viewer's layers as they were shows in none.
        if v.gestureAt != nil, !v.gestureOwnLayerOnly {
            if lacks { v.gestureRendered = true } else { v.gestureAt = nil }
        }
        guard lacks else { return }
        let versions = layerVersionSum(v), changed = versions != v.shownVersions
        v.shownVersions = versions
        // What the last publications showed it never reached it, and this one changes it
        // again: that frame is superseded (its window was full, or its connection slow).
        if v.pendingSince != nil, changed {
            stats.superseded += 1
            observer?.frameSuperseded()
        }
        if v.pendingSince == nil { v.pendingSince = changedAt }
        if v.unacked < window { v.owed = true; viewersOwed += 1 }
    }

    /// Ticks made during a publication, for the session's chart and views to share.
    let sharedTicks = SharedTickMemo()

    /// Threads the viewers' own views are rendered on (independent mode; 1: the
    /// caller's alone). By default one per processor.
    public var renderThreads = RenderLanes.shared.count {
        didSet { renderThreads = max(1, renderThreads) }
    }
    /// The lane the next new view is given.
    private var nextLane = 0

    /// Renders each viewer's own view: the session's new data and definition, its own
    /// ranges. Views are independent of one another once the session's chart has been
    /// rendered, so they are rendered concurrently, each in its lane (`RenderLanes`): a
    /// piece of work is one view (its chart and frame cache, at every size its viewers
    /// have), and the session's chart is only read. A piece also encodes, ahead, the
    /// frame each of its viewers will be sent when that viewer is ready for one, or its
    /// acknowledgement is on its way (its window just full: one acknowledgement short of
    /// ready); `nextFrame` then finds it made, so the encoding is shared out too. A viewer
    /// further behind is left to `nextFrame`: a stalled connection should not cost an
    /// encoding at every publication.
    private func renderViews(sharedTicks: ChartRenderer.SharedTicks, changedAt: Double) {
        let work = viewGroups { $0.size != nil }
        guard !work.isEmpty else { return }
        // What the render reads of each view's viewers, copied here: a render thread must
        // not read a viewer the transport's thread changes meanwhile (an acknowledgement).
        let items = work.map { view, viewers in
            ViewWork(view: view, sizes: viewers.compactMap(\.size),
                     ahead: viewers.compactMap { v in
                         guard v.format == .binary, let size = v.size, v.sentSize == size, v.unacked <= window else { return nil }
                         return (size, v.sharedHeld)
                     })
        }
        let renderer = renderer, dataTime = dataTime, version = chart.version
        func render(_ item: ViewWork, from model: Chart) {
            let view = item.view
            if view.syncedVersion != version {
                view.chart.syncView(from: model)
                view.syncedVersion = version
            }
            view.chart.commitRanges()
            view.publishedVersion = view.chart.version
            for size in item.sizes {
                view.cache.render(view.chart, size: size, renderer: renderer, dataTime: dataTime, sharedTicks: sharedTicks)
            }
            for (size, held) in item.ahead { _ = view.cache.binaryFrame(size: size, held: held) }
        }
        let lanes = max(1, min(renderThreads, RenderLanes.shared.count, items.count))
        // Lane 0's views first, the others' last: this thread takes from the front, the
        // render thread from the back, so a view mostly stays on its thread.
        let order = items.indices.sorted { (items[$0].view.lane % lanes, $0) < (items[$1].view.lane % lanes, $1) }
        let queue = ViewQueue(order)
        // The session's chart as it is now, for the render thread: this thread goes on
        // changing the chart (appends) while that one takes views' data from it.
        let model = lanes > 1 ? chart.makeView(modifiers: []) : chart
        // (Unchecked: the views it takes are left alone by the transport's thread until
        // `finishRendering`; what else it reads are copies or the chart's snapshot.)
        let held = renderThreadHold
        let job = Unchecked {
            held?()
            var n = 0
            while let i = queue.takeBack() {
                render(items[i], from: model)
                queue.finished(i)
                // The transport collects finished views as they come, a few at a time, and
                // sends their frames while this thread draws the rest.
                n += 1
                if n % Self.wakeEvery == 0 { Session.wakeAfterRender() }
            }
        }
        let ticket = lanes > 1 ? RenderLanes.shared.start({ job.value() }, done: { Session.wakeAfterRender() }) : nil
        // This thread renders its share, then goes back to sending while the render thread
        // draws the rest: a view a third of a publication's time is sending, not rendering.
        let share = ticket == nil ? items.count : Int((Double(items.count) * transportShare).rounded(.down))
        var done = 0
        while done < share, let i = queue.takeFront() {
            render(items[i], from: model)
            done += 1
        }
        guard let ticket else { return }
        let busy = queue.remaining()
        for i in busy { items[i].view.rendering = true }
        inFlight = InFlight(ticket: ticket, queue: queue, views: items.map(\.view), changedAt: changedAt)
    }

    /// Views a render thread finishes between two wake-ups of the transport.
    static let wakeEvery = 32

    /// Of the views a publication renders, the share the transport's thread renders itself
    /// before going back to sending; a render thread draws the rest meanwhile. (A
    /// variable for tests, which need views still rendering when `publish` returns.)
    var transportShare = 0.45

    /// Run by the render thread before it takes its first view (nil: nothing). For
    /// tests, which hold the thread back so that views are still rendering when
    /// `publish` returns, however fast the machine or loaded its other core.
    var renderThreadHold: (@Sendable () -> Void)?

    /// A view to render, with what its viewers need.
    private struct ViewWork {
        let view: Surface
        /// The sizes its viewers see.
        let sizes: [ViewerSize]
        /// The binary frames to encode ahead, by size and the layer versions held.
        let ahead: [(ViewerSize, [UInt32?])]
    }

    /// Indices taken from either end, by two threads; those the back's taker finished.
    private final class ViewQueue: Sendable {
        private let state: Mutex<(order: [Int], front: Int, back: Int)>
        private let done = Mutex<[Int]>([])
        init(_ order: [Int]) { state = Mutex((order, 0, order.count)) }
        func finished(_ i: Int) { done.withLock { $0.append(i) } }
        /// The indices finished since the last call.
        func takeFinished() -> [Int] { done.withLock { d in defer { d = [] }; return d } }
        func takeFront() -> Int? {
            state.withLock { s in
                guard s.front < s.back else { return nil }
                defer { s.front += 1 }
                return s.order[s.front]
            }
        }
        func takeBack() -> Int? {
            state.withLock { s in
                guard s.front < s.back else { return nil }
                s.back -= 1
                return s.order[s.back]
            }
        }
        /// The indices not taken from the front (taken from the back, or not yet at all).
        func remaining() -> [Int] {
            state.withLock { s in Array(s.order[s.front...]) }
        }
    }

    /// Views of the last publication still rendering on a render thread.
    private final class InFlight {
        let ticket: RenderLanes.Ticket
        fileprivate let queue: ViewQueue
        /// The publication's views, by the queue's indices.
        let views: [Surface]
        let changedAt: Double
        fileprivate init(ticket: RenderLanes.Ticket, queue: ViewQueue, views: [Surface], changedAt: Double) {
            self.ticket = ticket; self.queue = queue; self.views = views; self.changedAt = changedAt
        }
    }
    private var inFlight: InFlight?
    /// Viewers whose views became ready since the transport last asked (`takeReadyViewers`).
    private var readyViewers: [ViewerID] = []

    /// True while the viewer's view is still being rendered for the last publication: its
    /// frame is not ready, and asking for it (`nextFrame`, `wantsFrame`) would wait for it.
    /// Does not wait. The transport asks this before asking for a viewer's frame.
    public func isRendering(_ viewerID: ViewerID) -> Bool {
        guard inFlight != nil, let view = viewers[viewerID]?.view else { return false }
        return view.rendering
    }

    /// Takes the views a render thread finished so far (without waiting), and once all
    /// are, gives the render threads back: returns the viewers who may now be sent frames
    /// (also those of views finished by `finishRendering` since the last call). The
    /// transport calls it whenever its loop wakes.
    public func takeReadyViewers() -> [ViewerID] {
        if let work = inFlight {
            let allDone = work.ticket.isDone
            collect(work.queue.takeFinished(), of: work)
            if allDone { finishRendering() }
        }
        defer { readyViewers = [] }
        return readyViewers
    }

    /// True when a publication's views are still rendering, or viewers wait to be told
    /// theirs are ready (`takeReadyViewers`).
    public var hasRenderingWork: Bool { inFlight != nil || !readyViewers.isEmpty }

    /// Marks views of `work` (queue indices) rendered: their viewers may be sent them.
    private func collect(_ indices: [Int], of work: InFlight) {
        guard !indices.isEmpty else { return }
        var done = Set<ObjectIdentifier>()
        for i in indices where work.views[i].rendering {
            work.views[i].rendering = false
            done.insert(ObjectIdentifier(work.views[i]))
        }
        guard !done.isEmpty else { return }
        for v in viewers.values {
            guard let view = v.view, done.contains(ObjectIdentifier(view)) else { continue }
            noteOwed(v, changedAt: work.changedAt)
            readyViewers.append(v.id)
        }
    }

    /// Waits for the views still rendering (if any) and makes their frames available.
    /// Returns true when there were some (their viewers are then among
    /// `takeReadyViewers`). Everything that reads or changes a view calls this first.
    @discardableResult
    public func finishRendering() -> Bool {
        guard let work = inFlight else { return false }
        work.ticket.wait()
        inFlight = nil
        collect(work.views.indices.filter { work.views[$0].rendering }, of: work)
        _ = work.queue.takeFinished()
        return true
    }

    /// What a render thread calls when it finished a publication's views (the transport
    /// sets it: it wakes its loop, which then calls `finishRendering`).
    public static func onRenderFinished(_ wake: @escaping @Sendable () -> Void) { renderWake.withLock { $0 = wake } }
    private static let renderWake = Mutex<(@Sendable () -> Void)?>(nil)
    fileprivate static func wakeAfterRender() { renderWake.withLock { $0 }?() }

    /// Tells the session its chart changed at clock time `now` (seconds) and wall-clock
    /// time `wallMs` (ms since the Unix epoch): frame ages are measured from the first
    /// such change a frame shows, and when the change brought data (an append or
    /// generated points, not a gesture), frames carry `wallMs` as their data time, so
    /// clients can tell how fresh what they show is.
    public func noteChange(at now: Double, wallMs: Double) {
        if pendingChangeAt == nil, chart.version != main.publishedVersion { pendingChangeAt = now }
        if dataArrived { dataTime = wallMs }
        dataArrived = false
    }
    /// Data arrived since the last `noteChange`.
    var dataArrived = false

    /// True when `viewer` may be sent a frame now: its window has room and it lacks
    /// something of the last publication (or has none at its size yet). Cheap: the
    /// transport asks this before asking for writability.
    public func wantsFrame(_ viewerID: ViewerID) -> Bool {
        if isRendering(viewerID) { finishRendering() }
        guard let v = viewers[viewerID] else { return false }
        guard v.notices.isEmpty else { return true }
        guard v.size != nil else { return false }
        return v.welcomeOwed || (v.unacked < window && lacksLayers(v))
    }

    /// True when the viewer lacks a layer of its size's newest rendering (or has none).
    private func lacksLayers(_ v: Viewer) -> Bool {
        if v.modifierDirty || v.held[LayerID.modifier.index] != v.modifierLayer?.version { return true }
        return lacksSharedLayers(v)
    }

    /// The sum of the versions of the layers `v`'s surface has at its size (0: none yet).
    private func layerVersionSum(_ v: Viewer) -> UInt64 {
        guard let size = v.size, let entry = surface(v).cache.entry(size) else { return 0 }
        return entry.layers.values.reduce(0) { $0 + UInt64($1.version) }
    }

    /// True when the viewer lacks a shared layer of its size's newest rendering.
    private func lacksSharedLayers(_ v: Viewer) -> Bool {
        guard let size = v.size, let entry = surface(v).cache.entry(size), v.sentSize == size else { return true }
        for (id, layer) in entry.layers where v.held[id.index] != layer.version { return true }
        return false
    }

    /// The next frame for `viewer`: the layers it lacks (patched from what it holds
    /// where that is smaller), or nil when it is up to date or its window is full.
    /// A viewer at a size not yet rendered gets one rendered now, whole. `now` (clock
    /// seconds) dates the frame for `stats`.
    public func nextFrame(for viewerID: ViewerID, now: Double = 0) -> Outgoing? {
        if isRendering(viewerID) { finishRendering() }
        guard let v = viewers[viewerID] else { return nil }
        if !v.notices.isEmpty { return .text(v.notices.removeFirst()) }
        guard let size = v.size else { return nil }
        if v.welcomeOwed {
            v.welcomeOwed = false
            return .text(welcome(v))
        }
        guard v.unacked < window else { return nil }
        if v.owed { v.owed = false; viewersOwed -= 1 }
        let surface = surface(v)
        if surface.cache.entry(size) == nil {
            if stats.publications == 0 { publish(now: now) }
            if surface !== main, surface.syncedVersion != chart.version {
                surface.chart.syncView(from: chart)
                surface.syncedVersion = chart.version
            }
            surface.cache.render(surface.chart, size: size, renderer: renderer, dataTime: dataTime)
            if surface === main { submitPresented() }
        }
        guard let entry = surface.cache.entry(size) else { return nil }
        if v.sentSize != size { v.held = Viewer.holdsNothing; v.modifierDirty = true }
        v.sentSize = size
        refreshModifierLayer(v, layout: entry.layout)
        let held = v.sharedHeld
        let own = lackingModifierLayer(v)
        // A gesture that changed only this viewer's own layer, and left it as it was.
        if v.gestureAt != nil, v.gestureOwnLayerOnly, own == nil { v.gestureAt = nil }
        let out: Outgoing
        let sent: [FrameLayer]
        switch v.format {
        case .binary:
            if let own {
                // This viewer's own layer changed: its frame is its own.
                let shared = surface.cache.lacking(size: size, held: held)
                out = .binary(BinaryFrame.frame(width: size.width, height: size.height, dpr: size.dpr, dataTime: entry.dataTime,
                                                encodedLayers: shared.map(\.bytes) + [own.bytes]))
                sent = shared.map(\.layer) + [own.layer]
            } else {
                guard let frame = surface.cache.binaryFrame(size: size, held: held) else { return nil }
                out = .binary(frame.bytes)
                sent = frame.layers
            }
        case .json:
            let layers = surface.cache.lacking(size: size, held: held).map(\.layer) + (own.map { [$0.layer] } ?? [])
            guard !layers.isEmpty else { return nil }
            let frame = Frame(width: size.width, height: size.height, dpr: size.dpr, dataTime: entry.dataTime, layers: layers)
            guard case let .object(fields) = frame.json else { return nil }
            out = .text(.object([("type", "frame")] + fields))
            sent = layers
        }
        for l in sent { v.held[l.id.index] = l.version }
        let age = v.pendingSince.map { now - $0 }
        if let age { stats.recordAge(age) }
        v.pendingSince = nil
        if let at = v.gestureAt, v.gestureOwnLayerOnly ? own != nil : v.gestureRendered {
            observer?.gestureToFrame(now - at)
            v.gestureAt = nil
        }
        v.unacked += 1
        stats.frames += 1
        var bytes = 0
        if case let .binary(b) = out { bytes = b.count }
        stats.bytes += bytes
        observer?.frameSent(bytes: bytes, age: age)
        return out
    }

    /// The whole display list a viewer of this size would get now (frame.json).
    public func displayList(size: ViewerSize) -> DisplayList {
        let rendered = main.cache.render(chart, size: size, renderer: renderer, dataTime: dataTime)
        submitPresented()
        defer { main.cache.trim(keeping: liveSizes) }
        return DisplayList(width: size.width, height: size.height, dpr: size.dpr,
                           layers: LayerID.shared.compactMap { rendered.layers[$0] })
    }

    /// What a viewer of `size` would see now drawn in another `theme` (an image export's
    /// `theme=`): a copy of the chart rendered apart, so the session, its frames and its
    /// viewers are untouched.
    public func displayList(size: ViewerSize, theme: Theme) -> DisplayList {
        let view = chart.makeView(modifiers: [])
        var t = theme
        t.fontFamily = chart.theme.fontFamily
        view.theme = t
        let output = renderer.render(view, size: Size(width: Double(size.width), height: Double(size.height)), dpr: size.dpr)
        return DisplayList(width: size.width, height: size.height, dpr: size.dpr,
                           layers: LayerID.shared.map { Layer(id: $0, version: 1, commands: output.layers[$0] ?? []) })
    }

    /// What the frames just drawn showed that the chart does not keep yet (label room,
    /// legend places: `Chart.takePresented`) enters through the door, so the next
    /// version is drawn with it here, after a replay and on every node alike. (A refusal,
    /// a cluster node without its Redis, drops it: the next frame proposes it again.)
    private func submitPresented() {
        guard let p = chart.takePresented() else { return }
        guard let journal, journal.defersPresented(session: id) else {
            _ = try? submit(.presented(p))
            return
        }
        guard journal.refusal(session: id) == nil else { return }
        applyPendingPresented()
        journal.record(.presented(p), session: id)
        pendingPresented = p
    }

    /// A `.presented` input logged and not applied yet (`SessionJournal.defersPresented`).
    private var pendingPresented: PresentedState?

    /// Applies the logged proposal: the log took it (the cluster's commit), or an input
    /// logged after it is about to be applied.
    public func applyPendingPresented() {
        guard let p = pendingPresented else { return }
        pendingPresented = nil
        chart.applyPresented(p)
        chart.commitRanges()
    }

    /// Forgets the logged proposal: the log refused it (another node wrote first; its
    /// entries, which may hold the same proposal, are applied instead). A later frame
    /// proposes again what the chart then still lacks.
    public func dropPendingPresented() { pendingPresented = nil }

    /// The layout at a size (tests, tools).
    public func layout(size: ViewerSize) -> ChartLayout { main.cache.layout(chart, size: size, renderer: renderer) }

    // MARK: Data and time

    /// Appends to a series atomically. Throws `SessionError` for an unknown series or
    /// refused data; nothing of a refused append is applied.
    @discardableResult
    public func append(seriesId: String, xs: [Double], ys: [Double]) throws(SessionError) -> Int {
        try append(seriesId: seriesId, xs: xs, values: [ys])
    }

    /// Appends points with every value the series' type has (`values` in the order of
    /// `SeriesKind.valueFields`: `[y]`, or `[open, high, low, close]`).
    @discardableResult
    public func append(seriesId: String, xs: [Double], values: [[Double]]) throws(SessionError) -> Int {
        guard let index = chart.seriesIndex(seriesId) else { throw .unknownSeries(seriesId) }
        guard xs.count <= Self.maxAppendPoints else {
            throw .badAppend(.tooMany(count: xs.count, limit: Self.maxAppendPoints))
        }
        try checkPointBudget(adding: budgetGrowth(series: index, adding: xs.count), series: seriesId)
        do { try chart.append(seriesId: seriesId, xs: xs, values: values) } catch { throw .badAppend(error) }
        recordPoints()
        if !xs.isEmpty { dataArrived = true; chart.emit(.dataLoaded(series: seriesId, points: xs.count)) }
        return xs.count
    }

    public static let maxAppendPoints = 1_000_000

    /// Changes a series' points other than by appending (see `Chart.change`):
    /// atomically, or throws and changes nothing. `growth`: how many points the change
    /// adds at most (checked against the point budget first).
    public func change(seriesId: String, growth: Int = 0, _ change: (inout Series) throws(AppendError) -> Void) throws(SessionError) {
        guard let index = chart.seriesIndex(seriesId) else { throw .unknownSeries(seriesId) }
        try checkPointBudget(adding: budgetGrowth(series: index, adding: growth), series: seriesId)
        do { try chart.change(seriesId: seriesId, change) } catch { throw .badAppend(error) }
        recordPoints()
        dataArrived = true
        chart.emit(.dataLoaded(series: seriesId, points: chart.series[chart.seriesIndex(seriesId)!].data.count))
    }

    /// Advances the session's clock (seconds, any origin): generators add the points
    /// that are due, and series animations take their next step.
    /// `unixTime` is the wall clock at `now` (Unix seconds): generators of Unix time
    /// count from the first one the session is given.
    public func advance(to now: Double, unixTime: Double = 0) {
        // Views still rendering are left alone unless one needs the clock (then they are
        // waited for): the session's chart alone changes here otherwise.
        if inFlight != nil, viewsNeedClock { finishRendering() }
        if startTime == nil {
            // A restored session's generators go on from where they were.
            startTime = now - (clockElapsed ?? 0)
            if clockElapsed == nil { startUnixTime = unixTime }
        }
        if chart.hasGenerators, journal?.runsClock(session: id) ?? true {
            // The generators' clock is an input: logged, then applied (dropped from the log
            // when it brought no point).
            let input = SessionInput.clock(elapsed: now - startTime!, startedAt: startUnixTime)
            journal?.record(input, session: id)
            if (try? apply(input))?.count ?? 0 == 0 { journal?.withdrawLast(session: id) }
        }
        chart.advanceAnimations(to: now, watched: !viewers.isEmpty)
        var glided = false
        for m in chart.modifiers where m.isEnabled && m.needsClock { glided = true; chart.suspendUpdates { m.onClock(now) } }
        if glided { noteViewChange() }
        if chart.overlaysInvalidated != nil { viewerLayersChangedByClock = true }
        guard inFlight == nil else { return collectOverlayInvalidations(viewsToo: false) }
        let views = distinctViews
        defer { viewsNeedClock = views.contains(where: Self.needsClock) }
        for view in views {
            view.chart.advanceAnimations(to: now, watched: true)
            let clocked = view.chart.modifiers.filter { $0.isEnabled && $0.needsClock }
            for m in clocked { view.chart.suspendUpdates { m.onClock(now) } }
            if view.chart.overlaysInvalidated != nil { viewerLayersChangedByClock = true }
            // A glide (zoom extents, momentum) that ended: its viewers may join another view.
            if !clocked.isEmpty, !view.chart.modifiers.contains(where: { $0.isEnabled && $0.needsClock }) {
                for v in viewers.values where v.view === view { settle(v) }
                viewerLayersChangedByClock = true
            }
        }
        collectOverlayInvalidations()
    }

    /// A modifier's clock work (a long press) changed what it draws for some viewer
    /// since the transport last asked: their frames are due without a publication.
    public func takeViewerLayersChangedByClock() -> Bool {
        defer { viewerLayersChangedByClock = false }
        return viewerLayersChangedByClock
    }
    private var viewerLayersChangedByClock = false

    /// The session's clock must run often (every frame): it generates data, or a
    /// series animation is under way (or waits for the viewer now watching).
    public var needsClock: Bool {
        chart.hasGenerators || chart.isAnimating || (!viewers.isEmpty && chart.hasPendingEntries)
            || chart.modifiers.contains { $0.isEnabled && $0.needsClock }
            || viewsNeedClock
    }
    /// Whether an independent view animates or has a modifier that needs the clock. The
    /// transport asks `needsClock` after every message a viewer sends (acknowledgements
    /// too), so this is kept rather than found by visiting every view: worked out at each
    /// clock step, and set when a viewer's input or a change of definition may start
    /// something (the next step then works it out again).
    var viewsNeedClock = false

    static func needsClock(_ view: Surface) -> Bool {
        view.chart.isAnimating || view.chart.modifiers.contains { $0.isEnabled && $0.needsClock }
    }
    var startUnixTime = 0.0
}

public enum SessionError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownSession(String)
    case unknownSeries(String)
    case badAppend(AppendError)
    /// The point budget (`SessionLimits.sessionPoints`, `serverPoints`) would be passed.
    case pointBudget(String)

    public var description: String {
        switch self {
        case let .unknownSession(id): return "no session \"\(id)\""
        case let .unknownSeries(id): return "no series \"\(id)\" in this session"
        case let .badAppend(e): return e.description
        case let .pointBudget(message): return message
        }
    }

    /// The HTTP status that answers it.
    public var status: Int {
        if case .pointBudget = self { return 413 }
        return 400
    }
}

/// Told of a session's publications and frames as they happen, and of the time each
/// gesture took to show: the server's `/metrics`. Called on the transport's thread for
/// every frame (`nextFrame`): keep it cheap.
public protocol SessionObserver: AnyObject {
    /// A publication (`publish`).
    func published()
    /// A frame left for a viewer: its bytes (0: a JSON frame) and its age, from the
    /// first change it shows to it leaving (seconds; nil: a viewer's first frames).
    func frameSent(bytes: Int, age: Double?)
    /// A publication changed what a viewer shows while it still lacked what an earlier
    /// one changed: the frame of that earlier state will never be sent (`SessionStats`).
    func frameSuperseded()
    /// From a viewer's gesture (pointer, wheel, double click) arriving to the first frame
    /// that shows what it changed leaving for that viewer (seconds). A gesture that
    /// changed nothing the viewer sees is not timed.
    func gestureToFrame(_ seconds: Double)
}

/// What a session has sent, for `GET /api/stats` and the benchmark.
public struct SessionStats: Sendable {
    public var publications = 0
    public var frames = 0
    /// Frames a viewer was owed and never sent, because a later publication changed what
    /// it shows before it could be sent them (its window full: it is drawing or
    /// acknowledging more slowly than the session publishes; or its connection slow).
    /// It then gets the newer state: flow control working, and how far viewers fall behind.
    public var superseded = 0
    /// Bytes of binary frames (JSON frames are counted in `frames` only).
    public var bytes = 0
    /// Frame ages (seconds from the first change a frame shows — the first change of the
    /// publication that made the viewer's layers stale — to the frame leaving the
    /// session), the most recent `ageCapacity`. First frames of a viewer are not counted.
    public private(set) var ages: [Double] = []
    private var nextAge = 0
    public static let ageCapacity = 4096

    mutating func recordAge(_ age: Double) {
        if ages.count < Self.ageCapacity { ages.append(age) } else { ages[nextAge] = age }
        nextAge = (nextAge + 1) % Self.ageCapacity
    }

    /// The `p`-quantile (0...1) of the recorded ages, nil when there are none.
    public func ageQuantile(_ p: Double) -> Double? {
        guard !ages.isEmpty else { return nil }
        let sorted = ages.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

import LayoutEngine

/// A declared session: read from a JSON spec (`--config FILE`, or the embedded demo),
/// checked, and turned into a live `Session`. docs/config.md documents every field.
public struct SessionSpec: Sendable {
    public var id: String
    public var title: String
    /// Most frames per second the session sends (one frame carries every change since
    /// the one before).
    public var maxFps: Double = Session.defaultMaxFps
    public var chart: ChartSpec
    /// A sentence for the index and gallery pages.
    public var description: String? = nil
    /// Who may watch and steer.
    public var access = SessionAccess.open
    /// The JSON this spec was read from (live control patches it; nil when built in Swift).
    public var json: JSONValue? = nil
    /// How InfluxDB line protocol feeds the chart (nil: it takes none).
    public var lineProtocol: LineProtocolMapping? = nil
    /// One pan, zoom and selection for everyone, or one per viewer.
    public var viewMode = Session.ViewMode.shared
    /// Sessions with the same event group link their x ranges and pointers.
    public var eventGroup: String? = nil
}

public struct ChartSpec: Sendable {
    public var title: String?
    public var xAxes: [AxisConfig]
    public var yAxes: [AxisConfig]
    public var series: [SeriesSpec]
    public var legend: LegendConfig?
    /// The theme as the spec gives it (resolved against the server's default preset
    /// when the session is made).
    public var themeSpec: ThemeSpec
    public var modifiers: [ModifierSpec]
    /// The theme on the built-in default (light).
    public var theme: Theme { themeSpec.resolve(default: "light") }
    /// Gap between neighbouring outer axes on one side, px.
    public var axisSpacing: Double = 0
    /// Sides whose outer axes share the plot's length instead of stacking outwards.
    public var stackedSides: Set<AxisAlignment> = []
    public var clipSeries = true
    public var margins = EdgeInsets.all(10)
    public var annotations: [Annotation] = []
    public var images: [String: ChartImage] = [:]
    /// The family of the chart's text (nil: the chart font), the title's font and size.
    public var fontFamily: String? = nil
    public var titleFont = TextFont()
    public var titleSize = 16.0
}

/// The calendar units a time axis' tick frequency names (ShinobiCharts'
/// `SChartDateFrequency`: seconds to years, and milliseconds).
enum TimeUnitName: String, CaseIterable {
    case millisecond, second, minute, hour, day, week, month, year
    var unit: TimeUnit {
        switch self {
        case .millisecond: .millisecond
        case .second: .second
        case .minute: .minute
        case .hour: .hour
        case .day: .day
        case .week: .week
        case .month: .month
        case .year: .year
        }
    }
}

/// How the outer axes of one side are laid out (`axisLayout` in the spec).
enum AxisSideLayout: String, CaseIterable { case outer, stacked }

public struct SeriesSpec: Sendable {
    public var id: String
    public var name: String
    public var kind: SeriesKind
    public var color: String?
    public var style = SeriesStyle()
    public var xAxis: String?
    public var yAxis: String?
    public var capacity: Int?
    /// Seconds (x units) of points kept behind the newest x (`Series.retention`).
    public var retention: Double?
    /// The pull source's URL (`Series.source`).
    public var source: String?
    /// A line drawn in the order its points are given (`Series.isUnsorted`).
    public var unsorted = false
    /// A band whose key runs along Y (`Series.orientation`): data `y`, `x`, `x1`.
    public var orientation = SeriesOrientation.horizontal
    /// `data.x` given as category names (strings): mapped to the positions of the x
    /// axis' `categories` once the axes are known.
    var xNames: [String]?
    public var xs: [Double]
    /// Each point's values, in the order of `kind.valueFields`.
    public var values: [[Double]]
    public var generator: DataGenerator?
    public var hidden = false
    public var showInLegend = true
    public var stackIndex: Int?
    public var stackPercent = false
    public var sliceNames: [String] = []
    public var selectedSlices: Set<Int> = []
    public var selected = false
    public var selectedStyle: SeriesStyle?
    public var selectedColor: String?
    public var animationEnabled = false
    public var crosshairEnabled = true
    public var entryAnimation = SeriesAnimation.defaultEntry
    public var exitAnimation = SeriesAnimation.defaultExit
}

public enum ModifierSpec: Equatable, Sendable {
    case zoomPan(direction: ModifierDirection, momentum: Bool = true, clipMode: ZoomPanModifier.ClipMode = .clipAtExtents)
    case mouseWheelZoom(direction: ModifierDirection, factor: Double)
    case zoomExtents(mode: ZoomExtentsModifier.Mode = .extents, duration: Double = 0.3)
    case pinchZoom(direction: ModifierDirection, aspectLock: Bool)
    case rubberBandZoom(direction: ModifierDirection, key: RubberBandXyZoomModifier.Key)
    case rollover
    case cursor
    case selection(mode: SeriesSelectionModifier.Mode, toggleSelection: Bool, togglePointSelection: Bool)
    case legend
    case rotateChart
    /// `className`: a class the program registered (`CrosshairModifier.register`).
    case crosshair(mode: CrosshairModifier.Mode, interpolatePoints: Bool, className: String? = nil)
    case axisDrag(mode: AxisDragModifier.DragMode)
    case pieRotation(friction: Double, selectionEnabledDuringPanning: Bool)
    case presence

    enum Kind: String, CaseIterable {
        case zoomPan, mouseWheelZoom, zoomExtents, pinchZoom, rubberBandZoom, rollover, cursor, selection, legend, rotateChart, crosshair
        case axisDrag, pieRotation, presence
    }

    /// The modifiers of a spec that names none.
    public static let defaults: [ModifierSpec] = [.zoomPan(direction: .xy), .mouseWheelZoom(direction: .x, factor: 1.2), .zoomExtents()]

    public func make() -> ChartModifierBase {
        switch self {
        case let .zoomPan(d, momentum, clip): return ZoomPanModifier(direction: d, momentum: momentum, clipMode: clip)
        case let .mouseWheelZoom(d, f): return MouseWheelZoomModifier(direction: d, stepFactor: f)
        case let .zoomExtents(mode, duration): return ZoomExtentsModifier(mode: mode, duration: duration)
        case let .pinchZoom(d, lock): return PinchZoomModifier(direction: d, aspectLock: lock)
        case let .rubberBandZoom(d, key): return RubberBandXyZoomModifier(direction: d, key: key)
        case .rollover: return RolloverModifier()
        case .presence: return PresenceModifier()
        case .cursor: return CursorModifier()
        case let .selection(mode, toggle, togglePoints):
            let m = SeriesSelectionModifier()
            m.mode = mode
            m.toggleSelection = toggle
            m.togglePointSelection = togglePoints
            return m
        case .legend: return LegendModifier()
        case .rotateChart: return RotateChartModifier()
        case let .crosshair(mode, interpolate, className):
            return CrosshairModifier.make(className.map { .init(mode: mode, interpolatePoints: interpolate, className: $0) },
                                          mode: mode, interpolatePoints: interpolate)
        case let .axisDrag(mode): return AxisDragModifier(dragMode: mode)
        case let .pieRotation(friction, selecting):
            let m = PieRotationModifier(rotationFriction: friction)
            m.selectionEnabledDuringPanning = selecting
            return m
        }
    }
}

/// The top level of a spec file: `{"sessions": [...]}`.
public enum ConfigSpec {
    /// Reads and checks a whole spec. Errors carry the JSON path of the fault.
    public static func decode(_ json: JSONValue) throws(JSONReadError) -> [SessionSpec] {
        do {
            var r = JSONReader(json)
            let sessions = try r.objects("sessions", readSession) ?? []
            _ = try r.has("dashboards")   // read by decodeDashboards, once every session is known
            _ = try r.object("server") { try readServer(&$0) }
            try r.finish()
            var seen: Set<String> = []
            for (i, s) in sessions.enumerated() where !seen.insert(s.id).inserted {
                throw JSONReadError(path: "$.sessions[\(i)].id", message: "duplicate session id \"\(s.id)\"")
            }
            return sessions
        } catch let e as JSONReadError {
            throw e
        } catch {
            throw JSONReadError(path: "$", message: "\(error)")
        }
    }

    /// Settings of the server process a spec file may carry (`"server"`), beside the
    /// command line's, which win where both give one.
    public struct ServerSettings: Equatable, Sendable {
        /// `redis://HOST:PORT`: run as a node of a cluster (as `--redis`).
        public var redis: String? = nil
        /// Origins whose pages may embed the charts and connect (as `--allow-origin`,
        /// docs/embedding.md), normalized; nil: none given.
        public var allowOrigins: [String]? = nil
        /// Inputs logged between a cluster node's snapshots of a session (as `--redis-snapshot`).
        public var redisSnapshot: Int? = nil
        /// Entries of a session's stream kept before its snapshot (as `--redis-tail`).
        public var redisTail: Int? = nil
        /// Bytes of those entries kept at most (as `--redis-tail-bytes`).
        public var redisTailBytes: Int? = nil
        /// The only hosts (`host` or `host:port`, lowercased) a series' pull `source` URL
        /// may name (as `--pull-allow`); nil: none given.
        public var pullAllow: [String]? = nil
        /// A PEM file of the CAs `https://` pull sources are checked against instead of
        /// the system's CA store (as `--pull-ca`); nil: none given.
        public var pullCA: String? = nil
        public init() {}
    }

    /// The counts `redisSnapshot` and `redisTail` (and `--redis-snapshot`, `--redis-tail`) may take.
    public static let redisCountRange = 1...100_000_000
    /// The bytes `redisTailBytes` (and `--redis-tail-bytes`) may take: 0 to 1 TB.
    public static let redisTailBytesRange = 0...(1 << 40)

    /// Whether `v` is a `host` or `host:port` entry of a pull allow-list (`--pull-allow`,
    /// `server.pullAllow`): not empty, no `/`, space or `@`.
    public static func isPullHost(_ v: String) -> Bool {
        !v.isEmpty && !v.contains("/") && !v.contains(" ") && !v.contains("@")
    }

    static func readServer(_ r: inout JSONReader) throws -> ServerSettings {
        var out = ServerSettings()
        out.redis = try r.string("redis")
        if let list = try r.strings("allowOrigins") {
            for (i, o) in list.enumerated() {
                if let why = WebOrigin.problem(o) {
                    throw JSONReadError(path: "\(r.path).allowOrigins[\(i)]", message: "\"\(o.prefix(100))\" is not an origin: \(why)")
                }
            }
            out.allowOrigins = list.map { $0 == "*" ? "*" : WebOrigin.normalized($0) }
        }
        out.redisSnapshot = try r.integer("redisSnapshot", min: redisCountRange.lowerBound, max: redisCountRange.upperBound)
        out.redisTail = try r.integer("redisTail", min: redisCountRange.lowerBound, max: redisCountRange.upperBound)
        out.redisTailBytes = try r.integer("redisTailBytes", min: redisTailBytesRange.lowerBound, max: redisTailBytesRange.upperBound)
        if let list = try r.strings("pullAllow") {
            for (i, h) in list.enumerated() where !isPullHost(h) {
                throw JSONReadError(path: "\(r.path).pullAllow[\(i)]", message: "\"\(h.prefix(100))\" is not a host or host:port")
            }
            out.pullAllow = list.map { $0.lowercased() }
        }
        if let file = try r.string("pullCA") {
            guard !file.isEmpty else { throw JSONReadError(path: "\(r.path).pullCA", message: "expected the path of a PEM file of CA certificates") }
            out.pullCA = file
        }
        return out
    }

    /// The `server` settings of a whole spec (none: every field nil).
    public static func decodeServer(_ json: JSONValue) throws(JSONReadError) -> ServerSettings {
        do {
            var r = JSONReader(json)
            return try r.object("server") { try readServer(&$0) } ?? ServerSettings()
        } catch let e as JSONReadError {
            throw e
        } catch {
            throw JSONReadError(path: "$.server", message: "\(error)")
        }
    }

    static func identifier(_ r: inout JSONReader, _ key: String) throws -> String {
        let id = try r.requiredString(key)
        let allowed = id.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" }
        guard !id.isEmpty, id.count <= 64, allowed else {
            throw JSONReadError(path: "\(r.path).\(key)", message: "\"\(id)\" is not an id: use 1 to 64 letters, digits, - or _")
        }
        return id
    }

    /// One session's spec (an element of `sessions`), as the live-control routes take
    /// it. `runtime`: sent over the network, so it may not name files to read
    /// (`access.tokensFile`).
    public static func decodeSession(_ json: JSONValue, runtime: Bool = true) throws(JSONReadError) -> SessionSpec {
        do {
            var r = JSONReader(json)
            let spec = try readSession(&r)
            try r.finish()
            if runtime, spec.access.tokensFile != nil {
                throw JSONReadError(path: "$.access.tokensFile", message: "token files are read at start-up only; give viewerTokens and controllerTokens")
            }
            return spec
        } catch let e as JSONReadError {
            throw e
        } catch {
            throw JSONReadError(path: "$", message: "\(error)")
        }
    }

    static func readSession(_ r: inout JSONReader) throws -> SessionSpec {
        let id = try identifier(&r, "id")
        let title = try r.string("title") ?? id
        let maxFps = try r.number("maxFps", min: 1, max: 240) ?? Session.defaultMaxFps
        guard let chart = try r.object("chart", readChart) else { throw r.fail("field \"chart\" is required") }
        let description = try r.string("description")
        var spec = SessionSpec(id: id, title: title, maxFps: maxFps, chart: chart, description: description)
        spec.access = try r.object("access", readAccess) ?? .open
        spec.lineProtocol = try r.object("lineProtocol") { try LineProtocolMapping.read(&$0, series: chart.series) }
        spec.viewMode = try r.oneOf("viewMode", Session.ViewMode.self) ?? .shared
        spec.eventGroup = try r.string("eventGroup")
        spec.json = r.value
        return spec
    }

    /// `access`: tokens for viewers and controllers, and what a viewer without one gets.
    static func readAccess(_ r: inout JSONReader) throws -> SessionAccess {
        func tokens(_ key: String) throws -> [String] {
            let list = try r.strings(key) ?? []
            for (i, t) in list.enumerated() where !SessionAccess.tokenLengths.contains(t.utf8.count) {
                throw JSONReadError(path: "\(r.path).\(key)[\(i)]", message: "a token is 8 to 256 bytes")   // never the token itself
            }
            return list
        }
        var access = SessionAccess(viewerTokens: try tokens("viewerTokens"), controllerTokens: try tokens("controllerTokens"))
        access.tokensFile = try r.string("tokensFile")
        // Without a token: "none" (refused), "viewer" or "controller"; default none.
        switch try r.string("anonymous") ?? "none" {
        case "none": access.anonymous = nil
        case "viewer": access.anonymous = .viewer
        case "controller": access.anonymous = .controller
        default: throw JSONReadError(path: "\(r.path).anonymous", message: #"expected "none", "viewer" or "controller""#)
        }
        if access.anonymous == nil, access.viewerTokens.isEmpty, access.controllerTokens.isEmpty, access.tokensFile == nil {
            throw JSONReadError(path: r.path, message: "no token and no anonymous access: nobody could watch")
        }
        return access
    }

    static func readChart(_ r: inout JSONReader) throws -> ChartSpec {
        let title = try r.string("title")
        let fontFamily = try r.string("fontFamily")
        let titleFont = try readFont(&r, "titleFont")
        let titleSize = try r.number("titleSize", min: 6, max: 72) ?? 16
        // Gridlines default to the first axis of each direction only: a second Y axis'
        // lines would cross the first's.
        // "alignment": "auto" takes the side of its direction with fewer axes so far
        // (the bottom or left one first).
        func withGridDefault(_ axes: [(AxisConfig, Bool?, Bool)]) -> [AxisConfig] {
            var count: [AxisAlignment: Int] = [:]
            for a in axes where !a.2 { count[a.0.alignment, default: 0] += 1 }
            return axes.enumerated().map { i, a in
                var c = a.0
                c.showGridLines = a.1 ?? (i == 0)
                if a.2 {
                    let (first, second): (AxisAlignment, AxisAlignment) = c.alignment.isHorizontal ? (.bottom, .top) : (.left, .right)
                    c.alignment = count[second, default: 0] < count[first, default: 0] ? second : first
                    count[c.alignment, default: 0] += 1
                }
                return c
            }
        }
        // The limits are checked before any entry is read (docs/limits.md).
        let limits = SessionLimits.current
        let axisCount = (r.value["xAxes"]?.arrayValue?.count ?? 1) + (r.value["yAxes"]?.arrayValue?.count ?? 1)
        try checkCount(axisCount, limit: limits.axesPerChart, name: "axesPerChart", what: "axes (xAxes and yAxes together)",
                       path: "\(r.path).\(r.value["yAxes"]?.arrayValue?.count ?? 0 > r.value["xAxes"]?.arrayValue?.count ?? 0 ? "yAxes" : "xAxes")")
        try checkCount(r.value["series"]?.arrayValue?.count ?? 0, limit: limits.seriesPerChart, name: "seriesPerChart", what: "series",
                       path: "\(r.path).series")
        try checkCount(r.value["annotations"]?.arrayValue?.count ?? 0, limit: limits.annotationsPerChart, name: "annotationsPerChart",
                       what: "annotations", path: "\(r.path).annotations")
        let xRead = try r.objects("xAxes") { try readAxis(&$0, x: true) }
        let yRead = try r.objects("yAxes") { try readAxis(&$0, x: false) }
        var xAxes = xRead.map(withGridDefault) ?? [AxisConfig(id: "x", alignment: .bottom)]
        var yAxes = yRead.map(withGridDefault) ?? [AxisConfig(id: "y", alignment: .left, mode: .visible, growBy: (0.1, 0.1))]
        guard !xAxes.isEmpty else { throw JSONReadError(path: "\(r.path).xAxes", message: "needs at least one axis") }
        guard !yAxes.isEmpty else { throw JSONReadError(path: "\(r.path).yAxes", message: "needs at least one axis") }
        // Upright (X across, Y up the side) or rotated (X up the side: bars), never mixed.
        let across = xAxes[0].alignment.isHorizontal
        for (i, a) in xAxes.enumerated() where a.alignment.isHorizontal != across {
            throw JSONReadError(path: "\(r.path).xAxes[\(i)].alignment", message: across
                ? "an x axis sits at the top or bottom, as the first x axis does" : "an x axis sits at the left or right, as the first x axis does (a rotated chart)")
        }
        for (i, a) in yAxes.enumerated() where a.alignment.isHorizontal == across {
            throw JSONReadError(path: "\(r.path).yAxes[\(i)].alignment", message: across
                ? "a y axis sits at the left or right" : "a y axis of a rotated chart (x axes at the left or right) sits at the top or bottom")
        }
        var axisIds: Set<String> = []
        for (i, a) in (xAxes + yAxes).enumerated() where !axisIds.insert(a.id).inserted {
            let (list, k) = i < xAxes.count ? ("xAxes", i) : ("yAxes", i - xAxes.count)
            throw JSONReadError(path: "\(r.path).\(list)[\(k)].id", message: "duplicate axis id \"\(a.id)\"")
        }
        // A floating axis floats on an axis of the other direction.
        for (i, a) in (xAxes + yAxes).enumerated() {
            guard let other = a.positionAxis else { continue }
            let (list, k, others) = i < xAxes.count ? ("xAxes", i, yAxes) : ("yAxes", i - xAxes.count, xAxes)
            guard others.contains(where: { $0.id == other }) else {
                throw JSONReadError(path: "\(r.path).\(list)[\(k)].positionAxis",
                                    message: "no \(i < xAxes.count ? "y" : "x") axis \"\(other)\"")
            }
        }

        var series = try r.objects("series", readSeries) ?? []
        var seriesIds: Set<String> = []
        for (i, s) in series.enumerated() {
            let path = "\(r.path).series[\(i)]"
            guard seriesIds.insert(s.id).inserted else {
                throw JSONReadError(path: "\(path).id", message: "duplicate series id \"\(s.id)\"")
            }
            if let x = s.xAxis, !xAxes.contains(where: { $0.id == x }) {
                throw JSONReadError(path: "\(path).xAxis", message: "no x axis \"\(x)\"")
            }
            if let names = s.xNames, let axis = s.xAxis.flatMap({ x in xAxes.first { $0.id == x } }) ?? xAxes.first {
                series[i].xs = try CategoryNames.positions(names, axis: axis, path: "\(path).data.x")
            }
            if let y = s.yAxis, !yAxes.contains(where: { $0.id == y }) {
                throw JSONReadError(path: "\(path).yAxis", message: "no y axis \"\(y)\"")
            }
        }
        try checkStacks(series, path: r.path, xAxis: xAxes[0].id, yAxis: yAxes[0].id)
        if let i = series.firstIndex(where: \.kind.isRadial), series.count > 1 {
            throw JSONReadError(path: "\(r.path).series[\(i)]", message: "a \(series[i].kind.rawValue) series is drawn alone on its chart, without axes")
        }

        let legend: LegendConfig? = try r.object("legend") { l in
            let show = try l.bool("show") ?? true
            if let old = l.value["placement"]?.stringValue, LegendPosition(rawValue: old) != nil {
                throw JSONReadError(path: "\(l.path).placement", message: "the corner is now \"position\" (\"position\": \"\(old)\"); "
                                    + "\"placement\" is \"insidePlotArea\" or \"outsidePlotArea\"")
            }
            let position = try l.oneOf("position", LegendPosition.self) ?? .topLeft
            let named = try l.oneOf("placement", LegendPlacement.self)
            let size = try l.number("textSize", min: 6, max: 72) ?? 12
            var config = LegendConfig(position: position, placement: named ?? .insidePlotArea, textSize: size, pinned: named != nil)
            config.font = try readFont(&l, "font")
            config.padding = try l.number("padding", min: 0, max: 50)
            return show ? config : nil
        } ?? LegendConfig()

        let themeSpec = try r.object("theme", readTheme) ?? ThemeSpec()

        let modifiers = try r.objects("modifiers") { m -> ModifierSpec in
            guard let kind = try m.oneOf("type", ModifierSpec.Kind.self) else { throw m.fail("field \"type\" is required") }
            switch kind {
            case .zoomPan:
                return .zoomPan(direction: try m.oneOf("direction", ModifierDirection.self) ?? .xy,
                                momentum: try m.bool("momentum") ?? true,
                                clipMode: try m.oneOf("clipMode", ZoomPanModifier.ClipMode.self) ?? .clipAtExtents)
            case .mouseWheelZoom:
                return .mouseWheelZoom(direction: try m.oneOf("direction", ModifierDirection.self) ?? .x,
                                       factor: try m.number("factor", min: 1.01, max: 10) ?? 1.2)
            case .zoomExtents:
                return .zoomExtents(mode: try m.oneOf("mode", ZoomExtentsModifier.Mode.self) ?? .extents,
                                    duration: try m.number("duration", min: 0, max: 5) ?? 0.3)
            case .pinchZoom:
                return .pinchZoom(direction: try m.oneOf("direction", ModifierDirection.self) ?? .xy,
                                  aspectLock: try m.bool("aspectLock") ?? false)
            case .rubberBandZoom:
                return .rubberBandZoom(direction: try m.oneOf("direction", ModifierDirection.self) ?? .xy,
                                       key: try m.oneOf("key", RubberBandXyZoomModifier.Key.self) ?? .shift)
            case .rollover: return .rollover
            case .presence: return .presence
            case .cursor: return .cursor
            case .selection:
                return .selection(mode: try m.oneOf("selectionMode", SeriesSelectionModifier.Mode.self) ?? .series,
                                  toggleSelection: try m.bool("toggleSelection") ?? true,
                                  togglePointSelection: try m.bool("togglePointSelection") ?? true)
            case .legend: return .legend
            case .rotateChart: return .rotateChart
            case .crosshair:
                // (Whether the program registered the class is checked at the door, for
                // live changes only: a stored session is rebuilt whatever the program has.)
                let className = try m.string("class")
                if let className, let why = CrosshairModifier.classNameProblem(className) {
                    throw JSONReadError(path: m.child("class"), message: why)
                }
                return .crosshair(mode: try m.oneOf("mode", CrosshairModifier.Mode.self) ?? .singleSeries,
                                  interpolatePoints: try m.bool("interpolatePoints") ?? false, className: className)
            case .axisDrag:
                return .axisDrag(mode: try m.oneOf("dragMode", AxisDragModifier.DragMode.self) ?? .scale)
            case .pieRotation:
                return .pieRotation(friction: try m.number("rotationFriction", min: 0, max: 100) ?? 3,
                                    selectionEnabledDuringPanning: try m.bool("selectionEnabledDuringPanning") ?? false)
            }
        } ?? ModifierSpec.defaults

        let axisSpacing = try r.number("axisSpacing", min: 0, max: 100) ?? 0
        var stackedSides: Set<AxisAlignment> = []
        try r.object("axisLayout") { l in
            for side in AxisAlignment.allCases where try l.oneOf(side.rawValue, AxisSideLayout.self) == .stacked {
                stackedSides.insert(side)
            }
        }
        // Axes stacked along the plot each have a pane of their own: their gridlines
        // cross no other axis', so each has them unless the spec says otherwise, and so
        // does each axis of the other direction, drawn across the panes of the axes its
        // series use (`ChartRenderer.gridSpan`).
        if !stackedSides.isEmpty {
            let stackedY = yAxes.contains { stackedSides.contains($0.alignment) }
            let stackedX = xAxes.contains { stackedSides.contains($0.alignment) }
            for i in yAxes.indices where yRead?[i].1 == nil && (stackedX || stackedSides.contains(yAxes[i].alignment)) {
                yAxes[i].showGridLines = true
            }
            for i in xAxes.indices where xRead?[i].1 == nil && (stackedY || stackedSides.contains(xAxes[i].alignment)) {
                xAxes[i].showGridLines = true
            }
        }
        let images = try readImages(&r)
        let annotations = try r.objects("annotations") { a in try readAnnotation(&a, xAxes: xAxes, yAxes: yAxes, images: images) } ?? []
        if let i = series.firstIndex(where: \.kind.isRadial), !annotations.isEmpty {
            throw JSONReadError(path: "\(r.path).annotations", message: "annotations need axes; the \(series[i].kind.rawValue) chart has none")
        }
        var spec = ChartSpec(title: title, xAxes: xAxes, yAxes: yAxes, series: series, legend: legend, themeSpec: themeSpec,
                             modifiers: modifiers, axisSpacing: axisSpacing, stackedSides: stackedSides,
                             clipSeries: try r.bool("clipSeries") ?? true, margins: try readMargins(&r))
        spec.annotations = annotations
        spec.images = images
        spec.fontFamily = fontFamily
        spec.titleFont = titleFont
        spec.titleSize = titleSize
        try checkFonts(spec, path: r.path)
        return spec
    }

    /// A font object: `{"family": "Liberation Serif", "weight": "bold", "italic": true}`,
    /// each field optional (`TextFont`). Whether the server has it is `checkFonts`'.
    static func readFont(_ r: inout JSONReader, _ key: String) throws -> TextFont {
        try r.object(key) { f in
            let family = try f.string("family")
            if let family, family.isEmpty { throw JSONReadError(path: "\(f.path).family", message: "a family name, or leave it out for the chart's") }
            let weight = try f.oneOf("weight", FontWeight.self)
            return TextFont(family: family, bold: weight.map { $0 == .bold }, italic: try f.bool("italic") ?? false)
        } ?? TextFont()
    }

    /// Every text's font names a family the server has (`FontFamilies`), in a face it
    /// has: else an error at the field, naming the families there are.
    static func checkFonts(_ spec: ChartSpec, path: String) throws {
        func check(_ font: TextFont, bold: Bool, at field: String) throws {
            let family = font.family ?? spec.fontFamily
            if let why = FontFamilies.problem(family: family, face: FontFace(bold: font.bold ?? bold, italic: font.italic)) {
                throw JSONReadError(path: font.family == nil && spec.fontFamily != nil && !font.italic && font.bold == nil
                                    ? "\(path).fontFamily" : "\(path).\(field)", message: why)
            }
        }
        if let family = spec.fontFamily, let why = FontFamilies.problem(family: family, face: FontFace()) {
            throw JSONReadError(path: "\(path).fontFamily", message: why)
        }
        try check(spec.titleFont, bold: true, at: "titleFont")
        for (list, axes) in [("xAxes", spec.xAxes), ("yAxes", spec.yAxes)] {
            for (i, a) in axes.enumerated() {
                try check(a.labelFont, bold: false, at: "\(list)[\(i)].labelFont")
                try check(a.titleFont, bold: false, at: "\(list)[\(i)].titleFont")
            }
        }
        if let legend = spec.legend { try check(legend.font, bold: false, at: "legend.font") }
        for (i, a) in spec.annotations.enumerated() { try check(a.font, bold: false, at: "annotations[\(i)].font") }
    }

    /// Most images a chart holds, and their most bytes together.
    static let maxImages = 32
    static let maxImageBytes = 8 << 20

    /// `images`: names (ids) to `data:` URLs of PNG, JPEG or GIF images.
    static func readImages(_ r: inout JSONReader) throws -> [String: ChartImage] {
        guard try r.has("images") else { return [:] }
        let path = "\(r.path).images"
        guard case let .object(members)? = r.value["images"] else {
            throw JSONReadError(path: path, message: #"expected an object of names to data URLs: {"logo": "data:image/png;base64,..."}"#)
        }
        guard members.count <= maxImages else { throw JSONReadError(path: path, message: "at most \(maxImages) images") }
        var images: [String: ChartImage] = [:], total = 0
        for (name, value) in members {
            let allowed = name.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" }
            guard !name.isEmpty, name.count <= 64, allowed else {
                throw JSONReadError(path: "\(path).\(name)", message: "\"\(name)\" is not an image name: use 1 to 64 letters, digits, - or _")
            }
            guard let url = value.stringValue else { throw JSONReadError(path: "\(path).\(name)", message: "expected a data URL string, found \(value.kindName)") }
            do {
                let image = try ChartImage(dataURL: url)
                total += image.bytes.count
                guard total <= maxImageBytes else { throw JSONReadError(path: "\(path).\(name)", message: "a chart's images come to at most \(maxImageBytes) bytes") }
                images[name] = image
            } catch let e as ChartImage.Problem {
                throw JSONReadError(path: "\(path).\(name)", message: e.message)
            }
        }
        return images
    }

    /// An axis, and its `gridLines` if the spec gives it (the default depends on the
    /// axis' place in its list).
    static func readAxis(_ r: inout JSONReader, x: Bool) throws -> (AxisConfig, Bool?, Bool) {
        let id = try identifier(&r, "id")
        let auto = r.value["alignment"]?.stringValue == "auto"
        let alignment = auto ? (x ? .bottom : .left) : try r.oneOf("alignment", AxisAlignment.self) ?? (x ? .bottom : .left)
        if auto { _ = try r.string("alignment") }
        let mode = try r.oneOf("mode", AxisRangeMode.self) ?? (x ? .extents : .visible)
        let window = try r.number("window")
        var range: DoubleRange? = nil
        if let ends = try r.numbers("range") {
            guard ends.count == 2, ends[0] < ends[1] else {
                throw JSONReadError(path: "\(r.path).range", message: "expected [min, max] with min < max")
            }
            range = DoubleRange(ends[0], ends[1])
        }
        var growBy = x ? (0.0, 0.0) : (0.1, 0.1)
        if let g = try r.numbers("growBy") {
            guard g.count == 2, g.allSatisfy({ $0 >= 0 && $0 <= 10 }) else {
                throw JSONReadError(path: "\(r.path).growBy", message: "expected [lower, upper], each from 0 to 10")
            }
            growBy = (g[0], g[1])
        }
        switch mode {
        case .follow:
            guard x else { throw JSONReadError(path: "\(r.path).mode", message: "\"follow\" is for x axes") }
            guard let w = window, w > 0 else {
                throw JSONReadError(path: "\(r.path).window", message: "a positive window is required with mode \"follow\"")
            }
        case .visible:
            guard !x else { throw JSONReadError(path: "\(r.path).mode", message: "\"visible\" is for y axes") }
        case .fixed:
            guard range != nil else { throw JSONReadError(path: "\(r.path).range", message: "is required with mode \"fixed\"") }
        case .extents:
            break
        }
        if window != nil, mode != .follow {
            throw JSONReadError(path: "\(r.path).window", message: "only applies with mode \"follow\"")
        }
        let gridLines = try r.bool("gridLines")
        let type = try r.oneOf("type", AxisType.self) ?? .numeric
        let labelFormat = try r.oneOf("labelFormat", NumberLabelFormat.self)
        let timeZone = try r.string("timeZone")
        if labelFormat != nil, type == .time {
            throw JSONReadError(path: "\(r.path).labelFormat", message: "only applies to numeric and logarithmic axes")
        }
        let logBase = try r.number("logBase", min: 1.000001, max: 1e6)
        if logBase != nil, type != .logarithmic {
            throw JSONReadError(path: "\(r.path).logBase", message: "only applies with type \"logarithmic\"")
        }
        if type == .logarithmic, let rr = range, rr.min <= 0 {
            throw JSONReadError(path: "\(r.path).range", message: "a logarithmic axis shows positive values only")
        }
        if let z = timeZone {
            guard type == .time else {
                throw JSONReadError(path: "\(r.path).timeZone", message: "only applies with type \"time\"")
            }
            guard TimeZones.isKnown(z) else {
                throw JSONReadError(path: "\(r.path).timeZone", message: "unknown time zone \"\(z)\" (use an IANA name such as \"Europe/Berlin\", or \"UTC\")")
            }
        }
        // `labelSpace`: a mode by name, or a fixed size in pixels.
        var labelSpace = LabelSpaceReservation.maxPresentedSize
        if r.value["labelSpace"]?.doubleValue != nil {
            labelSpace = .fixed(try r.number("labelSpace", min: 0, max: 1000)!)
        } else if let mode = try r.oneOf("labelSpace", LabelSpaceMode.self) {
            labelSpace = switch mode {
            case .current: .current
            case .minPresentedSize: .minPresentedSize
            case .maxPresentedSize: .maxPresentedSize
            }
        }
        // Ticks placed by the user.
        var placement = TickPlacement()
        placement.values = try r.numbers("tickValues")
        if let v = placement.values, v.count > 500 {
            throw JSONReadError(path: "\(r.path).tickValues", message: "at most 500 values")
        }
        // On a time axis the frequencies are calendar steps: {"unit": "month", "count": 1}.
        func calendar(_ key: String) throws -> TimeStep? {
            guard case .object? = r.value[key] else { return nil }
            guard type == .time else {
                throw JSONReadError(path: "\(r.path).\(key)", message: #"a calendar frequency ({"unit", "count"}) is for time axes; give a number of data units"#)
            }
            return try r.object(key) { f in
                guard let unit = try f.oneOf("unit", TimeUnitName.self) else { throw f.fail(#"field "unit" is required"#) }
                return TimeStep(try f.integer("count", min: 1, max: 1_000_000) ?? 1, unit.unit)
            }
        }
        if type == .time, let v = r.value["majorTickFrequency"] ?? r.value["minorTickFrequency"], v.doubleValue != nil {
            let key = r.value["majorTickFrequency"]?.doubleValue != nil ? "majorTickFrequency" : "minorTickFrequency"
            throw JSONReadError(path: "\(r.path).\(key)", message: #"a time axis ticks by the calendar: give {"unit": "day", "count": 1} ("#
                                + TimeUnitName.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        let majorTime = try calendar("majorTickFrequency"), minorTime = try calendar("minorTickFrequency")
        if majorTime == nil { placement.majorFrequency = try r.number("majorTickFrequency", min: 1e-300) }
        let anchor = try r.number("tickAnchor")
        placement.anchor = anchor ?? 0
        if let step = majorTime { placement.majorTime = TimeFrequency(step, anchor: anchor) }
        if let step = minorTime { placement.minorTime = TimeFrequency(step, anchor: anchor) }
        if placement.values != nil, placement.majorFrequency != nil {
            throw JSONReadError(path: "\(r.path).majorTickFrequency", message: "give tickValues or majorTickFrequency, not both")
        }
        if let m = try r.number("tickMultiplier", min: 1e-300) {
            guard type == .numeric else {
                throw JSONReadError(path: "\(r.path).tickMultiplier", message: "only applies with a numeric axis (type \"numeric\")")
            }
            guard placement.values == nil, placement.majorFrequency == nil else {
                throw JSONReadError(path: "\(r.path).tickMultiplier", message: "give one of tickValues, majorTickFrequency and tickMultiplier")
            }
            placement.multiplier = m
        }
        if minorTime == nil, let f = try r.number("minorTickFrequency", min: 1e-300) {
            placement.minor = .frequency(f)
        }
        if r.value["minorTicks"]?.stringValue != nil {
            guard try r.string("minorTicks") == "auto" else {
                throw JSONReadError(path: "\(r.path).minorTicks", message: "expected \"auto\" or a number of divisions from 2 to 20")
            }
            placement.minor = .auto
        } else if let n = try r.integer("minorTicks", min: 0, max: 20) {
            guard n != 1 else { throw JSONReadError(path: "\(r.path).minorTicks", message: "expected \"auto\" or a number of divisions from 2 to 20") }
            if case .frequency = placement.minor {
                throw JSONReadError(path: "\(r.path).minorTicks", message: "give minorTicks or minorTickFrequency, not both")
            }
            placement.minor = n == 0 ? .none : .divisions(n)
        }
        if type == .time, placement.values != nil || placement.majorFrequency != nil || placement.minor != .none {
            throw JSONReadError(path: "\(r.path)", message: #"tickValues and minorTicks are for numeric and logarithmic axes (a time axis takes calendar frequencies: "majorTickFrequency": {"unit": "month", "count": 1})"#)
        }
        let minorByFrequency: Bool = if case .frequency = placement.minor { true } else { minorTime != nil }
        if anchor != nil, placement.majorFrequency == nil, placement.multiplier == nil, majorTime == nil, !minorByFrequency {
            throw JSONReadError(path: "\(r.path).tickAnchor", message: "only applies with majorTickFrequency, tickMultiplier or minorTickFrequency")
        }
        let visibility = try r.oneOf("visibility", AxisVisibility.self) ?? .visible
        let lineColor = try r.string("lineColor"), labelColor = try r.string("labelColor")
        if let c = lineColor { try checkColor(c, path: "\(r.path).lineColor") }
        if let c = labelColor { try checkColor(c, path: "\(r.path).labelColor") }
        let labelFont = try readFont(&r, "labelFont"), titleFont = try readFont(&r, "titleFont")
        let titleColor = try r.string("titleColor")
        if let c = titleColor { try checkColor(c, path: "\(r.path).titleColor") }
        let tickColor = try r.string("tickColor"), gridLineColor = try r.string("gridLineColor")
        if let c = tickColor { try checkColor(c, path: "\(r.path).tickColor") }
        if let c = gridLineColor { try checkColor(c, path: "\(r.path).gridLineColor") }
        let tickWidth = try r.number("tickWidth", min: 0, max: 10), gridLineWidth = try r.number("gridLineWidth", min: 0, max: 10)
        let gridLineDash = try r.numbers("gridLineDash") ?? []
        guard gridLineDash.count <= 16, gridLineDash.allSatisfy({ $0 >= 0 && $0 <= 1000 }), gridLineDash.isEmpty || gridLineDash.contains(where: { $0 > 0 }) else {
            throw JSONReadError(path: "\(r.path).gridLineDash", message: "a dash pattern is up to 16 lengths from 0 to 1000 px, not all 0")
        }
        let categories = try r.strings("categories")
        if type == .category {
            guard let c = categories, !c.isEmpty, c.count <= 10_000 else {
                throw JSONReadError(path: "\(r.path).categories", message: "a category axis needs 1 to 10000 names")
            }
            if placement.values != nil || placement.majorFrequency != nil || placement.minor != .none || labelFormat != nil {
                throw JSONReadError(path: "\(r.path)", message: "a category axis has a tick at each named slot: no tick or label settings")
            }
        } else if categories != nil {
            throw JSONReadError(path: "\(r.path).categories", message: "only applies with type \"category\"")
        }
        let minorGridLines = try r.bool("minorGridLines") ?? false
        let bands = try r.bool("bands") ?? false
        let isCenterAxis = try r.bool("isCenterAxis") ?? false
        let positionValue = try r.number("axisPositionValue")
        let positionAxis = try r.string("positionAxis")
        if positionValue != nil || positionAxis != nil, !isCenterAxis {
            throw JSONReadError(path: "\(r.path).\(positionValue != nil ? "axisPositionValue" : "positionAxis")",
                                message: "only applies with \"isCenterAxis\": true")
        }
        let config = AxisConfig(
            id: id, alignment: alignment, title: try r.string("title"), mode: mode, window: window, range: range,
            growBy: growBy, labelSize: try r.number("labelSize", min: 6, max: 72) ?? 12,
            titleSize: try r.number("titleSize", min: 6, max: 72) ?? 13, flipped: try r.bool("flipped") ?? false,
            showGridLines: gridLines ?? true, type: type, labelFormat: labelFormat ?? .auto, timeZone: timeZone ?? "UTC",
            labelSpace: labelSpace, isCenterAxis: isCenterAxis, axisPositionValue: positionValue, positionAxis: positionAxis,
            logBase: logBase ?? 10, tickPlacement: placement, minorGridLines: minorGridLines, bands: bands,
            visibility: visibility, tickLength: try r.number("tickLength", min: 0, max: 30) ?? 5,
            labelSpacing: try r.number("labelSpacing", min: 0, max: 50) ?? 4,
            titleSpacing: try r.number("titleSpacing", min: 0, max: 50) ?? 6,
            lineWidth: try r.number("lineWidth", min: 0, max: 10), lineColor: lineColor, labelColor: labelColor)
        var withCategories = config
        withCategories.labelFont = labelFont
        withCategories.titleFont = titleFont
        withCategories.titleColor = titleColor
        withCategories.tickColor = tickColor
        withCategories.tickWidth = tickWidth
        withCategories.gridLineColor = gridLineColor
        withCategories.gridLineWidth = gridLineWidth
        withCategories.gridLineDash = gridLineDash
        withCategories.labelBackground = try r.bool("labelBackground")
        withCategories.categories = categories ?? []
        withCategories.interSeriesPadding = try r.number("interSeriesPadding", min: 0, max: 0.95) ?? 0
        withCategories.interSeriesSetPadding = try r.number("interSeriesSetPadding", min: 0, max: 0.95) ?? 0.2
        if let p = try r.numbers("rangePadding") {
            guard p.count == 2, p.allSatisfy({ $0 >= 0 }) else {
                throw JSONReadError(path: "\(r.path).rangePadding", message: "expected [low, high], each at least 0 (data units)")
            }
            guard type != .logarithmic else {
                throw JSONReadError(path: "\(r.path).rangePadding", message: "use growBy on a logarithmic axis (padding in powers)")
            }
            withCategories.rangePadding = (p[0], p[1])
        }
        withCategories.labelAngle = try r.number("labelAngle", min: -90, max: 90) ?? 0
        try r.object("padding") { p in
            func mode(_ key: String) throws -> AxisEndPadding.Mode {
                let path = "\(p.path).\(key)"
                let problem = JSONReadError(path: path, message: #"expected "none", "label", a number of pixels, {"maxLabelFixed": px} or {"labelPlus": px}"#)
                switch p.value[key] {
                case nil, .null?: _ = try p.has(key); return .none
                case let v? where v.doubleValue != nil:
                    return .fixed(try p.number(key, min: 0, max: 500)!)
                case let v? where v.stringValue != nil:
                    switch try p.string(key) {
                    case "none": return .none
                    case "label": return .label
                    default: throw problem
                    }
                default:
                    var result: AxisEndPadding.Mode = .none
                    try p.object(key) { o in
                        if let n = try o.number("maxLabelFixed", min: 0, max: 500) { result = .maxLabelFixed(n) }
                        else if let n = try o.number("labelPlus", min: 0, max: 500) { result = .labelPlus(n) }
                        else { throw problem }
                    }
                    return result
                }
            }
            withCategories.endPadding = AxisEndPadding(leading: try mode("leading"), trailing: try mode("trailing"))
        }
        withCategories.labelGap = try r.number("labelGap", min: 0, max: 100)
        withCategories.width = try r.number("width", min: 0, max: 500)
        withCategories.labelDecimals = try r.integer("labelDecimals", min: 0, max: 15)
        if let f = try r.string("dateFormat") {
            guard type == .time else { throw JSONReadError(path: "\(r.path).dateFormat", message: #"only applies with type "time""#) }
            guard !f.isEmpty, f.count <= 64 else { throw JSONReadError(path: "\(r.path).dateFormat", message: "a pattern of 1 to 64 characters") }
            withCategories.dateFormat = f
        }
        try r.object("labelMap") { m in
            guard case let .object(members) = m.value else { return }
            for (key, _) in members {
                guard let v = Double(key), v.isFinite else {
                    throw JSONReadError(path: "\(m.path).\(key)", message: "the keys of labelMap are tick values (numbers)")
                }
                guard let text = try m.string(key) else { continue }
                withCategories.labelMap[v] = text
            }
        }
        if (withCategories.labelDecimals != nil || !withCategories.labelMap.isEmpty), type == .time || type == .category {
            throw JSONReadError(path: r.path, message: "labelDecimals and labelMap are for numeric and logarithmic axes")
        }
        withCategories.labelsAreFixed = try r.bool("axisLabelsAreFixed") ?? false
        if withCategories.labelsAreFixed, positionValue == nil {
            throw JSONReadError(path: "\(r.path).axisLabelsAreFixed", message: "only applies with axisPositionValue")
        }
        if try r.bool("clipContents") == true {
            withCategories.tickLabelClippingLow = .ticksPersist
            withCategories.tickLabelClippingHigh = .ticksPersist
        }
        withCategories.tickLabelClippingLow = try r.oneOf("tickLabelClippingModeLow", TickLabelClipping.self) ?? withCategories.tickLabelClippingLow
        withCategories.tickLabelClippingHigh = try r.oneOf("tickLabelClippingModeHigh", TickLabelClipping.self) ?? withCategories.tickLabelClippingHigh
        try readBreaks(&r, into: &withCategories)
        if let z = try r.numbers("zoomLimits") {
            guard z.count == 2, z[0] > 0, z[0] <= z[1] else {
                throw JSONReadError(path: "\(r.path).zoomLimits", message: "expected [narrowest, widest] span, 0 < narrowest <= widest")
            }
            withCategories.zoomLimits = z[0]...z[1]
        }
        if let p = try r.numbers("panLimits") {
            guard p.count == 2, p[0] < p[1] else {
                throw JSONReadError(path: "\(r.path).panLimits", message: "expected [min, max] with min < max")
            }
            withCategories.panLimits = DoubleRange(p[0], p[1])
        }
        withCategories.gesturePanning = try r.bool("enableGesturePanning") ?? true
        withCategories.gestureZooming = try r.bool("enableGestureZooming") ?? true
        // Where the axis is zoomed to when the chart starts (the state a saved live
        // spec keeps, `GET /api/sessions/{s}/spec`); zooming to extents leaves it.
        if let v = try r.numbers("visibleRange") {
            guard v.count == 2, v[0] < v[1] else {
                throw JSONReadError(path: "\(r.path).visibleRange", message: "expected [min, max] with min < max")
            }
            if type == .logarithmic, v[0] <= 0 {
                throw JSONReadError(path: "\(r.path).visibleRange", message: "a logarithmic axis shows positive values only")
            }
            withCategories.visibleRange = DoubleRange(v[0], v[1])
        }
        return (withCategories, gridLines, auto)
    }

    /// A discontinuous axis: `excludedRanges`, `excludedPeriod`, and on time axes
    /// `weekends` and `tradingHours`.
    static func readBreaks(_ r: inout JSONReader, into c: inout AxisConfig) throws {
        if try r.has("excludedRanges") {
            guard let list = r.value["excludedRanges"]?.arrayValue else {
                throw JSONReadError(path: "\(r.path).excludedRanges", message: "expected an array of [from, to] pairs")
            }
            c.excludedRanges = try list.enumerated().map { i, item in
                let path = "\(r.path).excludedRanges[\(i)]"
                guard let pair = item.arrayValue?.compactMap(\.doubleValue), pair.count == 2, pair[0] < pair[1],
                      pair.allSatisfy(\.isFinite) else {
                    throw JSONReadError(path: path, message: "expected [from, to] with from < to")
                }
                return DoubleRange(pair[0], pair[1])
            }
        }
        try r.object("excludedPeriod") { p in
            let period = try p.number("period", min: 1e-9) ?? 0
            guard period > 0 else { throw p.fail("field \"period\" is required") }
            var stretches: [(start: Double, length: Double)] = []
            if try p.has("ranges") {
                guard let list = p.value["ranges"]?.arrayValue else {
                    throw JSONReadError(path: "\(p.path).ranges", message: "expected an array of [start, end] pairs")
                }
                for (i, item) in list.enumerated() {
                    guard let pair = item.arrayValue?.compactMap(\.doubleValue), pair.count == 2, pair[0] < pair[1] else {
                        throw JSONReadError(path: "\(p.path).ranges[\(i)]", message: "expected [start, end] within the period, start < end")
                    }
                    stretches.append((pair[0], pair[1] - pair[0]))
                }
            }
            guard AxisBreaks.Pattern(period: period, stretches: stretches) != nil else {
                throw p.fail("give ranges that leave part of each period shown")
            }
            c.excludedPeriod = (period, stretches)
        }
        if let rules = try r.objects("exclude", readExclusion) {
            if c.type != .time {
                throw JSONReadError(path: "\(r.path).exclude", message: #"only applies with type "time""#)
            }
            if rules.count > 400 {
                throw JSONReadError(path: "\(r.path).exclude", message: "\(rules.count) rules; an axis has at most 400")
            }
            c.calendarExclusions = rules
        }
        c.excludeWeekends = try r.bool("weekends") ?? false
        if let hours = try r.strings("tradingHours") {
            func seconds(_ s: String) -> Double? {
                let parts = s.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, (0...24).contains(parts[0]), (0..<60).contains(parts[1]) else { return nil }
                return Double(parts[0] * 3600 + parts[1] * 60)
            }
            guard hours.count == 2, let open = seconds(hours[0]), let close = seconds(hours[1]), open < close, close <= 86_400 else {
                throw JSONReadError(path: "\(r.path).tradingHours", message: #"expected ["HH:MM", "HH:MM"], opening before closing"#)
            }
            c.tradingHours = (open, close)
        }
        if (c.excludeWeekends || c.tradingHours != nil), c.type != .time {
            throw JSONReadError(path: "\(r.path).\(c.excludeWeekends ? "weekends" : "tradingHours")", message: #"only applies with type "time""#)
        }
        let weekly = c.calendarExclusions.filter(\.isPattern)
        if c.excludeWeekends || c.tradingHours != nil || !weekly.isEmpty, c.excludedPeriod != nil {
            throw JSONReadError(path: "\(r.path).excludedPeriod",
                                message: "give weekends, tradingHours and weekly or daily exclude rules, or excludedPeriod, not both")
        }
        if !weekly.isEmpty {
            var rules = weekly
            if c.excludeWeekends { rules.append(.weekly(start: 5 * 86_400, length: 2 * 86_400)) }
            if let h = c.tradingHours { rules.append(.daily(start: h.close, length: 86_400 - (h.close - h.open))) }
            if AxisBreaks.Pattern(period: 7 * 86_400, stretches: CalendarExclusion.weekStretches(rules, offset: 0)) == nil {
                throw JSONReadError(path: "\(r.path).exclude", message: "these rules leave out the whole week: leave part of it shown")
            }
        }
        if c.isDiscontinuous, c.type == .logarithmic || c.type == .category {
            throw JSONReadError(path: r.path, message: "only numeric and time axes can leave ranges out")
        }
    }

    /// One `exclude` rule of a time axis: `{"date": "2026-12-25"}`, `{"every": "year",
    /// "on": "12-25"}`, `{"every": "month", "on": "last Fri"}` (each with `"days"`, 1 by
    /// default, and local times `"from"` on the first day and `"to"` on the last, whole
    /// days by default: `{"date": "2027-11-26", "from": "13:00"}` is an early close),
    /// `{"every": "week", "from": "Sat 00:00", "to": "Mon 00:00"}` or
    /// `{"every": "day", "from": "18:00", "to": "09:00"}` (`"length": "2d"` in place of
    /// `to`).
    static func readExclusion(_ r: inout JSONReader) throws -> CalendarExclusion {
        let every = try r.string("every")
        let date = try r.string("date")
        /// A dated rule's days and local times, its stretch not empty.
        func span() throws -> (days: Int, from: Double, to: Double) {
            if try r.has("length") {
                throw JSONReadError(path: r.child("length"), message: #"only applies with "every": "week" or "day"; a dated rule takes "days", "from" and "to""#)
            }
            let days = try r.integer("days", min: 1, max: 366) ?? 1
            func time(_ key: String) throws -> Double? {
                guard let text = try r.string(key) else { return nil }
                guard let v = dayTime(text) else { throw JSONReadError(path: r.child(key), message: #"expected a time of day, "HH:MM""#) }
                return v
            }
            let from = try time("from"), to = try time("to")
            let (f, t) = (from ?? 0, to ?? 86_400)
            guard Double(days - 1) * 86_400 + t > f else {
                throw JSONReadError(path: r.child(to != nil ? "to" : "from"),
                                    message: #"ends at or before it begins: "to" is on the rule's last day; past midnight, give "days": 2"#)
            }
            return (days, f, t)
        }
        if let date {
            guard every == nil else { throw JSONReadError(path: r.child("every"), message: #"give "date" or "every", not both"#) }
            let parts = date.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2], (1...12).contains(m),
                  CivilTime.civil(fromDays: CivilTime.days(year: y, month: m, day: d)) == (y, m, d), abs(y) < 100_000 else {
                throw JSONReadError(path: r.child("date"), message: #"expected a date "YYYY-MM-DD""#)
            }
            let t = try span()
            return .date(year: y, month: m, day: d, days: t.days, from: t.from, to: t.to)
        }
        guard let every else {
            throw r.fail(#"give "date" (one date) or "every" ("year", "month", "week" or "day")"#)
        }
        switch every {
        case "year":
            let on = try r.requiredString("on")
            let parts = on.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            // 2024 is a leap year: 02-29 is a date.
            guard parts.count == 2, let m = parts[0], let d = parts[1], (1...12).contains(m),
                  CivilTime.civil(fromDays: CivilTime.days(year: 2024, month: m, day: d)) == (2024, m, d) else {
                throw JSONReadError(path: r.child("on"), message: #"expected a month and day "MM-DD""#)
            }
            let t = try span()
            return .yearly(month: m, day: d, days: t.days, from: t.from, to: t.to)
        case "month":
            let on = try r.requiredString("on")
            guard let which = monthDay(on) else {
                throw JSONReadError(path: r.child("on"), message: #"expected a day ("15"), "last", or a weekday of the month ("first Mon", "2nd Tue", "last Fri")"#)
            }
            let t = try span()
            return .monthly(which, days: t.days, from: t.from, to: t.to)
        case "week", "day":
            if try r.has("days") {
                throw JSONReadError(path: r.child("days"), message: #"give "from" and "to" or "length" for a weekly or daily stretch"#)
            }
            let weekly = every == "week"
            let cycle = weekly ? 7 * 86_400.0 : 86_400.0
            func at(_ key: String) throws -> Double? {
                guard let text = try r.string(key) else { return nil }
                guard let v = weekly ? weekTime(text) : dayTime(text) else {
                    throw JSONReadError(path: r.child(key), message: weekly ? #"expected a weekday and time, "Sat 00:00""# : #"expected a time of day, "HH:MM""#)
                }
                return v
            }
            guard let from = try at("from") else { throw JSONReadError(path: r.child("from"), message: "is required") }
            let to = try at("to")
            let lengthText = try r.string("length")
            var length: Double
            switch (to, lengthText) {
            case let (to?, nil):
                length = to - from
                if length <= 0 { length += cycle }    // past midnight, or past Sunday
            case let (nil, text?):
                guard let l = duration(text), l > 0, l < cycle else {
                    throw JSONReadError(path: r.child("length"), message: weekly ? #"expected a duration shorter than a week, "2d", "12h", "1d6h30m""#
                                                                          : #"expected a duration shorter than a day, "15h", "90m", "8h30m""#)
                }
                length = l
            default:
                throw JSONReadError(path: r.path, message: #"give "to" or "length", one of them"#)
            }
            guard length < cycle else { throw JSONReadError(path: r.child("to"), message: "leaves out the whole \(every): leave part of it shown") }
            return weekly ? .weekly(start: from, length: length) : .daily(start: from, length: length)
        default:
            throw JSONReadError(path: r.child("every"), message: #"expected "year", "month", "week" or "day""#)
        }
    }

    /// "HH:MM" (00:00 ... 24:00) as seconds after midnight.
    static func dayTime(_ s: String) -> Double? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let h = parts[0], let m = parts[1], (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440 else { return nil }
        return Double(h * 3600 + m * 60)
    }

    static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// "Sat 00:00" (or "Sat") as seconds after Monday 00:00.
    static func weekTime(_ s: String) -> Double? {
        let parts = s.split(separator: " ")
        guard (1...2).contains(parts.count), let d = weekdayNames.firstIndex(of: String(parts[0].prefix(3)).lowercased()),
              parts[0].count >= 3 else { return nil }
        let t = parts.count == 2 ? dayTime(String(parts[1])) : 0
        return t.map { Double(d) * 86_400 + $0 }
    }

    /// "2d", "12h", "30m", "45s" and sums of them ("1d6h30m") as seconds.
    static func duration(_ s: String) -> Double? {
        var total = 0.0, digits = "", any = false
        for ch in s {
            if ch.isNumber { digits.append(ch); continue }
            guard let n = Int(digits), n >= 0 else { return nil }
            switch ch {
            case "d": total += Double(n) * 86_400
            case "h": total += Double(n) * 3600
            case "m": total += Double(n) * 60
            case "s": total += Double(n)
            default: return nil
            }
            digits = ""; any = true
        }
        return any && digits.isEmpty ? total : nil
    }

    /// "15", "last", "first Mon", "2nd Tue", "last Fri".
    static func monthDay(_ s: String) -> CalendarExclusion.MonthDay? {
        let words = s.lowercased().split(separator: " ").map(String.init)
        if words.count == 1 {
            if words[0] == "last" { return .last }
            if let d = Int(words[0]), (1...31).contains(d) { return .day(d) }
            return nil
        }
        guard words.count == 2, let w = weekdayNames.firstIndex(of: String(words[1].prefix(3))), words[1].count >= 3 else { return nil }
        let ordinals = [["first", "1st"], ["second", "2nd"], ["third", "3rd"], ["fourth", "4th"], ["fifth", "5th"]]
        if words[0] == "last" { return .weekday(ordinal: -1, weekday: w + 1) }
        guard let k = ordinals.firstIndex(where: { $0.contains(words[0]) }) else { return nil }
        return .weekday(ordinal: k + 1, weekday: w + 1)
    }

    /// Refuses a list longer than its limit, naming the list and the limit.
    static func checkCount(_ count: Int, limit: Int, name: String, what: String, path: String) throws {
        guard count > limit else { return }
        LimitCounters.count(name)
        throw JSONReadError(path: path, message: "\(count) \(what); a chart has at most \(limit) (limit \(name); \(SessionLimits.howToRaise(name)))")
    }

    static func readSeries(_ r: inout JSONReader) throws -> SeriesSpec {
        let id = try identifier(&r, "id")
        let kind = try r.oneOf("type", SeriesKind.self) ?? .line
        let color = try r.string("color")
        if let c = color { try checkColor(c, path: "\(r.path).color") }
        // A vertical band: its key along Y (data y), its two values along X (x, x1).
        let orientation = try r.oneOf("orientation", SeriesOrientation.self) ?? .horizontal
        if orientation == .vertical, kind != .band {
            throw JSONReadError(path: "\(r.path).orientation", message: "only a band series runs vertically (its key y, its values x and x1); a \(kind.rawValue) series is horizontal")
        }
        let keyField = Series.keyField(orientation), fields = Series.fieldNames(kind, orientation)
        var xs: [Double] = []
        var values = fields.map { _ in [Double]() }
        let dataPath = "\(r.path).data"
        var xNames: [String]?
        try r.object("data") { d in
            // x as names of the x axis' categories (mapped below, with the axes).
            if orientation == .horizontal, let items = d.value["x"]?.arrayValue, !items.isEmpty, items.allSatisfy({ $0.stringValue != nil }) {
                xNames = items.compactMap(\.stringValue)
                _ = try d.strings("x")
            }
            let x: [Double]? = try xNames.map { $0.indices.map(Double.init) } ?? d.numbers(keyField)
            for (k, field) in fields.enumerated() { values[k] = try d.numbersOrGaps(field) ?? [] }
            // A pie's slices need no x: they are taken in order.
            xs = x ?? (kind.isRadial ? values[0].indices.map(Double.init) : [])
        }
        do {
            var check = Series(id: id, name: id, kind: kind, color: "#000", xAxisId: "", yAxisId: "")
            check.orientation = orientation
            try check.validate(xs: xs, values: values)
        } catch { throw JSONReadError(path: dataPath, message: error.description) }
        let generator: DataGenerator? = try r.object("generator") { g in
            guard let kind = try g.oneOf("kind", DataGenerator.Kind.self) else { throw g.fail("field \"kind\" is required") }
            var generator = DataGenerator(
                kind: kind, rate: try g.number("rate", min: 0.1, max: 10_000) ?? 50,
                amplitude: try g.number("amplitude") ?? 1, period: try g.number("period", min: 0.001) ?? 4,
                offset: try g.number("offset") ?? 0, noise: try g.number("noise", min: 0) ?? 0,
                seed: UInt64(try g.integer("seed", min: 0) ?? 1))
            generator.time = try g.oneOf("time", DataGenerator.Time.self) ?? .elapsed
            return generator
        }
        if generator != nil, kind.valueFields != ["y"] {
            throw JSONReadError(path: "\(r.path).generator", message: "generators make x/y points; a \(kind.rawValue) series is fed by appends")
        }
        if let generator, generator.time == .elapsed, let last = xs.last, last > 0 {
            throw JSONReadError(path: "\(r.path).generator",
                                message: "a generator emits x from 0 upwards; initial data must end at x <= 0")
        }
        var spec = SeriesSpec(
            id: id, name: try r.string("name") ?? id, kind: kind, color: color,
            xAxis: try r.string("xAxis"), yAxis: try r.string("yAxis"),
            // A generator never stops: without a capacity it keeps the newest
            // `generatorCapacity` points (docs/limits.md).
            capacity: try r.integer("capacity", min: 1, max: 100_000_000) ?? (generator != nil ? SessionLimits.current.generatorCapacity : nil),
            xs: xs, values: values, generator: generator,
            hidden: try r.bool("hidden") ?? false, showInLegend: try r.bool("showInLegend") ?? true)
        spec.retention = try r.number("retention", min: 0)
        if spec.retention == 0 { throw JSONReadError(path: "\(r.path).retention", message: "expected a number of seconds above 0") }
        spec.xNames = xNames
        spec.orientation = orientation
        spec.source = try readSource(&r, spec)
        if orientation == .vertical, spec.source != nil {
            // (A source is asked for the X ranges a viewer shows; a vertical band's key is on Y.)
            throw JSONReadError(path: "\(r.path).source", message: "a vertical band is not pulled: a source answers x ranges, and its key is y")
        }
        spec.style = try readStyle(&r, kind: kind)
        spec.selected = try r.bool("selected") ?? false
        if try r.has("selectedStyle") {
            // The series' own style fields, with selectedStyle's over them.
            let styleFields: Set<String> = ["color", "strokeWidth", "dash", "marker", "fill", "stroke", "showFill", "areaColor",
                                            "areaColorGradient", "risingColor", "fallingColor", "fillY1", "strokeY1", "sliceColors"]
            let path = "\(r.path).selectedStyle"
            guard case let .object(over)? = r.value["selectedStyle"], case let .object(base) = r.value else {
                throw JSONReadError(path: path, message: "expected an object of style fields")
            }
            if let bad = over.first(where: { !styleFields.contains($0.0) }) {
                throw JSONReadError(path: "\(path).\(bad.0)", message: "not a style field; expected one of " + styleFields.sorted().joined(separator: ", "))
            }
            let overKeys = Set(over.map(\.0))
            let merged = base.filter { styleFields.contains($0.0) && !overKeys.contains($0.0) } + over
            var m = JSONReader(.object(merged), path: path)
            spec.selectedColor = try m.string("color")
            if let c = spec.selectedColor { try checkColor(c, path: "\(path).color") }
            spec.selectedStyle = try readStyle(&m, kind: kind)
        }
        spec.sliceNames = try r.strings("sliceNames") ?? []
        if let picked = try r.numbers("selectedSlices") {
            guard picked.allSatisfy({ $0 >= 0 && $0 < 1e6 && $0 == $0.rounded() }) else {
                throw JSONReadError(path: "\(r.path).selectedSlices", message: "slice indices are whole numbers from 0")
            }
            spec.selectedSlices = Set(picked.map { Int($0) })
        }
        if !kind.isRadial, !spec.sliceNames.isEmpty || !spec.selectedSlices.isEmpty {
            throw JSONReadError(path: r.path, message: "sliceNames and selectedSlices are for pie and donut series")
        }
        spec.animationEnabled = try r.bool("animationEnabled") ?? false
        spec.crosshairEnabled = try r.bool("crosshairEnabled") ?? true
        func animation(_ field: String, _ fallback: SeriesAnimation) throws -> SeriesAnimation {
            try r.object(field) { a in
                SeriesAnimation(effect: try a.oneOf("type", SeriesAnimation.Effect.self) ?? fallback.effect,
                                duration: try a.number("duration", min: 0, max: SeriesAnimation.maxDuration) ?? fallback.duration,
                                curve: try a.oneOf("curve", SeriesAnimation.Curve.self) ?? fallback.curve)
            } ?? fallback
        }
        spec.entryAnimation = try animation("entryAnimation", .defaultEntry)
        spec.exitAnimation = try animation("exitAnimation", .defaultExit)
        spec.stackIndex = try r.integer("stackIndex", min: 0, max: 1_000)
        if spec.source != nil, spec.stackIndex != nil {
            throw JSONReadError(path: "\(r.path).source", message: "a pulled series is not stacked")
        }
        spec.unsorted = try r.bool("unsorted") ?? false
        if spec.unsorted {
            let path = "\(r.path).unsorted"
            guard kind == .line else { throw JSONReadError(path: path, message: "only a line series (type line) is drawn unsorted") }
            if spec.stackIndex != nil || spec.source != nil || spec.retention != nil || spec.generator != nil {
                throw JSONReadError(path: path, message: "an unsorted line has no stackIndex, source, retention or generator")
            }
            if spec.style.marker != nil || spec.style.showFill {
                throw JSONReadError(path: path, message: "an unsorted line is drawn without markers or fill")
            }
        }
        spec.stackPercent = try r.bool("stackPercent") ?? false
        if spec.stackPercent, spec.stackIndex == nil {
            throw JSONReadError(path: "\(r.path).stackPercent", message: "stackPercent needs a stackIndex")
        }
        return spec
    }

    /// A series' `source`: an `http://` or `https://` URL (no user or password in it), or a path on
    /// this server (`/api/demo/points`), the server
    /// asks for ranges with `series`, `from` and `to` added to its query (docs/feeding.md,
    /// "Pulled data"). Not with a generator, a capacity, a retention or a stack, nor on a pie.
    static func readSource(_ r: inout JSONReader, _ spec: SeriesSpec) throws -> String? {
        guard let url = try r.string("source") else { return nil }
        let path = "\(r.path).source"
        if url.hasPrefix("/") {
            // A path on this server (its own demo source, `/api/demo/points`).
            guard url.count <= 2048, !url.contains("#"), url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw JSONReadError(path: path, message: "expected a path of at most 2048 printable ASCII characters, no fragment")
            }
            if spec.generator != nil || spec.capacity != nil || spec.retention != nil || spec.kind.isRadial {
                throw JSONReadError(path: path, message: "a pulled series has no generator, capacity or retention, and is not a pie or donut")
            }
            return url
        }
        let scheme = url.hasPrefix("https://") ? "https://" : url.hasPrefix("http://") ? "http://" : nil
        guard let scheme else {
            throw JSONReadError(path: path, message: "expected an http:// or https:// URL, or a path on this server")
        }
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, url.count <= 2048, !url.contains("#"),
              url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw JSONReadError(path: path, message: "expected \(scheme)host[:port][/path][?query], at most 2048 printable ASCII characters, no fragment")
        }
        if authority.contains("@") { throw JSONReadError(path: path, message: "a source URL carries no user or password") }
        if spec.generator != nil || spec.capacity != nil || spec.retention != nil || spec.kind.isRadial {
            throw JSONReadError(path: path, message: "a pulled series has no generator, capacity or retention, and is not a pie or donut")
        }
        return url
    }

    /// Series sharing a `stackIndex` (on the same axes) must stack: lines, step lines
    /// and areas together, or columns; the same capacity, `stackPercent` and x values.
    static func checkStacks(_ series: [SeriesSpec], path: String, xAxis: String, yAxis: String) throws {
        var first: [String: Int] = [:]
        for (i, s) in series.enumerated() {
            guard let k = s.stackIndex else { continue }
            let p = "\(path).series[\(i)]"
            guard s.kind.isLine || s.kind == .column else {
                throw JSONReadError(path: "\(p).stackIndex", message: "lines, step lines, areas and columns stack; a \(s.kind.rawValue) series does not")
            }
            if let n = s.xs.indices.dropFirst().first(where: { s.xs[$0] < s.xs[$0 - 1] }) {
                throw JSONReadError(path: "\(p).data", message: AppendError.stackedNotSorted(index: n).description)
            }
            let key = "\(k)|\(s.xAxis ?? xAxis)|\(s.yAxis ?? yAxis)"
            guard let j = first[key] else { first[key] = i; continue }
            let f = series[j]
            if f.kind.isLine != s.kind.isLine {
                throw JSONReadError(path: "\(p).type", message: "a stack holds lines and areas, or columns; \"\(f.id)\" in this stack is a \(f.kind.rawValue)")
            }
            if f.capacity != s.capacity {
                throw JSONReadError(path: "\(p).capacity", message: "the series of a stack keep the same number of points; \"\(f.id)\" has another capacity")
            }
            if f.retention != s.retention {
                throw JSONReadError(path: "\(p).retention", message: "the series of a stack keep the same points; \"\(f.id)\" has another retention")
            }
            if f.stackPercent != s.stackPercent {
                throw JSONReadError(path: "\(p).stackPercent", message: "stackPercent is the same for every series of a stack; \"\(f.id)\" differs")
            }
            for (n, x) in s.xs.enumerated() where n < f.xs.count && f.xs[n] != x {
                throw JSONReadError(path: "\(p).data.x[\(n)]", message: "stacked series share their x: \"\(f.id)\" has \(f.xs[n]) here, not \(x)")
            }
        }
    }

    /// `dash`: up to 16 lengths from 0 to 1000 px, not all 0 (absent: solid).
    static func readDash(_ r: inout JSONReader) throws -> [Double] {
        guard let dash = try r.numbers("dash") else { return [] }
        guard dash.count <= 16, dash.allSatisfy({ $0 >= 0 && $0 <= 1000 }), dash.contains(where: { $0 > 0 }) || dash.isEmpty else {
            throw JSONReadError(path: "\(r.path).dash", message: "a dash pattern is up to 16 lengths from 0 to 1000 px, not all 0")
        }
        return dash
    }

    /// A marker: `{"shape", "size", "fill", "stroke", "lineWidth"}`.
    static func readMarker(_ m: inout JSONReader) throws -> MarkerStyle {
        var style = MarkerStyle(shape: try m.oneOf("shape", MarkerShape.self) ?? .circle,
                                size: try m.number("size", min: 1, max: 100) ?? 6,
                                lineWidth: try m.number("lineWidth", min: 0.1, max: 20) ?? 1)
        style.fill = try m.string("fill")
        style.stroke = try m.string("stroke")
        if let c = style.fill { try checkColor(c, path: "\(m.path).fill") }
        if let c = style.stroke { try checkColor(c, path: "\(m.path).stroke") }
        return style
    }

    /// An annotation: its type's coordinates in data units of its axes, and its style.
    static func readAnnotation(_ r: inout JSONReader, xAxes: [AxisConfig], yAxes: [AxisConfig],
                               images: [String: ChartImage] = [:]) throws -> Annotation {
        guard let kind = try r.oneOf("type", Annotation.Kind.self) else { throw r.fail("field \"type\" is required") }
        let xAxis = try r.string("xAxis") ?? xAxes[0].id, yAxis = try r.string("yAxis") ?? yAxes[0].id
        guard xAxes.contains(where: { $0.id == xAxis }) else { throw JSONReadError(path: "\(r.path).xAxis", message: "no x axis \"\(xAxis)\"") }
        guard yAxes.contains(where: { $0.id == yAxis }) else { throw JSONReadError(path: "\(r.path).yAxis", message: "no y axis \"\(yAxis)\"") }
        let color = try r.string("color") ?? "#444b59"
        try checkColor(color, path: "\(r.path).color")
        var a = Annotation(kind: kind, xAxisId: xAxis, yAxisId: yAxis, color: color)
        a.x = try r.number("x"); a.y = try r.number("y"); a.x2 = try r.number("x2"); a.y2 = try r.number("y2")
        a.text = try r.string("text")
        if let t = a.text, t.count > 500 { throw JSONReadError(path: "\(r.path).text", message: "at most 500 characters") }
        a.fill = try r.string("fill")
        if let c = a.fill { try checkColor(c, path: "\(r.path).fill") }
        a.lineWidth = try r.number("lineWidth", min: 0, max: 20) ?? 1
        a.dash = try readDash(&r)
        a.textSize = try r.number("textSize", min: 6, max: 72) ?? 12
        a.font = try readFont(&r, "font")
        a.marker = try r.object("marker", readMarker)
        a.layer = try r.oneOf("layer", Annotation.Layer.self) ?? .above
        a.image = try r.string("image")
        a.width = try r.number("width", min: 1, max: 4096)
        a.height = try r.number("height", min: 1, max: 4096)
        let opacity = try r.number("opacity", min: 0, max: 1)
        a.opacity = opacity ?? 1
        if kind == .image {
            guard let name = a.image else { throw JSONReadError(path: "\(r.path).image", message: "is required: the name of one of the chart's images") }
            guard images[name] != nil else {
                throw JSONReadError(path: "\(r.path).image", message: "no image \"\(name)\" in the chart's images"
                                    + (images.isEmpty ? " (it has none)" : " (" + images.keys.sorted().joined(separator: ", ") + ")"))
            }
            if (a.x2 == nil) != (a.y2 == nil) { throw JSONReadError(path: r.path, message: "give both x2 and y2 (stretched between corners) or neither") }
            if a.x2 != nil, a.width != nil || a.height != nil {
                throw JSONReadError(path: r.path, message: "an image stretched between corners takes no width or height")
            }
        } else if a.image != nil || a.width != nil || a.height != nil || opacity != nil {
            let field = a.image != nil ? "image" : a.width != nil ? "width" : a.height != nil ? "height" : "opacity"
            throw JSONReadError(path: "\(r.path).\(field)", message: "only an image annotation has \(field)")
        }
        let needs: [String]
        switch kind {
        case .text: needs = ["x", "y", "text"]
        case .horizontalLine: needs = ["y"]
        case .verticalLine: needs = ["x"]
        case .box: needs = ["x", "y", "x2", "y2"]
        case .marker, .image: needs = ["x", "y"]
        }
        let given: [String: Bool] = ["x": a.x != nil, "y": a.y != nil, "x2": a.x2 != nil, "y2": a.y2 != nil, "text": a.text != nil]
        if let missing = needs.first(where: { given[$0] != true }) {
            throw JSONReadError(path: r.path, message: "a \(kind.rawValue) annotation needs " + needs.map { "\"\($0)\"" }.joined(separator: ", ")
                                + "; \"\(missing)\" is missing")
        }
        if kind != .marker, a.marker != nil { throw JSONReadError(path: "\(r.path).marker", message: "only a marker annotation has a marker") }
        return a
    }

    /// The style fields of a series, checked against its type.
    static func readStyle(_ r: inout JSONReader, kind: SeriesKind) throws -> SeriesStyle {
        var spec = SeriesStyle()
        spec.strokeWidth = try r.number("strokeWidth", min: 0.1, max: 20) ?? (kind == .candlestick || kind == .ohlc ? 1 : 1.5)
        spec.dash = try readDash(&r)
        spec.marker = try r.object("marker", readMarker)
        spec.fill = try r.string("fill")
        spec.stroke = try r.string("stroke")
        if let c = spec.fill { try checkColor(c, path: "\(r.path).fill") }
        if let c = spec.stroke { try checkColor(c, path: "\(r.path).stroke") }
        spec.baseline = try r.number("baseline") ?? 0
        spec.columnWidth = try r.number("columnWidth", min: 0.01, max: 1) ?? 0.8
        if kind != .column, kind != .band, spec.fill != nil {
            throw JSONReadError(path: "\(r.path).fill", message: "fill styles columns and bands; a \(kind.rawValue) series has color (and marker)")
        }
        if kind == .band {
            spec.strokeY1 = try r.string("strokeY1")
            spec.fillY1 = try r.string("fillY1")
            if let c = spec.strokeY1 { try checkColor(c, path: "\(r.path).strokeY1") }
            if let c = spec.fillY1 { try checkColor(c, path: "\(r.path).fillY1") }
        } else if let field = ["strokeY1", "fillY1"].first(where: { r.value[$0] != nil }) {
            throw JSONReadError(path: "\(r.path).\(field)", message: "\(field) is for band series")
        }
        if kind != .column, kind != .candlestick, !kind.isRadial, spec.stroke != nil {
            throw JSONReadError(path: "\(r.path).stroke", message: "stroke outlines columns, candles and slices; a \(kind.rawValue) series has color (and marker)")
        }
        if kind == .bubble {
            spec.bubbleScale = try r.number("scale", min: 1e-12, max: 1e12)
            spec.biggestBubbleDiameterForAutoScaling = try r.number("biggestBubbleDiameterForAutoScaling", min: 1, max: 500) ?? 40
        } else if let field = ["scale", "biggestBubbleDiameterForAutoScaling"].first(where: { r.value[$0] != nil }) {
            throw JSONReadError(path: "\(r.path).\(field)", message: "\(field) is for bubble series")
        }
        let radialFields = ["rotation", "innerRadius", "protrusion", "sliceLabels", "sliceColors", "selectedPosition"]
        if kind.isRadial {
            spec.rotation = try r.number("rotation", min: -360, max: 360) ?? 0
            spec.selectedPosition = try r.number("selectedPosition", min: -360, max: 360)
            spec.innerRadius = try r.number("innerRadius", min: 0, max: 0.95) ?? (kind == .donut ? 0.5 : 0)
            if kind == .pie, spec.innerRadius > 0 {
                throw JSONReadError(path: "\(r.path).innerRadius", message: "a pie has no hole; use type \"donut\"")
            }
            if kind == .donut, spec.innerRadius == 0 {
                throw JSONReadError(path: "\(r.path).innerRadius", message: "a donut has a hole (above 0); use type \"pie\" for none")
            }
            spec.protrusion = try r.number("protrusion", min: 0, max: 100) ?? 10
            spec.sliceLabels = try r.oneOf("sliceLabels", SliceLabel.self) ?? .percent
            if let colors = try r.strings("sliceColors") {
                guard !colors.isEmpty, colors.count <= 256 else {
                    throw JSONReadError(path: "\(r.path).sliceColors", message: "1 to 256 colours")
                }
                for (i, c) in colors.enumerated() { try checkColor(c, path: "\(r.path).sliceColors[\(i)]") }
                spec.sliceColors = colors
            }
            if spec.marker != nil { throw JSONReadError(path: "\(r.path).marker", message: "a \(kind.rawValue) series has no markers") }
        } else if let field = radialFields.first(where: { r.value[$0] != nil }) {
            throw JSONReadError(path: "\(r.path).\(field)", message: "\(field) is for pie and donut series")
        }
        let candles = kind == .candlestick || kind == .ohlc
        if let c = try r.string("risingColor") {
            try checkColor(c, path: "\(r.path).risingColor")
            spec.risingColor = c
        }
        if let c = try r.string("fallingColor") {
            try checkColor(c, path: "\(r.path).fallingColor")
            spec.fallingColor = c
        }
        if !candles, r.value["risingColor"] != nil || r.value["fallingColor"] != nil {
            throw JSONReadError(path: r.path, message: "risingColor and fallingColor colour candles; a \(kind.rawValue) series has color")
        }
        if candles, spec.marker != nil {
            throw JSONReadError(path: "\(r.path).marker", message: "a \(kind.rawValue) series has no markers")
        }
        spec.showFill = try r.bool("showFill") ?? (kind == .area)
        spec.areaColor = try r.string("areaColor")
        spec.areaColorGradient = try r.string("areaColorGradient")
        if let c = spec.areaColor { try checkColor(c, path: "\(r.path).areaColor") }
        if let c = spec.areaColorGradient { try checkColor(c, path: "\(r.path).areaColorGradient") }
        if !kind.isLine, spec.showFill || spec.areaColor != nil || spec.areaColorGradient != nil {
            throw JSONReadError(path: r.path, message: "showFill, areaColor and areaColorGradient fill lines; a \(kind.rawValue) series has none")
        }
        if kind == .area, !spec.showFill {
            throw JSONReadError(path: "\(r.path).showFill", message: "an area is filled; use type \"line\" for a line without fill")
        }
        return spec
    }

    /// A theme: a preset (`"preset": "dark"`; else the server's default), then any
    /// colours and the palette replaced.
    static func readTheme(_ r: inout JSONReader) throws -> ThemeSpec {
        var spec = ThemeSpec()
        spec.preset = try r.string("preset")
        if let p = spec.preset, Theme.presets[p] == nil {
            throw JSONReadError(path: "\(r.path).preset",
                                message: "unknown theme \"\(p)\"; expected one of " + Theme.presets.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))
        }
        for (key, _) in ThemeSpec.fields {
            if let c = try r.string(key) {
                try checkColor(c, path: "\(r.path).\(key)")
                spec.colors[key] = c
            }
        }
        if let palette = try r.strings("palette") {
            guard !palette.isEmpty, palette.count <= 64 else {
                throw JSONReadError(path: "\(r.path).palette", message: "1 to 64 colours")
            }
            for (i, c) in palette.enumerated() { try checkColor(c, path: "\(r.path).palette[\(i)]") }
            spec.palette = palette
        }
        return spec
    }

    /// `margins`: one number for every side, or `[top, right, bottom, left]` as CSS
    /// writes them, each 0 to 200 px.
    static func readMargins(_ r: inout JSONReader) throws -> EdgeInsets {
        if r.value["margins"]?.doubleValue != nil { return .all(try r.number("margins", min: 0, max: 200)!) }
        guard let m = try r.numbers("margins") else { return .all(10) }
        guard m.count == 4, m.allSatisfy({ (0...200).contains($0) }) else {
            throw JSONReadError(path: "\(r.path).margins", message: "expected a number or [top, right, bottom, left], each 0 to 200")
        }
        return EdgeInsets(top: m[0], left: m[3], bottom: m[2], right: m[1])
    }

    /// Colours go to the client as CSS strings; refuse what could not be one (and
    /// anything that could smuggle other CSS).
    static func checkColor(_ c: String, path: String) throws {
        let ok = !c.isEmpty && c.count <= 64
            && c.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "#(),.% ".unicodeScalars.contains($0)) }
        guard ok else { throw JSONReadError(path: path, message: "\"\(c)\" is not a CSS colour") }
    }
}

extension SessionSpec {
    /// Builds the live session; `defaultTheme` names the preset for charts whose spec
    /// names none (the server's `--theme`).
    public func makeSession(measurer: TextMeasurer, defaultTheme: String = "light") -> Session {
        let session = Session(id: id, title: title, chart: makeChart(defaultTheme: defaultTheme), measurer: measurer, maxFps: maxFps)
        session.description = description
        session.access = access
        session.specJSON = json
        session.defaultTheme = defaultTheme
        session.lineProtocol = lineProtocol
        session.viewMode = viewMode
        session.eventGroup = eventGroup
        let modifiers = chart.modifiers
        session.modifierFactory = { modifiers.map { $0.make() } }
        return session
    }

    /// The chart this spec describes, with its initial data.
    public func makeChart(defaultTheme: String = "light") -> Chart {
        let theme = chart.themeSpec.resolve(default: defaultTheme)
        let palette = theme.palette
        let series = chart.series.enumerated().map { i, s in
            var series = Series(id: s.id, name: s.name, kind: s.kind, color: s.color ?? palette[i % palette.count],
                                style: s.style, xAxisId: s.xAxis ?? chart.xAxes[0].id,
                                yAxisId: s.yAxis ?? chart.yAxes[0].id, data: XYData(capacity: s.capacity, ordered: !s.unsorted),
                                generator: s.generator)
            series.retention = s.retention
            series.orientation = s.orientation
            try! series.append(xs: s.xs, values: s.values)  // checked while decoding
            series.source = s.source
            if s.source != nil { series.startCoverage() }
            series.isHidden = s.hidden
            series.showInLegend = s.showInLegend
            series.stackIndex = s.stackIndex
            series.stackPercent = s.stackPercent
            series.sliceNames = s.sliceNames
            series.isSelected = s.selected
            series.selectedStyle = s.selectedStyle
            series.selectedColor = s.selectedColor
            series.selectedSlices = s.selectedSlices
            series.animationEnabled = s.animationEnabled
            series.crosshairEnabled = s.crosshairEnabled
            series.entryAnimation = s.entryAnimation
            series.exitAnimation = s.exitAnimation
            return series
        }
        let c = Chart(title: chart.title, xAxes: chart.xAxes, yAxes: chart.yAxes, series: series, legend: chart.legend,
                      theme: theme, modifiers: chart.modifiers.map { $0.make() })
        c.axisSpacing = chart.axisSpacing
        c.clipSeries = chart.clipSeries
        c.margins = chart.margins
        c.annotations = chart.annotations
        c.images = chart.images
        c.fontFamily = chart.fontFamily
        c.titleFont = chart.titleFont
        c.titleSize = chart.titleSize
        if !chart.stackedSides.isEmpty {
            var manager = DefaultLayoutManager()
            for side in chart.stackedSides { manager.outer[side] = StackedAlongAxisLayoutStrategy(side) }
            c.layoutManager = manager
        }
        return c
    }
}

/// A font object's `weight`.
enum FontWeight: String, CaseIterable { case normal, bold }

/// The named forms of an axis' `labelSpace` (a number is a fixed size).
enum LabelSpaceMode: String, CaseIterable { case current, minPresentedSize, maxPresentedSize }

/// A chart's theme as its spec gives it: a preset name (nil: the server's default),
/// then colours and a palette that replace the preset's.
public struct ThemeSpec: Sendable {
    public var preset: String?
    /// Colour by theme field name (`gridLine`, `tickLabel` ...).
    public var colors: [String: String] = [:]
    public var palette: [String]?
    public init() {}

    /// The colours a spec may set, by name.
    nonisolated(unsafe) static let fields: [(String, WritableKeyPath<Theme, String>)] = [
        ("background", \.background), ("plotBackground", \.plotBackground), ("gridLine", \.gridLine),
        ("minorGridLine", \.minorGridLine), ("band", \.band),
        ("axisLine", \.axisLine), ("tickLabel", \.tickLabel), ("title", \.title),
        ("legendBackground", \.legendBackground), ("legendBorder", \.legendBorder), ("legendText", \.legendText),
    ]

    public func resolve(default name: String) -> Theme {
        var t = Theme.presets[preset ?? name] ?? Theme()
        for (key, path) in Self.fields { if let c = colors[key] { t[keyPath: path] = c } }
        if let palette { t.palette = palette }
        return t
    }
}

/// x given as category names (strings, the issue's "string x for category axes"):
/// each name is the position of that name in the x axis' `categories` (0, 1, ...).
/// In a spec's `data.x` and in JSON appends, inserts and replacements of a series on a
/// category axis with `categories` (docs/axes.md, "Category axes").
public enum CategoryNames {
    public static func positions(_ names: [String], axis: AxisConfig, path: String) throws(JSONReadError) -> [Double] {
        guard axis.type == .category, !axis.categories.isEmpty else {
            throw JSONReadError(path: path, message: "x given as names needs a category x axis with categories; axis \"\(axis.id)\" has none")
        }
        return try positions(names, categories: axis.categories, axis: axis.id, path: path)
    }

    public static func positions(_ names: [String], categories: [String], axis: String, path: String) throws(JSONReadError) -> [Double] {
        var index: [String: Int] = [:]
        for (i, c) in categories.enumerated() where index[c] == nil { index[c] = i }
        var out: [Double] = []
        out.reserveCapacity(names.count)
        for (j, name) in names.enumerated() {
            guard let i = index[name] else {
                let shown = categories.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ") + (categories.count > 8 ? ", ..." : "")
                throw JSONReadError(path: "\(path)[\(j)]", message: "\"\(name)\" is not a category of axis \"\(axis)\" (\(shown))")
            }
            out.append(Double(i))
        }
        return out
    }
}

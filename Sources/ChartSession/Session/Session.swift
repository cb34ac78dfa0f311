import LayoutEngine

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
    public let title: String
    public let chart: Chart
    let renderer: ChartRenderer

    final class Viewer {
        let id: ViewerID
        var size: ViewerSize?
        var format: FrameFormat = .binary
        /// What this viewer holds: the size it was last sent frames for, and the
        /// version of each layer it has.
        var sentSize: ViewerSize?
        var sentVersions: [LayerID: UInt32] = [:]
        var sentChartVersion: UInt64 = 0
        init(id: ViewerID) { self.id = id }
    }

    private var viewers: [ViewerID: Viewer] = [:]
    private var nextViewer: ViewerID = 1
    private var cache = FrameCache()
    /// Clock reading (seconds) when the session started, for its generators.
    private var startTime: Double?

    public init(id: String, title: String, chart: Chart, measurer: TextMeasurer) {
        self.id = id
        self.title = title
        self.chart = chart
        self.renderer = ChartRenderer(measurer: measurer)
    }

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
        guard viewers.removeValue(forKey: viewer) != nil else { return }
        for m in chart.modifiers { m.viewerLeft(viewer) }
        cache.trim(keeping: liveSizes)
    }

    private var liveSizes: Set<ViewerSize> { Set(viewers.values.compactMap(\.size)) }

    /// Handles one decoded message; returns the replies to send to that viewer (the
    /// frames that follow are collected with `nextFrame`).
    public func receive(_ message: ClientMessage, from viewerID: ViewerID) -> [Outgoing] {
        guard let viewer = viewers[viewerID] else { return [] }
        if case let .hello(size, format, _) = message {
            viewer.size = size
            viewer.format = format
            viewer.sentSize = nil
            viewer.sentVersions = [:]
            return [.text(welcome(viewer))]
        }
        guard let size = viewer.size else {
            return [.text(ProtocolError(.helloRequired, "send hello before any other message").json)]
        }
        // Modifiers run one after another, and one may change the chart: each gets the
        // layout (at the sender's size) as it is when its turn comes.
        let context = {
            ModifierContext(chart: self.chart, layout: self.cache.layout(self.chart, size: size, renderer: self.renderer),
                            viewer: viewerID)
        }
        switch message {
        case .hello: break
        case let .resize(newSize):
            viewer.size = newSize
            cache.trim(keeping: liveSizes)
        case let .pointer(e): _ = chart.dispatch { $0.pointer(e, context: context()) }
        case let .wheel(e): _ = chart.dispatch { $0.wheel(e, context: context()) }
        case let .doubleClick(e): _ = chart.dispatch { $0.doubleClick(e, context: context()) }
        }
        return []
    }

    /// Decodes and handles a text message; a message that cannot be decoded is
    /// answered with an error and changes nothing.
    public func receive(json: JSONValue, from viewer: ViewerID) -> [Outgoing] {
        do {
            return receive(try ClientMessage.decode(json), from: viewer)
        } catch {
            return [.text(error.json)]
        }
    }

    private func welcome(_ viewer: Viewer) -> JSONValue {
        .object([
            ("type", "welcome"), ("protocol", "chartwire.v1"), ("session", .string(id)),
            ("title", .string(title)), ("viewer", .int(Int64(viewer.id))),
            ("format", .string(viewer.format.rawValue)),
            ("layers", .array(LayerID.allCases.map { .string($0.rawValue) })),
            ("series", .array(chart.series.map { .object([("id", .string($0.id)), ("name", .string($0.name))]) })),
        ] + (heartbeat.map { [("heartbeat", JSONValue.number($0))] } ?? []))
    }

    // MARK: Frames

    /// True when `viewer` may be owed a frame (the chart or its size changed since
    /// its last one). Cheap: the transport asks this before asking for writability.
    public func mayHaveFrame(for viewerID: ViewerID) -> Bool {
        guard let v = viewers[viewerID], let size = v.size else { return false }
        return v.sentSize != size || v.sentChartVersion != chart.version
    }

    /// The next frame for `viewer`: only the layers that changed since what it holds,
    /// or nil when it is up to date. Marks the layers as sent.
    public func nextFrame(for viewerID: ViewerID) -> Outgoing? {
        guard let v = viewers[viewerID], let size = v.size else { return nil }
        let rendered = cache.rendered(chart, size: size, renderer: renderer)
        if v.sentSize != size { v.sentVersions = [:] }
        let changed = LayerID.allCases.compactMap { id -> RenderedSize.EncodedLayer? in
            guard let l = rendered.layers[id], v.sentVersions[id] != l.version else { return nil }
            return l
        }
        v.sentSize = size
        v.sentChartVersion = rendered.chartVersion
        guard !changed.isEmpty else { return nil }
        for l in changed { v.sentVersions[l.layer.id] = l.version }
        switch v.format {
        case .binary:
            return .binary(BinaryFrame.frame(width: size.width, height: size.height, dpr: size.dpr,
                                             encodedLayers: changed.map(\.bytes)))
        case .json:
            let list = DisplayList(width: size.width, height: size.height, dpr: size.dpr, layers: changed.map(\.layer))
            guard case let .object(fields) = list.json else { return nil }
            return .text(.object([("type", "frame")] + fields))
        }
    }

    /// The whole display list a viewer of this size would get now (frame.json).
    public func displayList(size: ViewerSize) -> DisplayList {
        let rendered = cache.rendered(chart, size: size, renderer: renderer)
        defer { cache.trim(keeping: liveSizes) }
        return DisplayList(width: size.width, height: size.height, dpr: size.dpr,
                           layers: LayerID.allCases.compactMap { rendered.layers[$0]?.layer })
    }

    /// The layout at a size (tests, tools).
    public func layout(size: ViewerSize) -> ChartLayout { cache.layout(chart, size: size, renderer: renderer) }

    // MARK: Data and time

    /// Appends to a series atomically. Throws `SessionError` for an unknown series or
    /// refused data; nothing of a refused append is applied.
    @discardableResult
    public func append(seriesId: String, xs: [Double], ys: [Double]) throws(SessionError) -> Int {
        guard chart.seriesIndex(seriesId) != nil else { throw .unknownSeries(seriesId) }
        guard xs.count <= Self.maxAppendPoints else {
            throw .badAppend(.tooMany(count: xs.count, limit: Self.maxAppendPoints))
        }
        do { try chart.append(seriesId: seriesId, xs: xs, ys: ys) } catch { throw .badAppend(error) }
        return xs.count
    }

    public static let maxAppendPoints = 1_000_000

    /// Advances the session's clock (seconds, any origin): generators add the points
    /// that are due.
    public func advance(to now: Double) {
        if startTime == nil { startTime = now }
        chart.runGenerators(elapsed: now - startTime!)
    }
}

public enum SessionError: Error, Equatable, CustomStringConvertible, Sendable {
    case unknownSession(String)
    case unknownSeries(String)
    case badAppend(AppendError)

    public var description: String {
        switch self {
        case let .unknownSession(id): return "no session \"\(id)\""
        case let .unknownSeries(id): return "no series \"\(id)\" in this session"
        case let .badAppend(e): return e.description
        }
    }
}

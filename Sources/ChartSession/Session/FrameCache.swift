import LayoutEngine

/// The rendered layers of a chart at one canvas size: the current version of each
/// layer, a few earlier versions to patch from, and their encodings, made once and
/// shared by every viewer of that size. A class: the cache hands it out and changes it
/// in place many times a frame per viewer, and a struct of a dozen references was copied
/// (each reference retained and released) at every look.
final class RenderedSize {
    var chartVersion: UInt64
    var dataTime: Double
    var layout: ChartLayout
    var layers: [LayerID: Layer] = [:]
    /// Earlier versions, oldest first, at most `SessionLimits.patchHistory` per layer.
    var history: [LayerID: [Layer]] = [:]
    /// Encodings of the current version: whole (key nil) or patched from a base version.
    var encoded: [LayerID: [UInt32?: EncodedLayer]] = [:]
    /// The size of each layer's last whole encoding (any version): what a patch is weighed
    /// against without encoding the whole layer again.
    var wholeBytes: [LayerID: Int] = [:]
    /// What the last render at this size lends the next (reductions, layout).
    var memo = ChartRenderer.Memo()
    /// Whole binary frames already assembled, by the layer versions the viewer held:
    /// viewers that keep up hold the same versions and are sent the same bytes.
    var assembled: [[UInt32?]: [UInt8]] = [:]

    init(chartVersion: UInt64, dataTime: Double, layout: ChartLayout) {
        self.chartVersion = chartVersion; self.dataTime = dataTime; self.layout = layout
    }
}

/// One layer ready to send: the form chosen (whole or patch) and its binary bytes.
struct EncodedLayer {
    var layer: FrameLayer
    var bytes: [UInt8]
}

/// Keeps a `RenderedSize` per canvas size and hands out layer versions. A layer keeps
/// its version when a re-render produces the same commands, so viewers are not sent
/// what they have; a changed layer is sent as a patch to the version a viewer holds
/// when that is smaller than the whole layer (a patch no larger than the layer's last
/// whole encoding is taken without encoding the whole again).
struct FrameCache {
    private(set) var entries: [ViewerSize: RenderedSize] = [:]
    /// Layouts computed for gestures between frames: a gesture needs the layout at
    /// the sender's size, not the rendered series.
    private var layouts: [ViewerSize: (chartVersion: UInt64, layout: ChartLayout)] = [:]
    private var versionCounter: UInt32 = 0
    /// Most sizes kept beyond those of current viewers (frame.json callers, departed viewers).
    let spareSizes = 4

    func entry(_ size: ViewerSize) -> RenderedSize? { entries[size] }

    /// Renders `size` at the chart's current state unless it already shows it.
    @discardableResult
    mutating func render(_ chart: Chart, size: ViewerSize, renderer: ChartRenderer, dataTime: Double,
                         sharedTicks: ChartRenderer.SharedTicks? = nil) -> RenderedSize {
        if let hit = entries[size], hit.chartVersion == chart.version {
            useCounter &+= 1
            lastUse[size] = useCounter
            return hit
        }
        let entry = entries[size]
        // The memo is taken out (swapped, not copied) while the render changes it: the
        // local one is the only one, so its reductions are not copied on write.
        var memo = ChartRenderer.Memo()
        if let entry { swap(&memo, &entry.memo) }
        let output = renderer.render(chart, size: Size(width: Double(size.width), height: Double(size.height)),
                                     dpr: size.dpr, memo: &memo, shared: sharedTicks)
        chart.notePresented(output.layout)
        chart.noteShownLegend(output.legend, at: output.layout.size)
        let e = entry ?? RenderedSize(chartVersion: 0, dataTime: 0, layout: output.layout)
        e.memo = memo
        e.chartVersion = chart.version
        e.dataTime = dataTime
        e.layout = output.layout
        e.assembled = [:]
        for id in LayerID.shared {
            let commands = output.layers[id] ?? []
            if let old = e.layers[id] {
                if old.commands.sameCommands(as: commands) { continue }
                e.history[id, default: []].append(old)
                let depth = SessionLimits.current.patchHistory
                if e.history[id]!.count > depth { e.history[id]!.removeFirst(e.history[id]!.count - depth) }
            }
            versionCounter &+= 1
            e.layers[id] = Layer(id: id, version: versionCounter, commands: commands)
            // (Emptied in place: its storage serves the next version's encodings.)
            e.encoded[id, default: [:]].removeAll(keepingCapacity: true)
        }
        entries[size] = e
        useCounter &+= 1
        lastUse[size] = useCounter
        evictPastLimit(keeping: size)
        return e
    }

    /// When each size was last rendered (`useCounter`), for evicting the least recent.
    private var lastUse: [ViewerSize: UInt64] = [:]
    private var useCounter: UInt64 = 0

    /// Past `SessionLimits.canvasSizes` sizes, the least recently rendered are dropped
    /// (`keeping` is the one just rendered): a viewer of a dropped size gets its frames
    /// rendered again, whole. Bounds the memory of many viewers with distinct canvases.
    private mutating func evictPastLimit(keeping size: ViewerSize) {
        let limit = SessionLimits.current.canvasSizes
        guard entries.count > limit else { return }
        let victims = lastUse.filter { $0.key != size }.sorted { $0.value < $1.value }.prefix(entries.count - limit)
        for (victim, _) in victims {
            entries[victim] = nil
            lastUse[victim] = nil
            layouts[victim] = nil
            LimitCounters.count("canvasSizes")
        }
    }

    /// The current version of layer `id` at `size` for a viewer holding version
    /// `held` (nil: nothing): nil when it holds the current one, else the smaller of
    /// a patch (when `held` is recent enough) and the whole layer.
    mutating func layer(_ id: LayerID, size: ViewerSize, held: UInt32?) -> EncodedLayer? {
        guard let entry = entries[size], let current = entry.layers[id], held != current.version else { return nil }
        if let cached = entry.encoded[id]?[held] { return cached }
        var patched: EncodedLayer? = nil
        if let held, let base = entry.history[id]?.last(where: { $0.version == held }),
           let patch = LayerPatch.diff(from: base, to: current) {
            patched = EncodedLayer(layer: .patch(patch), bytes: BinaryFrame.encodePatch(patch))
        }
        var chosen: EncodedLayer
        if let p = patched, entry.encoded[id]?[nil] == nil, let known = entry.wholeBytes[id], p.bytes.count <= known {
            // A patch no larger than the layer's last whole encoding goes without encoding
            // the whole again (with a view per viewer, that was every layer of every view at
            // every publication, to be thrown away). A patch carries the new commands and
            // the operations that place them, so it exceeds the new whole only by those
            // few bytes, when nearly everything changed.
            chosen = p
        } else {
            let whole = entry.encoded[id]?[nil] ?? EncodedLayer(layer: .full(current), bytes: BinaryFrame.encodeLayer(current))
            entry.encoded[id, default: [:]][nil] = whole
            entry.wholeBytes[id] = whole.bytes.count
            chosen = patched.map { $0.bytes.count < whole.bytes.count ? $0 : whole } ?? whole
        }
        entry.encoded[id, default: [:]][held] = chosen
        return chosen
    }

    /// The shared layers a viewer at `size` holding `held` (versions in
    /// `LayerID.shared` order) lacks, bottom to top, each whole or patched.
    mutating func lacking(size: ViewerSize, held: [UInt32?]) -> [EncodedLayer] {
        zip(LayerID.shared, held).compactMap { id, version in layer(id, size: size, held: version) }
    }

    /// The binary frame of the shared layers for a viewer at `size` holding `held`
    /// (versions in `LayerID.shared` order), assembled once; nil when it lacks nothing.
    mutating func binaryFrame(size: ViewerSize, held: [UInt32?]) -> (bytes: [UInt8], layers: [FrameLayer])? {
        let layers = lacking(size: size, held: held)
        guard !layers.isEmpty, let entry = entries[size] else { return nil }
        if let bytes = entry.assembled[held] { return (bytes, layers.map(\.layer)) }
        let bytes = BinaryFrame.frame(width: size.width, height: size.height, dpr: size.dpr, dataTime: entry.dataTime,
                                      encodedLayers: layers.map(\.bytes))
        entry.assembled[held] = bytes
        return (bytes, layers.map(\.layer))
    }

    /// The layout at `size` for the chart's current version, without rendering.
    mutating func layout(_ chart: Chart, size: ViewerSize, renderer: ChartRenderer) -> ChartLayout {
        if let hit = entries[size], hit.chartVersion == chart.version { return hit.layout }
        if let hit = layouts[size], hit.chartVersion == chart.version { return hit.layout }
        let layout = renderer.layout(chart, size: Size(width: Double(size.width), height: Double(size.height)), dpr: size.dpr)
        layouts[size] = (chart.version, layout)
        return layout
    }

    /// Forgets what renders lend the next (the chart was redefined: a series id may
    /// now name another series).
    mutating func forgetMemos() {
        for e in entries.values { e.memo = ChartRenderer.Memo() }
        layouts = [:]
    }

    /// Drops sizes no viewer has, keeping a few spares.
    mutating func trim(keeping live: Set<ViewerSize>) {
        layouts = layouts.filter { live.contains($0.key) }
        let spare = entries.keys.filter { !live.contains($0) }
        guard spare.count > spareSizes else { return }
        // The least recently rendered go first.
        for size in spare.sorted(by: { lastUse[$0] ?? 0 < lastUse[$1] ?? 0 }).prefix(spare.count - spareSizes) {
            entries[size] = nil
            lastUse[size] = nil
        }
    }
}

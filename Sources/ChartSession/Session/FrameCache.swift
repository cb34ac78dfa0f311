import LayoutEngine

/// The rendered and encoded layers of a chart at one canvas size, with the chart
/// version they show. One per distinct viewer size: every viewer of that size is
/// sent the same bytes (encode once per size).
struct RenderedSize {
    struct EncodedLayer {
        var version: UInt32
        var layer: Layer
        var bytes: [UInt8]
    }
    var chartVersion: UInt64
    var layout: ChartLayout
    var layers: [LayerID: EncodedLayer]
}

/// Keeps `RenderedSize`s and hands out layer versions. A layer keeps its version
/// when a re-render produces the same bytes, so viewers are not sent what they have.
struct FrameCache {
    private(set) var entries: [ViewerSize: RenderedSize] = [:]
    /// Layouts computed for gestures between frames: a gesture needs the layout at
    /// the sender's size, not the rendered series.
    private var layouts: [ViewerSize: (chartVersion: UInt64, layout: ChartLayout)] = [:]
    private var versionCounter: UInt32 = 0
    /// Most sizes kept beyond those of current viewers (frame.json callers, departed viewers).
    let spareSizes = 4

    /// The layers for `size` at the chart's current version, rendering if stale.
    mutating func rendered(_ chart: Chart, size: ViewerSize, renderer: ChartRenderer) -> RenderedSize {
        if let hit = entries[size], hit.chartVersion == chart.version { return hit }
        let output = renderer.render(chart, size: Size(width: Double(size.width), height: Double(size.height)),
                                     dpr: size.dpr)
        let previous = entries[size]
        var layers: [LayerID: RenderedSize.EncodedLayer] = [:]
        for id in LayerID.allCases {
            let commands = output.layers[id] ?? []
            if let old = previous?.layers[id], old.layer.commands == commands {
                layers[id] = old
                continue
            }
            versionCounter &+= 1
            let layer = Layer(id: id, version: versionCounter, commands: commands)
            layers[id] = .init(version: versionCounter, layer: layer, bytes: BinaryFrame.encodeLayer(layer))
        }
        let entry = RenderedSize(chartVersion: chart.version, layout: output.layout, layers: layers)
        entries[size] = entry
        return entry
    }

    /// The layout at `size` for the chart's current version, without rendering.
    mutating func layout(_ chart: Chart, size: ViewerSize, renderer: ChartRenderer) -> ChartLayout {
        if let hit = entries[size], hit.chartVersion == chart.version { return hit.layout }
        if let hit = layouts[size], hit.chartVersion == chart.version { return hit.layout }
        let layout = renderer.layout(chart, size: Size(width: Double(size.width), height: Double(size.height)))
        layouts[size] = (chart.version, layout)
        return layout
    }

    /// Drops sizes no viewer has, keeping a few spares.
    mutating func trim(keeping live: Set<ViewerSize>) {
        layouts = layouts.filter { live.contains($0.key) }
        let spare = entries.keys.filter { !live.contains($0) }
        guard spare.count > spareSizes else { return }
        for size in spare.prefix(spare.count - spareSizes) { entries[size] = nil }
    }
}

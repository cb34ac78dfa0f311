/// What a viewer holds: the last whole version of each layer, updated frame by frame
/// as a client does (patches applied to the version held). Tests, the benchmark and
/// Swift clients use it to see exactly what a viewer shows.
public struct HeldDisplayList: Sendable {
    public private(set) var width = 0
    public private(set) var height = 0
    public private(set) var dpr = 1.0
    public private(set) var layers: [LayerID: Layer] = [:]

    public init() {}

    /// Applies one frame; throws (and changes nothing) when a patch does not fit.
    public mutating func apply(_ frame: Frame) throws(LayerPatch.ApplyError) {
        var next = layers
        for l in frame.layers {
            switch l {
            case let .full(layer): next[layer.id] = layer
            case let .patch(p):
                guard let base = next[p.id] else { throw .wrongBase(expected: p.base, held: 0) }
                next[p.id] = try p.apply(to: base)
            }
        }
        layers = next
        width = frame.width; height = frame.height; dpr = frame.dpr
    }

    /// The display list shown now, layers bottom to top.
    public var displayList: DisplayList {
        DisplayList(width: width, height: height, dpr: dpr, layers: LayerID.allCases.compactMap { layers[$0] })
    }
}

/// Primitive draw commands: what the client executes on its canvas, in order.
/// Coordinates are CSS pixels; the client scales by its device pixel ratio.
public enum DrawCommand: Equatable, Sendable {
    public enum TextAlign: String, CaseIterable, Sendable { case left, center, right }
    public enum TextBaseline: String, CaseIterable, Sendable { case alphabetic, top, middle, bottom }

    /// A connected line through `points` (flat x0,y0,x1,y1,...).
    case polyline(points: [Float], stroke: String, width: Float, dash: [Float])
    /// Separate straight segments (flat x0,y0,x1,y1 per segment) in one style:
    /// gridlines and tick marks.
    case segments(coords: [Float], stroke: String, width: Float, dash: [Float])
    case rect(x: Float, y: Float, w: Float, h: Float, fill: String?, stroke: String?, lineWidth: Float)
    /// Text with its anchor at (x, y); `angle` in degrees, clockwise, about the anchor.
    case text(x: Float, y: Float, text: String, font: String, fill: String, align: TextAlign,
              baseline: TextBaseline, angle: Float)
    /// A line series reduced to device-pixel columns (see `ColumnLine`).
    /// (This and `band` are boxed: a command is as large as its largest case, and inline
    /// a band's two lines made every command, a label's too, 353 bytes to copy.)
    indirect case columns(ColumnLine)
    /// Point markers of one style at device-pixel centres (see `MarkerSet`).
    case markers(MarkerSet)
    /// Filled rectangles of one style on device pixels: columns, bars (see `BarSet`).
    case bars(BarSet)
    /// The fill between a band series' two lines (see `BandFill`).
    indirect case band(BandFill)
    /// Pie and donut slices (see `WedgeSet`).
    case wedges(WedgeSet)
    /// A filled polygon through `points` (flat x0,y0,x1,y1,..., closed), in `fill` or
    /// a linear gradient from `fill` to `gradient.color`.
    case polygon(points: [Float], fill: String, gradient: Gradient?)
    /// Restricts drawing to a rectangle until the matching `unclip`.
    case clip(x: Float, y: Float, w: Float, h: Float)
    case unclip
    /// The opacity (0...1) of everything drawn after it in the layer, until the next
    /// `opacity` or the end of the enclosing clip: a series fading in or out.
    case opacity(Float)
    /// The image at `src` (a path on the server, same origin) drawn into the rectangle.
    case image(x: Float, y: Float, w: Float, h: Float, src: String)

    public var op: String {
        switch self {
        case .polyline: return "polyline"
        case .segments: return "segments"
        case .rect: return "rect"
        case .text: return "text"
        case .columns: return "columns"
        case .markers: return "markers"
        case .bars: return "bars"
        case .polygon: return "polygon"
        case .wedges: return "wedges"
        case .band: return "band"
        case .clip: return "clip"
        case .unclip: return "unclip"
        case .opacity: return "opacity"
        case .image: return "image"
        }
    }
}

/// A linear gradient: the command's fill colour at (x0, y0), `color` at (x1, y1).
public struct Gradient: Equatable, Sendable {
    public var color: String
    public var x0: Float, y0: Float, x1: Float, y1: Float
    public init(color: String, x0: Float, y0: Float, x1: Float, y1: Float) {
        self.color = color; self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }
}

/// The layers of a frame, drawn bottom to top. Each is versioned separately, so a
/// viewer is sent (and redraws) only the layers that changed.
public enum LayerID: String, CaseIterable, Sendable {
    /// Backgrounds, gridlines, axes, tick labels, titles.
    case background
    /// The data series, clipped to the plot area.
    case series
    /// Above the series: the legend.
    case overlay
    /// On top, one per viewer: what the chart's modifiers draw for that viewer alone
    /// (a rollover line, a zoom box being dragged). Not shared, never in `frame.json`.
    case modifier

    /// The layers every viewer of a size shares, rendered once for all of them.
    public static let shared: [LayerID] = [.background, .series, .overlay]

    /// Its position in drawing order (and in arrays indexed by layer).
    public var index: Int {
        switch self {
        case .background: return 0
        case .series: return 1
        case .overlay: return 2
        case .modifier: return 3
        }
    }

    /// The byte that stands for the layer in the binary encoding.
    public var code: UInt8 {
        switch self {
        case .background: return 0
        case .series: return 1
        case .overlay: return 2
        case .modifier: return 3
        }
    }

    public init?(code: UInt8) {
        guard let l = LayerID.allCases.first(where: { $0.code == code }) else { return nil }
        self = l
    }
}

public struct Layer: Equatable, Sendable {
    public var id: LayerID
    public var version: UInt32
    public var commands: [DrawCommand]
    public init(id: LayerID, version: UInt32, commands: [DrawCommand]) {
        self.id = id; self.version = version; self.commands = commands
    }
}

/// A whole display list: a canvas size and every layer (frame.json, tests).
public struct DisplayList: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var dpr: Double
    public var layers: [Layer]
    public init(width: Int, height: Int, dpr: Double, layers: [Layer]) {
        self.width = width; self.height = height; self.dpr = dpr; self.layers = layers
    }
}

/// One layer as a frame carries it: whole, or as a patch to the version the viewer holds.
public enum FrameLayer: Equatable, Sendable {
    case full(Layer)
    case patch(LayerPatch)

    public var id: LayerID {
        switch self {
        case let .full(l): return l.id
        case let .patch(p): return p.id
        }
    }
    public var version: UInt32 {
        switch self {
        case let .full(l): return l.version
        case let .patch(p): return p.version
        }
    }
}

/// What one viewer is sent at once: its canvas size, the time of the newest data the
/// frame shows, and the layers that changed for it (all of them, whole, in its first
/// frame and after a resize).
public struct Frame: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var dpr: Double
    /// Milliseconds since the Unix epoch at which the newest data this frame shows
    /// reached the server (0 when unknown): lets a client tell how fresh it is.
    public var dataTime: Double
    public var layers: [FrameLayer]
    public init(width: Int, height: Int, dpr: Double, dataTime: Double = 0, layers: [FrameLayer]) {
        self.width = width; self.height = height; self.dpr = dpr; self.dataTime = dataTime; self.layers = layers
    }
}

import LayoutEngine

/// Point markers of one style at device-pixel centres: what a scatter series (or a
/// line's markers) draws, at most one marker per device pixel.
///
/// Marker `i` stands at CSS position `(x0 + cells[i].x · unit, y0 + cells[i].y · unit)`,
/// `unit` being one device pixel (1 / dpr). Centres are snapped to device pixels on
/// purpose: two points that land on one pixel then draw identical markers, so keeping
/// one of them changes no pixel (for opaque colours), and the client can stamp one
/// pre-drawn sprite per marker.
public struct MarkerSet: Equatable, Sendable {
    public struct Cell: Equatable, Sendable {
        public var x: UInt16
        public var y: UInt16
        public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }
    }

    public var shape: MarkerShape
    /// The marker's width in CSS pixels.
    public var size: Float
    public var fill: String?
    public var stroke: String?
    public var lineWidth: Float
    public var x0: Float
    public var y0: Float
    public var unit: Float
    public var cells: [Cell]

    public init(shape: MarkerShape, size: Float, fill: String?, stroke: String?, lineWidth: Float,
                x0: Float, y0: Float, unit: Float, cells: [Cell]) {
        self.shape = shape; self.size = size; self.fill = fill; self.stroke = stroke; self.lineWidth = lineWidth
        self.x0 = x0; self.y0 = y0; self.unit = unit; self.cells = cells
    }

    /// Markers in `style` (a line width only where there is an outline).
    public init(style: MarkerStyle, x0: Float, y0: Float, unit: Float, cells: [Cell]) {
        self.init(shape: style.shape, size: Float(style.size), fill: style.fill, stroke: style.stroke,
                  lineWidth: style.stroke == nil ? 0 : Float(style.lineWidth), x0: x0, y0: y0, unit: unit, cells: cells)
    }

    /// The CSS position of marker `i`.
    public func centre(_ i: Int) -> (x: Float, y: Float) {
        (x0 + Float(cells[i].x) * unit, y0 + Float(cells[i].y) * unit)
    }
}

/// Columns (or bars) of one style as device-pixel rectangles: what a column series
/// draws. Bar `i` covers CSS `x0 + left·unit ..< x0 + (left + width)·unit` across and
/// `y0 + top·unit ..< y0 + (top + height)·unit` down. Edges sit on device pixels, so
/// columns are crisp and neighbours never blur into each other.
public struct BarSet: Equatable, Sendable {
    public struct Bar: Equatable, Sendable {
        public var left: UInt16
        public var width: UInt16
        public var top: UInt16
        public var height: UInt16
        public init(left: UInt16, width: UInt16, top: UInt16, height: UInt16) {
            self.left = left; self.width = width; self.top = top; self.height = height
        }
    }

    public var fill: String
    public var stroke: String?
    public var lineWidth: Float
    public var x0: Float
    public var y0: Float
    public var unit: Float
    public var bars: [Bar]

    public init(fill: String, stroke: String?, lineWidth: Float, x0: Float, y0: Float, unit: Float, bars: [Bar]) {
        self.fill = fill; self.stroke = stroke; self.lineWidth = lineWidth
        self.x0 = x0; self.y0 = y0; self.unit = unit; self.bars = bars
    }
}

/// Slices of a pie or donut: wedges about one centre between two radii, each from
/// angle `a0` to `a1` (radians, clockwise from 12 o'clock), pushed `offset` CSS pixels
/// out along its middle angle (a selected slice's protrusion), in its own fill, all
/// outlined alike when `stroke` is set. The client draws true arcs.
public struct WedgeSet: Equatable, Sendable {
    public struct Wedge: Equatable, Sendable {
        public var fill: String
        public var a0: Float, a1: Float
        public var offset: Float
        public init(fill: String, a0: Float, a1: Float, offset: Float = 0) {
            self.fill = fill; self.a0 = a0; self.a1 = a1; self.offset = offset
        }
    }
    public var cx: Float, cy: Float
    public var r0: Float, r1: Float
    public var stroke: String?
    public var lineWidth: Float
    public var wedges: [Wedge]
    public init(cx: Float, cy: Float, r0: Float, r1: Float, stroke: String?, lineWidth: Float, wedges: [Wedge]) {
        self.cx = cx; self.cy = cy; self.r0 = r0; self.r1 = r1; self.stroke = stroke; self.lineWidth = lineWidth; self.wedges = wedges
    }
}

import LayoutEngine

/// An annotation whose content a Swift function draws (ShinobiCharts' custom-view
/// annotations): placed as the other annotations are, on one X and one Y axis, at data
/// or relative coordinates; drawn again whenever the view changes, with its box in
/// pixels and the axes' value-pixel maps. Swift only: a spec cannot carry closures.
/// Compared by its name and placement, as `TickHook` is by its name: an annotation of
/// the same name is taken for the same function.
public struct CustomAnnotation: Equatable, Sendable {
    /// A coordinate along one axis: a value of the axis (moves with pan and zoom), or a
    /// fraction of the plot's length along it (0: the axis' low-value end, 1: its
    /// high-value end; stays put as the view changes).
    public enum Coordinate: Equatable, Hashable, Sendable {
        case data(Double)
        case relative(Double)
    }

    /// What the content is clipped to: its box (within the plot when the chart clips
    /// its series), or the plot alone.
    public enum Clip: String, Equatable, Hashable, Sendable { case box, plot }

    /// What the draw function gets.
    public struct Context: Sendable {
        /// The annotation's box, CSS px.
        public let box: Rect
        /// The plot area, CSS px.
        public let plot: Rect
        /// The X and Y axes' value-pixel maps (`pixel(_:)`, `value(_:)`), along their own
        /// direction (an X axis at the side runs vertically).
        public let xAxis: CoordinateCalculator
        public let yAxis: CoordinateCalculator
        /// Device pixels per CSS pixel of the viewer.
        public let dpr: Double
        let across: Bool

        /// The screen point of a data point.
        public func point(x: Double, y: Double) -> Point {
            across ? Point(x: xAxis.pixel(x), y: yAxis.pixel(y)) : Point(x: yAxis.pixel(y), y: xAxis.pixel(x))
        }
        /// The data point at a screen point.
        public func value(at p: Point) -> (x: Double, y: Double) {
            across ? (xAxis.value(p.x), yAxis.value(p.y)) : (xAxis.value(p.y), yAxis.value(p.x))
        }
    }

    public let name: String
    public var xAxisId: String
    public var yAxisId: String
    /// One corner (or with no second corner, the centre) of its box.
    public var x: Coordinate
    public var y: Coordinate
    /// The opposite corner: the box stretches between the two (it zooms with data
    /// coordinates). Nil: a box `width` by `height` CSS px centred on (x, y).
    public var x2: Coordinate?
    public var y2: Coordinate?
    public var width: Double
    public var height: Double
    public var layer: Annotation.Layer
    public var clip: Clip
    /// The display-list commands of its content, for its box (and the rest of `Context`).
    public let draw: @Sendable (Context) -> [DrawCommand]

    /// Largest side of a box of fixed size, CSS px.
    public static let maxSide = 4000.0

    public init(_ name: String, xAxisId: String = "x", yAxisId: String = "y", x: Coordinate, y: Coordinate,
                x2: Coordinate? = nil, y2: Coordinate? = nil, width: Double = 40, height: Double = 40,
                layer: Annotation.Layer = .above, clip: Clip = .box, draw: @escaping @Sendable (Context) -> [DrawCommand]) {
        self.name = name; self.xAxisId = xAxisId; self.yAxisId = yAxisId
        self.x = x; self.y = y; self.x2 = x2; self.y2 = y2; self.width = width; self.height = height
        self.layer = layer; self.clip = clip; self.draw = draw
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.xAxisId == b.xAxisId && a.yAxisId == b.yAxisId && a.x == b.x && a.y == b.y && a.x2 == b.x2 && a.y2 == b.y2
            && a.width == b.width && a.height == b.height && a.layer == b.layer && a.clip == b.clip
    }

    /// Its box at these axes (`across`: the X axis runs horizontally); nil when a
    /// coordinate or size is not finite, or a fixed size not above 0 (or above `maxSide`).
    func box(x xc: CoordinateCalculator, y yc: CoordinateCalculator, across: Bool) -> Rect? {
        func along(_ c: Coordinate, _ calc: CoordinateCalculator) -> Double {
            switch c {
            case let .data(v): return calc.pixel(v)
            case let .relative(f): return calc.pixelStart + f * (calc.pixelEnd - calc.pixelStart)
            }
        }
        func at(_ cx: Coordinate, _ cy: Coordinate) -> (Double, Double) {
            across ? (along(cx, xc), along(cy, yc)) : (along(cy, yc), along(cx, xc))
        }
        let p = at(x, y)
        let r: Rect
        if let x2, let y2 {
            let q = at(x2, y2)
            r = Rect(x: min(p.0, q.0), y: min(p.1, q.1), width: abs(q.0 - p.0), height: abs(q.1 - p.1))
        } else {
            guard width > 0, height > 0, width <= Self.maxSide, height <= Self.maxSide else { return nil }
            r = Rect(x: p.0 - width / 2, y: p.1 - height / 2, width: width, height: height)
        }
        guard r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else { return nil }
        return r
    }
}

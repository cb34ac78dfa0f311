import LayoutEngine

/// Something drawn on a chart in data coordinates, bound to one X and one Y axis, so it
/// moves with pan and zoom (ShinobiCharts' annotations): text, a horizontal or vertical
/// line, a box between two data corners (a "zooming" annotation: it stretches as the
/// axes zoom), a marker, or an image.
public struct Annotation: Equatable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        /// Text anchored at (x, y).
        case text
        /// A line at y across the plot (or from x to x2 when both are given).
        case horizontalLine
        /// A line at x across the plot (or from y to y2 when both are given).
        case verticalLine
        /// A rectangle between the data corners (x, y) and (x2, y2).
        case box
        /// A point marker at (x, y).
        case marker
        /// One of the chart's `images`: centred on (x, y), or stretched between the data
        /// corners (x, y) and (x2, y2).
        case image
    }

    /// Drawn under the series or over them.
    public enum Layer: String, CaseIterable, Sendable { case below, above }

    public var kind: Kind
    public var xAxisId: String
    public var yAxisId: String
    public var x: Double?
    public var y: Double?
    public var x2: Double?
    public var y2: Double?
    public var text: String?
    /// Line, outline and text colour.
    public var color: String
    /// A box's fill, a text's background.
    public var fill: String?
    public var lineWidth: Double = 1
    public var dash: [Double] = []
    public var textSize: Double = 12
    /// A text's font (nil family: the chart's).
    public var font = TextFont()
    public var marker: MarkerStyle?
    public var layer: Layer = .above
    /// An image annotation's image (a key of `Chart.images`).
    public var image: String?
    /// An image's size on screen, CSS px, when not stretched between corners: either
    /// side alone keeps the image's proportions; neither: its natural size.
    public var width: Double?
    public var height: Double?
    /// An image annotation's opacity, 0 (invisible) to 1 (opaque, the default): a
    /// watermark or logo drawn faintly over the data. Sent as an `opacity` command
    /// around the `image` command (docs/protocol.md), so any client draws it.
    public var opacity: Double = 1

    public init(kind: Kind, xAxisId: String, yAxisId: String, color: String) {
        self.kind = kind; self.xAxisId = xAxisId; self.yAxisId = yAxisId; self.color = color
    }
}

/// Which side of the plot area an axis sits on.
public enum AxisAlignment: String, CaseIterable, Sendable {
    case left, right, top, bottom

    public var isHorizontal: Bool { self == .top || self == .bottom }

    /// The other side of the same direction.
    public var opposite: AxisAlignment {
        switch self {
        case .left: return .right
        case .right: return .left
        case .top: return .bottom
        case .bottom: return .top
        }
    }
}

/// What an axis' values are, which decides its ticks and labels.
public enum AxisKind: Equatable, Hashable, Sendable {
    /// Numbers, ticked at 1, 2 or 5 times a power of ten.
    case numeric(NumberLabelFormat)
    /// Instants in Unix seconds, ticked on calendar boundaries in a time zone.
    case dateTime(TimeZoneOffsets)
    /// Positive numbers on a logarithmic scale, ticked at powers of `base`.
    case logarithmic(base: Double, format: NumberLabelFormat)
    /// Named slots: value `i` is `categories[i]`, ticked and labelled at each slot.
    case category([String])

    /// How a numeric or logarithmic axis writes numbers (`.auto` for date-time axes).
    public var numberFormat: NumberLabelFormat {
        switch self {
        case let .numeric(f), let .logarithmic(_, f): return f
        case .dateTime, .category: return .auto
        }
    }

    /// Whether its labels are numbers (numeric and logarithmic axes).
    public var writesNumbers: Bool {
        switch self {
        case .numeric, .logarithmic: return true
        case .dateTime, .category: return false
        }
    }

    /// The base of a logarithmic axis, nil for the others.
    public var logBase: Double? {
        if case let .logarithmic(base, _) = self { return base }
        return nil
    }
}

/// How much room across the axis its labels are given (SwiftCharts'
/// `ChartAxisLabelsSpaceReservationMode`): what they need now, or never less than
/// the narrowest or widest labels it has shown so far (so that the plot does not move
/// as labels change while a chart scrolls or pans), or a fixed number of pixels.
public enum LabelSpaceReservation: Equatable, Hashable, Sendable {
    case current
    case minPresentedSize
    case maxPresentedSize
    case fixed(Double)
}

/// Where an axis' major ticks go when not chosen automatically, and its minor ticks.
public struct TickPlacement: Equatable, Hashable, Sendable {
    /// Major ticks at these values (those in range), instead of chosen ones.
    public var values: [Double]?
    /// Major ticks every `majorFrequency` data units from `anchor` (ShinobiCharts'
    /// `majorTickFrequency` and `anchorPoint`); more than `maxTicks` of them thin out
    /// to every 2nd, 3rd ... one.
    public var majorFrequency: Double?
    /// Major ticks at multiples of `multiplier` from `anchor` that halve as the axis is
    /// zoomed in (SwiftCharts' `ChartAxisGeneratorMultiplier`): the step is
    /// `multiplier · 2ⁿ`, n the integer (negative zoomed in) that puts ticks
    /// `targetSpacing` to twice that apart, so zoomed out they are every 2nd, 4th ...
    /// multiple.
    public var multiplier: Double?
    public var anchor: Double
    public var minor: MinorTicks
    /// Date-time axes: major and minor ticks at a calendar frequency (ShinobiCharts'
    /// `SChartDateFrequency` as `majorTickFrequency` / `minorTickFrequency`), counted
    /// from its anchor or, without one, on the unit's boundaries.
    public var majorTime: TimeFrequency?
    public var minorTime: TimeFrequency?

    public enum MinorTicks: Equatable, Hashable, Sendable {
        case none
        /// As the major step suggests: fifths of 1 × 10^n, quarters of 2 × 10^n, fifths
        /// of 5 × 10^n; 2 ... 9 × 10^n between the powers of a base-10 log axis.
        case auto
        /// This many intervals between two major ticks.
        case divisions(Int)
        /// Every this many data units from `anchor` (ShinobiCharts' `minorTickFrequency`).
        case frequency(Double)
    }

    public init(values: [Double]? = nil, majorFrequency: Double? = nil, anchor: Double = 0, minor: MinorTicks = .none) {
        self.values = values; self.majorFrequency = majorFrequency; self.anchor = anchor; self.minor = minor
    }
}

/// Whether an axis is drawn, and whether it keeps its room when it is not.
public enum AxisVisibility: String, CaseIterable, Hashable, Sendable {
    case visible
    /// Not drawn, and takes no room (series still use its range).
    case hidden
    /// Not drawn, but its room is kept, as if it were.
    case hiddenKeepingSpace
}

/// A Swift function writing an axis' tick labels (SwiftCharts' label generators).
/// Two generators are the same when their names are: layouts are compared, closures
/// cannot be.
public struct TickLabelGenerator: Equatable, Hashable, Sendable {
    public let name: String
    public let label: @Sendable (Double) -> String
    public init(_ name: String, _ label: @escaping @Sendable (Double) -> String) { self.name = name; self.label = label }
    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }
}

/// A Swift function choosing an axis' major tick values (SwiftCharts' axis value
/// generators): given the visible range and the axis' length in pixels, the values
/// to tick. Compared by name, as `TickLabelGenerator` is.
public struct TickValueGenerator: Equatable, Hashable, Sendable {
    public let name: String
    public let values: @Sendable (DoubleRange, Double) -> [Double]
    public init(_ name: String, _ values: @escaping @Sendable (DoubleRange, Double) -> [Double]) {
        self.name = name; self.values = values
    }
    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }
}

/// A major tick as ShinobiCharts' `alterTickMark` hands it over before it is placed.
public struct TickMark: Equatable, Sendable {
    public let value: Double
    public var label: String
    /// Drop the tick, its gridline and its label.
    public var isHidden = false
    /// Keep the tick and gridline, drop the label.
    public var isLabelHidden = false
    /// This label's own font and size (ShinobiCharts' `tickLabel` restyled; nil: the
    /// axis' `labelStyle`), measured as such, and its own colour (nil: the axis').
    public var labelStyle: TextStyle? = nil
    public var labelColor: String? = nil
    /// This label turned by its own angle (degrees, -90 ... 90, clockwise as the axis'
    /// `labelAngle`; outside that range it is clamped, a non-finite one is ignored; nil:
    /// the axis' angle), measured and placed turned as the axis' turned labels are.
    public var labelAngle: Double? = nil
    /// A colour filled behind this label (a rect over its box, drawn before the text;
    /// nil: none, or the axis' own `labelBackground` box).
    public var labelBackground: String? = nil
    /// An image drawn in place of the text (`TickImage`): its size is the label's.
    public var labelImage: TickImage? = nil
    public init(value: Double, label: String) { self.value = value; self.label = label }
}

/// An image as a tick label (ShinobiCharts' image tick labels): `src` names one of
/// the chart's images (the spec's `images`, `Chart.images`, served at
/// `/api/sessions/{s}/images/{name}` as image annotations' are), drawn `width` by
/// `height` CSS pixels, straight, centred on its tick as a label is. One side given:
/// the other follows the image's own aspect ratio (its pixel size, read from its
/// header when the chart took it); neither: its natural size, a pixel a CSS pixel. A
/// name the chart does not have, or a side not above 0 (or above 2000) leaves the
/// label its text.
public struct TickImage: Equatable, Hashable, Sendable {
    public var src: String
    /// CSS pixels; nil: from `height` and the image's aspect ratio.
    public var width: Double?
    /// CSS pixels; nil: from `width` and the image's aspect ratio.
    public var height: Double?
    public init(src: String, width: Double? = nil, height: Double? = nil) { self.src = src; self.width = width; self.height = height }
    /// Largest side, CSS pixels.
    public static let maxSide = 2000.0

    /// The size drawn for an image of `natural` pixels: the sides given, the missing
    /// one from the image's aspect ratio; nil when a side is not above 0, above
    /// `maxSide`, or not finite.
    public func size(natural: Size) -> Size? {
        guard natural.width > 0, natural.height > 0 else { return nil }
        let aspect = natural.width / natural.height
        let w = width ?? height.map { $0 * aspect } ?? natural.width
        let h = height ?? width.map { $0 / aspect } ?? natural.height
        guard w > 0, h > 0, w <= Self.maxSide, h <= Self.maxSide else { return nil }
        return Size(width: w, height: h)
    }
}

/// A Swift function called for every major tick of an axis before layout places it
/// (ShinobiCharts' `alterTickMark`): it may change the label, or hide the tick or its
/// label. Compared by name, as `TickLabelGenerator` is.
public struct TickHook: Equatable, Hashable, Sendable {
    public let name: String
    public let alter: @Sendable (inout TickMark) -> Void
    public init(_ name: String, _ alter: @escaping @Sendable (inout TickMark) -> Void) { self.name = name; self.alter = alter }
    public static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    public func hash(into h: inout Hasher) { h.combine(name) }
}

/// Room left at the ends of an axis before its first and after its last value
/// (SwiftCharts' `ChartAxisPadding`): the axis' values then take the rest.
public struct AxisEndPadding: Equatable, Hashable, Sendable {
    public enum Mode: Equatable, Hashable, Sendable {
        case none
        /// Half the size of the label at that end.
        case label
        case fixed(Double)
        /// The larger of `.label` and the size.
        case maxLabelFixed(Double)
        /// `.label` plus the size.
        case labelPlus(Double)

        func size(label half: Double) -> Double {
            switch self {
            case .none: return 0
            case .label: return half
            case let .fixed(p): return p
            case let .maxLabelFixed(p): return max(half, p)
            case let .labelPlus(p): return half + p
            }
        }
        var needsLabels: Bool {
            switch self {
            case .label, .maxLabelFixed, .labelPlus: return true
            case .none, .fixed: return false
            }
        }
    }
    /// At the low-value end, and the high-value end.
    public var leading: Mode, trailing: Mode
    public init(leading: Mode = .none, trailing: Mode = .none) { self.leading = leading; self.trailing = trailing }
    var needsLabels: Bool { leading.needsLabels || trailing.needsLabels }
}

/// What happens at an end of an axis to a tick whose label would reach past it.
public enum TickLabelClipping: String, CaseIterable, Hashable, Sendable {
    /// The tick and its whole label stay.
    case ticksAndLabelsPersist
    /// The tick stays, its label goes (SwiftCharts' `clipContents`).
    case ticksPersist
    /// Both go.
    case neitherPersist
}

/// Everything the measure and layout passes need to know about one axis.
public struct AxisSpec: Equatable, Sendable {
    public var id: String
    public var alignment: AxisAlignment
    /// The data range shown along the axis (already resolved from auto-range rules).
    public var visibleRange: DoubleRange
    /// Device pixels per CSS pixel, for an axis whose range scrolls with its data (a
    /// following X axis): the range it shows is `visibleRange` moved on (its span kept)
    /// until its end is a whole multiple of the data width of one device pixel, at the
    /// length the layout gives it (`range(alongPixels:)`). Columns of data then keep
    /// their pixels from frame to frame and a scroll moves them by whole pixels. Nil:
    /// `visibleRange` as it is.
    public var snapsToDevicePixels: Double?
    public var title: String?
    public var labelStyle: TextStyle
    public var titleStyle: TextStyle
    /// Length of major tick marks, drawn outwards from the plot edge.
    public var tickLength: Double
    /// Gap between tick mark and label.
    public var labelPadding: Double
    /// Gap between the labels and the axis title.
    public var titlePadding: Double
    public var tickPolicy: TickPolicy
    /// Values grow towards the left (horizontal) or downwards (vertical) when true.
    public var flipped: Bool
    public var kind: AxisKind
    public var labelSpace: LabelSpaceReservation
    public var tickPlacement: TickPlacement
    public var visibility: AxisVisibility
    /// Tick labels turned by this many degrees (-90 ... 90; negative: rising to the
    /// right), each ending at its tick (a vertical axis' with the middle of its end on
    /// the tick's line).
    public var labelAngle: Double = 0
    /// Stretches left out of a discontinuous numeric or date-time axis.
    public var breaks: AxisBreaks?
    /// For a floating axis: its labels and ticks stay at the plot's edge, only its line
    /// floats (ShinobiCharts' `axisLabelsAreFixed`).
    public var labelsAreFixed = false
    /// What happens to a label that would reach past the low or high end of the axis
    /// (ShinobiCharts' `tickLabelClippingModeLow` / `High`).
    public var tickLabelClippingLow = TickLabelClipping.ticksAndLabelsPersist
    public var tickLabelClippingHigh = TickLabelClipping.ticksAndLabelsPersist
    public var endPadding = AxisEndPadding()
    /// The whole thickness of the axis, whatever its labels (ShinobiCharts' `width`).
    public var fixedThickness: Double?
    /// Date-time labels written by this pattern (`TimeTickGenerator.format`) instead
    /// of as the step resolves them.
    public var dateFormat: String?
    /// Numeric labels with exactly this many decimals (nil: as the step needs).
    public var labelDecimals: Int?
    /// Labels for given values (SwiftCharts' fixed label generator): a tick at a value
    /// in the map is labelled with its text.
    public var labelMap: [Double: String] = [:]
    /// Chooses the major tick values instead of the axis.
    public var valueGenerator: TickValueGenerator?
    /// Writes the tick labels instead of the axis' own format.
    public var labelGenerator: TickLabelGenerator?
    /// Sees every major tick before it is placed.
    public var tickHook: TickHook?
    /// The images a hook may draw as labels (`TickImage.src`): the chart's, with their
    /// natural sizes in pixels (for a `TickImage` giving one side, or none).
    public var labelImages: [String: Size] = [:]
    /// Inside the plot (SciChart's `isCenterAxis`): laid out by the inner strategy of
    /// its alignment, taking no room from the plot, ticks and labels facing into it.
    public var isCenterAxis: Bool
    /// For an inner axis: the value of another axis (`positionAxis`; nil: the first
    /// axis of the other direction) where its line floats (ShinobiCharts'
    /// `axisPositionValue`).
    public var positionValue: Double?
    public var positionAxis: String?
    /// The smallest and largest label extent (`AxisLayout.labelExtent`) this axis has
    /// shown so far, kept by the caller; nil before its first layout.
    public var presentedLabelExtent: ClosedRange<Double>?

    public init(
        id: String, alignment: AxisAlignment, visibleRange: DoubleRange, title: String? = nil,
        labelStyle: TextStyle = TextStyle(size: 12), titleStyle: TextStyle = TextStyle(size: 13),
        tickLength: Double = 5, labelPadding: Double = 4, titlePadding: Double = 6,
        tickPolicy: TickPolicy? = nil, flipped: Bool = false, kind: AxisKind = .numeric(.auto),
        labelSpace: LabelSpaceReservation = .current, presentedLabelExtent: ClosedRange<Double>? = nil,
        isCenterAxis: Bool = false, positionValue: Double? = nil, positionAxis: String? = nil,
        tickPlacement: TickPlacement = TickPlacement(), visibility: AxisVisibility = .visible
    ) {
        self.id = id; self.alignment = alignment; self.visibleRange = visibleRange
        self.title = title; self.labelStyle = labelStyle; self.titleStyle = titleStyle
        self.tickLength = tickLength; self.labelPadding = labelPadding; self.titlePadding = titlePadding
        self.tickPolicy = tickPolicy ?? (alignment.isHorizontal
            ? TickPolicy(targetSpacing: 90, minLabelGap: 12)
            : TickPolicy(targetSpacing: 50, minLabelGap: 6))
        self.flipped = flipped
        self.kind = kind
        self.labelSpace = labelSpace
        self.presentedLabelExtent = presentedLabelExtent
        self.isCenterAxis = isCenterAxis; self.positionValue = positionValue; self.positionAxis = positionAxis
        self.tickPlacement = tickPlacement
        self.visibility = visibility
    }

    /// The side its ticks and labels point to: away from the plot for an outer axis,
    /// into it for an inner one.
    public var facing: AxisAlignment { isCenterAxis ? alignment.opposite : alignment }

    /// The room given to labels whose extent across the axis is `measured`.
    public func reservedLabelExtent(measured: Double) -> Double {
        switch labelSpace {
        case .current: return measured
        case .minPresentedSize: return max(measured, presentedLabelExtent?.lowerBound ?? 0)
        case .maxPresentedSize: return max(measured, presentedLabelExtent?.upperBound ?? 0)
        case let .fixed(px): return px
        }
    }
}

/// A line of text placed by layout. `anchor` is the point on the baseline that `align`
/// refers to; `angle` (degrees, clockwise) rotates the text about the anchor.
/// `bounds` is the axis-aligned box the text covers, for overlap checks.
public struct PlacedText: Equatable, Sendable {
    public enum Align: String, Sendable { case left, center, right }
    public var text: String
    public var anchor: Point
    public var align: Align
    public var angle: Double
    public var style: TextStyle
    public var bounds: Rect
    /// A colour of its own (a tick label restyled by `TickHook`); nil: its kind's.
    public var fill: String? = nil
    /// A colour filled over `bounds` before the text (`TickMark.labelBackground`).
    public var background: String? = nil
    /// Drawn over `bounds` in place of the text (`TickMark.labelImage`).
    public var image: TickImage? = nil
}

/// The result of laying out one axis.
public struct AxisLayout: Equatable, Sendable {
    public var id: String
    public var alignment: AxisAlignment
    /// Where its ticks and labels point (`AxisSpec.facing`); the axis line is the
    /// band's edge on the other side.
    public var facing: AxisAlignment
    /// Laid out inside the plot (`AxisSpec.isCenterAxis`).
    public var isInner: Bool { facing != alignment }
    /// The band the axis occupies (ticks, labels, title): beside the plot area, or
    /// inside it for an inner axis.
    public var rect: Rect
    /// Maps data values to canvas pixels along this axis.
    public var calculator: CoordinateCalculator
    public var step: TickStep?
    /// Every major tick inside the visible range, with its canvas pixel position.
    public var ticks: [Tick]
    /// Canvas pixel positions of the minor ticks (none at a major tick).
    public var minorTicks: [Double] = []
    /// Labels that fit on the canvas (a label that would be cut at the canvas edge is
    /// left out; its tick and gridline stay).
    public var labels: [PlacedText]
    public var title: PlacedText?
    public var tickLength: Double
    /// Not drawn (`AxisVisibility`): no line, ticks, labels or title.
    public var isHidden = false
    /// The title's second and further lines (a title with line breaks), outwards.
    public var moreTitleLines: [PlacedText] = []
    /// Where the axis line is when it is not at the band's edge (a floating axis whose
    /// labels are fixed): a pixel across the plot.
    public var line: Double?
    /// How far across the axis its current labels reach (widest label of a vertical
    /// axis, a line of a horizontal one), before any reservation.
    public var labelExtent: Double
}

/// The chart as a whole, as the layout pass places it.
public struct ChartLayoutSpec: Equatable, Sendable {
    public var size: Size
    public var padding: EdgeInsets
    public var title: String?
    public var titleStyle: TextStyle
    public var titlePadding: Double
    public var axes: [AxisSpec]
    /// Gap between neighbouring outer axes on one side (SwiftCharts' spacing between axes).
    public var axisSpacing: Double = 0

    public init(
        size: Size, padding: EdgeInsets = .all(10), title: String? = nil,
        titleStyle: TextStyle = TextStyle(size: 16, bold: true), titlePadding: Double = 8,
        axes: [AxisSpec]
    ) {
        self.size = size; self.padding = padding; self.title = title
        self.titleStyle = titleStyle; self.titlePadding = titlePadding; self.axes = axes
    }
}

public struct ChartLayout: Equatable, Sendable {
    public var size: Size
    public var plotRect: Rect
    public var title: PlacedText?
    public var axes: [AxisLayout]
    /// How many measure/layout rounds it took to settle.
    public var passes: Int
    /// The band at the chart's edge a legend outside the plot is drawn in (the room the
    /// layout was given less: set by whoever reserved it); nil: the legend, if any, is
    /// inside the plot.
    public var legendArea: Rect? = nil
    /// Where in `legendArea` the legend's box goes.
    public var legendPosition: LegendPosition? = nil

    public func axis(_ id: String) -> AxisLayout? { axes.first { $0.id == id } }
}

extension AxisSpec {
    /// The range shown over `length` CSS pixels (see `snapsToDevicePixels`).
    public func range(alongPixels length: Double) -> DoubleRange {
        guard let dpr = snapsToDevicePixels else { return visibleRange }
        let r = visibleRange
        let w = r.span / (length * dpr)
        guard w.isFinite, w > 0 else { return r }
        let end = (r.max / w).rounded(.up) * w
        return DoubleRange(end - r.span, end)
    }
}

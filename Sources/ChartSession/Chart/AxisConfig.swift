import LayoutEngine

/// How an axis finds its visible range while the user has not panned or zoomed it.
public enum AxisRangeMode: String, CaseIterable, Sendable {
    /// All the data of the axis' series (padded by `growBy`).
    case extents
    /// Y axes: the data inside the visible X range (padded by `growBy`).
    case visible
    /// X axes: a window of `window` data units ending at the newest point, scrolling
    /// as data arrives.
    case follow
    /// Exactly `range`.
    case fixed
}

/// What an axis' values are.
public enum AxisType: String, CaseIterable, Sendable {
    /// Numbers.
    case numeric
    /// Instants in Unix seconds (UTC), ticked and labelled in the axis' `timeZone`.
    case time
    /// Positive numbers on a logarithmic scale of base `logBase`.
    case logarithmic
    /// Named slots: x (or y) value `i` is `categories[i]`.
    case category
}

/// The declared form of one axis.
public struct AxisConfig: Equatable, Sendable {
    public var id: String
    public var alignment: AxisAlignment
    public var title: String?
    public var mode: AxisRangeMode
    /// Window width for `.follow`, in data units.
    public var window: Double?
    /// The range for `.fixed`, and the range used before any data arrives.
    public var range: DoubleRange?
    /// The range the axis is zoomed to when the chart is made (a user range, as a
    /// zoom sets; zooming to extents leaves it).
    public var visibleRange: DoubleRange?
    /// Padding added below and above an automatic range, as fractions of its span.
    public var growBy: (lower: Double, upper: Double)
    public var labelSize: Double
    public var titleSize: Double
    public var flipped: Bool
    public var showGridLines: Bool
    public var type: AxisType
    /// How a numeric axis writes its values.
    public var labelFormat: NumberLabelFormat
    /// For `.time`: an IANA time zone name ("UTC", "Europe/Berlin").
    public var timeZone: String
    /// Room kept for tick labels (default: never less than the widest shown so far,
    /// so a live chart's plot does not move as its labels change).
    public var labelSpace: LabelSpaceReservation
    /// For `.logarithmic`: the base (> 1).
    public var logBase: Double
    /// Given major tick values or frequency, and minor ticks.
    public var tickPlacement: TickPlacement
    /// Gridlines at the minor ticks too (lighter than the major ones).
    public var minorGridLines: Bool
    /// Every other interval between major ticks shaded across the plot.
    public var bands: Bool
    /// Column series side by side on this (X) axis (ShinobiCharts' names): the gap
    /// between the columns of one X value, as a fraction of a column's slot, and the
    /// gap between neighbouring groups, as a fraction of the X spacing.
    public var interSeriesPadding = 0.0
    public var interSeriesSetPadding = 0.2
    public var visibility: AxisVisibility
    /// Length of major tick marks; gap from tick to label (SwiftCharts'
    /// label-to-axis spacing); gap from labels to title.
    public var tickLength: Double, labelSpacing: Double, titleSpacing: Double
    /// The axis line: width in CSS px (nil: one device pixel; 0: no line) and colour
    /// (nil: the theme's), also used for its ticks.
    public var lineWidth: Double?
    public var lineColor: String?
    /// Tick label colour (nil: the theme's).
    public var labelColor: String?
    /// The tick labels' and the title's fonts (family, weight, italic; nil family: the
    /// chart's), and the title's colour (nil: the theme's `title`).
    public var labelFont = TextFont()
    public var titleFont = TextFont()
    public var titleColor: String?
    /// Tick marks styled apart from the axis line (ShinobiCharts' `SChartTickMark`
    /// style): colour (nil: the line's) and width in CSS px (nil: the line's; 0: none).
    public var tickColor: String?
    public var tickWidth: Double?
    /// This axis' major gridlines: colour (nil: the theme's `gridLine`), width in CSS px
    /// (nil: one device pixel) and dash pattern (empty: solid).
    public var gridLineColor: String?
    public var gridLineWidth: Double?
    public var gridLineDash: [Double] = []
    /// For `.category`: the name of each slot.
    public var categories: [String] = []
    /// Added below and above an automatic range, in data units (ShinobiCharts'
    /// `rangePaddingLow`/`High`), after `growBy`.
    public var rangePadding: (low: Double, high: Double) = (0, 0)
    /// Narrowest and widest span a user may zoom to (data units).
    public var zoomLimits: ClosedRange<Double>?
    /// The range a user may pan and zoom within.
    public var panLimits: DoubleRange?
    /// Whether gestures pan this axis, and zoom it (ShinobiCharts'
    /// `enableGesturePanning`, `enableGestureZooming`): each modifier still acts on the
    /// directions it is given, and leaves an axis with its gesture turned off alone.
    /// Code (`Chart.setRange`, `setZoomLevel`) is not a gesture: it still moves it.
    public var gesturePanning = true
    public var gestureZooming = true
    /// Degrees the tick labels are turned (-90 ... 90), on X and Y axes alike.
    public var labelAngle: Double = 0
    /// Discontinuous axes: ranges left out, a pattern left out every `period`
    /// ((start, length) within it, from 0), and for time axes weekends and the hours
    /// outside `tradingHours` (seconds after local midnight: open, close).
    public var excludedRanges: [DoubleRange] = []
    public var excludedPeriod: (period: Double, stretches: [(start: Double, length: Double)])?
    public var excludeWeekends = false
    public var tradingHours: (open: Double, close: Double)?
    /// Time axes: calendar rules left out in the axis' zone (holidays, a day of every
    /// month, stretches of every week or day: the spec's `exclude`).
    public var calendarExclusions: [CalendarExclusion] = []
    /// Room before the first and after the last value (SwiftCharts' padding modes).
    public var endPadding = AxisEndPadding()
    /// Least room between neighbouring labels, px (SwiftCharts' spacing between labels).
    public var labelGap: Double?
    /// The axis' whole thickness, px (ShinobiCharts' `width`).
    public var width: Double?
    /// Numeric labels with exactly this many decimals.
    public var labelDecimals: Int?
    /// Time axes: labels written by this date pattern.
    public var dateFormat: String?
    /// Labels for given tick values.
    public var labelMap: [Double: String] = [:]
    /// For a floating axis: labels and ticks stay at the plot's edge, the line floats.
    public var labelsAreFixed = false
    /// Labels on a box of the plot's background, drawn above the series (they are
    /// drawn over data: an axis inside the plot). nil: on for an axis inside the plot
    /// (`isCenterAxis`), off otherwise (`drawsLabelBackground`).
    public var labelBackground: Bool?
    public var drawsLabelBackground: Bool { labelBackground ?? isCenterAxis }
    /// A label reaching past the low / high end of the axis: kept, dropped, or dropped
    /// with its tick.
    public var tickLabelClippingLow = TickLabelClipping.ticksAndLabelsPersist
    public var tickLabelClippingHigh = TickLabelClipping.ticksAndLabelsPersist
    /// Swift only: writes the tick labels; sees every major tick before it is placed.
    public var labelGenerator: TickLabelGenerator?
    public var tickHook: TickHook?
    public var valueGenerator: TickValueGenerator?

    public var isDiscontinuous: Bool {
        !excludedRanges.isEmpty || excludedPeriod != nil || excludeWeekends || tradingHours != nil || !calendarExclusions.isEmpty
    }
    /// Inside the plot (SciChart's `isCenterAxis`), ticks and labels facing into it.
    public var isCenterAxis: Bool
    /// For a centre axis: floats at this value of `positionAxis` (nil: the first axis
    /// of the other direction), ShinobiCharts' `axisPositionValue`.
    public var axisPositionValue: Double?
    public var positionAxis: String?

    public init(
        id: String, alignment: AxisAlignment, title: String? = nil, mode: AxisRangeMode = .extents,
        window: Double? = nil, range: DoubleRange? = nil, growBy: (lower: Double, upper: Double) = (0, 0),
        labelSize: Double = 12, titleSize: Double = 13, flipped: Bool = false, showGridLines: Bool = true,
        type: AxisType = .numeric, labelFormat: NumberLabelFormat = .auto, timeZone: String = "UTC",
        labelSpace: LabelSpaceReservation = .maxPresentedSize, isCenterAxis: Bool = false,
        axisPositionValue: Double? = nil, positionAxis: String? = nil, logBase: Double = 10,
        tickPlacement: TickPlacement = TickPlacement(), minorGridLines: Bool = false, bands: Bool = false,
        visibility: AxisVisibility = .visible, tickLength: Double = 5, labelSpacing: Double = 4, titleSpacing: Double = 6,
        lineWidth: Double? = nil, lineColor: String? = nil, labelColor: String? = nil
    ) {
        self.id = id; self.alignment = alignment; self.title = title; self.mode = mode
        self.window = window; self.range = range; self.growBy = growBy
        self.labelSize = labelSize; self.titleSize = titleSize; self.flipped = flipped
        self.showGridLines = showGridLines
        self.type = type; self.labelFormat = labelFormat; self.timeZone = timeZone
        self.labelSpace = labelSpace
        self.isCenterAxis = isCenterAxis; self.axisPositionValue = axisPositionValue; self.positionAxis = positionAxis
        self.logBase = logBase
        self.tickPlacement = tickPlacement; self.minorGridLines = minorGridLines; self.bands = bands
        self.visibility = visibility; self.tickLength = tickLength; self.labelSpacing = labelSpacing
        self.titleSpacing = titleSpacing; self.lineWidth = lineWidth; self.lineColor = lineColor; self.labelColor = labelColor
    }

    public static func == (a: AxisConfig, b: AxisConfig) -> Bool {
        a.id == b.id && a.alignment == b.alignment && a.title == b.title && a.mode == b.mode
            && a.gesturePanning == b.gesturePanning && a.gestureZooming == b.gestureZooming
            && a.window == b.window && a.range == b.range && a.growBy == b.growBy
            && a.labelSize == b.labelSize && a.titleSize == b.titleSize && a.flipped == b.flipped
            && a.showGridLines == b.showGridLines && a.type == b.type && a.labelFormat == b.labelFormat
            && a.timeZone == b.timeZone && a.labelSpace == b.labelSpace && a.isCenterAxis == b.isCenterAxis
            && a.axisPositionValue == b.axisPositionValue && a.positionAxis == b.positionAxis && a.logBase == b.logBase
            && a.tickPlacement == b.tickPlacement && a.minorGridLines == b.minorGridLines && a.bands == b.bands
            && a.visibility == b.visibility && a.tickLength == b.tickLength && a.labelSpacing == b.labelSpacing
            && a.titleSpacing == b.titleSpacing && a.lineWidth == b.lineWidth && a.lineColor == b.lineColor
            && a.labelColor == b.labelColor && a.categories == b.categories
            && a.rangePadding == b.rangePadding && a.zoomLimits == b.zoomLimits && a.panLimits == b.panLimits
            && a.labelAngle == b.labelAngle && a.excludedRanges == b.excludedRanges
            && a.excludedPeriod?.period == b.excludedPeriod?.period
            && a.excludedPeriod?.stretches.map(\.start) == b.excludedPeriod?.stretches.map(\.start)
            && a.excludedPeriod?.stretches.map(\.length) == b.excludedPeriod?.stretches.map(\.length)
            && a.excludeWeekends == b.excludeWeekends && a.tradingHours?.open == b.tradingHours?.open
            && a.tradingHours?.close == b.tradingHours?.close && a.calendarExclusions == b.calendarExclusions
            && a.labelGenerator == b.labelGenerator && a.tickHook == b.tickHook && a.labelsAreFixed == b.labelsAreFixed
            && a.tickLabelClippingLow == b.tickLabelClippingLow && a.tickLabelClippingHigh == b.tickLabelClippingHigh
            && a.endPadding == b.endPadding && a.valueGenerator == b.valueGenerator && a.labelGap == b.labelGap
            && a.width == b.width && a.labelDecimals == b.labelDecimals && a.labelMap == b.labelMap
            && a.dateFormat == b.dateFormat && a.labelBackground == b.labelBackground
            && a.labelFont == b.labelFont && a.titleFont == b.titleFont && a.titleColor == b.titleColor
            && a.tickColor == b.tickColor && a.tickWidth == b.tickWidth && a.gridLineColor == b.gridLineColor
            && a.gridLineWidth == b.gridLineWidth && a.gridLineDash == b.gridLineDash
    }
}

/// An axis of a live chart: its configuration and the range a user has set by panning
/// or zooming (nil while the axis follows its `mode`).
public struct Axis: Sendable {
    public var config: AxisConfig
    public var userRange: DoubleRange?
    public var isXAxis: Bool

    public var id: String { config.id }
}

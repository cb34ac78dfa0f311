import Foundation
import LayoutEngine
import Synchronization

/// Where the legend goes, if the chart shows one (ShinobiCharts' names): `position`
/// is where it sits, `placement` whether inside the plot area or outside it (taking
/// space from the layout).
public struct LegendConfig: Equatable, Sendable {
    public var position: LegendPosition
    public var placement: LegendPlacement
    public var textSize: Double
    /// The entries' font (family, weight, italic).
    public var font = TextFont()
    /// Room between the legend's border and its entries, px (nil: the layout's own).
    public var padding: Double? = nil
    /// Hidden series stay listed, dimmed (a legend whose entries show and hide their
    /// series: `LegendModifier` sets it).
    public var listsHiddenSeries = false
    /// The spec named the placement: the legend stays inside (or outside) the plot. Not
    /// pinned, an inside legend that covers data wherever it goes in the plot moves out
    /// of it (`ChartRenderer.legendBands`).
    public var pinned: Bool
    /// Swift functions that change each entry and draw its symbol (Swift only: a spec
    /// has none; `Chart.setLegendItemRenderer`). Compared by name.
    public var itemRenderer: LegendItemRenderer? = nil
    public init(position: LegendPosition = .topLeft, placement: LegendPlacement = .insidePlotArea, textSize: Double = 12,
                pinned: Bool = false) {
        self.position = position; self.placement = placement; self.textSize = textSize; self.pinned = pinned
    }
}

/// The state of one chart: axes, series and their data, legend, theme and the
/// modifiers that turn gestures into changes. All viewers of a session share it.
///
/// Every change goes through a method here and bumps `version`, which is how sessions
/// know a new frame is due.
public final class Chart {
    /// The title, legend and theme: assigning a different one is a change viewers are
    /// sent (as every method here makes).
    public var title: String? { didSet { if title != oldValue { touch() } } }
    public private(set) var axes: [Axis]
    public private(set) var series: [Series]
    /// (A new legend configuration is placed afresh: where the old one stood is forgotten.)
    public var legend: LegendConfig? { didSet { if legend != oldValue { shownLegends.removeAll(); touch() } } }
    public var theme: Theme { didSet { if theme != oldValue { touch() } } }
    /// The modifiers, in the order they receive events (SciChart's modifier
    /// collection). Setting the list attaches the new ones and detaches those removed.
    public var modifiers: [ChartModifierBase] {
        didSet {
            for m in oldValue where !modifiers.contains(where: { $0 === m }) { m.detach() }
            for m in modifiers where m.parentSurface !== self { m.attach(to: self) }
            invalidateModifierLayers()
        }
    }
    /// Viewers whose modifier drawing changed since the session last looked (empty:
    /// all of them); nil: none.
    var overlaysInvalidated: Set<ViewerID>?
    func invalidateModifierLayers(_ viewer: ViewerID? = nil) {
        if let viewer, overlaysInvalidated?.isEmpty != true { overlaysInvalidated = (overlaysInvalidated ?? []).union([viewer]) }
        else if viewer == nil { overlaysInvalidated = [] }
    }
    private var eventHandlers: [(ChartEvent) -> Void] = []
    /// Calls `handler` with every `ChartEvent` from now on (ShinobiCharts' delegate).
    public func addEventHandler(_ handler: @escaping (ChartEvent) -> Void) { eventHandlers.append(handler) }
    /// Tells every handler (modifiers call this).
    public func emit(_ event: ChartEvent) { for h in eventHandlers { h(event) } }
    private var suspended = 0
    private var changedWhileSuspended = false

    /// Runs `body` with updates suspended (SciChart's `suspendUpdates`): however many
    /// changes it makes, the chart's version moves once, at the end, so they reach
    /// viewers in one frame.
    public func suspendUpdates<T>(_ body: () throws -> T) rethrows -> T {
        suspended += 1
        defer {
            suspended -= 1
            if suspended == 0, changedWhileSuspended { changedWhileSuspended = false; version &+= 1 }
        }
        return try body()
    }
    /// The members each stack's stacked values were made for, and the generation of
    /// their data then (by first member).
    private var stackMembers: [Int: (members: [Int], generations: [Int])] = [:]
    /// Lays the axes out (SciChart's layout manager): replace it, or one of the
    /// strategies of a `DefaultLayoutManager`, to place axes otherwise (docs/axes.md).
    public var layoutManager: any ChartLayoutManager = DefaultLayoutManager() {
        didSet { layoutManagerGeneration &+= 1; touch() }
    }
    /// Gap between neighbouring outer axes on one side, px.
    public var axisSpacing: Double = 0 { didSet { touch() } }
    /// Series drawn only inside the plot (SwiftCharts' inner-frame clipping).
    public var clipSeries = true { didSet { touch() } }
    /// Drawn in data coordinates under or over the series (docs/series.md).
    public var annotations: [Annotation] = [] { didSet { touch() } }
    /// Annotations whose content Swift functions draw (`CustomAnnotation`), drawn after
    /// the spec's annotations of their layer. Swift only: a changed spec keeps them.
    public var customAnnotations: [CustomAnnotation] = [] { didSet { if customAnnotations != oldValue { touch() } } }
    /// Images that `image` annotations draw, by name.
    public var images: [String: ChartImage] = [:] { didSet { touch() } }
    /// Where viewers fetch the images from: the path before an image's name (the
    /// session sets `/api/sessions/{id}/images/`).
    public var imagePath = "images/" { didSet { touch() } }
    /// Room between the canvas edge and the chart (title, axes), px.
    public var margins = EdgeInsets.all(10) { didSet { touch() } }
    /// The family of all the chart's text (title, axes, legend, annotations, pie
    /// labels) that names none of its own: one of the server's `--fonts` families
    /// (`FontFamilies`); nil: the chart font.
    public var fontFamily: String? { didSet { if fontFamily != oldValue { touch() } } }
    /// The chart title's font (its weight bold unless it says otherwise) and size.
    public var titleFont = TextFont() { didSet { if titleFont != oldValue { touch() } } }
    public var titleSize = 16.0 { didSet { if titleSize != oldValue { touch() } } }

    /// Hides or shows a series (hidden: not drawn, not in the legend, not in
    /// automatic ranges).
    ///
    /// With `animationEnabled`, showing it runs its `entryAnimation` and hiding it its
    /// `exitAnimation`, from wherever an animation under way has got to; the series
    /// counts as hidden once its exit has run (`advanceAnimations`).
    public func setHidden(_ seriesId: String, _ hidden: Bool) {
        guard let i = seriesIndex(seriesId) else { return }
        let s = series[i]
        guard s.animationEnabled, s.hasEntered || !hidden else {
            guard s.isHidden != hidden else { return }
            series[i].isHidden = hidden
            touch()
            return
        }
        let shown = s.isHidden ? 0 : s.animation?.shown ?? 1
        if hidden {
            guard !s.isHidden, s.animation?.direction != .exit else { return }
            series[i].animation = AnimationState(direction: .exit, animation: s.exitAnimation, shown: shown)
        } else {
            guard s.isHidden || s.animation?.direction == .exit else { return }
            series[i].isHidden = false
            series[i].hasEntered = true
            series[i].animation = AnimationState(direction: .entry, animation: s.entryAnimation, shown: shown)
        }
        touch()
    }

    /// Turns a series' entry and exit animations on or off, and replaces them when
    /// given. Turned off midway, an animation ends where it was going at the next
    /// `advanceAnimations`.
    public func setAnimation(_ seriesId: String, enabled: Bool, entry: SeriesAnimation? = nil, exit: SeriesAnimation? = nil) {
        guard let i = seriesIndex(seriesId) else { return }
        series[i].animationEnabled = enabled
        if let entry { series[i].entryAnimation = entry }
        if let exit { series[i].exitAnimation = exit }
        // Turned on for a series already on show: no entry is owed for it.
        if enabled, !series[i].isHidden, series[i].animation == nil, !series[i].data.isEmpty { series[i].hasEntered = true }
        touch()
    }

    /// Advances entry and exit animations to clock time `now` (seconds, the session's
    /// clock). A series with `animationEnabled` makes its first entry once it has
    /// points and `watched` (some viewer is connected), so the first people to look
    /// see it; until then it is not drawn. An animation sets off at the first call
    /// after it was asked for. Returns whether any animation is under way or waiting.
    @discardableResult
    public func advanceAnimations(to now: Double, watched: Bool) -> Bool {
        var changed = false, busy = false
        var events: [ChartEvent] = []
        defer { for e in events { emit(e) } }
        for i in series.indices {
            let s = series[i]
            if !s.animationEnabled {
                // Switched off midway: the animation ends where it was going.
                if let a = s.animation {
                    series[i].animation = nil
                    if a.direction == .exit { series[i].isHidden = true }
                    changed = true
                }
                continue
            }
            if s.animation == nil, !s.hasEntered, !s.isHidden, !s.data.isEmpty {
                guard watched else { continue }
                series[i].hasEntered = true
                series[i].animation = AnimationState(direction: .entry, animation: s.entryAnimation, shown: 0)
            }
            guard var a = series[i].animation else { continue }
            if a.startedAt == nil { events.append(.seriesAnimationStarted(series: s.id, entry: a.direction == .entry)) }
            let start = a.startedAt ?? (now, a.shown)
            a.startedAt = start
            let step = max(0, now - start.time) / max(a.animation.duration, 1e-9)
            a.shown = a.direction == .entry ? min(1, start.shown + step) : max(0, start.shown - step)
            if a.direction == .entry, a.shown >= 1 {
                series[i].animation = nil
                events.append(.seriesAnimationFinished(series: s.id, entry: true))
            } else if a.direction == .exit, a.shown <= 0 {
                series[i].animation = nil
                series[i].isHidden = true
                events.append(.seriesAnimationFinished(series: s.id, entry: false))
            } else {
                busy = true
                if a == series[i].animation { continue }
                series[i].animation = a
            }
            changed = true
        }
        if changed { touch() }
        return busy || hasPendingEntries
    }

    /// Some series with `animationEnabled` waits for a viewer to make its first entry.
    var hasPendingEntries: Bool {
        series.contains { $0.animationEnabled && !$0.hasEntered && !$0.isHidden && !$0.data.isEmpty }
    }

    /// An entry or exit animation is under way (the session's clock must run often).
    public var isAnimating: Bool { series.contains { $0.animation != nil } }
    /// Counts replacements of `layoutManager` (a manager is not comparable).
    public private(set) var layoutManagerGeneration = 0
    public private(set) var version: UInt64 = 1
    /// The legend items the item renderer made for this version (`ChartRenderer.legendItems`).
    struct LegendItemsMemo {
        var version: UInt64
        var renderer: LegendItemRenderer
        var entries: [ChartRenderer.LegendEntry]
        var style: TextStyle
        var symbolSize: Size
        var items: [LegendItem]
    }
    var legendItemsMemo: LegendItemsMemo?
    /// The automatic range each axis settled on at the last change through the session's
    /// door (see `commitRanges`): new automatic ranges are stabilised against it.
    public private(set) var shownAutoRanges: [String: DoubleRange] = [:]

    public init(title: String?, xAxes: [AxisConfig], yAxes: [AxisConfig], series: [Series],
                legend: LegendConfig? = LegendConfig(), theme: Theme = Theme(), modifiers: [ChartModifierBase] = []) {
        self.title = title
        self.axes = xAxes.map { Axis(config: $0, userRange: $0.visibleRange, isXAxis: true) }
            + yAxes.map { Axis(config: $0, userRange: $0.visibleRange, isXAxis: false) }
        self.series = series
        self.legend = legend
        self.theme = theme
        self.modifiers = modifiers
        updateStacks()
        for m in modifiers { m.attach(to: self) }
    }

    func touch() {
        if suspended > 0 { changedWhileSuspended = true } else { version &+= 1 }
    }

    public func axis(_ id: String) -> Axis? { axisIndex(id).map { axes[$0] } }
    public func seriesIndex(_ id: String) -> Int? {
        let list = series
        return idIndex.withLock { c in Self.lookup(id, in: list, cache: &c.series) }
    }
    /// Where the axis `id` is in `axes`.
    public func axisIndex(_ id: String) -> Int? {
        let list = axes
        return idIndex.withLock { c in Self.lookup(id, in: list, cache: &c.axes) }
    }

    /// Ids to positions in `axes` and `series`, so that finding one by id is not a walk
    /// through them all (with thousands of axes or series every frame and every
    /// line-protocol write did that per axis or series). A hit is checked against the
    /// array; a miss rebuilds the table once, so it is never wrong, only sometimes
    /// stale. Locked: views render on other threads and look ids up too.
    private let idIndex = Mutex<(axes: [String: Int], series: [String: Int])>(([:], [:]))

    private static func lookup<T: Identified>(_ id: String, in list: [T], cache: inout [String: Int]) -> Int? {
        if let i = cache[id], i < list.count, list[i].id == id { return i }
        var table: [String: Int] = [:]
        table.reserveCapacity(list.count)
        for (i, item) in list.enumerated() where table[item.id] == nil { table[item.id] = i }
        cache = table
        return table[id]
    }
    public var xAxes: [Axis] { axes.filter(\.isXAxis) }
    public var yAxes: [Axis] { axes.filter { !$0.isXAxis } }

    /// A pie or donut chart: drawn about a centre, without axes.
    public var isRadial: Bool {
        // By index: `contains` would copy out every series (each of its arrays and
        // strings retained) to read its kind, and the legend asks this at every frame.
        series.withUnsafeBufferPointer { all in all.indices.contains { all[$0].kind.isRadial } }
    }

    /// True while no axis holds a user-set range: the chart follows its data.
    public var isFollowingData: Bool { axes.allSatisfy { $0.userRange == nil } }

    // MARK: Data

    /// Appends a batch to one series atomically (see `XYData.append`).
    public func append(seriesId: String, xs: [Double], ys: [Double]) throws(AppendError) {
        try append(seriesId: seriesId, xs: xs, values: [ys])
    }

    /// Appends a batch of points with every value the series' type has (`values` in
    /// the order of `SeriesKind.valueFields`), atomically.
    public func append(seriesId: String, xs: [Double], values: [[Double]]) throws(AppendError) {
        guard let i = seriesIndex(seriesId) else { preconditionFailure("unknown series \(seriesId)") }
        try checkStackX(i, xs: xs)
        try series[i].append(xs: xs, values: values)
        guard !xs.isEmpty else { return }
        // Stacks are looked at only when this series is in one (a walk over every
        // series per append made a write to thousands of series quadratic).
        if series[i].stackIndex != nil || series[i].stacked != nil { updateStacks() }
        touch()
    }

    /// Appends rows to a vertical band (`Series.orientation` `.vertical`): each row's
    /// `ys` (its key, up the Y axis) and its two X values, `xs` and `x1s`, as the spec's
    /// data and appends name them. The same as `append(seriesId:xs:values:)` with the
    /// key as `xs` and `[xs, x1s]` as `values`, which is how the band stores them.
    public func append(seriesId: String, ys: [Double], xs: [Double], x1s: [Double]) throws(AppendError) {
        guard let i = seriesIndex(seriesId) else { preconditionFailure("unknown series \(seriesId)") }
        precondition(series[i].isVertical, "series \(seriesId) is not a vertical band: append its x and values")
        try append(seriesId: seriesId, xs: ys, values: [xs, x1s])
    }

    /// Changes one series' points other than by appending (insert, update, remove from
    /// the start, clear, replace): `change` runs on a copy, which replaces the series
    /// only if it succeeds and, for a stacked series, still shares its x point for point
    /// with the other members of its stack. Atomic: on an error nothing changes.
    public func change(seriesId: String, _ change: (inout Series) throws(AppendError) -> Void) throws(AppendError) {
        guard let i = seriesIndex(seriesId) else { preconditionFailure("unknown series \(seriesId)") }
        var copy = series[i]
        try change(&copy)
        if copy.stackIndex != nil, let group = stackGroups.first(where: { $0.contains(i) }) {
            for j in group where j != i {
                let other = series[j].data, mine = copy.data
                let lo = max(other.firstSequence, mine.firstSequence), hi = min(other.endSequence, mine.endSequence)
                for seq in stride(from: lo, to: hi, by: 1) {
                    let a = mine.x(seq - mine.firstSequence), b = other.x(seq - other.firstSequence)
                    if a != b { throw .stackMismatch(index: seq - mine.firstSequence, x: a, series: series[j].id, expected: b) }
                }
            }
        }
        copy.selectedPoints = []
        series[i] = copy
        updateStacks()
        touch()
    }

    /// Selects or deselects a series (drawn with its `selectedStyle` while selected).
    /// Selects or deselects one slice of a pie or donut (`exclusive`: the others
    /// are deselected).
    public func setSelectedSlice(_ seriesId: String, _ slice: Int, _ selected: Bool, exclusive: Bool = false) {
        guard let i = seriesIndex(seriesId) else { return }
        var slices = exclusive ? [] : series[i].selectedSlices
        if selected { slices.insert(slice) } else { slices.remove(slice) }
        guard slices != series[i].selectedSlices else { return }
        series[i].selectedSlices = slices
        touch()
    }

    /// Selects or deselects point `index` (an index into the series' points now) of an
    /// XY series; `exclusive`: every other selected point of every series is deselected.
    public func setPointSelected(_ seriesId: String, index: Int, _ selected: Bool, exclusive: Bool = false) {
        guard let i = seriesIndex(seriesId), index >= 0, index < series[i].data.count else { return }
        let seq = series[i].data.firstSequence + index
        if exclusive, selected { for j in series.indices where j != i { series[j].selectedPoints = [] } }
        var points = exclusive && selected ? [] : series[i].selectedPoints
        if selected { points.insert(seq) } else { points.remove(seq) }
        guard points != series[i].selectedPoints || exclusive else { return }
        series[i].selectedPoints = points
        touch()
    }

    /// Changes a series' style (its colours, widths, markers, pie fields).
    public func setStyle(_ seriesId: String, _ change: (inout SeriesStyle) -> Void) {
        guard let i = seriesIndex(seriesId) else { return }
        var style = series[i].style
        change(&style)
        series[i].style = style
        touch()
    }

    /// Turns a pie or donut by `degrees` (clockwise).
    public func rotatePie(_ seriesId: String, by degrees: Double) {
        guard let i = seriesIndex(seriesId), series[i].kind.isRadial, degrees.isFinite, degrees != 0 else { return }
        var r = (series[i].style.rotation + degrees).truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        series[i].style.rotation = r
        touch()
    }

    /// Turns a pie or donut so that the middle of slice `index` (a point index) is at
    /// `angle` degrees clockwise from 12 o'clock (ShinobiCharts'
    /// `rotateSliceAtIndex:toAngle:`).
    public func rotateSlice(_ seriesId: String, index: Int, toAngle angle: Double) {
        guard let i = seriesIndex(seriesId), series[i].kind.isRadial,
              let slice = PieRenderer.slices(series[i], palette: theme.palette).first(where: { $0.index == index }) else { return }
        rotatePie(seriesId, by: angle - (slice.a0 + slice.a1) / 2 * 180 / .pi)
    }

    /// The point index of the slice at `angle` degrees clockwise from 12 o'clock, or
    /// nil (ShinobiCharts' `indexOfSliceAtAngle:`).
    public func indexOfSlice(_ seriesId: String, atAngle angle: Double) -> Int? {
        guard let i = seriesIndex(seriesId), series[i].kind.isRadial else { return nil }
        return PieRenderer.slice(atAngle: angle * .pi / 180, in: PieRenderer.slices(series[i], palette: theme.palette))
    }

    /// Measures text for modifiers' labels (the session sets the chart's font).
    public var measurer: TextMeasurer?

    public func setSelected(_ seriesId: String, _ selected: Bool) {
        guard let i = seriesIndex(seriesId), series[i].isSelected != selected else { return }
        series[i].isSelected = selected
        touch()
    }

    // MARK: Views (independent view mode)

    /// What a viewer's own view may hold apart from the session's chart: each axis'
    /// zoom and each series' visibility and selection.
    struct ViewState: Equatable {
        var ranges: [DoubleRange?]
        var series: [SeriesView]
    }
    struct SeriesView: Equatable {
        var id: String
        var isHidden: Bool
        var isSelected: Bool
        var selectedPoints: Set<Int>
        var selectedSlices: Set<Int>
        var rotation: Double
        init(_ s: Series) {
            id = s.id; isHidden = s.isHidden; isSelected = s.isSelected
            selectedPoints = s.selectedPoints; selectedSlices = s.selectedSlices; rotation = s.style.rotation
        }
        func apply(to s: inout Series) {
            s.isHidden = isHidden; s.isSelected = isSelected
            s.selectedPoints = selectedPoints; s.selectedSlices = selectedSlices; s.style.rotation = rotation
        }
    }
    var viewState: ViewState { ViewState(ranges: axes.map(\.userRange), series: series.map(SeriesView.init)) }
    /// Changes series `i` in place (restoring stored state: `Session.restore`); the
    /// caller touches the chart.
    func withSeries(_ i: Int, _ body: (inout Series) -> Void) { body(&series[i]) }

    /// A view of this chart for one viewer: the same definition, data and state as
    /// now, with `modifiers` of its own.
    func makeView(modifiers: [ChartModifierBase]) -> Chart {
        let view = Chart(title: title, xAxes: [], yAxes: [], series: [], legend: legend, theme: theme, modifiers: [])
        view.measurer = measurer
        view.imagePath = imagePath
        view.copyDefinition(from: self)
        view.axes = axes
        view.series = series
        view.stackMembers = stackMembers
        view.shownAutoRanges = shownAutoRanges
        view.presentedLabelExtents = presentedLabelExtents
        view.modifiers = modifiers
        return view
    }

    /// Takes the session chart's new data and definition into this view, keeping the
    /// view's own zoom (on axes whose definition is unchanged), visibility and selection.
    func syncView(from model: Chart) {
        suspendUpdates {
            // (By index: a series is a large value, copied by a loop over the series.)
            let own = series.indices.map { SeriesView(series[$0]) }
            var newAxes = model.axes
            for i in newAxes.indices {
                if let old = axis(newAxes[i].id), old.config == newAxes[i].config { newAxes[i].userRange = old.userRange }
            }
            axes = newAxes
            let stacksBefore = own.map { ($0.id, $0.isHidden) }
            series = model.series
            for i in series.indices {
                // The view's state of the series, found where it stood (the same series in the
                // same order, mostly), written only where it differs: a write copies the
                // model's array of series into the view's own.
                let id = series[i].id
                guard let v = i < own.count && own[i].id == id ? own[i] : own.first(where: { $0.id == id }),
                      v != SeriesView(series[i]) else { continue }
                v.apply(to: &series[i])
            }
            // The model's stacked sums hold while the same series are shown.
            if series.map({ ($0.id, $0.isHidden) }).elementsEqual(model.series.map { ($0.id, $0.isHidden) }, by: ==) {
                stackMembers = model.stackMembers
            } else if !series.map({ ($0.id, $0.isHidden) }).elementsEqual(stacksBefore, by: ==) {
                stackMembers = [:]
            }
            updateStacks()
            copyDefinition(from: model)
            touch()
        }
    }

    /// Title, legend, theme, layout and annotations: everything of a definition but
    /// the axes, series and modifiers.
    private func copyDefinition(from other: Chart) {
        title = other.title
        legend = other.legend
        theme = other.theme
        fontFamily = other.fontFamily
        titleFont = other.titleFont
        titleSize = other.titleSize
        if layoutManagerGeneration != other.layoutManagerGeneration { layoutManager = other.layoutManager; layoutManagerGeneration = other.layoutManagerGeneration }
        axisSpacing = other.axisSpacing
        clipSeries = other.clipSeries
        annotations = other.annotations
        customAnnotations = other.customAnnotations
        images = other.images
        margins = other.margins
    }

    // MARK: Redefinition (live control)

    /// Carries state of `old`'s series into this chart's (a chart just made from a
    /// changed spec): `carry` gets each series of this chart with its namesake of the
    /// same type in `old`.
    func carrySeries(from old: Chart, _ carry: (inout Series, Series) -> Void) {
        // (old.seriesIndex: a table lookup, so carrying thousands of series is linear)
        for i in series.indices {
            guard let j = old.seriesIndex(series[i].id), old.series[j].kind == series[i].kind else { continue }
            carry(&series[i], old.series[j])
        }
        updateStacks()
    }

    /// Why the stacks as defined cannot be drawn (members that do not share their x),
    /// or nil.
    func stackConflict() -> String? {
        for group in stackGroups {
            let first = series[group[0]].data
            for j in group.dropFirst() {
                let other = series[j].data
                let lo = max(other.firstSequence, first.firstSequence), hi = min(other.endSequence, first.endSequence)
                for seq in stride(from: lo, to: hi, by: 1) where first.x(seq - first.firstSequence) != other.x(seq - other.firstSequence) {
                    return "series \"\(series[j].id)\" and \"\(series[group[0]].id)\" are stacked but do not share their x (point \(seq - other.firstSequence) of \"\(series[j].id)\")"
                }
            }
        }
        return nil
    }

    /// Takes every definition of `other` (a chart just made from a changed spec) in
    /// place of its own, keeping this chart's identity: its event handlers and, with
    /// `keepModifiers`, its modifiers and their state. An axis whose configuration is
    /// unchanged keeps its zoom. Viewers see the change in one frame.
    /// `rangesGiven`: axes whose `visibleRange` the change names (a patch of that
    /// alone): they take the new chart's range (nil: back to their mode) even where
    /// the rest of their definition stands.
    func adopt(_ other: Chart, keepModifiers: Bool, rangesGiven: Set<String> = []) {
        suspendUpdates {
            var newAxes = other.axes
            for i in newAxes.indices {
                guard let old = axis(newAxes[i].id), old.config == newAxes[i].config, old.isXAxis == newAxes[i].isXAxis else {
                    shownAutoRanges[newAxes[i].id] = nil
                    presentedLabelExtents[newAxes[i].id] = nil
                    continue
                }
                if !rangesGiven.contains(newAxes[i].id) { newAxes[i].userRange = old.userRange }
            }
            let ids = Set(newAxes.map(\.id))
            shownAutoRanges = shownAutoRanges.filter { ids.contains($0.key) }
            presentedLabelExtents = presentedLabelExtents.filter { ids.contains($0.key) }
            axes = newAxes
            series = other.series
            stackMembers = [:]
            updateStacks()
            title = other.title
            // (A spec cannot carry a legend item renderer: a changed spec keeps this one.)
            let renderer = legend?.itemRenderer
            legend = other.legend
            if let renderer, legend != nil, legend?.itemRenderer == nil { legend?.itemRenderer = renderer }
            theme = other.theme
            fontFamily = other.fontFamily
            titleFont = other.titleFont
            titleSize = other.titleSize
            layoutManager = other.layoutManager
            axisSpacing = other.axisSpacing
            clipSeries = other.clipSeries
            annotations = other.annotations
            images = other.images
            margins = other.margins
            if !keepModifiers {
                let fresh = other.modifiers
                other.modifiers = []
                modifiers = fresh
            }
            invalidateModifierLayers()
            touch()
        }
    }

    // MARK: Stacks

    /// The members of each stack (series indices in chart order), by stack key: the
    /// stack index and the axes (a stack never spans axes). Hidden series leave it.
    var stackGroups: [[Int]] {
        var groups: [String: [Int]] = [:], order: [String] = []
        for (i, s) in series.enumerated() where !s.isHidden {
            guard let k = s.stackIndex else { continue }
            let key = "\(k)|\(s.xAxisId)|\(s.yAxisId)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(i)
        }
        return order.map { groups[$0]! }
    }

    /// Points stack by their order: the n-th point of each member of a stack shares an
    /// x. A batch whose x differs from another member's at the same point is refused.
    func checkStackX(_ i: Int, xs: [Double]) throws(AppendError) {
        guard series[i].stackIndex != nil, let group = stackGroups.first(where: { $0.contains(i) }) else { return }
        let first = series[i].data.endSequence
        for j in group where j != i {
            let other = series[j].data
            for k in 0..<xs.count {
                let seq = first + k
                guard seq >= other.firstSequence, seq < other.endSequence else { continue }
                let x = other.x(seq - other.firstSequence)
                if x != xs[k] { throw .stackMismatch(index: k, x: xs[k], series: series[j].id, expected: x) }
            }
        }
    }

    /// Brings every stacked series' `stacked` values up to the points all members of
    /// its stack hold: for each new point, the running sum of the members' values in
    /// chart order (a NaN is a gap in its own series and counts 0 in the sums above
    /// it), or for a percentage stack, each sum as a percentage of the total. Appends
    /// make this cost the new points; a change of membership recomputes the stack.
    func updateStacks() {
        let groups = stackGroups
        let members = Set(groups.flatMap { $0 })
        for i in series.indices where !members.contains(i) && series[i].stacked != nil { series[i].stacked = nil }
        for group in groups {
            let datas = group.map { series[$0].data }
            let start = datas.map(\.firstSequence).max()!, end = datas.map(\.endSequence).min()!
            // Stacked values continue where they left off, unless the stack changed.
            var from = start
            let generations = group.map { series[$0].data.generation }
            if let made = series[group[0]].stacked, group.allSatisfy({ series[$0].stacked?.endSequence == made.endSequence }),
               made.endSequence >= start, made.endSequence <= end, stackMembers[group[0]]?.members == group,
               stackMembers[group[0]]?.generations == generations {
                from = made.endSequence
            } else {
                for i in group {
                    // Sequence numbers of the stacked values match the members': they
                    // start at `start`, as if the points before had been evicted.
                    series[i].stacked = XYData(capacity: series[i].data.capacity, firstSequence: start)
                }
            }
            stackMembers[group[0]] = (group, generations)
            // A stack with a retention evicts its stacked values with its points.
            for i in group where series[i].retention != nil {
                if let made = series[i].stacked, made.firstSequence < start {
                    series[i].stacked!.evictOldest(min(made.count, start - made.firstSequence))
                }
            }
            guard from < end else { continue }
            let percent = group.contains { series[$0].stackPercent }
            var sums = [Double](repeating: 0, count: group.count)
            var columns = [[Double]](repeating: [], count: group.count)
            var xs: [Double] = []
            xs.reserveCapacity(end - from)
            for seq in from..<end {
                xs.append(datas[0].x(seq - datas[0].firstSequence))
                var total = 0.0
                for (k, d) in datas.enumerated() {
                    let v = d.y(sequence: seq)
                    total += v.isNaN ? 0 : v
                    // (A sum past the largest double, 1e308 + 1e308, is shown at it: stored
                    // values are finite. The running total, infinite, never turns NaN.)
                    sums[k] = v.isNaN ? .nan : total.clampedFinite
                }
                let whole = total.clampedFinite
                for k in group.indices {
                    columns[k].append(percent ? (sums[k].isNaN ? .nan : whole == 0 ? 0 : (sums[k] / whole * 100).clampedFinite) : sums[k])
                }
            }
            for (k, i) in group.enumerated() { try! series[i].stacked!.append(xs: xs, ys: columns[k]) }
        }
    }

    /// Whether any series is fed by a generator (and so needs the session clock).
    public var hasGenerators: Bool { series.contains { $0.generator != nil } }

    /// Runs every series' generator up to `elapsed` seconds after the session started,
    /// `startedAt` being that start in Unix seconds (for generators of Unix time).
    /// Returns the number of points added.
    @discardableResult
    public func runGenerators(elapsed: Double, startedAt: Double = 0) -> Int {
        var added = 0
        for i in series.indices where series[i].generator != nil {
            if series[i].data.capacity == nil, series[i].stackIndex == nil, series[i].kind.valueFields.count == 1 {
                // Generated data is always bounded (docs/limits.md): a series built
                // without a capacity keeps the newest `generatorCapacity` points.
                let (oldX, oldY) = series[i].data.arrays
                var bounded = XYData(capacity: SessionLimits.current.generatorCapacity)
                try? bounded.append(xs: oldX, ys: oldY)
                series[i].data = bounded
            }
            var (xs, ys) = series[i].generator!.points(upTo: elapsed)
            if series[i].generator!.time == .unix { xs = xs.map { startedAt + $0 } }
            for k in 0..<xs.count {
                // Someone may have appended to a generated series (the append API):
                // generated points behind its newest x are dropped, never reordered.
                guard xs[k] >= series[i].data.lastX ?? -.infinity else { continue }
                series[i].data.append(x: xs[k], y: ys[k])
                added += 1
            }
            series[i].applyRetention()
        }
        if added > 0 { updateStacks(); touch() }
        return added
    }

    // MARK: Ranges

    /// Holds an axis at a range the user chose (pan, zoom). Ranges that are not
    /// finite, or narrower than doubles can resolve into distinct ticks (a span under
    /// 10^-9 of the values' magnitude), are ignored: zooming stops there.
    public func setUserRange(_ axisId: String, _ range: DoubleRange) {
        guard let i = axisIndex(axisId) else { return }
        let range = limited(range, axes[i].config)
        let magnitude = max(abs(range.min), abs(range.max))
        guard range.isValid, range.span.isFinite,
              axes[i].config.type != .logarithmic || range.min > 0,
              range.span > max(magnitude * Self.minRelativeSpan, Double.leastNormalMagnitude),
              magnitude < Self.maxMagnitude, axes[i].userRange != range else { return }
        axes[i].userRange = range
        touch()
    }

    /// Sets (or clears, nil) the Swift functions that change each legend entry and draw
    /// its symbol (`LegendItemRenderer`), on the chart's legend; a chart without a
    /// legend is left as it is.
    public func setLegendItemRenderer(_ renderer: LegendItemRenderer?) {
        guard legend != nil else { return }
        legend?.itemRenderer = renderer
    }

    /// Sets (or clears) the Swift function that writes an axis' tick labels, and the
    /// one that sees each major tick before it is placed (ShinobiCharts' `alterTickMark`).
    public func setTickLabels(_ axisId: String, generator: TickLabelGenerator?, hook: TickHook? = nil) {
        guard let i = axisIndex(axisId) else { return }
        axes[i].config.labelGenerator = generator
        axes[i].config.tickHook = hook
        touch()
    }

    /// Sets (or clears) the Swift function choosing an axis' major tick values.
    public func setTickValues(_ axisId: String, generator: TickValueGenerator?) {
        guard let i = axisIndex(axisId) else { return }
        axes[i].config.valueGenerator = generator
        touch()
    }

    /// Moves an axis to another side of the plot. X axes may go left or right and Y
    /// axes top or bottom: swapping them rotates the chart (series are then drawn
    /// point by point along a vertical X axis).
    public func setAlignment(_ axisId: String, _ alignment: AxisAlignment) {
        guard let i = axisIndex(axisId), axes[i].config.alignment != alignment else { return }
        axes[i].config.alignment = alignment
        touch()
    }

    /// `range` within the axis' zoom and pan limits: its span clamped (about its
    /// centre), then moved inside the pan limits (and cut to them if wider).
    func limited(_ range: DoubleRange, _ c: AxisConfig) -> DoubleRange {
        var r = range
        if let z = c.zoomLimits, r.isValid {
            let span = min(max(r.span, z.lowerBound), z.upperBound)
            let mid = (r.min + r.max) / 2
            r = DoubleRange(mid - span / 2, mid + span / 2)
        }
        if let p = c.panLimits, r.isValid {
            if r.span >= p.span { return p }
            if r.min < p.min { r = DoubleRange(p.min, p.min + r.span) }
            if r.max > p.max { r = DoubleRange(p.max - r.span, p.max) }
        }
        return r
    }

    /// Sets the range an axis shows, as a pan or zoom would (within its limits).
    public func setRange(_ axisId: String, _ range: DoubleRange) { setUserRange(axisId, range) }

    /// Where `panTo` puts the value.
    public enum PanPosition: Sendable { case start, center, end }

    /// Pans an axis, keeping its span, so that `value` is at its start, centre or end.
    public func panTo(_ axisId: String, _ value: Double, at position: PanPosition = .center) {
        guard let span = visibleRange(axisId)?.span else { return }
        switch position {
        case .start: setUserRange(axisId, DoubleRange(value, value + span))
        case .center: setUserRange(axisId, DoubleRange(value - span / 2, value + span / 2))
        case .end: setUserRange(axisId, DoubleRange(value - span, value))
        }
    }

    /// The range an axis shows now.
    public func visibleRange(_ axisId: String) -> DoubleRange? { resolvedRanges()[axisId] }

    /// The range an axis shows while nobody has panned or zoomed it: what it starts
    /// with and what zoom-extents returns to.
    public func defaultRange(_ axisId: String) -> DoubleRange? {
        guard let i = axisIndex(axisId) else { return nil }
        var unset = axes
        for k in unset.indices { unset[k].userRange = nil }
        return unset[i].isXAxis ? resolveX(unset[i]) : resolveY(unset[i], xRanges: Dictionary(
            uniqueKeysWithValues: unset.filter(\.isXAxis).map { ($0.id, resolveX($0)) }))
    }

    /// The extent of the data plotted against an axis (nil: none).
    public func dataRange(_ axisId: String) -> DoubleRange? {
        guard let axis = axis(axisId) else { return nil }
        var lo = Double.infinity, hi = -Double.infinity
        for s in series where (axis.isXAxis ? s.xAxisId : s.yAxisId) == axisId {
            // (A vertical band's values lie along X, its key along Y.)
            if axis.isXAxis, let r = s.isVertical ? s.valueRange() : s.xExtent { lo = min(lo, r.min); hi = max(hi, r.max) }
            if !axis.isXAxis, let r = s.isVertical ? s.data.xRange : s.valueRange().map(s.yExtent) {
                lo = min(lo, r.min); hi = max(hi, r.max)
            }
        }
        return lo <= hi ? DoubleRange(lo, hi) : nil
    }

    /// How far an axis is zoomed in: its default span over its visible span (1: not
    /// zoomed, 2: twice as close).
    public func zoomLevel(_ axisId: String) -> Double? {
        guard let d = defaultRange(axisId), let v = visibleRange(axisId), v.span > 0 else { return nil }
        return d.span / v.span
    }

    /// Zooms an axis so that its default span is `level` times the span it shows
    /// (`zoomLevel` then reads `level`; ShinobiCharts' `setZoomLevel`): about the centre
    /// of what it shows, or about `value`, which keeps its place on the axis. 1 shows
    /// the default span, 2 half of it. On a logarithmic axis spans are ratios. Within
    /// the axis' zoom and pan limits, as any zoom; a level that is not a positive finite
    /// number changes nothing.
    public func setZoomLevel(_ axisId: String, _ level: Double, about value: Double? = nil) {
        guard level > 0, level.isFinite, let i = axisIndex(axisId), let home = defaultRange(axisId),
              let shown = visibleRange(axisId) else { return }
        let log = axes[i].config.type == .logarithmic
        guard !log || (home.min > 0 && shown.min > 0) else { return }
        func t(_ v: Double) -> Double { log ? Foundation.log(v) : v }
        func u(_ v: Double) -> Double { log ? Foundation.exp(v) : v }
        let (lo, hi) = (t(shown.min), t(shown.max))
        let span = (t(home.max) - t(home.min)) / level
        guard span > 0, span.isFinite, hi > lo else { return }
        let pivot = value.map { min(max(t($0), lo), hi) } ?? (lo + hi) / 2
        let fraction = (pivot - lo) / (hi - lo)
        let start = pivot - fraction * span
        setUserRange(axisId, DoubleRange(u(start), u(start + span)))
    }

    /// Narrowest span a user can zoom to, relative to the magnitude of the values.
    public static let minRelativeSpan = 1e-9
    /// Largest magnitude a user can pan or zoom out to.
    public static let maxMagnitude = 1e300

    /// Drops every user-set range: the axes follow their modes again (zoom extents).
    public func resetUserRanges() {
        guard !isFollowingData else { return }
        for i in axes.indices { axes[i].userRange = nil }
        touch()
    }

    /// Clears the user range of one axis: it follows its mode again.
    public func resetUserRange(_ axisId: String) {
        guard let i = axisIndex(axisId), axes[i].userRange != nil else { return }
        axes[i].userRange = nil
        touch()
    }

    /// The range each axis shows now, by axis id. Automatic ranges (`extents`,
    /// `visible`) are stabilised against the ones last committed
    /// (`DoubleRange.stabilized`), so they move now and then, not with every point.
    public func resolvedRanges() -> [String: DoubleRange] {
        var result: [String: DoubleRange] = [:]
        result.reserveCapacity(axes.count)
        for axis in axes where axis.isXAxis { result[axis.id] = Self.finite(stable(axis, resolveX(axis))) }
        for axis in axes where !axis.isXAxis { result[axis.id] = Self.finite(stable(axis, resolveY(axis, xRanges: result))) }
        return result
    }

    /// A range within the finite doubles: padding, a column's half width or a log
    /// axis' decades past the largest data can overflow to infinity.
    private static func finite(_ r: DoubleRange) -> DoubleRange {
        r.finite ?? DoubleRange(0, 1)
    }

    private func stable(_ axis: Axis, _ range: DoubleRange) -> DoubleRange {
        // (Stabilising rounds to decimal bounds: not for a logarithmic axis.)
        guard axis.userRange == nil, axis.config.mode == .extents || axis.config.mode == .visible,
              axis.config.type != .logarithmic, axis.config.type != .category else { return range }
        return Self.keepingZero(range.stabilized(previous: shownAutoRanges[axis.id]), of: range)
    }

    /// `shown` kept on the side of zero `range` is on: a range that does not reach
    /// below (above) zero is not widened past it.
    static func keepingZero(_ shown: DoubleRange, of range: DoubleRange) -> DoubleRange {
        var r = shown
        if range.min >= 0, r.min < 0 { r = DoubleRange(0, r.max) }
        if range.max <= 0, r.max > 0 { r = DoubleRange(r.min, 0) }
        return r.isValid && !r.isEmpty ? r : shown
    }

    /// Takes settled automatic ranges (a snapshot's), for axes this chart has.
    public func restoreSettledRanges(_ ranges: [(axis: String, range: DoubleRange)]) {
        for (id, r) in ranges where axes.contains(where: { $0.id == id }) { shownAutoRanges[id] = r }
    }

    /// Records the automatic ranges about to be shown, for the next `resolvedRanges`.
    /// A session calls it after every input it applies or logs (the one door), so the
    /// ranges settle the same way wherever the same inputs are applied in the same order:
    /// live, replayed after a restart, or on every node of a cluster (an independent view
    /// calls it per published frame). Changes nothing visible: the ranges it records are
    /// the ones `resolvedRanges` returns now.
    public func commitRanges() {
        let ranges = resolvedRanges()
        for axis in axes where axis.userRange == nil && (axis.config.mode == .extents || axis.config.mode == .visible) {
            shownAutoRanges[axis.id] = ranges[axis.id]
        }
    }

    private func resolveX(_ axis: Axis) -> DoubleRange {
        if let r = axis.userRange { return r }
        let c = axis.config
        let fallback = fallbackRange(c, linear: DoubleRange(0, c.window ?? 1))
        if c.mode == .fixed { return fallback }
        // The extent of the shown series on this axis (read in place: every view resolves
        // its ranges several times a frame).
        var lo = Double.infinity, hi = -Double.infinity
        let series = series
        for i in series.indices where series[i].xAxisId == axis.id && !series[i].isHidden {
            // A vertical band's values lie along X: their whole extent (in every mode).
            if series[i].orientation == .vertical {
                guard let r = series[i].valueRange() else { continue }
                lo = Swift.min(lo, r.min); hi = Swift.max(hi, r.max)
                continue
            }
            // (`Series.xExtent`, from stored fields: a computed property asked of a series
            // in the array copies it first.)
            guard let r = (series[i].stacked ?? series[i].data).xRange else { continue }
            let half = Series.halfColumn(series[i].kind, minSpacing: series[i].data.minSpacing,
                                         columnWidth: series[i].style.columnWidth) ?? 0
            lo = Swift.min(lo, r.min - half); hi = Swift.max(hi, r.max + half)
        }
        guard lo <= hi else { return fallback }
        switch c.mode {
        case .fixed: return fallback
        case .follow:
            let window = c.window ?? 10
            return hi - lo < window ? DoubleRange(lo, lo + window) : DoubleRange(hi - window, hi)
        case .extents, .visible:
            return autoRange(c, lo, hi)
        }
    }

    /// What an axis shows with no data (or in mode `fixed`): its `range`, else one
    /// power of a log axis' base, every slot of a category axis, or `linear`.
    func fallbackRange(_ c: AxisConfig, linear: DoubleRange) -> DoubleRange {
        if let r = c.range { return r }
        switch c.type {
        case .logarithmic: return DoubleRange(1, c.logBase)
        case .category: return DoubleRange(-0.5, Double(c.categories.count) - 0.5)
        case .numeric, .time: return linear
        }
    }

    /// The range showing data from `lo` to `hi`, padded by `growBy`: as fractions of
    /// the span on screen, so in decades on a logarithmic axis, whose range also stays
    /// positive (data at or below zero is not on it: the range then reaches three
    /// decades below the largest value).
    func autoRange(_ c: AxisConfig, _ lo: Double, _ hi: Double) -> DoubleRange {
        // Whole slots: half a slot either side of the outermost ones (the slots of the
        // extremes, which columns widen by less than half a slot).
        if c.type == .category { return DoubleRange(lo.rounded() - 0.5, hi.rounded() + 0.5) }
        guard c.type == .logarithmic else {
            var r = DoubleRange(lo, hi).grownBy(lower: c.growBy.lower, upper: c.growBy.upper).widenedIfEmpty()
            // A zero baseline: data that never goes below zero (above it) is not padded
            // past it, so columns and areas stand on the plot's edge (Highcharts' soft
            // threshold). Markers keep their room in pixels (`Chart.markerRoom`).
            if c.type == .numeric { r = Self.keepingZero(r, of: DoubleRange(lo, hi)) }
            return DoubleRange((r.min - c.rangePadding.low).clampedFinite, (r.max + c.rangePadding.high).clampedFinite)
        }
        guard hi > 0 else { return c.range ?? DoubleRange(1, c.logBase) }
        let calc = CoordinateCalculator(range: DoubleRange(lo > 0 ? lo : hi / 1000, hi), pixelStart: 0, pixelEnd: 1, logBase: c.logBase)
        var (a, b) = (calc.transformed(calc.range.min), calc.transformed(calc.range.max))
        if b - a < 1e-9 { a -= 0.5; b += 0.5 }
        let span = b - a
        return DoubleRange(calc.untransformed(a - c.growBy.lower * span).clampedFinite, calc.untransformed(b + c.growBy.upper * span).clampedFinite)
    }

    private func resolveY(_ axis: Axis, xRanges: [String: DoubleRange]) -> DoubleRange {
        if let r = axis.userRange { return r }
        let c = axis.config
        let fallback = fallbackRange(c, linear: DoubleRange(0, 1))
        var lo = Double.infinity, hi = -Double.infinity
        // (By index, in the array taken once: a series is a large value, and a loop over
        // `series`, or an element read through the chart, copies it.)
        let series = series
        for i in series.indices where series[i].yAxisId == axis.id && !series[i].isHidden {
            let r: (min: Double, max: Double)?
            switch c.mode {
            case .fixed: r = nil
            // A vertical band's key lies along Y: its whole extent.
            case _ where series[i].orientation == .vertical: r = series[i].data.xRange
            case .visible, .follow:
                guard let xr = xRanges[series[i].xAxisId] else { continue }
                r = series[i].valueRange(xFrom: xr.min, to: xr.max)
            case .extents: r = series[i].valueRange()
            }
            if let r = r.map({ series[i].yExtent($0) }) { lo = min(lo, r.min); hi = max(hi, r.max) }
        }
        guard c.mode != .fixed, lo <= hi else { return fallback }
        return autoRange(c, lo, hi)
    }

    // MARK: Layout

    /// How far (CSS px) the markers and bubbles of the shown series on `axis` draw
    /// from their points, when the axis' range follows their data (`extents` or
    /// `visible`, no range of the user's or the spec's); nil otherwise or without any.
    func markerRoom(_ axis: Axis) -> Double? {
        let c = axis.config
        guard axis.userRange == nil, c.range == nil, c.mode == .extents || c.mode == .visible, c.type != .category else { return nil }
        var room = 0.0
        let series = series
        for i in series.indices where !series[i].isHidden
            && (axis.isXAxis ? series[i].xAxisId == axis.id : series[i].yAxisId == axis.id) {
            room = Swift.max(room, series[i].markerReach)
        }
        return room > 0 ? room.rounded(.up) : nil
    }

    /// `padding` making at least `room` pixels at each end.
    static func padding(_ padding: AxisEndPadding, atLeast room: Double) -> AxisEndPadding {
        func mode(_ m: AxisEndPadding.Mode) -> AxisEndPadding.Mode {
            switch m {
            case .none: return .fixed(room)
            case let .fixed(p): return .fixed(Swift.max(p, room))
            case .label: return .maxLabelFixed(room)
            case let .maxLabelFixed(p): return .maxLabelFixed(Swift.max(p, room))
            case let .labelPlus(p): return .labelPlus(Swift.max(p, room))
            }
        }
        return AxisEndPadding(leading: mode(padding.leading), trailing: mode(padding.trailing))
    }

    /// The narrowest and widest labels each axis has shown (by axis id), for its
    /// `labelSpace`. Not a change of the chart: it follows what was drawn.
    public private(set) var presentedLabelExtents: [String: ClosedRange<Double>] = [:]

    /// Where the legend was shown at each canvas size: `ChartRenderer` keeps it there
    /// while it stays clear of data (hysteresis: a live chart's legend does not jump
    /// between places, nor in and out of the plot, as its data moves). Like
    /// `presentedLabelExtents` it follows what was drawn, not a change of the chart, so
    /// it follows from the inputs and the moments they were published: a replay
    /// published at the same moments places the legend alike (no clock is read). A
    /// session's snapshot carries it (`SessionSnapshot.legends`).
    public struct ShownLegend: Equatable, Sendable {
        /// Moved out of the plot, into its band, for want of a place inside clear of data.
        public var outside: Bool
        /// Where inside the plot it stood (nil: outside, or not drawn).
        public var position: LegendPosition?
        public init(outside: Bool, position: LegendPosition?) { self.outside = outside; self.position = position }
    }
    public private(set) var shownLegends: [Size: ShownLegend] = [:]
    /// Sizes whose legend placement is remembered, at most (then the others are forgotten).
    static let shownLegendSizes = 64

    /// Takes the places a snapshot kept (`SessionSnapshot.legends`) in place of these.
    public func restoreShownLegends(_ places: [(Size, ShownLegend)]) {
        shownLegends = [:]
        for (size, shown) in places.prefix(Self.shownLegendSizes) { shownLegends[size] = shown }
    }

    /// Records where the legend is shown at `size` (nil: no legend).
    public func noteShownLegend(_ shown: ShownLegend?, at size: Size) {
        guard presentationThroughDoor else { return takeShownLegend(shown, at: size) }
        if shownLegends[size] != shown { proposedLegends[size] = .init(size: size, shown: shown) }
    }

    private func takeShownLegend(_ shown: ShownLegend?, at size: Size) {
        if shownLegends[size] == nil, shownLegends.count >= Self.shownLegendSizes { shownLegends.removeAll() }
        shownLegends[size] = shown
    }

    /// Records the label extents of a layout that is being shown.
    public func notePresented(_ layout: ChartLayout) {
        for a in layout.axes where a.labelExtent > 0 {
            guard presentationThroughDoor else {
                presentedLabelExtents[a.id] = Self.union(presentedLabelExtents[a.id], a.labelExtent...a.labelExtent)
                continue
            }
            if presentedLabelExtents[a.id]?.contains(a.labelExtent) == true { continue }
            proposedLabels[a.id] = Self.union(proposedLabels[a.id], a.labelExtent...a.labelExtent)
        }
    }

    /// `r` widened to take in `e` (`e` alone when there is no `r`).
    private static func union(_ r: ClosedRange<Double>?, _ e: ClosedRange<Double>) -> ClosedRange<Double> {
        guard let r else { return e }
        return min(r.lowerBound, e.lowerBound)...max(r.upperBound, e.upperBound)
    }

    /// Whether what is drawn (`notePresented`, `noteShownLegend`) is held back as a
    /// proposal that enters through the session's door (`takePresented`, then the
    /// `.presented` input), rather than taken at once. A session's own chart does so:
    /// the label room and legend places a frame is drawn with are then a function of the
    /// session's inputs alone, the same on every node of a cluster and after a replay,
    /// whichever sizes each node happened to draw. A viewer's own view, or a chart
    /// rendered on its own, takes them at once.
    public var presentationThroughDoor = false
    private var proposedLabels: [String: ClosedRange<Double>] = [:]
    private var proposedLegends: [Size: PresentedState.LegendPlace] = [:]

    /// What frames drew that the chart does not hold yet (nil: nothing), in a fixed
    /// order; the proposals are cleared.
    public func takePresented() -> PresentedState? {
        guard !proposedLabels.isEmpty || !proposedLegends.isEmpty else { return nil }
        defer { proposedLabels = [:]; proposedLegends = [:] }
        return PresentedState(labels: proposedLabels.sorted { $0.key < $1.key }.map { .init(axis: $0.key, extent: $0.value) },
                              legends: proposedLegends.values.sorted { ($0.size.width, $0.size.height) < ($1.size.width, $1.size.height) })
    }

    /// Takes a `.presented` input: label extents widen those held (of axes the chart
    /// has), legend places replace those held. True if anything changed (the version
    /// then moves on); another node's proposal of the same is no change.
    @discardableResult
    public func applyPresented(_ p: PresentedState) -> Bool {
        var changed = false
        for l in p.labels where axisIndex(l.axis) != nil {
            let r = presentedLabelExtents[l.axis], merged = Self.union(r, l.extent)
            if merged != r { presentedLabelExtents[l.axis] = merged; changed = true }
        }
        for l in p.legends where shownLegends[l.size] != l.shown {
            takeShownLegend(l.shown, at: l.size)
            changed = true
        }
        if changed { touch() }
        return changed
    }

    /// Takes the label extents a snapshot kept (`SessionSnapshot.labelExtents`).
    public func restorePresentedLabelExtents(_ extents: [(axis: String, extent: ClosedRange<Double>)]) {
        presentedLabelExtents = [:]
        for e in extents where axisIndex(e.axis) != nil { presentedLabelExtents[e.axis] = e.extent }
    }

    /// The stretches a discontinuous axis leaves out. Weekends, trading hours and the
    /// weekly and daily `exclude` rules are local times in the axis' zone: one weekly
    /// pattern at the zone's offset in the middle of `range` (`zone`, read for the
    /// visible range), or, where the offset changes over `range` and its own width
    /// either side, listed there each at its own offset. Dated `exclude` rules
    /// (holidays, a day of every month) are listed over that window, each at its own
    /// offset, so a pan or a zoom out of a third finds them in place.
    func axisBreaks(_ c: AxisConfig, range: DoubleRange, zone: TimeZoneOffsets?) -> AxisBreaks? {
        guard c.isDiscontinuous else { return nil }
        var stretches: [(start: Double, length: Double)] = []
        var period = 0.0
        var ranges = c.excludedRanges
        let day = 86_400.0, week = 7 * day
        var weekly = c.calendarExclusions.filter(\.isPattern)
        if c.excludeWeekends { weekly.append(.weekly(start: 5 * day, length: 2 * day)) }
        if let h = c.tradingHours { weekly.append(.daily(start: h.close, length: day - (h.close - h.open))) }
        // The window dated rules, and weekly ones across summer time, are listed over.
        let span = max(range.max - range.min, day)
        let window = DoubleRange(range.min - span, range.max + span)
        let listable = c.type == .time && range.min.isFinite && range.max.isFinite && span.isFinite
        let wide = listable && (!c.calendarExclusions.isEmpty || !weekly.isEmpty) ? TimeZones.offsets(c.timeZone, over: window) : nil
        if !weekly.isEmpty {
            // Where the zone changes its offset in the window, each night at its own
            // offset; else (or past the limit) one weekly pattern at the offset there.
            if let wide, wide.transitions.contains(where: { $0.at >= window.min && $0.at <= window.max }),
               let listed = CalendarExclusion.patternRanges(weekly, in: window, zone: wide) {
                ranges += listed
            } else {
                let mid = (range.min + range.max) / 2
                let offset = Double((zone ?? .utc).offset(atUTC: mid))
                period = week
                stretches = CalendarExclusion.weekStretches(weekly, offset: offset)
            }
        } else if let p = c.excludedPeriod {
            period = p.period
            stretches = p.stretches
        }
        let pattern = period > 0 ? AxisBreaks.Pattern(period: period, stretches: stretches) : nil
        if let wide, c.calendarExclusions.contains(where: { !$0.isPattern }) {
            ranges += CalendarExclusion.ranges(c.calendarExclusions, in: window, zone: wide) ?? []
        }
        let breaks = AxisBreaks(ranges: ranges, pattern: pattern)
        return breaks.isEmpty ? nil : breaks
    }

    func axisKind(_ c: AxisConfig, zone: TimeZoneOffsets?) -> AxisKind {
        switch c.type {
        case .numeric: return .numeric(c.labelFormat)
        case .logarithmic: return .logarithmic(base: c.logBase, format: c.labelFormat)
        case .category: return .category(c.categories)
        case .time: return .dateTime(zone ?? .utc)
        }
    }

    /// The layout spec for a canvas of `size`, with the ranges resolved now.
    /// `reserved`: room at the chart's edges kept out of the layout (an outside legend).
    public func layoutSpec(size: Size, ranges: [String: DoubleRange], reserved: EdgeInsets = .all(0)) -> ChartLayoutSpec {
        let axisSpecs = axes.map { axis in
            let range = ranges[axis.id] ?? DoubleRange(0, 1)
            // A time axis' zone, read once for its ticks and its weekends.
            let zone = axis.config.type == .time ? TimeZones.offsets(axis.config.timeZone, over: range) : nil
            var spec = AxisSpec(id: axis.id, alignment: axis.config.alignment,
                     visibleRange: range, title: axis.config.title,
                     labelStyle: axis.config.labelFont.style(size: axis.config.labelSize, chartFamily: fontFamily),
                     titleStyle: axis.config.titleFont.style(size: axis.config.titleSize, chartFamily: fontFamily),
                     tickLength: axis.config.tickLength, labelPadding: axis.config.labelSpacing,
                     titlePadding: axis.config.titleSpacing, flipped: axis.config.flipped,
                     kind: axisKind(axis.config, zone: zone),
                     labelSpace: axis.config.labelSpace, presentedLabelExtent: presentedLabelExtents[axis.id],
                     isCenterAxis: axis.config.isCenterAxis, positionValue: axis.config.axisPositionValue,
                     positionAxis: axis.config.positionAxis, tickPlacement: axis.config.tickPlacement,
                     visibility: axis.config.visibility)
            spec.labelAngle = axis.config.labelAngle
            spec.breaks = axisBreaks(axis.config, range: range, zone: zone)
            spec.labelGenerator = axis.config.labelGenerator
            spec.tickHook = axis.config.tickHook
            if axis.config.tickHook != nil {
                spec.labelImages = images.mapValues { Size(width: Double($0.width), height: Double($0.height)) }
            }
            spec.valueGenerator = axis.config.valueGenerator
            spec.labelsAreFixed = axis.config.labelsAreFixed
            spec.endPadding = axis.config.endPadding
            spec.fixedThickness = axis.config.width
            spec.labelDecimals = axis.config.labelDecimals
            spec.dateFormat = axis.config.dateFormat
            spec.labelMap = axis.config.labelMap
            if let gap = axis.config.labelGap { spec.tickPolicy.minLabelGap = gap }
            // Room at the ends of an automatic range for the markers and bubbles drawn on
            // it, so a point at the extremes is drawn whole inside the plot.
            if let room = markerRoom(axis) { spec.endPadding = Self.padding(spec.endPadding, atLeast: room) }
            spec.tickLabelClippingLow = axis.config.tickLabelClippingLow
            spec.tickLabelClippingHigh = axis.config.tickLabelClippingHigh
            return spec
        }
        let padding = EdgeInsets(top: margins.top + reserved.top, left: margins.left + reserved.left,
                                 bottom: margins.bottom + reserved.bottom, right: margins.right + reserved.right)
        // A pie or donut chart is radial: no axes, the plot area is what the title leaves.
        var spec = ChartLayoutSpec(size: size, padding: padding, title: title,
                                   titleStyle: titleFont.style(size: titleSize, bold: true, chartFamily: fontFamily),
                                   axes: isRadial ? [] : axisSpecs)
        spec.axisSpacing = axisSpacing
        return spec
    }
}

/// Things found by id in a chart's lists.
protocol Identified { var id: String { get } }
extension Axis: Identified {}
extension Series: Identified {}

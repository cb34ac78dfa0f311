import Testing
import TestSupport
@testable import LayoutEngine

@Suite struct LayoutTests {
    let engine = ChartLayoutEngine(measurer: TestFonts.measurer)

    func spec(width: Double, height: Double, axes: [AxisSpec], title: String? = "Chart") -> ChartLayoutSpec {
        ChartLayoutSpec(size: Size(width: width, height: height), title: title, axes: axes)
    }

    static let basicAxes = [
        AxisSpec(id: "x", alignment: .bottom, visibleRange: DoubleRange(0, 20), title: "Time (s)"),
        AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(-1.2, 1.2), title: "Value"),
    ]

    @Test func axesSurroundThePlot() throws {
        let l = engine.layout(spec(width: 800, height: 500, axes: Self.basicAxes))
        let x = try #require(l.axis("x")), y = try #require(l.axis("y"))
        #expect(l.invariantViolations() == [])
        #expect(x.rect.minY == l.plotRect.maxY)
        #expect(x.rect.minX == l.plotRect.minX && x.rect.width == l.plotRect.width)
        #expect(y.rect.maxX == l.plotRect.minX)
        #expect(y.rect.minY == l.plotRect.minY && y.rect.height == l.plotRect.height)
        // The left axis is as wide as its widest label, tick, padding and title need.
        let widest = y.ticks.map(\.labelSize.width).max()!
        let titleHeight = TestFonts.regular.lineHeight(size: 13)
        #expect(y.rect.width == (5 + 4 + widest + 6 + titleHeight).rounded(.up))
        // The title sits above the plot, centred.
        let title = try #require(l.title)
        #expect(title.bounds.maxY <= l.plotRect.minY)
        #expect(abs(title.bounds.midX - 400) < 1e-9)
        #expect(x.title?.angle == 0 && y.title?.angle == -90)
        // Every edge is on a whole pixel.
        for v in [l.plotRect.minX, l.plotRect.minY, l.plotRect.maxX, l.plotRect.maxY] { #expect(v == v.rounded()) }
    }

    @Test func sameInputSameOutput() {
        let s = spec(width: 640, height: 480, axes: Self.basicAxes)
        #expect(engine.layout(s) == engine.layout(s))
    }

    /// A following axis (`snapsToDevicePixels`) shows its range moved on, span kept, to
    /// end on a whole device pixel's data width at the length the layout gives it; the
    /// plot is the one its passes settle on, and an axis without it shows its range as is.
    @Test func followingAxisSnapsToDevicePixels() throws {
        var axes = Self.basicAxes
        axes[0].visibleRange = DoubleRange(1000.003, 1020.003)
        let plain = engine.layout(spec(width: 800, height: 500, axes: axes))
        axes[0].snapsToDevicePixels = 2
        let snapped = engine.layout(spec(width: 800, height: 500, axes: axes))
        let calc = try #require(snapped.axis("x")).calculator
        let devicePixels = abs(calc.pixelEnd - calc.pixelStart) * 2
        let w = 20 / devicePixels
        #expect(abs(calc.range.span - 20) < 1e-9)
        #expect(calc.range.max >= 1020.003 && calc.range.max - 1020.003 < w)
        #expect(abs((calc.range.max / w).rounded() - calc.range.max / w) < 1e-6)
        #expect(plain.axis("x")!.calculator.range == DoubleRange(1000.003, 1020.003))
        #expect(snapped.plotRect == plain.plotRect)
        #expect(snapped.axis("y")!.calculator.range == plain.axis("y")!.calculator.range)
        // The ticks are the snapped range's.
        #expect(snapped.axis("x")!.ticks.allSatisfy { calc.range.min <= $0.value && $0.value <= calc.range.max })
    }

    @Test func axesOnOneSideStackOutwards() throws {
        let axes = Self.basicAxes + [
            AxisSpec(id: "y2", alignment: .left, visibleRange: DoubleRange(0, 1e6), title: "Big"),
            AxisSpec(id: "r", alignment: .right, visibleRange: DoubleRange(100, 101), title: "Pressure"),
            AxisSpec(id: "t", alignment: .top, visibleRange: DoubleRange(-5, 5)),
        ]
        let l = engine.layout(spec(width: 900, height: 600, axes: axes))
        #expect(l.invariantViolations() == [])
        let y = try #require(l.axis("y")), y2 = try #require(l.axis("y2"))
        #expect(y2.rect.maxX == y.rect.minX)
        #expect(l.axis("r")!.rect.minX == l.plotRect.maxX)
        #expect(l.axis("t")!.rect.maxY == l.plotRect.minY)
        #expect(l.axis("r")!.title?.angle == 90)
    }

    @Test func flippedAxisRunsTheOtherWay() throws {
        var axes = Self.basicAxes
        axes[0].flipped = true
        let l = engine.layout(spec(width: 600, height: 400, axes: axes))
        let x = try #require(l.axis("x"))
        #expect(x.calculator.pixel(20) == l.plotRect.minX)
        #expect(x.calculator.pixel(0) == l.plotRect.maxX)
    }

    /// Every combination of sizes, ranges and axis sets keeps the layout invariants.
    @Test func invariantsHoldEverywhere() {
        let sizes: [(Double, Double)] = [(120, 90), (320, 240), (640, 480), (800, 500), (1024, 300), (1920, 1080), (300, 900)]
        let ranges = [DoubleRange(0, 1), DoubleRange(-1e6, 1e6), DoubleRange(0.001, 0.0011), DoubleRange(5, 5),
                      DoubleRange(-273.15, 1000), DoubleRange(1.7e9, 1.7e9 + 60)]
        let alignments: [[AxisAlignment]] = [[.bottom, .left], [.top, .right], [.bottom, .left, .right], [.bottom, .top, .left, .left]]
        for (w, h) in sizes {
            for r in ranges {
                for set in alignments {
                    for titled in [true, false] {
                        let axes = set.enumerated().map { i, a in
                            AxisSpec(id: "a\(i)", alignment: a, visibleRange: r, title: titled ? "Axis \(i)" : nil)
                        }
                        let l = engine.layout(spec(width: w, height: h, axes: axes, title: titled ? "Title" : nil))
                        #expect(l.invariantViolations() == [], "\(w)x\(h) \(r) \(set) titled=\(titled)")
                        #expect(l.passes <= DefaultLayoutManager().maxPasses)
                    }
                }
            }
        }
    }

    @Test func legendFitsInsideThePlot() throws {
        let plot = Rect(x: 50, y: 40, width: 500, height: 300)
        let spec = LegendSpec(entries: ["Sine", "Random walk"], position: .topRight)
        let l = try #require(LegendLayout.place(spec, in: plot, measurer: TestFonts.measurer))
        #expect(plot.contains(l.box))
        #expect(l.box.maxX == plot.maxX - spec.margin)
        #expect(l.rows.count == 2)
        #expect(l.rows.allSatisfy { l.box.contains($0.label.bounds) })
        #expect(LegendLayout.place(spec, in: Rect(x: 0, y: 0, width: 40, height: 20), measurer: TestFonts.measurer) == nil)
        #expect(LegendLayout.place(LegendSpec(entries: []), in: plot, measurer: TestFonts.measurer) == nil)
    }

    @Test func coordinateCalculatorRoundTrips() {
        let c = CoordinateCalculator(range: DoubleRange(-2, 6), pixelStart: 400, pixelEnd: 0)
        #expect(c.pixel(-2) == 400 && c.pixel(6) == 0 && c.pixel(2) == 200)
        #expect(c.value(100) == 4)
        let empty = CoordinateCalculator(range: DoubleRange(3, 3), pixelStart: 0, pixelEnd: 100)
        #expect(empty.pixel(3) == 50)
    }
}

/// SwiftCharts' label-space reservation: how much room a Y axis keeps for its labels
/// when they get narrower or wider.
@Suite struct LabelSpaceTests {
    let engine = ChartLayoutEngine(measurer: TestFonts.measurer)

    func plotLeft(_ range: DoubleRange, _ space: LabelSpaceReservation, presented: ClosedRange<Double>? = nil) -> (Double, Double) {
        let axes = [AxisSpec(id: "x", alignment: .bottom, visibleRange: DoubleRange(0, 10)),
                    AxisSpec(id: "y", alignment: .left, visibleRange: range, labelSpace: space, presentedLabelExtent: presented)]
        let l = engine.layout(ChartLayoutSpec(size: Size(width: 600, height: 400), axes: axes))
        return (l.plotRect.minX, l.axis("y")!.labelExtent)
    }

    @Test func modes() {
        let (narrowLeft, narrow) = plotLeft(DoubleRange(0, 1), .current)
        let (wideLeft, wide) = plotLeft(DoubleRange(0, 1_000_000.5), .current)
        #expect(wide > narrow && wideLeft > narrowLeft)
        // Having shown wide labels, maxPresentedSize keeps their room for narrow ones.
        #expect(plotLeft(DoubleRange(0, 1), .maxPresentedSize, presented: narrow...wide).0 == wideLeft)
        #expect(plotLeft(DoubleRange(0, 1), .current, presented: narrow...wide).0 == narrowLeft)
        // minPresentedSize never goes below the narrowest shown, but grows with the labels.
        #expect(plotLeft(DoubleRange(0, 1_000_000.5), .minPresentedSize, presented: narrow...wide).0 == wideLeft)
        #expect(plotLeft(DoubleRange(0, 0.1), .minPresentedSize, presented: narrow...wide).0 >= narrowLeft)
        // A fixed size is that size, whatever the labels.
        let (fixedLeft, _) = plotLeft(DoubleRange(0, 1_000_000.5), .fixed(100))
        #expect(fixedLeft == (10 + 5 + 4 + 100).rounded(.up))
        // The measured extent is reported as it is, whatever is reserved.
        #expect(plotLeft(DoubleRange(0, 1), .fixed(100)).1 == narrow)
    }
}

/// The seed's pinned example: a top-aligned X axis with `isCenterAxis`, placed by a
/// custom inner strategy at the centre of the chart (SciChart's
/// `CenteredAxisLayoutStrategy`, written against this API).
struct CenteredAxisLayoutStrategy: AxisLayoutStrategy {
    let base = InnerAxisLayoutStrategy(.top)
    func measure(_ axes: [MeasuredAxis], state: ChartLayoutState) -> Double { base.measure(axes, state: state) }
    func layout(_ axes: [MeasuredAxis], state: ChartLayoutState) -> [Rect] {
        // Pin the stack of the top-aligned X axes to the centre of the chart.
        let v = state.viewport
        return AxisStacking.topToBottom(axes, left: v.minX, top: v.midY, right: v.maxX)
    }
}

@Suite struct AxisLayoutStrategyTests {
    let measurer = TestFonts.measurer

    func spec(_ axes: [AxisSpec]) -> ChartLayoutSpec {
        ChartLayoutSpec(size: Size(width: 800, height: 500), title: "Central", axes: axes)
    }

    @Test func pinnedCentralAxis() throws {
        var manager = DefaultLayoutManager()
        manager.topInnerAxisLayoutStrategy = CenteredAxisLayoutStrategy()
        let engine = ChartLayoutEngine(measurer: measurer, manager: manager)
        let axes = [AxisSpec(id: "x", alignment: .top, visibleRange: DoubleRange(0, 10), isCenterAxis: true),
                    AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(-5, 5))]
        let l = engine.layout(spec(axes))
        let x = try #require(l.axis("x"))
        #expect(x.isInner && x.facing == .bottom)
        #expect(x.rect.minY == l.plotRect.midY)                         // the line at the centre
        // Its labels hang below the line, inside the plot (those at the ends stick out
        // sideways by half their width, as they do on an outer axis).
        #expect(x.labels.allSatisfy { $0.bounds.minY > l.plotRect.midY && $0.bounds.maxY < l.plotRect.maxY })
        #expect(x.labels.allSatisfy { l.plotRect.minX...l.plotRect.maxX ~= $0.anchor.x })
        #expect(l.invariantViolations() == [])
        // The X axis takes no room: the plot reaches as low as the canvas allows.
        let outer = ChartLayoutEngine(measurer: measurer).layout(spec([
            AxisSpec(id: "x", alignment: .top, visibleRange: DoubleRange(0, 10)), axes[1]]))
        #expect(l.plotRect.height > outer.plotRect.height)
        // The default inner strategy keeps it at the plot's top edge instead.
        let edge = try #require(ChartLayoutEngine(measurer: measurer).layout(spec(axes)).axis("x"))
        #expect(edge.rect.minY == ChartLayoutEngine(measurer: measurer).layout(spec(axes)).plotRect.minY)
    }

    @Test func innerAxesFaceIntoThePlot() throws {
        let engine = ChartLayoutEngine(measurer: measurer)
        let axes = [AxisSpec(id: "x", alignment: .bottom, visibleRange: DoubleRange(0, 10)),
                    AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(0, 100), isCenterAxis: true),
                    AxisSpec(id: "y2", alignment: .right, visibleRange: DoubleRange(0, 1), isCenterAxis: true)]
        let l = engine.layout(spec(axes))
        let y = try #require(l.axis("y")), y2 = try #require(l.axis("y2"))
        #expect(y.facing == .right && y.rect.minX == l.plotRect.minX)
        #expect(y2.facing == .left && y2.rect.maxX == l.plotRect.maxX)
        for label in y.labels {
            #expect(label.bounds.minX > l.plotRect.minX && label.bounds.maxX < l.plotRect.midX)
            #expect(l.plotRect.minY...l.plotRect.maxY ~= label.bounds.midY)
        }
        for label in y2.labels {
            #expect(label.bounds.maxX < l.plotRect.maxX && label.bounds.minX > l.plotRect.midX)
        }
        #expect(l.invariantViolations() == [])
    }

    /// ShinobiCharts' `axisPositionValue`: an X axis floating at y = 0, held at the
    /// plot's edge when 0 leaves the Y range.
    @Test(arguments: [(-1.0, 3.0, true), (1.0, 3.0, false), (-3.0, -1.0, false)])
    func floatingAxis(yMin: Double, yMax: Double, inRange: Bool) throws {
        let engine = ChartLayoutEngine(measurer: measurer)
        let axes = [AxisSpec(id: "x", alignment: .top, visibleRange: DoubleRange(-5, 5), isCenterAxis: true, positionValue: 0),
                    AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(yMin, yMax))]
        let l = engine.layout(spec(axes))
        let x = try #require(l.axis("x")), y = try #require(l.axis("y"))
        if inRange {
            #expect(x.rect.minY == y.calculator.pixel(0))
        } else {
            #expect(x.rect.minY == (yMin > 0 ? l.plotRect.maxY : l.plotRect.minY))
        }
    }
}

/// Ticks the user places: given values, a major frequency from an anchor, minor ticks.
@Suite struct TickPlacementTests {
    let engine = ChartLayoutEngine(measurer: TestFonts.measurer)

    func axis(_ r: DoubleRange, _ p: TickPlacement, kind: AxisKind = .numeric(.auto)) -> AxisLayout {
        let axes = [AxisSpec(id: "x", alignment: .bottom, visibleRange: r, kind: kind, tickPlacement: p),
                    AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(0, 1))]
        return engine.layout(ChartLayoutSpec(size: Size(width: 800, height: 400), axes: axes)).axis("x")!
    }

    @Test func givenValuesAndFrequency() {
        #expect(axis(DoubleRange(0, 10), TickPlacement(values: [12, 3, 7.5, -1, 3])).ticks.map(\.label) == ["3", "7.5"])
        #expect(axis(DoubleRange(0, 1), TickPlacement(majorFrequency: 0.25, anchor: 0.1)).ticks.map(\.label) == ["0.1", "0.35", "0.6", "0.85"])
        // Too many at that frequency: every other one, still on the anchor's grid.
        let thin = axis(DoubleRange(0, 1000), TickPlacement(majorFrequency: 10))
        #expect(thin.ticks.count <= 50 && thin.ticks.allSatisfy { $0.value.truncatingRemainder(dividingBy: 10) == 0 })
        // Crowded given values keep their ticks but not every label.
        let crowded = axis(DoubleRange(0, 10), TickPlacement(values: stride(from: 0.0, through: 10, by: 0.05).map { $0 }))
        #expect(crowded.ticks.count == 201 && crowded.labels.count < 201)
        for (a, b) in zip(crowded.labels, crowded.labels.dropFirst()) { #expect(!a.bounds.intersects(b.bounds)) }
    }

    /// SwiftCharts' multiplier generator: multiples of 15 wherever the range is; zoomed
    /// in, halved (7.5, 3.75) while the halves stay the target spacing (90 px) apart;
    /// zoomed out, doubled until they are.
    @Test func multiplierTicksHalveAsTheAxisZoomsIn() throws {
        func multiplier(_ r: DoubleRange) -> AxisLayout {
            var p = TickPlacement()
            p.multiplier = 15
            return axis(r, p)
        }
        // Under 1 px a unit (0 to 900 on ~700 px): 15 is ~12 px, so doubled three times to 120 (~94 px).
        let wide = multiplier(DoubleRange(0, 900))
        #expect(wide.ticks.map(\.value) == [0, 120, 240, 360, 480, 600, 720, 840])
        // A range that moved: still multiples of 15, not of the range's start.
        // (About 7 px a unit: 15 is ~100 px, 7.5 too close.)
        let moved = multiplier(DoubleRange(7, 107))
        #expect(moved.ticks.map(\.value) == [15, 30, 45, 60, 75, 90, 105])
        // Zoomed in to 0 ... 30 (~25 px a unit): 7.5 is ~190 px, 3.75 ~94 px, 1.875 ~47 px (the X axis aims at 90 px):
        // the step is 3.75.
        let zoomed = multiplier(DoubleRange(0, 30))
        let step = zoomed.ticks[1].value - zoomed.ticks[0].value
        #expect(step == 3.75, "\(zoomed.ticks.map(\.label))")
        #expect(zoomed.ticks.map(\.label).prefix(3) == ["0", "3.75", "7.5"])
        let spacing = zoomed.ticks[1].pixel - zoomed.ticks[0].pixel
        #expect(spacing >= 90 && spacing < 180)
        // Further in, further halved; every tick still a multiple of 15 / 2^n.
        let deep = multiplier(DoubleRange(100, 101))
        let d = deep.ticks[1].value - deep.ticks[0].value
        #expect(d < 0.3 && (15 / d).significand == 1, "\(deep.ticks.map(\.label))")   // 15 / 2^n
        // majorTickFrequency stays at its step however far in.
        #expect(axis(DoubleRange(0, 30), TickPlacement(majorFrequency: 15)).ticks.map(\.value) == [0, 15, 30])
    }

    @Test func minorTicks() throws {
        let auto = axis(DoubleRange(0, 10), TickPlacement(minor: .auto))
        let majors = auto.ticks.map(\.pixel), minors = auto.minorTicks
        #expect(!minors.isEmpty && minors.allSatisfy { m in !majors.contains { abs($0 - m) < 1e-9 } })
        // Between two majors of a 1 x 10^n step: four minors (fifths).
        let between = minors.filter { $0 > majors[0] && $0 < majors[1] }
        #expect(between.count == 4)
        let three = axis(DoubleRange(0, 10), TickPlacement(minor: .divisions(3)))
        #expect(three.minorTicks.filter { $0 > three.ticks[0].pixel && $0 < three.ticks[1].pixel }.count == 2)
        let byFrequency = axis(DoubleRange(0, 10), TickPlacement(minor: .frequency(0.5)))
        #expect(byFrequency.minorTicks.count == 21 - byFrequency.ticks.count)
        // On a base-10 log axis: 2 ... 9 times each power.
        let log = axis(DoubleRange(1, 1000), TickPlacement(minor: .auto), kind: .logarithmic(base: 10, format: .auto))
        #expect(log.ticks.map(\.label) == ["1", "10", "100", "1000"] && log.minorTicks.count == 24)
        #expect(abs(log.minorTicks[0] - log.calculator.pixel(2)) < 1e-6)
    }
}

@Suite struct TurnedLabelTests {
    let engine = ChartLayoutEngine(measurer: TestFonts.measurer)

    func layout(_ angle: Double, width: Double = 500) -> ChartLayout {
        var x = AxisSpec(id: "x", alignment: .bottom, visibleRange: DoubleRange(1e12, 2e12), kind: .numeric(.decimal))
        x.labelAngle = angle
        return engine.layout(ChartLayoutSpec(size: Size(width: width, height: 400), axes: [
            x, AxisSpec(id: "y", alignment: .left, visibleRange: DoubleRange(0, 1))]))
    }

    @Test(arguments: [-90.0, -45, -30, 45, 90])
    func turnedLabelsEndAtTheirTicks(angle: Double) throws {
        let flat = layout(0), l = layout(angle)
        let x = try #require(l.axis("x"))
        #expect(x.labels.allSatisfy { $0.angle == angle })
        #expect(x.labels.count > flat.axis("x")!.labels.count)      // turned labels fit more ticks
        #expect(x.rect.height > flat.axis("x")!.rect.height)          // and need more room across
        #expect(l.invariantViolations() == [])
        for label in x.labels {
            #expect(x.ticks.contains { abs($0.pixel - label.anchor.x) < 1e-9 })
            #expect(label.bounds.minY >= l.plotRect.maxY + 5 + 4 - 1e-9)  // clear of tick and padding
        }
    }
}

import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Vertical bands (ShinobiCharts' `SChartMultiXDataPoint`: several X values for one Y):
/// a band series with `orientation` vertical, its key y up the plot and its two values,
/// x and x1, along X, filled between the left and right curves.
@Suite struct VerticalBandTests {
    /// Keys 0...4 up the Y axis; x left of x1 except at key 3, where they cross
    /// (x 5 > x1 1). `extra` goes into the series object, `chart` into the chart.
    static func spec(data: String = #""y":[0,1,2,3,4],"x":[1,2,1,5,2],"x1":[3,4,5,1,4]"#, extra: String = "",
                     chart: String = "") -> String {
        #"{"id":"vb","chart":{"legend":{"show":false},\#(chart)"series":[{"id":"v","name":"Reach","type":"band","#
            + ##""orientation":"vertical","color":"#1f77b4","fill":"#0000ff","fillY1":"#ff0000"\##(extra),"data":{\##(data)}}]}}"##
    }

    static func session(_ json: String = spec()) throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(json)).makeSession(measurer: TestFonts.measurer)
    }

    static func refusal(_ json: String) -> JSONReadError? {
        do { _ = try ConfigSpec.decodeSession(foundationJSON(json)); return nil } catch { return error }
    }

    static let size = ViewerSize(width: 600, height: 400, dpr: 1)

    static func seriesLayer(_ s: Session) -> [DrawCommand] {
        s.displayList(size: size).layers.first { $0.id == .series }?.commands ?? []
    }

    // MARK: Spec

    @Test func theSpecStoresTheKeyAndBothXValues() throws {
        let s = try Self.session()
        let band = s.chart.series[0]
        #expect(band.orientation == .vertical && band.keyField == "y" && band.fieldNames == ["x", "x1"])
        #expect(band.data.arrays.xs == [0, 1, 2, 3, 4])
        #expect(band.data.arrays.ys == [1, 2, 1, 5, 2])
        #expect(band.values("y1")?.arrays.ys == [3, 4, 5, 1, 4])
        // A horizontal band is unchanged.
        let h = try Self.session(#"{"id":"h","chart":{"series":[{"id":"b","type":"band","data":{"x":[0,1],"y":[1,2],"y1":[3,4]}}]}}"#)
        #expect(h.chart.series[0].orientation == .horizontal && h.chart.series[0].fieldNames == ["y", "y1"])
    }

    @Test func theSpecRefusesWhatDoesNotApply() throws {
        // Only bands run vertically.
        let line = Self.refusal(#"{"id":"l","chart":{"series":[{"id":"l","orientation":"vertical","data":{"x":[0],"y":[1]}}]}}"#)
        #expect(line?.path == "$.chart.series[0].orientation")
        #expect(line?.message.contains("only a band series runs vertically") == true)
        let pie = Self.refusal(#"{"id":"p","chart":{"series":[{"id":"p","type":"pie","orientation":"vertical","data":{"y":[1,2]}}]}}"#)
        #expect(pie?.path == "$.chart.series[0].orientation")
        // An unknown orientation.
        let odd = Self.refusal(Self.spec().replacingOccurrences(of: #""orientation":"vertical""#, with: #""orientation":"diagonal""#))
        #expect(odd?.path == "$.chart.series[0].orientation")
        // The data's names: y, x and x1 (a horizontal band's y1 is not one of them).
        let named = Self.refusal(Self.spec(data: #""x":[0,1],"y":[1,2],"y1":[3,4]"#))
        #expect(named?.path.hasPrefix("$.chart.series[0].data") == true, "\(String(describing: named))")
        let short = Self.refusal(Self.spec(data: #""y":[0,1,2],"x":[1,2,3],"x1":[3,4]"#))
        #expect(short?.message == "y has 3 values but x1 has 2; they must be equal")
        // A gap has both x null.
        let partial = Self.refusal(Self.spec(data: #""y":[0,1],"x":[1,null],"x1":[3,4]"#))
        #expect(partial?.message == "point 1: x and x1 must both be numbers, or both null (a gap)")
        // No pull source: a source answers x ranges, the band's key is y.
        let pulled = Self.refusal(Self.spec(data: #""y":[],"x":[],"x1":[]"#, extra: #","source":"/api/demo/points""#))
        #expect(pulled?.path == "$.chart.series[0].source")
        // Not stacked (no band is).
        let stacked = Self.refusal(Self.spec(extra: #","stackIndex":0"#))
        #expect(stacked?.path == "$.chart.series[0].stackIndex")
    }

    // MARK: Drawing

    /// (screen x, screen y) pairs of a flat point list.
    static func pairs(_ p: [Float]) -> [(x: Double, y: Double)] {
        stride(from: 0, to: p.count - 1, by: 2).map { (Double(p[$0]), Double(p[$0 + 1])) }
    }

    @Test func theFillLiesBetweenTheLeftAndRightCurves() throws {
        let s = try Self.session()
        let layout = s.layout(size: Self.size)
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        #expect(xl.alignment.isHorizontal && !yl.alignment.isHorizontal)
        let commands = Self.seriesLayer(s)
        let polygons = commands.compactMap { c -> (points: [Float], fill: String)? in
            if case let .polygon(p, fill, _) = c { return (p, fill) } else { return nil }
        }
        let lines = commands.compactMap { c -> (points: [Float], stroke: String)? in
            if case let .polyline(p, stroke, _, _) = c { return (p, stroke) } else { return nil }
        }
        // Split where the curves cross (between keys 2 and 3, and 3 and 4): three polygons,
        // x1 right of x (fillY1) below the crossing and above the second, x right (fill) between.
        #expect(polygons.map(\.fill) == ["#ff0000", "#0000ff", "#ff0000"])
        // Both curves stroked, through every row at (its x, the row's y).
        #expect(lines.count == 2)
        let data: [(key: Double, x: Double, x1: Double)] = [(0, 1, 3), (1, 2, 4), (2, 1, 5), (3, 5, 1), (4, 2, 4)]
        func near(_ a: (x: Double, y: Double), _ x: Double, _ y: Double) -> Bool { abs(a.x - x) < 0.01 && abs(a.y - y) < 0.01 }
        let left = Self.pairs(lines[0].points), right = Self.pairs(lines[1].points)
        #expect(left.count == 5 && right.count == 5)
        for (k, row) in data.enumerated() {
            let py = yl.calculator.pixel(row.key)
            #expect(near(left[k], xl.calculator.pixel(row.x), py), "x curve at key \(row.key): \(left[k])")
            #expect(near(right[k], xl.calculator.pixel(row.x1), py), "x1 curve at key \(row.key): \(right[k])")
        }
        // The first polygon holds rows 0...2 of both curves: at each row its two points
        // are the curves' (left and right edges of the fill at that height).
        let first = Self.pairs(polygons[0].points)
        for row in data.prefix(3) {
            let py = yl.calculator.pixel(row.key)
            #expect(first.contains { near($0, xl.calculator.pixel(row.x), py) })
            #expect(first.contains { near($0, xl.calculator.pixel(row.x1), py) })
        }
        // Every vertex of the fill lies between the curves' extremes across, and between
        // the first and last keys up: the band runs up the plot, not across it.
        let (lo, hi) = (xl.calculator.pixel(1), xl.calculator.pixel(5))
        let (top, bottom) = (yl.calculator.pixel(4), yl.calculator.pixel(0))
        for p in polygons.flatMap({ Self.pairs($0.points) }) {
            #expect(p.x >= lo - 0.01 && p.x <= hi + 0.01 && p.y >= top - 0.01 && p.y <= bottom + 0.01)
        }
        // The crossing between keys 2 and 3 (x: 1 → 5, x1: 5 → 1) is at key 2.5, x 3:
        // both polygons either side of it share that vertex.
        let cross = (xl.calculator.pixel(3), yl.calculator.pixel(2.5))
        #expect(first.contains { near($0, cross.0, cross.1) })
        #expect(Self.pairs(polygons[1].points).contains { near($0, cross.0, cross.1) })
    }

    @Test func aGapBreaksBothCurvesAndTheFill() throws {
        let s = try Self.session(Self.spec(data: #""y":[0,1,2,3,4],"x":[1,2,null,1,2],"x1":[3,4,null,3,4]"#))
        let commands = Self.seriesLayer(s)
        let polygons = commands.filter { if case .polygon = $0 { true } else { false } }
        let lines = commands.compactMap { c -> [Float]? in if case let .polyline(p, _, _, _) = c { p } else { nil } }
        #expect(polygons.count == 2)
        #expect(lines.count == 4 && lines.allSatisfy { $0.count == 4 })
    }

    /// On a rotated chart (X axis up the side) a vertical band's key, on the Y axis, runs
    /// across: reduced to device columns like a horizontal band on an ordinary chart.
    @Test func onARotatedChartTheKeyRunsAcross() throws {
        let s = try Self.session(Self.spec(chart: #""xAxes":[{"id":"x","alignment":"left"}],"yAxes":[{"id":"y","alignment":"bottom"}],"#))
        let commands = Self.seriesLayer(s)
        #expect(commands.contains { if case .band = $0 { true } else { false } })
        #expect(commands.filter { if case .columns = $0 { true } else { false } }.count == 2)
    }

    /// A grow animation moves a vertical band's values (along X) from its baseline; its
    /// key (up Y) stays where it is.
    @Test func aGrowAnimatesTheXValuesNotTheKey() throws {
        func chart() -> Chart {
            var band = Series(id: "v", name: "Reach", kind: .band, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
            band.orientation = .vertical
            band.animationEnabled = true
            band.entryAnimation = SeriesAnimation(effect: .grow, duration: 1, curve: .linear)
            let c = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(-10, 10))],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 5))], series: [band], legend: nil)
            try! c.append(seriesId: "v", ys: [0, 1, 2, 3, 4], xs: [1, 2, 1, 5, 2], x1s: [3, 4, 5, 1, 4])
            return c
        }
        func lines(_ c: Chart) -> [[Float]] {
            (ChartRenderer(measurer: TestFonts.measurer).render(c, size: Size(width: 600, height: 400), dpr: 1).layers[.series] ?? [])
                .compactMap { if case let .polyline(p, _, _, _) = $0 { p } else { nil } }
        }
        let done = chart(), half = chart()
        for c in [done, half] { c.advanceAnimations(to: 0, watched: true) }
        done.advanceAnimations(to: 5, watched: true)
        half.advanceAnimations(to: 0.5, watched: true)
        let final = lines(done), mid = lines(half)
        #expect(final.count == 2 && mid.count == 2)
        let layout = ChartRenderer(measurer: TestFonts.measurer).layout(done, size: Size(width: 600, height: 400), dpr: 1)
        let base = Float(try #require(layout.axis("x")).calculator.pixel(0))
        for (f, m) in zip(final, mid) {
            for k in stride(from: 0, to: f.count, by: 2) {
                #expect(f[k + 1] == m[k + 1], "the key's pixel stays")
                #expect(abs(m[k] - (base + (f[k] - base) / 2)) < 0.01, "half-way from the baseline: \(m[k]) of \(f[k])")
            }
        }
    }

    // MARK: Ranges

    @Test func automaticRangesTakeBothXColumnsOnXAndTheKeyOnY() throws {
        let s = try Self.session(Self.spec(data: #""y":[10,20,30],"x":[-7,2,1],"x1":[3,4,50]"#))
        let r = s.chart.resolvedRanges()
        let x = try #require(r["x"]), y = try #require(r["y"])
        #expect(x.min <= -7 && x.max >= 50 && x.max < 60, "\(x)")
        #expect(y.min <= 10 && y.min > 5 && y.max >= 30 && y.max < 35, "\(y)")
        #expect(s.chart.dataRange("x") == DoubleRange(-7, 50))
        #expect(s.chart.dataRange("y") == DoubleRange(10, 30))
    }

    // MARK: Inspecting

    @Test func theRolloverReportsYAndBothX() throws {
        let s = try Self.session(Self.spec(chart: #""modifiers":[{"type":"rollover"}],"#))
        let rollover = try #require(s.chart.modifiers.compactMap { $0 as? RolloverModifier }.first)
        let layout = s.layout(size: Self.size)
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        let viewer: ViewerID = 1
        // The pointer a little above key 2, anywhere across.
        rollover.positions[viewer] = Point(x: xl.calculator.pixel(4.5), y: yl.calculator.pixel(2) - 3)
        let commands = rollover.overlay(for: viewer, layout: layout)
        let texts = commands.compactMap { c -> String? in if case let .text(_, _, t, _, _, _, _, _) = c { t } else { nil } }
        #expect(texts.contains("Reach: y 2, x 1, x1 5"), "\(texts)")
        // A marker on each curve at that row.
        let markers = commands.compactMap { c -> (Double, Double)? in
            if case let .markers(m) = c { (Double(m.x0), Double(m.y0)) } else { nil }
        }
        let py = yl.calculator.pixel(2)
        #expect(markers.contains { abs($0.0 - xl.calculator.pixel(1)) < 0.01 && abs($0.1 - py) < 0.01 })
        #expect(markers.contains { abs($0.0 - xl.calculator.pixel(5)) < 0.01 && abs($0.1 - py) < 0.01 })
    }

    @Test func theCrosshairsTooltipGivesTheRow() throws {
        let s = try Self.session(Self.spec(chart: #""modifiers":[{"type":"crosshair"}],"#))
        let crosshair = try #require(s.chart.modifiers.compactMap { $0 as? CrosshairModifier }.first)
        let layout = s.layout(size: Self.size)
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        let viewer: ViewerID = 1
        // Near the x1 curve at key 1 (x1 4).
        crosshair.positions[viewer] = Point(x: xl.calculator.pixel(4) + 2, y: yl.calculator.pixel(1) + 2)
        let t = try #require(crosshair.target(for: viewer, layout: layout))
        #expect(t.index == 1 && t.x == 4 && t.y == 1)
        #expect(crosshair.tooltipLines(for: t, in: s.chart) == ["Reach", "y: 1", "x: 2", "x1: 4"])
    }

    @Test func aTapOnEitherCurveSelectsTheBand() throws {
        let s = try Self.session(Self.spec(chart: #""modifiers":[{"type":"selection"}],"#))
        let selection = try #require(s.chart.modifiers.compactMap { $0 as? SeriesSelectionModifier }.first)
        let layout = s.layout(size: Self.size)
        let xl = try #require(layout.axis("x")), yl = try #require(layout.axis("y"))
        // On the x1 curve at key 4, and on the x curve at key 0; not in the empty corner.
        #expect(selection.nearestSeries(to: Point(x: xl.calculator.pixel(4), y: yl.calculator.pixel(4)), chart: s.chart, layout: layout) == 0)
        #expect(selection.nearestSeries(to: Point(x: xl.calculator.pixel(1), y: yl.calculator.pixel(0)), chart: s.chart, layout: layout) == 0)
        #expect(selection.nearestSeries(to: Point(x: xl.calculator.pixel(5), y: yl.calculator.pixel(0)), chart: s.chart, layout: layout) == nil)
        let near = selection.nearestPoint(to: Point(x: xl.calculator.pixel(2) + 1, y: yl.calculator.pixel(1)), in: 0, chart: s.chart, layout: layout)
        #expect(near == 1)
    }

    // MARK: Feeding, state, export

    @Test func appendsMergeByKeyThroughTheDoor() throws {
        let s = try Self.session()
        try s.submit(.append(series: "v", xs: [6, 5], values: [[0, 1], [2, 3]]))
        let band = s.chart.series[0]
        #expect(band.data.arrays.xs == [0, 1, 2, 3, 4, 5, 6])
        #expect(band.data.arrays.ys.suffix(2) == [1, 0])
        #expect(band.values("y1")?.arrays.ys.suffix(2) == [3, 2])
        // The live spec writes the data by its names.
        let live = s.liveSpec(includeData: true)
        let data = try #require(live?["chart"]?["series"]?.arrayValue?.first?["data"])
        #expect(data["y"]?.arrayValue?.count == 7 && data["x1"]?.arrayValue?.count == 7 && data["y1"] == nil)
        #expect(live?["chart"]?["series"]?.arrayValue?.first?["orientation"]?.stringValue == "vertical")
    }

    /// A restart: the snapshot (through its stored form) and the inputs after it give
    /// the same vertical band, drawn the same.
    @Test func aVerticalBandSurvivesARestart() throws {
        let live = try Self.session()
        let recorder = SessionInputTests.Recorder()
        live.journal = recorder
        try live.submit(.append(series: "v", xs: [5], values: [[1], [6]]))
        var snap = try #require(live.snapshot())
        let series = snap.series
        snap = try SessionCodec.decodeState(SessionCodec.encodeState(snap))
        snap.series = series.map { .init(id: $0.id, columns: $0.columns.map { try! SessionCodec.column(SessionCodec.columnBytes($0)) }) }
        try live.submit(.append(series: "v", xs: [6], values: [[2], [3]]))
        let restored = try ConfigSpec.decodeSession(snap.spec, runtime: false).makeSession(measurer: TestFonts.measurer)
        restored.restore(snap)
        for input in recorder.inputs.dropFirst() { try restored.apply(input) }
        let band = restored.chart.series[0]
        #expect(band.isVertical)
        #expect(band.data.arrays.xs == live.chart.series[0].data.arrays.xs)
        #expect(band.values("y1")?.arrays.ys == live.chart.series[0].values("y1")?.arrays.ys)
        #expect(restored.chart.resolvedRanges() == live.chart.resolvedRanges())
        #expect(Self.seriesLayer(restored) == Self.seriesLayer(live))
        #expect(Self.seriesLayer(live).contains { if case .polygon = $0 { true } else { false } })
    }

    @Test func theExportNamesTheKeyYAndTheValuesXAndX1() throws {
        let s = try Self.session()
        let e = try DataExport(chart: s.chart, session: "vb", options: DataExportOptions(xFormat: .raw))
        let csv = String(decoding: e.csv(), as: UTF8.self)
        let rows = csv.split(separator: "\r\n").map(String.init)
        #expect(rows.first == "series,name,x,y,x1")
        #expect(rows.dropFirst().first == "v,Reach,1,0,3")
        #expect(rows.count == 6)
        let json = try foundationJSON(String(decoding: e.json(), as: UTF8.self))
        let part = try #require(json["series"]?.arrayValue?.first)
        #expect(part["orientation"]?.stringValue == "vertical" && part["yAxis"]?.stringValue == "y")
        #expect(part["y"]?.arrayValue?.compactMap(\.doubleValue) == [0, 1, 2, 3, 4])
        #expect(part["x"]?.arrayValue?.compactMap(\.doubleValue) == [1, 2, 1, 5, 2])
        #expect(part["x1"]?.arrayValue?.compactMap(\.doubleValue) == [3, 4, 5, 1, 4])
    }

    /// The Swift API builds the same series: a band with `orientation` vertical, fed
    /// rows of y, x and x1.
    @Test func swiftBuildsTheSameBand() throws {
        var band = Series(id: "v", name: "Reach", kind: .band, color: "#1f77b4", xAxisId: "x", yAxisId: "y")
        band.orientation = .vertical
        band.style.fill = "#0000ff"; band.style.fillY1 = "#ff0000"
        // (The spec's default axes, so that both draw on the same ranges.)
        let fromSpec = try Self.session()
        let chart = Chart(title: nil, xAxes: fromSpec.chart.xAxes.map(\.config), yAxes: fromSpec.chart.yAxes.map(\.config),
                          series: [band], legend: nil)
        try chart.append(seriesId: "v", ys: [0, 1, 2, 3, 4], xs: [1, 2, 1, 5, 2], x1s: [3, 4, 5, 1, 4])
        let fromSwift = Fixtures.session(chart, id: "vb")
        #expect(fromSwift.chart.resolvedRanges() == fromSpec.chart.resolvedRanges())
        let drawn = Self.seriesLayer(fromSwift)
        #expect(drawn.filter { if case .polygon = $0 { true } else { false } }.count == 3, "\(drawn.count) commands")
        #expect(drawn == Self.seriesLayer(fromSpec))
    }
}

import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Issue 31: charts clean at every size. Legends that leave a plot they would cover,
/// zero baselines, room for markers, excluded data, pane gridlines, labels kept in
/// the plot, annotation labels clear of each other, titles in reading order.
@Suite struct ChartQualityTests {
    func session(_ chart: String) throws -> Session {
        try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"q","chart":"# + chart + "}]}"))[0]
            .makeSession(measurer: TestFonts.measurer)
    }

    func layer(_ s: Session, _ id: LayerID, _ size: ViewerSize) -> [DrawCommand] {
        s.displayList(size: size).layers.first { $0.id == id }?.commands ?? []
    }

    /// The legend's box: the overlay's first outlined rectangle.
    func legendBox(_ s: Session, _ size: ViewerSize) -> Rect? {
        for c in layer(s, .overlay, size) {
            if case let .rect(x, y, w, h, _, stroke, _) = c, stroke != nil {
                return Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h))
            }
        }
        return nil
    }

    /// Three sines filling the plot: no place inside is free of data.
    static let crowded = #"""
        "xAxes":[{"id":"x"}],"yAxes":[{"id":"y"}],"series":[
        {"id":"a","name":"Alpha","data":{"x":[0,1,2,3,4,5,6,7,8,9,10],"y":[0,9,1,8,2,7,3,6,4,5,10]}},
        {"id":"b","name":"Beta","data":{"x":[0,1,2,3,4,5,6,7,8,9,10],"y":[10,1,9,2,8,3,7,4,6,5,0]}},
        {"id":"c","name":"Gamma","data":{"x":[0,1,2,3,4,5,6,7,8,9,10],"y":[5,0,10,0,10,0,10,0,10,0,5]}}]
        """#

    @Test func aLegendThatCoversDataEverywhereInsideGoesOutside() throws {
        let size = ViewerSize(width: 800, height: 500, dpr: 1)
        let free = try session(#"{"legend":{"position":"topLeft"},"# + Self.crowded + "}")
        let plot = free.layout(size: size).plotRect
        let box = try #require(legendBox(free, size))
        #expect(box.minX >= plot.maxX)                       // in a column right of the plot
        #expect(free.layout(size: size).legendArea != nil)
        // The same legend with its placement named stays inside, over the data.
        let pinned = try session(#"{"legend":{"position":"topLeft","placement":"insidePlotArea"},"# + Self.crowded + "}")
        let pinnedPlot = pinned.layout(size: size).plotRect
        let inside = try #require(legendBox(pinned, size))
        #expect(pinnedPlot.contains(Point(x: inside.minX, y: inside.minY)) && pinnedPlot.width > plot.width)
        // A legend with a free corner stays inside.
        let rising = #"{"legend":{"position":"topLeft"},"xAxes":[{"id":"x"}],"yAxes":[{"id":"y"}],"#
            + #""series":[{"id":"s","name":"Rising","data":{"x":[0,1,2,3,4,5,6,7,8,9,10],"y":[0,1,2,3,4,5,6,7,8,9,10]}}]}"#
        let s = try session(rising)
        #expect(s.layout(size: size).legendArea == nil)
        let r = try #require(legendBox(s, size))
        #expect(s.layout(size: size).plotRect.contains(Point(x: r.minX, y: r.minY)))
    }

    /// Issue 31 (Plant monitor at 480x320: a legend column beside two Y axes left the
    /// plot about a third of the width): on a small chart, where a column would take more than a fifth
    /// of the width and a row above the plot at most 15 % of the height, the
    /// legend goes to that row, below the chart's title (it used to be above the title).
    @Test func aSmallChartsLegendGoesAboveThePlotBelowTheTitle() throws {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        let s = try session(#"{"title":"Crowded","legend":{"position":"topLeft"},"# + Self.crowded + "}")
        let layout = s.layout(size: size)
        let box = try #require(legendBox(s, size)), title = try #require(layout.title)
        #expect(box.maxY <= layout.plotRect.minY && box.minY >= title.bounds.maxY)
        #expect(layout.plotRect.width > 480 * 0.8)
        // At 800 px the same legend is a column at the right (a fifth is 160 px), the title above the plot.
        let wide = ViewerSize(width: 800, height: 500, dpr: 1)
        let column = try #require(legendBox(s, wide))
        #expect(column.minX >= s.layout(size: wide).plotRect.maxX)
        // And at 480x200, where a row (the box and its margins) would take more than 15 % of the height.
        let short = ViewerSize(width: 480, height: 200, dpr: 1)
        #expect(try #require(legendBox(s, short)).minX >= s.layout(size: short).plotRect.maxX)
    }

    @Test func aLegendAboveThePlotPutsItsEntriesSideBySide() throws {
        let size = ViewerSize(width: 800, height: 500, dpr: 1)
        let s = try session(#"{"legend":{"position":"topMiddle","placement":"outsidePlotArea"},"# + Self.crowded + "}")
        let box = try #require(legendBox(s, size))
        var rows = Set<Float>()
        for c in layer(s, .overlay, size) { if case let .text(_, y, _, _, _, _, _, _) = c { rows.insert(y) } }
        #expect(rows.count == 1)                             // three entries in one row
        #expect(box.height < 30 && box.maxY <= s.layout(size: size).plotRect.minY)
        // Taps find each entry in its own column.
        let hits = s.renderer.legendHitBoxes(s.chart, layout: s.layout(size: size))
        #expect(hits.map(\.seriesId) == ["a", "b", "c"])
        #expect(hits[0].rect.maxX <= hits[1].rect.minX && hits[1].rect.maxX <= hits[2].rect.minX)
    }

    @Test func nonNegativeDataKeepsAZeroBaseline() throws {
        let columns = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y"}],"#
            + #""series":[{"id":"c","type":"column","data":{"x":[0,1,2],"y":[20,35,50]}}]}"#)
        let r = try #require(columns.chart.resolvedRanges()["y"])
        #expect(r.min == 0 && r.max > 50)
        // Lines of positive values near zero are not padded below it either.
        let line = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y","growBy":[0.5,0.5]}],"#
            + #""series":[{"id":"l","data":{"x":[0,1,2],"y":[1,5,10]}}]}"#)
        #expect(try #require(line.chart.resolvedRanges()["y"]).min == 0)
        // Data that goes below zero is padded as before, and so is data far above it.
        let mixed = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y","growBy":[0.1,0.1]}],"#
            + #""series":[{"id":"l","data":{"x":[0,1,2],"y":[-10,5,10]}}]}"#)
        #expect(try #require(mixed.chart.resolvedRanges()["y"]).min < -10)
        let far = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y","growBy":[0.1,0.1]}],"#
            + #""series":[{"id":"l","data":{"x":[0,1,2],"y":[100,105,110]}}]}"#)
        #expect(try #require(far.chart.resolvedRanges()["y"]).min < 100)
        // Non-positive data keeps zero as its top.
        let below = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y","growBy":[0.5,0.5]}],"#
            + #""series":[{"id":"l","data":{"x":[0,1,2],"y":[-1,-5,-10]}}]}"#)
        #expect(try #require(below.chart.resolvedRanges()["y"]).max == 0)
    }

    @Test func markersAtTheExtremesAreDrawnWholeInsideThePlot() throws {
        let size = ViewerSize(width: 400, height: 300, dpr: 1)
        let s = try session(#"{"xAxes":[{"id":"x","growBy":[0,0]}],"yAxes":[{"id":"y","growBy":[0,0]}],"#
            + #""series":[{"id":"p","type":"scatter","marker":{"shape":"circle","size":12},"#
            + #""data":{"x":[0,5,10],"y":[0,10,5]}}]}"#)
        let plot = s.layout(size: size).plotRect
        var seen = 0
        for c in layer(s, .series, size) {
            guard case let .markers(m) = c else { continue }
            for cell in m.cells {
                let x = Double(m.x0 + Float(cell.x) * m.unit), y = Double(m.y0 + Float(cell.y) * m.unit), r = Double(m.size) / 2
                #expect(x - r >= plot.minX - 0.5 && x + r <= plot.maxX + 0.5 && y - r >= plot.minY - 0.5 && y + r <= plot.maxY + 0.5)
                seen += 1
            }
        }
        #expect(seen == 3)
        // A range the spec gives is not padded: the points sit on its edges.
        let fixed = try session(#"{"xAxes":[{"id":"x","range":[0,10]}],"yAxes":[{"id":"y","range":[0,10]}],"#
            + #""series":[{"id":"p","type":"scatter","marker":{"shape":"circle","size":12},"data":{"x":[0,10],"y":[0,10]}}]}"#)
        let fp = fixed.layout(size: size).plotRect
        #expect(abs(fixed.layout(size: size).axis("x")!.calculator.pixel(0) - fp.minX) < 1e-9)
    }

    @Test func candlesInsideAnExcludedRangeAreNotDrawn() throws {
        // Friday, Saturday, Sunday and Monday at 12:00 UTC; weekends excluded.
        let friday = 1_783_080_000.0   // 2026-07-03 12:00 UTC, a Friday
        let xs = (0..<4).map { friday + Double($0) * 86_400 }
        func candles(_ weekends: Bool) throws -> Int {
            let s = try session(#"{"xAxes":[{"id":"t","type":"time","weekends":"# + (weekends ? "true" : "false") + #"}],"#
                + #""yAxes":[{"id":"p"}],"series":[{"id":"c","type":"candlestick","data":{"x":"#
                + "\(xs.map { Int($0) })" + #","open":[1,2,3,4],"high":[5,5,5,5],"low":[0,0,0,0],"close":[2,3,4,5]}}]}"#)
            var bodies = 0
            for c in layer(s, .series, ViewerSize(width: 800, height: 400, dpr: 1)) {
                if case let .bars(b) = c { bodies += b.bars.filter { $0.width > 1 }.count }
            }
            return bodies
        }
        #expect(try candles(false) == 4)
        #expect(try candles(true) == 2)   // Saturday's and Sunday's are not drawn over Monday's
    }

    @Test func ohlcTicksOfNeighbouringBarsKeepAGap() throws {
        let s = try session(#"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y"}],"series":[{"id":"o","type":"ohlc","columnWidth":1,"#
            + #""data":{"x":[0,1,2,3],"open":[1,2,3,4],"high":[3,4,5,6],"low":[0,1,2,3],"close":[2,3,4,5]}}]}"#)
        var ticks: [(Int, Int)] = []
        for c in layer(s, .series, ViewerSize(width: 400, height: 300, dpr: 1)) {
            guard case let .bars(b) = c else { continue }
            for bar in b.bars where bar.height <= 2 { ticks.append((Int(bar.left), Int(bar.left) + Int(bar.width))) }
        }
        ticks.sort { $0.0 < $1.0 }
        #expect(ticks.count == 8)
        // A bar's close tick and the next bar's open tick do not touch.
        for k in stride(from: 1, to: ticks.count - 1, by: 2) { #expect(ticks[k + 1].0 - ticks[k].1 >= 10) }
    }

    @Test func eachStackedPaneHasItsOwnGridlines() throws {
        let size = ViewerSize(width: 800, height: 500, dpr: 1)
        let s = try session(#"{"axisLayout":{"left":"stacked"},"#
            + #""xAxes":[{"id":"top","alignment":"top","range":[0,10]},{"id":"bottom","range":[0,1000]}],"#
            + #""yAxes":[{"id":"up"},{"id":"down"}],"series":["#
            + #"{"id":"a","xAxis":"top","yAxis":"up","data":{"x":[0,10],"y":[0,1]}},"#
            + #"{"id":"b","xAxis":"bottom","yAxis":"down","data":{"x":[0,1000],"y":[0,1]}}]}"#)
        let layout = s.layout(size: size)
        let up = try #require(layout.axis("up")).rect, down = try #require(layout.axis("down")).rect
        // The vertical gridlines: the top axis' within the upper pane, the bottom axis' within the lower.
        var vertical: [(x: Float, y0: Float, y1: Float)] = []
        for c in layer(s, .background, size) {
            guard case let .segments(coords, stroke, _, _) = c, stroke == Theme().gridLine else { continue }
            for k in stride(from: 0, to: coords.count, by: 4) where coords[k] == coords[k + 2] {
                vertical.append((coords[k], coords[k + 1], coords[k + 3]))
            }
        }
        let topTicks = Set(layout.axis("top")!.ticks.map { ChartRenderer.crisp($0.pixel, dpr: 1) })
        let bottomTicks = Set(layout.axis("bottom")!.ticks.map { ChartRenderer.crisp($0.pixel, dpr: 1) })
        #expect(vertical.contains { bottomTicks.contains($0.x) && Double($0.y0) >= down.minY - 1 })
        for line in vertical {
            if Double(line.y1) <= up.maxY + 1 { #expect(topTicks.contains(line.x)) }
            if Double(line.y0) >= down.minY - 1 { #expect(bottomTicks.contains(line.x)) }
            #expect(Double(line.y1) <= up.maxY + 1 || Double(line.y0) >= down.minY - 1)   // none crosses both panes
        }
    }

    @Test func theCursorsLabelsStayInsideThePlot() throws {
        let size = ViewerSize(width: 400, height: 300, dpr: 1)
        let s = try session(#"{"xAxes":[{"id":"t","type":"time"}],"yAxes":[{"id":"v"}],"modifiers":[{"type":"cursor"}],"#
            + #""series":[{"id":"l","data":{"x":[1795392000,1795478400],"y":[0,10]}}]}"#)
        let plot = s.layout(size: size).plotRect
        let cursor = try #require(s.chart.modifiers.compactMap { $0 as? CursorModifier }.first)
        let viewer: ViewerID = 1
        cursor.positions[viewer] = Point(x: plot.maxX - 2, y: plot.minY + 2)
        let commands = cursor.overlay(for: viewer, layout: s.layout(size: size))
        var boxes = 0
        for c in commands {
            guard case let .rect(x, y, w, h, _, _, _) = c else { continue }
            boxes += 1
            #expect(Double(x) >= plot.minX - 1e-3 && Double(x + w) <= plot.maxX + 1e-3)
            #expect(Double(y) >= plot.minY - 1e-3 && Double(y + h) <= plot.maxY + 1e-3)
        }
        #expect(boxes == 2)
    }

    @Test func annotationLabelsDoNotLieOnEachOther() throws {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        // A marker's label and a box's label at the same place: the second moves.
        let s = try session(#"{"xAxes":[{"id":"x","range":[0,10]}],"yAxes":[{"id":"y","range":[0,10]}],"annotations":["#
            + #"{"type":"box","x":4,"y":2,"x2":6,"y2":8,"text":"incident"},"#
            + #"{"type":"marker","x":4,"y":8,"text":"peak 210 ms"}],"#
            + #""series":[{"id":"l","data":{"x":[0,10],"y":[0,10]}}]}"#)
        var rects: [(String, Rect)] = []
        let m = TestFonts.measurer
        for id in [LayerID.background, .series, .overlay] {
            for c in layer(s, id, size) {
                guard case let .text(x, y, t, _, _, align, _, _) = c, t == "incident" || t == "peak 210 ms" else { continue }
                let w = m.width(of: t, style: TextStyle(size: 12))
                let left = align == .left ? Double(x) : align == .right ? Double(x) - w : Double(x) - w / 2
                rects.append((t, Rect(x: left, y: Double(y) - 12, width: w, height: 15)))
            }
        }
        #expect(rects.count == 2)
        if rects.count == 2 { #expect(!rects[0].1.intersects(rects[1].1)) }
    }

    /// Issue 31 (gallery-annotations at tile size): labels struck through by another
    /// annotation's line, or running across a box' outline. A vertical line's label
    /// at its top would lie on a horizontal line there: it goes to the line's foot; a
    /// marker's label right of it would cross the box' edge beside it: it moves past
    /// the edge; a box' label wider than the box goes above it, not across its outline.
    @Test func annotationLabelsAreNotStruckThroughByLines() throws {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        let s = try session(#"{"xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"#
            + #""annotations":[{"type":"verticalLine","x":2,"text":"release"},{"type":"horizontalLine","y":9.6,"text":"limit"},"#
            + #"{"type":"box","x":4,"y":2,"x2":6,"y2":6,"text":"a label wider than its box"},"#
            + #"{"type":"marker","x":5.8,"y":4,"text":"peak"}],"#
            + #""series":[{"id":"l","data":{"x":[0,10],"y":[0,1]}}]}"#)
        let layout = s.layout(size: size)
        let x = try #require(layout.axis("x")).calculator, y = try #require(layout.axis("y")).calculator
        let m = TestFonts.measurer
        var rects: [String: Rect] = [:]
        for c in layer(s, .series, size) {
            guard case let .text(tx, ty, t, _, _, align, _, _) = c else { continue }
            let w = m.width(of: t, style: TextStyle(size: 12))
            let left = align == .left ? Double(tx) : align == .right ? Double(tx) - w : Double(tx) - w / 2
            rects[t] = Rect(x: left, y: Double(ty) - 11, width: w, height: 14)
        }
        let release = try #require(rects["release"]), peak = try #require(rects["peak"])
        // Clear of the horizontal line at 9.6: at the vertical line's foot.
        #expect(!(release.minY...release.maxY).contains(y.pixel(9.6)))
        #expect(release.midY > layout.plotRect.midY)
        // Right of the marker, past the box' right edge (x = 6), on the marker's row.
        #expect(peak.minX > x.pixel(6) + 1 && peak.minX < x.pixel(6) + 12)
        #expect(abs(peak.midY - y.pixel(4)) < 8)
        // The box' label does not fit inside it: above or below it, clear of its outline.
        let wide = try #require(rects["a label wider than its box"])
        #expect(wide.maxY < y.pixel(6) - 1 || wide.minY > y.pixel(2) + 1)
    }

    /// Issue 31 (dashboard cells of 215 px): a chart title wider than the chart is cut
    /// to the words that fit, with an ellipsis; a text annotation near the plot's right
    /// edge is moved in whole (it ran off the canvas), and left out where moving it
    /// would put it across a line.
    @Test func titlesAndTextAnnotationsStayOnASmallCanvas() throws {
        let size = ViewerSize(width: 215, height: 198, dpr: 1)
        let s = try session(#"{"title":"Income, life expectancy and population","#
            + #""xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"#
            + #""annotations":[{"type":"text","x":9,"y":5,"text":"back to normal"},"#
            + #"{"type":"text","x":9,"y":2,"text":"quite a long text for this chart"},{"type":"verticalLine","x":2}],"#
            + #""series":[{"id":"l","data":{"x":[0,10],"y":[0,1]}}]}"#)
        let layout = s.layout(size: size)
        let title = try #require(layout.title)
        #expect(title.text == "Income, life\u{2026}" || title.text.hasSuffix("\u{2026}") && title.text.count < 30)
        #expect(title.bounds.minX >= 0 && title.bounds.maxX <= 215)
        let m = TestFonts.measurer, plot = layout.plotRect
        var texts: [String: Double] = [:]
        for c in layer(s, .series, size) {
            if case let .text(x, _, t, _, _, _, _, _) = c { texts[t] = Double(x) + m.width(of: t, style: TextStyle(size: 12)) }
        }
        let end = try #require(texts["back to normal"])
        #expect(end <= plot.maxX)
        let line = try #require(layout.axis("x")).calculator.pixel(2)
        #expect(end - m.width(of: "back to normal", style: TextStyle(size: 12)) > line)
        // Moved in, the long one would lie across the line at x = 2: left out.
        #expect(texts["quite a long text for this chart"] == nil)
    }

    @Test func aTitleTurnedBesideThePlotReadsInOrder() throws {
        let s = try session(#"{"xAxes":[{"id":"x","title":"Top line\nsecond line","alignment":"top"}],"#
            + #""yAxes":[{"id":"l","title":"First\nSecond"},{"id":"r","alignment":"right","title":"First\nSecond"}],"#
            + #""series":[{"id":"s","yAxis":"l","data":{"x":[0,1],"y":[0,1]}}]}"#)
        let layout = s.layout(size: ViewerSize(width: 800, height: 500, dpr: 1))
        let left = try #require(layout.axis("l")), right = try #require(layout.axis("r")), top = try #require(layout.axis("x"))
        // Turned -90 degrees (reading upwards) the first line is the leftmost; turned +90, the rightmost;
        // above the plot, the first line is the upper one.
        #expect(left.title!.bounds.maxX <= left.moreTitleLines[0].bounds.minX + 1e-9)
        #expect(right.title!.bounds.minX >= right.moreTitleLines[0].bounds.maxX - 1e-9)
        #expect(top.title!.bounds.maxY <= top.moreTitleLines[0].bounds.minY + 1e-9)
    }

    @Test func labelsOfAnAxisInsideThePlotAreDrawnOnABackgroundAboveTheSeries() throws {
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        func texts(_ axisExtra: String) throws -> (background: Int, overlay: Int, boxes: Int) {
            let s = try session(#"{"xAxes":[{"id":"x","isCenterAxis":true"# + axisExtra + #"}],"yAxes":[{"id":"y"}],"legend":{"show":false},"#
                + #""series":[{"id":"l","data":{"x":[0,10],"y":[-5,5]}}]}"#)
            let count = { (id: LayerID) in self.layer(s, id, size).filter { if case .text = $0 { true } else { false } }.count }
            let boxes = layer(s, .overlay, size).filter { if case .rect = $0 { true } else { false } }.count
            return (count(.background), count(.overlay), boxes)
        }
        let on = try texts("")
        #expect(on.overlay > 0 && on.boxes == on.overlay)
        let off = try texts(#","labelBackground":false"#)
        #expect(off.overlay == 0 && off.background == on.background + on.overlay)
    }

    @Test func aFollowingAxisThatStopsFollowingSaysSoAndHowToResume() throws {
        let chart = Fixtures.followChart()
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        func cue() -> [String] {
            renderer.render(chart, size: Size(width: 600, height: 400), dpr: 1).layers[.overlay]!.compactMap {
                if case let .text(_, _, t, _, _, _, _, _) = $0, t.hasPrefix("Paused") { t } else { nil }
            }
        }
        #expect(cue().isEmpty)                                   // following: no cue
        chart.setUserRange("x", DoubleRange(2, 5))
        #expect(cue() == ["Paused \u{00B7} double-click to follow"])
        chart.modifiers = chart.modifiers.filter { !($0 is ZoomExtentsModifier) }
        #expect(cue() == ["Paused"])                            // nothing resumes it on a double-click
        chart.resetUserRanges()
        #expect(cue().isEmpty)
    }

    @Test func aTitleLongerThanItsAxisIsLeftOut() throws {
        let spec = #"{"xAxes":[{"id":"x"}],"yAxes":[{"id":"y","title":"A rather long title for a small chart"}],"#
            + #""series":[{"id":"s","data":{"x":[0,1],"y":[0,1]}}]}"#
        let s = try session(spec)
        #expect(s.layout(size: ViewerSize(width: 800, height: 500, dpr: 1)).axis("y")?.title != nil)
        let small = s.layout(size: ViewerSize(width: 480, height: 160, dpr: 1))
        #expect(small.axis("y")?.title == nil)
        #expect(small.invariantViolations() == [])
    }

    @Test func aBubbleReachingUnderTheLegendCountsAsCovered() throws {
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        // One big bubble just below and left of the top-right corner: its centre is outside
        // a top-right box, its disc is not.
        let s = try session(#"{"legend":{"position":"topRight"},"xAxes":[{"id":"x","range":[0,10]}],"#
            + #""yAxes":[{"id":"y","range":[0,10]}],"series":[{"id":"b","name":"Bubbles","type":"bubble","#
            + #""data":{"x":[9,1],"y":[8.5,1],"size":[10,1]}}]}"#)
        let box = try #require(legendBox(s, size))
        let plot = s.layout(size: size).plotRect
        #expect(box.maxX < plot.midX)                        // it went to a free corner on the left
    }

    /// A chart on fixed axes (0 to 100 both ways) whose series `wall` has the value `v`
    /// at x = `at` (index `at`): the live point that moves.
    static func moving(_ legend: String, wall: [Double], extra: String = "") -> String {
        let xs = (0..<wall.count).map { String($0) }.joined(separator: ",")
        let ys = wall.map { String($0) }.joined(separator: ",")
        return #"{"legend":"# + legend + #","xAxes":[{"id":"x","mode":"fixed","range":[0,100]}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[0,100]}],"series":[{"id":"wall","name":"Wall","#
            + #""data":{"x":["# + xs + #"],"y":["# + ys + "]}}" + extra + "]}"
    }

    /// The value between `lo` and `hi` where `flips` turns true (it is false at `lo`,
    /// true at `hi`), to a thousandth.
    static func threshold(_ lo0: Double, _ hi0: Double, _ flips: (Double) throws -> Bool) rethrows -> Double {
        var lo = lo0, hi = hi0
        while hi - lo > 0.001 { let m = (lo + hi) / 2; if try flips(m) { hi = m } else { lo = m } }
        return hi
    }

    /// Low everywhere; the point at x = 3 rises towards the top-left corner.
    static func cornerWall(_ v: Double) -> [Double] { (0...100).map { $0 == 3 ? v : 10 } }

    /// Whether the legend stands in the left half of the plot at 480x320.
    func legendOnLeft(_ s: Session) throws -> Bool {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        let box = try #require(legendBox(s, size))
        return box.midX < s.layout(size: size).plotRect.midX
    }

    /// Issue 31: a live point moving a pixel either way across the edge of the legend's
    /// place moved the legend at every frame. Now it moves once and stays where it went
    /// while that place is clear (the place last shown is the chart's state, kept per size).
    @Test func aLiveLegendDoesNotJumpBetweenPlacesAsItsDataJitters() throws {
        let wall = Self.cornerWall, onLeft = legendOnLeft
        // Where a fresh chart (nothing shown yet) starts leaving the corner.
        let v = try Self.threshold(10, 100) { try !onLeft(try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall($0)))) }
        #expect(v > 20 && v < 99)
        let s = try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall(v - 0.5)))
        var sides: [Bool] = []
        for frame in 0..<12 {
            try s.submit(.update(series: "wall", index: 3, values: [[frame % 2 == 0 ? v + 0.5 : v - 0.5]]))
            sides.append(try onLeft(s))
        }
        // It went right at the first frame that covered the corner, and stayed.
        #expect(sides == Array(repeating: false, count: 12))
        // Data under the right-hand place moves it again (back to the clear left corner).
        try s.submit(.update(series: "wall", index: 3, values: [[10]]))
        try s.submit(.update(series: "wall", index: 97, values: [[99]]))
        #expect(try onLeft(s))
    }

    /// Issue 31: where the legend was (its hysteresis) is part of a snapshot. A session
    /// restored from one, after a restart or on a cluster node that loads it later,
    /// places the legend where the session that took it did; a fresh one, at the same
    /// data, would place it afresh (on the other side).
    @Test func aRestoredSessionPlacesTheLegendWhereTheSnapshotsSessionDid() throws {
        let wall = Self.cornerWall, onLeft = legendOnLeft
        let v = try Self.threshold(10, 100) { try !onLeft(try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall($0)))) }
        let s = try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall(v - 0.5)))
        try s.submit(.update(series: "wall", index: 3, values: [[v + 0.5]]))
        #expect(try !onLeft(s))                              // moved right
        try s.submit(.update(series: "wall", index: 3, values: [[v - 0.5]]))
        #expect(try !onLeft(s))                              // and stays there
        let snap = try #require(s.snapshot())
        #expect(snap.legends.map(\.size) == [Size(width: 480, height: 320)])
        // The state as a store writes it and reads it back keeps the places.
        let bytes = SessionCodec.encodeState(snap)
        let read = try SessionCodec.decodeState(bytes)
        #expect(read.legends == snap.legends)
        // A session made from the spec with the snapshot taken in: on the right, as the first.
        let restored = try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall(0)))
        var withPoints = read
        withPoints.series = snap.series
        restored.restore(withPoints)
        #expect(try !onLeft(restored))
        // Without the places (a snapshot written before they were kept reads so), afresh: left.
        let fresh = try session(Self.moving(#"{"position":"topLeft"}"#, wall: wall(0)))
        var without = withPoints
        without.legends = []
        fresh.restore(without)
        #expect(try onLeft(fresh))
        // Such bytes read back with no places, and the frames of both sessions go on alike.
        var old = snap
        old.legends = []
        #expect(try SessionCodec.decodeState(SessionCodec.encodeState(old)).legends.isEmpty)
        #expect(SessionCodec.encodeState(old).count < bytes.count)
        try s.submit(.update(series: "wall", index: 97, values: [[99]]))
        try restored.submit(.update(series: "wall", index: 97, values: [[99]]))
        #expect(try onLeft(s) == onLeft(restored))
    }

    /// The same for a legend that goes outside the plot when no place inside is clear:
    /// it came back in, and the plot widened, at every other frame.
    @Test func aLiveLegendDoesNotJumpInAndOutOfThePlotAsItsDataJitters() throws {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        // A zigzag over x 0 to 70 covers the left and middle places; right of it a line at
        // 50 (the middle right) and one at 10 (the bottom right): the top right is the one
        // clear place, until the point at x = 90 rises into it.
        func wall(_ v: Double) -> [Double] { (0...100).map { $0 == 90 ? v : $0 <= 70 ? ($0 % 2 == 0 ? 0 : 100) : 50 } }
        let floor = #",{"id":"floor","name":"Floor","data":{"x":[70,80,90,100],"y":[10,10,10,10]}}"#
        func outside(_ s: Session) -> Bool {
            _ = s.displayList(size: size)
            return s.layout(size: size).legendArea != nil
        }
        let v = try Self.threshold(50, 100) { outside(try session(Self.moving("{}", wall: wall($0), extra: floor))) }
        #expect(v > 55 && v < 99)
        let s = try session(Self.moving("{}", wall: wall(v - 0.5), extra: floor))
        #expect(!outside(s))
        var out: [Bool] = [], widths: Set<Double> = []
        for frame in 0..<12 {
            try s.submit(.update(series: "wall", index: 90, values: [[frame % 2 == 0 ? v + 0.5 : v - 0.5]]))
            out.append(outside(s))
            widths.insert(s.layout(size: size).plotRect.width)
        }
        #expect(out == Array(repeating: true, count: 12))
        #expect(widths.count == 1)
        // Clear of the corner by more than the return clearance, it comes back in.
        try s.submit(.update(series: "wall", index: 90, values: [[50]]))
        #expect(!outside(s))
    }

    /// Issue 31: the demo's y axis ran -5 to 1.5 for data between -3.3 and 1. A dip had
    /// widened the range, and after it scrolled out the range was kept, all its slack
    /// below the data (at most 1.3 times the data's span, wherever it lay). Now each
    /// side may keep 15 % of the span free at most: the range lets go of the dip.
    @Test func aLiveAutoRangeLetsGoOfADipThatHasScrolledOut() throws {
        let s = try session(#"{"xAxes":[{"id":"t","mode":"follow","window":20}],"#
            + #""yAxes":[{"id":"v","mode":"visible","growBy":[0.1,0.1]}],"#
            + #""series":[{"id":"w","name":"W","data":{"x":[],"y":[]}}]}"#)
        // 60 s at 10 points a second between -3.3 and 1, but for a dip to -4 at 5 s.
        for second in 0..<60 {
            let xs = (0..<10).map { Double(second) + Double($0) / 10 }
            let ys = xs.map { x in x >= 5 && x < 6 ? -4.0 : -1.15 + 2.15 * sin(x) }
            try s.submit(.append(series: "w", xs: xs, values: [ys]))
            s.publish(now: Double(second + 1))
        }
        let r = try #require(s.chart.resolvedRanges()["v"])
        // The data of the last 20 s, padded by growBy: about -3.73 to 1.43 (span 5.16).
        #expect(r.min <= -3.3 && r.max >= 1)
        #expect(r.min > -3.73 - 0.15 * 5.16 - 0.01 && r.max < 1.43 + 0.15 * 5.16 + 0.01, "\(r)")
        #expect(r.min > -4.0)                                // not -5 as the dip left it
    }
}

/// Issue 31: an axis with one label cannot be read (no scale, no direction). Every
/// visible value (Y) axis of every hosted chart (the demo's sessions, after a minute
/// of their generators, and the gallery) shows at least two labels at the contact
/// sheet's sizes and dashboard cells', where the axis is four label lines long
/// (a stacked pane of 30 px at 480x200, or 9 to 91 on 46 px, may not fit two: it keeps
/// one rather than two on each other).
@Suite struct AxisLabelCountTests {
    static let sizes = [ViewerSize(width: 1280, height: 760, dpr: 1), ViewerSize(width: 800, height: 500, dpr: 1),
                        ViewerSize(width: 480, height: 320, dpr: 1), ViewerSize(width: 480, height: 200, dpr: 1),
                        // The cells of /d/ops in a page 480 and 800 px wide (measured in Chromium).
                        ViewerSize(width: 215, height: 198, dpr: 1), ViewerSize(width: 375, height: 198, dpr: 1),
                        ViewerSize(width: 443, height: 198, dpr: 1)]

    static func hosted() throws -> [Session] {
        _ = TestFonts.measurer   // (registers the families the gallery's fonts session names)
        let specs = try ConfigSpec.decode(foundationJSON(DemoSpec.json)) + ConfigSpec.decode(foundationJSON(GallerySpec.json))
        return specs.map { spec in
            let s = spec.makeSession(measurer: TestFonts.measurer)
            if s.chart.hasGenerators { s.advance(to: 0, unixTime: 1_795_392_000); s.advance(to: 60, unixTime: 1_795_392_060) }
            return s
        }
    }

    @Test func everyVisibleValueAxisShowsTwoLabels() throws {
        var faults: [String] = [], checked = 0
        for s in try Self.hosted() {
            for size in Self.sizes {
                let layout = s.layout(size: size)
                for axis in layout.axes where !axis.isHidden && s.chart.yAxes.contains(where: { $0.id == axis.id }) {
                    let line = axis.labels.first?.bounds.height ?? 14
                    // (Along the axis' band: the plot's side, or a stacked pane's, padding included.)
                    guard (axis.alignment.isHorizontal ? axis.rect.width : axis.rect.height) >= 4 * line else { continue }
                    checked += 1
                    let texts = Set(axis.labels.map(\.text).filter { !$0.isEmpty })
                    if texts.count < 2 {
                        faults.append("\(s.id) \(Int(size.width))x\(Int(size.height)) axis \(axis.id): \(texts.sorted()) over \(axis.calculator.range), ticks \(axis.ticks.map(\.label)), \(Int(abs(axis.calculator.pixelEnd - axis.calculator.pixelStart))) px of \(Int(axis.rect.height))")
                    }
                }
            }
        }
        #expect(checked > 150, "\(checked)")
        #expect(faults.isEmpty, Comment(rawValue: "\(faults.count):\n" + faults.joined(separator: "\n")))
    }

    /// Log and time axes, X or Y, get the same fallback as numeric ones: two labels
    /// wherever the axis is four of its labels long (its widest label across the page,
    /// a line along a side). Before the fallback reached them, gallery-log's and
    /// gallery-time's axes showed one label in dashboard cells.
    @Test func everyLogAndTimeAxisShowsTwoLabels() throws {
        var faults: [String] = [], checked = 0
        for s in try Self.hosted() {
            for size in Self.sizes {
                let layout = s.layout(size: size)
                for axis in layout.axes where !axis.isHidden {
                    guard let config = s.chart.axes.first(where: { $0.id == axis.id })?.config,
                          config.type == .logarithmic || config.type == .time else { continue }
                    let texts = Set(axis.labels.map(\.text).filter { !$0.isEmpty })
                    let extent = axis.labels.map { axis.alignment.isHorizontal ? $0.bounds.width : $0.bounds.height }.max() ?? 14
                    guard (axis.alignment.isHorizontal ? axis.rect.width : axis.rect.height) >= 4 * extent else { continue }
                    checked += 1
                    if texts.count < 2 {
                        faults.append("\(s.id) \(Int(size.width))x\(Int(size.height)) axis \(axis.id): \(texts.sorted()) over \(axis.calculator.range), \(Int(abs(axis.calculator.pixelEnd - axis.calculator.pixelStart))) px")
                    }
                }
            }
        }
        #expect(checked > 40, "\(checked)")
        #expect(faults.isEmpty, Comment(rawValue: "\(faults.count):\n" + faults.joined(separator: "\n")))
    }
}

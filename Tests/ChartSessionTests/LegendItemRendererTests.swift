import Foundation
import Synchronization
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Issue 29: a legend item renderer (ShinobiCharts' `SChartLegendItem`) written in
/// Swift: it changes an entry's text, colour, style and symbol size, and draws its
/// symbol; the legend is measured with what it returns.
@Suite struct LegendItemRendererTests {
    init() { _ = TestFonts.measurer }

    static let size = ViewerSize(width: 600, height: 400, dpr: 1)

    func session(_ series: String = #"{"id":"a","name":"Alpha","data":{"x":[0,10],"y":[0,1]}},{"id":"b","name":"Beta","data":{"x":[0,10],"y":[0,1]}}"#) throws -> Session {
        let chart = #"{"legend":{"position":"topRight","placement":"insidePlotArea"},"xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[-10,-5]}],"series":["# + series + "]}"
        return try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"l","chart":"# + chart + "}]}"))[0]
            .makeSession(measurer: TestFonts.measurer)
    }

    func overlay(_ s: Session) -> [DrawCommand] {
        s.displayList(size: Self.size).layers.first { $0.id == .overlay }?.commands ?? []
    }

    /// The legend's box: the overlay's first outlined rectangle.
    func legendBox(_ commands: [DrawCommand]) -> Rect? {
        for c in commands {
            if case let .rect(x, y, w, h, _, stroke, _) = c, stroke != nil {
                return Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h))
            }
        }
        return nil
    }

    func texts(_ commands: [DrawCommand]) -> [(text: String, x: Float, y: Float, fill: String, font: String)] {
        commands.compactMap { if case let .text(x, y, text, font, fill, _, _, _) = $0 { return (text, x, y, fill, font) } else { return nil } }
    }

    func clips(_ commands: [DrawCommand]) -> [Rect] {
        commands.compactMap { if case let .clip(x, y, w, h) = $0 { return Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h)) } else { return nil } }
    }

    /// A diamond in each entry's symbol box, in the series' colour, and a line across
    /// it reaching far outside (the clip keeps it in).
    static let diamonds = LegendItemRenderer("diamonds") { item, box in
        [.polygon(points: [Float(box.midX), Float(box.minY), Float(box.maxX), Float(box.midY),
                           Float(box.midX), Float(box.maxY), Float(box.minX), Float(box.midY)], fill: item.color, gradient: nil),
         .unclip,
         .polyline(points: [Float(box.minX - 500), Float(box.midY), Float(box.maxX + 500), Float(box.midY)], stroke: "#000000", width: 1, dash: [])]
    }

    /// A render measures the legend several times (its band, whether it fits in the plot,
    /// its rows) and draws it once: the `item` closure runs once per entry a version,
    /// and again for the next version (what it returns may have changed).
    @Test func theItemClosureRunsOncePerEntryForAVersion() throws {
        let s = try session()
        let calls = Mutex(0)
        s.chart.setLegendItemRenderer(LegendItemRenderer("counted", item: { item in
            calls.withLock { $0 += 1 }
            item.text += "!"
        }))
        #expect(texts(overlay(s)).map(\.text).filter { $0.hasSuffix("!") } == ["Alpha!", "Beta!"])
        #expect(calls.withLock { $0 } == 2)
        try s.submit(.append(series: "a", xs: [11], values: [[0.5]]))
        _ = overlay(s)
        #expect(calls.withLock { $0 } == 4)
    }

    @Test func aRendererDrawsEachSymbolInsideItsEntrysBoxInPlaceOfTheSwatch() throws {
        let s = try session()
        let plain = overlay(s)
        // Without a renderer: a line series' swatch is a polyline, and nothing is clipped.
        #expect(plain.contains { if case .polyline = $0 { true } else { false } })
        #expect(clips(plain).isEmpty)

        s.chart.setLegendItemRenderer(Self.diamonds)
        let drawn = overlay(s)
        let legend = try #require(legendBox(drawn))
        let boxes = clips(drawn)
        #expect(boxes.count == 2)
        let labels = texts(drawn).filter { $0.text == "Alpha" || $0.text == "Beta" }
        #expect(labels.count == 2)
        for (box, label) in zip(boxes, labels) {
            // The box: the swatch's 18 px, inside the legend, before its entry's text,
            // level with it.
            #expect(box.width == 18)
            #expect(box.minX >= legend.minX && box.maxX <= legend.maxX && box.minY >= legend.minY && box.maxY <= legend.maxY)
            #expect(Double(label.x) >= box.maxX)
            #expect(Double(label.y) > box.minY && Double(label.y) <= box.maxY)
        }
        // Each box: clip, the renderer's diamond (its own unclip dropped), its line, unclip.
        let first = try #require(drawn.firstIndex { if case .clip = $0 { true } else { false } })
        guard case let .polygon(points, fill, _) = drawn[first + 1] else { Issue.record("no diamond after the clip"); return }
        #expect(fill == s.chart.series[0].color)
        for k in stride(from: 0, to: points.count, by: 2) {
            #expect(Double(points[k]) >= boxes[0].minX && Double(points[k]) <= boxes[0].maxX)
            #expect(Double(points[k + 1]) >= boxes[0].minY && Double(points[k + 1]) <= boxes[0].maxY)
        }
        guard case .polyline = drawn[first + 2], case .unclip = drawn[first + 3] else { Issue.record("the line is not clipped to the box"); return }
        // The default swatch lines are gone; the legend's box is unchanged.
        let lines = drawn.compactMap { if case let .polyline(_, stroke, _, _) = $0 { return stroke } else { return nil } }
        #expect(lines == ["#000000", "#000000"])
        #expect(legendBox(plain) == legend)

        // Removed, the legend is drawn as before.
        s.chart.setLegendItemRenderer(nil)
        #expect(overlay(s) == plain)
    }

    @Test func aLongerTextWidensTheLegendAndTakesItsColourAndStyle() throws {
        let s = try session()
        let plain = try #require(legendBox(overlay(s)))
        let version = s.chart.version
        s.chart.setLegendItemRenderer(LegendItemRenderer("long", item: { item in
            if item.seriesId == "b" {
                item.text = "Beta, the second series by far"
                item.textColor = "#d62728"
                item.textStyle.bold = true
            }
        }))
        #expect(s.chart.version > version)   // a change viewers are sent
        let drawn = overlay(s)
        let box = try #require(legendBox(drawn))
        let long = try #require(texts(drawn).first { $0.text == "Beta, the second series by far" })
        let alpha = try #require(texts(drawn).first { $0.text == "Alpha" })
        #expect(long.fill == "#d62728" && long.font.contains("bold"))
        #expect(alpha.fill == s.chart.theme.legendText && !alpha.font.contains("bold"))
        // Wider by the text's width, measured bold; the right edge stays (topRight).
        let style = TextStyle(size: 12, bold: true)
        let w = TestFonts.measurer.width(of: "Beta, the second series by far", style: style)
        #expect(box.width == (6 * 2 + 18 + 6 + w).rounded(.up))
        #expect(box.width > plain.width + 100)
        #expect(box.maxX == plain.maxX)
        #expect(Double(long.x) + w <= box.maxX - 6 + 1e-6)
        // The default swatches stay (no symbol function).
        #expect(drawn.filter { if case .polyline = $0 { true } else { false } }.count == 2)
        #expect(clips(drawn).isEmpty)
    }

    @Test func aLargerSymbolMakesRoomWithoutOverlap() throws {
        let s = try session()
        let plain = try #require(legendBox(overlay(s)))
        s.chart.setLegendItemRenderer(LegendItemRenderer("big", item: { item in item.symbolSize = Size(width: 40, height: 30) },
                                                        symbol: { item, box in [.rect(x: Float(box.minX), y: Float(box.minY), w: Float(box.width), h: Float(box.height),
                                                                                      fill: item.color, stroke: nil, lineWidth: 0)] }))
        let drawn = overlay(s)
        let box = try #require(legendBox(drawn))
        let boxes = clips(drawn)
        #expect(boxes.map(\.width) == [40, 40] && boxes.map(\.height) == [30, 30])
        // Rows 30 px tall, 4 px apart, inside 6 px of padding; 22 px wider.
        #expect(box.height == 6 * 2 + 30 * 2 + 4)
        #expect(box.width == plain.width + 22)
        #expect(!boxes[0].intersects(boxes[1]))
        let labels = texts(drawn).filter { $0.text == "Alpha" || $0.text == "Beta" }
        for (b, label) in zip(boxes, labels) {
            #expect(Double(label.x) >= b.maxX)
            #expect(b.minY >= box.minY && b.maxY <= box.maxY)
        }
        // Taps find the taller rows.
        let hits = s.renderer.legendHitBoxes(s.chart, layout: s.layout(size: Self.size))
        #expect(hits.count == 2)
        #expect(hits.allSatisfy { $0.rect.height == 34 })
        #expect(hits[0].rect.contains(Point(x: boxes[0].midX, y: boxes[0].maxY - 1)))
        #expect(hits[1].rect.contains(Point(x: boxes[1].midX, y: boxes[1].minY + 1)))
    }

    @Test func aPiesSlicesAreItemsAndAnEmptySymbolDrawsNone() throws {
        let s = try session(#"{"id":"p","type":"pie","name":"Share","sliceNames":["A","B","C"],"data":{"y":[1,2,3]}}"#)
        let plain = overlay(s)
        // By default each slice has a square swatch.
        let squares = plain.filter { if case let .rect(_, _, w, h, _, stroke, _) = $0 { return w == 10 && h == 10 && stroke == nil } else { return false } }
        #expect(squares.count == 3)
        s.chart.setLegendItemRenderer(LegendItemRenderer("slices", item: { item in
            item.text = "slice \(item.sliceIndex ?? -1) of \(item.seriesId)"
        }, symbol: { _, _ in [] }))
        let drawn = overlay(s)
        #expect(texts(drawn).filter { $0.text.hasPrefix("slice ") }.map(\.text) == ["slice 0 of p", "slice 1 of p", "slice 2 of p"])
        // An empty symbol draws nothing: no clip, no square.
        #expect(clips(drawn).isEmpty)
        #expect(!drawn.contains { if case let .rect(_, _, w, h, _, stroke, _) = $0 { return w == 10 && h == 10 && stroke == nil } else { return false } })
    }

    @Test func anOddSizeIsKeptSane() {
        let item = LegendItem(seriesId: "a", sliceIndex: nil, kind: .line, color: "#000000", fill: nil, isHidden: false, text: "a",
                              textColor: nil, textStyle: TextStyle(size: 12), symbolSize: Size(width: 18, height: 14))
        let odd = LegendItemRenderer("odd", item: { item in
            item.symbolSize = Size(width: .nan, height: 1e9)
            item.textStyle.size = -3
        }).altered(item)
        #expect(odd.symbolSize == Size(width: 18, height: 200))
        #expect(odd.textStyle.size == 12)
        let huge = LegendItemRenderer("huge", item: { $0.textStyle.size = 1e6; $0.symbolSize.width = -1 }).altered(item)
        #expect(huge.textStyle.size == 200 && huge.symbolSize.width == 18)
    }

    @Test func aChangedSpecKeepsTheRenderer() throws {
        let s = try session()
        s.chart.setLegendItemRenderer(Self.diamonds)
        let changed = try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"l","chart":{"legend":{"position":"topLeft","placement":"insidePlotArea"},"xAxes":[{"id":"x","mode":"fixed","range":[0,10]}],"yAxes":[{"id":"y","mode":"fixed","range":[-10,-5]}],"series":[{"id":"a","name":"Alpha","data":{"x":[0,10],"y":[0,1]}}]}}]}"#))[0]
            .makeSession(measurer: TestFonts.measurer)
        s.chart.adopt(changed.chart, keepModifiers: true)
        #expect(s.chart.legend?.position == .topLeft)
        #expect(s.chart.legend?.itemRenderer?.name == "diamonds")
        #expect(clips(overlay(s)).count == 1)
    }
}

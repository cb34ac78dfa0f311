import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Issue 29: an annotation whose content Swift code draws (`CustomAnnotation`), placed
/// at data or relative coordinates, drawn again as the view changes, clipped.
@Suite struct CustomAnnotationTests {
    init() { _ = TestFonts.measurer }

    static let size = ViewerSize(width: 600, height: 400, dpr: 1)

    func session(_ annotations: [CustomAnnotation]) -> Session {
        let x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        chart.customAnnotations = annotations
        return Session(id: "c", title: "c", chart: chart, measurer: TestFonts.measurer)
    }

    func series(_ s: Session) -> [DrawCommand] {
        s.displayList(size: Self.size).layers.first { $0.id == .series }?.commands ?? []
    }

    func rect(_ c: DrawCommand) -> Rect? {
        switch c {
        case let .clip(x, y, w, h): return Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h))
        case let .rect(x, y, w, h, _, _, _): return Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h))
        default: return nil
        }
    }

    func close(_ a: Rect?, _ b: Rect, _ tol: Double = 1e-3) -> Bool {
        guard let a else { return false }
        return abs(a.minX - b.minX) < tol && abs(a.minY - b.minY) < tol && abs(a.width - b.width) < tol && abs(a.height - b.height) < tol
    }

    /// A box filled yellow between (4, 0.5) and (6, 0.75), with a line from its centre
    /// 1000 px to the right (the clip keeps it in the box).
    static let band = CustomAnnotation("band", x: .data(4), y: .data(0.5), x2: .data(6), y2: .data(0.75)) { ctx in
        let b = ctx.box
        return [.rect(x: Float(b.minX), y: Float(b.minY), w: Float(b.width), h: Float(b.height), fill: "#ffee00", stroke: nil, lineWidth: 0),
                .unclip,
                .polyline(points: [Float(b.midX), Float(b.midY), Float(b.midX + 1000), Float(b.midY)], stroke: "#000000", width: 1, dash: [])]
    }

    @Test func itsContentIsDrawnInItsBoxAndMovesWithAPan() throws {
        let s = session([Self.band])
        let layout = s.layout(size: Self.size)
        let xc = try #require(layout.axis("x")).calculator, yc = try #require(layout.axis("y")).calculator
        let expected = Rect(x: xc.pixel(4), y: yc.pixel(0.75), width: xc.pixel(6) - xc.pixel(4), height: yc.pixel(0.5) - yc.pixel(0.75))
        let drawn = series(s)
        let at = try #require(drawn.firstIndex { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { true } else { false } })
        #expect(close(rect(drawn[at]), expected))
        // Clip to the box before it (the chart clips its series: the box within the
        // plot), its own unclip dropped, then the plot's clip again.
        #expect(close(rect(drawn[at - 1]), expected))
        guard case .polyline = drawn[at + 1] else { Issue.record("the line is not inside the clip"); return }
        #expect(close(rect(drawn[at + 2]), layout.plotRect))
        #expect(!drawn.contains(.unclip) || drawn.last == .unclip)

        // Panned by 2: drawn again, 2 units to the left.
        s.chart.setUserRange("x", DoubleRange(2, 12))
        let panned = series(s)
        let moved = try #require(panned.first { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { true } else { false } })
        let shift = xc.pixel(4) - xc.pixel(2)
        #expect(close(rect(moved), Rect(x: expected.minX - shift, y: expected.minY, width: expected.width, height: expected.height)))
    }

    @Test func aBoxPastThePlotIsClippedToIt() throws {
        // From x 8 to 14 on a 0 ... 10 axis: its right part is outside the plot.
        let wide = CustomAnnotation("past", x: .data(8), y: .data(0.2), x2: .data(14), y2: .data(0.4)) { ctx in
            [.rect(x: Float(ctx.box.minX), y: Float(ctx.box.minY), w: Float(ctx.box.width), h: Float(ctx.box.height), fill: "#00ff00", stroke: nil, lineWidth: 0)]
        }
        var whole = wide
        whole.clip = .plot
        for (a, toPlot) in [(wide, false), (whole, true)] {
            let s = session([a])
            let plot = s.layout(size: Self.size).plotRect
            let drawn = series(s)
            let at = try #require(drawn.firstIndex { if case .rect(_, _, _, _, "#00ff00", _, _) = $0 { true } else { false } })
            let content = try #require(rect(drawn[at])), clip = try #require(rect(drawn[at - 1]))
            #expect(content.maxX > plot.maxX + 50)     // drawn as given ...
            #expect(abs(clip.maxX - plot.maxX) < 1e-3) // ... clipped at the plot's right edge
            if toPlot { #expect(close(clip, plot)) } else { #expect(abs(clip.minX - content.minX) < 1e-3 && clip.height < plot.height / 2) }
        }
        // Wholly outside the plot: nothing is drawn.
        let gone = CustomAnnotation("gone", x: .data(20), y: .data(0.2), x2: .data(24), y2: .data(0.4)) { _ in
            [.rect(x: 0, y: 0, w: 1, h: 1, fill: "#00ff00", stroke: nil, lineWidth: 0)]
        }
        #expect(!series(session([gone])).contains { if case .rect(_, _, _, _, "#00ff00", _, _) = $0 { true } else { false } })
    }

    @Test func relativeCoordinatesStayPutAndTheContextMapsValues() throws {
        let seen = Box()
        let fixed = CustomAnnotation("corner", x: .relative(1), y: .relative(1), width: 60, height: 30) { ctx in
            seen.box = ctx.box
            seen.mapped = ctx.point(x: 5, y: 0.5)
            seen.back = ctx.value(at: Point(x: ctx.plot.midX, y: ctx.plot.midY))
            return [.rect(x: Float(ctx.box.minX), y: Float(ctx.box.minY), w: 60, h: 30, fill: "#123456", stroke: nil, lineWidth: 0)]
        }
        let s = session([fixed])
        let plot = s.layout(size: Self.size).plotRect
        _ = series(s)
        // Centred on the plot's top-right corner (the axes' high ends).
        #expect(close(seen.box, Rect(x: plot.maxX - 30, y: plot.minY - 15, width: 60, height: 30)))
        #expect(abs((seen.mapped?.x ?? 0) - plot.midX) < 1e-6 && abs((seen.mapped?.y ?? 0) - plot.midY) < 1e-6)
        #expect(abs((seen.back?.x ?? 0) - 5) < 1e-9 && abs((seen.back?.y ?? 0) - 0.5) < 1e-9)
        let before = seen.box
        s.chart.setUserRange("x", DoubleRange(2, 12))
        _ = series(s)
        #expect(seen.box == before)
        #expect(abs((seen.mapped?.x ?? 0) - (plot.minX + plot.width * 0.3)) < 1e-6)
        // A layer of its own: below, it comes before the series' other content too.
        var below = fixed
        below.layer = .below
        #expect(series(session([below])).contains { if case .rect(_, _, _, _, "#123456", _, _) = $0 { true } else { false } })
        // Removed: gone, and the frame is a change.
        let version = s.chart.version
        s.chart.customAnnotations = []
        #expect(s.chart.version > version)
        #expect(!series(s).contains { if case .rect(_, _, _, _, "#123456", _, _) = $0 { true } else { false } })
    }

    @Test func aChangedSpecAndAViewerOwnViewKeepThem() throws {
        let s = session([Self.band])
        let other = session([])
        s.chart.adopt(other.chart, keepModifiers: true)
        #expect(s.chart.customAnnotations.map(\.name) == ["band"])
        #expect(series(s).contains { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { true } else { false } })
        #expect(s.chart.makeView(modifiers: []).customAnnotations.map(\.name) == ["band"])
    }

    final class Box: @unchecked Sendable {
        var box: Rect?
        var mapped: Point?
        var back: (x: Double, y: Double)?
    }
}

import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Pie and donut series: radial charts without axes, one wedge per slice.
@Suite struct PieTests {
    static let size = ViewerSize(width: 600, height: 400, dpr: 1)

    func session(_ series: String, legend: String = #"{"position":"topLeft"}"#) throws -> Session {
        let spec = #"{"sessions":[{"id":"p","chart":{"legend":"# + legend + #","series":["# + series + #"]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    func layer(_ s: Session, _ id: LayerID) -> [DrawCommand] {
        s.displayList(size: Self.size).layers.first { $0.id == id }!.commands
    }

    @Test func slicesShareTheCircleFromTheRotation() throws {
        let s = try session(#"{"id":"p","type":"pie","rotation":90,"selectedSlices":[2],"protrusion":12,"data":{"y":[1,0,2,null,1]}}"#)
        #expect(s.layout(size: Self.size).axes.isEmpty)
        let wedges = layer(s, .series).compactMap { if case let .wedges(w) = $0 { w } else { nil } }
        let w = try #require(wedges.first)
        // Zero and null values draw no slice; the others share 2π in proportion, from 90°.
        #expect(w.wedges.count == 3)
        let spans = w.wedges.map { Double($0.a1 - $0.a0) }
        #expect(abs(spans[0] - .pi / 2) < 1e-5 && abs(spans[1] - .pi) < 1e-5 && abs(spans[2] - .pi / 2) < 1e-5)
        #expect(abs(Double(w.wedges[0].a0) - .pi / 2) < 1e-6)
        #expect(abs(Double(w.wedges[2].a1) - (.pi / 2 + 2 * .pi)) < 1e-5)
        // Point 2 (the second slice drawn) is selected: pushed out by the protrusion.
        #expect(w.wedges.map(\.offset) == [0, 12, 0])
        #expect(w.r0 == 0)
        // Each slice is listed in the legend, in its colour.
        let legendNames = layer(s, .overlay).compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { t } else { nil } }
        #expect(legendNames == ["Slice 1", "Slice 3", "Slice 5"])
    }

    @Test func donutLabelsOnlyWhereTheyFit() throws {
        // One wide slice and 50 slivers: only the wide one is labelled.
        let values = ([100.0] + Array(repeating: 0.1, count: 50)).map { String($0) }.joined(separator: ",")
        let s = try session(#"{"id":"d","type":"donut","sliceLabels":"percent","data":{"y":["# + values + #"]}}"#,
                            legend: #"{"show":false}"#)
        let commands = layer(s, .series)
        let w = try #require(commands.compactMap { if case let .wedges(w) = $0 { w } else { nil } }.first)
        #expect(w.wedges.count == 51 && w.r0 == (w.r1 * 0.5).rounded(.down))
        let labels = commands.compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { t } else { nil } }
        #expect(labels == ["95.2%"])
    }

    @Test func badPies() throws {
        #expect(throws: JSONReadError.self) { try session(#"{"id":"p","type":"pie","data":{"y":[1,-2]}}"#) }
        #expect(throws: JSONReadError.self) { try session(#"{"id":"p","type":"pie","innerRadius":0.3,"data":{"y":[1]}}"#) }
        #expect(throws: JSONReadError.self) { try session(#"{"id":"p","type":"pie","data":{"y":[1]}},{"id":"q","data":{"x":[1],"y":[1]}}"#) }
        #expect(throws: JSONReadError.self) { try session(#"{"id":"p","type":"line","rotation":30,"data":{"x":[1],"y":[1]}}"#) }
        var s = Series(id: "p", name: "p", kind: .pie, color: "#000", xAxisId: "x", yAxisId: "y")
        #expect(throws: AppendError.negativeSlice(index: 1, value: -1)) { try s.append(xs: [0, 1], values: [[1, -1]]) }
    }
}

/// Annotations are placed through their axes: panning the axes moves them.
@Suite struct AnnotationTests {
    @Test func annotationsFollowTheirAxes() throws {
        let spec = #"{"sessions":[{"id":"a","chart":{"legend":{"show":false},"xAxes":[{"id":"x","mode":"fixed","range":[0,100]}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[0,10]}],"series":[{"id":"s","data":{"x":[0,100],"y":[1,9]}}],"#
            + ##""annotations":[{"type":"box","x":10,"y":2,"x2":30,"y2":4,"fill":"#eee","layer":"below"},"##
            + #"{"type":"horizontalLine","y":5,"text":"five"},{"type":"text","x":50,"y":8,"text":"note"}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        func placed() throws -> (box: (Float, Float, Float, Float), lineY: Float, belowSeries: Bool) {
            let layout = s.layout(size: size)
            let commands = s.displayList(size: size).layers.first { $0.id == .series }!.commands
            guard let boxAt = commands.firstIndex(where: { if case .rect = $0 { true } else { false } }),
                  case let .rect(x, y, w, h, _, _, _) = commands[boxAt],
                  let seriesAt = commands.firstIndex(where: { if case .columns = $0 { true } else { false } }),
                  case let .segments(coords, _, _, _)? = commands.first(where: { if case .segments = $0 { true } else { false } })
            else { throw AnnotationError() }
            let xc = layout.axis("x")!.calculator, yc = layout.axis("y")!.calculator
            #expect(abs(Double(x) - xc.pixel(10)) < 1e-3 && abs(Double(x + w) - xc.pixel(30)) < 1e-3)
            #expect(abs(Double(y) - yc.pixel(4)) < 1e-3 && abs(Double(y + h) - yc.pixel(2)) < 1e-3)
            #expect(abs(Double(coords[1]) - yc.pixel(5)) <= 0.5)
            return ((x, y, w, h), coords[1], boxAt < seriesAt)
        }
        let before = try placed()
        #expect(before.belowSeries)
        s.chart.setUserRange("x", DoubleRange(20, 120))   // pan: the box moves left, the line stays
        let after = try placed()
        #expect(after.box.0 < before.box.0 && after.box.2 == before.box.2 && after.lineY == before.lineY)
    }

    struct AnnotationError: Error {}

    @Test func badAnnotations() {
        func decode(_ a: String) throws {
            _ = try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"annotations":["# + a + #"]}}]}"#))
        }
        #expect(throws: JSONReadError.self) { try decode(#"{"type":"box","x":1,"y":1,"x2":2}"#) }
        #expect(throws: JSONReadError.self) { try decode(#"{"type":"arrow","x":1}"#) }
        #expect(throws: JSONReadError.self) { try decode(#"{"type":"marker","x":1,"y":1,"xAxis":"nope"}"#) }
        #expect(throws: Never.self) { try decode(#"{"type":"verticalLine","x":1,"dash":[2,2]}"#) }
    }
}

/// A selected series is drawn with its selectedStyle: the spec's fields over its own.
@Suite struct SelectedStyleTests {
    @Test func selectedSeriesUseTheirSelectedStyle() throws {
        let spec = ##"{"sessions":[{"id":"a","chart":{"legend":{"show":false},"series":[{"id":"s","color":"#1f77b4","strokeWidth":2,"dash":[4,2],"##
            + ##""selectedStyle":{"color":"#ff7f0e","strokeWidth":4},"data":{"x":[0,1,2],"y":[0,1,0]}}]}}]}"##
        let session = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 400, height: 300, dpr: 1)
        func line() -> ColumnLine? {
            session.displayList(size: size).layers.first { $0.id == .series }!.commands
                .compactMap { if case let .columns(c) = $0 { c } else { nil } }.first
        }
        #expect(line()?.stroke == "#1f77b4" && line()?.width == 2)
        session.chart.setSelected("s", true)
        // Colour and width from selectedStyle, the dash kept from the series' own style.
        #expect(line()?.stroke == "#ff7f0e" && line()?.width == 4 && line()?.dash == [4, 2])
        session.chart.setSelected("s", false)
        #expect(line()?.stroke == "#1f77b4")
        #expect(throws: JSONReadError.self) {
            _ = try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","selectedStyle":{"name":"x"}}]}}]}"#))
        }
    }
}

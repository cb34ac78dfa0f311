import Foundation
import Testing
import TestSupport
@testable import ChartSession
import LayoutEngine

/// A chart's own fonts in the spec: every kind of text names a family the server has
/// (`FontFamilies`, the Liberation families here as `--fonts` loads them), in a face it
/// has, and the display list names it before the chart font.
@Suite struct FontSpecTests {
    init() { _ = TestFonts.measurer }   // registers the Liberation families

    func error(_ chart: String) -> JSONReadError? {
        do { _ = try ConfigSpec.decode(parseJSON(#"{"sessions": [{"id": "f", "chart": \#(chart)}]}"#)); return nil } catch { return error }
    }

    func session(_ chart: String) throws -> Session {
        try ConfigSpec.decode(parseJSON(#"{"sessions": [{"id": "f", "chart": \#(chart)}]}"#))[0].makeSession(measurer: TestFonts.measurer)
    }

    func texts(_ s: Session) -> [(text: String, font: String, fill: String)] {
        s.displayList(size: ViewerSize(width: 600, height: 400, dpr: 1)).layers.flatMap(\.commands).compactMap {
            if case let .text(_, _, text, font, fill, _, _, _) = $0 { return (text, font, fill) } else { return nil }
        }
    }

    @Test func unknownFamiliesAndMissingFacesAreErrorsAtTheField() {
        let base = "$.sessions[0].chart"
        let unknown = error(#"{"xAxes": [{"id": "x", "labelFont": {"family": "Garamond"}}]}"#)
        #expect(unknown?.path == "\(base).xAxes[0].labelFont")
        #expect(unknown?.message == #"no font family "Garamond" on this server: it has "Liberation Mono", "Liberation Sans", "Liberation Sans Narrow", "Liberation Serif""#)
        #expect(error(#"{"fontFamily": "Garamond"}"#)?.path == "\(base).fontFamily")
        #expect(error(#"{"titleFont": {"italic": true}}"#)
                == JSONReadError(path: "\(base).titleFont", message: "the chart font (ChartWire Sans) has no italic: name a family that has one"))
        #expect(error(#"{"legend": {"font": {"weight": "heavy"}}}"#)?.path == "\(base).legend.font.weight")
        #expect(error(#"{"legend": {"font": {"family": ""}}}"#)?.path == "\(base).legend.font.family")
        #expect(error(#"{"yAxes": [{"id": "y", "titleColor": "red;}"}]}"#)?.path == "\(base).yAxes[0].titleColor")
        #expect(error(#"{"annotations": [{"type": "text", "x": 1, "y": 1, "text": "t", "font": {"family": "Arial"}}]}"#)?.path
                == "\(base).annotations[0].font")
        // A family without the face asked for (a one-face family registered here).
        FontFamilies.register("Test Regular Only", faces: [FontFace()])
        let noBold = error(#"{"title": "T", "fontFamily": "Test Regular Only"}"#)
        #expect(noBold?.message == #"font family "Test Regular Only" has no bold face (it has regular)"#)
        #expect(error(#"{"title": "T", "fontFamily": "Test Regular Only", "titleFont": {"weight": "normal"}}"#) == nil)
    }

    @Test func eachKindOfTextIsDrawnInItsFont() throws {
        let s = try session(#"""
            {"title": "Title", "fontFamily": "Liberation Sans", "titleFont": {"family": "Liberation Serif", "italic": true}, "titleSize": 20,
             "xAxes": [{"id": "x", "title": "X title", "labelFont": {"family": "Liberation Mono"}, "titleColor": "#123456",
                        "titleFont": {"weight": "bold"}, "mode": "fixed", "range": [0, 10]}],
             "yAxes": [{"id": "y", "title": "Y title", "mode": "fixed", "range": [0, 1]}],
             "legend": {"font": {"family": "Liberation Sans Narrow", "italic": true}, "padding": 12},
             "annotations": [{"type": "text", "x": 5, "y": 0.5, "text": "Note", "font": {"family": "Liberation Serif", "weight": "bold"}}],
             "series": [{"id": "a", "name": "Alpha", "data": {"x": [0, 10], "y": [0, 1]}}]}
            """#)
        let t = texts(s)
        func font(_ text: String) -> String? { t.first { $0.text == text }?.font }
        #expect(font("Title") == #"italic bold 20px "Liberation Serif", ChartWire Sans"#)
        #expect(font("X title") == #"bold 13px "Liberation Sans", ChartWire Sans"#)
        #expect(t.first { $0.text == "X title" }?.fill == "#123456")
        #expect(font("Y title") == #"13px "Liberation Sans", ChartWire Sans"#)
        #expect(t.first { $0.text == "Y title" }?.fill == Theme().title)
        #expect(font("10") == #"12px "Liberation Mono", ChartWire Sans"#)
        let yLabel = try #require(s.layout(size: ViewerSize(width: 600, height: 400, dpr: 1)).axis("y")?.labels.first?.text)
        #expect(font(yLabel) == #"12px "Liberation Sans", ChartWire Sans"#)
        #expect(font("Alpha") == #"italic 12px "Liberation Sans Narrow", ChartWire Sans"#)
        #expect(font("Note") == #"bold 12px "Liberation Serif", ChartWire Sans"#)
        // Layout measured the labels in their own faces: the widest Y label's room is
        // the family's width, not DejaVu's.
        let layout = s.layout(size: ViewerSize(width: 600, height: 400, dpr: 1))
        let label = try #require(layout.axis("x")?.labels.first { $0.text == "10" })
        let mono = TestFonts.measurer.width(of: "10", style: TextStyle(size: 12, family: "Liberation Mono"))
        #expect(abs(label.bounds.width - mono) < 0.01)
        #expect(abs(mono - TestFonts.measurer.width(of: "10", style: TextStyle(size: 12))) > 0.5)
    }

    @Test func changingTheFamilyRelaysOut() throws {
        let s = try session(#"{"title": "A wide title", "series": [{"id": "a", "data": {"x": [0, 1], "y": [0, 1]}}]}"#)
        let before = try #require(s.layout(size: ViewerSize(width: 600, height: 400, dpr: 1)).title)
        let version = s.chart.version
        s.chart.fontFamily = "Liberation Serif"
        #expect(s.chart.version > version)
        let after = try #require(s.layout(size: ViewerSize(width: 600, height: 400, dpr: 1)).title)
        #expect(before.style.family == nil && after.style.family == "Liberation Serif")
        #expect(abs(before.bounds.width - after.bounds.width) > 1)
    }
}

/// Tick marks styled apart from the axis line, and gridline colour, width and dash.
@Suite struct AxisLineStyleTests {
    func segments(_ chart: String) throws -> [(coords: [Float], stroke: String, width: Float, dash: [Float])] {
        let s = try ConfigSpec.decode(parseJSON(#"{"sessions": [{"id": "f", "chart": \#(chart)}]}"#))[0].makeSession(measurer: TestFonts.measurer)
        return s.displayList(size: ViewerSize(width: 600, height: 400, dpr: 1)).layers.flatMap(\.commands).compactMap {
            if case let .segments(coords, stroke, width, dash) = $0 { return (coords, stroke, width, dash) } else { return nil }
        }
    }

    @Test func ticksApartFromTheLineAndStyledGridlines() throws {
        let plain = try segments(#"{"xAxes": [{"id": "x", "mode": "fixed", "range": [0, 10]}], "yAxes": [{"id": "y", "mode": "fixed", "range": [0, 1]}]}"#)
        let styled = try segments(#"""
            {"xAxes": [{"id": "x", "mode": "fixed", "range": [0, 10], "tickColor": "#ff0000", "tickWidth": 2, "lineColor": "#00ff00",
                        "gridLineColor": "#0000ff", "gridLineWidth": 2, "gridLineDash": [4, 3]}],
             "yAxes": [{"id": "y", "mode": "fixed", "range": [0, 1], "tickWidth": 0}]}
            """#)
        // Unstyled: one command per axis holds its line and ticks; gridlines in the theme's.
        #expect(plain.filter { $0.stroke == Theme().axisLine }.count == 2)
        // X: its gridlines blue, 2 px, dashed; its line green alone (4 coordinates); its ticks red, 2 px.
        let grid = try #require(styled.first { $0.stroke == "#0000ff" })
        #expect(grid.width == 2 && grid.dash == [4, 3])
        let line = try #require(styled.first { $0.stroke == "#00ff00" })
        #expect(line.coords.count == 4 && line.width == 1)
        let ticks = try #require(styled.first { $0.stroke == "#ff0000" })
        #expect(ticks.width == 2 && ticks.coords.count == 4 * 6)   // 0, 2, ..., 10
        // Y: tickWidth 0 draws its line and no ticks.
        let yLine = styled.filter { $0.stroke == Theme().axisLine }
        #expect(yLine.count == 1 && yLine[0].coords.count == 4)
        #expect(throws: JSONReadError.self) {
            try ConfigSpec.decode(parseJSON(#"{"sessions": [{"id": "f", "chart": {"xAxes": [{"id": "x", "gridLineDash": [0, 0]}]}}]}"#))
        }
    }
}

/// ShinobiCharts' `alterTickMark`: a Swift hook restyles one label (colour, font,
/// hidden), and layout measures it in its own style.
@Suite struct TickRestyleTests {
    @Test func theHookRestylesOneLabel() throws {
        _ = TestFonts.measurer
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.tickHook = TickHook("restyle") { mark in
            if mark.value == 4 { mark.labelColor = "#ff0000"; mark.labelStyle = TextStyle(size: 18, bold: true, family: "Liberation Serif") }
            if mark.value == 6 { mark.isLabelHidden = true }
            if mark.value == 8 { mark.labelStyle = TextStyle(size: 12, italic: true, family: "No Such Family") }
        }
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        let session = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
        let size = ViewerSize(width: 600, height: 400, dpr: 1)
        let texts: [(text: String, font: String, fill: String)] = session.displayList(size: size).layers.flatMap(\.commands).compactMap {
            if case let .text(_, _, text, font, fill, _, _, _) = $0 { return (text, font, fill) } else { return nil }
        }
        let four = try #require(texts.first { $0.text == "4" })
        #expect(four.font == #"bold 18px "Liberation Serif", ChartWire Sans"# && four.fill == "#ff0000")
        let two = try #require(texts.first { $0.text == "2" })
        #expect(two.font == "12px ChartWire Sans" && two.fill == Theme().tickLabel)
        #expect(!texts.contains { $0.text == "6" })
        // An unknown family falls back to the chart font (what it is measured in).
        #expect(texts.first { $0.text == "8" }?.font == "12px ChartWire Sans")
        // Measured in its own style: the big label's box is the 18 px Liberation Serif's,
        // and the axis is thicker than with the plain labels.
        let layout = session.layout(size: size)
        let label = try #require(layout.axis("x")?.labels.first { $0.text == "4" })
        let serif = TestFonts.measurer.size(of: "4", style: TextStyle(size: 18, bold: true, family: "Liberation Serif"))
        #expect(abs(label.bounds.width - serif.width) < 1e-9 && abs(label.bounds.height - serif.height) < 1e-9)
        let plainLabel = try #require(layout.axis("x")?.labels.first { $0.text == "2" })
        #expect(label.bounds.height > plainLabel.bounds.height + 4)
    }
}

/// `labelAngle` on a Y axis: labels turned, each ending at its tick, inside the axis'
/// band, which is as thick as the widest turned box.
@Suite struct TurnedYLabelTests {
    @Test(arguments: [-45.0, -30, 30, 60])
    func yLabelsTurn(angle: Double) throws {
        _ = TestFonts.measurer
        func layout(_ a: Double, side: String) throws -> ChartLayout {
            let spec = #"{"sessions": [{"id": "t", "chart": {"yAxes": [{"id": "y", "alignment": "\#(side)", "mode": "fixed", "range": [0, 1000000], "labelAngle": \#(a)}], "#
                + #""series": [{"id": "s", "data": {"x": [0, 1], "y": [0, 1000000]}}]}}]}"#
            return try ConfigSpec.decode(parseJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
                .layout(size: ViewerSize(width: 600, height: 400, dpr: 1))
        }
        for side in ["left", "right"] {
            let turned = try layout(angle, side: side), flat = try layout(0, side: side)
            #expect(turned.invariantViolations() == [])
            let axis = try #require(turned.axis("y")), plain = try #require(flat.axis("y"))
            #expect(!axis.labels.isEmpty && axis.labels.allSatisfy { $0.angle == angle })
            #expect(axis.labels.allSatisfy { $0.align == (side == "left" ? .right : .left) })
            for label in axis.labels {
                #expect(label.bounds.minX >= axis.rect.minX - 1e-6 && label.bounds.maxX <= axis.rect.maxX + 1e-6)
                // Its end on its tick's line: the anchor's baseline within the text's height of a tick.
                #expect(axis.ticks.contains { abs($0.pixel - label.anchor.y) < label.style.size })
            }
            // The widest turned box is wider than the flat labels' when the text is long and the angle steep.
            if abs(angle) >= 45 { #expect(axis.rect.width != plain.rect.width) }
        }
    }
}

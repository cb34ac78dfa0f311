import Foundation
import Testing
import TestSupport
@testable import ChartSession
import LayoutEngine

/// What ShinobiCharts' `alterTickMark` users set on one tick label beyond its text and
/// style: its own angle (`TickMark.labelAngle`) and a background (`labelBackground`).
@Suite struct TickLabelOwnTests {
    init() { _ = TestFonts.measurer }

    static let size = ViewerSize(width: 600, height: 400, dpr: 1)

    /// A chart of a fixed 0 ... 10 X axis (ticks 0, 2, ... 10 at this size) and 0 ... 1 Y
    /// axis, the hooks given on each.
    func session(x xHook: TickHook?, y yHook: TickHook? = nil, xLabelBackground: Bool? = nil) -> Session {
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.tickHook = xHook
        x.labelBackground = xLabelBackground
        var y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        y.tickHook = yHook
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        return Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
    }

    func commands(_ s: Session) -> [DrawCommand] { s.displayList(size: Self.size).layers.flatMap(\.commands) }

    func texts(_ s: Session) -> [(text: String, angle: Float)] {
        commands(s).compactMap { if case let .text(_, _, text, _, _, _, _, angle) = $0 { return (text, angle) } else { return nil } }
    }

    func noneOverlap(_ labels: [PlacedText]) -> Bool {
        for (i, a) in labels.enumerated() { for b in labels[(i + 1)...] where a.bounds.intersects(b.bounds) { return false } }
        return true
    }

    @Test func aHookTurnsOneLabelAndTheAxisMakesRoomForIt() throws {
        let plain = session(x: TickHook("long") { if $0.value == 4 { $0.label = "four hundred" } })
        let turned = session(x: TickHook("long-turned") { mark in
            if mark.value == 4 { mark.label = "four hundred"; mark.labelAngle = -60 }
        })
        let flat = try #require(plain.layout(size: Self.size).axis("x"))
        let layout = turned.layout(size: Self.size)
        #expect(layout.invariantViolations() == [])
        let axis = try #require(layout.axis("x"))
        let label = try #require(axis.labels.first { $0.text == "four hundred" })
        #expect(label.angle == -60 && label.align == .right)   // slanting away from the plot: ends at its tick
        #expect(axis.labels.filter { $0.text != "four hundred" }.allSatisfy { $0.angle == 0 })
        #expect(axis.labels.count == flat.labels.count)
        // Deeper by the turned extent: the turned box' height in place of a line.
        let s = TestFonts.measurer.size(of: "four hundred", style: label.style)
        let a = 60.0 * .pi / 180
        let box = s.width * sin(a) + s.height * cos(a)
        let line = TestFonts.measurer.metrics(for: label.style).lineHeight(size: label.style.size)
        #expect(axis.rect.height - flat.rect.height == (9 + box).rounded(.up) - (9 + line).rounded(.up))
        #expect(axis.rect.height > flat.rect.height + 20)
        #expect(label.bounds.maxY <= axis.rect.maxY + 1e-9 && label.bounds.minY >= axis.rect.minY - 1e-9)
        #expect(noneOverlap(axis.labels))
        // The text command carries the angle; the others none.
        let drawn = texts(turned)
        #expect(drawn.first { $0.text == "four hundred" }?.angle == -60)
        #expect(drawn.first { $0.text == "2" }?.angle == 0)
    }

    /// A turned label's background is turned with it: a polygon of the text's line box,
    /// inside the label's upright bounds, its corners on them.
    @Test func aTurnedLabelsBackgroundIsTurnedWithIt() throws {
        let s = session(x: TickHook("turned-boxed") { mark in
            if mark.value == 4 { mark.label = "four hundred"; mark.labelAngle = -45; mark.labelBackground = "#ffee00" }
        })
        let label = try #require(s.layout(size: Self.size).axis("x")?.labels.first { $0.text == "four hundred" })
        let all = commands(s)
        let i = try #require(all.firstIndex { if case .polygon(_, "#ffee00", _) = $0 { return true } else { return false } })
        guard case let .polygon(points, _, _) = all[i], case let .text(_, _, text, _, _, _, _, angle) = all[i + 1] else {
            Issue.record("no turned box before the text"); return
        }
        #expect(text == "four hundred" && angle == -45 && points.count == 8)
        let xs = stride(from: 0, to: 8, by: 2).map { Double(points[$0]) }, ys = stride(from: 1, to: 8, by: 2).map { Double(points[$0]) }
        let b = label.bounds
        // Its 2 px longer ends reach 2·cos 45° past the text's upright box; top and bottom are the box'.
        let pad = 2 * cos(45.0 * .pi / 180)
        #expect(abs(xs.min()! - (b.minX - pad)) < 1e-3 && abs(xs.max()! - (b.maxX + pad)) < 1e-3)
        #expect(abs(ys.min()! - (b.minY - pad)) < 1e-3 && abs(ys.max()! - (b.maxY + pad)) < 1e-3)
        // Turned: its first edge runs at -45 degrees.
        #expect(abs(atan2(ys[1] - ys[0], xs[1] - xs[0]) * 180 / .pi + 45) < 1e-3)
        #expect(!all.contains { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { return true } else { return false } })
    }

    /// A label turned only a little reaches along the axis over its neighbours: those it
    /// would touch are left out (as crowded labels are), none overlaps.
    @Test func aTurnedLabelNeverOverlapsItsNeighbours() throws {
        let s = session(x: TickHook("wide-turned") { mark in
            if mark.value == 4 { mark.label = "a label far too long for its place"; mark.labelAngle = 10 }
        })
        let layout = s.layout(size: Self.size)
        let axis = try #require(layout.axis("x"))
        #expect(axis.labels.contains { $0.angle == 10 })
        #expect(axis.labels.count < 6)
        #expect(noneOverlap(axis.labels))
        #expect(layout.invariantViolations() == [])
    }

    /// On a turned axis, a hook straightens one label (angle 0) and turns another the
    /// other way; on a Y axis, a turned label widens the axis.
    @Test func ownAnglesOnATurnedAxisAndOnY() throws {
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.labelAngle = -45
        x.tickHook = TickHook("mixed") { mark in
            if mark.value == 4 { mark.labelAngle = 0 }
            if mark.value == 8 { mark.labelAngle = 45 }
            if mark.value == 10 { mark.labelAngle = 400 }   // clamped to 90
        }
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        let layout = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer).layout(size: Self.size)
        let axis = try #require(layout.axis("x"))
        #expect(axis.labels.first { $0.text == "4" }?.angle == 0)
        #expect(axis.labels.first { $0.text == "8" }?.angle == 45)
        #expect(axis.labels.first { $0.text == "2" }?.angle == -45)
        #expect(axis.labels.first { $0.text == "10" }.map { $0.angle == 90 } ?? true)

        let hookY = TickHook("y-turned") { mark in if abs(mark.value - 0.4) < 1e-9 { mark.label = "forty percent"; mark.labelAngle = 30 } }
        let plainY = TickHook("y-long") { mark in if abs(mark.value - 0.4) < 1e-9 { mark.label = "forty percent" } }
        let turnedAxis = try #require(session(x: nil, y: hookY).layout(size: Self.size).axis("y"))
        let flatAxis = try #require(session(x: nil, y: plainY).layout(size: Self.size).axis("y"))
        let label = try #require(turnedAxis.labels.first { $0.text == "forty percent" })
        #expect(label.angle == 30)
        let s = TestFonts.measurer.size(of: "forty percent", style: label.style)
        let a = 30.0 * .pi / 180
        // Across a vertical axis a turned label takes its turned box' width.
        #expect(turnedAxis.rect.width - flatAxis.rect.width == (9 + s.width * cos(a) + s.height * sin(a)).rounded(.up) - (9 + s.width).rounded(.up))
        #expect(label.bounds.minX >= turnedAxis.rect.minX - 1e-9)
    }

    @Test func aHookGivesOneLabelABackgroundDrawnBeforeItsText() throws {
        let s = session(x: TickHook("marked") { mark in if mark.value == 4 { mark.labelBackground = "#ffee00" } })
        let axis = try #require(s.layout(size: Self.size).axis("x"))
        let bounds = try #require(axis.labels.first { $0.text == "4" }).bounds
        let all = commands(s)
        let boxes = all.enumerated().filter { if case let .rect(_, _, _, _, fill, _, _) = $1 { return fill == "#ffee00" } else { return false } }
        #expect(boxes.count == 1)
        let (i, box) = try #require(boxes.first)
        guard case let .rect(x, y, w, h, _, _, _) = box, case let .text(_, _, text, _, _, _, _, _) = all[i + 1] else {
            Issue.record("the box is not followed by a text"); return
        }
        #expect(text == "4")
        #expect(abs(Double(x) - (bounds.minX - 2)) < 1e-3 && abs(Double(w) - (bounds.width + 4)) < 1e-3)
        #expect(abs(Double(y) - bounds.minY) < 1e-3 && abs(Double(h) - bounds.height) < 1e-3)
        // No hook: no box behind any label.
        let none = commands(session(x: nil)).filter { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { return true } else { return false } }
        #expect(none.isEmpty)
    }

    /// On an axis drawing its labels on boxes (`labelBackground`), the hook's colour is
    /// that label's box; the others keep the plot's.
    @Test func theHooksBackgroundReplacesTheAxisBox() throws {
        let s = session(x: TickHook("marked-boxed") { mark in if mark.value == 4 { mark.labelBackground = "#ffee00" } },
                        xLabelBackground: true)
        let all = commands(s)
        var fills: [String: String] = [:]
        for (i, c) in all.enumerated() {
            if case let .text(_, _, text, _, _, _, _, _) = c, i > 0, case let .rect(_, _, _, _, fill, _, _) = all[i - 1] { fills[text] = fill }
        }
        #expect(fills["4"] == "#ffee00")
        #expect(fills["2"] != nil && fills["2"] != "#ffee00")
        #expect(all.filter { if case .rect(_, _, _, _, "#ffee00", _, _) = $0 { return true } else { return false } }.count == 1)
    }

    /// An image in place of one label: its size is the label's extent (the axis as deep as
    /// the image, the box centred on its tick), drawn by the `image` command from the
    /// chart's served images; a name the chart does not have leaves the text.
    @Test func anImageAsALabel() throws {
        func imageSession(_ hook: TickHook, alignment: AxisAlignment = .bottom) throws -> Session {
            var x = AxisConfig(id: "x", alignment: alignment, mode: .fixed, range: DoubleRange(0, 10))
            x.tickHook = hook
            let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
            var chart = Chart(title: nil, xAxes: alignment.isHorizontal ? [x] : [], yAxes: alignment.isHorizontal ? [y] : [x],
                              series: [], legend: nil, theme: Theme(), modifiers: [])
            chart.images["flag"] = try ChartImage(bytes: ImageAnnotationTests.png(width: 64, height: 40))
            return Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
        }
        let s = try imageSession(TickHook("flag") { mark in if mark.value == 4 { mark.labelImage = TickImage(src: "flag", width: 32, height: 40) } })
        let layout = s.layout(size: Self.size)
        #expect(layout.invariantViolations() == [])
        let axis = try #require(layout.axis("x"))
        let label = try #require(axis.labels.first { $0.image != nil })
        let tick = try #require(axis.ticks.first { $0.value == 4 })
        #expect(label.bounds.width == 32 && label.bounds.height == 40)
        #expect(abs(label.bounds.midX - tick.pixel) < 1e-9 && abs(label.bounds.minY - (axis.rect.minY + 9)) < 1e-9)
        #expect(axis.rect.height == (9 + 40.0).rounded(.up))   // the image, deeper than a line of text
        let images = commands(s).compactMap { if case let .image(x, y, w, h, src) = $0 { return (x, y, w, h, src) } else { return nil } }
        #expect(images.count == 1)
        let (x, y, w, h, src) = try #require(images.first)
        #expect(Double(x) == label.bounds.minX && Double(y) == label.bounds.minY && w == 32 && h == 40)
        let version = try #require(s.chart.images["flag"]).version
        #expect(src == "/api/sessions/t/images/flag?v=\(version)")
        #expect(!texts(s).contains { $0.text == "4" })   // in place of the text
        #expect(texts(s).contains { $0.text == "2" })

        // On a vertical axis: as wide as the image, centred on the tick.
        let v = try imageSession(TickHook("flag-y") { mark in if mark.value == 4 { mark.labelImage = TickImage(src: "flag", width: 50, height: 20) } },
                                 alignment: .left)
        let vAxis = try #require(v.layout(size: Self.size).axis("x"))
        let vLabel = try #require(vAxis.labels.first { $0.image != nil })
        let vTick = try #require(vAxis.ticks.first { $0.value == 4 })
        #expect(abs(vLabel.bounds.midY - vTick.pixel) < 1e-9 && vAxis.rect.width == (9 + 50.0).rounded(.up))

        // Not one of the chart's images, or no size: the text stays.
        for bad in [TickImage(src: "https://example.com/x.png", width: 32, height: 40), TickImage(src: "flag", width: 0, height: 40),
                    TickImage(src: "flag", width: .nan, height: 40)] {
            let t = try imageSession(TickHook("bad-\(bad.src)-\(bad.width)") { mark in if mark.value == 4 { mark.labelImage = bad } })
            #expect(texts(t).contains { $0.text == "4" })
            #expect(!commands(t).contains { if case .image = $0 { return true } else { return false } })
        }
    }

    /// One side given, the other follows the image's aspect ratio (a 64 × 40 PNG, its
    /// size read from its header when the chart took it); neither: its natural size.
    @Test func anImageLabelKeepsItsAspectRatio() throws {
        func label(_ image: TickImage) throws -> PlacedText? {
            var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
            x.tickHook = TickHook("aspect-\(image.width ?? -1)-\(image.height ?? -1)") { mark in if mark.value == 4 { mark.labelImage = image } }
            let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
            var chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
            chart.images["flag"] = try ChartImage(bytes: ImageAnnotationTests.png(width: 64, height: 40))
            let s = Session(id: "t", title: "t", chart: chart, measurer: TestFonts.measurer)
            let layout = s.layout(size: Self.size)
            #expect(layout.invariantViolations() == [])
            let images = commands(s).compactMap { if case let .image(_, _, w, h, _) = $0 { return (Double(w), Double(h)) } else { return nil } }
            let placed = try #require(layout.axis("x")).labels.first { $0.image != nil }
            if let placed {
                #expect(images.count == 1 && images[0].0 == placed.bounds.width && images[0].1 == placed.bounds.height)
                #expect(placed.image?.width == placed.bounds.width && placed.image?.height == placed.bounds.height)
            } else {
                #expect(images.isEmpty && texts(s).contains { $0.text == "4" })
            }
            return placed
        }
        func size(_ image: TickImage) throws -> Size? { try label(image).map { Size(width: $0.bounds.width, height: $0.bounds.height) } }
        #expect(try size(TickImage(src: "flag", width: 32)) == Size(width: 32, height: 20))
        #expect(try size(TickImage(src: "flag", height: 30)) == Size(width: 48, height: 30))
        #expect(try size(TickImage(src: "flag")) == Size(width: 64, height: 40))
        #expect(try size(TickImage(src: "flag", width: 10, height: 30)) == Size(width: 10, height: 30))   // both given: as given
        // The side that follows is bounded as a given one: 2000 wide from 1300 high is too wide.
        #expect(try size(TickImage(src: "flag", height: 1300)) == nil)
        #expect(try size(TickImage(src: "flag", width: .infinity)) == nil)
        #expect(try size(TickImage(src: "flag", height: -5)) == nil)
        // The pure rule, for any natural size.
        #expect(TickImage(src: "a", width: 30).size(natural: Size(width: 300, height: 100)) == Size(width: 30, height: 10))
        #expect(TickImage(src: "a").size(natural: Size(width: 0, height: 100)) == nil)
    }

    /// A view's memo lays the axes out again when an image a hook names arrives or is
    /// replaced: the label turns from text to image, and the frame names the new version.
    @Test func anImageArrivingAfterTheFirstFrameReplacesTheText() throws {
        var x = AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))
        x.tickHook = TickHook("late-flag") { mark in if mark.value == 4 { mark.labelImage = TickImage(src: "flag", width: 32, height: 20) } }
        let y = AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 1))
        let chart = Chart(title: nil, xAxes: [x], yAxes: [y], series: [], legend: nil, theme: Theme(), modifiers: [])
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        let size = Size(width: 600, height: 400)
        var memo = ChartRenderer.Memo()
        func srcs(_ layers: [LayerID: [DrawCommand]]) -> [String] {
            layers.values.flatMap { $0 }.compactMap { if case let .image(_, _, _, _, src) = $0 { return src } else { return nil } }
        }
        #expect(srcs(renderer.render(chart, size: size, dpr: 1, memo: &memo).layers).isEmpty)
        chart.images["flag"] = try ChartImage(bytes: ImageAnnotationTests.png(width: 64, height: 40))
        let first = srcs(renderer.render(chart, size: size, dpr: 1, memo: &memo).layers)
        #expect(first == srcs(renderer.render(chart, size: size, dpr: 1).layers) && first.count == 1)
        chart.images["flag"] = try ChartImage(bytes: ImageAnnotationTests.png(width: 65, height: 40))
        let second = srcs(renderer.render(chart, size: size, dpr: 1, memo: &memo).layers)
        #expect(second.count == 1 && second != first && second == srcs(renderer.render(chart, size: size, dpr: 1).layers))
    }
}

import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Whatever the chain of frames (whole layers, patches, skipped publications, slow
/// acknowledgements), what a viewer holds equals a freshly built full display list,
/// decoded command for command, in the binary and in the JSON form.
@Suite struct DeltaEquivalenceTests {
    /// What a fresh renderer draws for the chart now, at `size`.
    static func fresh(_ s: Session, _ size: ViewerSize) -> [LayerID: [DrawCommand]] {
        ChartRenderer(measurer: TestFonts.measurer)
            .render(s.chart, size: Size(width: Double(size.width), height: Double(size.height)), dpr: size.dpr).layers
    }

    /// A renderer's memo lends each layout the ticks of the last one while the axes'
    /// definitions stay: what it draws equals a fresh render through range changes, and
    /// a new label generator or a moved axis is drawn at once.
    @Test func ticksLentFromFrameToFrameEqualFreshOnes() throws {
        let chart = Chart(
            title: "Ticks",
            xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X", mode: .follow, window: 30)],
            yAxes: [AxisConfig(id: "y", alignment: .left, mode: .visible)],
            series: [Series(id: "a", name: "A", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: XYData())])
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        let size = Size(width: 640, height: 400)
        var memo = ChartRenderer.Memo()
        func check(_ what: String) {
            let lent = renderer.render(chart, size: size, dpr: 1, memo: &memo).layers
            let fresh = renderer.render(chart, size: size, dpr: 1).layers
            #expect(lent[.background] == fresh[.background], "\(what)")
        }
        for i in 0..<40 {
            try chart.append(seriesId: "a", xs: [Double(i)], values: [[Double(i % 7) * 1.5]])
            check("step \(i)")
        }
        chart.setTickLabels("y", generator: TickLabelGenerator("pct") { "\(Int($0 * 10))%" })
        check("a label generator")
        let labels = renderer.render(chart, size: size, dpr: 1, memo: &memo).layout.axis("y")!.labels.map(\.text)
        #expect(!labels.isEmpty && labels.allSatisfy { $0.hasSuffix("%") })
        chart.setAlignment("y", .right)
        check("the y axis moved right")
        chart.setRange("y", DoubleRange(-100, 100))
        check("a y range set")
    }

    /// The memo keeps the legend's commands while its entries, box and theme stand: what
    /// it draws equals a fresh render while data moves under the legend (which then moves)
    /// and while series change colour, style, selection and visibility, and the theme.
    @Test func legendKeptFromFrameToFrameEqualsFreshOne() throws {
        let chart = Chart(
            title: "Legend",
            xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 100))],
            yAxes: [AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 10))],
            series: [Series(id: "a", name: "A", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: XYData()),
                     Series(id: "b", name: "B", kind: .column, color: "#d62728", xAxisId: "x", yAxisId: "y", data: XYData())])
        chart.legend = LegendConfig(position: .topLeft)
        chart.legend?.listsHiddenSeries = true
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        let size = Size(width: 640, height: 400)
        var memo = ChartRenderer.Memo()
        var seen: [[DrawCommand]] = []
        func check(_ what: String) {
            let lent = renderer.render(chart, size: size, dpr: 1, memo: &memo).layers[.overlay]!
            let fresh = renderer.render(chart, size: size, dpr: 1).layers[.overlay]!
            #expect(lent == fresh, "\(what)")
            #expect(!fresh.isEmpty, "\(what)")
            if seen.last != fresh { seen.append(fresh) }
        }
        check("empty")
        // Points far from the top left corner: the legend stays there.
        for i in 0..<5 {
            try chart.append(seriesId: "a", xs: [60 + Double(i)], values: [[1]])
            check("append \(i)")
        }
        let still = seen.count
        // A column under the legend moves it to the next free corner.
        try chart.append(seriesId: "b", xs: [3], values: [[9.5]])
        check("data under the legend")
        chart.setStyle("a") { $0.strokeWidth = 4 }
        check("a wider line")
        chart.setStyle("b") { $0.fill = "#00ff00" }
        check("a column fill")
        chart.setHidden("b", true)
        check("a hidden series, listed dimmed")
        chart.setHidden("b", false)
        check("shown again")
        chart.theme.legendText = "#ff00ff"
        check("the theme's legend text")
        // Every change above drew a legend of its own (showing "b" again, the one before).
        #expect(still == 1)
        #expect(seen.count == 7)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func heldLayersEqualAFreshFrame(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let chart = Chart(
            title: "Delta",
            xAxes: [AxisConfig(id: "x", alignment: .bottom, title: "X", mode: seed % 2 == 0 ? .follow : .extents, window: 30)],
            yAxes: [AxisConfig(id: "y", alignment: .left, mode: .visible, growBy: (0.1, 0.1))],
            series: [Series(id: "a", name: "A", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: XYData(capacity: 2_000)),
                     Series(id: "b", name: "B", color: "#d62728", xAxisId: "x", yAxisId: "y", data: XYData())],
            modifiers: [ZoomPanModifier(direction: .xy), MouseWheelZoomModifier(direction: .x), ZoomExtentsModifier()])
        let s = Fixtures.session(chart)
        let sizes = [ViewerSize(width: 640, height: 400, dpr: 1), ViewerSize(width: 333, height: 250, dpr: 2)]
        var viewers: [(id: ViewerID, held: HeldDisplayList, size: ViewerSize, json: Bool)] = []
        for (i, size) in sizes.enumerated() {
            let v = s.connect()
            _ = s.receive(.hello(size, format: i == 0 ? .binary : .json, token: nil), from: v)
            viewers.append((v, HeldDisplayList(), size, i == 1))
        }
        var x = 0.0, ya = 0.0, yb = 0.0, now = 0.0, patches = 0, checked = 0

        for step in 0..<300 {
            // Change the chart: mostly appends (a scrolling live chart), sometimes a gesture.
            let r = rng.nextUnit()
            if r < 0.8 {
                let n = 1 + Int(rng.nextUnit() * 20)
                var xs: [Double] = [], a: [Double] = [], b: [Double] = []
                for _ in 0..<n {
                    x += rng.nextUnit() * 0.2
                    ya += rng.nextUnit() - 0.5; yb += (rng.nextUnit() - 0.5) * 3
                    xs.append(x); a.append(ya); b.append(yb)
                }
                try s.append(seriesId: "a", xs: xs, ys: a)
                try s.append(seriesId: "b", xs: xs, ys: b)
            } else if r < 0.88 {
                let plot = s.layout(size: sizes[0]).plotRect
                _ = s.receive(.wheel(WheelEvent(x: plot.minX + plot.width * rng.nextUnit(), y: plot.midY,
                                                deltaY: rng.nextUnit() < 0.5 ? -100 : 100)), from: viewers[0].id)
            } else if r < 0.94 {
                let plot = s.layout(size: sizes[0]).plotRect
                let v = viewers[0].id
                _ = s.receive(.pointer(PointerEvent(phase: .down, x: plot.midX, y: plot.midY, buttons: 1)), from: v)
                _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX + 37, y: plot.midY + 5, buttons: 1)), from: v)
                _ = s.receive(.pointer(PointerEvent(phase: .up, x: plot.midX + 37, y: plot.midY + 5)), from: v)
            } else if r < 0.97 {
                _ = s.receive(.doubleClick(DoubleClickEvent(x: 100, y: 100)), from: viewers[0].id)
            } else {
                let i = Int(rng.nextUnit() * 2)
                viewers[i].size = ViewerSize(width: 300 + Int(rng.nextUnit() * 500), height: 200 + Int(rng.nextUnit() * 300),
                                             dpr: [1, 1.5, 2][Int(rng.nextUnit() * 3)])
                _ = s.receive(.resize(viewers[i].size), from: viewers[i].id)
            }
            now += 0.005 + rng.nextUnit() * 0.03
            if let due = s.publishDue(now: now), due <= now { s.publish(now: now) }

            // Each viewer takes what its window allows, acknowledging some frames late.
            for i in viewers.indices {
                while let out = s.nextFrame(for: viewers[i].id, now: now) {
                    let frame: Frame
                    switch out {
                    case let .binary(bytes): frame = try BinaryFrame.decodeFrame(bytes)
                    case let .text(json): frame = try Self.decodeJSONFrame(json)
                    }
                    patches += frame.layers.filter { if case .patch = $0 { true } else { false } }.count
                    try viewers[i].held.apply(frame)
                    if rng.nextUnit() < 0.7 { _ = s.receive(.ack, from: viewers[i].id) } else { break }
                }
            }
            // Now and then every viewer catches up (acknowledging what it drew, taking
            // what is left); then it holds exactly what a fresh render draws.
            if step % 7 == 6, s.publishDue(now: now) == nil {
                for i in viewers.indices {
                    while s.receive(.ack, from: viewers[i].id).isEmpty {}
                    while let out = s.nextFrame(for: viewers[i].id, now: now) {
                        switch out {
                        case let .binary(bytes): try viewers[i].held.apply(try BinaryFrame.decodeFrame(bytes))
                        case let .text(json): try viewers[i].held.apply(try Self.decodeJSONFrame(json))
                        }
                        _ = s.receive(.ack, from: viewers[i].id)
                    }
                    let expected = Self.fresh(s, viewers[i].size)
                    for id in LayerID.allCases {
                        let held = viewers[i].held.layers[id]?.commands ?? [], want = expected[id] ?? []
                        let at = zip(held, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        #expect(held == want, "step \(step), viewer \(i), layer \(id): \(held.count) vs \(want.count) commands, first difference at \(at.map(String.init) ?? "end")")
                    }
                    checked += 1
                }
            }
            for i in viewers.indices where rng.nextUnit() < 0.5 { _ = s.receive(.ack, from: viewers[i].id) }
        }
        #expect(checked >= 40)
        #expect(patches > 50, "the run should exercise patches, not only whole layers")
    }

    /// The JSON form of a frame read back (what a JSON viewer decodes).
    static func decodeJSONFrame(_ json: JSONValue) throws -> Frame {
        let text = json.compactText
        let value = foundationJSON(text)
        return try JSONFrameReader.frame(value)
    }
}

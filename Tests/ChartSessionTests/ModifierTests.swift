import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Gestures recognised from recorded pointer streams, and each built-in modifier
/// driven through a session as the page drives it: ranges, selection, the viewer's
/// own layer, the events every viewer is told.
@Suite struct ModifierTests {
    // MARK: Recogniser

    static func p(_ phase: PointerEvent.Phase, _ x: Double, _ y: Double, t: Double, id: Int = 1, type: PointerEvent.PointerType = .mouse,
                  buttons: Int = 1, shift: Bool = false) -> PointerEvent {
        PointerEvent(phase: phase, x: x, y: y, button: phase == .move ? -1 : 0, buttons: phase == .up ? 0 : buttons, pointerId: id,
                     pointerType: type, shift: shift, time: t)
    }

    @Test func tapsDoubleTapsAndPans() {
        var r = GestureRecognizer()
        #expect(r.feed(Self.p(.down, 10, 10, t: 0)) == [])
        #expect(r.feed(Self.p(.move, 12, 11, t: 20)) == [], "within the slop: still a tap")
        #expect(r.feed(Self.p(.up, 12, 11, t: 80)) == [.tap(Point(x: 10, y: 10))])
        _ = r.feed(Self.p(.down, 14, 12, t: 200))
        #expect(r.feed(Self.p(.up, 14, 12, t: 260)) == [.tap(Point(x: 14, y: 12)), .doubleTap(Point(x: 14, y: 12))])
        // A slow third tap is a tap again.
        _ = r.feed(Self.p(.down, 14, 12, t: 1000))
        #expect(r.feed(Self.p(.up, 14, 12, t: 1050)) == [.tap(Point(x: 14, y: 12))])

        // A drag: the first report covers the whole way from the press.
        _ = r.feed(Self.p(.down, 100, 100, t: 2000))
        #expect(r.feed(Self.p(.move, 110, 100, t: 2100)) ==
                [.pan(.began, location: Point(x: 110, y: 100), translation: Point(x: 10, y: 0), start: Point(x: 100, y: 100))])
        #expect(r.feed(Self.p(.move, 115, 104, t: 2200)) ==
                [.pan(.changed, location: Point(x: 115, y: 104), translation: Point(x: 5, y: 4), start: Point(x: 100, y: 100))])
        // Released slowly: no fling.
        #expect(r.feed(Self.p(.up, 115, 104, t: 2400)) ==
                [.pan(.ended, location: Point(x: 115, y: 104), translation: Point(x: 0, y: 0), start: Point(x: 100, y: 100))])
        // Hover: a mouse moving with no button; leaving the canvas ends it.
        #expect(r.feed(Self.p(.move, 50, 60, t: 2500, buttons: 0)) == [.hover(Point(x: 50, y: 60))])
        #expect(r.feed(Self.p(.cancel, 50, 60, t: 2600, buttons: 0)) == [.hover(nil)])
    }

    @Test func flingPinchAndLongPress() {
        var r = GestureRecognizer()
        _ = r.feed(Self.p(.down, 0, 0, t: 0, type: .touch))
        for k in 1...5 { _ = r.feed(Self.p(.move, Double(k) * 30, 0, t: Double(k) * 20, type: .touch)) }
        let release = r.feed(Self.p(.up, 150, 0, t: 110, type: .touch))
        guard case let .fling(_, v)? = release.last else { Issue.record("no fling: \(release)"); return }
        #expect(abs(v.x - 1500) < 1 && v.y == 0, "30 px per 20 ms")

        // Two fingers: a pinch (the first finger's pan gives way to it).
        _ = r.feed(Self.p(.down, 100, 100, t: 1000, id: 5, type: .touch))
        let second = r.feed(Self.p(.down, 200, 100, t: 1010, id: 6, type: .touch))
        #expect(second == [.pinch(.began, centre: Point(x: 150, y: 100), scale: 1, scaleX: 1, scaleY: 1, translation: Point(x: 0, y: 0))])
        let spread = r.feed(Self.p(.move, 250, 100, t: 1050, id: 6, type: .touch))
        guard case let .pinch(.changed, centre, scale, scaleX, _, translation)? = spread.first else { Issue.record("\(spread)"); return }
        #expect(centre == Point(x: 175, y: 100) && abs(scale - 1.5) < 1e-12 && abs(scaleX - 1.5) < 1e-12 && translation.x == 25)
        _ = r.feed(Self.p(.up, 250, 100, t: 1100, id: 6, type: .touch))
        _ = r.feed(Self.p(.up, 100, 100, t: 1110, id: 5, type: .touch))

        // A press held still: the session clock fires the long press.
        _ = r.feed(Self.p(.down, 40, 40, t: 2000, type: .touch))
        #expect(r.awaitsClock)
        #expect(r.clock(10.0) == [])
        #expect(r.clock(10.3) == [])
        #expect(r.clock(10.5) == [.longPress(.began, Point(x: 40, y: 40))])
        #expect(r.feed(Self.p(.move, 60, 40, t: 2700, type: .touch)) == [.longPress(.changed, Point(x: 60, y: 40))])
        #expect(r.feed(Self.p(.up, 60, 40, t: 2800, type: .touch)) == [.longPress(.ended, Point(x: 60, y: 40))])
    }

    // MARK: Through a session

    /// A session over the static chart (y = x, 100 points) with `modifiers`, one viewer
    /// said hello and holding its first frame.
    final class Rig {
        let session: Session
        var viewers: [ViewerID: HeldDisplayList] = [:]
        var now = 0.0
        var t = 0.0
        init(_ modifiers: [ChartModifierBase], chart: Chart? = nil, viewers count: Int = 1) throws {
            session = Fixtures.session(chart ?? Fixtures.staticChart(modifiers: modifiers))
            if chart != nil { session.chart.modifiers = modifiers }
            for _ in 0..<count {
                let v = session.connect()
                _ = session.receive(Fixtures.hello(), from: v)
                viewers[v] = HeldDisplayList()
                _ = try frame(v)
            }
        }
        var first: ViewerID { viewers.keys.min()! }
        var plot: Rect { session.layout(size: Fixtures.size).plotRect }
        var x: DoubleRange { session.chart.resolvedRanges()["x"]! }
        var y: DoubleRange { session.chart.resolvedRanges()["y"]! }

        /// Publishes what is due, then the viewer's next frame (applied and acknowledged).
        @discardableResult
        func frame(_ v: ViewerID) throws -> (bytes: Int, frame: Frame)? {
            now += 1
            if session.publishDue(now: now) != nil { session.publish(now: now) }
            guard let out = session.nextFrame(for: v), let bytes = out.bytes else { return nil }
            _ = session.receive(.ack, from: v)
            let f = try BinaryFrame.decodeFrame(bytes)
            try viewers[v]!.apply(f)
            return (bytes.count, f)
        }
        func send(_ e: PointerEvent, _ v: ViewerID? = nil) {
            _ = session.receive(.pointer(e), from: v ?? first)
        }
        /// A pointer stream with advancing page time.
        func pointer(_ phase: PointerEvent.Phase, _ x: Double, _ y: Double, id: Int = 1, type: PointerEvent.PointerType = .mouse,
                     buttons: Int = 1, shift: Bool = false, dt: Double = 16, _ v: ViewerID? = nil) {
            t += dt
            send(ModifierTests.p(phase, x, y, t: t, id: id, type: type, buttons: buttons, shift: shift), v)
        }
        func own(_ v: ViewerID) -> [DrawCommand] { viewers[v]!.layers[.modifier]?.commands ?? [] }
    }

    @Test func rolloverDrawsForTheHoveringViewerOnly() throws {
        let rig = try Rig([RolloverModifier()], viewers: 2)
        let (a, b) = (rig.first, rig.viewers.keys.max()!)
        let plot = rig.plot
        rig.pointer(.move, plot.midX, plot.midY, buttons: 0, a)
        #expect(!rig.session.wantsFrame(b), "the other viewer is sent nothing")
        let sent = try #require(try rig.frame(a))
        #expect(sent.frame.layers.map(\.id) == [.modifier], "only the hovering viewer's own layer")
        let own = rig.own(a)
        // The line at the pointer, a marker on the nearest point, its value.
        let line = try #require(own.first { $0.op == "segments" })
        guard case let .segments(coords, _, _, _) = line else { return }
        #expect(abs(Double(coords[0]) - plot.midX) <= 1)
        let marker = try #require(own.compactMap { c -> MarkerSet? in if case let .markers(m) = c { return m }; return nil }.first)
        let layout = rig.session.layout(size: Fixtures.size)
        let xValue = layout.axis("x")!.calculator.value(plot.midX).rounded()
        #expect(abs(Double(marker.x0) - layout.axis("x")!.calculator.pixel(xValue)) < 0.01)
        #expect(abs(Double(marker.y0) - layout.axis("y")!.calculator.pixel(xValue)) < 0.01, "y = x")
        #expect(own.contains { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t == "Line: \(Int(xValue))" }; return false })

        // A move sends a small patch, and the other viewer still nothing (the chart's
        // note of whose drawing changed is cleared once read, not left at "everyone").
        rig.pointer(.move, plot.midX + 30, plot.midY, buttons: 0, a)
        #expect(!rig.session.wantsFrame(b), "the other viewer is sent nothing on later moves either")
        let moved = try #require(try rig.frame(a))
        #expect(moved.bytes <= 2048, "\(moved.bytes) bytes")
        // Leaving the canvas clears it.
        rig.pointer(.cancel, plot.midX + 30, plot.midY, buttons: 0, a)
        _ = try rig.frame(a)
        #expect(rig.own(a).isEmpty)
        #expect(rig.own(b).isEmpty)
    }

    @Test func rubberBandZoomsIntoTheBoxAndPanStaysStill() throws {
        let rig = try Rig([RubberBandXyZoomModifier(), ZoomPanModifier()])
        let v = rig.first, plot = rig.plot
        let before = (rig.x, rig.y)
        let (x0, y0, x1, y1) = (plot.minX + 100, plot.minY + 50, plot.minX + 300, plot.minY + 200)
        rig.pointer(.down, x0, y0, shift: true)
        rig.pointer(.move, (x0 + x1) / 2, (y0 + y1) / 2, shift: true)
        rig.pointer(.move, x1, y1, shift: true)
        _ = try rig.frame(v)
        #expect(rig.x == before.0 && rig.y == before.1, "a shift-drag does not pan")
        let box = try #require(rig.own(v).first)
        guard case let .rect(bx, by, bw, bh, _, _, _) = box else { Issue.record("\(box)"); return }
        #expect(Double(bx) == x0 && Double(by) == y0 && Double(bw) == x1 - x0 && Double(bh) == y1 - y0)
        let layout = rig.session.layout(size: Fixtures.size)
        let expectX = DoubleRange(layout.axis("x")!.calculator.value(x0), layout.axis("x")!.calculator.value(x1))
        rig.pointer(.up, x1, y1, shift: true)
        _ = try rig.frame(v)
        #expect(abs(rig.x.min - expectX.min) < 1e-9 && abs(rig.x.max - expectX.max) < 1e-9)
        #expect(rig.y.span < before.1.span)
        #expect(rig.own(v).isEmpty, "the box goes when released")
        let events = rig.session.takeEvents().compactMap { $0["event"]?.stringValue }
        #expect(events == ["zoomStarted", "zoomEnded"])
    }

    @Test func pinchZoomsAboutTheFingers() throws {
        let rig = try Rig([PinchZoomModifier(direction: .x)])
        let plot = rig.plot, before = rig.x
        let layout = rig.session.layout(size: Fixtures.size)
        let centreValue = layout.axis("x")!.calculator.value(plot.midX)
        rig.pointer(.down, plot.midX - 50, plot.midY, id: 1, type: .touch)
        rig.pointer(.down, plot.midX + 50, plot.midY, id: 2, type: .touch)
        rig.pointer(.move, plot.midX + 150, plot.midY, id: 2, type: .touch)
        rig.pointer(.move, plot.midX - 150, plot.midY, id: 1, type: .touch)
        // Spread from 100 px to 300 px about the same centre: a third of the range.
        #expect(abs(rig.x.span - before.span / 3) < 1e-6 * before.span)
        let after = rig.session.layout(size: Fixtures.size).axis("x")!.calculator
        #expect(abs(after.value(plot.midX) - centreValue) < 1e-6 * before.span)
        #expect(rig.y == rig.session.chart.resolvedRanges()["y"]!, "direction x leaves y")
    }

    @Test func flingGlidesOnTheClockThenStops() throws {
        // (Unclipped: the chart shows all its data, so a clipped glide could not move.)
        let pan = ZoomPanModifier(direction: .x, clipMode: .none)
        let rig = try Rig([pan])
        let plot = rig.plot
        rig.pointer(.down, plot.midX, plot.midY)
        for k in 1...5 { rig.pointer(.move, plot.midX - Double(k) * 20, plot.midY, dt: 10) }
        let released = rig.x
        rig.pointer(.up, plot.midX - 100, plot.midY, dt: 5)
        #expect(pan.isGliding && rig.session.needsClock)
        var ranges: [Double] = []
        var clock = 100.0
        while rig.session.needsClock, ranges.count < 500 {
            rig.session.advance(to: clock)
            ranges.append(rig.x.min)
            clock += 0.02
        }
        #expect(!pan.isGliding, "the glide ends")
        #expect(ranges.count > 10)
        #expect(ranges.last! > released.min, "dragged left: the view glides on to larger x")
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0 <= $1 }, "always the same way")
        let steps = zip(ranges, ranges.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }
        #expect(steps.last! < steps[1], "slowing down")
    }

    @Test func wheelZoomsTheOtherDirectionWithShift() throws {
        let rig = try Rig([MouseWheelZoomModifier(direction: .x)])
        let plot = rig.plot, (x0, y0) = (rig.x, rig.y)
        _ = rig.session.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -100, shift: true)), from: rig.first)
        #expect(rig.x == x0 && rig.y.span < y0.span)
    }

    @Test func doubleTapZoomsToExtentsOrIn() throws {
        let rig = try Rig([ZoomPanModifier(clipMode: .none), ZoomExtentsModifier()])
        let plot = rig.plot, home = rig.x
        rig.pointer(.down, plot.midX, plot.midY)
        rig.pointer(.move, plot.midX + 80, plot.midY)
        rig.pointer(.up, plot.midX + 80, plot.midY)
        #expect(rig.x != home)
        rig.pointer(.down, plot.midX, plot.midY, dt: 500)
        rig.pointer(.up, plot.midX, plot.midY, dt: 50)
        rig.pointer(.down, plot.midX, plot.midY, dt: 100)
        rig.pointer(.up, plot.midX, plot.midY, dt: 50)
        // It flies home on the session's clock (0.3 s, eased), every step a frame.
        let away = rig.x
        #expect(away != home)
        rig.session.advance(to: 10)
        rig.session.advance(to: 10.15)
        let midway = rig.x
        #expect(abs(midway.min - (away.min + home.min) / 2) < 1e-9 * home.span, "halfway at half time (ease in-out)")
        rig.session.advance(to: 10.31)
        #expect(rig.x == home && rig.session.chart.isFollowingData && !rig.session.needsClock)
        // The page's own dblclick message for the same double click changes nothing more.
        _ = rig.session.receive(.doubleClick(DoubleClickEvent(x: plot.midX, y: plot.midY, time: rig.t)), from: rig.first)
        #expect(rig.session.takeEvents().filter { $0["event"] == "rangesReset" }.count == 1)

        let zoomIn = try Rig([ZoomExtentsModifier(mode: .zoomIn)])
        let span = zoomIn.x.span
        _ = zoomIn.session.receive(.doubleClick(DoubleClickEvent(x: zoomIn.plot.midX, y: zoomIn.plot.midY)), from: zoomIn.first)
        #expect(abs(zoomIn.x.span - span / 2) < 1e-9 * span)
    }

    /// Two lines, far apart: y = 10 and y = 90 over x 0...99.
    static func twoLines() -> Chart {
        var a = XYData(), b = XYData()
        try! a.append(xs: (0..<100).map(Double.init), ys: Array(repeating: 10, count: 100))
        try! b.append(xs: (0..<100).map(Double.init), ys: Array(repeating: 90, count: 100))
        return Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 99))],
                     yAxes: [AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 100))],
                     series: [Series(id: "low", name: "Low", color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: a),
                              Series(id: "high", name: "High", color: "#d62728", xAxisId: "x", yAxisId: "y", data: b)])
    }

    @Test func tapSelectsTheNearestSeries() throws {
        let rig = try Rig([SeriesSelectionModifier()], chart: Self.twoLines())
        let layout = rig.session.layout(size: Fixtures.size)
        let y = layout.axis("y")!.calculator, plot = rig.plot
        func tap(_ value: Double, dx: Double = 0) {
            rig.pointer(.down, plot.midX + dx, y.pixel(value) + 3, dt: 1000)
            rig.pointer(.up, plot.midX + dx, y.pixel(value) + 3, dt: 50)
        }
        tap(90)
        #expect(rig.session.chart.series.map(\.isSelected) == [false, true])
        tap(10)
        #expect(rig.session.chart.series.map(\.isSelected) == [true, false], "toggleSelection: one at a time")
        tap(10)
        #expect(rig.session.chart.series.map(\.isSelected) == [false, false], "a second tap deselects")
        tap(50)
        #expect(rig.session.chart.series.map(\.isSelected) == [false, false], "far from both: nothing")
        let events = rig.session.takeEvents()
        #expect(events.count == 3)
        #expect(events.first == .object([("type", "event"), ("event", "selectionToggled"), ("viewer", .int(Int64(rig.first))),
                                         ("series", "high"), ("selected", true)]))
    }

    @Test func legendTapHidesAndShows() throws {
        let rig = try Rig([LegendModifier()], chart: Self.twoLines())
        let v = rig.first
        let boxes = rig.session.renderer.legendHitBoxes(rig.session.chart, layout: rig.session.layout(size: Fixtures.size))
        #expect(boxes.map(\.seriesId) == ["low", "high"])
        let row = boxes[1].rect
        rig.pointer(.down, row.midX, row.midY)
        rig.pointer(.up, row.midX, row.midY)
        #expect(rig.session.chart.series[1].isHidden)
        _ = try rig.frame(v)
        // Still listed, dimmed, so it can be shown again.
        let overlay = try #require(rig.viewers[v]!.layers[.overlay]).commands
        #expect(overlay.contains(.opacity(0.35)))
        #expect(overlay.contains { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t == "High" }; return false })
        // (The legend may have moved off the data now shown: find the row again.)
        let again = rig.session.renderer.legendHitBoxes(rig.session.chart, layout: rig.session.layout(size: Fixtures.size))[1].rect
        rig.pointer(.down, again.midX, again.midY, dt: 1000)
        rig.pointer(.up, again.midX, again.midY)
        #expect(!rig.session.chart.series[1].isHidden)
        #expect(rig.session.takeEvents().compactMap { $0["hidden"]?.boolValue } == [true, false])
    }

    @Test func rotateChartTurnsEveryAxisAQuarter() throws {
        let rotate = RotateChartModifier()
        let rig = try Rig([rotate])
        let version = rig.session.chart.version
        rotate.rotateChart()
        #expect(rig.session.chart.axes.map(\.config.alignment) == [.left, .top])
        #expect(rig.session.chart.version == version + 1, "one change: suspendUpdates")
        // A long press turns it too: the clock fires it.
        rig.pointer(.down, rig.plot.midX, rig.plot.midY, type: .touch)
        #expect(rig.session.needsClock)
        rig.session.advance(to: 50)
        rig.session.advance(to: 50.6)
        #expect(rig.session.chart.axes.map(\.config.alignment) == [.top, .right])
        rotate.rotateChart(); rotate.rotateChart()
        #expect(rig.session.chart.axes.map(\.config.alignment) == [.bottom, .left], "four turns: home")
    }

    @Test func handledEventsStopUnlessAskedFor() throws {
        final class Recorder: ChartModifierBase {
            var seen = 0
            override func onEvent(_ args: ModifierEventArgs) { seen += 1; #expect(args.isMaster && args.source.series.count == 1) }
        }
        let wheel = MouseWheelZoomModifier(), quiet = Recorder(), loud = Recorder()
        loud.receiveHandledEvents = true
        let rig = try Rig([wheel, quiet, loud])
        #expect(wheel.isAttached && wheel.parentSurface === rig.session.chart && quiet.xAxes.map(\.id) == ["x"])
        _ = rig.session.receive(.wheel(WheelEvent(x: rig.plot.midX, y: rig.plot.midY, deltaY: 100)), from: rig.first)
        #expect(quiet.seen == 0 && loud.seen == 1)
        wheel.isEnabled = false
        _ = rig.session.receive(.wheel(WheelEvent(x: rig.plot.midX, y: rig.plot.midY, deltaY: 100)), from: rig.first)
        #expect(quiet.seen == 1 && loud.seen == 2)
        rig.session.chart.modifiers = [quiet]
        #expect(!wheel.isAttached && !loud.isAttached && quiet.isAttached)
    }

    @Test func welcomeSaysWhichInputTheModifiersUse() throws {
        func consumes(_ modifiers: [ChartModifierBase]) -> [String] {
            let s = Fixtures.session(Fixtures.staticChart(modifiers: modifiers))
            let v = s.connect()
            return s.receive(Fixtures.hello(), from: v).first?.json?["consumes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        #expect(consumes([RolloverModifier(), SeriesSelectionModifier()]) == [], "the page scrolls over this chart")
        #expect(consumes([ZoomPanModifier(), MouseWheelZoomModifier()]) == ["drag", "wheel"])
        #expect(consumes([PinchZoomModifier()]) == ["pinch"])
    }
}

extension ModifierTests {
    @Test func crosshairStaysOnItsSeriesOrFloats() throws {
        for mode in CrosshairModifier.Mode.allCases {
            let crosshair = CrosshairModifier(mode: mode)
            let rig = try Rig([crosshair], chart: Self.twoLines())
            var moves: [ChartEvent] = []
            rig.session.chart.addEventHandler { if case .crosshairMoved = $0 { moves.append($0) } }
            let y = rig.session.layout(size: Fixtures.size).axis("y")!.calculator, plot = rig.plot
            let v = rig.first
            rig.pointer(.move, plot.midX, y.pixel(80), buttons: 0)     // nearer "high" (90)
            _ = try rig.frame(v)
            #expect(crosshair.target(for: v, layout: rig.session.layout(size: Fixtures.size))?.seriesId == "high")
            let own = rig.own(v)
            #expect(own.contains { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t == "High" }; return false })
            #expect(own.contains { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t == "y: 90" }; return false })
            rig.pointer(.move, plot.midX + 10, y.pixel(20), buttons: 0)   // now nearer "low" (10)
            let now = crosshair.target(for: v, layout: rig.session.layout(size: Fixtures.size))?.seriesId
            #expect(now == (mode == .singleSeries ? "high" : "low"), "\(mode)")
            #expect(moves.count == 2)
            #expect(rig.session.takeEvents().isEmpty, "a crosshair's moves are not sent to every viewer")
            // Let go (the mouse leaves): a single-series crosshair picks afresh next time.
            rig.pointer(.cancel, plot.midX, y.pixel(20), buttons: 0)
            rig.pointer(.move, plot.midX, y.pixel(20), buttons: 0)
            #expect(crosshair.target(for: v, layout: rig.session.layout(size: Fixtures.size))?.seriesId == "low")
        }
    }

    @Test func crosshairInterpolatesAlongALine() throws {
        var d = XYData()
        try d.append(xs: [0, 10], ys: [0, 100])
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .fixed, range: DoubleRange(0, 10))],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .fixed, range: DoubleRange(0, 100))],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: d)])
        let snap = CrosshairModifier(), smooth = CrosshairModifier(interpolatePoints: true)
        let rig = try Rig([snap, smooth], chart: chart)
        let layout = rig.session.layout(size: Fixtures.size)
        let x = layout.axis("x")!.calculator, y = layout.axis("y")!.calculator
        rig.pointer(.move, x.pixel(3), y.pixel(30), buttons: 0)
        let a = try #require(snap.target(for: rig.first, layout: layout)), b = try #require(smooth.target(for: rig.first, layout: layout))
        #expect(a.index == 0 && a.x == 0 && a.y == 0, "snapped to the nearest point")
        #expect(b.index == nil && abs(b.x - 3) < 1e-9 && abs(b.y - 30) < 1e-9, "on the line under the pointer")
    }
}

extension ModifierTests {
    @Test func draggingAnAxisScalesOnlyThatAxis() throws {
        let rig = try Rig([AxisDragModifier(), ZoomPanModifier(clipMode: .none)])
        let layout = rig.session.layout(size: Fixtures.size)
        let yAxis = try #require(layout.axis("y")), (x0, y0) = (rig.x, rig.y)
        let p = Point(x: yAxis.rect.midX, y: yAxis.rect.midY)
        rig.pointer(.down, p.x, p.y)
        rig.pointer(.move, p.x, p.y - 30)     // up the Y axis, where its values grow
        rig.pointer(.move, p.x, p.y - 60)
        rig.pointer(.up, p.x, p.y - 60)
        #expect(rig.x == x0, "the other axis stays")
        #expect(rig.y.span < y0.span && abs(rig.y.min - y0.min) < 1e-9 * y0.span, "shrunk about its start")
        // A drag in the plot still pans.
        rig.pointer(.down, rig.plot.midX, rig.plot.midY, dt: 500)
        rig.pointer(.move, rig.plot.midX + 40, rig.plot.midY, dt: 200)
        rig.pointer(.up, rig.plot.midX + 40, rig.plot.midY, dt: 200)
        #expect(rig.x != x0)
    }

    static func pie() -> Chart {
        var d = XYData()
        try! d.append(xs: [0, 1, 2, 3], ys: [1, 1, 1, 1])
        return Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                     series: [Series(id: "p", name: "Pie", kind: .pie, color: "#000", xAxisId: "x", yAxisId: "y", data: d)])
    }

    @Test func pieTurnsByDragAndSpinsOn() throws {
        // 1,000°/s when let go, friction 20: it spins on about 50° more.
        let rotate = PieRotationModifier(rotationFriction: 20)
        let rig = try Rig([rotate], chart: Self.pie())
        let plot = rig.plot, c = Point(x: plot.midX, y: plot.midY)
        let r = min(plot.width, plot.height) / 4
        // A quarter turn clockwise: from 12 o'clock to 3 o'clock, in steps.
        rig.pointer(.down, c.x, c.y - r)
        for k in 1...9 {
            let a = Double(k) * 10 * .pi / 180
            rig.pointer(.move, c.x + r * sin(a), c.y - r * cos(a), dt: 10)
        }
        #expect(abs(rig.session.chart.series[0].style.rotation - 90) < 1e-6)
        rig.pointer(.up, c.x + r, c.y, dt: 5)
        #expect(rig.session.needsClock, "released while turning: it spins on")
        var clock = 0.0
        while rig.session.needsClock && clock < 10 { rig.session.advance(to: clock); clock += 0.02 }
        let settled = rig.session.chart.series[0].style.rotation
        #expect(settled > 130 && settled < 145 && !rig.session.needsClock, "spun on clockwise, then stopped (\(settled))")

        // ShinobiCharts' rotateSliceAtIndex:toAngle: and indexOfSliceAtAngle:.
        rig.session.chart.rotateSlice("p", index: 2, toAngle: 0)
        #expect(rig.session.chart.indexOfSlice("p", atAngle: 0) == 2)
        #expect(rig.session.chart.indexOfSlice("p", atAngle: 90) == 3)
        #expect(rig.session.chart.indexOfSlice("p", atAngle: -90) == 1)
    }
}

extension ModifierTests {
    @Test func pointSelectionMarksOnePointAtATime() throws {
        let selection = SeriesSelectionModifier()
        selection.mode = .point
        let rig = try Rig([selection], chart: Self.twoLines())
        let layout = rig.session.layout(size: Fixtures.size)
        let x = layout.axis("x")!.calculator, y = layout.axis("y")!.calculator
        func tap(_ i: Int, _ value: Double) {
            rig.pointer(.down, x.pixel(Double(i)) + 2, y.pixel(value) - 2, dt: 1000)
            rig.pointer(.up, x.pixel(Double(i)) + 2, y.pixel(value) - 2, dt: 50)
        }
        tap(50, 90)
        #expect(rig.session.chart.series.map(\.selectedPoints) == [[], [50]])
        _ = try rig.frame(rig.first)
        let rings = rig.viewers[rig.first]!.layers[.series]!.commands.compactMap { c -> MarkerSet? in
            if case let .markers(m) = c { return m }; return nil
        }
        #expect(rings.count == 1)
        #expect(abs(Double(rings[0].x0) - x.pixel(50)) <= 1 && abs(Double(rings[0].y0) - y.pixel(90)) <= 1)
        tap(20, 10)
        #expect(rig.session.chart.series.map(\.selectedPoints) == [[20], []], "togglePointSelection: one point at a time")
        tap(20, 10)
        #expect(rig.session.chart.series.map(\.selectedPoints) == [[], []])
        let events = rig.session.takeEvents().compactMap { $0["point"]?.doubleValue }
        #expect(events == [50, 20, 20])
    }
}

extension ModifierTests {
    @Test func renderAndDataEventsReachSwiftOnly() throws {
        let rig = try Rig([ZoomPanModifier()])
        var seen: [ChartEvent] = []
        rig.session.chart.addEventHandler { seen.append($0) }
        try rig.session.append(seriesId: "s", xs: [500], ys: [1])
        _ = try rig.frame(rig.first)
        #expect(seen == [.dataLoaded(series: "s", points: 1), .renderStarted, .renderFinished(fullRedraw: true)], "the X range grew: axes redrawn")
        #expect(rig.session.takeEvents().isEmpty)
    }
}

extension ModifierTests {
    @Test func pinchReleasedWhileSpreadingZoomsOn() throws {
        let pinch = PinchZoomModifier(direction: .x)
        let rig = try Rig([pinch])
        let plot = rig.plot
        rig.pointer(.down, plot.midX - 40, plot.midY, id: 1, type: .touch)
        rig.pointer(.down, plot.midX + 40, plot.midY, id: 2, type: .touch, dt: 5)
        for k in 1...6 {
            rig.pointer(.move, plot.midX + 40 + Double(k) * 12, plot.midY, id: 2, type: .touch, dt: 10)
        }
        let released = rig.x.span
        rig.pointer(.up, plot.midX + 112, plot.midY, id: 2, type: .touch, dt: 5)
        #expect(rig.session.needsClock, "it zooms on")
        var clock = 0.0
        while rig.session.needsClock && clock < 5 { rig.session.advance(to: clock); clock += 0.02 }
        #expect(rig.x.span < released * 0.95, "zoomed in further after the fingers left")
        #expect(!rig.session.needsClock)
    }

    @Test func aSelectedSliceTurnsToItsPosition() throws {
        let chart = Self.pie()
        chart.setStyle("p") { $0.selectedPosition = 90 }
        let rotation = PieRotationModifier()
        let rig = try Rig([rotation, SeriesSelectionModifier()], chart: chart)
        let plot = rig.plot, r = min(plot.width, plot.height) / 4
        // Slice 0 spans 12 to 3 o'clock: tap it at half past one.
        rig.pointer(.down, plot.midX + r * 0.7, plot.midY - r * 0.7, type: .touch)
        rig.pointer(.up, plot.midX + r * 0.7, plot.midY - r * 0.7, type: .touch, dt: 50)
        #expect(rig.session.chart.series[0].selectedSlices == [0])
        // It turns on the session's clock, easing out, the shorter way (45 degrees).
        #expect(rig.session.chart.series[0].style.rotation == 0 && rig.session.needsClock)
        var clock = 0.0, angles: [Double] = []
        while rig.session.needsClock && clock < 2 {
            rig.session.advance(to: clock)
            angles.append(rig.session.chart.series[0].style.rotation)
            clock += 0.05
        }
        #expect(clock > 0.3 && clock < 0.7, "about turnDuration (0.4 s)")
        #expect(zip(angles, angles.dropFirst()).allSatisfy { $0 <= $1 }, "one way, never back: \(angles)")
        #expect(angles.count > 4 && angles[2] > 0 && angles[2] < 45, "in steps")
        #expect(rig.session.chart.indexOfSlice("p", atAngle: 90) == 0, "turned to 3 o'clock")
        #expect(abs(rig.session.chart.series[0].style.rotation - 45) < 1e-9)
    }
}

import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

@Suite struct SessionTests {
    /// Publishes what is due (the transport's job), then takes the viewer's next frame
    /// and acknowledges it, as the client does after drawing it.
    func frame(_ s: Session, _ v: ViewerID) throws -> Frame? {
        publish(s)
        guard let out = s.nextFrame(for: v) else { return nil }
        #expect(s.receive(.ack, from: v) == [])
        return try BinaryFrame.decodeFrame(try #require(out.bytes))
    }

    /// Publishes if the chart changed (time moves on by a second each call: no frame
    /// rate limit gets in the way).
    func publish(_ s: Session) {
        clock.now += 1
        if s.publishDue(now: clock.now) != nil { s.publish(now: clock.now) }
    }
    final class Clock { var now = 0.0 }
    let clock = Clock()

    func xRange(_ s: Session) -> DoubleRange { s.chart.resolvedRanges()["x"]! }

    @Test func helloGetsWelcomeThenAllLayers() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        #expect(s.nextFrame(for: v) == nil)  // nothing before hello
        let replies = s.receive(Fixtures.hello(), from: v)
        let welcome = try #require(replies.first?.json)
        #expect(welcome["type"] == "welcome")
        #expect(welcome["session"] == "t")
        #expect(welcome["viewer"] == .int(Int64(v)))
        let first = try #require(try frame(s, v))
        // The shared layers, and this viewer's own (empty: no modifier draws yet).
        #expect(first.layers.map(\.id) == [.background, .series, .overlay, .modifier])
        #expect(first.width == 800 && first.height == 500)
        #expect(s.wantsFrame(v) == false)
        #expect(s.nextFrame(for: v) == nil)  // up to date
    }

    @Test func onlyChangedLayersAreSent() throws {
        let chart = Fixtures.staticChart()
        let s = Fixtures.session(chart)
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let first = try #require(try frame(s, v))
        // Appending inside the current extents changes the series only... but extents grow,
        // so axes change too; the legend (overlay) stays.
        try s.append(seriesId: "s", xs: [100, 101], ys: [50, 60])
        #expect(!s.wantsFrame(v))   // not before it is published
        publish(s)
        #expect(s.wantsFrame(v))
        let second = try #require(try frame(s, v))
        #expect(second.layers.map(\.id) == [.background, .series])
        for l in second.layers {
            #expect(l.version > first.layers.first { $0.id == l.id }!.version)
        }
        // A resize sends every layer again.
        _ = s.receive(.resize(ViewerSize(width: 640, height: 480, dpr: 2)), from: v)
        let third = try #require(try frame(s, v))
        #expect(third.layers.count == 4 && third.width == 640 && third.dpr == 2)
    }

    /// A session watched by one viewer that acknowledges every frame, for the pacing
    /// tests: `publish(at:)` publishes, sends the frames, appends a point and says when
    /// the next publication is due.
    final class Paced {
        let session = Fixtures.session(Fixtures.staticChart())
        let viewer: ViewerID
        var step: Double { 1 / session.maxFps }
        private var x = 100.0
        init() {
            viewer = session.connect()
            _ = session.receive(Fixtures.hello(), from: viewer)
        }
        func publish(at now: Double) throws -> Double? {
            session.publish(now: now)
            while session.nextFrame(for: viewer, now: now) != nil { _ = session.receive(.ack, from: viewer) }
            x += 1
            try session.append(seriesId: "s", xs: [x], ys: [1])
            return session.publishDue(now: now)
        }
    }

    /// Publications keep to a grid of 1/maxFps: one a little late (up to a whole step)
    /// is made up at the next, so viewers keep getting maxFps frames a second; a later
    /// one starts the grid afresh, so lateness never piles up.
    @Test func latePublicationsStayOnThePacingGrid() throws {
        let paced = Paced(), step = paced.step
        let publishAt = paced.publish(at:)
        _ = try publishAt(10)
        // A fifth of a step late: the next is due on the grid, sooner than a step after it.
        let due = try #require(try publishAt(10 + step * 1.2))
        #expect(abs(due - (10 + 2 * step)) < 1e-9)
        // Then a step and a half after the grid point it was due at: the grid starts
        // again from there.
        let late = 10 + 3 * step + step / 2
        let after = try #require(try publishAt(late))
        #expect(abs(after - (late + step)) < 1e-9)
        // In all, 1 s of publications each a fifth of a step late keeps maxFps.
        var now = after, count = 0
        while now < after + 1 - 1e-9 {
            let next = try #require(try publishAt(now + step * 0.2))
            count += 1
            now = max(next, now)
        }
        #expect(count >= Int(paced.session.maxFps) - 1)
    }

    /// A publication up to a whole step late still counts for its grid point (a server
    /// on a loaded box, its timer firing late): the one after it is due on the grid, but
    /// not before half a step after the late one, and then the grid goes on. So every
    /// other publication most of a step late still keeps `maxFps` (at a quarter of a
    /// step, each would have started the grid afresh: under three quarters of it).
    @Test func publicationsUpToAStepLateAreMadeUpHalfAStepApart() throws {
        let paced = Paced(), step = paced.step
        let publishAt = paced.publish(at:)
        _ = try publishAt(10)
        // 0.8 of a step late: the next is due half a step after it, past the grid point.
        let late = 10 + step * 1.8
        let due = try #require(try publishAt(late))
        #expect(abs(due - (late + step / 2)) < 1e-9)
        // Published then, it counts for the grid point before it: the next is on the grid.
        let back = try #require(try publishAt(due))
        #expect(abs(back - (10 + 3 * step)) < 1e-9)
        // In all, 1 s with every other publication 0.8 of a step late keeps maxFps.
        var now = back, count = 0
        while now < back + 1 - 1e-9 {
            let at = count % 2 == 0 ? now + step * 0.8 : now
            let next = try #require(try publishAt(at))
            count += 1
            now = max(next, at)
        }
        #expect(count >= Int(paced.session.maxFps) - 1)
    }

    /// A publication waits (at most `maxHold`) for the previous one to reach every
    /// viewer that was ready for it, and never for a viewer whose window is full.
    @Test func publicationWaitsForReadyViewersNotForSlowOnes() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let (a, b, slow) = (s.connect(), s.connect(), s.connect())
        for v in [a, b, slow] { _ = s.receive(Fixtures.hello(), from: v) }
        s.publish(now: 10)
        for v in [a, b, slow] { #expect(s.nextFrame(for: v, now: 10) != nil) }
        _ = s.receive(.ack, from: a)
        _ = s.receive(.ack, from: b)           // `slow` never acknowledges
        try s.append(seriesId: "s", xs: [100], ys: [50])
        s.publish(now: 11)
        #expect(s.viewersOwed == 3)
        #expect(s.nextFrame(for: slow, now: 11) != nil)   // its window is now full
        #expect(s.viewersOwed == 2)

        try s.append(seriesId: "s", xs: [101], ys: [51])
        #expect(s.publishDue(now: 11.02) == 11 + Session.maxHold)   // a and b not served yet
        #expect(s.nextFrame(for: a, now: 11.02) != nil)
        #expect(s.publishDue(now: 11.02) == 11 + Session.maxHold)
        #expect(s.nextFrame(for: b, now: 11.03) != nil)
        #expect(s.viewersOwed == 0)
        #expect(s.publishDue(now: 11.03) == 11.03)         // past 1/maxFps: due now
        s.publish(now: 11.03)
        #expect(s.viewersOwed == 2)                         // not `slow`: its window is full
        #expect(s.nextFrame(for: slow, now: 11.03) == nil)

        // A viewer that leaves is not waited for either.
        s.disconnect(a)
        #expect(s.viewersOwed == 1)
        // And the hold ends by itself.
        try s.append(seriesId: "s", xs: [102], ys: [52])
        #expect(s.publishDue(now: 11.05) == 11.03 + Session.maxHold)
        #expect(s.publishDue(now: 11.2) == 11.2)
    }

    /// Frames carry the time the newest data arrived: appends set it, gestures do not.
    @Test func dataTimeFollowsDataNotGestures() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        try s.append(seriesId: "s", xs: [100], ys: [1])
        s.noteChange(at: 1, wallMs: 5_000)
        #expect(try frame(s, v)?.dataTime == 5_000)
        _ = s.receive(.doubleClick(DoubleClickEvent(x: 10, y: 10)), from: v)
        _ = s.receive(.wheel(WheelEvent(x: 300, y: 200, deltaY: -100)), from: v)
        s.noteChange(at: 2, wallMs: 9_000)
        let zoomed = try #require(try frame(s, v))
        #expect(zoomed.dataTime == 5_000)
    }

    @Test func viewersOfOneSizeShareEncodedLayers() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let a = s.connect(), b = s.connect()
        _ = s.receive(Fixtures.hello(), from: a)
        _ = s.receive(Fixtures.hello(), from: b)
        #expect(s.nextFrame(for: a) == s.nextFrame(for: b))
        #expect(s.viewerCount == 2)
        s.disconnect(a)
        #expect(s.viewerCount == 1 && s.viewerIDs == [b])
    }

    @Test func jsonViewersGetJSONFrames() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(format: .json), from: v)
        let msg = try #require(s.nextFrame(for: v)?.json)
        #expect(msg["type"] == "frame")
        #expect(msg["width"] == 800)
        #expect(msg["layers"]?.arrayValue?.count == 4)
        #expect(msg["layers"]?.arrayValue?[1]["id"] == "series")
    }

    @Test func badMessagesGetErrorsAndChangeNothing() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        let version = s.chart.version
        func code(_ json: JSONValue) -> JSONValue? { s.receive(json: json, from: v).first?.json?["code"] }
        #expect(code(["type": "resize", "width": 10, "height": 10]) == "hello_required")
        #expect(code(["type": "explode"]) == "unknown_type")
        #expect(code([1, 2]) == "bad_message")
        #expect(code(["width": 3]) == "bad_message")
        #expect(code(["type": "hello", "width": 0, "height": 10]) == "bad_field")
        #expect(code(["type": "hello", "width": "wide", "height": 10]) == "bad_field")
        #expect(code(["type": "hello", "width": 100, "height": 10, "dpr": 100]) == "bad_field")
        #expect(code(["type": "hello", "width": 100, "height": 10, "colour": "red"]) == "bad_field")
        #expect(code(["type": "pointer", "phase": "hover", "x": 1, "y": 1]) == "bad_field")
        #expect(code(["type": "wheel", "x": 1]) == "bad_field")
        let message = s.receive(json: ["type": "hello", "width": 100, "height": 10, "dpr": 100], from: v).first?.json?["message"]
        #expect(message == "$.dpr: must be at most 8")
        #expect(s.chart.version == version)
        // The viewer is still usable afterwards.
        #expect(s.receive(json: ["type": "hello", "width": 100, "height": 100], from: v).first?.json?["type"] == "welcome")
    }

    @Test func appendingToAGeneratedSeriesKeepsXSorted() throws {
        let s = Fixtures.session(Fixtures.followChart())
        s.advance(to: 0)
        s.advance(to: 1)                        // x = 0, 0.1, ..., 1.0
        try s.append(seriesId: "sine", xs: [1.55], ys: [9])
        s.advance(to: 2)                        // 1.1 ... 1.5 are behind 1.55 and dropped
        let d = s.chart.series[0].data
        let xs = (0..<d.count).map { d.x($0) }
        #expect(xs == xs.sorted())
        #expect(xs.contains(1.55) && xs.contains(1.6) && !xs.contains(1.5))
        #expect(d.lastX == 2)
    }

    @Test func appendErrorsApplyNothing() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        #expect(throws: SessionError.unknownSeries("nope")) { try s.append(seriesId: "nope", xs: [1], ys: [1]) }
        #expect(throws: SessionError.badAppend(.lengthMismatch(x: 1, y: 2))) { try s.append(seriesId: "s", xs: [200], ys: [1, 2]) }
        #expect(s.chart.series[0].data.count == 100)
        #expect(try s.append(seriesId: "s", xs: [200, 201], ys: [1, 2]) == 2)
        #expect(s.chart.series[0].data.count == 102)
    }

    // MARK: Modifiers

    func drag(_ s: Session, _ v: ViewerID, from a: (Double, Double), to b: (Double, Double), steps: Int = 4) {
        _ = s.receive(.pointer(PointerEvent(phase: .down, x: a.0, y: a.1, button: 0, buttons: 1)), from: v)
        for i in 1...steps {
            let t = Double(i) / Double(steps)
            _ = s.receive(.pointer(PointerEvent(phase: .move, x: a.0 + (b.0 - a.0) * t, y: a.1 + (b.1 - a.1) * t,
                                                button: -1, buttons: 1)), from: v)
        }
        _ = s.receive(.pointer(PointerEvent(phase: .up, x: b.0, y: b.1, button: 0, buttons: 0)), from: v)
    }

    @Test func dragPansAndEveryViewerSeesIt() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let a = s.connect(), b = s.connect()
        _ = s.receive(Fixtures.hello(), from: a)
        _ = s.receive(.hello(ViewerSize(width: 400, height: 300, dpr: 1), format: .binary, token: nil), from: b)
        _ = s.nextFrame(for: a); _ = s.nextFrame(for: b)
        // Zoomed in (a pan stops at the data's extents, clipAtExtents): room to pan.
        s.chart.setRange("x", DoubleRange(20, 60))

        let layout = s.layout(size: Fixtures.size)
        let plot = layout.plotRect
        let before = xRange(s)
        let perPixel = before.span / plot.width
        drag(s, a, from: (plot.midX, plot.midY), to: (plot.midX + 100, plot.midY))
        let after = xRange(s)
        // Dragging right by 100 px shows data 100 px further left.
        #expect(abs((before.min - after.min) - 100 * perPixel) < 1e-9)
        #expect(abs(after.span - before.span) < 1e-9)
        #expect(!s.chart.isFollowingData)
        // Both viewers are owed a frame, and the other viewer's labels moved.
        publish(s)
        #expect(s.wantsFrame(a) && s.wantsFrame(b))
        #expect(try frame(s, b)?.layers.contains { $0.id == .background } == true)
    }

    @Test func dragOutsideThePlotDoesNothing() {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let before = xRange(s)
        drag(s, v, from: (2, 2), to: (200, 200))
        #expect(xRange(s) == before)
    }

    @Test func wheelZoomsAboutThePointer() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let layout = s.layout(size: Fixtures.size)
        let px = layout.plotRect.minX + layout.plotRect.width * 0.25
        let anchor = layout.axis("x")!.calculator.value(px)
        let before = xRange(s)
        _ = s.receive(.wheel(WheelEvent(x: px, y: layout.plotRect.midY, deltaY: -100)), from: v)
        let after = xRange(s)
        #expect(abs(after.span - before.span / 1.2) < 1e-9)  // zoomed in by the step factor
        let newLayout = s.layout(size: Fixtures.size)
        #expect(abs(newLayout.axis("x")!.calculator.value(px) - anchor) < 1e-9)
        // Zoom out again: back to the same span.
        _ = s.receive(.wheel(WheelEvent(x: px, y: layout.plotRect.midY, deltaY: 100)), from: v)
        #expect(abs(xRange(s).span - before.span) < 1e-9)
    }

    @Test func zoomingFarInOrOutStaysUsable() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let plot = s.layout(size: Fixtures.size).plotRect
        for _ in 0..<400 { _ = s.receive(.wheel(WheelEvent(x: plot.midX + 3, y: plot.midY, deltaY: -500)), from: v) }
        let narrow = xRange(s)
        #expect(narrow.span > 0 && narrow.span >= max(abs(narrow.min), abs(narrow.max)) * Chart.minRelativeSpan)
        var layout = s.layout(size: Fixtures.size)
        #expect(layout.invariantViolations() == [])
        #expect(layout.axis("x")!.labels.count >= 2)
        for _ in 0..<2000 { _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: 500)), from: v) }
        let wide = xRange(s)
        #expect(wide.isValid && wide.span.isFinite)
        layout = s.layout(size: Fixtures.size)
        #expect(layout.invariantViolations() == [])
        #expect(layout.axis("x")!.labels.count >= 2)
        #expect(try frame(s, v) != nil)
    }

    @Test func scrollingChartHoldsAfterPanAndResumesOnDoubleClick() throws {
        let s = Fixtures.session(Fixtures.followChart())
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        s.advance(to: 1000)      // the session starts
        s.advance(to: 1020)      // 20 s of data at 10 Hz
        #expect(xRange(s) == DoubleRange(10, 20))
        let plot = s.layout(size: Fixtures.size).plotRect
        drag(s, v, from: (plot.midX, plot.midY), to: (plot.midX + 50, plot.midY))
        let held = xRange(s)
        #expect(held.max < 20)
        s.advance(to: 1025)
        #expect(xRange(s) == held)   // new data does not move a view the user placed
        _ = s.receive(.doubleClick(DoubleClickEvent(x: plot.midX, y: plot.midY)), from: v)
        // Zoom extents flies there in 0.3 s on the session's clock, then follows again.
        #expect(!s.chart.isFollowingData && xRange(s) == held)
        s.advance(to: 1025)
        s.advance(to: 1025.15)
        let midway = xRange(s)
        #expect(midway.min > held.min && midway.max < 25.2)
        s.advance(to: 1025.31)
        #expect(s.chart.isFollowingData)
        #expect(abs(xRange(s).max - 25.3) < 1e-9 && abs(xRange(s).span - 10) < 1e-9)
    }

    /// A generator of Unix time counts from the wall clock the session started at, and
    /// its time axis labels that clock.
    @Test func unixTimeGeneratorFeedsATimeAxis() throws {
        let spec = #"{"sessions":[{"id":"u","chart":{"xAxes":[{"id":"t","type":"time","mode":"follow","window":60}],"#
            + #""series":[{"id":"s","generator":{"kind":"sine","rate":10,"time":"unix"}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let start = 1_795_444_200.0     // 2026-11-23T14:30:00Z
        s.advance(to: 500, unixTime: start)
        s.advance(to: 560, unixTime: start + 60)
        #expect(s.chart.series[0].data.x(0) == start)
        #expect(s.chart.series[0].data.lastX == start + 60)
        let labels = s.layout(size: Fixtures.size).axis("t")!.ticks.map(\.label)
        #expect(labels.contains("14:30:30") && labels.allSatisfy { $0.hasPrefix("14:3") })
    }

    /// The issue's complaint: an append that widened the Y labels moved the plot. By
    /// default an axis keeps the room of the widest labels it has shown; with
    /// `"labelSpace": "current"` the plot follows the labels both ways.
    @Test(arguments: [("maxPresentedSize", true), ("current", false)])
    func plotKeepsItsPlaceAsLabelsNarrow(mode: String, keeps: Bool) throws {
        let spec = #"{"sessions":[{"id":"l","chart":{"yAxes":[{"id":"y","mode":"visible","labelSpace":""# + mode + #""}],"#
            + #""series":[{"id":"s","capacity":3,"data":{"x":[0,1,2],"y":[1,2,3]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        func left() throws -> Double {
            publish(s)
            _ = try #require(s.nextFrame(for: v))
            _ = s.receive(.ack, from: v)
            return s.layout(size: Fixtures.size).plotRect.minX
        }
        let narrow = try left()
        try s.append(seriesId: "s", xs: [3, 4, 5], ys: [123_456.5, 2, 3])   // wide labels
        let wide = try left()
        #expect(wide > narrow)
        try s.append(seriesId: "s", xs: [6, 7, 8], ys: [1, 2, 3])            // narrow again (FIFO of 3)
        #expect(try left() == (keeps ? wide : narrow))
    }

    /// Exponential data on a logarithmic Y axis is drawn as a straight line, labelled
    /// at powers of ten; a wheel zoom keeps the value under the pointer.
    @Test func logarithmicAxisStraightensExponentials() throws {
        let xs = (0...200).map { Double($0) / 2 }
        let ys = xs.map { pow(10, $0 / 20) }      // 1 ... 100000
        let spec = #"{"sessions":[{"id":"g","chart":{"yAxes":[{"id":"y","type":"logarithmic","mode":"extents","growBy":[0,0]}],"#
            + #""modifiers":[{"type":"mouseWheelZoom","direction":"y"}],"#
            + #""series":[{"id":"s","data":{"x":["# + xs.map { "\($0)" }.joined(separator: ",") + #"],"y":["#
            + ys.map { "\($0)" }.joined(separator: ",") + "]}}]}}]}"
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let layout = s.layout(size: Fixtures.size)
        #expect(layout.axis("y")!.ticks.map(\.label) == ["1", "10", "100", "1000", "10K", "100K"])
        let list = s.displayList(size: Fixtures.size)
        let line = try #require(list.layers.first { $0.id == .series }?.commands.compactMap { cmd -> ColumnLine? in
            if case let .columns(c) = cmd { return c } else { return nil }
        }.first)
        let points = line.polylines.flatMap { p in stride(from: 0, to: p.count, by: 2).map { (Double(p[$0]), Double(p[$0 + 1])) } }
        let (a, b) = (points.first!, points.last!)
        for (x, y) in points {     // on the chord from first to last, within a device pixel
            let onChord = a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0)
            #expect(abs(y - onChord) <= 1.01, "(\(x), \(y)) is off the line")
        }
        // Zoom in about the pixel of 100: 100 stays there.
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let y100 = layout.axis("y")!.calculator.pixel(100)
        _ = s.receive(.wheel(WheelEvent(x: layout.plotRect.midX, y: y100, deltaX: 0, deltaY: -300)), from: v)
        let after = s.layout(size: Fixtures.size).axis("y")!.calculator
        #expect(after.range.span < 9e4 && abs(after.value(y100) - 100) < 1e-6)
    }

    @Test func viewerLeavingMidDragLeavesNoState() {
        let pan = ZoomPanModifier()
        let s = Fixtures.session(Fixtures.staticChart(modifiers: [pan]))
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.pointer(PointerEvent(phase: .down, x: plot.midX, y: plot.midY, buttons: 1)), from: v)
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX + 20, y: plot.midY, buttons: 1)), from: v)
        #expect(pan.activeDrags == 1)
        s.disconnect(v)
        #expect(pan.activeDrags == 0)
    }
}

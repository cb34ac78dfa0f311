import Foundation
import Synchronization
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The independent view mode: each viewer pans, zooms and selects in a view of its
/// own over the shared data.
@Suite struct ViewModeTests {
    static let spec = """
        {"id": "ind", "viewMode": "independent", "chart": {
          "series": [{"id": "a", "data": {"x": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "y": [1, 3, 2, 4, 3, 5, 4, 6, 5, 7]}}],
          "modifiers": [{"type": "zoomPan"}, {"type": "mouseWheelZoom"}, {"type": "zoomExtents", "duration": 0}, {"type": "rollover"}]}}
        """

    func session(_ spec: String = spec) throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(spec)).makeSession(measurer: TestFonts.measurer)
    }

    /// Hello, and the first frame collected and acknowledged.
    func join(_ s: Session, token: String? = nil) -> ViewerID {
        let v = s.connect()
        _ = s.receive(.hello(Fixtures.size, format: .binary, token: token), from: v)
        drain(s, v)
        return v
    }

    /// Collects (and acknowledges) every frame owed to `v`; returns how many.
    @discardableResult
    func drain(_ s: Session, _ v: ViewerID) -> Int {
        var n = 0
        while let out = s.nextFrame(for: v) {
            if case .binary = out { n += 1; _ = s.receive(.ack, from: v) }
        }
        return n
    }

    func xRange(_ s: Session, _ v: ViewerID) -> DoubleRange? {
        s.surface(s.viewers[v]!).chart.visibleRange("x")
    }

    @Test func eachViewerZoomsItsOwnView() throws {
        let s = try session()
        s.publish(now: 0)
        let a = join(s), b = join(s)
        let home = try #require(xRange(s, a))
        _ = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: a)
        s.publish(now: 1)
        #expect(s.viewers[a]?.view != nil && s.viewers[b]?.view == nil)
        let zoomed = try #require(xRange(s, a))
        #expect(zoomed.span < home.span, "a zoomed in")
        #expect(xRange(s, b) == home && s.chart.axis("x")?.userRange == nil, "b and the session's chart did not move")
        #expect(drain(s, a) == 1 && drain(s, b) == 0, "only a is sent a frame")

        // New data reaches both views; a keeps its zoom (and, the new point being
        // outside it, is sent nothing: its pixels did not change).
        _ = try s.append(seriesId: "a", xs: [10], ys: [8])
        s.publish(now: 2)
        #expect(drain(s, a) == 0 && drain(s, b) == 1)
        #expect(xRange(s, a) == zoomed && s.surface(s.viewers[a]!).chart.series[0].data.count == 11)
        #expect(xRange(s, b)!.max > home.max, "b follows the data")

        // Zooming home puts a back on the shared view.
        _ = s.receive(.doubleClick(DoubleClickEvent(x: 400, y: 250)), from: a)
        s.advance(to: 3)
        s.publish(now: 3)
        #expect(s.viewers[a]?.view == nil, "back on the shared view")
        #expect(drain(s, a) == 1)
    }

    /// A view's animated zoom home needs the session's clock until it ends (the
    /// transport asks after every message, and only a step of the clock works it out
    /// anew over all views); acknowledgements alone change nothing.
    @Test func aViewGlidingHomeRunsTheClock() throws {
        let s = try session(Self.spec.replacingOccurrences(of: #""duration": 0"#, with: #""duration": 0.3"#))
        s.publish(now: 0)
        let a = join(s), b = join(s)
        #expect(!s.needsClock)
        _ = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: a)
        s.advance(to: 0.1)
        s.publish(now: 0.1)
        drain(s, a); drain(s, b)
        #expect(s.viewers[a]?.view != nil && !s.needsClock, "a zoomed view at rest")
        _ = s.receive(.doubleClick(DoubleClickEvent(x: 400, y: 250)), from: a)
        #expect(s.needsClock, "the glide home starts at once")
        var t = 0.1, steps = 0
        while s.needsClock, steps < 100 {
            t += 0.02; steps += 1
            s.advance(to: t); s.publish(now: t)
            drain(s, a); drain(s, b)
        }
        #expect(steps >= 10 && steps < 30, "about 0.3 s of steps (\(steps))")
        #expect(s.viewers[a]?.view == nil && !s.needsClock, "home, on the shared view, clock idle")
    }

    /// Views render concurrently (`renderThreads`): every viewer is sent, frame for
    /// frame, the bytes a session rendering on one thread sends it. Viewers zoom y each by
    /// their own amount (two alike, sharing a view; two at another size) while the chart
    /// scrolls with appended data.
    @Test func viewsRenderedOnSeveralThreadsSendWhatOneThreadSends() throws {
        let spec = """
            {"id": "many", "viewMode": "independent", "chart": {
              "xAxes": [{"id": "x", "mode": "follow", "window": 40}],
              "series": [{"id": "a", "capacity": 400}, {"id": "b", "capacity": 400, "type": "area"}]}}
            """
        func run(threads: Int) throws -> (frames: [[[UInt8]]], views: Int) {
            let s = try session(spec)
            s.renderThreads = threads
            var rng = SplitMix(seed: 7)
            var t = 0.0
            func feed(_ n: Int) throws {
                let xs = (0..<n).map { Double($0) * 0.25 + t }
                t += Double(n) * 0.25
                _ = try s.append(seriesId: "a", xs: xs, ys: xs.map { sin($0 / 3) * 10 + Double(rng.next() % 100) / 50 })
                _ = try s.append(seriesId: "b", xs: xs, ys: xs.map { cos($0 / 5) * 8 })
            }
            try feed(200)
            s.publish(now: 0)
            var ids: [ViewerID] = []
            for i in 0..<12 {
                let v = s.connect()
                let size = i % 6 == 5 ? ViewerSize(width: 640, height: 360, dpr: 2) : Fixtures.size
                _ = s.receive(.hello(size, format: .binary, token: nil), from: v)
                drain(s, v)
                let turn = i == 3 ? -90 : -30 - 10 * Double(i % 7)
                _ = s.receive(.wheel(WheelEvent(x: 300, y: 100 + Double(i) * 20, deltaY: turn, shift: true)), from: v)
                ids.append(v)
            }
            _ = s.receive(.wheel(WheelEvent(x: 300, y: 160, deltaY: -90, shift: true)), from: ids[0])
            var frames = [[[UInt8]]](repeating: [], count: ids.count)
            for step in 1...25 {
                try feed(1 + step % 3)
                s.publish(now: Double(step) / 30)
                // Data arriving while views still render (on another thread) is the next
                // publication's: these frames show what was there when this one began.
                if step % 2 == 0 { try feed(2) }
                for (k, v) in ids.enumerated() {
                    while let out = s.nextFrame(for: v, now: Double(step) / 30) {
                        if case let .binary(b) = out { frames[k].append(b); _ = s.receive(.ack, from: v) }
                    }
                }
            }
            // What each view shows is what a fresh render of its chart (no memo, no
            // ticks lent by other views) draws.
            for v in ids {
                let view = try #require(s.viewers[v]?.view), size = try #require(s.viewers[v]?.size)
                let fresh = ChartRenderer(measurer: TestFonts.measurer)
                    .render(view.chart, size: Size(width: Double(size.width), height: Double(size.height)), dpr: size.dpr)
                let entry = try #require(view.cache.entry(size))
                for id in LayerID.shared {
                    let same = entry.layers[id]?.commands ?? [] == fresh.layers[id] ?? []
                    #expect(same, "layer \(id) of viewer \(v) as a fresh render draws it")
                }
            }
            #expect(s.sharedTicks.hits > 100, "views found the x axis' ticks made (\(s.sharedTicks.hits) times)")
            return (frames, s.distinctViews.count)
        }
        let one = try run(threads: 1), several = try run(threads: 4)
        #expect(one.views >= 8, "most viewers have a view of their own (\(one.views))")
        #expect(one.frames.allSatisfy { $0.count >= 20 }, "every viewer is sent the scrolling frames")
        #expect(several.views == one.views)
        for k in one.frames.indices {
            let same = several.frames[k] == one.frames[k]
            #expect(same, "viewer \(k) is sent the same frames (\(several.frames[k].count) and \(one.frames[k].count))")
        }
    }

    /// Appends a point and publishes until the render thread took views, which it
    /// cannot while another test's session has it (the transport then renders them all
    /// itself): the viewers whose views it holds.
    /// (Each try appends at the next whole x, `x` counting them: a point that moved no
    /// pixel of a view would leave its viewer owed no frame.)
    func publishWithTheRenderThread(_ s: Session, _ ids: [ViewerID], x: inout Double, at now: Double) throws -> [ViewerID] {
        for attempt in 0..<200 {
            if attempt > 0 { ids.forEach { drain(s, $0) }; usleep(5_000) }
            x += 1
            _ = try s.append(seriesId: "a", xs: [x], ys: [4])
            s.publish(now: now + Double(attempt) / 256)
            let rendering = ids.filter { s.isRendering($0) }
            if !rendering.isEmpty { return rendering }
        }
        return []
    }

    /// A publication hands some views to a render thread and returns: their viewers are
    /// marked rendering (no frame asked of them would be ready), and once the thread is
    /// done `takeReadyViewers` names exactly them, each then owed its frame. A viewer's
    /// gesture meanwhile waits for its view, and its frame then shows the gesture.
    @Test func viewsStillRenderingAreCollectedWhenDone() throws {
        guard RenderLanes.shared.count > 1 else { return }   // (one processor: no render thread)
        let s = try session()
        s.renderThreads = 2
        // (The render thread takes nearly all views: they are still rendering when the
        // transport's few are done and `publish` returns.)
        s.transportShare = 0.1
        let ids = (0..<16).map { i -> ViewerID in
            let v = join(s)
            _ = s.receive(.wheel(WheelEvent(x: 300, y: 100 + Double(i) * 10, deltaY: -30 - Double(i), shift: true)), from: v)
            drain(s, v)
            return v
        }
        // The render thread is held back until `publish` has returned: otherwise, on a
        // fast machine or with the transport's thread descheduled, it could be done
        // first and leave nothing rendering to collect.
        let release = DispatchSemaphore(value: 0)
        s.renderThreadHold = { release.wait() }
        var x = 9.0
        let rendering = Set(try publishWithTheRenderThread(s, ids, x: &x, at: 1))
        release.signal()
        #expect(!rendering.isEmpty && rendering.count < ids.count, "the render thread took some views (\(rendering.count))")
        var ready = Set<ViewerID>()
        for _ in 0..<10_000 where s.hasRenderingWork {
            ready.formUnion(s.takeReadyViewers())
            if s.hasRenderingWork { usleep(200) }
        }
        #expect(ready == rendering)
        #expect(ids.allSatisfy { !s.isRendering($0) && s.wantsFrame($0) })

        // A gesture while a view renders: the session waits for the view, then applies it.
        ids.forEach { drain(s, $0) }
        let again = DispatchSemaphore(value: 0)
        s.renderThreadHold = { again.wait() }
        let busy = try #require(try publishWithTheRenderThread(s, ids, x: &x, at: 2).first)
        // (Let go a little after the wheel arrives, which waits for the view meanwhile.)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { again.signal() }
        let before = try #require(s.surface(s.viewers[busy]!).chart.visibleRange("x"))
        _ = s.receive(.wheel(WheelEvent(x: 300, y: 150, deltaY: -120)), from: busy)
        #expect(!s.isRendering(busy))
        let after = try #require(s.surface(s.viewers[busy]!).chart.visibleRange("x"))
        #expect(after.span < before.span, "the wheel zoomed the view in x")
    }

    /// Runs from several threads at once (sessions a host drives from threads of its
    /// own): each run does every item once, whichever gets the workers.
    @Test func renderLanesServeRunsFromSeveralThreadsAtOnce() {
        let lanes = RenderLanes.shared.count
        let lists = (0..<lanes).map { k in Array(stride(from: k, to: 400, by: lanes)) }
        let results = Mutex([[Int]](repeating: [], count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { run in
            for _ in 0..<20 {
                let done = Mutex([Int]())
                RenderLanes.shared.run(lists: lists) { item in done.withLock { $0.append(item) } }
                let items = done.withLock { $0 }.sorted()
                results.withLock { $0[run] = items }
                if items != Array(0..<400) { return }
            }
        }
        let all = results.withLock { $0 }
        #expect(all.allSatisfy { $0 == Array(0..<400) }, "every run did each item once")
    }

    /// A view synced from the session's chart takes its data and definition and keeps
    /// its own state of each series (hidden, selected, rotation), also when the session's
    /// series change order or one is added; a view with no state of its own shares the
    /// session's series as they are.
    @Test func aSyncedViewKeepsItsOwnSeriesState() throws {
        let model = Fixtures.staticChart()
        let view = model.makeView(modifiers: [])
        view.setHidden("s", true)
        view.setSelected("s", true)
        try model.append(seriesId: "s", xs: [100], ys: [100])
        view.syncView(from: model)
        let s = try #require(view.series.first)
        #expect(s.isHidden && s.isSelected && s.data.count == 101)
        #expect(!model.series[0].isHidden && !model.series[0].isSelected)
        // A series added before it (a redefined chart): the view's state follows its series by id.
        let redefined = Chart(title: "Static", xAxes: model.axes.filter(\.isXAxis).map(\.config),
                              yAxes: model.axes.filter { !$0.isXAxis }.map(\.config),
                              series: [Series(id: "t", name: "T", color: "#000", xAxisId: "x", yAxisId: "y"), model.series[0]])
        view.syncView(from: redefined)
        #expect(view.series.map(\.id) == ["t", "s"])
        #expect(!view.series[0].isHidden && view.series[1].isHidden && view.series[1].isSelected)
        // Shown again in the view: it now matches the session's state and reads its series.
        view.setHidden("s", false)
        view.setSelected("s", false)
        view.syncView(from: redefined)
        #expect(view.series.map(\.isHidden) == [false, false] && !view.series[1].isSelected)
    }

    @Test func viewersWhoseViewsShowTheSameShareThem() throws {
        let s = try session()
        s.publish(now: 0)
        let a = join(s), b = join(s)
        let wheel = ClientMessage.wheel(WheelEvent(x: 400, y: 250, deltaY: -300))
        _ = s.receive(wheel, from: a)
        _ = s.receive(wheel, from: b)
        let shared = try #require(s.viewers[a]?.view)
        #expect(s.viewers[b]?.view === shared, "the same zoom: one view, rendered once")
        #expect(s.distinctViews.count == 1)
        s.publish(now: 1)
        #expect(drain(s, a) == 1 && drain(s, b) == 1)
        // a zooms on: it gets a view of its own again, b's stays where it was.
        let bRange = xRange(s, b)
        _ = s.receive(wheel, from: a)
        #expect(s.viewers[a]?.view !== shared && s.viewers[b]?.view === shared)
        #expect(xRange(s, b) == bRange && xRange(s, a)!.span < bRange!.span)
        #expect(s.distinctViews.count == 2)
    }

    @Test func viewersWhoseTokenOnlyWatchesStillZoomTheirOwnView() throws {
        let s = try session()
        s.access = SessionAccess(viewerTokens: ["watch-token-1"], controllerTokens: [], anonymous: nil)
        s.publish(now: 0)
        let v = s.connect()
        let welcome = try #require(s.receive(.hello(Fixtures.size, format: .binary, token: "watch-token-1"), from: v).first?.json)
        #expect(welcome["viewMode"] == "independent" && welcome["role"] == "viewer")
        #expect(welcome["consumes"]?.arrayValue?.contains("drag") == true, "its own view takes its drags")
        drain(s, v)
        let replies = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: v)
        #expect(replies.isEmpty, "no read_only: the zoom is its own")
        #expect(s.viewers[v]?.view?.chart.axis("x")?.userRange != nil && s.chart.axis("x")?.userRange == nil)
    }

    @Test func hoveringNeedsNoViewOfItsOwn() throws {
        let s = try session()
        s.publish(now: 0)
        let a = join(s)
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: 400, y: 250, buttons: 0, pointerType: .mouse)), from: a)
        #expect(s.viewers[a]?.view == nil)
        #expect(drain(s, a) == 1, "its rollover is drawn in its own layer")
    }

    @Test func inTheSharedModeEveryoneSeesOneZoom() throws {
        let s = try session(Self.spec.replacingOccurrences(of: "independent", with: "shared"))
        s.publish(now: 0)
        let a = join(s), b = join(s)
        _ = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: a)
        s.publish(now: 1)
        #expect(s.viewers[a]?.view == nil && s.chart.axis("x")?.userRange != nil)
        #expect(drain(s, a) == 1 && drain(s, b) == 1)
    }

    @Test func aRedefinitionSendsViewersBackToTheSharedView() throws {
        let s = try session()
        s.publish(now: 0)
        let a = join(s)
        _ = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: a)
        #expect(s.viewers[a]?.view != nil)
        try s.applyPatch(foundationJSON(#"{"viewMode": "shared"}"#))
        #expect(s.viewers[a]?.view == nil && s.viewMode == .shared)
    }
}

/// Event groups: linked x ranges, and a pointer shown on every chart of the group.
@Suite struct EventGroupTests {
    func hub() throws -> SessionHub {
        let specs = try ConfigSpec.decode(foundationJSON("""
            {"sessions": [
              {"id": "a", "eventGroup": "g", "chart": {"series": [{"id": "s", "data": {"x": [0, 10, 20, 30, 40], "y": [1, 2, 3, 2, 1]}}],
                "modifiers": [{"type": "mouseWheelZoom"}, {"type": "rollover"}]}},
              {"id": "b", "eventGroup": "g", "chart": {"series": [{"id": "s", "data": {"x": [0, 10, 20, 30, 40], "y": [5, 4, 3, 4, 5]}}],
                "modifiers": [{"type": "rollover"}]}},
              {"id": "c", "chart": {"series": [{"id": "s", "data": {"x": [0, 40], "y": [0, 1]}}]}}
            ]}
            """))
        return SessionHub(sessions: []).adding(specs.map { $0.makeSession(measurer: TestFonts.measurer) })
    }

    @Test func aZoomOfOneChartMovesTheOthersOfItsGroup() throws {
        let h = try hub()
        let (a, b, c) = (h.session("a")!, h.session("b")!, h.session("c")!)
        let v = a.connect()
        _ = a.receive(.hello(Fixtures.size, format: .binary, token: nil), from: v)
        _ = a.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: v)
        let zoomed = try #require(a.chart.axis("x")?.userRange)
        #expect(b.chart.axis("x")?.userRange == zoomed, "b follows a")
        #expect(c.chart.axis("x")?.userRange == nil, "c is in no group")
        _ = a.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: 300)), from: v)
        #expect(b.chart.axis("x")?.userRange == a.chart.axis("x")?.userRange)
    }

    @Test func aPointerOverOneChartShowsOnTheOthers() throws {
        let h = try hub()
        let (a, b) = (h.session("a")!, h.session("b")!)
        let va = a.connect(), vb = b.connect()
        _ = a.receive(.hello(Fixtures.size, format: .binary, token: nil), from: va)
        _ = b.receive(.hello(ViewerSize(width: 500, height: 300, dpr: 1), format: .binary, token: nil), from: vb)
        let move = PointerEvent(phase: .move, x: 400, y: 250, buttons: 0, pointerType: .mouse)
        _ = a.receive(.pointer(move), from: va)
        let at = try #require(a.groupLocation(of: move, viewer: va))
        #expect(at.x > 0 && at.x < 40 && at.yFraction > 0 && at.yFraction < 1)
        b.receiveGroupPointer(move, at: at, source: a.chart, viewer: vb)
        // b's viewer now has a rollover line where a's pointer is, in b's own pixels.
        let rollover = b.chart.modifiers.compactMap { $0 as? RolloverModifier }.first!
        let layout = b.layout(size: ViewerSize(width: 500, height: 300, dpr: 1))
        let lines = rollover.overlay(for: vb, layout: layout)
        // The line is at a's data x in b's pixels (b is 500 px wide, a 800).
        let x = try #require(layout.axis("x")?.calculator.pixel(at.x))
        guard case let .segments(coords, _, _, _)? = lines.first else { Issue.record("no rollover line on b: \(lines)"); return }
        #expect(abs(Double(coords[0]) - x) < 1 && abs(Double(coords[2]) - x) < 1)
        #expect(x < 400, "b's pixel, not a's")
    }

    /// The sequence of the dashboard integration test (/d/ops: an independent chart and
    /// a shared one in one event group, live data, a hover over the first shown on the
    /// second, a wheel that gives the first a view of its own, a double click back):
    /// a viewer that applies every frame it is sent, in order, holds the base of every
    /// patch (views keep version counters of their own; moving between them starts the
    /// viewer afresh), and after catching up holds what a fresh render draws. (That
    /// test's flake, "patch for version 10, holding 2", was the test skipping frames.)
    @Test func aViewerApplyingEveryFrameHoldsEachPatchsBaseAcrossViewsAndGroupPointers() throws {
        let specs = try ConfigSpec.decode(foundationJSON("""
            {"sessions": [
              {"id": "a", "viewMode": "independent", "eventGroup": "g", "chart": {
                "xAxes": [{"id": "x", "alignment": "bottom", "mode": "follow", "window": 30}],
                "series": [{"id": "s", "data": {"x": [0, 1, 2], "y": [1, 3, 2]}}],
                "modifiers": [{"type": "mouseWheelZoom"}, {"type": "zoomExtents", "duration": 0}, {"type": "rollover"}]}},
              {"id": "b", "eventGroup": "g", "chart": {
                "xAxes": [{"id": "x", "alignment": "bottom", "mode": "follow", "window": 30}],
                "series": [{"id": "s", "data": {"x": [0, 1, 2], "y": [5, 4, 3]}}],
                "modifiers": [{"type": "rollover"}]}}
            ]}
            """))
        let h = SessionHub(sessions: []).adding(specs.map { $0.makeSession(measurer: TestFonts.measurer) })
        let (a, b) = (h.session("a")!, h.session("b")!)
        let sizeA = ViewerSize(width: 900, height: 300, dpr: 1), sizeB = ViewerSize(width: 450, height: 300, dpr: 1)
        let va = a.connect(), vb = b.connect()
        _ = a.receive(.hello(sizeA, format: .binary, token: nil), from: va)
        _ = b.receive(.hello(sizeB, format: .binary, token: nil), from: vb)
        var heldA = HeldDisplayList(), heldB = HeldDisplayList()
        var patches = 0, frames = 0
        /// Takes what the window allows, applying each frame; acknowledges each unless
        /// `lagging` (then the window fills and the viewer falls behind).
        func take(_ s: Session, _ v: ViewerID, _ held: inout HeldDisplayList, lagging: Bool, now: Double) throws {
            while let out = s.nextFrame(for: v, now: now) {
                guard case let .binary(bytes) = out else { continue }
                let frame = try BinaryFrame.decodeFrame(bytes)
                patches += frame.layers.filter { if case .patch = $0 { true } else { false } }.count
                frames += 1
                try held.apply(frame)
                if !lagging { _ = s.receive(.ack, from: v) }
            }
        }
        var steered = false, wentHome = false
        for step in 0..<60 {
            let now = Double(step) * 0.1, x = 3 + Double(step) * 0.5
            _ = try a.append(seriesId: "s", xs: [x], ys: [sin(x)])
            _ = try b.append(seriesId: "s", xs: [x], ys: [cos(x)])
            a.advance(to: now); b.advance(to: now)
            a.publish(now: now); b.publish(now: now)
            if step == 15 {
                // A hover over a, shown on b as the dashboard's transport does.
                let move = PointerEvent(phase: .move, x: 450, y: 150, buttons: 0, pointerType: .mouse)
                _ = a.receive(.pointer(move), from: va, at: now)
                let at = try #require(a.groupLocation(of: move, viewer: va))
                b.receiveGroupPointer(move, at: at, source: a.chart, viewer: vb)
            }
            if step == 25 {
                _ = a.receive(.wheel(WheelEvent(x: 450, y: 150, deltaY: -300)), from: va, at: now)
                steered = a.viewers[va]?.view != nil
            }
            if step == 45 {
                _ = a.receive(.doubleClick(DoubleClickEvent(x: 450, y: 150)), from: va, at: now)
                a.advance(to: now + 0.05)
                a.publish(now: now + 0.05)
                wentHome = a.viewers[va]?.view == nil
            }
            // Every third step the viewers do not acknowledge: frames queue behind the
            // window, and the next frames patch from what was sent, not what was acked.
            try take(a, va, &heldA, lagging: step % 3 == 0, now: now)
            try take(b, vb, &heldB, lagging: step % 3 == 0, now: now)
            if step % 3 == 0 {
                while a.receive(.ack, from: va).isEmpty {}
                while b.receive(.ack, from: vb).isEmpty {}
            }
        }
        #expect(steered && wentHome, "a had a view of its own, then came back to the shared one")
        #expect(patches > 20 && frames > 60, "\(patches) patches in \(frames) frames")
        // Caught up, each holds what a fresh render draws.
        for (s, v, held, size) in [(a, va, heldA, sizeA), (b, vb, heldB, sizeB)] {
            var held = held
            try take(s, v, &held, lagging: false, now: 100)
            let fresh = ChartRenderer(measurer: TestFonts.measurer)
                .render(s.chart, size: Size(width: Double(size.width), height: Double(size.height)), dpr: size.dpr).layers
            for id in LayerID.shared {
                #expect(held.layers[id]?.commands == fresh[id] ?? [], "\(s.id), \(id)")
            }
        }
    }
}

extension SessionHub {
    func adding(_ sessions: [Session]) -> SessionHub { for s in sessions { add(s) }; return self }
}

/// Presence: every viewer sees where the others point.
@Suite struct PresenceTests {
    @Test func othersPointersShowInEachViewersOwnLayer() throws {
        let s = try ConfigSpec.decodeSession(foundationJSON("""
            {"id": "p", "chart": {"series": [{"id": "s", "data": {"x": [0, 100], "y": [0, 100]}}],
              "modifiers": [{"type": "presence"}]}}
            """)).makeSession(measurer: TestFonts.measurer)
        let big = ViewerSize(width: 1000, height: 600, dpr: 1), small = ViewerSize(width: 500, height: 300, dpr: 1)
        let a = s.connect(), b = s.connect()
        _ = s.receive(.hello(big, format: .binary, token: nil), from: a)
        _ = s.receive(.hello(small, format: .binary, token: nil), from: b)
        s.publish(now: 0)
        for v in [a, b] { while s.nextFrame(for: v) != nil { _ = s.receive(.ack, from: v) } }
        #expect(!s.wantsFrame(b))
        // a points at the middle of its plot.
        let plotA = s.layout(size: big).plotRect
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plotA.midX, y: plotA.midY, buttons: 0, pointerType: .mouse)), from: a)
        #expect(s.wantsFrame(b), "b is sent a's pointer")
        let presence = try #require(s.chart.modifiers.first as? PresenceModifier)
        let spot = try #require(presence.spot(of: a))
        let plotB = s.layout(size: small).plotRect
        let onB = presence.overlay(for: b, layout: s.layout(size: small))
        guard case let .text(x, y, text, _, _, _, _, _)? = onB.last else { Issue.record("nothing drawn for b: \(onB)"); return }
        #expect(text == "#\(a)")
        // At the same data point, in b's smaller plot: its middle.
        #expect(abs(Double(x) - 8 - plotB.midX) < 1 && abs(Double(y) + 6 - plotB.midY) < 1, "\(spot)")
        #expect(presence.overlay(for: a, layout: s.layout(size: big)).isEmpty, "a does not see itself")
        // a leaves: its spot goes for everyone.
        s.disconnect(a)
        #expect(presence.overlay(for: b, layout: s.layout(size: small)).isEmpty)
    }

    /// A cluster's other nodes (docs/cluster.md, "Presence between nodes"): their
    /// viewers' spots are handed in per node, shown to every viewer here labelled with
    /// the node, replaced by the node's next set, and gone with an empty one; this
    /// node's own spots are what it publishes, and only their changes count.
    @Test func otherNodesSpotsShowAndGo() throws {
        let s = try ConfigSpec.decodeSession(foundationJSON("""
            {"id": "p", "chart": {"xAxes": [{"id": "x", "mode": "fixed", "range": [0, 100]}],
              "yAxes": [{"id": "y", "mode": "fixed", "range": [0, 100]}],
              "series": [{"id": "s", "data": {"x": [0, 100], "y": [0, 100]}}], "modifiers": [{"type": "presence"}]}}
            """)).makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 800, height: 500, dpr: 1)
        let a = s.connect()
        _ = s.receive(.hello(size, format: .binary, token: nil), from: a)
        s.publish(now: 0)
        while s.nextFrame(for: a) != nil { _ = s.receive(.ack, from: a) }
        #expect(!s.wantsFrame(a))
        let presence = try #require(s.presence)
        let layout = s.layout(size: size)
        func labels() -> [String] {
            presence.overlay(for: a, layout: layout).compactMap { if case let .text(_, _, t, _, _, _, _, _) = $0 { return t }; return nil }
        }
        // Node "kq7x..." has viewers 1 and 4 pointing; the viewer here is sent them.
        #expect(s.changeOverlays { presence.setRemote(node: "kq7xz", [(1, 25, 50), (4, 75, 50)]) })
        #expect(s.wantsFrame(a))
        #expect(labels() == ["#1\u{b7}kq7", "#4\u{b7}kq7"])
        // Where they point: x = 25 is a quarter along the plot.
        let plot = layout.plotRect
        guard case let .text(x, _, _, _, _, _, _, _)? = presence.overlay(for: a, layout: layout).dropFirst().first else { Issue.record("no label"); return }
        #expect(abs(Double(x) - 8 - (plot.x + plot.width / 4)) < 1)
        while s.nextFrame(for: a) != nil { _ = s.receive(.ack, from: a) }
        // The same set again changes nothing; a new one replaces it; an empty one ends it.
        #expect(!s.changeOverlays { presence.setRemote(node: "kq7xz", [(1, 25, 50), (4, 75, 50)]) })
        #expect(!s.wantsFrame(a))
        #expect(s.changeOverlays { presence.setRemote(node: "kq7xz", [(4, 80, 50)]) })
        #expect(labels() == ["#4\u{b7}kq7"])
        #expect(s.changeOverlays { presence.setRemote(node: "kq7xz", []) })
        #expect(labels().isEmpty && presence.remoteNodes.isEmpty)
        // The local spots are what this node publishes; a pointer that moves changes
        // the version, one that does not move does not.
        let v0 = presence.localVersion
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX, y: plot.midY, buttons: 0, pointerType: .mouse)), from: a)
        #expect(presence.localVersion == v0 + 1)
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX, y: plot.midY, buttons: 0, pointerType: .mouse)), from: a)
        #expect(presence.localVersion == v0 + 1)
        let spots = presence.localSpots
        #expect(spots.count == 1 && spots[0].viewer == a && abs(spots[0].x - 50) < 0.5 && abs(spots[0].y - 50) < 0.5)
        s.disconnect(a)
        #expect(presence.localSpots.isEmpty && presence.localVersion == v0 + 2)
    }
}

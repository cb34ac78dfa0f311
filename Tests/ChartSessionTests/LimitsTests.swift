import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The limits of docs/limits.md at the session level: point budgets, bounded
/// generators, spec caps, event-group rights, and work linear in axes and series.
/// Tests never lower the server-wide limits (other suites run alongside): a session's
/// own `limits` stand in for lowered ones.
@Suite struct LimitsTests {
    func session(_ json: String) throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(json), runtime: true).makeSession(measurer: TestFonts.measurer)
    }

    @Test func limitsParseByName() throws {
        var l = SessionLimits()
        try l.set("sessionPoints=1_000")
        #expect(l.sessionPoints == 1000)
        #expect(try SessionLimits.parse(name: "axesPerChart", value: "7").axesPerChart == 7)
        #expect(throws: SessionLimits.ParseError.self) { try l.set("nope=3") }
        #expect(throws: SessionLimits.ParseError.self) { try l.set("sessions=0") }
        #expect(throws: SessionLimits.ParseError.self) { try l.set("sessions") }
        #expect(Set(SessionLimits.all.map(\.name)).count == SessionLimits.all.count)
    }

    @Test func anAppendPastTheSessionBudgetIsRefusedWholeAndCapacitiesAreNotCounted() throws {
        let s = try session(#"{"id": "b", "chart": {"series": [{"id": "free"}, {"id": "also"}, {"id": "fifo", "capacity": 10}]}}"#)
        var limits = SessionLimits()
        limits.sessionPoints = 100
        s.limits = limits
        #expect(try s.append(seriesId: "free", xs: (0..<60).map(Double.init), ys: Array(repeating: 1, count: 60)) == 60)
        #expect(try s.append(seriesId: "also", xs: (0..<40).map(Double.init), ys: Array(repeating: 1, count: 40)) == 40)
        #expect(s.uncappedPoints == 100)
        do {
            _ = try s.append(seriesId: "free", xs: [100], ys: [1])
            Issue.record("an append past the budget was taken")
        } catch {
            #expect(error.status == 413)
            #expect(error.description.contains("budget of 100 (limit sessionPoints)") && error.description.contains("capacity"))
        }
        #expect(s.chart.series[0].data.count == 60, "nothing of the refused append was stored")
        // A series with a capacity takes any number: it keeps the newest.
        #expect(try s.append(seriesId: "fifo", xs: (0..<1000).map(Double.init), ys: Array(repeating: 1, count: 1000)) == 1000)
        // Making room (removeFirst) lets appends in again; insert and replace are counted too.
        try s.change(seriesId: "free") { (x: inout Series) throws(AppendError) in try x.removeFirst(10) }
        #expect(try s.append(seriesId: "free", xs: [100], ys: [1]) == 1)
        #expect(throws: SessionError.self) {
            try s.change(seriesId: "also", growth: 50) { (x: inout Series) throws(AppendError) in
                try x.replaceAll(xs: (0..<90).map(Double.init), values: [Array(repeating: 1, count: 90)])
            }
        }
    }

    @Test func theServerBudgetCountsEverySessionAndForgetsRemovedOnes() throws {
        let hub = SessionHub()
        let a = try session(#"{"id": "a", "chart": {"series": [{"id": "s"}]}}"#)
        let b = try session(#"{"id": "b", "chart": {"series": [{"id": "s"}]}}"#)
        hub.add(a); hub.add(b)
        var limits = SessionLimits()
        limits.serverPoints = Session.serverUncappedPoints + 150
        a.limits = limits; b.limits = limits
        _ = try a.append(seriesId: "s", xs: (0..<100).map(Double.init), ys: Array(repeating: 0, count: 100))
        #expect(throws: SessionError.self) { try b.append(seriesId: "s", xs: (0..<60).map(Double.init), ys: Array(repeating: 0, count: 60)) }
        hub.remove("a")
        #expect(try b.append(seriesId: "s", xs: (0..<60).map(Double.init), ys: Array(repeating: 0, count: 60)) == 60)
    }

    @Test func generatedSeriesAlwaysHaveACapacity() throws {
        let s = try session(#"{"id": "g", "chart": {"series": [{"id": "g", "generator": {"kind": "sine", "rate": 10000}}]}}"#)
        #expect(s.chart.series[0].data.capacity == SessionLimits.current.generatorCapacity)
        // Built in Swift without one: the first clock step bounds it.
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                          series: [Series(id: "g", name: "g", color: "#000", xAxisId: "x", yAxisId: "y",
                                          generator: DataGenerator(kind: .sine, rate: 1000))])
        for t in 1...150 { chart.runGenerators(elapsed: Double(t)) }
        #expect(chart.series[0].data.capacity == SessionLimits.current.generatorCapacity)
        #expect(chart.series[0].data.count <= SessionLimits.current.generatorCapacity)
    }

    @Test func specsPastTheChartCapsAreRefusedWithTheirPath() throws {
        let axes = (0..<SessionLimits.current.axesPerChart).map { #"{"id": "y\#($0)"}"# }.joined(separator: ",")
        let result = Result { () throws(JSONReadError) in
            try ConfigSpec.decodeSession(foundationJSON(#"{"id": "a", "chart": {"yAxes": [\#(axes)]}}"#), runtime: true)
        }
        guard case let .failure(e) = result else { Issue.record("too many axes were taken"); return }
        #expect(e.path == "$.chart.yAxes")
        #expect(e.message == "\(SessionLimits.current.axesPerChart + 1) axes (xAxes and yAxes together); a chart has at most "
                + "\(SessionLimits.current.axesPerChart) (limit axesPerChart; the server's --limit axesPerChart=N raises it)")
        let series = (0...SessionLimits.current.seriesPerChart).map { #"{"id": "s\#($0)"}"# }.joined(separator: ",")
        #expect(throws: JSONReadError.self) {
            _ = try ConfigSpec.decodeSession(foundationJSON(#"{"id": "a", "chart": {"series": [\#(series)]}}"#), runtime: true)
        }
    }

    /// Wall time of `body`, the best of `runs`.
    func seconds(runs: Int = 2, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            let t = Date()
            try body()
            best = min(best, Date().timeIntervalSince(t))
        }
        return best
    }

    @Test func manyAxesDecodeAndLayOutInLinearTime() throws {
        func spec(_ n: Int) -> JSONValue {
            let axes = (0..<n).map { #"{"id": "y\#($0)"}"# }.joined(separator: ",")
            return foundationJSON(#"{"id": "a", "chart": {"yAxes": [\#(axes)], "series": [{"id": "s", "data": {"x": [0, 1], "y": [0, 1]}}]}}"#)
        }
        let half = SessionLimits.current.axesPerChart / 2
        let (small, large) = (spec(half / 2), spec(half * 2 - 1))
        // Decoded, laid out and drawn (the frame's axes and grid look each axis up).
        let tSmall = try seconds { _ = try ConfigSpec.decodeSession(small, runtime: true).makeSession(measurer: TestFonts.measurer)
            .displayList(size: ViewerSize(width: 400, height: 300, dpr: 1)) }
        let tLarge = try seconds { _ = try ConfigSpec.decodeSession(large, runtime: true).makeSession(measurer: TestFonts.measurer)
            .displayList(size: ViewerSize(width: 400, height: 300, dpr: 1)) }
        // Four times the axes: linear work takes about four times as long, quadratic sixteen.
        #expect(tLarge < tSmall * 8 + 0.05, "\(half / 2) axes: \(tSmall) s, \(half * 2 - 1): \(tLarge) s")
    }

    @Test func oneLineProtocolWriteMakesThousandsOfSeriesInLinearTime() throws {
        // The fastest of three writes, each into a session of its own (the suite runs
        // tests in parallel: one slow moment must not decide a ratio).
        func run(_ n: Int) throws -> Double {
            let body = (0..<n).map { "m,host=h\($0) v=1 1000000000" }.joined(separator: "\n")
            let lines = try LineProtocol.parse(Array(body.utf8), maxLines: n)
            var best = Double.infinity
            for _ in 0..<3 {
                let s = try session(#"{"id": "lp", "lineProtocol": {"unknown": "create"}, "chart": {}}"#)
                best = min(best, try seconds(runs: 1) {
                    let w = try s.write(lines, now: 0)
                    #expect(w.created.count == n && s.chart.series.count == n)
                })
            }
            return best
        }
        let small = try run(2_500), large = try run(5_000)
        #expect(large < small * 3.2 + 0.1, "2500 series: \(small) s, 5000: \(large) s")
    }

    @Test func theFrameCacheKeepsAtMostItsLimitOfCanvasSizesDroppingTheLeastRecent() throws {
        let s = try session(#"{"id": "c", "chart": {"series": [{"id": "s", "data": {"x": [0, 1, 2], "y": [1, 3, 2]}}]}}"#)
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        var cache = FrameCache()
        let limit = SessionLimits.current.canvasSizes
        let sizes = (0..<(limit + 8)).map { ViewerSize(width: 300 + $0, height: 200, dpr: 1) }
        for size in sizes { cache.render(s.chart, size: size, renderer: renderer, dataTime: 0) }
        #expect(cache.entries.count == limit)
        #expect(cache.entry(sizes[0]) == nil && cache.entry(sizes.last!) != nil, "the least recently rendered went first")
        // A size rendered again is recent: the next eviction takes another.
        cache.render(s.chart, size: sizes[10], renderer: renderer, dataTime: 0)
        cache.render(s.chart, size: ViewerSize(width: 999, height: 999, dpr: 1), renderer: renderer, dataTime: 0)
        #expect(cache.entry(sizes[10]) != nil && cache.entry(sizes[8]) == nil && cache.entries.count == limit)
    }

    @Test func aViewerUpToPatchHistoryVersionsBehindIsSentAPatchAndOneFurtherTheWholeLayer() throws {
        let s = try session(#"""
            {"id": "c", "chart": {"xAxes": [{"id": "x", "mode": "fixed", "range": [0, 100]}],
             "yAxes": [{"id": "y", "mode": "fixed", "range": [0, 10]}],
             "series": [{"id": "s", "data": {"x": [0, 1, 2], "y": [1, 3, 2]}}]}}
            """#)
        let renderer = ChartRenderer(measurer: TestFonts.measurer)
        var cache = FrameCache()
        let size = ViewerSize(width: 400, height: 300, dpr: 1)
        let depth = SessionLimits.current.patchHistory
        #expect(depth >= 8, "a page drawing 15-25 frames a second while the series changes up to 60 times comes back more than 4 versions behind")
        var versions: [UInt32] = []
        for k in 0...(depth + 1) {
            // Each point lands in a column of its own: every render is a new version.
            if k > 0 { try s.chart.append(seriesId: "s", xs: [Double(2 + k)], ys: [Double(k % 7) + 1]) }
            cache.render(s.chart, size: size, renderer: renderer, dataTime: 0)
            versions.append(try #require(cache.entry(size)?.layers[.series]?.version))
        }
        #expect(Set(versions).count == versions.count)
        func form(behind: Int) -> String {
            switch cache.layer(.series, size: size, held: versions[versions.count - 1 - behind])?.layer {
            case .patch: "patch"
            case .full: "whole"
            case nil: "nothing"
            }
        }
        #expect(form(behind: 1) == "patch")
        #expect(form(behind: depth) == "patch", "the oldest version kept")
        #expect(form(behind: depth + 1) == "whole", "past the history")
    }

    @Test func chartIdLookupsFollowChangesOfTheLists() throws {
        let s = try session(#"{"id": "a", "chart": {"yAxes": [{"id": "p"}, {"id": "q"}], "series": [{"id": "s1"}, {"id": "s2", "yAxis": "q"}]}}"#)
        #expect(s.chart.seriesIndex("s2") == 1 && s.chart.axis("q")?.id == "q" && s.chart.seriesIndex("nope") == nil)
        try s.replace(with: ConfigSpec.decodeSession(foundationJSON(#"{"id": "a", "chart": {"yAxes": [{"id": "q"}], "series": [{"id": "s2", "yAxis": "q"}]}}"#), runtime: true))
        #expect(s.chart.seriesIndex("s2") == 0 && s.chart.seriesIndex("s1") == nil)
        #expect(s.chart.axis("p") == nil && s.chart.axis("q")?.id == "q")
    }
}

/// Event groups never let a session steer one it has no controller rights on.
@Suite struct EventGroupRightsTests {
    static let token = "steer-token-1"

    func hub() throws -> SessionHub {
        let specs = try ConfigSpec.decode(foundationJSON("""
            {"sessions": [
              {"id": "open", "eventGroup": "g", "chart": {"series": [{"id": "s", "data": {"x": [0, 10, 20, 30, 40], "y": [1, 2, 3, 2, 1]}}],
                "modifiers": [{"type": "mouseWheelZoom"}]}},
              {"id": "prot", "eventGroup": "g", "access": {"controllerTokens": ["\(Self.token)"], "anonymous": "viewer"},
                "chart": {"series": [{"id": "s", "data": {"x": [0, 10, 20, 30, 40], "y": [5, 4, 3, 4, 5]}}],
                "modifiers": [{"type": "mouseWheelZoom"}]}},
              {"id": "other", "eventGroup": "g", "chart": {"series": [{"id": "s", "data": {"x": [0, 40], "y": [0, 1]}}]}}
            ]}
            """))
        let h = SessionHub()
        for s in specs.map({ $0.makeSession(measurer: TestFonts.measurer) }) { h.add(s) }
        return h
    }

    @Test func anAnonymousGestureMovesOnlyTheOpenSessionsOfItsGroup() throws {
        let h = try hub()
        let (open, prot, other) = (h.session("open")!, h.session("prot")!, h.session("other")!)
        let v = open.connect()
        _ = open.receive(.hello(Fixtures.size, format: .binary, token: nil), from: v)
        _ = open.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: v)
        let zoomed = try #require(open.chart.axis("x")?.userRange)
        #expect(other.chart.axis("x")?.userRange == zoomed, "an open peer follows")
        #expect(prot.chart.axis("x")?.userRange == nil, "the protected peer does not")
        #expect(!open.groupMaySteer(prot, viewer: v) && open.groupMaySteer(other, viewer: v))
    }

    @Test func aWatchingViewerOfTheProtectedSessionSteersNothing() throws {
        let h = try hub()
        let (open, prot) = (h.session("open")!, h.session("prot")!)
        let v = prot.connect()
        _ = prot.receive(.hello(Fixtures.size, format: .binary, token: nil), from: v)
        _ = prot.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: -300)), from: v)
        #expect(open.chart.axis("x")?.userRange == nil)
        #expect(!prot.groupMaySteer(open, viewer: v))
    }

    @Test func joiningAGroupWithAProtectedSessionNeedsRightsThere() throws {
        let h = try hub()
        #expect(!h.mayJoin(group: "g", token: nil))
        #expect(!h.mayJoin(group: "g", token: "some-other-token"))
        #expect(h.mayJoin(group: "g", token: Self.token))
        #expect(h.mayJoin(group: "free", token: nil))
        h.controlToken = "control-token-9"
        #expect(h.mayJoin(group: "g", token: "control-token-9"))
        // A patch moving an open session into the group is refused without rights
        // (checked before the patch enters the door: rights are the sender's, not state).
        let outside = try ConfigSpec.decodeSession(foundationJSON(#"{"id": "x", "chart": {}}"#), runtime: true)
            .makeSession(measurer: TestFonts.measurer)
        h.add(outside)
        let patch = try foundationJSON(#"{"eventGroup": "g"}"#)
        #expect(throws: JSONReadError.self) { try outside.checkPatchRights(patch, token: nil) }
        #expect(throws: JSONReadError.self) { try outside.checkPatchRights(patch, token: "some-other-token") }
        #expect(outside.eventGroup == nil)
        try outside.checkPatchRights(patch, token: Self.token)
        _ = try outside.submit(.patch(patch))
        #expect(outside.eventGroup == "g")
    }
}

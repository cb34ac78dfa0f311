import Foundation
import Synchronization
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The pull data source (docs/feeding.md, "Pulled data"): what is asked for, when, and
/// how answers enter the session.
@Suite struct PullSourceTests {
    // MARK: Coverage

    @Test func coverageJoinsOverlappingAndTouchingRanges() {
        var c = PullCoverage()
        c.insert(10...20)
        c.insert(30...40)
        c.insert(0...5)
        #expect(c.ranges == [0...5, 10...20, 30...40])
        c.insert(18...31)
        #expect(c.ranges == [0...5, 10...40])
        c.insert(5...10)
        #expect(c.ranges == [0...40])
        c.insert(41...42)
        #expect(c.ranges == [0...40, 41...42])
        c.drop(below: 41.5)
        #expect(c.ranges == [41.5...42])
        // Ranges a double apart hold everything between them.
        c.insert(43...44)
        c.insert((42.0).nextUp...(43.0).nextDown)
        #expect(c.ranges == [41.5...44])
    }

    @Test func missingPartsLeaveOutTheHeldEnds() {
        let c = PullCoverage([10...20, 30...40])
        #expect(c.missing(in: 12...18).isEmpty)
        #expect(c.missing(in: 0...10) == [0...(10.0).nextDown])
        #expect(c.missing(in: 15...35) == [(20.0).nextUp...(30.0).nextDown])
        #expect(c.missing(in: 0...50) == [0...(10.0).nextDown, (20.0).nextUp...(30.0).nextDown, (40.0).nextUp...50])
        #expect(c.missing(in: 40...45) == [(40.0).nextUp...45])
        #expect(PullCoverage().missing(in: 1...2) == [1...2])
        #expect(c.covers(10...20) && !c.covers(10...21))
    }

    // MARK: When to ask

    @Test func asksOnceTheRangeStoppedMovingAndOneAtATime() {
        var st = PullState()
        let held = PullCoverage([0...100])
        // Within what is held: nothing.
        #expect(st.next(visible: 10...90, coverage: held, now: 0) == nil)
        // Past it: wanted, but only after the debounce; a moving range starts it again.
        #expect(st.next(visible: 50...150, coverage: held, now: 1) == nil)
        #expect(st.next(visible: 60...160, coverage: held, now: 1.15) == nil)
        #expect(st.next(visible: 60...160, coverage: held, now: 1.3) == nil)
        let gap = st.next(visible: 60...160, coverage: held, now: 1.36)
        #expect(gap == (100.0).nextUp...160)
        st.started(PullRequest(session: "s", series: "a", fields: ["y"], from: gap!.lowerBound, to: 160, maxPoints: 10))
        // One request out per series.
        #expect(st.next(visible: 60...160, coverage: held, now: 5) == nil)
        #expect(st.requests == 1)
    }

    @Test func backsOffAfterAFailureAndForgetsItAfterAnAnswer() {
        var st = PullState()
        let none = PullCoverage()
        _ = st.next(visible: 0...10, coverage: none, now: 0)
        #expect(st.next(visible: 0...10, coverage: none, now: 0.3) == 0...10)
        st.started(PullRequest(session: "s", series: "a", fields: ["y"], from: 0, to: 10, maxPoints: 10))
        st.finished(failure: "refused", points: 0, now: 1)
        #expect(st.lastError == "refused" && st.failed == 1)
        #expect(st.next(visible: 0...10, coverage: none, now: 1.5) == nil)   // retry after 1 s
        #expect(st.next(visible: 0...10, coverage: none, now: 2.01) == 0...10)
        st.started(PullRequest(session: "s", series: "a", fields: ["y"], from: 0, to: 10, maxPoints: 10))
        st.finished(failure: "again", points: 0, now: 3)
        #expect(st.next(visible: 0...10, coverage: none, now: 4.5) == nil)   // 2 s now
        #expect(st.next(visible: 0...10, coverage: none, now: 5.01) == 0...10)
        st.started(PullRequest(session: "s", series: "a", fields: ["y"], from: 0, to: 10, maxPoints: 10))
        st.finished(failure: nil, points: 4, now: 6)
        #expect(st.failures == 0 && st.answers == 1 && st.points == 4)
    }

    // MARK: A session with a source

    /// A source that records what it is asked and answers when told.
    final class Source: ChartDataSource, @unchecked Sendable {
        let asked = Mutex<[(PullRequest, @Sendable (PullAnswer) -> Void)]>([])
        /// Every request made (answered or not).
        let all = Mutex<[PullRequest]>([])
        func dataPoints(for request: PullRequest, reply: @escaping @Sendable (PullAnswer) -> Void) {
            asked.withLock { $0.append((request, reply)) }
            all.withLock { $0.append(request) }
        }
        var requests: [PullRequest] { all.withLock { $0 } }
        /// Answers the oldest request with y = 2x at each whole x in its range.
        func answerWithLine() {
            let (r, reply) = asked.withLock { $0.removeFirst() }
            let xs = stride(from: r.from.rounded(.up), through: r.to, by: 1).map { $0 }
            reply(.points(xs: xs, values: [xs.map { 2 * $0 }]))
        }
    }

    static let spec = """
        {"id": "p", "chart": {"xAxes": [{"id": "x", "visibleRange": [0, 20]}], "yAxes": [{"id": "y"}],
          "series": [{"id": "a", "data": {"x": [10, 11, 12], "y": [0, 0, 0]}}]}}
        """

    func session() throws -> (Session, Source) {
        let s = try ConfigSpec.decodeSession(foundationJSON(Self.spec)).makeSession(measurer: TestFonts.measurer)
        let src = Source()
        s.setDataSource(src, for: "a")
        return (s, src)
    }

    @Test func aViewerPastTheHeldDataGetsTheSourcesPointsThroughTheDoor() throws {
        let (s, src) = try session()
        let log = SessionInputTests.Recorder()
        s.journal = log
        var loading: [ChartEvent] = []
        s.chart.addEventHandler { e in if case .dataLoading = e { loading.append(e) } }
        s.runPulls(now: 0)
        #expect(src.requests.isEmpty)  // debounced
        s.runPulls(now: 0.25)
        // The first missing part of 0...20: below the held 10...12.
        #expect(src.requests.count == 1)
        let r = try #require(src.requests.first)
        #expect(r.from == 0 && r.to == (10.0).nextDown && r.fields == ["y"])
        #expect(loading == [.dataLoading(series: "a", from: 0, to: (10.0).nextDown)])
        s.runPulls(now: 0.5)
        #expect(src.requests.count == 1)  // one at a time
        src.answerWithLine()
        #expect(s.hasPullAnswers)
        s.collectPulls(now: 0.6)
        let a = s.chart.series[0]
        #expect(a.data.arrays.xs == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(a.data.arrays.ys.prefix(10) == [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
        // Logged as a pull input: a replay into a fresh session gives the same points.
        guard case let .pull(series, from, to, xs, _)? = log.inputs.last else { Issue.record("not logged: \(log.inputs)"); return }
        #expect(series == "a" && from == 0 && to == (10.0).nextDown && xs.count == 10)
        let replay = try ConfigSpec.decodeSession(foundationJSON(Self.spec)).makeSession(measurer: TestFonts.measurer)
        for input in log.inputs { try replay.apply(input) }
        #expect(replay.chart.series[0].data.arrays.xs == a.data.arrays.xs)
        #expect(replay.chart.series[0].data.arrays.ys == a.data.arrays.ys)
        // Next, the part above.
        s.runPulls(now: 0.7); s.runPulls(now: 1.0)
        #expect(src.requests.last.map { ($0.from, $0.to) }! == ((12.0).nextUp, 20))
        src.answerWithLine()
        s.collectPulls(now: 1.1)
        #expect(s.chart.series[0].data.count == 21)
        // All of 0...20 is held: nothing more is asked (the cache by range).
        s.runPulls(now: 2); s.runPulls(now: 3)
        #expect(src.requests.count == 2)
        #expect(s.chart.series[0].pullCoverage?.ranges == [0...20])
    }

    @Test func answersThatAreWrongAreFailuresNotChanges() throws {
        let (s, src) = try session()
        s.runPulls(now: 0); s.runPulls(now: 0.3)
        let (_, reply) = src.asked.withLock { $0.removeFirst() }
        reply(.points(xs: [3, 1], values: [[1, 1]]))
        let failures = s.collectPulls(now: 0.4)
        #expect(failures.count == 1 && failures[0].message.contains("x order"))
        #expect(s.chart.series[0].data.count == 3)
        #expect(s.pullStates.first?.state.lastError?.contains("x order") == true)
        // Backing off, then asked again.
        s.runPulls(now: 0.9)
        #expect(src.requests.count == 1)
        s.runPulls(now: 1.5)
        #expect(src.requests.count == 2)
        let (_, again) = src.asked.withLock { $0.removeFirst() }
        again(.points(xs: [1, 2], values: [[1, 2], [3, 4]]))
        #expect(s.collectPulls(now: 2).first?.message.contains("value columns") == true)
        s.runPulls(now: 4.1)
        let (_, third) = src.asked.withLock { $0.removeFirst() }
        third(.failure("source down"))
        #expect(s.collectPulls(now: 4.2).first?.message == "source down")
        #expect(s.chart.series[0].data.count == 3)
        // The stats show it.
        let stats = try #require(s.pullJSON(series: "a"))
        #expect(stats["failures"] == .int(3) && stats["lastError"] == .string("source down"))
        #expect(s.pullWarnings == ["$.chart.series[0].source: the last request failed (3 in a row): source down"])
        // An answer ends the warning.
        s.runPulls(now: 9)
        let (_, fourth) = src.asked.withLock { $0.removeFirst() }
        fourth(.points(xs: [1], values: [[1]]))
        #expect(s.collectPulls(now: 9.1).isEmpty && s.pullWarnings.isEmpty)
    }

    @Test func pointsOutsideTheRangeAskedForAreLeftOutAndHeldOnesReplaced() throws {
        let (s, src) = try session()
        s.runPulls(now: 0); s.runPulls(now: 0.3)
        let (r, reply) = src.asked.withLock { $0.removeFirst() }
        reply(.points(xs: [-5, 1, 2, 10, 11], values: [[9, 1, 2, 9, 9]]))
        s.collectPulls(now: 0.4)
        #expect(r.to < 10)
        #expect(s.chart.series[0].data.arrays.xs == [1, 2, 10, 11, 12])
        // A pull input replaces what the series held in its range.
        try s.submit(.pull(series: "a", from: 10, to: 11, xs: [10.5], values: [[7]]))
        #expect(s.chart.series[0].data.arrays.xs == [1, 2, 10.5, 12])
        #expect(throws: SessionInputError.self) { try s.submit(.pull(series: "a", from: 0, to: 1, xs: [2], values: [[1]])) }
    }

    @Test func anIndependentViewZoomingOutIsAskedForToo() throws {
        let spec = #"""
            {"id": "p", "viewMode": "independent", "chart": {"xAxes": [{"id": "x", "visibleRange": [10, 12]}],
              "series": [{"id": "a", "data": {"x": [10, 11, 12], "y": [0, 0, 0]}}],
              "modifiers": [{"type": "mouseWheelZoom"}]}}
            """#
        let s = try ConfigSpec.decodeSession(foundationJSON(spec)).makeSession(measurer: TestFonts.measurer)
        s.renderThreads = 1
        let src = Source()
        s.setDataSource(src, for: "a")
        s.publish(now: 0)
        let v = s.connect()
        _ = s.receive(.hello(Fixtures.size, format: .binary, token: nil), from: v)
        s.runPulls(now: 0); s.runPulls(now: 1)
        #expect(src.requests.isEmpty, "the shared view holds all it shows")
        // The viewer zooms out its own view: past 10...12 on both sides.
        _ = s.receive(.wheel(WheelEvent(x: 400, y: 250, deltaY: 600)), from: v)
        s.publish(now: 1.5)
        #expect(s.chart.axis("x")?.userRange == DoubleRange(10, 12), "the shared view did not move")
        s.runPulls(now: 2); s.runPulls(now: 2.5)
        let r = try #require(src.requests.first)
        #expect(r.from < 10 && r.to == (10.0).nextDown)
    }

    @Test func pushesExtendWhatIsHeld() throws {
        let (s, _) = try session()
        try s.submit(.append(series: "a", xs: [15, 16], values: [[1, 1]]))
        #expect(s.chart.series[0].pullCoverage?.ranges == [10...16])
        try s.submit(.clear(series: "a"))
        #expect(s.chart.series[0].pullCoverage?.ranges == [])
    }

    @Test func theSpecSourceIsCheckedAndKeptThroughPatches() throws {
        func read(_ series: String) throws -> SessionSpec {
            try ConfigSpec.decodeSession(foundationJSON(#"{"id": "p", "chart": {"series": [\#(series)]}}"#))
        }
        #expect(try read(#"{"id": "a", "source": "http://127.0.0.1:9/points?k=1"}"#).chart.series[0].source == "http://127.0.0.1:9/points?k=1")
        #expect(try read(#"{"id": "a", "source": "https://[::1]:8443/p"}"#).chart.series[0].source == "https://[::1]:8443/p")
        for (bad, says) in [(#""ftp://h/p""#, "expected an http:// or https:// URL"), (#""https://u:p@h/""#, "user"),
                            (#""https:///x""#, "expected https://host"), (#""http://u:p@h/""#, "user"), (#""http:///x""#, "host"),
                            (#""http://h/", "capacity": 5"#, "capacity"), (#""http://h/", "type": "pie""#, "pie")] {
            #expect(throws: (any Error).self) { try read(#"{"id": "a", "source": \#(bad)}"#) }
            do { _ = try read(#"{"id": "a", "source": \#(bad)}"#) } catch { #expect("\(error)".contains(says), "\(error)") }
        }
        let s = try read(#"{"id": "a", "source": "http://h/p", "data": {"x": [1, 2], "y": [1, 1]}}"#).makeSession(measurer: TestFonts.measurer)
        #expect(s.chart.series[0].pullCoverage?.ranges == [1...2])
        try s.submit(.pull(series: "a", from: 5, to: 6, xs: [5], values: [[1]]))
        try s.submit(.patch(foundationJSON(#"{"title": "T"}"#)))
        #expect(s.chart.series[0].pullCoverage?.ranges == [1...2, 5...6])
        #expect(s.pullsData)
    }
}

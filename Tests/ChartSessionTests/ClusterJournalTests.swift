import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// What a cluster node's journal asks of the one door (docs/cluster.md): refusing every
/// change while Redis is away, running generators only where the clock lease is, and
/// taking another node's shared view without logging it again.
@Suite struct ClusterJournalTests {
    final class NodeJournal: SessionJournal {
        var log: [SessionInput] = []
        var away: String? = nil
        var clock = true
        func record(_ input: SessionInput, session: String) { log.append(input) }
        func withdrawLast(session: String) { log.removeLast() }
        func runsClock(session: String) -> Bool { clock }
        func refusal(session: String) -> String? { away }
    }

    func node() throws -> (Session, NodeJournal) {
        let s = try ConfigSpec.decodeSession(foundationJSON(SessionInputTests.spec)).makeSession(measurer: TestFonts.measurer)
        let j = NodeJournal()
        s.journal = j
        return (s, j)
    }

    @Test func aRefusingJournalRefusesEveryChangeAndNothingIsApplied() throws {
        let (s, j) = try node()
        let hub = SessionHub(sessions: [s])
        hub.journal = j
        j.away = "redis unavailable at redis://127.0.0.1:1: Connection refused"
        let version = s.chart.version
        #expect(throws: SessionInputError.unavailable(j.away!)) { try s.submit(.append(series: "a", xs: [9], values: [[1]])) }
        #expect(throws: SessionInputError.unavailable(j.away!)) { try hub.submit(.delete, session: "d") { _ in s } }
        #expect(s.chart.version == version && j.log.isEmpty && hub.session("d") != nil)
        j.away = nil
        try s.submit(.append(series: "a", xs: [9], values: [[1]]))
        #expect(j.log.count == 1 && s.chart.series[0].data.count == 4)
    }

    @Test func generatorsRunOnlyWhereTheClockIs() throws {
        let (holder, hj) = try node()
        let (other, oj) = try node()
        oj.clock = false
        for t in stride(from: 1.0, through: 2.0, by: 0.1) {
            holder.advance(to: t, unixTime: 1_700_000_000 + t)
            other.advance(to: t, unixTime: 1_700_000_000 + t)
        }
        let g = holder.chart.seriesIndex("g")!
        #expect(holder.chart.series[g].data.count > 0 && other.chart.series[g].data.count == 0)
        #expect(oj.log.isEmpty && !hj.log.isEmpty)
        // The other node applies the holder's clock inputs from the log: the same points.
        for input in hj.log { try other.apply(input) }
        #expect(other.chart.series[g].data.count == holder.chart.series[g].data.count)
        #expect(other.columns(series: "g", sequences: 0..<other.chart.series[g].data.count)
                == holder.columns(series: "g", sequences: 0..<holder.chart.series[g].data.count))
    }

    @Test func aViewTakenFromTheLogIsNotLoggedAgain() throws {
        let (a, aj) = try node()
        let (b, bj) = try node()
        b.renderThreads = 1
        let v = b.connect()
        _ = b.receive(Fixtures.hello(), from: v)
        let plot = b.layout(size: Fixtures.size).plotRect
        _ = b.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -200)), from: v)
        let views = bj.log.filter { if case .view = $0 { return true }; return false }
        #expect(views.count == 1)
        try a.apply(views[0])
        #expect(a.chart.sharedViewState == b.chart.sharedViewState)
        // A glide or gesture check on the node that took it finds nothing new to log.
        a.noteViewChange()
        #expect(aj.log.isEmpty)
    }
}

import Foundation
import Testing
import ChartSession
import ChartStore
import LayoutEngine
import TestSupport
@testable import ChartWireServer

/// The server's side of the store: routes log through the one door, snapshots write
/// only what changed, and a restart rebuilds what was committed.
@Suite struct DurabilityTests {
    static let spec = #"{"id": "f", "chart": {"series": [{"id": "fifo", "capacity": 150000}, {"id": "grow"}]}}"#

    func make(_ spec: SessionSpec) -> Session { spec.makeSession(measurer: TestFonts.measurer) }

    func server(_ store: MemoryStore) throws -> (SessionHub, Router, Durability) {
        let hub = SessionHub()
        let d = Durability(store: store)
        try d.restore(into: hub, configured: []) { make($0) }
        hub.journal = d
        var router = Router(hub: hub, webDir: "/nonexistent", fonts: [:], measurer: TestFonts.measurer)
        router.durability = d
        return (hub, router, d)
    }

    func post(_ r: Router, _ path: String, _ body: String, method: String = "POST") -> HTTPResponse {
        r.handle(HTTPRequest(method: method, path: path, query: [:], body: Array(body.utf8)))
    }

    func append(_ r: Router, _ series: String, from: Int, count: Int) {
        let xs = (from..<from + count).map(Double.init)
        var body = Array("CWA1".utf8)
        withUnsafeBytes(of: UInt32(count).littleEndian) { body += $0 }
        for v in xs + xs.map({ $0 * 2 }) { withUnsafeBytes(of: v.bitPattern.littleEndian) { body += $0 } }
        let res = r.handle(HTTPRequest(method: "POST", path: "/api/sessions/f/series/\(series)/append", query: [:], body: body))
        #expect(res.status == 200)
    }

    @Test func snapshotsAddOnlyNewChunksAndDropEvictedOnes() throws {
        let store = MemoryStore()
        let (hub, router, d) = try server(store)
        #expect(post(router, "/api/sessions", Self.spec).status == 201)
        append(router, "fifo", from: 0, count: 100_000)
        append(router, "grow", from: 0, count: 70_000)
        d.snapshot(hub.session("f")!)
        d.commitIfPending()
        let first = try #require(store.committed["f"]?.snapshot)
        #expect(first.chunks.map(\.points).reduce(0, +) == 170_000 && store.committed["f"]?.log.isEmpty == true)

        // 150,000 more: the FIFO keeps 150,000 and its first chunk (65,536 points) is all evicted.
        append(router, "fifo", from: 100_000, count: 150_000)
        append(router, "grow", from: 70_000, count: 10)
        d.snapshot(hub.session("f")!)
        d.commitIfPending()
        let second = try #require(store.committed["f"]?.snapshot)
        let fifo = second.chunks.filter { $0.series == "fifo" }
        // (The first snapshot's two chunks held keys 0..<100,000: both evicted, both gone.)
        #expect(fifo.first?.first == 100_000, "the evicted chunks left the store")
        #expect(fifo.map(\.points).reduce(0, +) == 150_000, "the store follows the capacity")
        // The chunks of the first snapshot are kept as they were: only new points were written.
        let grow = second.chunks.filter { $0.series == "grow" }
        #expect(grow.map(\.first) == [0, 65_536, 70_000] && grow.prefix(2) == first.chunks.filter { $0.series == "grow" }[...])

        // A change other than an append rewrites that series whole.
        #expect(post(router, "/api/sessions/f/series/grow/removeFirst", #"{"count": 5}"#).status == 200)
        append(router, "fifo", from: 250_000, count: 3)
        let before = try #require(hub.session("f")?.liveSpec(includeData: true))
        d.snapshot(hub.session("f")!)
        append(router, "fifo", from: 250_003, count: 2)  // in the log after the snapshot
        d.commitIfPending()
        #expect(store.committed["f"]?.snapshot?.chunks.filter { $0.series == "grow" }.map(\.first) == [0, 65_536])

        // Restarted: the same points, and the next snapshot goes on incrementally.
        store.crash()
        let (hub2, router2, d2) = try server(store)
        let after = try #require(hub2.session("f")?.liveSpec(includeData: true))
        #expect(after["chart"]?["series"]?.arrayValue?[1] == before["chart"]?["series"]?.arrayValue?[1])
        let fifoAfter = after["chart"]?["series"]?.arrayValue?[0]["data"]?["x"]?.arrayValue
        #expect(fifoAfter?.count == 150_000 && fifoAfter?.last == .int(250_004))
        append(router2, "fifo", from: 250_005, count: 1)
        d2.snapshot(hub2.session("f")!)
        d2.commitIfPending()
        let third = try #require(store.committed["f"]?.snapshot)
        #expect(third.chunks.filter { $0.series == "grow" }.map(\.first) == [0, 65_536], "an unchanged run is not rewritten after a restart")
    }

    /// Issue 31: where the legend was is part of the stored snapshot. A legend moved to
    /// the right by data under its corner, the data then back a little (still on the
    /// right: hysteresis), the session snapshotted, the server restarted: the legend is
    /// on the right still, where a session placing it afresh puts it on the left.
    @Test func aRestartKeepsTheLegendWhereItWas() throws {
        let size = ViewerSize(width: 480, height: 320, dpr: 1)
        func spec(_ v: Double) -> String {
            let ys = (0...100).map { $0 == 3 ? String(v) : "10" }.joined(separator: ",")
            return #"{"id": "f", "chart": {"legend": {"position": "topLeft"}, "xAxes": [{"id": "x", "mode": "fixed", "range": [0, 100]}], "#
                + #""yAxes": [{"id": "y", "mode": "fixed", "range": [0, 100]}], "series": [{"id": "wall", "name": "Wall", "data": {"x": ["#
                + (0...100).map(String.init).joined(separator: ",") + #"], "y": ["# + ys + "]}}]}}"
        }
        func onLeft(_ s: Session) throws -> Bool {
            let list = s.displayList(size: size)
            let overlay = try #require(list.layers.first { $0.id == .overlay })
            for c in overlay.commands {
                if case let .rect(x, _, w, _, _, stroke, _) = c, stroke != nil {
                    return Double(x + w / 2) < s.layout(size: size).plotRect.midX
                }
            }
            Issue.record("no legend")
            return false
        }
        func fresh(_ v: Double) throws -> Session { make(try ConfigSpec.decodeSession(foundationJSON(spec(v)), runtime: true)) }
        // Where a fresh session starts leaving the corner (to a thousandth).
        var lo = 10.0, hi = 100.0
        while hi - lo > 0.001 { let m = (lo + hi) / 2; if try !onLeft(fresh(m)) { hi = m } else { lo = m } }
        let v = hi
        #expect(v > 20 && v < 99)

        let store = MemoryStore()
        let (hub, router, d) = try server(store)
        #expect(post(router, "/api/sessions", spec(v - 0.5)).status == 201)
        let s = try #require(hub.session("f"))
        try s.submit(.update(series: "wall", index: 3, values: [[v + 0.5]]))
        #expect(try !onLeft(s))
        try s.submit(.update(series: "wall", index: 3, values: [[v - 0.5]]))
        #expect(try !onLeft(s))
        d.snapshot(s)
        d.commitIfPending()
        #expect(store.committed["f"]?.snapshot != nil && store.committed["f"]?.log.isEmpty == true)
        store.crash()
        let (hub2, _, _) = try server(store)
        let restored = try #require(hub2.session("f"))
        #expect(try !onLeft(restored))
        #expect(try onLeft(fresh(v - 0.5)))    // the same data placed afresh
    }

    @Test func refusedChangesAreNotLoggedAndDeletesForgetTheSession() throws {
        let store = MemoryStore()
        let (hub, router, d) = try server(store)
        #expect(post(router, "/api/sessions", Self.spec).status == 201)
        #expect(post(router, "/api/sessions/f/series/grow/append", #"{"x": [1, 2], "y": [1]}"#).status == 400)
        #expect(post(router, "/api/sessions/f", #"{"chart": {"series": [{"id": "grow", "type": "nope"}]}}"#, method: "PATCH").status == 400)
        #expect(post(router, "/api/sessions/f", #"{"title": "ok"}"#, method: "PATCH").status == 200)
        d.commitIfPending()
        #expect(store.committed["f"]?.log.map(\.kind) == [SessionCodec.kind(.patch(.null))])
        #expect(post(router, "/api/sessions/f", "", method: "DELETE").status == 200)
        d.commitIfPending()
        #expect(store.committed.isEmpty && hub.sessions.isEmpty)
    }

    /// A bulk append (an input of 256 kB or more) is snapshotted in its own commit:
    /// its points are stored as chunks, the log keeps nothing of it, and a restart
    /// rebuilds the same points.
    @Test func bulkAppendsAreSnapshottedInTheirCommit() throws {
        let store = MemoryStore()
        let (hub, router, d) = try server(store)
        #expect(post(router, "/api/sessions", Self.spec).status == 201)
        append(router, "grow", from: 0, count: 10)          // small: logged
        d.commitIfPending()
        #expect(store.committed["f"]?.log.count == 1 && store.committed["f"]?.snapshot == nil)
        append(router, "grow", from: 10, count: 100_000)    // 1.6 MB: snapshotted at the commit
        #expect(d.hasPending)
        d.commitIfPending()
        let snap = try #require(store.committed["f"]?.snapshot)
        #expect(store.committed["f"]?.log.isEmpty == true)
        #expect(snap.chunks.filter { $0.series == "grow" }.map(\.points).reduce(0, +) == 100_010)
        // A bulk append refused (an infinite x) leaves nothing behind.
        var body = Array("CWA1".utf8)
        withUnsafeBytes(of: UInt32(100_000).littleEndian) { body += $0 }
        for v in [Double.infinity] + (1..<100_000).map({ Double(200_000 + $0) }) + [Double](repeating: 1, count: 100_000) {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { body += $0 }
        }
        #expect(router.handle(HTTPRequest(method: "POST", path: "/api/sessions/f/series/grow/append", query: [:], body: body)).status == 400)
        d.commitIfPending()
        #expect(store.committed["f"]?.log.isEmpty == true)
        let (hub2, _, _) = try server(store)
        let xs = hub2.session("f")!.chart.series[1].data.arrays.xs
        #expect(xs == hub.session("f")!.chart.series[1].data.arrays.xs && xs.count == 100_010)
    }

    /// A series with a `retention` keeps the points within that many seconds of its
    /// newest x, live and after a restart, and the store drops the chunks it evicted.
    @Test func retentionEvictsByXAndTheStoreFollows() throws {
        let store = MemoryStore()
        let (hub, router, d) = try server(store)
        let spec = #"{"id": "f", "chart": {"series": [{"id": "grow", "retention": 100000}, {"id": "fifo"}]}}"#
        #expect(post(router, "/api/sessions", spec).status == 201)
        append(router, "grow", from: 0, count: 150_000)      // x 0...149,999: keeps x >= 49,999
        d.commitIfPending()
        var data = hub.session("f")!.chart.series[0].data
        #expect(data.firstX == 49_999 && data.lastX == 149_999 && data.count == 100_001)
        append(router, "grow", from: 150_000, count: 100_000)
        d.commitIfPending()
        data = hub.session("f")!.chart.series[0].data
        #expect(data.firstX == 149_999 && data.count == 100_001 && data.firstSequence == 149_999)
        let stored = try #require(store.committed["f"]?.snapshot).chunks.filter { $0.series == "grow" }
        #expect(stored.map(\.first).min()! >= 65_536, "chunks wholly before the retained points left the store")
        let (hub2, _, _) = try server(store)
        #expect(hub2.session("f")!.chart.series[0].data.arrays.xs == data.arrays.xs)
    }
}

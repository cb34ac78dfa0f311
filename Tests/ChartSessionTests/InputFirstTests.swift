import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Input first (docs/protocol.md, "Publication and flow control"): a publication that
/// answers a viewer's gesture is due at once, while data-driven publications keep to
/// `maxFps`.
@Suite struct InputFirstTests {
    static func near(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    /// Sends the viewer what is due at `now` and acknowledges it, as the client does.
    func deliver(_ s: Session, _ v: ViewerID, now: Double) -> Int {
        var n = 0
        while s.nextFrame(for: v, now: now) != nil { _ = s.receive(.ack, from: v); n += 1 }
        return n
    }

    @Test func aGesturesPublicationIsDueAtOnceWhileDataKeepsMaxFps() throws {
        let s = Session(id: "t", title: "T", chart: Fixtures.staticChart(), measurer: TestFonts.measurer, maxFps: 2)
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        s.publish(now: 10)
        #expect(deliver(s, v, now: 10) == 1)
        let plot = s.layout(size: Fixtures.size).plotRect

        // Data waits for its slot, 1/maxFps after the last publication.
        try s.append(seriesId: "s", xs: [100], ys: [1])
        #expect(Self.near(s.publishDue(now: 10.1), 10.5))
        // A wheel zoom is due at once; its publication carries the waiting data too.
        #expect(s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -300)), from: v, at: 10.2).isEmpty)
        #expect(Self.near(s.publishDue(now: 10.2), 10.2))
        s.publish(now: 10.2)
        #expect(deliver(s, v, now: 10.2) == 1)
        #expect(s.publishDue(now: 10.2) == nil)

        // The gesture's publication starts the slots afresh: the next data is not
        // published again a moment later on the old grid (10.5), but a step after it.
        try s.append(seriesId: "s", xs: [101], ys: [2])
        #expect(Self.near(s.publishDue(now: 10.3), 10.7))

        // A drag's moves: each one's answer is due at once (no sooner than `minGestureGap`
        // after the publication before it).
        _ = s.receive(.pointer(PointerEvent(phase: .down, x: plot.midX, y: plot.midY, buttons: 1)), from: v, at: 10.3)
        #expect(s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX - 40, y: plot.midY, buttons: 1)), from: v, at: 10.3).isEmpty)
        #expect(Self.near(s.publishDue(now: 10.3), 10.3))
        s.publish(now: 10.3)
        #expect(deliver(s, v, now: 10.3) == 1)
        #expect(s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX - 80, y: plot.midY, buttons: 1)), from: v, at: 10.301).isEmpty)
        #expect(Self.near(s.publishDue(now: 10.301), 10.3 + Session.minGestureGap))
        s.publish(now: 10.3 + Session.minGestureGap)
        #expect(deliver(s, v, now: 10.31) == 1)
        _ = s.receive(.pointer(PointerEvent(phase: .up, x: plot.midX - 80, y: plot.midY)), from: v, at: 10.32)

        // (Over a step after the slot it was due at: the slots start afresh from it.)
        s.publish(now: 12)
        _ = deliver(s, v, now: 12)

        // A hover changes no chart: data after it still waits for its slot.
        try s.append(seriesId: "s", xs: [102], ys: [3])
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX, y: plot.midY, buttons: 0)), from: v, at: 12.1)
        #expect(Self.near(s.publishDue(now: 12.1), 12.5))
    }

    /// Flow control holds for a gesture's frame: a viewer whose window is full gets it
    /// only after an acknowledgement, and then the newest state.
    @Test func aGesturesFrameStillWaitsForTheWindow() throws {
        let s = Session(id: "t", title: "T", chart: Fixtures.staticChart(), measurer: TestFonts.measurer, maxFps: 2)
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        s.publish(now: 10)
        #expect(s.nextFrame(for: v, now: 10) != nil)
        try s.append(seriesId: "s", xs: [100], ys: [1])
        s.publish(now: 10.5)
        #expect(s.nextFrame(for: v, now: 10.5) != nil)            // window (2) now full
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -300)), from: v, at: 10.6)
        #expect(Self.near(s.publishDue(now: 10.6), 10.6))
        s.publish(now: 10.6)
        #expect(s.nextFrame(for: v, now: 10.6) == nil)
        _ = s.receive(.ack, from: v)
        #expect(s.nextFrame(for: v, now: 10.61) != nil)
    }
}

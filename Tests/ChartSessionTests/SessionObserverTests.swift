import Testing
import ChartSession
import LayoutEngine
import TestSupport

/// What a session tells its observer (the server's `/metrics`): publications, frames
/// with their bytes and ages, and the time from a gesture to the frame that shows it.
@Suite struct SessionObserverTests {
    final class Recorder: SessionObserver {
        var publications = 0, frames = 0, bytes = 0, superseded = 0
        var ages: [Double] = [], gestures: [Double] = []
        func published() { publications += 1 }
        func frameSuperseded() { superseded += 1 }
        func frameSent(bytes n: Int, age: Double?) { frames += 1; bytes += n; if let age { ages.append(age) } }
        func gestureToFrame(_ seconds: Double) { gestures.append(seconds) }
    }

    func watched(_ chart: Chart) -> (Session, Recorder, ViewerID, ViewerID) {
        let s = Fixtures.session(chart)
        let r = Recorder()
        s.observer = r
        let a = s.connect(), b = s.connect()
        _ = s.receive(Fixtures.hello(), from: a)
        _ = s.receive(Fixtures.hello(), from: b)
        return (s, r, a, b)
    }

    @Test func framesAndPublicationsAreCounted() throws {
        let (s, r, a, b) = watched(Fixtures.staticChart())
        let fa = try #require(s.nextFrame(for: a, now: 1)?.bytes), fb = try #require(s.nextFrame(for: b, now: 1)?.bytes)
        #expect(r.publications == 1 && r.frames == 2 && r.bytes == fa.count + fb.count)
        #expect(r.ages.isEmpty)   // first frames have no age
        _ = s.receive(.ack, from: a)
        try s.append(seriesId: "s", xs: [100], ys: [500])
        s.noteChange(at: 2, wallMs: 0)
        s.publish(now: 2.5)
        _ = try #require(s.nextFrame(for: a, now: 2.75))
        #expect(r.publications == 2 && r.frames == 3 && r.ages == [0.75])
        #expect(r.gestures.isEmpty)
    }

    /// A viewer whose window is full misses the publications that change what it shows
    /// until it acknowledges: each one after the first it lacks supersedes a frame it
    /// was owed. A viewer that keeps up misses none, nor does a publication that
    /// changes nothing it shows.
    @Test func framesAViewerBehindNeverGetsAreCountedSuperseded() throws {
        let (s, r, a, b) = watched(Fixtures.staticChart())
        _ = try #require(s.nextFrame(for: a, now: 1)); _ = try #require(s.nextFrame(for: b, now: 1))
        _ = s.receive(.ack, from: a); _ = s.receive(.ack, from: b)
        // b stops acknowledging: its window (2) fills with the next two publications.
        for (k, t) in [2.0, 3.0].enumerated() {
            try s.append(seriesId: "s", xs: [100 + Double(k)], ys: [500 + Double(k)])
            s.publish(now: t)
            _ = try #require(s.nextFrame(for: a, now: t)); _ = s.receive(.ack, from: a)
            _ = try #require(s.nextFrame(for: b, now: t))
        }
        #expect(r.superseded == 0 && s.stats.superseded == 0)
        // Three more publications that change the chart: b lacks the first, and each of
        // the other two supersedes what it was owed.
        for (k, t) in [4.0, 5.0, 6.0].enumerated() {
            try s.append(seriesId: "s", xs: [110 + Double(k)], ys: [510 + Double(k)])
            s.publish(now: t)
            _ = try #require(s.nextFrame(for: a, now: t)); _ = s.receive(.ack, from: a)
            #expect(s.nextFrame(for: b, now: t) == nil)
        }
        #expect(r.superseded == 2 && s.stats.superseded == 2)
        // A publication that changes nothing b shows supersedes nothing.
        s.publish(now: 7)
        #expect(r.superseded == 2)
        // b acknowledges and gets the newest state; it is then up to date.
        _ = s.receive(.ack, from: b)
        _ = try #require(s.nextFrame(for: b, now: 8))
        #expect(s.nextFrame(for: b, now: 8) == nil)
        #expect(r.superseded == 2)
    }

    @Test func aZoomIsTimedToTheFirstFrameOfAPublicationAfterIt() throws {
        let (s, r, a, b) = watched(Fixtures.staticChart())
        _ = s.nextFrame(for: a, now: 1); _ = s.nextFrame(for: b, now: 1)
        _ = s.receive(.ack, from: a); _ = s.receive(.ack, from: b)
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -100)), from: a, at: 2)
        // Nothing shows it before a publication renders it.
        #expect(s.nextFrame(for: a, now: 2.1) == nil)
        s.publish(now: 2.5)
        _ = try #require(s.nextFrame(for: b, now: 2.6))   // another viewer's frame: not its gesture
        #expect(r.gestures.isEmpty)
        _ = try #require(s.nextFrame(for: a, now: 3))
        #expect(r.gestures == [1])
        // Timed once: the next frame after more data is not the gesture's.
        _ = s.receive(.ack, from: a)
        try s.append(seriesId: "s", xs: [100], ys: [500])
        s.publish(now: 4)
        _ = try #require(s.nextFrame(for: a, now: 4.5))
        #expect(r.gestures == [1])
    }

    @Test func aGestureThatChangesNothingIsNotTimed() throws {
        let (s, r, a, _) = watched(Fixtures.staticChart())
        _ = s.nextFrame(for: a, now: 1)
        _ = s.receive(.ack, from: a)
        // A hover: no modifier here draws or changes anything for it.
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: 300, y: 200, button: -1, buttons: 0)), from: a, at: 2)
        #expect(s.nextFrame(for: a, now: 2.1) == nil)
        try s.append(seriesId: "s", xs: [100], ys: [500])
        s.publish(now: 3)
        _ = try #require(s.nextFrame(for: a, now: 3.5))
        #expect(r.gestures.isEmpty)
    }

    @Test func aHoverThatMovesTheRolloverIsTimedToTheFrameCarryingIt() throws {
        let (s, r, a, _) = watched(Fixtures.staticChart(modifiers: [RolloverModifier()]))
        _ = s.nextFrame(for: a, now: 1)
        _ = s.receive(.ack, from: a)
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX, y: plot.midY, button: -1, buttons: 0)), from: a, at: 2)
        // Its own layer changed: the next frame shows it, no publication needed.
        _ = try #require(s.nextFrame(for: a, now: 2.25))
        #expect(r.gestures == [0.25])
    }

    @Test func untimedWithoutAClock() throws {
        let (s, r, a, _) = watched(Fixtures.staticChart())
        _ = s.nextFrame(for: a, now: 1)
        _ = s.receive(.ack, from: a)
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -100)), from: a)
        s.publish(now: 2)
        _ = try #require(s.nextFrame(for: a, now: 3))
        #expect(r.gestures.isEmpty)
    }
}

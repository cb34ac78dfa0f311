import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// The one door: every change is a `SessionInput`, logged then applied, and a session's
/// state is its snapshot plus the inputs after it.
@Suite struct SessionInputTests {
    static let spec = """
        {"id": "d", "title": "Durable", "chart": {
          "xAxes": [{"id": "x"}], "yAxes": [{"id": "y"}],
          "series": [
            {"id": "a", "name": "A", "data": {"x": [0, 1, 2], "y": [1, 3, 2]}},
            {"id": "c", "name": "C", "type": "candlestick"},
            {"id": "g", "name": "G", "generator": {"kind": "randomWalk", "rate": 20, "seed": 5}}
          ],
          "modifiers": [{"type": "zoomPan"}, {"type": "mouseWheelZoom"}, {"type": "legend"}]},
         "lineProtocol": {"series": [{"measurement": "m", "field": "v", "series": "a"}], "unknown": "create"}}
        """

    /// Keeps what a session logs, as its store would (encoded, then decoded on replay).
    final class Recorder: SessionJournal {
        var log: [[UInt8]] = []
        func record(_ input: SessionInput, session: String) { log.append(SessionCodec.encode(input)) }
        func withdrawLast(session: String) { log.removeLast() }
        var inputs: [SessionInput] { log.map { try! SessionCodec.decode($0) } }
    }

    func session() throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(Self.spec)).makeSession(measurer: TestFonts.measurer)
    }

    /// A session with a controller viewer that said hello.
    func watched() throws -> (Session, ViewerID) {
        let s = try session()
        s.renderThreads = 1
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        return (s, v)
    }

    /// Publishes and takes the viewer's frame (acknowledged at once).
    func frame(_ s: Session, _ v: ViewerID, at now: Double) -> [UInt8] {
        s.publish(now: now)
        let out = s.nextFrame(for: v, now: now)
        if out != nil { _ = s.receive(.ack, from: v) }
        return out?.bytes ?? []
    }

    /// The live session's changes, each through the route a server takes: the door for
    /// data and definitions, a gesture for the shared view, the clock for generators.
    /// `steps`: how many inputs were logged when each frame was taken.
    func drive(_ s: Session, _ v: ViewerID, frames: inout [[UInt8]], steps: inout [(count: Int, now: Double)], log: Recorder) throws {
        var now = 1.0
        func step() { now += 0.1; frames.append(frame(s, v, at: now)); steps.append((log.log.count, now)) }
        s.advance(to: now, unixTime: 1_700_000_000)
        step()
        try s.submit(.append(series: "a", xs: [3, 4, 5], values: [[4, 1, 5]])); step()
        try s.submit(.append(series: "c", xs: [0, 1], values: [[1, 2], [3, 4], [0.5, 1], [2, 3]])); step()
        try s.submit(.insert(series: "a", index: 1, xs: [0.5], values: [[9]])); step()
        try s.submit(.update(series: "a", index: 0, values: [[7, 7]])); step()
        try s.submit(.removeFirst(series: "a", count: 1)); step()
        try s.submit(.write(body: Array("m v=11 6000000000\nm,host=h w=2 6500000000\n".utf8), precision: .ns, now: 0)); step()
        try s.submit(.patch(foundationJSON(##"{"title": "Patched", "chart": {"series": [{"id": "a", "color": "#ff0000"}]}}"##))); step()
        // A refused input changes nothing and is not logged.
        #expect(throws: SessionInputError.self) { try s.submit(.append(series: "a", xs: [1], values: [[.infinity]])) }
        #expect(throws: SessionInputError.unknownSeries("zz")) { try s.submit(.clear(series: "zz")) }
        // A controller's wheel zoom: the resulting ranges are logged.
        let plot = s.layout(size: Fixtures.size).plotRect
        _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -200)), from: v); step()
        for t in stride(from: 2.0, through: 3.0, by: 0.25) {
            s.advance(to: t, unixTime: 1_700_000_000 + t)
            step()
        }
        try s.submit(.replaceData(series: "c", xs: [5], values: [[1], [2], [0], [1]])); step()
    }

    @Test func replayedInputsGiveByteIdenticalFrames() throws {
        let (live, v) = try watched()
        let recorder = Recorder()
        live.journal = recorder
        var liveFrames: [[UInt8]] = []
        var steps: [(count: Int, now: Double)] = []
        try drive(live, v, frames: &liveFrames, steps: &steps, log: recorder)
        let kinds = Set(recorder.inputs.map(SessionCodec.kind))
        #expect(kinds.isSuperset(of: [2, 4, 5, 6, 7, 9, 10, 11, 12]), "every kind of change went through the door: \(kinds.sorted())")

        // Replayed: the same inputs, published at the same moments (one per step).
        let (replayed, w) = try watched()
        let inputs = recorder.inputs
        var replayFrames: [[UInt8]] = []
        var applied = 0
        for (count, now) in steps {
            while applied < count { try replayed.apply(inputs[applied]); applied += 1 }
            replayFrames.append(frame(replayed, w, at: now))
        }
        #expect(replayed.liveSpec(includeData: true) == live.liveSpec(includeData: true))
        #expect(replayed.displayList(size: Fixtures.size) == live.displayList(size: Fixtures.size))
        #expect(replayFrames.count == liveFrames.count)
        for (i, (a, b)) in zip(liveFrames, replayFrames).enumerated() {
            // (Frames carry no clock: their data time is the same 0 in both.)
            #expect(a == b, "frame \(i) differs")
        }
    }

    @Test func snapshotPlusTailEqualsFullReplay() throws {
        let (live, v) = try watched()
        let recorder = Recorder()
        live.journal = recorder
        var frames: [[UInt8]] = []
        var steps: [(count: Int, now: Double)] = []
        try drive(live, v, frames: &frames, steps: &steps, log: recorder)
        let inputs = recorder.inputs

        // Full replay.
        let full = try session()
        for input in inputs { try full.apply(input) }

        // A snapshot half-way (through the stored form), then the tail.
        let half = inputs.count / 2
        let first = try session()
        for input in inputs[..<half] { try first.apply(input) }
        var snap = try #require(first.snapshot())
        let series = snap.series
        snap = try SessionCodec.decodeState(SessionCodec.encodeState(snap))
        snap.series = series.map { .init(id: $0.id, columns: $0.columns.map { try! SessionCodec.column(SessionCodec.columnBytes($0)) }) }
        let restored = try ConfigSpec.decodeSession(snap.spec, runtime: false).makeSession(measurer: TestFonts.measurer)
        restored.restore(snap)
        for input in inputs[half...] { try restored.apply(input) }

        for s in [full, restored] {
            #expect(s.liveSpec(includeData: true) == live.liveSpec(includeData: true))
            #expect(s.chart.sharedViewState == live.chart.sharedViewState)
            #expect(s.chart.series.map { $0.generator?.progress.emitted } == live.chart.series.map { $0.generator?.progress.emitted })
        }
        // The same chart drawn (layer versions aside: a restored chart has its own history),
        // automatic ranges included (they settle at each input), and the room for labels
        // and the legend's place (the frames the live chart drew logged them, `.presented`).
        #expect(restored.chart.resolvedRanges() == live.chart.resolvedRanges())
        #expect(full.chart.resolvedRanges() == live.chart.resolvedRanges())
        #expect(restored.chart.presentedLabelExtents == live.chart.presentedLabelExtents)
        let a = restored.displayList(size: Fixtures.size), b = full.displayList(size: Fixtures.size)
        #expect(a.layers.map(\.commands) == b.layers.map(\.commands))
        #expect(b.layers.map(\.commands) == live.displayList(size: Fixtures.size).layers.map(\.commands))
    }

    /// An automatic range keeps a little room once it has grown (hysteresis): where it
    /// stands must follow from the inputs alone, so a node that applied them without
    /// publishing (a cluster node with no viewer, a replay after a restart, a snapshot
    /// and its tail) draws the same axis as the node whose viewers saw every step.
    @Test func automaticRangesSettleWithTheInputsNotThePublications() throws {
        let (live, v) = try watched()
        let recorder = Recorder()
        live.journal = recorder
        var now = 1.0
        func published() { now += 0.1; _ = frame(live, v, at: now) }
        published()
        try live.submit(.append(series: "a", xs: [3], values: [[100]])); published()
        // The peak comes down to 92: the axis keeps the room it grew to.
        try live.submit(.update(series: "a", index: 3, values: [[92]])); published()
        try live.submit(.append(series: "a", xs: [4], values: [[40]])); published()
        let inputs = recorder.inputs
        let y = try #require(live.chart.resolvedRanges()["y"])
        #expect(y.max >= 100, "the live axis kept the room it grew to: \(y)")

        let quiet = try session()
        for input in inputs { try quiet.apply(input) }
        let snapped = try session()
        try snapped.apply(inputs[0])
        var snap = try #require(snapped.snapshot())
        let series = snap.series
        snap = try SessionCodec.decodeState(SessionCodec.encodeState(snap))
        snap.series = series
        let restored = try ConfigSpec.decodeSession(snap.spec, runtime: false).makeSession(measurer: TestFonts.measurer)
        restored.restore(snap)
        for input in inputs.dropFirst() { try restored.apply(input) }

        let shown = live.displayList(size: Fixtures.size).layers.map(\.commands)
        for s in [quiet, restored] {
            #expect(s.chart.resolvedRanges()["y"] == y)
            #expect(s.displayList(size: Fixtures.size).layers.map(\.commands) == shown)
        }
    }

    /// Snapshots written before the settled ranges were stored (format 1), and before
    /// the label extents were (format 2, whose legend places came last and only when
    /// there were any), still read.
    @Test func formatOneAndTwoSnapshotsStillRead() throws {
        let s = try session()
        try s.submit(.append(series: "a", xs: [3], values: [[100]]))
        let snap = try #require(s.snapshot())
        #expect(!snap.settledRanges.isEmpty && snap.legends.isEmpty && snap.labelExtents.isEmpty)
        var bytes = SessionCodec.encodeState(snap)
        #expect(bytes[0] == 3)
        // Format 2: the same bytes without the (empty) legends' and label extents' counts.
        bytes.removeLast(16)
        bytes[0] = 2
        let two = try SessionCodec.decodeState(bytes)
        #expect(two.settledRanges.count == snap.settledRanges.count && two.spec == snap.spec && two.labelExtents.isEmpty)
        // Format 1: without the settled ranges' count and entries either.
        let tail = 8 + snap.settledRanges.reduce(0) { $0 + 8 + $1.axis.utf8.count + 16 }
        bytes.removeLast(tail)
        bytes[0] = 1
        let old = try SessionCodec.decodeState(bytes)
        #expect(old.settledRanges.isEmpty && old.spec == snap.spec)
        bytes[0] = 4
        #expect(throws: SessionCodec.DecodeError.self) { try SessionCodec.decodeState(bytes) }
    }

    /// The room an axis keeps for its labels (`labelSpace`: by default the widest labels
    /// it has shown) and the legend's place follow what was drawn. They enter through the
    /// door (`.presented`, proposed after the frame that drew them), so a chart that
    /// applied the same inputs without drawing (a cluster node that loaded the session
    /// later, a replay after a restart) draws the same frame as the one that drew every
    /// step. Before, its axis kept only the narrow labels it drew itself.
    @Test func labelRoomAndLegendPlacesFollowTheInputsNotTheFramesANodeDrew() throws {
        let spec = #"{"id":"l","chart":{"yAxes":[{"id":"y","mode":"visible"}],"legend":{"show":true},"#
            + #""series":[{"id":"s","name":"S","capacity":3,"data":{"x":[0,1,2],"y":[1,2,3]}}]}}"#
        func make() throws -> Session { try ConfigSpec.decodeSession(foundationJSON(spec)).makeSession(measurer: TestFonts.measurer) }
        let live = try make()
        live.renderThreads = 1
        let recorder = Recorder()
        live.journal = recorder
        let v = live.connect()
        _ = live.receive(Fixtures.hello(), from: v)
        var now = 1.0
        func published() { now += 0.1; _ = frame(live, v, at: now) }
        published()
        try live.submit(.append(series: "s", xs: [3, 4, 5], values: [[123_456.5, 2, 3]])); published()   // wide labels
        try live.submit(.append(series: "s", xs: [6, 7, 8], values: [[1, 2, 3]])); published()            // narrow again
        let kinds = recorder.inputs.map(SessionCodec.kind)
        #expect(kinds.contains(14), "the frames' label room and legend places were logged: \(kinds)")
        let wide = try #require(live.chart.presentedLabelExtents["y"])

        // Applied without a frame in between: the same room, the same frame.
        let quiet = try make()
        for input in recorder.inputs { try quiet.apply(input) }
        #expect(quiet.chart.presentedLabelExtents["y"] == wide)
        #expect(quiet.chart.shownLegends == live.chart.shownLegends)
        #expect(quiet.chart.version == live.chart.version)
        let shown = live.displayList(size: Fixtures.size).layers.map(\.commands)
        #expect(quiet.displayList(size: Fixtures.size).layers.map(\.commands) == shown)
        // Without the logged room, the narrow labels alone give a narrower band.
        let unlogged = try make()
        for input in recorder.inputs { if SessionCodec.kind(input) != 14 { try unlogged.apply(input) } }
        #expect(unlogged.layout(size: Fixtures.size).plotRect.minX < live.layout(size: Fixtures.size).plotRect.minX)

        // The same proposal again (another node drew the same) changes nothing, not even the version.
        let version = quiet.chart.version
        #expect(!quiet.chart.applyPresented(PresentedState(labels: [.init(axis: "y", extent: wide)], legends: [])))
        #expect(quiet.chart.version == version)
        // A snapshot carries the room.
        let snap = try #require(live.snapshot())
        let read = try SessionCodec.decodeState(SessionCodec.encodeState(snap))
        #expect(read.labelExtents.map(\.axis) == live.chart.presentedLabelExtents.keys.sorted())
        #expect(read.labelExtents.first { $0.axis == "y" }?.extent == wide)
    }

    @Test func generatorsGoOnFromTheirSnapshot() throws {
        let s = try session()
        s.advance(to: 10, unixTime: 0)
        s.advance(to: 12, unixTime: 2)
        let g = try #require(s.chart.series.first { $0.id == "g" })
        let snap = try #require(s.snapshot())
        let restored = try session()
        restored.restore(snap)
        // Restarted much later on another clock: the chart goes on, it does not start again.
        restored.advance(to: 500, unixTime: 900)
        let h = try #require(restored.chart.series.first { $0.id == "g" })
        #expect(h.data.count == g.data.count)
        restored.advance(to: 500.5, unixTime: 900.5)
        let k = try #require(restored.chart.series.first { $0.id == "g" })
        #expect(k.data.count == g.data.count + 10)
        #expect(k.data.arrays.xs.prefix(g.data.count) == g.data.arrays.xs[...])
    }

    @Test func codecRoundTripsEveryInput() throws {
        let inputs: [SessionInput] = [
            .define(spec: foundationJSON(Self.spec)), .patch(.object([("t", .double(0.1)), ("n", .null), ("b", .bool(true))])), .delete,
            .append(series: "a", xs: [1, .nan], values: [[2, 3]]), .insert(series: "é", index: 3, xs: [1], values: [[1], [2], [3], [4]]),
            .update(series: "a", index: 0, values: [[5]]), .removeFirst(series: "a", count: 9), .clear(series: "a"),
            .replaceData(series: "a", xs: [], values: [[]]), .write(body: [1, 2, 3], precision: .ms, now: 12.5),
            .view(SharedViewState(ranges: [("x", DoubleRange(1, 2)), ("y", nil)],
                                  series: [.init(id: "a", isHidden: true, isSelected: false, selectedPoints: [3], selectedSlices: [], rotation: 0.5)])),
            .clock(elapsed: 3.25, startedAt: 1e9),
            .pull(series: "a", from: -2.5, to: 7, xs: [-1, 0.5], values: [[3, .nan]]),
            .presented(PresentedState(labels: [.init(axis: "y", extent: 12.5...40)],
                                      legends: [.init(size: Size(width: 480, height: 320), shown: .init(outside: false, position: .topLeft)),
                                                .init(size: Size(width: 800, height: 500), shown: .init(outside: true, position: nil)),
                                                .init(size: Size(width: 200, height: 100), shown: nil)])),
        ]
        for input in inputs {
            let decoded = try SessionCodec.decode(SessionCodec.encode(input))
            // (NaN is not equal to itself: compare the stored bytes.)
            #expect(SessionCodec.encode(decoded) == SessionCodec.encode(input))
        }
        #expect(throws: SessionCodec.DecodeError.self) { try SessionCodec.decode(Array(SessionCodec.encode(inputs[3]).dropLast())) }
    }

    /// The bytes the encoder wrote before ramps (kept by Redis streams and SQLite logs of
    /// older builds): kind, series, columns each as its length and its float64s.
    static func oldAppendBytes(series: String, xs: [Double], ys: [Double]) -> [UInt8] {
        var out: [UInt8] = [4]
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u64(UInt64(series.utf8.count)); out.append(contentsOf: series.utf8)
        u64(2)
        for col in [xs, ys] { u64(UInt64(col.count)); for v in col { u64(v.bitPattern) } }
        return out
    }

    static func bits(_ v: [Double]) -> [UInt64] { v.map(\.bitPattern) }

    @Test func anAppendWrittenBeforeRampsStillReads() throws {
        let xs = (0..<100).map(Double.init), ys = (0..<100).map { sin(Double($0)) }
        let old = Self.oldAppendBytes(series: "b", xs: xs, ys: ys)
        let decoded = try SessionCodec.decode(old)
        #expect(decoded == .append(series: "b", xs: xs, values: [ys]))
        // The encoder now keeps this x column as its line, so the bytes differ...
        #expect(SessionCodec.encode(decoded).count == old.count - 8 * 100 + 25)
        // ...except for short columns, written as before.
        let short = Self.oldAppendBytes(series: "b", xs: Array(xs.prefix(15)), ys: Array(ys.prefix(15)))
        #expect(SessionCodec.encode(try SessionCodec.decode(short)) == short)
    }

    @Test func aRampedXColumnIsStoredAsItsLineAndReadBackBitForBit() throws {
        var accumulated: [Double] = []
        var t = 1.7e9
        for _ in 0..<5000 { accumulated.append(t); t += 0.1 }   // a sender adding its period up
        var jittered = (0..<5000).map { Double($0) * 0.1 }
        jittered[2500] += 0.03
        let cases: [(name: String, xs: [Double], bytesPerX: Int?)] = [
            ("sample indices", (0..<5000).map(Double.init), 0),
            ("fixed-rate timestamps (near the line from their first two)", (0..<5000).map { 1.7e9 + Double($0) * 0.001 }, 2),
            ("accumulated period", accumulated, 0),
            ("a point off the line", jittered, nil),
            ("negative zero first", [-0.0] + (1..<5000).map(Double.init), nil),
            ("a NaN", (0..<5000).map { $0 == 7 ? .nan : Double($0) }, nil),
        ]
        for c in cases {
            let ys = c.xs.indices.map { cos(Double($0)) }
            let input = SessionInput.append(series: "b", xs: c.xs, values: [ys])
            let bytes = SessionCodec.encode(input)
            let plain = Self.oldAppendBytes(series: "b", xs: c.xs, ys: ys).count
            if let per = c.bytesPerX {
                #expect(bytes.count == plain - 8 * c.xs.count + 25 + per * c.xs.count, "\(c.name)")
            } else {
                #expect(bytes.count == plain, "\(c.name)")
            }
            guard case let .append(series, xs, values) = try SessionCodec.decode(bytes) else {
                Issue.record("\(c.name): not an append")
                continue
            }
            #expect(series == "b" && Self.bits(xs) == Self.bits(c.xs) && values.map(Self.bits) == [Self.bits(ys)], "\(c.name)")
        }
        // Only the x column is kept as a ramp; a ramp cut short or of another form is refused.
        let insert = SessionInput.insert(series: "b", index: 2, xs: (0..<20).map(Double.init), values: [(0..<20).map(Double.init)])
        let insertBytes = SessionCodec.encode(insert)
        #expect(try SessionCodec.decode(insertBytes) == insert)
        #expect(insertBytes.count == 1 + 9 + 8 + 8 + 33 + 8 + 160)
        let ramp = SessionCodec.encode(.append(series: "b", xs: accumulated, values: [accumulated]))
        #expect(throws: SessionCodec.DecodeError.self) { try SessionCodec.decode(Array(ramp.prefix(60))) }
        var otherForm = ramp
        otherForm[1 + 9 + 8 + 8] = 3
        #expect(throws: SessionCodec.DecodeError.self) { try SessionCodec.decode(otherForm) }
    }
}

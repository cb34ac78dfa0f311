import ChartSession
import LayoutEngine
import TestSupport
import Testing

/// Entry and exit animations (ShinobiCharts' `animationEnabled`, `entryAnimation`,
/// `exitAnimation`): run by the session's clock, drawn the same for every viewer.
struct AnimationTests {
    static let size = Size(width: 800, height: 500)

    /// Scatter points y = x (so each marker's place is easy to follow), animated.
    static func chart(kind: SeriesKind = .scatter, entry: SeriesAnimation = SeriesAnimation(effect: .grow, duration: 1, curve: .linear),
                      exit: SeriesAnimation = SeriesAnimation(effect: .fade, duration: 1, curve: .linear)) -> Chart {
        var data = XYData()
        try! data.append(xs: (0..<50).map(Double.init), ys: (0..<50).map { Double($0) * 2 })
        var s = Series(id: "s", name: "Points", kind: kind, color: "#1f77b4", xAxisId: "x", yAxisId: "y", data: data)
        if kind == .scatter { s.style.marker = MarkerStyle(shape: .circle, size: 4, fill: "#1f77b4") }
        s.animationEnabled = true
        s.entryAnimation = entry
        s.exitAnimation = exit
        return Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .extents)],
                     yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents, growBy: (0.1, 0.1))], series: [s])
    }

    static func seriesLayer(_ chart: Chart) -> [DrawCommand] {
        ChartRenderer(measurer: TestFonts.measurer).render(chart, size: size, dpr: 1).layers[.series] ?? []
    }

    /// Marker centres of the series layer, left to right.
    static func centres(_ chart: Chart) -> [(x: Float, y: Float)] {
        seriesLayer(chart).flatMap { c -> [(x: Float, y: Float)] in
            guard case let .markers(m) = c else { return [] }
            return m.cells.indices.map { m.centre($0) }
        }.sorted { $0.x < $1.x }
    }

    @Test func curvesRunFromZeroToOne() {
        for curve in SeriesAnimation.Curve.allCases {
            #expect(curve(0) == 0 && curve(1) == 1, "\(curve)")
            let steps = stride(from: 0.0, through: 1, by: 0.05).map { curve($0) }
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 <= $1 }, "\(curve) never goes back")
        }
        #expect(SeriesAnimation.Curve.easeOut(0.5) > 0.5 && SeriesAnimation.Curve.easeIn(0.5) < 0.5)
        #expect(abs(SeriesAnimation.Curve.easeInOut(0.5) - 0.5) < 1e-12)
    }

    @Test func entryWaitsForAViewerThenGrowsFromTheBaseline() throws {
        let chart = Self.chart()
        let final = Self.chart()
        final.advanceAnimations(to: 0, watched: true)
        final.advanceAnimations(to: 5, watched: true)
        #expect(final.series[0].animation == nil)
        let full = Self.centres(final)
        #expect(full.count == 50)

        // Nobody watching: the series waits, not drawn, and the clock must keep running
        // only once somebody watches.
        #expect(chart.advanceAnimations(to: 0, watched: false))
        #expect(chart.series[0].animation == nil)
        #expect(Self.centres(chart).isEmpty)

        chart.advanceAnimations(to: 10, watched: true)   // sets off
        chart.advanceAnimations(to: 10.5, watched: true) // halfway, linear
        let a = try #require(chart.series[0].animation)
        #expect(a.direction == .entry && abs(a.progress - 0.5) < 1e-9)
        let half = Self.centres(chart)
        #expect(half.count == full.count)
        // The baseline (y = 0) is where the first point is: every point halfway to it.
        let base = Double(full[0].y)
        for (h, f) in zip(half, full) {
            #expect(h.x == f.x)
            #expect(abs(Double(h.y) - (base + (Double(f.y) - base) * 0.5)) <= 1, "\(h) vs \(f)")
        }

        let busy = chart.advanceAnimations(to: 11.01, watched: true)
        #expect(!busy && chart.series[0].animation == nil)
        #expect(Self.seriesLayer(chart) == Self.seriesLayer(final), "after its entry the series is drawn as without one")
    }

    @Test func slideComesUpFromBelowThePlot() throws {
        let chart = Self.chart(entry: SeriesAnimation(effect: .slide, duration: 2, curve: .linear))
        let final = Self.chart()
        final.advanceAnimations(to: 0, watched: true); final.advanceAnimations(to: 9, watched: true)
        chart.advanceAnimations(to: 0, watched: true); chart.advanceAnimations(to: 1.5, watched: true)
        let layout = ChartRenderer(measurer: TestFonts.measurer).layout(chart, size: Self.size, dpr: 1)
        let shift = Float(0.25 * layout.plotRect.height)
        let moved = Self.centres(chart), full = Self.centres(final)
        // Points moved below the plot are left out; those still in are a quarter of the
        // plot's height lower.
        #expect(!moved.isEmpty && moved.count < full.count)
        for m in moved {
            let f = try #require(full.first { $0.x == m.x })
            #expect(abs(m.y - (f.y + shift)) <= 1)
        }
    }

    @Test func exitFadesThenHides() throws {
        let chart = Self.chart()
        chart.advanceAnimations(to: 0, watched: true); chart.advanceAnimations(to: 2, watched: true)
        chart.setHidden("s", true)
        #expect(!chart.series[0].isHidden, "hidden once the exit has run")
        chart.advanceAnimations(to: 3, watched: true)    // sets off
        chart.advanceAnimations(to: 3.25, watched: true)
        let layer = Self.seriesLayer(chart)
        let opacities = layer.compactMap { c -> Float? in if case let .opacity(a) = c { return a }; return nil }
        #expect(opacities == [0.75, 1], "faded to 0.75, then back to opaque for what follows")
        #expect(layer.contains { if case .markers = $0 { return true }; return false })

        // Shown again midway: the entry starts from where the exit got to.
        chart.setHidden("s", false)
        let back = try #require(chart.series[0].animation)
        #expect(back.direction == .entry && back.shown == 0.75)
        chart.setHidden("s", true)
        chart.advanceAnimations(to: 4, watched: true)
        chart.advanceAnimations(to: 4.5, watched: true)
        #expect(chart.series[0].animation?.shown == 0.25)
        #expect(!chart.advanceAnimations(to: 5, watched: true))
        #expect(chart.series[0].isHidden && chart.series[0].animation == nil)
        #expect(!Self.seriesLayer(chart).contains { if case .markers = $0 { return true }; return false })
    }

    @Test func withoutAnimationHidingIsImmediate() {
        let chart = Self.chart()
        chart.advanceAnimations(to: 0, watched: true); chart.advanceAnimations(to: 2, watched: true)
        chart.setAnimation("s", enabled: false)
        chart.setHidden("s", true)
        #expect(chart.series[0].isHidden && chart.series[0].animation == nil)
    }

    @Test func pieGrowsItsRadius() throws {
        var data = XYData()
        try data.append(xs: [0, 1, 2], ys: [1, 2, 3])
        var s = Series(id: "p", name: "Pie", kind: .pie, color: "#000", xAxisId: "x", yAxisId: "y", data: data)
        s.animationEnabled = true
        s.entryAnimation = SeriesAnimation(effect: .grow, duration: 1, curve: .linear)
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom)], yAxes: [AxisConfig(id: "y", alignment: .left)],
                          series: [s])
        func radius() -> Float? {
            Self.seriesLayer(chart).compactMap { c -> Float? in if case let .wedges(w) = c { return w.r1 }; return nil }.first
        }
        chart.advanceAnimations(to: 0, watched: true)
        chart.advanceAnimations(to: 0.5, watched: true)
        let half = try #require(radius())
        chart.advanceAnimations(to: 1, watched: true)
        let full = try #require(radius())
        #expect(abs(half - full / 2) <= 2)
    }

    @Test func theSessionClockDrivesFramesUntilTheAnimationEnds() {
        let session = Fixtures.session(Self.chart())
        #expect(!session.needsClock, "nobody watching: no clock needed")
        let viewer = session.connect()
        _ = session.receive(Fixtures.hello(), from: viewer)
        #expect(session.needsClock, "a viewer is watching a series waiting for its entry")
        var versions: [UInt64] = []
        for step in 0...60 {
            session.advance(to: Double(step) * 0.02)
            versions.append(session.chart.version)
        }
        #expect(Set(versions).count > 40, "a new state at nearly every tick while it runs")
        #expect(!session.needsClock)
        let v = session.chart.version
        session.advance(to: 5)
        #expect(session.chart.version == v, "no change once it has ended")
    }

    @Test func specReadsAnimations() throws {
        func decode(_ series: String) throws -> SeriesSpec {
            try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"series":["# + series + "]}}]}"))[0].chart.series[0]
        }
        let s = try decode(#"""
          {"id":"s","animationEnabled":true,"entryAnimation":{"type":"slide","duration":1.5,"curve":"easeInOut"},
           "exitAnimation":{"type":"grow"},"data":{"x":[0,1],"y":[1,2]}}
        """#)
        #expect(s.animationEnabled)
        #expect(s.entryAnimation == SeriesAnimation(effect: .slide, duration: 1.5, curve: .easeInOut))
        #expect(s.exitAnimation == SeriesAnimation(effect: .grow, duration: SeriesAnimation.defaultExit.duration,
                                                    curve: SeriesAnimation.defaultExit.curve))
        #expect(try decode(#"{"id":"s","data":{"x":[0],"y":[1]}}"#).animationEnabled == false)
        for (bad, path) in [(#"{"type":"spin"}"#, "entryAnimation.type"), (#"{"duration":-1}"#, "entryAnimation.duration"),
                            (#"{"duration":60}"#, "entryAnimation.duration"), (#"{"ease":"in"}"#, "entryAnimation.ease")] {
            let error = #expect(throws: JSONReadError.self) {
                _ = try decode(#"{"id":"s","entryAnimation":"# + bad + #","data":{"x":[0],"y":[1]}}"#)
            }
            #expect(error?.path == "$.sessions[0].chart.series[0].\(path)", "\(String(describing: error))")
        }
    }
}

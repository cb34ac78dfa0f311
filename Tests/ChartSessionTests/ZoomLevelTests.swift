import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// `Chart.setZoomLevel` (ShinobiCharts' `setZoomLevel`): the inverse of `zoomLevel`.
@Suite struct ZoomLevelTests {
    @Test func aLevelHalvesTheSpanAboutTheCentreOrAValue() throws {
        let chart = Fixtures.staticChart()   // x: 0 ... 99 by default
        let home = try #require(chart.defaultRange("x"))
        chart.setZoomLevel("x", 2)
        let x = try #require(chart.visibleRange("x"))
        #expect(abs(x.span - home.span / 2) < 1e-9)
        #expect(abs((x.min + x.max) / 2 - (home.min + home.max) / 2) < 1e-9, "about the centre")
        #expect(abs(try #require(chart.zoomLevel("x")) - 2) < 1e-9)

        // About a value: it keeps its place (a quarter of the way along).
        let v = x.min + x.span / 4
        chart.setZoomLevel("x", 8, about: v)
        let z = try #require(chart.visibleRange("x"))
        #expect(abs(z.span - home.span / 8) < 1e-9)
        #expect(abs((v - z.min) / z.span - 0.25) < 1e-9)

        // 1: the default span again (the range is still the user's); nonsense: nothing.
        chart.setZoomLevel("x", 1)
        #expect(abs(try #require(chart.visibleRange("x")).span - home.span) < 1e-9)
        let before = chart.version
        chart.setZoomLevel("x", 0)
        chart.setZoomLevel("x", .nan)
        chart.setZoomLevel("nope", 2)
        #expect(chart.version == before)
    }

    @Test func limitsHoldAndLogAxesZoomInRatios() throws {
        var data = XYData()
        try data.append(xs: [1, 10, 100, 1000, 10_000], ys: [1, 2, 3, 4, 5])
        var x = AxisConfig(id: "x", alignment: .bottom, type: .logarithmic)
        x.zoomLimits = 100...1e9
        let chart = Chart(title: nil, xAxes: [x], yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents)],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        chart.setZoomLevel("x", 2)
        let r = try #require(chart.visibleRange("x"))
        // 1 ... 10000 is four decades: two of them about 100.
        #expect(abs(r.min - 10) < 1e-6 && abs(r.max - 1000) < 1e-6, "\(r)")
        chart.setZoomLevel("x", 1000)
        #expect(try #require(chart.visibleRange("x")).span >= 100 - 1e-9, "the narrowest span holds")
    }
}

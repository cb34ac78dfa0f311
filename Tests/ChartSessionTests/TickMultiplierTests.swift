import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// `tickMultiplier` (SwiftCharts' `ChartAxisGeneratorMultiplier`) through the spec.
@Suite struct TickMultiplierTests {
    func session(_ axis: String) throws -> Session {
        let xs = (0...600).map(Double.init)
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":["# + axis + #"],"series":[{"id":"s","data":{"x":["#
            + xs.map { "\(Int($0))" }.joined(separator: ",") + #"],"y":["# + xs.map { "\(Int($0) % 7)" }.joined(separator: ",") + "]}}]}}]}"
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    @Test func ticksAtMultiplesThatHalveAsTheChartZoomsIn() throws {
        let s = try session(#"{"id":"x","tickMultiplier":15,"tickAnchor":5}"#)
        #expect(s.chart.axis("x")?.config.tickPlacement.multiplier == 15)
        func values() throws -> [Double] { try #require(s.layout(size: Fixtures.size).axis("x")).ticks.map(\.value) }
        // The whole 0 ... 600: multiples of 15 from 5 (every few of them).
        let all = try values()
        #expect(all.count >= 3 && all.allSatisfy { ($0 - 5).truncatingRemainder(dividingBy: 15) == 0 }, "\(all)")
        // Zoomed to 200 ... 260: 15 halved to 7.5 (about 90 px apart on ~700 px).
        s.chart.setRange("x", DoubleRange(200, 260))
        let zoomed = try values()
        #expect(zoomed.first == 200 && zoomed[1] - zoomed[0] == 7.5, "\(zoomed)")
        #expect(zoomed.allSatisfy { ($0 - 5).truncatingRemainder(dividingBy: 7.5) == 0 })
    }

    @Test(arguments: [
        (#"{"id":"x","type":"time","tickMultiplier":15}"#, "$.sessions[0].chart.xAxes[0].tickMultiplier", #"only applies with a numeric axis (type "numeric")"#),
        (#"{"id":"x","type":"logarithmic","tickMultiplier":15}"#, "$.sessions[0].chart.xAxes[0].tickMultiplier", #"only applies with a numeric axis (type "numeric")"#),
        (#"{"id":"x","majorTickFrequency":5,"tickMultiplier":15}"#, "$.sessions[0].chart.xAxes[0].tickMultiplier", "give one of tickValues, majorTickFrequency and tickMultiplier"),
        (#"{"id":"x","tickMultiplier":0}"#, "$.sessions[0].chart.xAxes[0].tickMultiplier", "must be at least 1e-300"),
    ])
    func badMultipliers(axis: String, path: String, message: String) {
        expectRefusedXAxis(axis, path: path, message: message)
    }
}

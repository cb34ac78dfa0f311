import Foundation
import Testing
import TestSupport
@testable import ChartSession

/// x given as category names (issue 29, "string x for category axes").
@Suite struct CategoryNameTests {
    static func spec(_ x: String, axis: String = #""type": "category", "categories": ["Mon", "Tue", "Wed"]"#) -> String {
        #"{"id": "c", "chart": {"xAxes": [{"id": "d", \#(axis)}], "series": [{"id": "s", "type": "column", "data": {"x": \#(x), "y": [1, 2, 3]}}]}}"#
    }

    @Test func specDataNamesTheirCategories() throws {
        let s = try ConfigSpec.decodeSession(foundationJSON(Self.spec(#"["Wed", "Mon", "Tue"]"#))).makeSession(measurer: TestFonts.measurer)
        // Positions 2, 0, 1, merged into x order.
        #expect(s.chart.series[0].data.arrays.xs == [0, 1, 2])
        #expect(s.chart.series[0].data.arrays.ys == [2, 3, 1])
    }

    @Test func unknownNamesAndAxesWithoutCategoriesAreRefusedWithTheirPath() throws {
        do {
            _ = try ConfigSpec.decodeSession(foundationJSON(Self.spec(#"["Mon", "Fri", "Tue"]"#)))
            Issue.record("accepted Fri")
        } catch {
            #expect("\(error)".contains("$.chart.series[0].data.x[1]") && "\(error)".contains(#""Fri" is not a category of axis "d""#), "\(error)")
        }
        do {
            _ = try ConfigSpec.decodeSession(foundationJSON(Self.spec(#"["Mon", "Tue", "Wed"]"#, axis: #""title": "numeric""#)))
            Issue.record("accepted names on a numeric axis")
        } catch { #expect("\(error)".contains("needs a category x axis"), "\(error)") }
        #expect(throws: JSONReadError.self) {
            _ = try CategoryNames.positions(["a", "x"], categories: ["a", "b"], axis: "d", path: "$.x")
        }
        #expect(try CategoryNames.positions(["b", "a", "b"], categories: ["a", "b"], axis: "d", path: "$.x") == [1, 0, 1])
    }
}

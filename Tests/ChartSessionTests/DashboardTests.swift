import Testing
import TestSupport
@testable import ChartSession

@Suite struct DashboardTests {
    @Test func dashboardsAreReadAndCheckedAgainstTheSessions() throws {
        let json = foundationJSON("""
            {"sessions": [], "dashboards": [{"id": "ops", "title": "Ops", "columns": 3, "rowHeight": 250,
              "charts": [{"session": "a", "columnSpan": 3}, {"session": "b"}]}]}
            """)
        let d = try ConfigSpec.decodeDashboards(json, sessionIds: ["a", "b"])
        #expect(d == [Dashboard(id: "ops", title: "Ops", columns: 3, rowHeight: 250,
                                cells: [.init(session: "a", columnSpan: 3), .init(session: "b")])])
        #expect(try ConfigSpec.decode(json).isEmpty, "the session reader lets dashboards through")
        let layout = d[0].layoutMessage(titles: ["a": "Alpha"])
        #expect(layout["charts"]?.arrayValue?.map { $0["title"] } == ["Alpha", "b"])

        let refused: [(String, String)] = [
            (#"{"dashboards": [{"id": "x", "charts": [{"session": "nope"}]}]}"#, "$.dashboards[0].charts[0].session"),
            (#"{"dashboards": [{"id": "x", "charts": []}]}"#, "$.dashboards[0].charts"),
            (#"{"dashboards": [{"id": "x", "columns": 2, "charts": [{"session": "a", "columnSpan": 3}]}]}"#, "$.dashboards[0].charts[0].columnSpan"),
            (#"{"dashboards": [{"id": "x", "charts": [{"session": "a"}]}, {"id": "x", "charts": [{"session": "a"}]}]}"#, "$.dashboards[1].id"),
            (#"{"dashboards": [{"id": "x", "charts": [{"session": "a"}], "colour": 1}]}"#, "$.dashboards[0].colour"),
        ]
        for (text, path) in refused {
            do {
                _ = try ConfigSpec.decodeDashboards(foundationJSON(text), sessionIds: ["a"])
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }

    @Test func theDemoHasAMonitoringDashboard() throws {
        let json = foundationJSON(DemoSpec.json)
        let ids = Set(try ConfigSpec.decode(json).map(\.id))
        let d = try #require(try ConfigSpec.decodeDashboards(json, sessionIds: ids).first)
        #expect(d.cells.map(\.session) == ["servers", "monitor", "queue", "demo"])
    }
}

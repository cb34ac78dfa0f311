import Foundation
import Testing
import TestSupport
@testable import ChartSession

/// Golden display lists: a known chart rendered at known sizes, compared with the
/// stored JSON form in `Golden/`. Any change to layout, ticks, text placement or
/// encoding shows up here as a readable diff. After a reviewed, intended change,
/// re-record with `CHARTWIRE_RECORD_GOLDEN=1 swift test --filter GoldenTests` and
/// commit the new files with the change.
@Suite struct GoldenTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// One command per line, so diffs point at the command that changed.
    static func text(_ list: DisplayList) -> String {
        var out = "{\"width\":\(list.width),\"height\":\(list.height),\"dpr\":\(JSONValue.number(list.dpr).compactText),\"layers\":[\n"
        out += list.layers.map { layer in
            "{\"id\":\"\(layer.id.rawValue)\",\"version\":\(layer.version),\"commands\":[\n"
                + layer.commands.map { "  " + $0.json.compactText }.joined(separator: ",\n") + "\n]}"
        }.joined(separator: ",\n")
        return out + "\n]}\n"
    }

    @Test(arguments: [(400, 300, 1.0), (1024, 600, 2.0)])
    func staticChart(width: Int, height: Int, dpr: Double) throws {
        try check(Fixtures.session(Fixtures.staticChart()), "static", width: width, height: height, dpr: dpr)
    }

    /// A date-time X axis in Berlin across the night summer time begins (29 March
    /// 2026: no 02:00), and a Y axis of hundreds of millions labelled with suffixes.
    @Test func timeAxisAcrossSummerTime() throws {
        let start = 1_774_720_800.0   // 2026-03-28T18:00:00Z
        let xs = (0...36).map { start + Double($0) * 3600 }
        let ys = xs.indices.map { 1.0e8 + 2.0e7 * Double(($0 * 7) % 11) }
        let spec = #"{"sessions":[{"id":"t","chart":{"title":"Summer time","legend":{"position":"topLeft"},"#
            + #""xAxes":[{"id":"t","type":"time","timeZone":"Europe/Berlin","title":"Berlin"}],"#
            + #""yAxes":[{"id":"v","mode":"visible","growBy":[0,0]}],"#
            + #""series":[{"id":"s","name":"Load","data":{"x":["# + xs.map { "\(Int($0))" }.joined(separator: ",")
            + #"],"y":["# + ys.map { "\(Int($0))" }.joined(separator: ",") + "]}}]}}]}"
        let session = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        try check(session, "time-axis", width: 800, height: 400, dpr: 1)
        let labels = session.displayList(size: ViewerSize(width: 800, height: 400, dpr: 1)).layers[0].commands.compactMap {
            if case let .text(_, _, text, _, _, _, _, _) = $0 { return text } else { return nil }
        }
        #expect(labels.contains("Mar 29") && labels.contains("150M"))
        #expect(!labels.contains("02:00"))
    }

    /// Every session of the axis gallery (scripts/make-gallery), at 800x500.
    /// (The Liberation families registered first: the fonts session names them.)
    @Test(arguments: { _ = TestFonts.measurer; return try! ConfigSpec.decode(foundationJSON(GallerySpec.json)).map(\.id) }())
    func gallery(id: String) throws {
        let spec = try #require(try ConfigSpec.decode(foundationJSON(GallerySpec.json)).first { $0.id == id })
        let session = spec.makeSession(measurer: TestFonts.measurer)
        if session.chart.series.contains(where: { $0.source == "/api/demo/points" }) {
            // The server's own demo source, in-process: asked for the range shown, answered at once.
            for s in session.chart.series where s.source != nil { session.setDataSource(DemoHistorySource(), for: s.id) }
            session.runPulls(now: 0)
            session.runPulls(now: 1)
            #expect(session.collectPulls(now: 1).isEmpty)
            #expect(session.chart.series.allSatisfy { $0.source == nil || $0.data.count > 1000 })
        }
        if session.chart.series.contains(where: \.animationEnabled) {
            // Halfway through the entry animations (1.2 s): the golden shows a step of them.
            session.chart.advanceAnimations(to: 0, watched: true)
            session.chart.advanceAnimations(to: 0.6, watched: true)
        }
        try check(session, id, width: 800, height: 500, dpr: 1)
        #expect(session.layout(size: ViewerSize(width: 800, height: 500, dpr: 1)).invariantViolations() == [])
    }

    func check(_ session: Session, _ name: String, width: Int, height: Int, dpr: Double) throws {
        let list = session.displayList(size: ViewerSize(width: width, height: height, dpr: dpr))
        let actual = Self.text(list)
        let file = Self.dir.appendingPathComponent("\(name)-\(width)x\(height)@\(Int(dpr))x.json")
        if ProcessInfo.processInfo.environment["CHARTWIRE_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.dir, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        if actual != expected {
            let a = actual.split(separator: "\n"), e = expected.split(separator: "\n")
            let line = (0..<min(a.count, e.count)).first { a[$0] != e[$0] } ?? min(a.count, e.count)
            Issue.record("""
                \(file.lastPathComponent) differs at line \(line + 1):
                expected: \(line < e.count ? e[line] : "<end>")
                actual:   \(line < a.count ? a[line] : "<end>")
                (re-record after review: CHARTWIRE_RECORD_GOLDEN=1 swift test --filter GoldenTests)
                """)
        }
    }
}

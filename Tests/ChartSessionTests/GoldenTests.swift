import Foundation
import Testing
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
        let session = Fixtures.session(Fixtures.staticChart())
        let list = session.displayList(size: ViewerSize(width: width, height: height, dpr: dpr))
        let actual = Self.text(list)
        let file = Self.dir.appendingPathComponent("static-\(width)x\(height)@\(Int(dpr))x.json")
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

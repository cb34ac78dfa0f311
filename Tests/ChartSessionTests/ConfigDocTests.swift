import Foundation
import Testing
import TestSupport
@testable import ChartSession

/// docs/config.md against the spec reader: every field the reader accepts appears in
/// the doc, and every field the doc lists is accepted, so the two cannot drift apart.
///
/// The doc marks each table of fields with the places it describes, as the reader's
/// JSON paths without list indices (`<!-- fields: $.sessions.chart.xAxes ... -->`); the
/// first column of the table below names the fields, in backticks. The reader's side
/// is what `JSONFieldRecorder` records while the reader reads specs of every kind:
/// the examples, and specs made here with every series type, axis type, modifier and
/// annotation (a field counts as accepted once some kind reads it).
@Suite struct ConfigDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Places whose keys are names the user chooses (tick values, tag keys), not fields.
    static let freeKeys: Set<String> = ["$.sessions.chart.xAxes.labelMap", "$.sessions.chart.yAxes.labelMap",
                                        "$.sessions.lineProtocol.series.tags"]
    /// `selectedStyle` takes the series' own style fields (a subset of the series table).
    static let selectedStyle = "$.sessions.chart.series.selectedStyle"
    /// Its marker is a series' marker.
    static let selectedMarker = "$.sessions.chart.series.selectedStyle.marker"

    /// The doc's tables: place → field names.
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/config.md"), encoding: .utf8)
        var out: [String: Set<String>] = [:]
        let lines = text.components(separatedBy: "\n")
        var i = 0
        while i < lines.count {
            let line = lines[i].trimmingCharacters(in: .whitespaces)
            i += 1
            guard line.hasPrefix("<!-- fields:"), line.hasSuffix("-->") else { continue }
            let places = line.dropFirst("<!-- fields:".count).dropLast(3).split(separator: " ").map(String.init)
            // The table that follows: header, separator, rows.
            while i < lines.count, !lines[i].hasPrefix("|") { i += 1 }
            var names: Set<String> = []
            var row = 0
            while i < lines.count, lines[i].hasPrefix("|") {
                defer { i += 1; row += 1 }
                guard row >= 2 else { continue }
                let first = lines[i].split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
                names.formUnion(first.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
            }
            for p in places { out[p, default: []].formUnion(names) }
        }
        return out
    }

    /// Specs of every kind, as JSON text (a top-level spec with sessions and dashboards).
    static func specs() throws -> [String] {
        _ = TestFonts.measurer   // (registers the families the gallery's fonts session names)
        var out: [String] = []
        for name in ["demo", "gallery", "push"] {
            out.append(try String(contentsOf: root.appendingPathComponent("examples/\(name).json"), encoding: .utf8))
        }
        out.append(#"{"server": {"redis": "redis://127.0.0.1:6379", "allowOrigins": ["https://portal.example"]}, "sessions": []}"#)
        func session(_ chart: String, extra: String = "") -> String { #"{"sessions": [{"id": "k", "chart": \#(chart)\#(extra)}]}"# }
        for kind in SeriesKind.allCases {
            let data = kind.valueFields.map { #""\#($0)": [1]"# }.joined(separator: ", ")
            out.append(session(#"{"series": [{"id": "a", "type": "\#(kind.rawValue)", "data": {"x": [0], \#(data)}}]}"#))
        }
        // A vertical band: data y, x, x1.
        out.append(session(#"{"series": [{"id": "a", "type": "band", "orientation": "vertical", "data": {"y": [0], "x": [1], "x1": [2]}}]}"#))
        for kind in ModifierSpec.Kind.allCases {
            out.append(session(#"{"modifiers": [{"type": "\#(kind.rawValue)"}]}"#))
        }
        for type in AxisType.allCases {
            let categories = type == .category ? #", "categories": ["a"]"# : ""
            out.append(session(#"{"xAxes": [{"id": "x", "type": "\#(type.rawValue)"\#(categories)}], "yAxes": [{"id": "y", "type": "\#(type.rawValue)"\#(categories)}]}"#))
        }
        for kind in Annotation.Kind.allCases {
            out.append(session(#"{"annotations": [{"type": "\#(kind.rawValue)", "x": 1, "y": 1, "x2": 2, "y2": 2, "text": "t", "marker": {}}]}"#))
        }
        out.append(session(#"""
            {"xAxes": [{"id": "x", "type": "time", "majorTickFrequency": {"unit": "month"}, "minorTickFrequency": {"unit": "day"}}],
             "yAxes": [{"id": "y", "type": "time", "majorTickFrequency": {"unit": "month"}, "minorTickFrequency": {"unit": "day"}}]}
            """#))
        // The nested objects and the branches reached only with something given.
        out.append(session(#"""
            {"xAxes": [{"id": "x", "padding": {"leading": {"labelPlus": 2}, "trailing": {"labelPlus": 1}}, "excludedPeriod": {"period": 10, "ranges": [[1, 2]]},
                        "labelSpace": 40, "minorTicks": "auto"}],
             "yAxes": [{"id": "y", "padding": {"leading": {"labelPlus": 1}, "trailing": {"labelPlus": 2}}, "minorTicks": 4},
                       {"id": "y2", "padding": {"trailing": 3}, "excludedPeriod": {"period": 10, "ranges": [[1, 2]]}}],
             "series": [{"id": "g", "generator": {"kind": "sine"}, "selectedStyle": {"color": "red"},
                         "entryAnimation": {"type": "fade"}, "exitAnimation": {"type": "fade"}}],
             "legend": {}, "theme": {}, "axisLayout": {}, "margins": [1, 2, 3, 4]}
            """#, extra: #"""
            , "access": {"anonymous": "viewer"},
              "lineProtocol": {"series": [{"measurement": "m", "tags": {}, "field": "v", "series": "g"}]}
            """#))
        return out
    }

    /// The reader's side: place → fields it asked for.
    static func accepted() throws -> [String: Set<String>] {
        let recorder = JSONFieldRecorder()
        try recorder.recording {
            for text in try specs() {
                let json = foundationJSON(text)
                let sessions = try? ConfigSpec.decode(json)
                _ = try? ConfigSpec.decodeDashboards(json, sessionIds: Set((sessions ?? []).map(\.id)))
            }
        }
        return recorder.recorded
    }

    @Test func theExamplesAndMadeSpecsAreRead() throws {
        // (Most of them must be whole, valid specs, or the record would miss fields.)
        let all = try Self.specs()
        let valid = all.filter { (try? ConfigSpec.decode(foundationJSON($0))) != nil }
        #expect(valid.count >= all.count - Annotation.Kind.allCases.count, "\(valid.count) of \(all.count)")
    }

    @Test func configDocListsEveryFieldTheReaderAcceptsAndNoOther() throws {
        let doc = try Self.documented(), reader = try Self.accepted()
        #expect(!doc.isEmpty, "docs/config.md marks its field tables")
        for (place, fields) in reader.sorted(by: { $0.key < $1.key }) where !Self.freeKeys.contains(place) {
            if place == Self.selectedStyle || place == Self.selectedMarker {
                let series = doc[place == Self.selectedStyle ? "$.sessions.chart.series" : "$.sessions.chart.series.marker"] ?? []
                #expect(fields.subtracting(series).isEmpty, "selectedStyle fields not in the series table: \(fields.subtracting(series).sorted())")
                continue
            }
            let missing = fields.subtracting(doc[place] ?? [])
            #expect(missing.isEmpty, "docs/config.md lacks \(place): \(missing.sorted())")
        }
        for (place, fields) in doc.sorted(by: { $0.key < $1.key }) {
            let unknown = fields.subtracting(reader[place] ?? [])
            #expect(unknown.isEmpty, "docs/config.md lists fields the reader refuses at \(place): \(unknown.sorted())")
        }
    }
}

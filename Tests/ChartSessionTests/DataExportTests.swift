import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// Data export (docs/export.md, "Data"): the CSV and JSON writers, dates as the X
/// axis writes them, every series shape, ranges, series filters and limits.
@Suite struct DataExportTests {
    static let t0 = 1_790_000_000.0   // 2026-09-21 14:13:20 UTC, 16:13:20 in Berlin (CEST)

    static func chart(_ json: String) throws -> Chart {
        try ConfigSpec.decodeSession(foundationJSON(json)).makeSession(measurer: TestFonts.measurer).chart
    }

    /// A Berlin time axis fixed to [t0, t0 + 100], with a line (a name with a comma and
    /// quotes, a gap), a band, candles and bubbles; the last points lie outside the view.
    static func shapes(dateFormat: String? = nil) throws -> Chart {
        let t = t0
        let format = dateFormat.map { #","dateFormat":"\#($0)""# } ?? ""
        return try chart(#"""
            {"id":"e","chart":{"xAxes":[{"id":"t","type":"time","timeZone":"Europe/Berlin","mode":"fixed","range":[\#(t),\#(t + 100)]\#(format)}],
             "series":[
              {"id":"l","name":"Temp, \"inside\"","data":{"x":[\#(t),\#(t + 1.5),\#(t + 60),\#(t + 200)],"y":[1,null,2.5,9]}},
              {"id":"b","type":"band","name":"Band","data":{"x":[\#(t),\#(t + 500)],"y":[1,2],"y1":[3,4]}},
              {"id":"c","type":"candlestick","name":"Candles","data":{"x":[\#(t + 10)],"open":[10],"high":[12.25],"low":[9],"close":[11]}},
              {"id":"u","type":"bubble","name":"Bubbles","data":{"x":[\#(t + 20)],"y":[5],"size":[0.125]}}]}}
            """#)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func csvHasOneRowPerPointInViewEveryShapeQuotedAndDated() throws {
        let e = try DataExport(chart: Self.shapes(), session: "e")
        #expect(Self.text(e.csv()) == [
            "series,name,x,y,y1,open,high,low,close,size",
            #"l,"Temp, ""inside""",2026-09-21T16:13:20+02:00,1,,,,,,"#,
            #"l,"Temp, ""inside""",2026-09-21T16:13:21.500+02:00,,,,,,,"#,
            #"l,"Temp, ""inside""",2026-09-21T16:14:20+02:00,2.5,,,,,,"#,
            "b,Band,2026-09-21T16:13:20+02:00,1,3,,,,,",
            "c,Candles,2026-09-21T16:13:30+02:00,,,10,12.25,9,11,",
            "u,Bubbles,2026-09-21T16:13:40+02:00,5,,,,,,0.125",
        ].map { $0 + "\r\n" }.joined())
    }

    @Test func rawAndBothFormatsWriteTheStoredNumbers() throws {
        let chart = try Self.shapes()
        let raw = try DataExport(chart: chart, session: "e", options: DataExportOptions(series: ["c"], xFormat: .raw))
        #expect(Self.text(raw.csv()) == "series,name,x,open,high,low,close\r\nc,Candles,1790000010,10,12.25,9,11\r\n")
        let both = try DataExport(chart: chart, session: "e", options: DataExportOptions(series: ["u"], xFormat: .both))
        #expect(Self.text(both.csv()) == "series,name,x,xRaw,y,size\r\nu,Bubbles,2026-09-21T16:13:40+02:00,1790000020,5,0.125\r\n")
    }

    @Test func theAxisDateFormatIsUsedWhenItHasOne() throws {
        let e = try DataExport(chart: Self.shapes(dateFormat: "dd.MM.yyyy HH:mm:ss"), session: "e",
                               options: DataExportOptions(series: ["b"]))
        #expect(Self.text(e.csv()) == "series,name,x,y,y1\r\nb,Band,21.09.2026 16:13:20,1,3\r\n")
    }

    @Test func jsonHasColumnsPerSeriesWithNullGaps() throws {
        let e = try DataExport(chart: Self.shapes(), session: "e", options: DataExportOptions(series: ["l", "c"]))
        let doc = try #require(JSONSerialization.jsonObject(with: Data(e.json())) as? [String: Any])
        #expect(doc["session"] as? String == "e" && doc["format"] as? String == "axis" && doc["points"] as? Int == 4)
        let series = try #require(doc["series"] as? [[String: Any]])
        #expect(series.map { $0["id"] as? String } == ["l", "c"])
        let l = series[0]
        #expect(l["name"] as? String == #"Temp, "inside""#)
        #expect(l["type"] as? String == "line" && l["xType"] as? String == "time" && l["timeZone"] as? String == "Europe/Berlin")
        #expect(l["from"] as? Double == Self.t0 && l["to"] as? Double == Self.t0 + 100 && l["count"] as? Int == 3)
        #expect(l["x"] as? [String] == ["2026-09-21T16:13:20+02:00", "2026-09-21T16:13:21.500+02:00", "2026-09-21T16:14:20+02:00"])
        let y = try #require(l["y"] as? [Any])
        #expect(y.count == 3 && y[0] as? Double == 1 && y[1] is NSNull && y[2] as? Double == 2.5)
        let c = series[1]
        #expect(c["open"] as? [Double] == [10] && c["high"] as? [Double] == [12.25] && c["low"] as? [Double] == [9] && c["close"] as? [Double] == [11])
        let raw = try DataExport(chart: Self.shapes(), session: "e", options: DataExportOptions(series: ["l"], xFormat: .both))
        let rdoc = try #require(JSONSerialization.jsonObject(with: Data(raw.json())) as? [String: Any])
        let r = try #require((rdoc["series"] as? [[String: Any]])?.first)
        #expect(r["xRaw"] as? [Double] == [Self.t0, Self.t0 + 1.5, Self.t0 + 60])
        #expect((r["x"] as? [String])?.count == 3)
    }

    @Test func categoriesAndPieSlicesAreNamed() throws {
        let cat = try Self.chart(#"""
            {"id":"k","chart":{"xAxes":[{"id":"x","type":"category","categories":["North","South, East"]}],
             "series":[{"id":"s","type":"column","name":"Sales","data":{"x":[0,1],"y":[3,4]}}]}}
            """#)
        #expect(Self.text(try DataExport(chart: cat).csv()) == "series,name,x,y\r\ns,Sales,North,3\r\ns,Sales,\"South, East\",4\r\n")
        let pie = try Self.chart(#"{"id":"p","chart":{"series":[{"id":"p","type":"pie","name":"Share","sliceNames":["A","B \"b\""],"data":{"y":[1,2,3]}}]}}"#)
        #expect(Self.text(try DataExport(chart: pie).csv())
                == "series,name,x,label,y\r\np,Share,0,A,1\r\np,Share,1,\"B \"\"b\"\"\",2\r\np,Share,2,Slice 3,3\r\n")
        let doc = try #require(JSONSerialization.jsonObject(with: Data(DataExport(chart: pie).json())) as? [String: Any])
        let p = try #require((doc["series"] as? [[String: Any]])?.first)
        #expect(p["label"] as? [String] == ["A", #"B "b""#, "Slice 3"] && p["y"] as? [Double] == [1, 2, 3])
        #expect(p["from"] == nil && p["xAxis"] == nil)
    }

    @Test func rangeAndSeriesFilterAndHiddenSeries() throws {
        let chart = try Self.shapes()
        // An explicit range reaches past the view; series keep the order asked for.
        let wide = try DataExport(chart: chart, options: DataExportOptions(series: ["b", "l"], from: Self.t0 + 1, to: Self.t0 + 500, xFormat: .raw))
        #expect(wide.parts.map(\.id) == ["b", "l"])
        #expect(wide.parts.map(\.count) == [1, 3])
        #expect(Self.text(wide.csv()).hasPrefix("series,name,x,y,y1\r\nb,Band,1790000500,2,4\r\n"))
        // One end past the view's other end: nothing, for every series.
        let past = try DataExport(chart: chart, options: DataExportOptions(from: Self.t0 + 10_000))
        #expect(past.pointCount == 0 && past.parts.count == 4)
        #expect(Self.text(past.csv()) == "series,name,x,y,y1,open,high,low,close,size\r\n")
        #expect(try JSONSerialization.jsonObject(with: Data(past.json())) is [String: Any])
        // A hidden series is left out unless asked for.
        chart.setHidden("l", true)
        #expect(try DataExport(chart: chart).parts.map(\.id) == ["b", "c", "u"])
        #expect(try DataExport(chart: chart, options: DataExportOptions(series: ["l"])).parts.map(\.count) == [3])
    }

    @Test func refusalsNameTheFault() throws {
        let chart = try Self.shapes()
        #expect(throws: DataExportError(404, "no series \"nope\" in session \"e\"")) {
            try DataExport(chart: chart, session: "e", options: DataExportOptions(series: ["nope"]))
        }
        #expect(throws: DataExportError(400, "from (5) is after to (1)")) {
            try DataExport(chart: chart, options: DataExportOptions(from: 5, to: 1))
        }
        var limits = SessionLimits()
        limits.exportPoints = 5
        do {
            _ = try DataExport(chart: chart, limits: limits)
            Issue.record("6 points passed a limit of 5")
        } catch {
            #expect(error.status == 413 && error.message.contains("limit exportPoints"))
        }
        limits.exportPoints = 6
        #expect(try DataExport(chart: chart, limits: limits).pointCount == 6)
    }

    @Test func queryOptionsReadDatesInTheAxisZone() throws {
        let chart = try Self.shapes()
        let o = try DataExport.options(query: ["from": "2026-09-21T16:13:21", "to": "2026-09-21T14:14:20Z", "series": "l,b", "format": "raw"], chart: chart)
        #expect(o.from == Self.t0 + 1 && o.to == Self.t0 + 60 && o.series == ["l", "b"] && o.xFormat == .raw)
        #expect(try DataExport.options(query: ["from": "2026-09-21T18:13:20.5+04:00"], chart: chart).from == Self.t0 + 0.5)
        #expect(try DataExport.options(query: ["from": "2026-09-21T18:13:20.5 04:00"], chart: chart).from == Self.t0 + 0.5, "+ sent unescaped")
        #expect(try DataExport.options(query: ["from": "2026-09-21T10:13:20-0400"], chart: chart).from == Self.t0)
        #expect(try DataExport.options(query: ["to": "1790000000.25"], chart: chart).to == Self.t0 + 0.25)
        #expect(throws: DataExportError.self) { try DataExport.options(query: ["from": "yesterday"], chart: chart) }
        #expect(throws: DataExportError.self) { try DataExport.options(query: ["format": "pretty"], chart: chart) }
        #expect(throws: DataExportError.self) { try DataExport.options(query: ["series": "l,,b"], chart: chart) }
        #expect(throws: DataExportError.self) { try DataExport.options(query: ["limit": "3"], chart: chart) }
        // A date is refused for a numeric axis.
        let numeric = try Self.chart(#"{"id":"n","chart":{"series":[{"id":"s","data":{"x":[1,2],"y":[1,2]}}]}}"#)
        #expect(throws: DataExportError.self) { try DataExport.options(query: ["from": "2026-09-21"], chart: numeric) }
        #expect(DataExport.parseISO8601("2026-09-21") == Self.t0 - 51_200)
        #expect(DataExport.parseISO8601("2026-13-01") == nil && DataExport.parseISO8601("2026-09-21T16") == nil)
        #expect(DataExport.parseISO8601("2026-02-31") == nil && DataExport.parseISO8601("2026-09-21T24:00") == nil)
        #expect(DataExport.parseISO8601("2026-09-21T16:13:20+02") == Self.t0)
    }

    /// Written a few bytes at a time, the export is the same bytes as written at once.
    @Test func piecesMakeTheSameBytes() throws {
        var data = XYData()
        try data.append(xs: (0..<5000).map { Self.t0 + Double($0) * 0.25 }, ys: (0..<5000).map { $0 % 7 == 0 ? .nan : Double($0) / 3 })
        let chart = Chart(title: nil, xAxes: [AxisConfig(id: "x", alignment: .bottom, mode: .extents, type: .time)],
                          yAxes: [AxisConfig(id: "y", alignment: .left, mode: .extents)],
                          series: [Series(id: "s", name: "S", color: "#000", xAxisId: "x", yAxisId: "y", data: data)])
        let e = try DataExport(chart: chart, options: DataExportOptions(from: -.infinity, to: .infinity))
        for w in [e.csvWriter(), e.jsonWriter()] {
            var pieces: [UInt8] = [], calls = 0
            while w.next(into: &pieces, max: pieces.count + 7) { calls += 1 }
            #expect(calls > 1000)
            #expect(pieces == (w.csv ? e.csv() : e.json()))
        }
        let doc = try #require(JSONSerialization.jsonObject(with: Data(e.json())) as? [String: Any])
        let y = try #require((doc["series"] as? [[String: Any]])?.first?["y"] as? [Any])
        #expect(y.count == 5000 && y[0] is NSNull && y[1] as? Double == 1.0 / 3)
    }
}

import Foundation
import Testing
import ChartSession
import TestSupport
@testable import ChartWireServer

/// JSON bounded by values, and points bodies read into columns as jansson reads them.
@Suite struct JSONLimitsTests {
    @Test func valuesAreCountedOutsideStrings() {
        #expect(JSONScan.countValues(Array(#"{"a":[1,2,{"b":"x,y[]"}],"c":null}"#.utf8), limit: 100) == 10)
        #expect(JSONScan.countValues(Array(#"["a\"b", -1.5e3, true]"#.utf8), limit: 100) == 4)
        #expect(JSONScan.countValues(Array("[{},{},{}]".utf8), limit: 2) == 3, "stops past the limit")
    }

    @Test func aDocumentOfTooManyValuesIsRefusedBeforeItIsBuilt() {
        do {
            _ = try Jansson.parse(Array("[{},{},{},{}]".utf8), maxValues: 4)
            Issue.record("five values were taken under a limit of four")
        } catch {
            #expect(error.status == 413 && error.valueLimit == 4)
            #expect(error.description == "the JSON holds more than 4 values (limit jsonValues; the server's --limit jsonValues=N raises it)")
        }
        #expect((try? Jansson.parse(Array("[{},{},{}]".utf8), maxValues: 4)) != nil)
        #expect((try? Jansson.parse(Array("[1,2,3,4,5]".utf8), maxValues: nil)) != nil)
    }

    @Test func columnsHoldWhatJanssonReads() throws {
        let numbers = ["0", "-0", "1", "-1", "123456789012345678", "9223372036854775807", "-9223372036854775808", "1.5", "-0.0",
                       "1e3", "1E-3", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "0.1", "123.456e-7",
                       "3.141592653589793238462643383279", "0.30000000000000004", "9007199254740993", "1e-400", "100000000000000000000.5",
                       "0.000001234567890123456789"]
        let text = #"{"x":["# + numbers.joined(separator: ",") + #"],"y":[null,"# + numbers.dropFirst().joined(separator: " , ") + "]}"
        let doc = try #require(JSONScan.readColumns(Array(text.utf8), columns: ["x", "y"], keep: 100))
        let viaJansson = try Jansson.parse(Array(text.utf8))
        let expected = try #require(viaJansson["x"]?.arrayValue?.map { $0.doubleValue! })
        let got = try #require(doc.columns["x"])
        #expect(got.count == numbers.count)
        for (i, (a, b)) in zip(got, expected).enumerated() {
            #expect(a.bitPattern == b.bitPattern, "\(numbers[i]): \(a) vs jansson's \(b)")
        }
        #expect(doc.columns["y"]?.first?.isNaN == true && doc.withGaps == ["y"] && doc.counts["y"] == numbers.count)
    }

    @Test func anythingButTheSimpleShapeIsLeftToTheDocumentReader() {
        for text in [#"{"x":[01]}"#, #"{"x":[1.]}"#, #"{"x":[.5]}"#, #"{"x":[1e]}"#, #"{"x":[+1]}"#, #"{"x":[1e400]}"#,
                     #"{"x":[9223372036854775808]}"#, #"{"x":[NaN]}"#, #"{"x":[1],"x":[2]}"#, #"{"x":[[1]]}"#, #"{"x":["1"]}"#,
                     #"{"x":[1]} x"#, #"{"x":[1],}"#, #"{"z":[1]}"#, #"{"x\u0041":[1]}"#, #"[1]"#, "", #"{"x":[1,]}"#, #"{"x":{"a":1}}"#] {
            #expect(JSONScan.readColumns(Array(text.utf8), columns: ["x"], keep: 10) == nil, "\(text)")
        }
        let doc = JSONScan.readColumns(Array(#" { "index" : 3 , "x" : [ 1 , 2 ] , "s":"a", "b": false } "#.utf8), columns: ["x"], keep: 1)
        #expect(doc?.columns["x"] == [1] && doc?.counts["x"] == 2)
        #expect(doc?.scalars.map(\.0) == ["index", "s", "b"] && doc?.scalars.first?.1 == .int(3))
    }

    @Test func pointsBodiesKeepTheirErrors() {
        func read(_ body: String, kind: SeriesKind = .line) -> String? {
            do { _ = try Router.readPoints(Array(body.utf8), kind: kind); return nil } catch { return error.message }
        }
        #expect(read(#"{"x":[1,2],"y":[1,null]}"#) == nil)
        #expect(read(#"{"x":[1,null],"y":[1,2]}"#) == "$.x[1]: expected a number, found null")
        #expect(read(#"{"x":[1],"y":[1],"q":[1]}"#) == "$.q: unknown field")
        #expect(read(#"{"x":[1],"y":[1],"q":1}"#) == "$.q: unknown field")
        #expect(read(#"{"x":[1]}"#) == "$: field \"y\" is required")
        #expect(read(#"{"x":[1],"y":["a"]}"#) == "$.y[0]: expected a number or null, found a string")
        #expect(read(#"{"x":[1],"y":[1e400]}"#)?.hasPrefix("invalid JSON at line 1") == true)
        let many = "{\"x\":[" + Array(repeating: "0", count: Session.maxAppendPoints + 5).joined(separator: ",") + "],\"y\":[0]}"
        #expect(read(many) == "\(Session.maxAppendPoints + 5) points in one append; at most \(Session.maxAppendPoints) are accepted")
    }
}

@Suite struct LimitOptionsTests {
    @Test func limitsAreSetByName() throws {
        let o = try Options.parse(["--limit", "sessions=5", "--limit", "jsonValues=1000"])
        #expect(o.sessionLimits.sessions == 5 && o.sessionLimits.jsonValues == 1000 && o.sessionLimits.axesPerChart == SessionLimits().axesPerChart)
        #expect(throws: Options.UsageError.self) { try Options.parse(["--limit", "bogus=1"]) }
        #expect(throws: Options.UsageError.self) { try Options.parse(["--limit", "sessions=-1"]) }
        #expect(throws: Options.UsageError.self) { try Options.parse(["--limit"]) }
        #expect(Options.usage.contains("--limit NAME=VALUE") && Options.usage.contains("sessionPoints"))
    }
}

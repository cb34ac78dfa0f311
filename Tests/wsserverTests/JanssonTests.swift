import Testing
import ChartSession
@testable import ChartWireServer

@Suite struct JanssonTests {
    @Test func roundTripsEveryKind() throws {
        let v: JSONValue = ["a": 1, "b": [true, false, nil, 2.5, "x\"y\\z é ✓"], "c": ["nested": [:]], "d": -7]
        let text = Jansson.serializeString(v)
        #expect(text == #"{"a":1,"b":[true,false,null,2.5,"x\"y\\z é ✓"],"c":{"nested":{}},"d":-7}"#)
        #expect(try Jansson.parse(text) == v)
    }

    @Test func keepsKeyOrder() throws {
        let v = try Jansson.parse(#"{"z":1,"a":2,"m":3}"#)
        guard case let .object(members) = v else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["z", "a", "m"])
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,\"a\":2}", "NaN", "[Infinity]", "{'a':1}", "[1e999]", "\u{0}",
    ])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: Jansson.ParseError.self) { try Jansson.parse(text) }
    }

    @Test func errorsSayWhere() {
        do {
            _ = try Jansson.parse("{\n  \"a\": [1, 2,, 3]\n}")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 2)
            #expect(error.description.hasPrefix("invalid JSON at line 2"))
        }
    }

    @Test func nonFiniteNumbersPrintAsNull() {
        #expect(Jansson.serializeString([.double(.nan), .double(.infinity), 1.5]) == "[null,null,1.5]")
    }

    @Test func realPrecision() {
        #expect(Jansson.serializeString(.double(0.1), realPrecision: 9) == "0.1")
        #expect(Jansson.serializeString(.double(1.0 / 3.0), realPrecision: 9) == "0.333333333")
    }
}

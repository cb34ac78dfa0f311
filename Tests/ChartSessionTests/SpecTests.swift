import Foundation
import Testing
import TestSupport
@testable import ChartSession
import LayoutEngine

func parseJSON(_ text: String) -> JSONValue { foundationJSON(text) }

@Suite struct SpecTests {
    /// A spec file's `server` settings: read with the sessions, checked like them.
    @Test func serverSettingsAreReadAndChecked() throws {
        let spec = parseJSON(#"{"server": {"redis": "redis://10.0.0.5:6380"}, "sessions": []}"#)
        #expect(try ConfigSpec.decode(spec).isEmpty)
        #expect(try ConfigSpec.decodeServer(spec).redis == "redis://10.0.0.5:6380")
        #expect(try ConfigSpec.decodeServer(parseJSON(#"{"sessions": []}"#)).redis == nil)
        let misspelt = parseJSON(#"{"server": {"reddis": "redis://h:1"}, "sessions": []}"#)
        #expect(throws: JSONReadError(path: "$.server.reddis", message: "unknown field")) { try ConfigSpec.decode(misspelt) }
        #expect(throws: JSONReadError.self) { try ConfigSpec.decodeServer(parseJSON(#"{"server": {"redis": 6379}}"#)) }
    }

    /// `server.allowOrigins`: normalized; a bad entry is refused with its JSON path and why.
    @Test func serverAllowOriginsAreReadAndChecked() throws {
        let spec = parseJSON(#"{"server": {"allowOrigins": ["HTTPS://Portal.Example:443", "http://127.0.0.1:9000/", "*"]}, "sessions": []}"#)
        #expect(try ConfigSpec.decodeServer(spec).allowOrigins == ["https://portal.example", "http://127.0.0.1:9000", "*"])
        #expect(try ConfigSpec.decodeServer(parseJSON(#"{"sessions": []}"#)).allowOrigins == nil)
        let bad = parseJSON(#"{"server": {"allowOrigins": ["https://ok.example", "https://portal.example/dash"]}, "sessions": []}"#)
        #expect(throws: JSONReadError(path: "$.server.allowOrigins[1]",
                                      message: #""https://portal.example/dash" is not an origin: an origin has no path, query or fragment ("/dash"): scheme://host[:port] only"#)) {
            try ConfigSpec.decode(bad)
        }
        #expect(throws: JSONReadError.self) { try ConfigSpec.decodeServer(parseJSON(#"{"server": {"allowOrigins": "https://a.example"}}"#)) }
    }

    /// `server.redisSnapshot`, `server.redisTail`, `server.redisTailBytes`, `server.pullAllow`: checked as their flags are.
    @Test func serverRedisCountsAndPullAllow() throws {
        let spec = parseJSON(#"{"server": {"redisSnapshot": 400, "redisTail": 12, "redisTailBytes": 0, "pullAllow": ["Data.Example:9000", "10.0.0.7"], "pullCA": "ca/private.pem"}, "sessions": []}"#)
        #expect(try ConfigSpec.decode(spec).isEmpty)
        let s = try ConfigSpec.decodeServer(spec)
        #expect(s.redisSnapshot == 400 && s.redisTail == 12 && s.redisTailBytes == 0 && s.pullAllow == ["data.example:9000", "10.0.0.7"]
                && s.pullCA == "ca/private.pem")
        let empty = try ConfigSpec.decodeServer(parseJSON(#"{"sessions": []}"#))
        #expect(empty.redisSnapshot == nil && empty.redisTail == nil && empty.redisTailBytes == nil && empty.pullAllow == nil && empty.pullCA == nil)
        let bad: [(String, JSONReadError)] = [
            (#"{"redisSnapshot": 0}"#, JSONReadError(path: "$.server.redisSnapshot", message: "must be at least 1")),
            (#"{"redisTail": 2.5}"#, JSONReadError(path: "$.server.redisTail", message: "expected a whole number")),
            (#"{"redisTail": 100000001}"#, JSONReadError(path: "$.server.redisTail", message: "must be at most 100000000")),
            (#"{"redisTailBytes": -1}"#, JSONReadError(path: "$.server.redisTailBytes", message: "must be at least 0")),
            (#"{"redisTailBytes": 1099511627777}"#, JSONReadError(path: "$.server.redisTailBytes", message: "must be at most 1099511627776")),
            (#"{"redisSnapshot": "20"}"#, JSONReadError(path: "$.server.redisSnapshot", message: "expected a number, found a string")),
            (#"{"pullAllow": ["ok.example", "http://evil.example/"]}"#,
             JSONReadError(path: "$.server.pullAllow[1]", message: #""http://evil.example/" is not a host or host:port"#)),
            (#"{"pullAllow": ["user@h"]}"#, JSONReadError(path: "$.server.pullAllow[0]", message: #""user@h" is not a host or host:port"#)),
            (#"{"pullAllow": [""]}"#, JSONReadError(path: "$.server.pullAllow[0]", message: #""" is not a host or host:port"#)),
            (#"{"pullCA": ""}"#, JSONReadError(path: "$.server.pullCA", message: "expected the path of a PEM file of CA certificates")),
            (#"{"pullCA": ["a.pem"]}"#, JSONReadError(path: "$.server.pullCA", message: "expected a string, found an array")),
        ]
        for (server, error) in bad {
            #expect(throws: error) { try ConfigSpec.decode(parseJSON(#"{"sessions": [], "server": "# + server + "}")) }
        }
    }

    @Test func webOriginEntries() {
        for good in ["*", "http://a.example", "https://a.example:8443", "http://127.0.0.1:9000", "http://[::1]:8080",
                     "https://xn--bcher-kva.example", "https://a.example/"] {
            #expect(WebOrigin.problem(good) == nil, "\(good)")
        }
        let bad: [(String, String)] = [
            ("", "an empty origin"),
            ("a.example", "an origin starts with http:// or https:// (scheme://host[:port])"),
            ("ws://a.example", #"the scheme "ws" is not http or https"#),
            ("https://a.example?x=1", #"an origin has no path, query or fragment ("?x=1"): scheme://host[:port] only"#),
            ("https://user@a.example", "an origin has no user name or password"),
            ("https://*.a.example", "a wildcard is * alone (any origin), not part of a host name"),
            ("https://a.example:0", #"the port "0" is not a number from 1 to 65535"#),
            ("https://a.example:", #"the port "" is not a number from 1 to 65535"#),
            ("https://", "the origin has no host"),
            ("http://::1:80", "an IPv6 address goes in brackets: http://[::1]:8080"),
            ("http://[::1", #"an IPv6 address in brackets lacks its "]""#),
            ("https://bücher.example", #"the host "bücher.example" has characters a host name cannot have (use the punycode form of an international name)"#),
            ("https://a example", "an origin has no spaces"),
            ("null", #""null" (sandboxed frames, file:// pages) cannot be allowed by name; use * to allow every origin"#),
        ]
        for (text, why) in bad { #expect(WebOrigin.problem(text) == why, "\(text)") }
        #expect(WebOrigin.normalized("HTTP://A.Example:80/") == "http://a.example")
        #expect(WebOrigin.normalized("https://a.example:8443") == "https://a.example:8443")
    }

    @Test func demoSpecDecodesAndMatchesTheExampleFile() throws {
        let specs = try ConfigSpec.decode(parseJSON(DemoSpec.json))
        #expect(specs.map(\.id) == ["demo", "monitor", "axes", "servers", "queue"])
        #expect(specs[0].chart.series.map(\.id) == ["sine", "walk", "saw"])
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/demo.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == DemoSpec.json.trimmingCharacters(in: .whitespacesAndNewlines))
        let session = specs[0].makeSession(measurer: TestFonts.measurer)
        #expect(session.chart.series.count == 3)
        #expect(session.chart.modifiers.map(\.kind) == ["zoomPan", "mouseWheelZoom", "zoomExtents", "presence"])
        // Only the first axis of each direction draws gridlines unless told otherwise.
        let monitor = specs[1].makeSession(measurer: TestFonts.measurer)
        #expect(monitor.chart.yAxes.map(\.config.showGridLines) == [true, false])
    }

    @Test func galleryDecodesAndMatchesTheExampleFile() throws {
        _ = TestFonts.measurer   // (registers the families the gallery's fonts session names)
        let specs = try ConfigSpec.decode(parseJSON(GallerySpec.json))
        #expect(specs.count >= 16 && specs.allSatisfy { $0.id.hasPrefix("gallery-") && $0.description != nil })
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/gallery.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == GallerySpec.json.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func defaultsFillAMinimalSpec() throws {
        let specs = try ConfigSpec.decode(parseJSON(#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","data":{"x":[1,2],"y":[3,4]}}]}}]}"#))
        let s = specs[0].makeSession(measurer: TestFonts.measurer)
        #expect(s.title == "a")
        #expect(s.chart.series[0].color == Theme().palette[0])
        #expect(s.chart.series[0].data.count == 2)
        #expect(s.chart.xAxes.map(\.id) == ["x"] && s.chart.yAxes.map(\.id) == ["y"])
        #expect(s.chart.modifiers.count == 3)
    }

    /// Each bad spec is refused with the JSON path of its fault.
    @Test(arguments: [
        (#"[]"#, "$", "expected an object, found an array"),
        (#"{"session":[]}"#, "$.session", "unknown field"),
        (#"{"sessions":[{"chart":{}}]}"#, "$.sessions[0].id", "is required"),
        (#"{"sessions":[{"id":"a b","chart":{}}]}"#, "$.sessions[0].id", #""a b" is not an id: use 1 to 64 letters, digits, - or _"#),
        (#"{"sessions":[{"id":"a"}]}"#, "$.sessions[0]", #"field "chart" is required"#),
        (#"{"sessions":[{"id":"a","chart":{}},{"id":"a","chart":{}}]}"#, "$.sessions[1].id", #"duplicate session id "a""#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x","alignment":"left"}]}}]}"#, "$.sessions[0].chart.yAxes[0].alignment", "a y axis of a rotated chart (x axes at the left or right) sits at the top or bottom"),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x"},{"id":"x2","alignment":"right"}]}}]}"#, "$.sessions[0].chart.xAxes[1].alignment", "an x axis sits at the top or bottom, as the first x axis does"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"scatter","fill":"#fff"}]}}]}"##, "$.sessions[0].chart.series[0].fill", "fill styles columns and bands; a scatter series has color (and marker)"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"line","stroke":"#fff"}]}}]}"##, "$.sessions[0].chart.series[0].stroke", "stroke outlines columns, candles and slices; a line series has color (and marker)"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"scatter","showFill":true}]}}]}"##, "$.sessions[0].chart.series[0]", "showFill, areaColor and areaColorGradient fill lines; a scatter series has none"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"area","showFill":false}]}}]}"##, "$.sessions[0].chart.series[0].showFill", #"an area is filled; use type "line" for a line without fill"#),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"line","risingColor":"#fff"}]}}]}"##, "$.sessions[0].chart.series[0]", "risingColor and fallingColor colour candles; a line series has color"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"ohlc","data":{"x":[1],"open":[1],"high":[2],"low":[0]}}]}}]}"##, "$.sessions[0].chart.series[0].data", "x has 1 values but close has 0; they must be equal"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"candlestick","data":{"x":[1],"open":[1],"high":[2],"low":[1.5],"close":[1]}}]}}]}"##, "$.sessions[0].chart.series[0].data", "point 0: low 1.5 and high 2.0 must enclose open 1.0 and close 1.0"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"candlestick","data":{"x":[1],"y":[1]}}]}}]}"##, "$.sessions[0].chart.series[0].data.y", "unknown field"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"ohlc","generator":{"kind":"sine"}}]}}]}"##, "$.sessions[0].chart.series[0].generator", "generators make x/y points; a ohlc series is fed by appends"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"scatter","stackIndex":0}]}}]}"##, "$.sessions[0].chart.series[0].stackIndex", "lines, step lines, areas and columns stack; a scatter series does not"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"a","stackIndex":0},{"id":"b","type":"column","stackIndex":0}]}}]}"##, "$.sessions[0].chart.series[1].type", #"a stack holds lines and areas, or columns; "a" in this stack is a line"#),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"a","stackIndex":0,"data":{"x":[1,2],"y":[1,1]}},{"id":"b","stackIndex":0,"data":{"x":[1,3],"y":[1,1]}}]}}]}"##, "$.sessions[0].chart.series[1].data.x[1]", #"stacked series share their x: "a" has 2.0 here, not 3.0"#),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"a","stackPercent":true}]}}]}"##, "$.sessions[0].chart.series[0].stackPercent", "stackPercent needs a stackIndex"),
        (##"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"candlestick","marker":{"shape":"circle"}}]}}]}"##, "$.sessions[0].chart.series[0].marker", "a candlestick series has no markers"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","marker":{"shape":"star"}}]}}]}"#, "$.sessions[0].chart.series[0].marker.shape", "unknown value \"star\"; expected one of \"circle\", \"square\", \"triangle\", \"diamond\", \"cross\""),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","marker":{"size":0}}]}}]}"#, "$.sessions[0].chart.series[0].marker.size", "must be at least 1"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","dash":[0,0]}]}}]}"#, "$.sessions[0].chart.series[0].dash", "a dash pattern is up to 16 lengths from 0 to 1000 px, not all 0"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","type":"column","columnWidth":2}]}}]}"#, "$.sessions[0].chart.series[0].columnWidth", "must be at most 1"),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x","mode":"follow"}]}}]}"#, "$.sessions[0].chart.xAxes[0].window", #"a positive window is required with mode "follow""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","mode":"sideways"}]}}]}"#, "$.sessions[0].chart.yAxes[0].mode", #"unknown value "sideways"; expected one of "extents", "visible", "follow", "fixed""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","mode":"fixed"}]}}]}"#, "$.sessions[0].chart.yAxes[0].range", #"is required with mode "fixed""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","range":[2,1]}]}}]}"#, "$.sessions[0].chart.yAxes[0].range", "expected [min, max] with min < max"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","yAxis":"nope"}]}}]}"#, "$.sessions[0].chart.series[0].yAxis", #"no y axis "nope""#),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s"},{"id":"s"}]}}]}"#, "$.sessions[0].chart.series[1].id", #"duplicate series id "s""#),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","color":"red;}"}]}}]}"#, "$.sessions[0].chart.series[0].color", #""red;}" is not a CSS colour"#),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","strokeWidth":"thick"}]}}]}"#, "$.sessions[0].chart.series[0].strokeWidth", "expected a number, found a string"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","data":{"x":[1,2],"y":[1]}}]}}]}"#, "$.sessions[0].chart.series[0].data", "x has 2 values but y has 1; they must be equal"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","stackIndex":0,"data":{"x":[2,1],"y":[1,1]}}]}}]}"#, "$.sessions[0].chart.series[0].data", "x[1] is smaller than the x before it; a stacked series takes its points in x order"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","data":{"x":[1,"2"],"y":[1,1]}}]}}]}"#, "$.sessions[0].chart.series[0].data.x[1]", "expected a number, found a string"),
        (#"{"sessions":[{"id":"a","chart":{"series":[{"id":"s","generator":{"kind":"sine","rate":0}}]}}]}"#, "$.sessions[0].chart.series[0].generator.rate", "must be at least 0.1"),
        (#"{"sessions":[{"id":"a","chart":{"modifiers":[{"type":"rotate"}]}}]}"#, "$.sessions[0].chart.modifiers[0].type", #"unknown value "rotate"; expected one of "zoomPan", "mouseWheelZoom", "zoomExtents", "pinchZoom", "rubberBandZoom", "rollover", "cursor", "selection", "legend", "rotateChart", "crosshair", "axisDrag", "pieRotation", "presence""#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"time","timeZone":"Mars/Olympus"}]}}]}"#, "$.sessions[0].chart.xAxes[0].timeZone", #"unknown time zone "Mars/Olympus" (use an IANA name such as "Europe/Berlin", or "UTC")"#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","timeZone":"UTC"}]}}]}"#, "$.sessions[0].chart.xAxes[0].timeZone", #"only applies with type "time""#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"time","labelFormat":"si"}]}}]}"#, "$.sessions[0].chart.xAxes[0].labelFormat", "only applies to numeric and logarithmic axes"),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","labelFormat":"roman"}]}}]}"#, "$.sessions[0].chart.yAxes[0].labelFormat", #"unknown value "roman"; expected one of "decimal", "si", "auto""#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"date"}]}}]}"#, "$.sessions[0].chart.xAxes[0].type", #"unknown value "date"; expected one of "numeric", "time", "logarithmic", "category""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","type":"logarithmic","mode":"fixed","range":[0,10]}]}}]}"#, "$.sessions[0].chart.yAxes[0].range", "a logarithmic axis shows positive values only"),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","logBase":2}]}}]}"#, "$.sessions[0].chart.yAxes[0].logBase", #"only applies with type "logarithmic""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","type":"logarithmic","logBase":1}]}}]}"#, "$.sessions[0].chart.yAxes[0].logBase", "must be at least 1.000001"),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","labelSpace":-5}]}}]}"#, "$.sessions[0].chart.yAxes[0].labelSpace", "must be at least 0"),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","labelSpace":"wide"}]}}]}"#, "$.sessions[0].chart.yAxes[0].labelSpace", #"unknown value "wide"; expected one of "current", "minPresentedSize", "maxPresentedSize""#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x","axisPositionValue":0}]}}]}"#, "$.sessions[0].chart.xAxes[0].axisPositionValue", #"only applies with "isCenterAxis": true"#),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x","isCenterAxis":true,"positionAxis":"x2"}]}}]}"#, "$.sessions[0].chart.xAxes[0].positionAxis", #"no y axis "x2""#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","tickValues":[1],"majorTickFrequency":2}]}}]}"#, "$.sessions[0].chart.yAxes[0].majorTickFrequency", "give tickValues or majorTickFrequency, not both"),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","minorTicks":1}]}}]}"#, "$.sessions[0].chart.yAxes[0].minorTicks", #"expected "auto" or a number of divisions from 2 to 20"#),
        (#"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","tickAnchor":0.5}]}}]}"#, "$.sessions[0].chart.yAxes[0].tickAnchor", "only applies with majorTickFrequency, tickMultiplier or minorTickFrequency"),
        (#"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"time","minorTicks":"auto"}]}}]}"#, "$.sessions[0].chart.xAxes[0]", "tickValues and minorTicks are for numeric and logarithmic axes (a time axis takes calendar frequencies: \"majorTickFrequency\": {\"unit\": \"month\", \"count\": 1})"),
        (#"{"sessions":[{"id":"a","chart":{"legend":{"placement":"middle"}}}]}"#, "$.sessions[0].chart.legend.placement", #"unknown value "middle"; expected one of "insidePlotArea", "outsidePlotArea""#),
        (#"{"sessions":[{"id":"a","chart":{"legend":{"placement":"topRight"}}}]}"#, "$.sessions[0].chart.legend.placement", #"the corner is now "position" ("position": "topRight"); "placement" is "insidePlotArea" or "outsidePlotArea""#),
        (#"{"sessions":[{"id":"a","chart":{"legend":{"position":"center"}}}]}"#, "$.sessions[0].chart.legend.position", #"unknown value "center"; expected one of "topLeft", "topMiddle", "topRight", "middleLeft", "middleRight", "bottomLeft", "bottomMiddle", "bottomRight""#),
    ])
    func badSpecsNameTheirFault(json: String, path: String, message: String) {
        do {
            _ = try ConfigSpec.decode(parseJSON(json))
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.path == path)
            #expect(error.message == message)
        }
    }
}

/// Axis settings from the spec, as the layout and the display list show them.
@Suite struct AxisSettingsTests {
    func session(_ chart: String) throws -> Session {
        try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":"# + chart + "}]}"))[0]
            .makeSession(measurer: TestFonts.measurer)
    }
    let size = ViewerSize(width: 800, height: 500, dpr: 1)
    let series = #""series":[{"id":"s","data":{"x":[0,1,2],"y":[5,6,7]}}]"#

    @Test func autoAlignmentSpreadsAxes() throws {
        let s = try session(#"{"yAxes":[{"id":"a","alignment":"auto"},{"id":"b","alignment":"auto"},{"id":"c","alignment":"left"}],"# + series + "}")
        #expect(s.chart.yAxes.map(\.config.alignment) == [.right, .left, .left])
        let t = try session(#"{"yAxes":[{"id":"a","alignment":"auto"},{"id":"b","alignment":"auto"}],"# + series + "}")
        #expect(t.chart.yAxes.map(\.config.alignment) == [.left, .right])
    }

    @Test func hiddenAxesAndSpacing() throws {
        func plot(_ y: String, spacing: String = "") throws -> (Rect, ChartLayout) {
            let s = try session("{" + spacing + ##""yAxes":[{"id":"y","title":"Y""## + y + ##"},{"id":"y2","alignment":"left"}],"## + series + "}")
            let l = s.layout(size: size)
            return (l.plotRect, l)
        }
        let (visible, _) = try plot("")
        let (hidden, hl) = try plot(#","visibility":"hidden""#)
        let (kept, kl) = try plot(#","visibility":"hiddenKeepingSpace""#)
        #expect(hidden.minX < visible.minX && kept == visible)
        #expect(hl.axis("y")!.labels.isEmpty && kl.axis("y")!.labels.isEmpty && kl.axis("y")!.title == nil)
        let (spaced, _) = try plot("", spacing: #""axisSpacing":12,"#)
        #expect(spaced.minX == visible.minX + 12)
        let (longTicks, _) = try plot(#","tickLength":15,"labelSpacing":10"#)
        #expect(longTicks.minX == visible.minX + 16)
    }

    @Test func axisLineStyle() throws {
        let s = try session(##"{"yAxes":[{"id":"y","lineWidth":0,"labelColor":"#aa0000"}],"xAxes":[{"id":"x","lineWidth":3,"lineColor":"#00aa00"}],"## + series + "}")
        let commands = s.displayList(size: size).layers[0].commands
        let strokes = commands.compactMap { c -> (String, Float)? in
            if case let .segments(_, stroke, width, _) = c { return (stroke, width) } else { return nil }
        }
        #expect(strokes.contains { $0 == ("#00aa00", 3) })
        #expect(!strokes.contains { $0.0 == Theme().axisLine })   // the Y axis draws no line
        #expect(commands.contains { if case let .text(_, _, _, _, fill, _, _, _) = $0 { fill == "#aa0000" } else { false } })
    }

    /// Swapping the axes' sides at runtime (what a rotate-chart modifier does) lays the
    /// X axis out vertically and still draws the series.
    @Test func rotatingByAlignment() throws {
        let s = try session("{" + series + "}")
        s.chart.setAlignment("x", .left)
        s.chart.setAlignment("y", .bottom)
        let l = s.layout(size: size)
        #expect(l.axis("x")!.alignment == .left && l.axis("y")!.alignment == .bottom)
        #expect(l.invariantViolations() == [])
        let drawn = s.displayList(size: size).layers.first { $0.id == .series }!.commands
        #expect(drawn.contains { if case .polyline = $0 { true } else { false } })
    }
}

/// SciChart's "Stack Axes Vertically": two left Y axes each taking half the plot's
/// height, each series drawn in its axis' half.
@Suite struct StackedAxesTests {
    @Test func yAxesShareThePlotHeight() throws {
        let spec = #"{"sessions":[{"id":"a","chart":{"axisLayout":{"left":"stacked"},"#
            + #""yAxes":[{"id":"top","mode":"fixed","range":[0,10]},{"id":"bottom","mode":"fixed","range":[0,10]}],"#
            + #""series":[{"id":"s","yAxis":"bottom","data":{"x":[0,1,2],"y":[0,5,10]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 800, height: 600, dpr: 1)
        let l = s.layout(size: size)
        let top = try #require(l.axis("top")), bottom = try #require(l.axis("bottom"))
        #expect(top.rect.minY == l.plotRect.minY && bottom.rect.maxY == l.plotRect.maxY)
        #expect(top.rect.maxY < bottom.rect.minY)                   // a gap between the slices
        #expect(top.rect.minX == bottom.rect.minX || top.rect.maxX == bottom.rect.maxX)  // side by side, not outwards
        #expect(abs(bottom.calculator.pixel(10) - bottom.rect.minY) < 1e-9 && abs(bottom.calculator.pixel(0) - bottom.rect.maxY) < 1e-9)
        #expect(l.invariantViolations() == [])
        // The series against "bottom" stays in the bottom slice.
        let line = try #require(s.displayList(size: size).layers.first { $0.id == .series }?.commands.compactMap { c -> ColumnLine? in
            if case let .columns(line) = c { line } else { nil }
        }.first)
        for p in line.polylines { for i in stride(from: 1, to: p.count, by: 2) { #expect(Double(p[i]) >= bottom.rect.minY - 1) } }
        // An unknown layout name is refused where it is.
        #expect(throws: JSONReadError.self) {
            try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"axisLayout":{"left":"sideways"}}}]}"#))
        }
    }
}

@Suite struct CategoryAxisTests {
    @Test func namedSlots() throws {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"m","type":"category","categories":["#
            + months.map { "\"\($0)\"" }.joined(separator: ",") + #"]}],"#
            + #""series":[{"id":"s","data":{"x":[0,1,2,3,4,5,6,7,8,9,10,11],"y":[3,4,6,8,11,14,16,15,12,9,5,3]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let wide = s.layout(size: ViewerSize(width: 900, height: 400, dpr: 1)).axis("m")!
        #expect(wide.ticks.map(\.label) == months)
        #expect(wide.calculator.range == DoubleRange(-0.5, 11.5))     // half a slot either side
        // Narrow: every other name, never touching.
        let narrow = s.layout(size: ViewerSize(width: 300, height: 400, dpr: 1)).axis("m")!
        #expect(narrow.ticks.count < 12 && narrow.ticks.first?.label == "Jan")
        for (a, b) in zip(narrow.labels, narrow.labels.dropFirst()) { #expect(!a.bounds.intersects(b.bounds)) }
    }

    @Test(arguments: [
        (#"{"id":"m","type":"category"}"#, "$.sessions[0].chart.xAxes[0].categories", "a category axis needs 1 to 10000 names"),
        (#"{"id":"m","categories":["a"]}"#, "$.sessions[0].chart.xAxes[0].categories", #"only applies with type "category""#),
        (#"{"id":"m","type":"category","categories":["a",1]}"#, "$.sessions[0].chart.xAxes[0].categories[1]", "expected a string, found a number"),
        (#"{"id":"m","type":"category","categories":["a"],"minorTicks":"auto"}"#, "$.sessions[0].chart.xAxes[0]", "a category axis has a tick at each named slot: no tick or label settings"),
    ])
    func badCategoryAxes(axis: String, path: String, message: String) {
        expectRefusedXAxis(axis, path: path, message: message)
    }
}

/// ShinobiCharts' ranges: absolute range padding, zoom and pan limits, the default
/// range, panning to a value and the zoom level.
@Suite struct AxisRangeTests {
    func session(_ x: String) throws -> Session {
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x""# + x + #"}],"#
            + #""series":[{"id":"s","data":{"x":[0,10,20,30,40,50,60,70,80,90,100],"y":[1,2,3,4,5,6,5,4,3,2,1]}}]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    @Test func paddingIsInDataUnits() throws {
        let s = try session(#","rangePadding":[5,20]"#)
        #expect(s.chart.visibleRange("x") == DoubleRange(-5, 120))
        #expect(s.chart.dataRange("x") == DoubleRange(0, 100))
        #expect(s.chart.defaultRange("x") == DoubleRange(-5, 120))
        #expect(s.chart.dataRange("y") == DoubleRange(1, 6))
    }

    @Test func limitsHoldWhateverTheGesture() throws {
        let s = try session(#","zoomLimits":[10,200],"panLimits":[-50,150]"#)
        s.chart.setRange("x", DoubleRange(40, 41))             // too narrow: 10 wide about its centre
        #expect(s.chart.visibleRange("x") == DoubleRange(35.5, 45.5))
        s.chart.setRange("x", DoubleRange(-1000, 1000))        // too wide, then cut to the pan limits
        #expect(s.chart.visibleRange("x") == DoubleRange(-50, 150))
        s.chart.setRange("x", DoubleRange(130, 170))           // past the pan limit: moved back inside
        #expect(s.chart.visibleRange("x") == DoubleRange(110, 150))
        // A wheel zoom far in stops at the narrowest span.
        let v = s.connect()
        _ = s.receive(Fixtures.hello(), from: v)
        let plot = s.layout(size: Fixtures.size).plotRect
        for _ in 0..<20 { _ = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -500)), from: v) }
        #expect(abs(s.chart.visibleRange("x")!.span - 10) < 1e-9)
    }

    @Test func panToAndZoomLevel() throws {
        let s = try session("")
        #expect(s.chart.zoomLevel("x") == 1)
        s.chart.setRange("x", DoubleRange(0, 50))
        #expect(s.chart.zoomLevel("x") == 2)
        s.chart.panTo("x", 80, at: .end)
        #expect(s.chart.visibleRange("x") == DoubleRange(30, 80))
        s.chart.panTo("x", 10, at: .start)
        #expect(s.chart.visibleRange("x") == DoubleRange(10, 60))
        s.chart.panTo("x", 50)
        #expect(s.chart.visibleRange("x") == DoubleRange(25, 75))
        s.chart.resetUserRanges()
        #expect(s.chart.visibleRange("x") == s.chart.defaultRange("x"))
    }
}

/// A trading chart: weekends and the hours outside 09:30-16:00 left out.
@Suite struct DiscontinuousAxisTests {
    @Test func tradingHours() throws {
        let monday = 1_763_251_200.0    // 2025-11-16T00:00:00Z is a Sunday; +1 day: Monday 17 Nov 2025
        let start = monday + 86_400
        let xs = stride(from: start, to: start + 14 * 86_400, by: 1800).map { $0 }
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"time","weekends":true,"tradingHours":["09:30","16:00"]}],"#
            + #""series":[{"id":"s","data":{"x":["# + xs.map { "\(Int($0))" }.joined(separator: ",") + #"],"y":["#
            + xs.indices.map { "\($0 % 17)" }.joined(separator: ",") + "]}}]}}]}"
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 1000, height: 400, dpr: 1)
        let axis = try #require(s.layout(size: size).axis("t"))
        #expect(axis.ticks.count >= 4)
        for t in axis.ticks {
            let c = CivilTime(seconds: t.value)
            let minutes = c.hour * 60 + c.minute
            #expect(c.weekday <= 5 && minutes >= 9 * 60 + 30 && minutes <= 16 * 60, "\(t.label) at \(c)")
        }
        // The first tick, and each day's first, says which day it is (a time alone would not).
        let first = try #require(axis.ticks.first)
        #expect(!first.label.contains(":"), "\(first.label)")
        // Ten trading days of 6.5 hours take the whole width.
        let calc = axis.calculator
        let friday1600 = start + 4 * 86_400 + 16 * 3600, monday0930 = start + 7 * 86_400 + 9.5 * 3600
        #expect(abs(calc.pixel(friday1600) - calc.pixel(monday0930)) < 1e-6)
        // The line is drawn (point by point on a discontinuous axis).
        let series = s.displayList(size: size).layers.first { $0.id == .series }!.commands
        #expect(series.contains { if case .polyline = $0 { true } else { false } })
    }

    @Test(arguments: [
        (#"{"id":"t","tradingHours":["09:30","16:00"]}"#, "$.sessions[0].chart.xAxes[0].tradingHours", #"only applies with type "time""#),
        (#"{"id":"t","type":"time","tradingHours":["16:00","09:30"]}"#, "$.sessions[0].chart.xAxes[0].tradingHours", #"expected ["HH:MM", "HH:MM"], opening before closing"#),
        (#"{"id":"t","excludedRanges":[[5,1]]}"#, "$.sessions[0].chart.xAxes[0].excludedRanges[0]", "expected [from, to] with from < to"),
        (#"{"id":"t","excludedPeriod":{"period":10,"ranges":[[0,10]]}}"#, "$.sessions[0].chart.xAxes[0].excludedPeriod", "give ranges that leave part of each period shown"),
        (#"{"id":"t","type":"logarithmic","excludedRanges":[[1,2]]}"#, "$.sessions[0].chart.xAxes[0]", "only numeric and time axes can leave ranges out"),
    ])
    func badBreaks(axis: String, path: String, message: String) {
        expectRefusedXAxis(axis, path: path, message: message)
    }
}

/// Swift label generators and ShinobiCharts' alterTickMark.
@Suite struct TickLabelHookTests {
    @Test func generatorAndHookShapeTheTicks() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        let size = Fixtures.size
        let before = s.layout(size: size).axis("x")!.ticks
        s.chart.setTickLabels("x", generator: TickLabelGenerator("euros") { "€\(Int($0))" },
                              hook: TickHook("hide-odd") { mark in
                                  if mark.value == 0 { mark.label = "zero" }
                                  if Int(mark.value) % 20 == 10 { mark.isLabelHidden = true }
                                  if mark.value == 100 { mark.isHidden = true }
                              })
        let axis = s.layout(size: size).axis("x")!
        #expect(axis.ticks.map(\.value) == before.map(\.value).filter { $0 != 100 })
        #expect(axis.labels.first?.text == "zero")
        #expect(axis.labels.dropFirst().allSatisfy { $0.text.hasPrefix("€") && Int($0.text.dropFirst())! % 20 == 0 })
        let texts = s.displayList(size: size).layers[0].commands.compactMap { c -> String? in
            if case let .text(_, _, t, _, _, _, _, _) = c { t } else { nil }
        }
        #expect(texts.contains("€20") && !texts.contains("€10") && !texts.contains("€100"))
        // Cleared, the axis writes its own labels again.
        s.chart.setTickLabels("x", generator: nil)
        #expect(s.layout(size: size).axis("x")!.ticks.map(\.label) == before.map(\.label))
    }
}

/// ShinobiCharts' tick-label clipping modes, SwiftCharts' clipContents, fixed labels
/// on a floating axis, and switchable series clipping.
@Suite struct ClippingTests {
    func session(_ x: String, chart: String = "") throws -> Session {
        let spec = #"{"sessions":[{"id":"a","chart":{"# + chart + #""xAxes":[{"id":"x","mode":"fixed","range":[0,100]"# + x + #"}],"#
            + #""yAxes":[{"id":"y","mode":"fixed","range":[-1,1]}],"series":[{"id":"s","data":{"x":[0,100],"y":[-2,2]}}]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }
    let size = ViewerSize(width: 800, height: 400, dpr: 1)

    @Test func endsFollowTheirModes() throws {
        let keep = try session("").layout(size: size).axis("x")!
        #expect(keep.labels.first?.text == "0" && keep.labels.last?.text == "100")   // reaching past both ends
        let clipped = try session(#","clipContents":true"#).layout(size: size).axis("x")!
        #expect(clipped.labels.first?.text != "0" && clipped.labels.last?.text != "100")
        #expect(clipped.ticks.count == keep.ticks.count)                              // ticks stay
        let mixed = try session(#","tickLabelClippingModeLow":"neitherPersist","tickLabelClippingModeHigh":"ticksAndLabelsPersist""#)
            .layout(size: size).axis("x")!
        #expect(mixed.ticks.count == keep.ticks.count - 1 && mixed.ticks.first?.value != 0)
        #expect(mixed.labels.last?.text == "100")
    }

    @Test func fixedLabelsOnAFloatingAxis() throws {
        let s = try session(#","alignment":"top","isCenterAxis":true,"axisPositionValue":0.5,"axisLabelsAreFixed":true"#)
        let l = s.layout(size: size)
        let x = try #require(l.axis("x")), y = try #require(l.axis("y"))
        #expect(x.rect.minY == l.plotRect.minY)                                   // labels at the top edge
        #expect(abs(x.line! - y.calculator.pixel(0.5)) < 1e-9)                    // the line at 0.5
        // The axis' first segment is its line, drawn there.
        let segments = s.displayList(size: size).layers[0].commands.compactMap { c -> [Float]? in
            if case let .segments(coords, stroke, _, _) = c, stroke == Theme().axisLine { coords } else { nil }
        }
        #expect(segments.contains { abs(Double($0[1]) - x.line!) < 1 && $0[1] == $0[3] })
        #expect(throws: JSONReadError.self) { try self.session(#","axisLabelsAreFixed":true"#) }
    }

    @Test func seriesClippingIsSwitchable() throws {
        func clips(_ s: Session) -> Bool {
            s.displayList(size: size).layers.first { $0.id == .series }!.commands.contains { if case .clip = $0 { true } else { false } }
        }
        #expect(try clips(session("")))
        #expect(try !clips(session("", chart: #""clipSeries":false,"#)))
    }
}

/// SwiftCharts' padding modes: room before the first and after the last value.
@Suite struct AxisEndPaddingTests {
    func xAxis(_ padding: String) throws -> (AxisLayout, Rect) {
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"x","mode":"fixed","range":[0,100],"padding":"# + padding + #"}],"#
            + #""series":[{"id":"s","data":{"x":[0,100],"y":[0,1]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let l = s.layout(size: ViewerSize(width: 800, height: 400, dpr: 1))
        return (l.axis("x")!, l.plotRect)
    }

    @Test func modes() throws {
        let (fixed, plot) = try xAxis(#"{"leading":20,"trailing":"none"}"#)
        #expect(abs(fixed.calculator.pixel(0) - (plot.minX + 20)) < 1e-9 && abs(fixed.calculator.pixel(100) - plot.maxX) < 1e-9)
        let (label, plot2) = try xAxis(#"{"leading":"label","trailing":"label"}"#)
        let zeroHalf = TestFonts.measurer.size(of: "0", style: TextStyle(size: 12)).width / 2
        #expect(abs(label.calculator.pixel(0) - (plot2.minX + zeroHalf)) < 1e-6)
        #expect(label.calculator.pixel(100) < plot2.maxX - zeroHalf)             // "100" is wider than "0"
        let (plus, plot3) = try xAxis(#"{"leading":{"labelPlus":10}}"#)
        #expect(abs(plus.calculator.pixel(0) - (plot3.minX + zeroHalf + 10)) < 1e-6)
        let (maxFixed, plot4) = try xAxis(#"{"leading":{"maxLabelFixed":30}}"#)
        #expect(abs(maxFixed.calculator.pixel(0) - (plot4.minX + 30)) < 1e-6)
        #expect(throws: JSONReadError.self) { try self.xAxis(#"{"leading":"wide"}"#) }
    }
}

@Suite struct TickValueGeneratorTests {
    /// SwiftCharts' multiplier generator written as a Swift function: multiples of 7.
    @Test func multiplesOfSeven() throws {
        let s = Fixtures.session(Fixtures.staticChart())
        s.chart.setTickValues("x", generator: TickValueGenerator("sevens") { range, _ in
            stride(from: (range.min / 7).rounded(.up) * 7, through: range.max, by: 7).map { $0 }
        })
        let ticks = s.layout(size: Fixtures.size).axis("x")!.ticks
        #expect(!ticks.isEmpty && ticks.allSatisfy { $0.value.truncatingRemainder(dividingBy: 7) == 0 })
        #expect(ticks.map(\.label).prefix(3) == ["0", "7", "14"])
        s.chart.setTickValues("x", generator: nil)
        #expect(s.layout(size: Fixtures.size).axis("x")!.ticks.map(\.label).prefix(2) == ["0", "10"])
    }
}

/// SwiftCharts' spacing between labels and fixed label map, ShinobiCharts' axis width,
/// and a fixed number of decimals.
@Suite struct LabelSettingsTests {
    func layout(_ y: String) throws -> ChartLayout {
        let spec = #"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","mode":"fixed","range":[0,10]"# + y + #"}],"#
            + #""series":[{"id":"s","data":{"x":[0,1],"y":[0,10]}}]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
            .layout(size: ViewerSize(width: 600, height: 400, dpr: 1))
    }

    @Test func settings() throws {
        let plain = try layout("").axis("y")!
        #expect(plain.ticks.map(\.label).first == "0")
        #expect(try layout(#","labelDecimals":2"#).axis("y")!.ticks.map(\.label).prefix(2) == ["0.00", "1.00"])
        let mapped = try layout(#","labelMap":{"0":"empty","10":"full"}"#).axis("y")!
        #expect(mapped.ticks.first?.label == "empty" && mapped.ticks.last?.label == "full")
        #expect(try layout(#","width":90"#).axis("y")!.rect.width == 90)
        // A wide gap between labels: fewer ticks.
        #expect(try layout(#","labelGap":60"#).axis("y")!.ticks.count < plain.ticks.count)
        #expect(throws: JSONReadError.self) { try self.layout(#","labelMap":{"ten":"x"}"#) }
    }
}

/// A chart whose one x axis is `axis` is refused with this path and message.
func expectRefusedXAxis(_ axis: String, path: String, message: String) {
    do {
        _ = try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"xAxes":["# + axis + "]}}]}"))
        Issue.record("accepted: \(axis)")
    } catch {
        #expect(error.path == path && error.message == message, "\(error)")
    }
}

/// Several labels per value: a label with "\n" is drawn as stacked lines, and the
/// axis makes room for them.
@Suite struct MultiLineLabelTests {
    @Test func twoLineTimeLabels() throws {
        let spec = #"{"sessions":[{"id":"a","chart":{"xAxes":[{"id":"t","type":"time","dateFormat":"HH:mm\nd MMM"}],"#
            + #""series":[{"id":"s","data":{"x":[1795392000,1795435200],"y":[0,1]}}]}}]}"#
        let s = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
        let size = ViewerSize(width: 800, height: 400, dpr: 1)
        let l = s.layout(size: size)
        let axis = try #require(l.axis("t"))
        #expect(l.invariantViolations() == [])
        let times = axis.labels.filter { $0.text.contains(":") }, dates = axis.labels.filter { $0.text.contains("Nov") }
        // Every tick is on 23 Nov: the date is written once, under the first time (a line
        // that repeats the label before's is left out).
        #expect(times.count > 1 && dates.count == 1)
        for (a, b) in zip(times, dates) {
            #expect(b.anchor.y > a.anchor.y && abs(a.anchor.x - b.anchor.x) < 1e-9)   // the date under the time
            #expect(b.bounds.maxY <= axis.rect.maxY + 1e-9)                           // inside the axis' room
        }
        // One line of text per command: no newline reaches the client.
        #expect(s.displayList(size: size).layers[0].commands.allSatisfy {
            if case let .text(_, _, t, _, _, _, _, _) = $0 { !t.contains("\n") } else { true }
        })
    }
}

@Suite struct MultiLineTitleTests {
    @Test func titleLinesStackOutwards() throws {
        func layout(_ title: String) throws -> ChartLayout {
            let spec = #"{"sessions":[{"id":"a","chart":{"yAxes":[{"id":"y","title":""# + title + #""}],"#
                + #""xAxes":[{"id":"x","title":"Time"}],"series":[{"id":"s","data":{"x":[0,1],"y":[0,1]}}]}}]}"#
            return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
                .layout(size: ViewerSize(width: 800, height: 500, dpr: 1))
        }
        let one = try layout("Temperature"), two = try layout(#"Temperature\n(°C, hourly)"#)
        let y1 = try #require(one.axis("y")), y2 = try #require(two.axis("y"))
        let lineHeight = TestFonts.regular.lineHeight(size: 13)
        #expect(abs(y2.rect.width - y1.rect.width - lineHeight) <= 1)
        #expect(y2.title?.text == "Temperature" && y2.moreTitleLines.map(\.text) == ["(°C, hourly)"])
        // In reading order: turned -90 degrees the text's top faces left, so the first
        // line is the one further from the plot, the second beside the labels.
        #expect(y2.title!.bounds.maxX <= y2.moreTitleLines[0].bounds.minX + 1e-9)
        #expect(abs(y2.moreTitleLines[0].bounds.minX - y2.title!.bounds.minX - lineHeight) < 1e-9)
        #expect(two.invariantViolations() == [])
    }
}

/// Theme presets (light, dark, contrast), colours and palette over them, and the
/// server's default for charts that name none.
@Suite struct ThemeTests {
    func spec(_ theme: String) throws -> SessionSpec {
        try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"# + theme + #""series":[{"id":"s"},{"id":"t"}]}}]}"#))[0]
    }

    @Test func presetsOverridesAndDefaults() throws {
        let dark = try spec(##""theme":{"preset":"dark","gridLine":"#333333","palette":["#ff0000","#00ff00"]},"##)
            .makeSession(measurer: TestFonts.measurer).chart
        #expect(dark.theme.background == Theme.presets["dark"]!.background && dark.theme.gridLine == "#333333")
        #expect(dark.series.map(\.color) == ["#ff0000", "#00ff00"])
        // No preset named: the server's default, with the spec's colours over it.
        let plain = try spec(##""theme":{"title":"#123456"},"##)
        #expect(plain.makeSession(measurer: TestFonts.measurer, defaultTheme: "contrast").chart.theme.axisLine == "#000000")
        #expect(plain.makeSession(measurer: TestFonts.measurer, defaultTheme: "contrast").chart.theme.title == "#123456")
        #expect(plain.makeSession(measurer: TestFonts.measurer).chart.theme.axisLine == Theme().axisLine)
        // A named preset wins over the server's default.
        #expect(try spec(#""theme":{"preset":"light"},"#).makeSession(measurer: TestFonts.measurer, defaultTheme: "dark")
            .chart.theme.background == Theme().background)
        // The background drawn is the theme's.
        let list = try spec(#""theme":{"preset":"dark"},"#).makeSession(measurer: TestFonts.measurer).displayList(size: Fixtures.size)
        #expect(list.layers[0].commands.first.map { if case let .rect(_, _, _, _, fill, _, _) = $0 { fill == "#15171c" } else { false } } == true)
        #expect(throws: JSONReadError.self) { try self.spec(#""theme":{"preset":"neon"},"#) }
        // ShinobiCharts' iOS7 theme beside the three.
        let ios7 = try spec(#""theme":{"preset":"iOS7"},"#).makeSession(measurer: TestFonts.measurer).chart
        #expect(ios7.theme == Theme.presets["iOS7"] && ios7.series.map(\.color) == ["#007aff", "#ff3b30"])
        #expect(ios7.theme.tickLabel == "#8e8e93" && ios7.theme.plotBackground == "#ffffff")
        #expect(throws: JSONReadError.self) { try self.spec(#""theme":{"palette":[]},"#) }
    }
}

/// Hidden series, legend entries and chart margins.
@Suite struct SeriesVisibilityTests {
    func session(_ extra: String) throws -> Session {
        let spec = #"{"sessions":[{"id":"a","chart":{"# + extra + #""series":[{"id":"a","name":"Shown","data":{"x":[0,1],"y":[0,1]}},"#
            + #"{"id":"b","name":"Big","data":{"x":[0,1],"y":[0,1000]}},{"id":"c","name":"Unlisted","showInLegend":false,"data":{"x":[0,1],"y":[0,2]}}]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }
    func texts(_ s: Session) -> [String] {
        s.displayList(size: Fixtures.size).layers.flatMap(\.commands).compactMap { c -> String? in
            if case let .text(_, _, t, _, _, _, _, _) = c { t } else { nil }
        }
    }

    @Test func hiddenAndUnlisted() throws {
        let s = try session("")
        #expect(texts(s).contains("Shown") && texts(s).contains("Big") && !texts(s).contains("Unlisted"))
        #expect(s.chart.visibleRange("y")!.max > 1000)
        s.chart.setHidden("b", true)
        #expect(!texts(s).contains("Big"))
        #expect(s.chart.visibleRange("y")!.max < 10)            // the hidden series no longer sets the range
        let lines = s.displayList(size: Fixtures.size).layers.first { $0.id == .series }!.commands.filter {
            if case .columns = $0 { true } else { false }
        }
        #expect(lines.count == 2)
        let hidden = try session("").chart
        #expect(try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","chart":{"series":[{"id":"h","hidden":true}]}}]}"#))[0]
            .makeSession(measurer: TestFonts.measurer).chart.series[0].isHidden && !hidden.series[0].isHidden)
    }

    @Test func margins() throws {
        let plain = try session("").layout(size: Fixtures.size).plotRect
        let wide = try session(#""margins":[10,60,10,10],"#).layout(size: Fixtures.size).plotRect
        #expect(abs(wide.maxX - (plain.maxX - 50)) < 1e-9)
        let all = try session(#""margins":30,"#).layout(size: Fixtures.size).plotRect
        #expect(all.minX > plain.minX && all.maxY < plain.maxY)
        #expect(throws: JSONReadError.self) { try self.session(#""margins":[1,2],"#) }
    }
}

/// ShinobiCharts' legend: `position` where it sits, `placement` inside or outside the
/// plot area; an inside legend moves off the data.
@Suite struct LegendTests {
    static let size = ViewerSize(width: 800, height: 400, dpr: 1)

    /// A session with one line rising from the bottom left to the top right.
    func session(_ legend: String) throws -> Session {
        let spec = #"{"sessions":[{"id":"a","chart":{"legend":"# + legend + #","xAxes":[{"id":"x","growBy":[0,0]}],"#
            + #""yAxes":[{"id":"y","growBy":[0,0]}],"series":[{"id":"s","name":"Rising","data":{"x":[0,1,2,3,4,5,6,7,8,9,10],"#
            + #""y":[0,1,2,3,4,5,6,7,8,9,10]}}]}}]}"#
        return try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
    }

    /// The legend box (the overlay's first rect).
    func box(_ s: Session) -> (Double, Double, Double, Double)? {
        let overlay = s.displayList(size: Self.size).layers.first { $0.id == .overlay }!
        for c in overlay.commands { if case let .rect(x, y, w, h, _, _, _) = c { return (Double(x), Double(y), Double(w), Double(h)) } }
        return nil
    }

    @Test func insideLegendMovesOffTheData() throws {
        // topLeft and bottomRight hold no data (the line runs from bottom left to top right).
        let free = try session(#"{"position":"topLeft"}"#)
        let plot = free.layout(size: Self.size).plotRect
        let a = try #require(box(free))
        #expect(abs(a.0 - (plot.minX + 8)) < 1e-9 && abs(a.1 - (plot.minY + 8)) < 1e-9)
        // Asked for topRight, where the line ends: it goes to the first free corner, topLeft.
        let moved = try #require(box(try session(#"{"position":"topRight"}"#)))
        #expect(moved.0 == a.0 && moved.1 == a.1)
        // bottomRight is free too: it stays there.
        let br = try #require(box(try session(#"{"position":"bottomRight"}"#)))
        #expect(abs(br.0 + br.2 - (plot.maxX - 8)) < 1e-9 && abs(br.1 + br.3 - (plot.maxY - 8)) < 1e-9)
    }

    @Test func outsideLegendTakesRoomFromTheLayout() throws {
        let inside = try session(#"{"position":"middleRight"}"#).layout(size: Self.size).plotRect
        let outsideSession = try session(#"{"position":"middleRight","placement":"outsidePlotArea"}"#)
        let outside = outsideSession.layout(size: Self.size).plotRect
        let b = try #require(box(outsideSession))
        #expect(outside.width < inside.width - b.2)                   // the plot gave up the legend's column
        #expect(b.0 >= outside.maxX && b.0 + b.2 <= 800 - 10)         // the box is right of the plot, inside the margin
        #expect(abs((b.1 + b.3 / 2) - (10 + (400 - 20) / 2)) <= 1)    // vertically centred in the chart
        let top = try session(#"{"position":"topMiddle","placement":"outsidePlotArea"}"#)
        let t = try #require(box(top))
        #expect(t.1 + t.3 <= top.layout(size: Self.size).plotRect.minY)
        #expect(abs((t.0 + t.2 / 2) - 400) <= 1)
    }
}

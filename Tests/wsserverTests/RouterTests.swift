import Foundation
import Testing
import ChartSession
import LayoutEngine
import TestSupport
import ChartExport
@testable import ChartWireServer

/// The routes driven in-process, without sockets.
@Suite struct RouterTests {
    let hub: SessionHub
    let router: Router

    init() throws {
        let specs = try ConfigSpec.decode(try Jansson.parse(#"""
            {"sessions":[{"id":"s1","title":"One <b>","chart":{"series":[
              {"id":"a","name":"A","data":{"x":[0,1,2],"y":[5,6,7]}}]}}]}
            """#))
        hub = SessionHub(sessions: specs.map { $0.makeSession(measurer: TestFonts.measurer) })
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web").path
        router = Router(hub: hub, webDir: web, fonts: ["regular.ttf": [1, 2, 3]], measurer: TestFonts.measurer)
    }

    func get(_ path: String, _ query: [String: String] = [:]) -> HTTPResponse {
        router.handle(HTTPRequest(method: "GET", path: path, query: query, body: []))
    }

    func post(_ path: String, _ body: String) -> HTTPResponse {
        router.handle(HTTPRequest(method: "POST", path: path, query: [:], body: Array(body.utf8)))
    }

    var points: Int { hub.session("s1")!.chart.series[0].data.count }

    @Test func pagesAndFiles() {
        #expect(get("/healthz").bodyText == "ok")
        let index = get("/")
        #expect(index.status == 200 && index.bodyText.contains(#"<a href="s/s1">One &lt;b&gt;</a>"#))
        #expect(get("/s/s1").bodyText.contains("client.js"))
        #expect(get("/client.js").contentType.hasPrefix("text/javascript"))
        #expect(get("/font/regular.ttf").body == [1, 2, 3])
        for missing in ["/s/none", "/nothing.js", "/..%2fPackage.swift", "/Package.swift", "/a/b/c/d/e"] {
            let r = get(missing)
            #expect(r.status == 404, "\(missing)")
            #expect(r.contentType == "application/json")
        }
    }

    /// `/e/{session}`: the chart alone (no header), the same client.js; every HTML answer
    /// carries the frame policy it is given, JSON and files do not.
    @Test func embedPageAndFramePolicy() {
        var r = router
        r.pageHeaders = AccessPolicy(options: try! Options.parse(["--allow-origin", "https://portal.example"])).pageHeaders
        let page = r.handle(HTTPRequest(method: "GET", path: "/e/s1", query: ["token": "t"], body: []))
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        #expect(page.bodyText.contains(#"<script src="../client.js"></script>"#) && page.bodyText.contains(#"class="embed""#))
        #expect(!page.bodyText.contains("<header>") && !page.bodyText.contains("<!--chartwire:fonts-->"))
        #expect(page.headers["Content-Security-Policy"] == "frame-ancestors 'self' https://portal.example")
        #expect(page.headers["X-Frame-Options"] == nil && page.headers["Referrer-Policy"] == "same-origin")
        for path in ["/", "/gallery", "/s/s1", "/client.html"] {
            #expect(r.handle(HTTPRequest(method: "GET", path: path, query: [:], body: [])).headers["Content-Security-Policy"]
                    == "frame-ancestors 'self' https://portal.example", "\(path)")
        }
        for path in ["/api/sessions", "/embed.js", "/client.js", "/e/none"] {
            #expect(r.handle(HTTPRequest(method: "GET", path: path, query: [:], body: [])).headers["Content-Security-Policy"] == nil, "\(path)")
        }
        #expect(r.handle(HTTPRequest(method: "GET", path: "/e/none", query: [:], body: [])).status == 404)
        #expect(get("/embed.js").bodyText.contains(#"customElements.define("chartwire-chart""#))
    }

    @Test func sessionListing() throws {
        let v = try Jansson.parse(get("/api/sessions").body)
        #expect(v == ["sessions": [["id": "s1", "title": "One <b>", "viewers": 0, "series": [["id": "a", "name": "A", "points": 3]]]]])
    }

    @Test func frameJSON() throws {
        let r = get("/api/sessions/s1/frame.json", ["width": "640", "height": "400"])
        #expect(r.status == 200)
        let v = try Jansson.parse(r.body)
        #expect(v["width"] == 640 && v["height"] == 400 && v["dpr"] == 1)
        #expect(v["layers"]?.arrayValue?.map { $0["id"] } == ["background", "series", "overlay"])
        #expect(get("/api/sessions/nope/frame.json").status == 404)
        for bad in [["width": "0"], ["width": "wide"], ["height": "99999"], ["dpr": "NaN"], ["dpr": "0"]] {
            let e = get("/api/sessions/s1/frame.json", bad)
            #expect(e.status == 400, "\(bad)")
            #expect(try Jansson.parse(e.body)["error"] != nil)
        }
    }

    /// GET /api/sessions/{s}/image.{png,svg,pdf} (docs/export.md, "Images").
    @Test func imageExport() throws {
        var r = router
        r.imageRenderer = ImageRenderer(fonts: GlyphFonts(fonts: TestFonts.fonts))
        func image(_ path: String, _ query: [String: String] = [:]) -> HTTPResponse {
            r.handle(HTTPRequest(method: "GET", path: path, query: query, body: []))
        }
        let png = image("/api/sessions/s1/image.png", ["width": "320", "height": "200", "dpr": "2"])
        #expect(png.status == 200 && png.contentType == "image/png")
        #expect(png.headers["Content-Disposition"] == #"inline; filename="s1.png""#)
        let decoded = try #require(ImageRenderer.decodePNG(png.body))
        #expect(decoded.width == 640 && decoded.height == 400)
        let svg = image("/api/sessions/s1/image.svg")
        #expect(svg.status == 200 && svg.contentType == "image/svg+xml" && svg.bodyText.contains("<svg"))
        let pdf = image("/api/sessions/s1/image.pdf", ["theme": "dark"])
        #expect(pdf.status == 200 && pdf.contentType == "application/pdf" && pdf.body.starts(with: Array("%PDF-".utf8)))
        #expect(hub.session("s1")!.chart.theme == Theme.presets["light"], "theme= leaves the session's theme")
        #expect(image("/api/sessions/nope/image.png").status == 404)
        #expect(image("/api/sessions/s1/image.jpg").status == 404)
        for bad in [["width": "0"], ["height": "wide"], ["width": "16385"], ["dpr": "9"], ["dpr": "NaN"],
                    ["width": "9000", "height": "9000"], ["width": "4000", "height": "4000", "dpr": "4"], ["theme": "neon"]] {
            let e = image("/api/sessions/s1/image.png", bad)
            #expect(e.status == 400, "\(bad)")
            #expect(try Jansson.parse(e.body)["error"] != nil)
        }
        #expect(try Jansson.parse(image("/api/sessions/s1/image.png", ["theme": "neon"]).body)["error"]?.stringValue?
            .contains(#""contrast", "dark", "iOS7", "light""#) == true)
        // Without a renderer (a router made without fonts): 503, not a crash.
        #expect(router.handle(HTTPRequest(method: "GET", path: "/api/sessions/s1/image.png", query: [:], body: [])).status == 503)
    }

    @Test func appendAccepts() throws {
        let r = post("/api/sessions/s1/series/a/append", #"{"x":[3,4],"y":[1,2]}"#)
        #expect(r.status == 200 && r.bodyText == #"{"accepted":2}"#)
        #expect(points == 5)
    }

    /// Every bad append is refused with a JSON error and applies nothing.
    @Test(arguments: [
        ("/api/sessions/s1/series/a/append", "{", 400, "invalid JSON"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3],"y":[1,2]}"#, 400, "x has 1 values but y has 2"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3,"4"],"y":[1,2]}"#, 400, "$.x[1]: expected a number"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3],"y":[NaN]}"#, 400, "invalid JSON"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3],"y":[1e999]}"#, 400, "invalid JSON"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3],"y":[1],"z":[1]}"#, 400, "$.z: unknown field"),
        ("/api/sessions/s1/series/a/append", #"{"y":[1]}"#, 400, #"field "x" is required"#),
        ("/api/sessions/s1/series/a/append", #"[]"#, 400, "expected an object"),
        ("/api/sessions/s1/series/b/append", #"{"x":[3],"y":[1]}"#, 404, #"no series "b""#),
        ("/api/sessions/s9/series/a/append", #"{"x":[3],"y":[1]}"#, 404, #"no session "s9""#),
        ("/api/sessions/s1/series/a/delete", #"{}"#, 404, "no POST route"),
        ("/api/sessions/s1/series/a/append", #"{"x":[null],"y":[1]}"#, 400, "$.x[0]: expected a number"),
        ("/api/sessions/s1/series/a/append", #"{"x":[3],"y":["1"]}"#, 400, "$.y[0]: expected a number or null"),
    ])
    func badAppends(path: String, body: String, status: Int, fragment: String) throws {
        let r = post(path, body)
        #expect(r.status == status)
        let message = try #require(try Jansson.parse(r.body)["error"]?.stringValue)
        #expect(message.contains(fragment), "\(message)")
        #expect(points == 3)
    }

    /// The binary body: accepted like JSON; refused precisely, applying nothing.
    @Test func binaryAppends() throws {
        func postBytes(_ body: [UInt8]) -> HTTPResponse {
            router.handle(HTTPRequest(method: "POST", path: "/api/sessions/s1/series/a/append", query: [:], body: body))
        }
        let ok = postBytes(AppendBody.encode(xs: [3, 4, 5], ys: [1, .nan, 2]))
        #expect(ok.status == 200 && ok.bodyText == #"{"accepted":3}"#)
        #expect(points == 6)
        let y4 = hub.session("s1")!.chart.series[0].data.y(4)
        #expect(y4.isNaN)   // a gap
        let good = AppendBody.encode(xs: [6, 7], ys: [1, 2])
        for (body, fragment) in [
            (Array(good.dropLast()), "2 points need 40 bytes, got 39"),
            (good + [0], "2 points need 40 bytes, got 41"),
            (Array(good.prefix(6)), "header"),
            (AppendBody.encode(xs: [6, .infinity], ys: [1, 2]), "x[1] is not a finite number"),
            (AppendBody.encode(xs: [6, 7], ys: [1, -.infinity]), "y[1] is infinite"),
            (Array("CWA1".utf8) + [0x41, 0x42, 0x0F, 0x00], "1000001 points in one append; at most 1000000"),
        ] {
            let r = postBytes(body)
            #expect(r.status == 400)
            let message = try #require(try Jansson.parse(r.body)["error"]?.stringValue)
            #expect(message.contains(fragment), "\(message)")
        }
        #expect(points == 6)
        // Late data (x before the newest point's) is merged into x order, not refused.
        let late = postBytes(AppendBody.encode(xs: [2.5], ys: [9]))
        #expect(late.status == 200 && points == 7)
        let data = hub.session("s1")!.chart.series[0].data
        #expect((0..<data.count).map { data.x($0) } == (0..<data.count).map { data.x($0) }.sorted())
        #expect(data.y((0..<data.count).first { data.x($0) == 2.5 }!) == 9)
        #expect(Router.bodyLimit(method: "POST", path: "/api/sessions/s1/series/a/append") == 64 << 20)
        #expect(Router.bodyLimit(method: "POST", path: "/api/other") == 1 << 20)
    }

    @Test func jsonNullIsAGap() throws {
        let r = post("/api/sessions/s1/series/a/append", #"{"x":[3,4],"y":[null,2]}"#)
        #expect(r.status == 200)
        #expect(hub.session("s1")!.chart.series[0].data.y(3).isNaN)
    }

    @Test func measure() throws {
        let v = try Jansson.parse(get("/api/measure", ["text": "Random walk", "size": "12"]).body)
        #expect(v["width"]?.doubleValue == 80.947265625)
        #expect(v["font"] == "12px ChartWire Sans")
        #expect(get("/api/measure", [:]).status == 400)
    }
}

/// Every spec shipped in examples/ reads cleanly, through jansson as the server reads it.
@Suite struct ExampleSpecTests {
    @Test func examplesDecode() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files == ["demo.json", "gallery.json", "push.json"])
        for file in files {
            let specs = try ServerResources.decodeSpec(String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8),
                                                       source: file)
            #expect(!specs.isEmpty, "\(file)")
        }
    }

    @Test func aGuardedSessionTakesDataOnlyFromControllers() throws {
        let specs = try ConfigSpec.decode(try Jansson.parse(#"""
            {"sessions":[{"id":"g","access":{"anonymous":"viewer","viewerTokens":["viewer-token-1"],"controllerTokens":["steer-token-1"]},
              "chart":{"series":[{"id":"a","data":{"x":[0],"y":[1]}}]}}]}
            """#))
        let hub = SessionHub(sessions: specs.map { $0.makeSession(measurer: TestFonts.measurer) })
        let router = Router(hub: hub, webDir: "/nonexistent", fonts: [:], measurer: TestFonts.measurer)
        func post(_ auth: String?) -> HTTPResponse {
            router.handle(HTTPRequest(method: "POST", path: "/api/sessions/g/series/a/append", query: [:],
                                      body: Array(#"{"x":[1],"y":[2]}"#.utf8), authorization: auth))
        }
        #expect(post(nil).status == 401)
        #expect(post("Basic abc").status == 401)
        let viewer = post("Bearer viewer-token-1")
        #expect(viewer.status == 403 && !viewer.bodyText.contains("viewer-token-1"))
        let wrong = post("Bearer wrong-token-9")
        #expect(wrong.status == 403 && !wrong.bodyText.contains("wrong-token-9"))
        #expect(hub.session("g")!.chart.series[0].data.count == 1, "nothing refused was applied")
        #expect(post("Bearer steer-token-1").status == 200)
        #expect(hub.session("g")!.chart.series[0].data.count == 2)
        // Reading stays open to whoever may watch.
        #expect(router.handle(HTTPRequest(method: "GET", path: "/api/sessions/g/frame.json", query: [:], body: [])).status == 200)
    }

    /// A session only watched with a token is read (frame.json, images, data) only with
    /// one: in Authorization or ?token=, a viewer's or a controller's or the control token.
    @Test func readingNeedsWhatWatchingNeeds() throws {
        let specs = try ConfigSpec.decode(try Jansson.parse(#"""
            {"sessions":[{"id":"g","access":{"viewerTokens":["viewer-token-1"],"controllerTokens":["steer-token-1"]},
              "chart":{"series":[{"id":"a","data":{"x":[0],"y":[1]}}]}}]}
            """#))
        let hub = SessionHub(sessions: specs.map { $0.makeSession(measurer: TestFonts.measurer) })
        var router = Router(hub: hub, webDir: "/nonexistent", fonts: [:], measurer: TestFonts.measurer)
        router.controlToken = "control-token-1"
        func get(_ path: String, _ query: [String: String] = [:], _ auth: String? = nil) -> Int {
            router.handle(HTTPRequest(method: "GET", path: path, query: query, body: [], authorization: auth)).status
        }
        for route in ["frame.json", "data.csv", "data.json"] {
            let path = "/api/sessions/g/" + route
            #expect(get(path) == 401, "\(route)")
            #expect(get(path, [:], "Bearer wrong-token-9") == 403, "\(route)")
            #expect(get(path, ["token": "wrong-token-9"]) == 403, "\(route)")
            #expect(get(path, [:], "Basic abc") == 401, "\(route)")
            #expect(get(path, [:], "Bearer viewer-token-1") == 200, "\(route)")
            #expect(get(path, ["token": "viewer-token-1"]) == 200, "\(route)")
            #expect(get(path, [:], "Bearer steer-token-1") == 200, "\(route)")
            #expect(get(path, [:], "Bearer control-token-1") == 200, "\(route)")
        }
        // An image export, which the transport takes off its loop through imageJob(_:).
        func image(_ auth: String?) -> Int? {
            guard case let .answer(r)? = router.imageJob(HTTPRequest(method: "GET", path: "/api/sessions/g/image.png", query: [:], body: [],
                                                                    authorization: auth)) else { return nil }
            return r.status
        }
        #expect(image(nil) == 401)
        #expect(image("Bearer wrong-token-9") == 403)
        #expect(image("Bearer viewer-token-1") == 503, "past the check: this router has no renderer")
        let refused = router.handle(HTTPRequest(method: "GET", path: "/api/sessions/g/frame.json", query: ["token": "wrong-token-9"], body: []))
        #expect(!refused.bodyText.contains("wrong-token-9"), "the answer never repeats a token")
        #expect(get("/api/sessions/nope/frame.json") == 404)
    }
}

/// `data.csv` and `data.json` (docs/export.md): headers, a small answer whole, a large
/// one streamed from a copy of the data, and the Swift API's same bytes.
@Suite struct ExportRouteTests {
    @Test func smallExportsAreWholeLargeOnesStreamed() throws {
        let specs = try ConfigSpec.decode(try Jansson.parse(#"""
            {"sessions":[{"id":"e-1","chart":{"series":[{"id":"a","name":"A","data":{"x":[0,1,2],"y":[5,6.5,null]}}]}}]}
            """#))
        let hub = SessionHub(sessions: specs.map { $0.makeSession(measurer: TestFonts.measurer) })
        let router = Router(hub: hub, webDir: "/nonexistent", fonts: [:], measurer: TestFonts.measurer)
        func get(_ path: String, _ query: [String: String] = [:]) -> HTTPResponse {
            router.handle(HTTPRequest(method: "GET", path: path, query: query, body: []))
        }
        let small = get("/api/sessions/e-1/data.csv")
        #expect(small.status == 200 && small.stream == nil)
        #expect(small.contentType == "text/csv; charset=utf-8; header=present")
        #expect(small.headers["Content-Disposition"] == "attachment; filename=\"e-1-data.csv\"")
        #expect(small.bodyText == "series,name,x,y\r\na,A,0,5\r\na,A,1,6.5\r\na,A,2,\r\n")
        let json = get("/api/sessions/e-1/data.json", ["format": "raw"])
        #expect(json.contentType == "application/json" && json.bodyText.contains(#""x":[0,1,2],"y":[5,6.5,null]}]}"#))
        #expect(get("/api/sessions/e-1/data.csv", ["series": "b"]).status == 404)
        #expect(get("/api/sessions/e-1/data.json", ["format": "x"]).status == 400)
        #expect(get("/api/sessions/none/data.csv").status == 404)

        // 100,000 points: more than one write, streamed; the session changes meanwhile.
        let session = try #require(hub.session("e-1"))
        let n = 100_000
        try session.submit(.append(series: "a", xs: (3..<n).map(Double.init), values: [(3..<n).map { Double($0) * 2 }]))
        let large = get("/api/sessions/e-1/data.csv", ["from": "0", "to": "1e9"])
        let stream = try #require(large.stream)
        #expect(large.body.count >= Router.streamFirstChunk && large.body.count < Router.streamFirstChunk + 200)
        try session.submit(.clear(series: "a"))
        var rest = large.body, writes = 0
        while stream.next(&rest, rest.count + Router.streamFirstChunk) { writes += 1 }
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\r\n")
        #expect(writes > 10 && lines.count == n + 1 && lines.last == "a,A,99999,199998")
    }
}

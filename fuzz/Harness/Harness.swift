import CExport
import ChartSession
import FontStack
import Foundation
import LayoutEngine
@testable import ChartWireServer

/// What each fuzz target does with its bytes (fuzz/targets/*, docs/fuzzing.md).
///
/// Every entry takes arbitrary bytes, drives the code that reads outside bytes in the
/// server, and returns what it found wrong besides a crash (a NaN in a display list, a
/// status outside HTTP's): empty when all is well. The libFuzzer targets trap on a
/// non-empty answer; the unit tests replay the corpus and every regression through
/// the same entries and expect an empty one.
public enum FuzzHarness {
    /// The targets by name (the folder names under fuzz/corpus and fuzz/regressions).
    public static let targets: [String: @Sendable ([UInt8]) -> [String]] = [
        "json-spec": jsonSpec, "client-message": clientMessage, "append-body": appendBody,
        "points": points, "line-protocol": lineProtocol, "router": router, "frame": frame,
        "image": image,
    ]

    /// The chart font as the server loads it (the frame builder measures labels).
    public static let measurer: TextMeasurer = {
        do { return try ChartFonts.load(primaryDir: "/usr/share/fonts/truetype/dejavu").measurer } catch {
            fatalError("fuzz: cannot load the chart font (install fonts-dejavu-core): \(error)")
        }
    }()

    /// A session to feed: one series of each kind on numeric axes, taking line protocol.
    static let feedSpec = #"""
        {"id":"f","chart":{"series":[
          {"id":"line","type":"line"},{"id":"step","type":"step"},{"id":"area","type":"area"},
          {"id":"band","type":"band"},{"id":"scatter","type":"scatter"},{"id":"bubble","type":"bubble"},
          {"id":"column","type":"column"},{"id":"candle","type":"candlestick"},{"id":"ohlc","type":"ohlc"}]},
         "lineProtocol":{"unknown":"create","series":[
          {"measurement":"cpu","field":"usage","series":"line"},
          {"measurement":"px","series":"candle"},{"measurement":"b","series":"band"}]}}
        """#

    static func feedSession() -> Session {
        let json = try! Jansson.parse(feedSpec)
        return try! ConfigSpec.decodeSession(json).makeSession(measurer: measurer)
    }

    static let sizes = [ViewerSize(width: 1, height: 1, dpr: 1), ViewerSize(width: 300, height: 200, dpr: 2),
                        ViewerSize(width: 23, height: 640, dpr: 0.25)]

    /// Builds the session's frame at a few sizes, through the display list and the
    /// binary encoding a viewer is sent, and reports every non-finite coordinate.
    static func render(_ session: Session, sizes: [ViewerSize] = sizes) -> [String] {
        var problems: [String] = []
        for size in sizes {
            problems += nonFinite(session.displayList(size: size).json, at: "\(size.width)x\(size.height)@\(size.dpr)")
        }
        let viewer = session.connect()
        _ = session.receive(.hello(sizes[0], format: .binary, token: nil), from: viewer)
        _ = session.nextFrame(for: viewer)
        session.disconnect(viewer)
        return problems
    }

    /// Paths of the numbers in `json` that are not finite.
    public static func nonFinite(_ json: JSONValue, at path: String) -> [String] {
        switch json {
        case let .double(d): return d.isFinite ? [] : ["\(path): \(d)"]
        case let .array(a): return a.enumerated().flatMap { nonFinite($1, at: "\(path)[\($0)]") }
        case let .object(o): return o.flatMap { nonFinite($1, at: "\(path).\($0)") }
        default: return []
        }
    }

    // MARK: - Targets

    /// The JSON reader (jansson, as the server parses) and the spec reader: a session
    /// spec (POST/PUT /api/sessions) and a config file (`--config`); a spec that
    /// reads is made into a session and its frame built.
    public static func jsonSpec(_ bytes: [UInt8]) -> [String] {
        guard let json = try? Jansson.parse(bytes) else { return [] }
        _ = Jansson.serialize(json)
        _ = try? ConfigSpec.decode(json)
        guard let spec = try? ConfigSpec.decodeSession(json) else { return [] }
        return render(spec.makeSession(measurer: measurer))
    }

    static let clientSession = #"""
        {"id":"c","chart":{"series":[{"id":"a","data":{"x":[0,1,2,3],"y":[1,-2,3,0]}},
          {"id":"b","type":"column","data":{"x":[0,1,2,3],"y":[5,6,7,8]}}],
          "modifiers":[{"type":"zoomPan","direction":"xy"},{"type":"mouseWheelZoom","direction":"xy"},
                       {"type":"zoomExtents"},{"type":"rollover"},{"type":"cursor"}]}}
        """#

    /// WebSocket client messages: each line of the input is one text message, decoded
    /// (ClientMessage.decode) and given to a session (Session.receive(json:)) from a
    /// viewer that said hello; frames are built after each.
    public static func clientMessage(_ bytes: [UInt8]) -> [String] {
        let session = try! ConfigSpec.decodeSession(try! Jansson.parse(clientSession)).makeSession(measurer: measurer)
        let viewer = session.connect()
        _ = session.receive(.hello(ViewerSize(width: 400, height: 300, dpr: 1), format: .binary, token: nil), from: viewer)
        var problems: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")).prefix(64) {
            guard let json = try? Jansson.parse(Array(line)) else { continue }
            _ = try? ClientMessage.decode(json)
            _ = session.receive(json: json, from: viewer)
            while session.nextFrame(for: viewer) != nil { _ = session.receive(.ack, from: viewer) }
        }
        problems += render(session, sizes: [ViewerSize(width: 400, height: 300, dpr: 1)])
        session.disconnect(viewer)
        return problems
    }

    /// Binary append bodies (`CWA1`): decoded, and what decodes is appended to a
    /// line and a scatter series and drawn.
    public static func appendBody(_ bytes: [UInt8]) -> [String] {
        guard let (xs, ys) = try? AppendBody.decode(bytes, limit: 4096) else { return [] }
        guard AppendBody.encode(xs: xs, ys: ys) == bytes else { return ["decode then encode changed the bytes"] }
        let session = feedSession()
        _ = try? session.append(seriesId: "line", xs: xs, ys: ys)
        _ = try? session.append(seriesId: "scatter", xs: xs, ys: ys)
        _ = try? session.append(seriesId: "column", xs: xs, ys: ys)
        return render(session)
    }

    /// JSON (and binary) point bodies of append, insert, update and replace
    /// (`Router.readPoints`): the first byte picks the series kind, the rest is the
    /// body. What reads is appended and drawn.
    public static func points(_ bytes: [UInt8]) -> [String] {
        guard let first = bytes.first else { return [] }
        let kinds: [(SeriesKind, String)] = [(.line, "line"), (.step, "step"), (.area, "area"), (.band, "band"), (.scatter, "scatter"),
                                             (.bubble, "bubble"), (.column, "column"), (.candlestick, "candle"), (.ohlc, "ohlc")]
        let (kind, id) = kinds[Int(first) % kinds.count]
        guard let read = try? Router.readPoints(Array(bytes.dropFirst()), kind: kind) else { return [] }
        let session = feedSession()
        _ = try? session.append(seriesId: id, xs: read.xs, values: read.values)
        return render(session)
    }

    /// Annotation image bytes as the image export decodes them (Sources/CExport/image.c):
    /// the same bytes through the JPEG and the GIF decoder, each side capped at 512 here
    /// so the fuzzer spends its time in the decoders, not in filling pixels. A decoded
    /// image has sides within the cap and, from a JPEG, only opaque pixels.
    public static func image(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        bytes.withUnsafeBufferPointer { b in
            for (name, decode) in [("jpeg", cw_jpeg_decode), ("gif", cw_gif_decode)] as [(String, (UnsafePointer<UInt8>?, Int, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<UInt32>?)] {
                var w: Int32 = 0, h: Int32 = 0
                guard let pixels = decode(b.baseAddress, b.count, 512, &w, &h) else { continue }
                defer { cw_image_free(pixels) }
                guard (1...512).contains(w), (1...512).contains(h) else { problems.append("\(name): \(w)x\(h) past the cap"); continue }
                if name == "jpeg" {
                    let all = UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h))
                    if all.contains(where: { $0 >> 24 != 0xFF }) { problems.append("jpeg: a pixel that is not opaque") }
                }
            }
        }
        return problems
    }

    /// Line protocol (`POST /api/sessions/{s}/write`): the first byte picks the
    /// precision, the rest is the body; parsed lines are written to a session whose
    /// rules create series for unknown fields, and drawn.
    public static func lineProtocol(_ bytes: [UInt8]) -> [String] {
        guard let first = bytes.first else { return [] }
        let precisions = LineProtocolPrecision.allCases
        let precision = precisions[Int(first) % precisions.count]
        guard let lines = try? LineProtocol.parse(Array(bytes.dropFirst()), precision: precision, maxLines: 10_000) else { return [] }
        let session = feedSession()
        _ = try? session.write(lines, now: 1_800_000_000)
        return render(session)
    }

    /// The HTTP routes as the server sees a request: the input is
    /// `METHOD SP PATH [? QUERY] LF [AUTHORIZATION] LF BODY`, given to `Router.handle`
    /// on a hub with one session; the answer must carry an HTTP status, and a JSON
    /// answer must be JSON.
    public static func router(_ bytes: [UInt8]) -> [String] {
        let head = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
        let requestLine = String(decoding: head.first ?? [], as: UTF8.self)
        let authorization = head.count > 1 && !head[1].isEmpty ? String(decoding: head[1], as: UTF8.self) : nil
        let body = head.count > 2 ? Array(head[2]) : []
        let parts = requestLine.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return [] }
        let target = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var query: [String: String] = [:]
        if target.count > 1 {
            for pair in target[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                query[kv[0]] = kv.count > 1 ? kv[1] : ""
            }
        }
        let hub = SessionHub(sessions: [feedSession()])
        let router = Router(hub: hub, webDir: "/nonexistent", fonts: [:], measurer: measurer, clock: { 1_800_000_000 })
        let response = router.handle(HTTPRequest(method: parts[0], path: target[0], query: query, body: body,
                                                 authorization: authorization))
        var problems: [String] = []
        if !(100...599).contains(response.status) { problems.append("status \(response.status)") }
        // A streamed answer (a large data export) is read to its end, as the transport writes it.
        let answer = response.wholeBody()
        // (Foundation's reader, as a client reads: jansson refuses the \u0000 that
        // JSON allows and an error message may echo.)
        if response.contentType == "application/json",
           (try? JSONSerialization.jsonObject(with: Data(answer), options: [.fragmentsAllowed])) == nil {
            problems.append("a JSON answer that is not JSON: \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
        // A CSV export: a header and whole rows, each with the header's field count.
        if response.contentType.hasPrefix("text/csv") {
            let rows = csvFieldCounts(answer)
            if rows.isEmpty || rows.contains(where: { $0 != rows[0] }) || answer.suffix(2) != [13, 10] {
                problems.append("a CSV answer with ragged rows: \(String(decoding: answer.prefix(200), as: UTF8.self))")
            }
        }
        // What the request left behind still draws.
        for session in hub.sessions { problems += render(session, sizes: [sizes[1]]) }
        return problems
    }

    /// The field count of each CSV record (RFC 4180: quoted fields may hold commas,
    /// quotes doubled, CR and LF).
    static func csvFieldCounts(_ b: [UInt8]) -> [Int] {
        var counts: [Int] = [], fields = 1, quoted = false, i = 0
        while i < b.count {
            let c = b[i]
            if quoted {
                if c == 34 { if i + 1 < b.count, b[i + 1] == 34 { i += 1 } else { quoted = false } }
            } else if c == 34 {
                quoted = true
            } else if c == 44 {
                fields += 1
            } else if c == 13, i + 1 < b.count, b[i + 1] == 10 {
                counts.append(fields); fields = 1; i += 1
            }
            i += 1
        }
        return counts
    }

    /// The frame builder fed random charts: series kinds, points (extremes included),
    /// axis types and modes, visible ranges and canvas sizes, all read from the bytes
    /// (see `FuzzBytes`). Every number in the display list must be finite.
    public static func frame(_ bytes: [UInt8]) -> [String] {
        var b = FuzzBytes(bytes)
        let spec = FrameSpecBuilder.spec(&b)
        guard let session = try? ConfigSpec.decodeSession(spec).makeSession(measurer: measurer) else { return [] }
        var sizes: [ViewerSize] = []
        for _ in 0..<(1 + Int(b.byte() % 3)) {
            let w = b.pick([1, 2, 7, 80, 301, 1024, 2000]), h = b.pick([1, 3, 9, 60, 257, 900])
            sizes.append(ViewerSize(width: w, height: h, dpr: b.pick([1, 2, 0.25, 3.5, 8])))
        }
        var problems = render(session, sizes: sizes)
        // Gestures move the visible ranges from where the spec put them.
        let viewer = session.connect()
        _ = session.receive(.hello(sizes[0], format: .json, token: nil), from: viewer)
        for k in 0..<Int(b.byte() % 6) {
            let x = b.pick([0, 0.5, -3, 1e6, Double(sizes[0].width) / 2]), y = b.pick([0, 0.5, 1e6, Double(sizes[0].height) / 2])
            switch b.byte() % 3 {
            case 0:
                _ = session.receive(.wheel(WheelEvent(x: x, y: y, deltaX: b.pick([0, 1, -1e6]), deltaY: b.pick([-1e6, -100, 100, 1e6]),
                                                      time: Double(k), shift: false, ctrl: false, alt: false)), from: viewer)
            case 1:
                // A drag (pans, or zooms with a rubber band) or a hover (rollover, cursor labels).
                let phase = b.pick(PointerEvent.Phase.allCases)
                _ = session.receive(.pointer(PointerEvent(phase: phase, x: x, y: y, button: 0, buttons: phase == .move ? b.pick([0, 1]) : 1,
                                                          shift: b.pick([false, true]), time: Double(k))), from: viewer)
            default:
                _ = session.receive(.doubleClick(DoubleClickEvent(x: x, y: y, time: Double(k))), from: viewer)
            }
            while session.nextFrame(for: viewer) != nil { _ = session.receive(.ack, from: viewer) }
        }
        session.disconnect(viewer)
        problems += render(session, sizes: sizes)
        return problems
    }
}

/// Reads choices from fuzz bytes; past the end every read is zero.
public struct FuzzBytes {
    var bytes: [UInt8]
    var at = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func byte() -> UInt8 {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return bytes[at]
    }

    public mutating func pick<T>(_ options: [T]) -> T { options[Int(byte()) % options.count] }

    /// Values that break arithmetic, small integers, and (1 in 8) any finite double
    /// from the next eight bytes.
    public mutating func double() -> Double {
        let extremes: [Double] = [0, -0.0, 1, -1, 2, 10, 0.5, 1e308, -1e308, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                  .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 1e300,
                                  1e308.nextDown, 9.007199254740993e15, 1e13, -1e13, 1.8e9, 86_400, 3, 7, 100, 1000, -5, 42.5]
        let k = byte()
        if k & 7 == 7 {
            var raw: UInt64 = 0
            for _ in 0..<8 { raw = raw << 8 | UInt64(byte()) }
            let d = Double(bitPattern: raw)
            return d.isFinite ? d : 0
        }
        return extremes[Int(k >> 3) % extremes.count]
    }
}

/// A chart spec made of fuzz bytes.
enum FrameSpecBuilder {
    static func spec(_ b: inout FuzzBytes) -> JSONValue {
        func range(_ b: inout FuzzBytes) -> JSONValue {
            let lo = b.double(), hi = b.double()
            return .array([.double(Swift.min(lo, hi)), .double(Swift.max(lo, hi))])
        }
        var xAxis: [(String, JSONValue)] = [("id", "x"), ("type", .string(b.pick(["numeric", "numeric", "time", "category", "logarithmic"])))]
        switch b.byte() % 4 {
        case 1: xAxis.append(("mode", "fixed")); xAxis.append(("range", range(&b)))
        case 2: xAxis.append(("mode", "follow")); xAxis.append(("window", .double(b.double())))
        case 3: xAxis.append(("visibleRange", range(&b)))
        default: break
        }
        if b.byte() % 4 == 0 { xAxis.append(("growBy", .array([.double(b.pick([0, 0.1, 10])), .double(b.pick([0, 1, 10]))]))) }
        if xAxis[1].1 == "category" { xAxis.append(("categories", .array(["a", "b", "c"]))) }
        if b.byte() % 8 == 0 { xAxis.append(("excludedRanges", .array([range(&b)]))) }
        var yAxis: [(String, JSONValue)] = [("id", "y"), ("type", .string(b.pick(["numeric", "numeric", "logarithmic"])))]
        switch b.byte() % 4 {
        case 1: yAxis.append(("mode", "fixed")); yAxis.append(("range", range(&b)))
        case 2: yAxis.append(("mode", "extents"))
        case 3: yAxis.append(("visibleRange", range(&b)))
        default: break
        }
        if b.byte() % 3 == 0 { yAxis.append(("growBy", .array([.double(b.pick([0, 0.1, 10])), .double(b.pick([0, 1, 10]))]))) }
        if b.byte() % 6 == 0, yAxis[1].1 == "logarithmic" { yAxis.append(("logBase", .double(b.pick([2, 1.000001, 1e6, Double.pi])))) }

        var series: [JSONValue] = []
        let kinds = SeriesKind.allCases
        let stack = b.byte() % 3 == 0
        for k in 0..<(1 + Int(b.byte() % 3)) {
            let kind = b.pick(kinds)
            let n = Int(b.byte() % 12)
            var xs: [Double] = []
            for _ in 0..<n { xs.append(b.double()) }
            var data: [(String, JSONValue)] = [("x", .array(xs.map { .double($0) }))]
            for field in kind.valueFields {
                data.append((field, .array((0..<n).map { _ in b.byte() % 16 == 0 ? .null : .double(b.double()) })))
            }
            var s: [(String, JSONValue)] = [("id", .string("s\(k)")), ("type", .string(kind.rawValue)), ("data", .object(data))]
            if stack, [.line, .step, .area, .column].contains(kind) { s.append(("stackIndex", .int(0))) }
            series.append(.object(s))
        }
        let modifiers: [JSONValue] = [
            .object([("type", "zoomPan"), ("direction", "xy")]), .object([("type", "mouseWheelZoom"), ("direction", "xy")]),
            .object([("type", "zoomExtents")]), .object([("type", .string(b.pick(["rollover", "cursor", "crosshair", "rubberBandZoom"])))]),
        ]
        // (Choices added after the first regressions were kept: read after the others.)
        let extra = b.byte()
        if extra & 1 != 0, yAxis[1].1 == "numeric" { yAxis.append(("labelFormat", .string(b.pick(["si", "decimal", "auto"])))) }
        if extra & 2 != 0 {
            if xAxis[1].1 == "time" {
                xAxis.append(b.pick([("weekends", .bool(true)), ("tradingHours", .array(["09:30", "16:00"])), ("timeZone", "Europe/Berlin")]))
            } else if xAxis[1].1 == "numeric" {
                let period = b.pick([1e-9, 1, 7, 1e300])
                xAxis.append(("excludedPeriod", .object([("period", .double(period)), ("ranges", .array([.array([0, .double(period / 2)])]))])))
            }
        }
        if extra & 4 != 0 {
            // Bubbles drawn by a scale (area per unit of size) instead of by the largest.
            series = series.map { s in
                guard case let .object(fields) = s, fields.contains(where: { $0.0 == "type" && $0.1 == "bubble" }) else { return s }
                return .object(fields + [("scale", .double(b.pick([1e-12, 1, 1e12])))])
            }
        }
        // (Read last: the inputs kept before these choices replay as they did.)
        if extra & 8 != 0 {
            if xAxis[1].1 == "time" {
                // Calendar rules: holidays, a day of every month, nights and weekends.
                let rules: [JSONValue] = [
                    .object([("every", "week"), ("from", "Sat 00:00"), ("length", "2d")]),
                    .object([("every", "day"), ("from", .string(b.pick(["16:00", "00:00", "23:59"]))), ("to", .string(b.pick(["09:30", "00:01", "16:30"])))]),
                    .object([("every", "year"), ("on", .string(b.pick(["12-25", "02-29", "01-01"]))), ("days", .int(Int64(b.byte() % 4) + 1))]),
                    .object([("every", "month"), ("on", .string(b.pick(["last Fri", "1st Mon", "31", "last"])))]),
                    .object([("date", .string(b.pick(["2026-12-24", "1970-01-01", "2001-09-09"]))), ("days", .int(Int64(b.byte() % 9) + 1))]),
                ]
                xAxis.append(("exclude", .array(rules.filter { _ in b.byte() & 1 == 0 })))
            } else if xAxis[1].1 == "numeric" {
                xAxis.append(("tickMultiplier", .double(b.pick([1e-9, 15, 1e300]))))
            }
        }
        return .object([("id", "fz"), ("chart", .object([("xAxes", .array([.object(xAxis)])), ("yAxes", .array([.object(yAxis)])),
                                                        ("series", .array(series)), ("modifiers", .array(modifiers))]))])
    }
}

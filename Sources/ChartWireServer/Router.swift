import ChartSession
import ChartExport
import Foundation
import LayoutEngine

struct HTTPRequest {
    var method: String
    var path: String
    var query: [String: String]
    var body: [UInt8]
    /// The `Authorization` header, if any (`Bearer <token>`).
    var authorization: String? = nil
    /// The `Content-Encoding` header, if any (gzip bodies: Router+Influx.swift).
    var contentEncoding: String? = nil
    /// Set once `handleOps` inflated the body and read InfluxDB's credentials.
    var normalized = false
}

struct HTTPResponse: Equatable, Error {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var cacheControl = "no-store"
    /// More response headers (InfluxDB's `X-Influxdb-Version`).
    var headers: [String: String] = [:]
    /// The rest of the body, streamed after `body` (chunked): large data exports.
    var stream: BodyStream? = nil

    static func json(_ status: Int, _ value: JSONValue, realPrecision: Int32 = 17) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json",
                     body: Jansson.serialize(value, realPrecision: realPrecision))
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, .object([("error", .string(message))]))
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// The HTTP routes of INTERFACE.md, as a pure function of the request and the hub.
/// The transport (LWSServer) only moves bytes.
struct Router {
    let hub: SessionHub
    let webDir: String
    let fonts: [String: [UInt8]]
    let measurer: TextMeasurer
    var webFonts = WebFonts()
    /// The server's control token (`CHARTWIRE_CONTROL_TOKEN`): creating sessions needs
    /// it, and it opens every session's control and data routes. nil: creating
    /// sessions is open (sessions with access still need their controller token).
    var controlToken: String? = nil
    /// The theme of charts whose spec names none (`--theme`).
    var defaultTheme = "light"
    /// Draws display lists into images (the image export); nil: no export (503).
    var imageRenderer: ImageRenderer? = nil
    /// Seconds of silence before a heartbeat, for sessions made at runtime (`--heartbeat`).
    var heartbeat: Double? = nil
    /// The transport's budgets and counters, shown under "transport" in `/api/stats`.
    var transportStats: () -> JSONValue? = { nil }
    /// Unix time now (the x of line-protocol lines without a timestamp).
    var clock: () -> Double = { Date().timeIntervalSince1970 }
    /// Start time and draining, for `/readyz` and InfluxDB's `/ready`.
    var lifecycle = Lifecycle()
    /// The server's counters for `GET /metrics` (Metrics.swift).
    var metrics = ServerMetrics()
    /// The store (`--data`): reports what each session takes on disk. nil: memory only.
    var durability: Durability? = nil
    /// Headers of every HTML answer: who may frame it (`AccessPolicy.pageHeaders`,
    /// docs/embedding.md).
    var pageHeaders: [String: String] = [:]

    /// Largest request body of an append: room for any batch within the point limit
    /// (`Session.maxAppendPoints`) written by an ordinary JSON encoder. The worst case
    /// per point is two numbers of 24 characters (`-2.2250738585072014e-308`) each
    /// followed by `", "`: 52 bytes, 52 MB for a million points; the binary form of a
    /// million points is 16 MB.
    static let maxAppendBody = 64 << 20
    /// Routes that carry points, with the append's body limit.
    static let pointsOps: Set<String> = ["append", "insert", "update", "replace"]
    /// The data operations beside append (docs/protocol.md).
    static let dataOps: Set<String> = ["insert", "update", "removeFirst", "clear", "replace"]
    /// Largest body of any other request.
    static let maxBody = 1 << 20

    /// The body limit for a request, known from its method and path before the body.
    static func bodyLimit(method: String, path: String) -> Int {
        let parts = path.split(separator: "/")
        let points = method == "POST" && (parts.count == 6 && parts[0] == "api" && pointsOps.contains(String(parts[5]))
            || parts.last == "write")
        // A whole spec may carry its series' points.
        let spec = (method == "POST" && parts.count == 2 || method == "PUT" && parts.count == 3) && parts.first == "api" && parts[1] == "sessions"
        return points || spec ? maxAppendBody : maxBody
    }

    func handle(_ req: HTTPRequest) -> HTTPResponse {
        var answer = route(req)
        // Every page (and any .html of web/) says which pages may frame it.
        if answer.contentType.hasPrefix("text/html") { answer.headers.merge(pageHeaders) { $1 } }
        return answer
    }

    private func route(_ req: HTTPRequest) -> HTTPResponse {
        // InfluxDB's routes, health, gzip bodies (Router+Influx.swift).
        if let answer = handleOps(req) { return answer }
        let parts = req.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let isSession = parts.count >= 3 && parts[0] == "api" && parts[1] == "sessions"
        // A cluster node that cannot reach Redis refuses every change (docs/cluster.md).
        if req.method != "GET", req.method != "HEAD", parts.first == "api" || parts.first == "write",
           let refusal = (durability as? ClusterDurability)?.writeRefusal {
            return .error(503, refusal)
        }
        switch (req.method, parts.count) {
        case ("POST", 2) where parts[0] == "api" && parts[1] == "sessions":
            if let refused = authorizeControl(req) { return refused }
            return createSession(body: req.body, token: try? bearer(req).get())
        case ("PUT", 3) where isSession:
            if hub.session(parts[2]) == nil {
                if let refused = authorizeControl(req) { return refused }
            } else if let refused = authorizeDefinition(req, session: parts[2]) {
                return refused
            }
            return putSession(parts[2], body: req.body, token: try? bearer(req).get())
        case ("PATCH", 3) where isSession:
            if let refused = authorizeDefinition(req, session: parts[2]) { return refused }
            return patchSession(parts[2], body: req.body, token: try? bearer(req).get())
        case ("DELETE", 3) where isSession:
            if let refused = authorizeDefinition(req, session: parts[2]) { return refused }
            if let d = hub.dashboards.first(where: { $0.cells.contains { $0.session == parts[2] } }) {
                return .error(409, "session \"\(parts[2])\" is on dashboard \"\(d.id)\"; it stays while the dashboard shows it")
            }
            do { try hub.submit(.delete, session: parts[2], make: makeSession) } catch {
                return .error(404, "no session \"\(parts[2])\"")
            }
            return .json(200, .object([("removed", .string(parts[2]))]))
        case ("GET", 4) where isSession && parts[3] == "spec":
            if let refused = authorizeDefinition(req, session: parts[2]) { return refused }
            guard let session = hub.session(parts[2]) else { return .error(404, "no session \"\(parts[2])\"") }
            guard let spec = session.liveSpec(includeData: ["1", "true"].contains(req.query["data"] ?? "")) else {
                return .error(409, "session \"\(parts[2])\" was built in Swift and has no spec")
            }
            return .json(200, spec)
        case ("PUT", _), ("PATCH", _), ("DELETE", _):
            // A session takes them; other API paths are unknown; anything else is a page.
            let onSessions = parts.count >= 3 && isSession
            return .error(onSessions ? 404 : 405, onSessions ? "no \(req.method) route \(req.path)" : "method \(req.method) is not supported")
        case ("POST", 4) where isSession && parts[3] == "write":
            if let refused = authorize(req, session: parts[2]) { return refused }
            return writeLines(session: parts[2], precision: req.query["precision"], body: req.body)
        case ("POST", 1) where parts[0] == "write", ("POST", 3) where parts == ["api", "v2", "write"]:
            // InfluxDB's own write paths (v1 `?db=`, v2 `?bucket=`), for clients that
            // only know those: the database or bucket names the session.
            guard let id = req.query[parts.count == 1 ? "db" : "bucket"] else {
                return .error(400, parts.count == 1 ? "?db= names the session to write to" : "?bucket= names the session to write to")
            }
            if let refused = authorize(req, session: id) { return refused }
            return writeLines(session: id, precision: req.query["precision"], body: req.body)
        case ("POST", 6) where parts[0] == "api" && parts[1] == "sessions" && parts[3] == "series" && parts[5] == "append":
            if let refused = authorize(req, session: parts[2]) { return refused }
            return append(session: parts[2], series: parts[4], body: req.body)
        case ("POST", 6) where parts[0] == "api" && parts[1] == "sessions" && parts[3] == "series" && Self.dataOps.contains(parts[5]):
            if let refused = authorize(req, session: parts[2]) { return refused }
            return change(parts[5], session: parts[2], series: parts[4], body: req.body)
        case ("POST", _):
            return .error(req.path.hasPrefix("/api/") ? 404 : 405, "no POST route \(req.path)")
        case ("GET", _):
            break
        default:
            return .error(405, "method \(req.method) is not supported")
        }

        switch parts.count {
        case 0: return indexPage()
        case 1 where parts[0] == "gallery": return galleryPage()
        case 1 where parts[0] == "healthz":
            return HTTPResponse(status: 200, contentType: "text/plain; charset=utf-8", body: Array("ok".utf8))
        case 2 where parts[0] == "api" && parts[1] == "sessions":
            return .json(200, hub.listing)
        case 2 where parts[0] == "api" && parts[1] == "stats":
            let stats = withStorage(hub.stats)
            if case let .object(members) = stats, let t = transportStats() {
                return .json(200, .object(members + [("transport", t)]))
            }
            return .json(200, stats)
        case 3 where parts[0] == "api" && parts[1] == "sessions":
            // One session's entry of the listing, with what it takes on disk.
            guard hub.session(parts[2]) != nil, case let .array(all)? = withStorage(hub.listing)["sessions"],
                  let entry = all.first(where: { $0["id"] == .string(parts[2]) }) else { return .error(404, "no session \"\(parts[2])\"") }
            return .json(200, entry)
        case 3 where parts[0] == "api" && parts[1] == "demo" && parts[2] == "points":
            return demoPoints(query: req.query)
        case 2 where parts[0] == "api" && parts[1] == "measure":
            return measure(query: req.query)
        case 4 where parts[0] == "api" && parts[1] == "sessions" && parts[3] == "frame.json":
            if let refused = authorizeRead(req, session: parts[2]) { return refused }
            return frame(session: parts[2], query: req.query)
        case 4 where parts[0] == "api" && parts[1] == "sessions" && (parts[3] == "data.csv" || parts[3] == "data.json"):
            if let refused = authorizeRead(req, session: parts[2]) { return refused }
            return exportData(session: parts[2], csv: parts[3] == "data.csv", query: req.query)
        case 4 where parts[0] == "api" && parts[1] == "sessions" && parts[3].hasPrefix("image."):
            if let refused = authorizeRead(req, session: parts[2]) { return refused }
            return exportImage(session: parts[2], name: parts[3], query: req.query)
        case 5 where parts[0] == "api" && parts[1] == "sessions" && parts[3] == "images":
            return image(session: parts[2], name: parts[4], version: req.query["v"])
        case 2 where parts[0] == "s":
            guard hub.session(parts[1]) != nil else { return .error(404, "no session \"\(parts[1])\"") }
            var page = staticFile("client.html")
            page.body = Array(page.bodyText.replacingOccurrences(of: "<!--chartwire:fonts-->", with: webFonts.headHTML).utf8)
            return page
        case 2 where parts[0] == "e":
            // The chart alone, for iframes and <chartwire-chart> (docs/embedding.md): the
            // same client.js; a token comes in the address as on /s/ (?token=...).
            guard hub.session(parts[1]) != nil else { return .error(404, "no session \"\(parts[1])\"") }
            var page = staticFile("embed.html")
            page.body = Array(page.bodyText.replacingOccurrences(of: "<!--chartwire:fonts-->", with: webFonts.headHTML).utf8)
            // The address may hold a token: no Referer carries it elsewhere.
            page.headers["Referrer-Policy"] = "same-origin"
            return page
        case 2 where parts[0] == "d":
            // A dashboard: the same client, one canvas set per chart, one connection.
            guard hub.dashboard(parts[1]) != nil else { return .error(404, "no dashboard \"\(parts[1])\"") }
            var page = staticFile("client.html")
            page.body = Array(page.bodyText.replacingOccurrences(of: "<!--chartwire:fonts-->", with: webFonts.headHTML)
                .replacingOccurrences(of: "<body>", with: "<body class=\"dashboard\">").utf8)
            return page
        case 2 where parts[0] == "api" && parts[1] == "dashboards":
            return .json(200, .object([("dashboards", .array(hub.dashboards.map { d in
                .object([("id", .string(d.id)), ("title", .string(d.title)), ("columns", .int(Int64(d.columns))),
                         ("charts", .array(d.cells.map { .string($0.session) }))])
            }))]))
        case 2 where parts[0] == "fonts":
            // Subsets named by content hash: they never change under a name.
            guard let bytes = webFonts.file(parts[1]) else { return .error(404, "no font \(parts[1])") }
            return HTTPResponse(status: 200, contentType: "font/woff2", body: bytes,
                                cacheControl: "public, max-age=31536000, immutable")
        case 2 where parts[0] == "font":
            guard let bytes = fonts[parts[1]] else { return .error(404, "no font \(parts[1])") }
            return HTTPResponse(status: 200, contentType: parts[1].lowercased().hasSuffix(".otf") ? "font/otf" : "font/ttf",
                                body: bytes, cacheControl: "max-age=86400")
        case 1:
            return staticFile(parts[0])
        default:
            return .error(404, "not found: \(req.path)")
        }
    }

    /// A session with access (docs/config.md, "Access") takes data only from a
    /// controller: `Authorization: Bearer <controller token>`. nil: go ahead. The
    /// answer never repeats the token.
    func authorize(_ req: HTTPRequest, session id: String) -> HTTPResponse? {
        guard let session = hub.session(id), !session.access.isOpen else { return nil }
        let token: String?
        switch bearer(req) {
        case let .failure(refused): return refused
        case let .success(t): token = t
        }
        switch role(of: token, on: session) {
        case .success(.controller): return nil
        case .success(.viewer) where token == nil:
            return .error(401, "session \"\(id)\" takes data from controllers: send Authorization: Bearer <token>")
        case .success(.viewer): return .error(403, "a viewer token watches session \"\(id)\"; changing its data needs a controller token")
        case .failure(.tokenRequired): return .error(401, "session \"\(id)\" takes data from controllers: send Authorization: Bearer <token>")
        case .failure(.unknownToken): return .error(403, "the token is not one of session \"\(id)\"'s")
        }
    }

    /// Reading a session's picture or data over HTTP (`frame.json`, `image.*`, `data.*`):
    /// whoever may watch it. A session whose `access` lets anonymous viewers watch (and an
    /// open one) is read by anyone; one with `"anonymous": "none"` only with one of its
    /// viewer or controller tokens (or the control token), in `Authorization: Bearer` or,
    /// for links a page builds (its download menu), `?token=`. nil: go ahead.
    func authorizeRead(_ req: HTTPRequest, session id: String) -> HTTPResponse? {
        guard let session = hub.session(id), session.access.anonymous == nil else { return nil }
        var token: String?
        switch bearer(req) {
        case let .failure(refused): return refused
        case let .success(t): token = t ?? req.query["token"]
        }
        switch role(of: token, on: session) {
        case .success: return nil
        case .failure(.tokenRequired):
            return .error(401, "session \"\(id)\" is watched with a token: send Authorization: Bearer <token> or ?token=")
        case .failure(.unknownToken): return .error(403, "the token is not one of session \"\(id)\"'s")
        }
    }

    /// What a request's token lets it do on a session: the server's control token steers
    /// every session; any other token is the session's own (`SessionAccess.role`).
    func role(of token: String?, on session: Session) -> Result<SessionAccess.Role, SessionAccess.Refusal> {
        if let token, let control = controlToken, SessionAccess.same(control, token) { return .success(.controller) }
        return session.access.role(for: token)
    }

    /// The token of an `Authorization: Bearer <token>` header (nil: no header).
    func bearer(_ req: HTTPRequest) -> Result<String?, HTTPResponse> {
        guard let header = req.authorization else { return .success(nil) }
        let parts = header.split(separator: " ", maxSplits: 1)
        // "Token" is how InfluxDB v2 clients (Telegraf's influxdb_v2 output) send theirs.
        guard parts.count == 2, ["bearer", "token"].contains(parts[0].lowercased()) else {
            return .failure(.error(401, "Authorization must be \"Bearer <token>\""))
        }
        return .success(String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    /// Redefining, removing or reading back a session: a session with access needs one
    /// of its controller tokens (or the control token); an open one the control token,
    /// when the server has one.
    func authorizeDefinition(_ req: HTTPRequest, session id: String) -> HTTPResponse? {
        guard let session = hub.session(id) else { return nil }
        return session.access.isOpen ? authorizeControl(req) : authorize(req, session: id)
    }

    /// Creating a session needs the server's control token when it has one.
    func authorizeControl(_ req: HTTPRequest) -> HTTPResponse? {
        guard let control = controlToken else { return nil }
        switch bearer(req) {
        case let .failure(refused): return refused
        case .success(nil): return .error(401, "creating sessions needs the server's control token: send Authorization: Bearer <token>")
        case let .success(token?):
            return SessionAccess.same(control, token) ? nil : .error(403, "the token is not the server's control token")
        }
    }

    // MARK: Live control (docs/feeding.md)

    /// A session spec from a request body, checked as at start-up (errors name the
    /// JSON path of the fault).
    func readSessionSpec(_ body: [UInt8], id: String? = nil) -> Result<SessionSpec, HTTPResponse> {
        var json: JSONValue
        do { json = try Jansson.parse(body) } catch { return .failure(.error(error.status, "\(error)")) }
        if let id {
            guard case var .object(members) = json else { return .failure(.error(400, "$: expected an object (a session's spec)")) }
            if let given = json["id"] {
                guard given == .string(id) else { return .failure(.error(400, "$.id: the body's id must be the path's (\"\(id)\") or left out")) }
            } else {
                members.insert(("id", .string(id)), at: 0)
                json = .object(members)
            }
        }
        do { return .success(try ConfigSpec.decodeSession(json, runtime: true)) } catch { return .failure(.error(400, error.description)) }
    }

    func makeSession(_ spec: SessionSpec) -> Session {
        let session = spec.makeSession(measurer: measurer, defaultTheme: defaultTheme)
        session.heartbeat = heartbeat
        return session
    }

    /// A session may join an event group with a protected member only with the control
    /// token or a controller token of one of the group's sessions (docs/limits.md).
    func refuseGroup(_ spec: SessionSpec, token: String?, except: Session? = nil) -> HTTPResponse? {
        guard let group = spec.eventGroup, group != except?.eventGroup, !hub.mayJoin(group: group, token: token, except: except) else { return nil }
        LimitCounters.count("eventGroup")
        return .error(token == nil ? 401 : 403, "$.eventGroup: event group \"\(group)\" has a protected session; joining it needs the "
                      + "server's control token or a controller token of one of its sessions (Authorization: Bearer <token>)")
    }

    /// Refuses a new session past the server's `sessions` limit.
    func refuseSessionCount() -> HTTPResponse? {
        let limit = SessionLimits.current.sessions
        guard hub.sessions.count >= limit else { return nil }
        LimitCounters.count("sessions")
        return .error(429, "the server hosts \(hub.sessions.count) sessions, its limit (limit sessions; "
                      + "\(SessionLimits.howToRaise("sessions"))); remove one first (DELETE /api/sessions/{id})")
    }

    /// `POST /api/sessions`: a new session from a spec.
    func createSession(body: [UInt8], token: String? = nil) -> HTTPResponse {
        let spec: SessionSpec
        switch readSessionSpec(body) {
        case let .failure(refused): return refused
        case let .success(s): spec = s
        }
        if let refused = refuseGroup(spec, token: token) { return refused }
        guard hub.session(spec.id) == nil else {
            return .error(409, "session \"\(spec.id)\" exists: PUT /api/sessions/\(spec.id) replaces it, PATCH changes it")
        }
        if let refused = refuseSessionCount() { return refused }
        guard let json = spec.json else { return .error(400, "the spec has no JSON form") }
        do { try hub.submit(.define(spec: json), session: spec.id) { _ in makeSession(spec) } } catch { return .error(400, error.description) }
        return .json(201, withWarnings([("id", .string(spec.id)), ("created", .bool(true))], hub.session(spec.id)))
    }

    /// `PUT /api/sessions/{s}`: creates the session or replaces its whole definition
    /// (its viewers stay connected).
    func putSession(_ id: String, body: [UInt8], token: String? = nil) -> HTTPResponse {
        let spec: SessionSpec
        switch readSessionSpec(body, id: id) {
        case let .failure(refused): return refused
        case let .success(s): spec = s
        }
        if let refused = refuseGroup(spec, token: token, except: hub.session(id)) { return refused }
        guard let json = spec.json else { return .error(400, "the spec has no JSON form") }
        guard let session = hub.session(id) else {
            if let refused = refuseSessionCount() { return refused }
            do { try hub.submit(.define(spec: json), session: id) { _ in makeSession(spec) } } catch { return .error(400, error.description) }
            return .json(201, withWarnings([("id", .string(id)), ("created", .bool(true))], hub.session(id)))
        }
        do { try session.submit(.define(spec: json)) } catch { return .error(400, error.description) }
        return .json(200, withWarnings([("id", .string(id)), ("replaced", .bool(true)),
                                        ("version", .int(Int64(truncatingIfNeeded: session.chart.version)))], session))
    }

    /// An answer's members, with `warnings` when the session's chart has any
    /// (`Chart.warnings`: hints, not refusals; docs/feeding.md).
    func withWarnings(_ members: [(String, JSONValue)], _ session: Session?) -> JSONValue {
        let warnings = session?.chart.warnings() ?? []
        return .object(warnings.isEmpty ? members : members + [("warnings", .array(warnings.map { .string($0) }))])
    }

    /// `PATCH /api/sessions/{s}`: a partial spec over the session's (docs/feeding.md).
    func patchSession(_ id: String, body: [UInt8], token: String? = nil) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        let patch: JSONValue
        do { patch = try Jansson.parse(body) } catch { return .error(error.status, "\(error)") }
        do {
            try session.checkPatchRights(patch, token: token)
            let version = try session.submit(.patch(patch)).version
            return .json(200, withWarnings([("id", .string(id)), ("version", .int(Int64(truncatingIfNeeded: version)))], session))
        } catch {
            return .error(400, "\(error)")
        }
    }

    /// `POST /api/sessions/{s}/write?precision=ns|us|ms|s`: InfluxDB line protocol,
    /// stored by the session's `lineProtocol` rules (docs/feeding.md). Atomic.
    func writeLines(session id: String, precision: String?, body: [UInt8]) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        let aliases: [String: LineProtocolPrecision] = ["n": .ns, "u": .us]
        guard let p = precision.map({ LineProtocolPrecision(rawValue: $0) ?? aliases[$0] }) ?? .ns else {
            return .error(400, "precision must be ns, us, ms or s")
        }
        do {
            guard let w = try session.submit(.write(body: body, precision: p, now: clock())).write else { return .error(500, "no write result") }
            return .json(200, .object([("accepted", .int(Int64(w.accepted))), ("ignored", .int(Int64(w.ignored))),
                                       ("created", .array(w.created.map { .string($0) }))]))
        } catch {
            return .error(error.status, error.description)
        }
    }

    /// `GET /api/sessions/{s}/images/{name}`: an image the chart's annotations draw.
    /// Frames ask for it with `?v=` and the image's content hash, so that answer is
    /// cached for good; without it (or with an old hash), not cached.
    func image(session id: String, name: String, version: String?) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        guard let image = session.chart.images[name] else { return .error(404, "no image \"\(name)\" in session \"\(id)\"") }
        return HTTPResponse(status: 200, contentType: image.contentType, body: image.bytes,
                            cacheControl: version == image.version ? "public, max-age=31536000, immutable" : "no-cache")
    }

    // MARK: Pages and files

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon",
    ]

    func staticFile(_ name: String) -> HTTPResponse {
        let allowed = name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
        }
        let ext = name.split(separator: ".").last.map(String.init) ?? ""
        guard allowed, !name.hasPrefix("."), let type = Self.contentTypes[ext],
              let data = FileManager.default.contents(atPath: webDir + "/" + name)
        else { return .error(404, "not found: /\(name)") }
        return HTTPResponse(status: 200, contentType: type, body: [UInt8](data), cacheControl: "no-cache")
    }

    /// `/gallery`: the sessions whose id starts with `gallery-`, with their descriptions.
    func galleryPage() -> HTTPResponse {
        let items = hub.sessions.filter { $0.id.hasPrefix("gallery-") }.map { s in
            "<li><a href=\"s/\(htmlEscape(s.id))\">\(htmlEscape(s.title))</a><br>"
                + "<span class=\"meta\">\(htmlEscape(s.description ?? ""))</span></li>\n"
        }.joined()
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>ChartWire axis gallery</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:46rem;color:#1d2029}
            a{color:#1f5fb4;font-weight:600}.meta{color:#6b7080;font-size:14px}li{margin:.7rem 0}</style>
            </head><body><h1>Axis gallery</h1>
            <p>One chart per feature of the axis system, all laid out on the server (docs/axes.md).
            <a href="./">All sessions</a></p><ul>
            \(items.isEmpty ? "<li>The gallery is part of the demo: start the server without --config.</li>" : items)</ul>
            </body></html>
            """
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    func indexPage() -> HTTPResponse {
        var rows = ""
        // Every session (INTERFACE.md), the axis gallery's last.
        let gallery = hub.sessions.filter { $0.id.hasPrefix("gallery-") }
        for s in hub.sessions.filter({ !$0.id.hasPrefix("gallery-") }) + gallery {
            let series = s.chart.series.map(\.name).map(htmlEscape).joined(separator: ", ")
            rows += """
                <li><a href="s/\(htmlEscape(s.id))">\(htmlEscape(s.title))</a> \
                <span class="meta">\(htmlEscape(s.id)) · \(series) · \(s.viewerCount) watching</span></li>\n
                """
        }
        if rows.isEmpty { rows = "<li>No sessions are hosted. Start the server with --config FILE.</li>\n" }
        var boards = ""
        for d in hub.dashboards {
            boards += "<li><a href=\"d/\(htmlEscape(d.id))\">\(htmlEscape(d.title))</a> <span class=\"meta\">dashboard · "
                + d.cells.map { htmlEscape($0.session) }.joined(separator: ", ") + "</span></li>\n"
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>ChartWire</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:46rem;color:#1d2029}
            a{color:#1f5fb4;font-weight:600}.meta{color:#6b7080;font-size:13px;margin-left:.5rem}li{margin:.4rem 0}</style>
            </head><body><h1>ChartWire sessions</h1>
            \(gallery.isEmpty ? "" : "<p><a href=\"gallery\">Axis gallery</a>: one chart per axis feature, with what each shows.</p>")<ul>
            \(boards)\(rows)</ul><p class="meta">JSON: <a href="api/sessions">/api/sessions</a></p></body></html>
            """
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    // MARK: API

    func frame(session id: String, query: [String: String]) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        func int(_ key: String, default d: Int?) -> Int? {
            guard let s = query[key] else { return d }
            return Int(s)
        }
        guard let w = int("width", default: 800), (1...ViewerSize.maxSide).contains(w) else {
            return .error(400, "width must be a whole number from 1 to \(ViewerSize.maxSide)")
        }
        guard let h = int("height", default: 500), (1...ViewerSize.maxSide).contains(h) else {
            return .error(400, "height must be a whole number from 1 to \(ViewerSize.maxSide)")
        }
        let dprText = query["dpr"] ?? "1"
        guard let dpr = Double(dprText), ViewerSize.dprRange.contains(dpr) else {
            return .error(400, "dpr must be a number from \(ViewerSize.dprRange.lowerBound) to \(ViewerSize.dprRange.upperBound)")
        }
        let list = session.displayList(size: ViewerSize(width: w, height: h, dpr: dpr))
        return .json(200, list.json, realPrecision: 9)
    }

    /// `GET /api/sessions/{s}/image.png|image.svg|image.pdf?width=&height=&dpr=&theme=`:
    /// what a viewer of that size would see now (read by whoever may read frame.json).
    func exportImage(session id: String, name: String, query: [String: String]) -> HTTPResponse {
        switch imageJob(session: id, name: name, query: query) {
        case let .answer(response): return response
        case let .draw(job): return job()
        }
    }

    enum ImageJob {
        /// Answered at once (an error).
        case answer(HTTPResponse)
        /// The drawing left to do, on any thread (the session was read already).
        case draw(@Sendable () -> HTTPResponse)
    }

    /// An image export split in two: what needs the session (checks, the display list)
    /// now, the drawing and encoding for later (the transport runs it off its loop).
    func imageJob(session id: String, name: String, query: [String: String]) -> ImageJob {
        guard let format = ImageFormat(rawValue: String(name.dropFirst("image.".count))) else {
            return .answer(.error(404, "no image format \"\(name.dropFirst("image.".count))\"; image.png, image.svg or image.pdf"))
        }
        guard let session = hub.session(id) else { return .answer(.error(404, "no session \"\(id)\"")) }
        guard let renderer = imageRenderer else { return .answer(.error(503, "this server has no image export")) }
        let request: ImageExport.Request
        do { request = try ImageExport.Request.read(format: format, query: query) } catch {
            return .answer(.error(error.status, error.message))
        }
        let prepared = ImageExport.prepare(session, request)
        let fonts = renderer.fonts
        return .draw {
            let bytes: Result<[UInt8], ImageExport.Failure>
            do throws(ImageExport.Failure) { bytes = .success(try prepared.render(fonts)) } catch { bytes = .failure(error) }
            return ImageExport.response(bytes, session: id, format: format)
        }
    }

    /// The image export a request asks for, when it is one (`GET /api/sessions/{s}/image.*`).
    func imageJob(_ req: HTTPRequest) -> ImageJob? {
        guard req.method == "GET" else { return nil }
        let parts = req.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 4, parts[0] == "api", parts[1] == "sessions", parts[3].hasPrefix("image.") else { return nil }
        if let refused = authorizeRead(req, session: parts[2]) { return .answer(refused) }
        return imageJob(session: parts[2], name: parts[3], query: req.query)
    }

    /// `GET /api/demo/points?from=&to=`: the demo pull source (`DemoHistory`), minute
    /// readings for any range of Unix seconds, as an append body.
    func demoPoints(query: [String: String]) -> HTTPResponse {
        guard let from = query["from"].flatMap(Double.init), let to = query["to"].flatMap(Double.init), from <= to else {
            return .error(400, "from and to are required: numbers, from <= to")
        }
        guard let p = DemoHistory.points(from: from, to: to) else {
            return .error(400, "the range holds more than \(DemoHistory.maxPoints) minutes")
        }
        return .json(200, .object([("x", .array(p.xs.map { .number($0) })), ("y", .array(p.ys.map { .number($0) }))]))
    }

    /// `GET /api/measure?text=T&size=S&bold=1&italic=1&family=F`: how wide the server
    /// measures a string in the chart font, or in a family of `--fonts` (for checking the
    /// client's font against the server's).
    func measure(query: [String: String]) -> HTTPResponse {
        guard let text = query["text"] else { return .error(400, "text is required") }
        guard let size = Double(query["size"] ?? "12"), size > 0, size <= 500 else {
            return .error(400, "size must be a number of pixels from 0 to 500")
        }
        let bold = query["bold"] == "1" || query["bold"] == "true"
        let italic = query["italic"] == "1" || query["italic"] == "true"
        let family = query["family"].flatMap { $0.isEmpty ? nil : $0 }
        if let why = FontFamilies.problem(family: family, face: FontFace(bold: bold, italic: italic)) {
            return .error(400, why)
        }
        let style = TextStyle(size: size, bold: bold, italic: italic, family: family)
        let m = measurer.metrics(for: style)
        return .json(200, .object([
            ("text", .string(text)), ("size", .number(size)), ("bold", .bool(bold)),
            ("italic", .bool(italic)), ("family", family.map(JSONValue.string) ?? .null),
            ("font", .string(Theme().cssFont(style))),
            ("width", .double(measurer.width(of: text, style: style))),
            ("ascent", .double(m.ascent(size: size))), ("descent", .double(m.descent(size: size))),
        ]))
    }

    /// The categories of a series' x axis, for x given as names (nil: not a category axis).
    static func categories(_ session: Session, series index: Int) -> (axis: String, names: [String])? {
        guard let axis = session.chart.axis(session.chart.series[index].xAxisId)?.config, axis.type == .category,
              !axis.categories.isEmpty else { return nil }
        return (axis.id, axis.categories)
    }

    func append(session id: String, series: String, body: [UInt8]) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        guard let index = session.chart.seriesIndex(series) else {
            return .error(404, "no series \"\(series)\" in session \"\(id)\"")
        }
        let kind = session.chart.series[index].kind, orientation = session.chart.series[index].orientation
        guard body.count <= Self.maxAppendBody else { return .error(413, "body larger than \(Self.maxAppendBody) bytes") }
        let points: (xs: [Double], values: [[Double]])
        do { points = try Self.readPoints(body, kind: kind, orientation: orientation, categories: Self.categories(session, series: index)) } catch {
            return .error(error.status, error.message)
        }
        do {
            let n = try session.submit(.append(series: series, xs: points.xs, values: points.values)).count
            return .json(200, .object([("accepted", .int(Int64(n)))]))
        } catch {
            return .error(error.status, error.description)
        }
    }

    struct BodyError: Error {
        var message: String
        var status = 400
        init(message: String, status: Int = 400) { self.message = message; self.status = status }
        init(_ e: Jansson.ParseError) { self.init(message: "\(e)", status: e.status) }
    }

    /// Reads a points body's columns straight into `[Double]`s (`JSONScan.readColumns`),
    /// without a `JSONValue` per number: the `fields` (all required; a gap, `null`, only
    /// in `gapsIn`), and other members, which must be scalars, read by `also` (unknown
    /// ones refused). nil when the body is not that simple shape (or has an error the
    /// document reader words): the caller reads it as a document, which answers the same
    /// for any body this accepts.
    /// Past `Session.maxAppendPoints` values only the first field's count is kept
    /// (`count`), when `firstCounted` (the caller refuses the body); otherwise nil.
    static func readColumnsFast(_ body: [UInt8], fields: [String], gapsIn: Set<String>, firstCounted: Bool = true,
                                also: (inout JSONReader) throws -> Void) throws(BodyError) -> (columns: [[Double]], count: Int)? {
        let keep = Session.maxAppendPoints + 1
        guard let doc = JSONScan.readColumns(body, columns: Set(fields), keep: keep),
              fields.allSatisfy({ doc.columns[$0] != nil }),
              firstCounted && doc.counts[fields[0], default: 0] > keep || fields.allSatisfy({ doc.counts[$0, default: 0] <= keep }),
              doc.withGaps.isSubset(of: gapsIn) else { return nil }
        do {
            var r = JSONReader(.object(doc.scalars))
            try also(&r)
            try r.finish()
        } catch {
            throw BodyError(message: "\(error)")
        }
        return (fields.map { doc.columns[$0]! }, doc.counts[fields[0]] ?? 0)
    }

    /// The points of an append, insert or replace body: binary x/y (`CWA1`, x/y series
    /// only), or JSON with `x` and the series type's value fields; `extra` names the
    /// other fields the body may carry (read by `also`).
    /// `categories`: the series' x axis' categories, when x may be given as their names.
    /// A vertical band (`orientation`) names its key `y` and its values `x`, `x1`.
    static func readPoints(_ body: [UInt8], kind: SeriesKind, orientation: SeriesOrientation = .horizontal, extra: [String] = [],
                           categories: (axis: String, names: [String])? = nil,
                           also: (inout JSONReader) throws -> Void = { _ in }) throws(BodyError) -> (xs: [Double], values: [[Double]]) {
        let key = Series.keyField(orientation), fields = Series.fieldNames(kind, orientation)
        let categories = orientation == .horizontal ? categories : nil
        if AppendBody.isBinary(body) {
            guard fields == ["y"], extra.isEmpty else {
                throw BodyError(message: extra.isEmpty
                    ? "binary appends carry x and y; a \(orientation == .vertical ? "vertical " : "")\(kind.rawValue) series takes JSON with \(key), " + fields.joined(separator: ", ")
                    : "this operation takes a JSON body")
            }
            do { let (x, y) = try AppendBody.decode(body); return (x, [y]) } catch { throw BodyError(message: error.description) }
        }
        if let (columns, count) = try readColumnsFast(body, fields: [key] + fields, gapsIn: Set(fields), also: also) {
            guard count <= Session.maxAppendPoints else {
                LimitCounters.count("appendPoints")
                throw BodyError(message: AppendError.tooMany(count: count, limit: Session.maxAppendPoints).description)
            }
            return (columns[0], Array(columns.dropFirst()))
        }
        let json: JSONValue
        // Points bodies that are not the simple shape (or are wrong) are read as
        // documents, with room for a whole batch of the series' fields.
        let room = max(SessionLimits.current.jsonValues, (fields.count + 1) * (Session.maxAppendPoints + 1) + 64)
        do { json = try Jansson.parse(body, maxValues: room) } catch { throw BodyError(error) }
        do {
            var r = JSONReader(json)
            try also(&r)
            let x: [Double]?
            if let categories, let items = json["x"]?.arrayValue, !items.isEmpty, items.allSatisfy({ $0.stringValue != nil }) {
                // x as names of the axis' categories.
                _ = try r.strings("x")
                x = try CategoryNames.positions(items.compactMap(\.stringValue), categories: categories.names, axis: categories.axis, path: "$.x")
            } else {
                x = try r.numbers(key)
            }
            var values: [[Double]] = []
            for field in fields {
                guard let v = try r.numbersOrGaps(field) else { throw r.fail("field \"\(field)\" is required") }
                values.append(v)
            }
            try r.finish()
            guard let x else { throw r.fail("field \"\(key)\" is required") }
            guard x.count <= Session.maxAppendPoints else {
                throw BodyError(message: AppendError.tooMany(count: x.count, limit: Session.maxAppendPoints).description)
            }
            return (x, values)
        } catch let e as BodyError {
            throw e
        } catch {
            throw BodyError(message: "\(error)")
        }
    }

    /// insert, update, removeFirst, clear, replace (docs/protocol.md): each atomic.
    func change(_ op: String, session id: String, series: String, body: [UInt8]) -> HTTPResponse {
        guard let session = hub.session(id) else { return .error(404, "no session \"\(id)\"") }
        guard let i = session.chart.seriesIndex(series) else {
            return .error(404, "no series \"\(series)\" in session \"\(id)\"")
        }
        let kind = session.chart.series[i].kind, names = Self.categories(session, series: i)
        let orientation = session.chart.series[i].orientation, fields = session.chart.series[i].fieldNames
        let before = session.chart.series[i].data.count
        /// A JSON body with an integer field `key` (and nothing else unless `more`).
        func integer(_ key: String) throws(BodyError) -> Int {
            do {
                var r = JSONReader(try Jansson.parse(body))
                guard let n = try r.integer(key, min: 0, max: Int(Int32.max)) else { throw r.fail("field \"\(key)\" is required") }
                try r.finish()
                return Int(n)
            } catch let e as Jansson.ParseError {
                throw BodyError(e)
            } catch { throw BodyError(message: "\(error)") }
        }
        do {
            switch op {
            case "insert":
                var at = 0
                let p = try Self.readPoints(body, kind: kind, orientation: orientation, extra: ["index"], categories: names) { r in
                    guard let n = try r.integer("index", min: 0, max: Int(Int32.max)) else { throw r.fail("field \"index\" is required") }
                    at = Int(n)
                }
                try session.submit(.insert(series: series, index: at, xs: p.xs, values: p.values))
                return .json(200, .object([("accepted", .int(Int64(p.xs.count)))]))
            case "update":
                var at = 0
                var values: [[Double]] = []
                let readIndex = { (r: inout JSONReader) throws in
                    guard let n = try r.integer("index", min: 0, max: Int(Int32.max)) else { throw r.fail("field \"index\" is required") }
                    at = Int(n)
                }
                if let (columns, _) = try Self.readColumnsFast(body, fields: fields, gapsIn: Set(fields), firstCounted: false, also: readIndex) {
                    values = columns
                } else { do {
                    let room = max(SessionLimits.current.jsonValues, fields.count * (Session.maxAppendPoints + 1) + 64)
                    var r = JSONReader(try Jansson.parse(body, maxValues: room))
                    guard let n = try r.integer("index", min: 0, max: Int(Int32.max)) else { throw r.fail("field \"index\" is required") }
                    at = Int(n)
                    for field in fields {
                        guard let v = try r.numbersOrGaps(field) else { throw r.fail("field \"\(field)\" is required") }
                        values.append(v)
                    }
                    try r.finish()
                } catch let e as Jansson.ParseError {
                    throw BodyError(e)
                } catch { throw BodyError(message: "\(error)") } }
                try session.submit(.update(series: series, index: at, values: values))
                return .json(200, .object([("accepted", .int(Int64(values.first?.count ?? 0)))]))
            case "removeFirst":
                let n = try integer("count")
                try session.submit(.removeFirst(series: series, count: n))
                return .json(200, .object([("removed", .int(Int64(n)))]))
            case "clear":
                guard body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) || (try? Jansson.parse(body)) == .object([]) else {
                    return .error(400, "clear takes no body (or {})")
                }
                try session.submit(.clear(series: series))
                return .json(200, .object([("removed", .int(Int64(before)))]))
            default:  // replace
                let p = try Self.readPoints(body, kind: kind, orientation: orientation, categories: names)
                try session.submit(.replaceData(series: series, xs: p.xs, values: p.values))
                return .json(200, .object([("accepted", .int(Int64(p.xs.count)))]))
            }
        } catch let e as BodyError {
            return .error(e.status, e.message)
        } catch let e as SessionError {
            return .error(e.status, e.description)
        } catch {
            return .error(400, "\(error)")
        }
    }
}

extension Router {
    /// `sessions` entries with what each session takes in the store (`--data`):
    /// `storedPoints`, `storedBytes` (spec, snapshot and log), `logEntries`.
    func withStorage(_ value: JSONValue) -> JSONValue {
        guard let durability, case let .object(root) = value else { return value }
        return .object(root.map { key, v in
            guard key == "sessions", case let .array(list) = v else { return (key, v) }
            return (key, .array(list.map { entry in
                guard case let .object(fields) = entry, let id = entry["id"]?.stringValue, let s = hub.session(id) else { return entry }
                return .object(fields + durability.usageJSON(s))
            }))
        })
    }
}

func htmlEscape(_ s: String) -> String {
    var out = ""
    for c in s {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(c)
        }
    }
    return out
}

import ChartSession
import Foundation

/// InfluxDB compatibility as its clients see it (docs/feeding.md, "InfluxDB clients"):
/// the 1.x `/write` and 2.x `/api/v2/write` answers (204, InfluxDB's error bodies and
/// headers), `/ping`, `/health`, `/ready`, gzip request bodies and the ways InfluxDB
/// clients carry a token. The writes themselves go through the routes of Router.swift.
extension Router {
    /// Announced in `X-Influxdb-Version`: the InfluxDB API the write routes follow.
    static let influxVersion = "2.7.0-chartwire"
    /// `X-Influxdb-Build`: what clients compare against "Cloud" to choose the OSS API.
    static let influxBuild = "OSS"
    static var influxHeaders: [String: String] { ["X-Influxdb-Version": influxVersion, "X-Influxdb-Build": influxBuild] }

    enum InfluxAPI { case v1, v2 }

    /// The routes this file answers, and the request normalized for the others:
    /// a gzip body inflated, InfluxDB credentials turned into a bearer token on the
    /// line-protocol write routes. nil: Router.handle goes on with `req` as it is.
    func handleOps(_ req: HTTPRequest) -> HTTPResponse? {
        if req.normalized { return nil }
        let parts = req.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if req.method == "GET", let answer = opsGet(parts, req) { return answer }

        let api: InfluxAPI? = req.method != "POST" ? nil : parts == ["write"] ? .v1 : parts == ["api", "v2", "write"] ? .v2 : nil
        let sessionWrite = req.method == "POST" && parts.count == 4 && parts[0] == "api" && parts[1] == "sessions" && parts[3] == "write"
        let encoded = req.contentEncoding.map { !["", "identity"].contains($0.lowercased()) } ?? false
        guard api != nil || sessionWrite || encoded else { return nil }
        func refuse(_ status: Int, _ message: String) -> HTTPResponse {
            api.map { Self.influxError(status, message, api: $0) } ?? .error(status, message)
        }

        var normal = req
        normal.normalized = true
        if encoded, let encoding = req.contentEncoding {
            guard encoding.lowercased() == "gzip" else {
                return refuse(415, "Content-Encoding \"\(encoding)\" is not supported: send gzip or no encoding")
            }
            let limit = Self.bodyLimit(method: req.method, path: req.path)
            switch Gzip.decode(req.body, limit: limit) {
            case let .success(bytes): normal.body = bytes
            case .failure(.tooLarge): return refuse(413, "the gzip body inflates to more than \(limit) bytes")
            case .failure(.corrupt): return refuse(400, "the body is not valid gzip (Content-Encoding: gzip)")
            case .failure(.noMemory): return refuse(503, "no memory to inflate the gzip body")
            }
            normal.contentEncoding = nil
        }
        guard api != nil || sessionWrite else { return handle(normal) }

        // InfluxDB's precisions: 1.x ns (n), u (us), ms, s, m, h; 2.x ns, us, ms, s.
        if let p = req.query["precision"] {
            let allowed = api == .v2 ? ["ns", "us", "ms", "s"] : ["ns", "n", "us", "u", "ms", "s", "m", "h"]
            guard allowed.contains(p) else {
                return refuse(400, "precision \"\(p)\" is not one of " + allowed.joined(separator: ", "))
            }
            normal.query["precision"] = ["n": "ns", "u": "us"][p] ?? p
        }
        switch Self.influxToken(req) {
        case let .failure(e): return refuse(401, e.message)
        case let .success(token?): normal.authorization = "Bearer " + token
        case .success(nil): break
        }
        let answer = handle(normal)
        guard let api else { return answer }
        if answer.status == 200, let n = ServerMetrics.accepted(answer.body) { metrics.countPoints(n, feed: .lineProtocol) }
        guard answer.status < 300 else {
            let message = (try? Jansson.parse(answer.body))?["error"]?.stringValue ?? answer.bodyText
            return Self.influxError(answer.status, message, api: api)
        }
        return HTTPResponse(status: 204, contentType: "", body: [], headers: Self.influxHeaders)
    }

    /// The token of a line-protocol write, wherever an InfluxDB client put it:
    /// `Authorization: Bearer|Token <t>` (left to `bearer`), Basic auth's password
    /// (1.x clients' user and password), or the `p` query parameter (1.x; `u`, the
    /// user, is ignored). nil: none given.
    static func influxToken(_ req: HTTPRequest) -> Result<String?, BodyError> {
        if let header = req.authorization {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "basic" else { return .success(nil) }
            guard let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
                  let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
                return .failure(BodyError(message: "Authorization: Basic must carry base64 of user:password"))
            }
            let password = String(text[text.index(after: colon)...])
            return .success(password.isEmpty ? nil : password)
        }
        if let p = req.query["p"], !p.isEmpty { return .success(p) }
        return .success(nil)
    }

    /// InfluxDB's error body: 1.x `{"error": "..."}` (and the `X-Influxdb-Error`
    /// header), 2.x `{"code": "...", "message": "..."}`.
    static func influxError(_ status: Int, _ message: String, api: InfluxAPI) -> HTTPResponse {
        var headers = influxHeaders
        switch api {
        case .v1:
            headers["X-Influxdb-Error"] = String(message.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
            var r = HTTPResponse.error(status, message)
            r.headers = headers
            return r
        case .v2:
            let code: String
            switch status {
            case 400: code = "invalid"
            case 401: code = "unauthorized"
            case 403: code = "forbidden"
            case 404: code = "not found"
            case 409: code = "conflict"
            case 413: code = "request too large"
            case 415: code = "unsupported media type"
            case 422: code = "unprocessable entity"
            case 429: code = "too many requests"
            case 503: code = "unavailable"
            default: code = status >= 500 ? "internal error" : "invalid"
            }
            var r = HTTPResponse.json(status, .object([("code", .string(code)), ("message", .string(message))]))
            r.headers = headers
            return r
        }
    }

    /// `GET|HEAD /ping`, `/health`, `/ready` (InfluxDB's), `/readyz`, `/metrics`
    /// (Prometheus, Metrics.swift); nil: not one.
    func opsGet(_ parts: [String], _ req: HTTPRequest) -> HTTPResponse? {
        guard parts.count == 1 else { return nil }
        switch parts[0] {
        case "ping":
            // 1.x: `?verbose=true` answers 200 with the version.
            if ["true", "1"].contains(req.query["verbose"] ?? "") {
                var r = HTTPResponse.json(200, .object([("version", .string(Self.influxVersion))]))
                r.headers = Self.influxHeaders
                return r
            }
            return HTTPResponse(status: 204, contentType: "", body: [], headers: Self.influxHeaders)
        case "health":
            var r = HTTPResponse.json(200, .object([
                ("name", "influxdb"), ("message", "ready for queries and writes"), ("status", "pass"),
                ("checks", .array([])), ("version", .string(Self.influxVersion)), ("commit", "chartwire"),
            ]))
            r.headers = Self.influxHeaders
            return r
        case "ready":
            let up = Int(max(0, Date().timeIntervalSince(lifecycle.started)))
            var r = HTTPResponse.json(200, .object([
                ("status", "ready"), ("started", .string(Self.rfc3339(lifecycle.started))),
                ("up", .string("\(up / 3600)h\(up / 60 % 60)m\(up % 60)s")),
            ]))
            r.headers = Self.influxHeaders
            return r
        case "metrics":
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                body: metrics.render(hub: hub, lifecycle: lifecycle))
        case "readyz":
            // Serving: the sessions are loaded and the store opened (both before the
            // server listens), and the store reachable: a cluster node without Redis
            // answers 503, as it does once draining, so a balancer sends new clients
            // elsewhere.
            let sessions: (String, JSONValue) = ("sessions", .int(Int64(hub.sessions.count)))
            if lifecycle.draining { return .json(503, .object([("status", "draining"), sessions])) }
            if let why = (durability as? ClusterDurability)?.writeRefusal {
                return .json(503, .object([("status", "unavailable"), ("reason", .string(why)), sessions]))
            }
            return .json(200, .object([("status", "ready"), sessions]))
        default:
            return nil
        }
    }

    static func rfc3339(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        return f.string(from: date)
    }
}

/// What the server is doing, for the routes that report it (`/readyz`, `/ready`).
/// Touched only from the service thread.
final class Lifecycle {
    /// When the server was made.
    let started = Date()
    /// SIGTERM or SIGINT arrived: the server stops accepting and closes its connections.
    var draining = false
}

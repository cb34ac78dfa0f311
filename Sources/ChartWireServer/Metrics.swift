import ChartSession
import Foundation

/// The Prometheus text exposition format, version 0.0.4: what `GET /metrics` writes.
///
/// A writer of our own rather than swift-metrics with swift-prometheus: those are two
/// more packages (and swift-atomics, swift-collections underneath) to build from
/// scratch in CI on two cores for what is a page of text, and the server's counters
/// are plain integers on its one service thread already (the sessions' statistics,
/// the transport's tables), read at scrape time: nothing to make thread-safe, and
/// nothing added to the hot path but an integer increment.
struct PrometheusText {
    private(set) var text = ""

    enum Kind: String { case counter, gauge, histogram }

    /// `# HELP` and `# TYPE` of a family; its samples follow.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    /// A histogram's `_bucket` (cumulative, ending in `+Inf`), `_sum` and `_count`
    /// from per-bucket counts: `counts[i]` observations up to `bounds[i]`, the last one
    /// those above every bound.
    mutating func histogram(_ name: String, _ labels: [(String, String)] = [], bounds: [Double], counts: [Int], sum: Double) {
        var cumulative = 0
        for (i, bound) in bounds.enumerated() {
            cumulative += counts[i]
            sample(name + "_bucket", labels + [("le", Self.format(bound))], cumulative)
        }
        cumulative += counts[bounds.count]
        sample(name + "_bucket", labels + [("le", "+Inf")], cumulative)
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, cumulative)
    }

    /// Label values: backslash, double quote and line feed escaped.
    static func escapeLabel(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// HELP text: backslash and line feed escaped.
    static func escapeHelp(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Go's float syntax as Prometheus reads it: integers without a fraction, `+Inf`,
    /// `-Inf`, `NaN`.
    static func format(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}

/// The server's own counters for `/metrics` (the sessions keep theirs). Touched only
/// from the service thread.
final class ServerMetrics {
    /// Points stored, by the feed that brought them.
    enum Feed: String, CaseIterable { case httpJSON = "http_json", httpBinary = "http_binary", publisher, lineProtocol = "line_protocol" }
    var points: [Feed: Int] = [:]
    /// Refused HTTP requests, by status and route.
    struct Refusal: Hashable { let status: Int; let route: String }
    var refused: [Refusal: Int] = [:]
    /// Answered HTTP requests, by route.
    var requests: [String: Int] = [:]
    /// Publication time on the service thread (`Session.publish`: the session's frame
    /// and this thread's share of the viewers' own views).
    static let publishBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
    var publishCounts = [Int](repeating: 0, count: ServerMetrics.publishBounds.count + 1)
    var publishSum = 0.0
    /// The transport's connections, read at scrape time: viewer connections and
    /// publishers by session id, HTTP requests in progress.
    var connections: () -> (viewers: [String: Int], publishers: [String: Int], http: Int) = { ([:], [:], 0) }

    func observePublish(_ seconds: Double) {
        var i = 0
        while i < Self.publishBounds.count && seconds > Self.publishBounds[i] { i += 1 }
        publishCounts[i] += 1
        publishSum += seconds
    }

    /// The route a request went to, as a label: few values, whatever the path.
    static func route(method: String, path: String) -> String {
        let p = path.split(separator: "/", omittingEmptySubsequences: true)
        if p.count == 6, p[0] == "api", p[1] == "sessions", p[3] == "series" { return p[5] == "append" ? "append" : "data" }
        if p.last == "write" && method == "POST" { return "write" }
        if p.first == "api" { return p.count >= 2 && p[1] == "sessions" && method != "GET" ? "control" : "api" }
        if p.count == 1, ["ping", "health", "ready", "readyz", "healthz", "metrics"].contains(p[0]) { return "ops" }
        return method == "GET" ? "page" : "other"
    }

    /// Counts an answered request: refusals by status and route, points an append or
    /// our own line-protocol route stored (InfluxDB's write routes answer 204 with no
    /// count: `handleOps` counts those).
    func record(method: String, path: String, binaryBody: Bool, response: HTTPResponse) {
        let route = Self.route(method: method, path: path)
        requests[route, default: 0] += 1
        if response.status >= 400 {
            refused[Refusal(status: response.status, route: route), default: 0] += 1
            return
        }
        guard method == "POST", route == "append" || route == "data" || route == "write", response.status == 200,
              response.body.count < 200, let n = Self.accepted(response.body) else { return }
        let feed: Feed = route == "write" ? .lineProtocol : binaryBody ? .httpBinary : .httpJSON
        points[feed, default: 0] += Int(n)
    }

    /// The `accepted` count of an answer's JSON body.
    static func accepted(_ body: [UInt8]) -> Int? {
        guard case let .int(n)? = (try? Jansson.parse(body))?["accepted"] else { return nil }
        return Int(n)
    }

    /// The exposition of everything: the sessions' figures, the transport's, the process'.
    func render(hub: SessionHub, lifecycle: Lifecycle) -> String {
        var out = PrometheusText()
        let sessions = hub.sessions
        let (viewerConnections, publishers, http) = connections()

        out.family("chartwire_sessions", .gauge, "Sessions hosted.")
        out.sample("chartwire_sessions", [], sessions.count)
        out.family("chartwire_viewers", .gauge, "Viewers of each session (a dashboard's connection is a viewer of each of its sessions).")
        for s in sessions { out.sample("chartwire_viewers", [("session", s.id)], s.viewerCount) }
        out.family("chartwire_viewer_connections", .gauge, "WebSocket viewer connections, by the session (or dashboard:id) they watch.")
        for (id, n) in viewerConnections.sorted(by: { $0.key < $1.key }) { out.sample("chartwire_viewer_connections", [("session", id)], n) }
        out.family("chartwire_publisher_connections", .gauge, "Publisher WebSocket connections, by session.")
        for (id, n) in publishers.sorted(by: { $0.key < $1.key }) { out.sample("chartwire_publisher_connections", [("session", id)], n) }
        out.family("chartwire_http_requests_in_flight", .gauge, "HTTP requests being received or answered.")
        out.sample("chartwire_http_requests_in_flight", [], http)

        out.family("chartwire_publications_total", .counter, "Publications (frames rendered for every viewer size) of each session.")
        for s in sessions { out.sample("chartwire_publications_total", [("session", s.id)], s.stats.publications) }
        out.family("chartwire_frames_sent_total", .counter, "Frames handed to the transport, by session.")
        for s in sessions { out.sample("chartwire_frames_sent_total", [("session", s.id)], s.stats.frames) }
        out.family("chartwire_frame_bytes_sent_total", .counter, "Bytes of binary frames handed to the transport, by session.")
        for s in sessions { out.sample("chartwire_frame_bytes_sent_total", [("session", s.id)], s.stats.bytes) }
        out.family("chartwire_frame_age_seconds", .histogram,
                   "From the first change a frame shows to the frame leaving the session (a viewer's first frames not counted).")
        for s in sessions {
            out.histogram("chartwire_frame_age_seconds", [("session", s.id)], bounds: SessionStats.ageBounds,
                          counts: s.stats.ageBuckets, sum: s.stats.ageSum)
        }
        out.family("chartwire_publish_seconds", .histogram,
                   "Time of a publication on the service thread: the session's frame and this thread's share of viewers' own views.")
        out.histogram("chartwire_publish_seconds", [], bounds: Self.publishBounds, counts: publishCounts, sum: publishSum)

        out.family("chartwire_points_ingested_total", .counter, "Points stored, by feed (http_json, http_binary, publisher, line_protocol).")
        for feed in Feed.allCases { out.sample("chartwire_points_ingested_total", [("feed", feed.rawValue)], points[feed] ?? 0) }
        out.family("chartwire_http_requests_total", .counter, "HTTP requests answered, by route.")
        for (route, n) in requests.sorted(by: { $0.key < $1.key }) { out.sample("chartwire_http_requests_total", [("route", route)], n) }
        out.family("chartwire_http_requests_refused_total", .counter, "HTTP requests answered with an error, by status and route.")
        for (r, n) in refused.sorted(by: { ($0.key.status, $0.key.route) < ($1.key.status, $1.key.route) }) {
            out.sample("chartwire_http_requests_refused_total", [("status", String(r.status)), ("route", r.route)], n)
        }
        out.family("chartwire_draining", .gauge, "1 once SIGTERM or SIGINT started the drain.")
        out.sample("chartwire_draining", [], lifecycle.draining ? 1 : 0)

        let process = Self.processFigures()
        if let rss = process.residentBytes {
            out.family("process_resident_memory_bytes", .gauge, "Resident memory size in bytes.")
            out.sample("process_resident_memory_bytes", [], rss)
        }
        if let fds = process.openFDs {
            out.family("process_open_fds", .gauge, "Number of open file descriptors.")
            out.sample("process_open_fds", [], fds)
        }
        if let cpu = process.cpuSeconds {
            out.family("process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.")
            out.sample("process_cpu_seconds_total", [], cpu)
        }
        out.family("process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.")
        out.sample("process_start_time_seconds", [], lifecycle.started.timeIntervalSince1970.rounded())
        return out.text
    }

    /// Resident memory, open descriptors and CPU time, from /proc (Linux); nil elsewhere.
    static func processFigures() -> (residentBytes: Int?, openFDs: Int?, cpuSeconds: Double?) {
        func read(_ path: String) -> String? { (try? String(contentsOfFile: path, encoding: .utf8)) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let rss = read("/proc/self/statm").flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }.map { $0 * page }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { $0.count }
        var cpu: Double? = nil
        if let stat = read("/proc/self/stat"), let close = stat.lastIndex(of: ")") {
            // Fields after the command name: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let u = Double(fields[11]), let s = Double(fields[12]) {
                cpu = (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
        }
        return (rss, fds, cpu)
    }
}

extension LWSServer {
    /// Viewer connections and publishers by session (a dashboard's as `dashboard:id`),
    /// HTTP requests in progress: for `/metrics`.
    func connectionCounts() -> (viewers: [String: Int], publishers: [String: Int], http: Int) {
        var viewers: [String: Int] = [:], feeds: [String: Int] = [:]
        for client in clients.values {
            viewers[client.dashboard.map { "dashboard:" + $0.id } ?? client.cells[0].session.id, default: 0] += 1
        }
        for p in publishers.values { feeds[p.session.id, default: 0] += 1 }
        return (viewers, feeds, exchanges.count)
    }
}

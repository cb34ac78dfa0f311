import ChartSession
import Foundation
import Prometheus

/// `GET /metrics`: swift-prometheus's `PrometheusCollectorRegistry` holds every metric
/// and writes the exposition (the text format, version 0.0.4).
///
/// What happens per frame or request is counted as it happens, in the registry's own
/// metrics: a `Counter` is a relaxed atomic add, a histogram's `record` an uncontended
/// lock (the scrape reads it on the same service thread) and a bucket walk, and nothing
/// allocates. What the server knows anyway (viewers, connections, the process) is read
/// at scrape time into gauges. Everything is touched from the service thread only.
final class ServerMetrics {
    let registry = PrometheusCollectorRegistry()

    /// Points stored, by the feed that brought them.
    enum Feed: String, CaseIterable { case httpJSON = "http_json", httpBinary = "http_binary", publisher, lineProtocol = "line_protocol" }
    private let points: [Feed: Counter]
    /// Answered and refused HTTP requests, by route (and status), made as they first occur.
    private var requests: [String: Counter] = [:]
    private struct Refusal: Hashable { let status: Int; let route: String }
    private var refused: [Refusal: Counter] = [:]

    /// Upper bounds (seconds) of the histograms.
    static let publishBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
    static let ageBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    static let gestureBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    /// Publication time on the service thread (`Session.publish`: the session's frame
    /// and this thread's share of the viewers' own views).
    private let publish: ValueHistogram

    private let sessionsGauge, inFlight, draining, residentMemory, openFDs, startTime: Gauge
    private let cpuSeconds: Counter
    private var cpuCounted = 0.0

    /// Each hosted session's metrics, by id (a session replaced under the same id keeps
    /// them); viewer connections of dashboards, by `dashboard:id`.
    private var sessions: [String: SessionMetrics] = [:]
    private var dashboardConnections: [String: Gauge] = [:]

    /// The transport's connections, read at scrape time: viewer connections and
    /// publishers by session id, HTTP requests in progress.
    var connections: () -> (viewers: [String: Int], publishers: [String: Int], http: Int) = { ([:], [:], 0) }
    /// Refusals by reason, as counted where they happen (the transport's guards,
    /// docs/security.md; the limits, `LimitCounters`, docs/limits.md), read at scrape time.
    var refusals: () -> [String: Int] = { [:] }
    private var refusalCounters: [String: Counter] = [:]
    private var refusalsCounted: [String: Int] = [:]

    init() {
        let r = registry
        points = Dictionary(uniqueKeysWithValues: Feed.allCases.map { feed in
            (feed, r.makeCounter(descriptor: Self.name("chartwire_points_ingested_total",
                                                        "Points stored, by feed (http_json, http_binary, publisher, line_protocol)."),
                                 labels: [("feed", feed.rawValue)]))
        })
        publish = r.makeValueHistogram(descriptor: Self.name("chartwire_publish_seconds",
            "Time of a publication on the service thread: the session's frame and this thread's share of viewers' own views."),
            buckets: Self.publishBounds)
        sessionsGauge = r.makeGauge(descriptor: Self.name("chartwire_sessions", "Sessions hosted."))
        inFlight = r.makeGauge(descriptor: Self.name("chartwire_http_requests_in_flight", "HTTP requests being received or answered."))
        draining = r.makeGauge(descriptor: Self.name("chartwire_draining", "1 once SIGTERM or SIGINT started the drain."))
        residentMemory = r.makeGauge(descriptor: Self.name("process_resident_memory_bytes", "Resident memory size in bytes."))
        openFDs = r.makeGauge(descriptor: Self.name("process_open_fds", "Number of open file descriptors."))
        cpuSeconds = r.makeCounter(descriptor: Self.name("process_cpu_seconds_total", "Total user and system CPU time spent in seconds."))
        startTime = r.makeGauge(descriptor: Self.name("process_start_time_seconds", "Start time of the process since unix epoch in seconds."))
    }

    /// A metric's name and help (the registry joins no namespace or unit to it).
    static func name(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    // MARK: Counted as it happens

    func countPoints(_ n: Int, feed: Feed) {
        if n > 0 { points[feed]!.increment(by: Int64(n)) }
    }

    func observePublish(_ seconds: Double) { publish.record(seconds) }

    /// The observer of a session the hub takes (`SessionHub.onAdd`).
    func observer(for session: Session) -> SessionMetrics {
        if let m = sessions[session.id] { return m }
        let m = SessionMetrics(id: session.id, registry: registry)
        sessions[session.id] = m
        return m
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
        counter(&requests, route, "chartwire_http_requests_total", "HTTP requests answered, by route.",
                [("route", route)]).increment()
        if response.status >= 400 {
            counter(&refused, Refusal(status: response.status, route: route), "chartwire_http_requests_refused_total",
                    "HTTP requests answered with an error, by status and route.",
                    [("status", String(response.status)), ("route", route)]).increment()
            return
        }
        guard method == "POST", route == "append" || route == "data" || route == "write", response.status == 200,
              response.body.count < 200, let n = Self.accepted(response.body) else { return }
        countPoints(n, feed: route == "write" ? .lineProtocol : binaryBody ? .httpBinary : .httpJSON)
    }

    /// The counter of `key`, made in the registry the first time.
    private func counter<K: Hashable>(_ table: inout [K: Counter], _ key: K, _ name: String, _ help: String,
                                      _ labels: [(String, String)]) -> Counter {
        if let c = table[key] { return c }
        let c = registry.makeCounter(descriptor: Self.name(name, help), labels: labels)
        table[key] = c
        return c
    }

    /// The `accepted` count of an answer's JSON body.
    static func accepted(_ body: [UInt8]) -> Int? {
        guard case let .int(n)? = (try? Jansson.parse(body))?["accepted"] else { return nil }
        return Int(n)
    }

    // MARK: The scrape

    /// The exposition of everything: the gauges read now, then the registry's text.
    func render(hub: SessionHub, lifecycle: Lifecycle) -> [UInt8] {
        let hosted = hub.sessions
        let (viewerConnections, publishers, http) = connections()
        sessionsGauge.set(to: Double(hosted.count))
        inFlight.set(to: Double(http))
        draining.set(to: lifecycle.draining ? 1 : 0)

        // Sessions no longer hosted take their metrics with them.
        let ids = Set(hosted.map(\.id))
        for (id, m) in sessions where !ids.contains(id) {
            m.unregister(from: registry)
            sessions[id] = nil
        }
        for s in hosted {
            let m = observer(for: s)
            if s.observer !== m { s.observer = m }
            m.viewers.set(to: Double(s.viewerCount))
            m.viewerConnections.set(to: Double(viewerConnections[s.id] ?? 0))
            m.publisherConnections.set(to: Double(publishers[s.id] ?? 0))
        }
        for (key, n) in viewerConnections where key.hasPrefix("dashboard:") {
            let g = dashboardConnections[key] ?? registry.makeGauge(descriptor: SessionMetrics.viewerConnectionsName, labels: [("session", key)])
            dashboardConnections[key] = g
            g.set(to: Double(n))
        }
        for (key, g) in dashboardConnections where viewerConnections[key] == nil {
            registry.unregisterGauge(g)
            dashboardConnections[key] = nil
        }

        for (reason, n) in refusals() where n > refusalsCounted[reason, default: 0] {
            counter(&refusalCounters, reason, "chartwire_refused_total",
                    "Requests, messages and connections refused, by reason: the transport's guards and the limits.",
                    [("reason", reason)]).increment(by: Int64(n - refusalsCounted[reason, default: 0]))
            refusalsCounted[reason] = n
        }

        let process = Self.processFigures()
        if let rss = process.residentBytes { residentMemory.set(to: Double(rss)) }
        if let fds = process.openFDs { openFDs.set(to: Double(fds)) }
        if let cpu = process.cpuSeconds, cpu > cpuCounted {
            cpuSeconds.increment(by: cpu - cpuCounted)
            cpuCounted = cpu
        }
        startTime.set(to: lifecycle.started.timeIntervalSince1970.rounded())

        var out: [UInt8] = []
        out.reserveCapacity(lastSize + lastSize / 8)
        registry.emit(into: &out)
        lastSize = out.count
        return out
    }
    private var lastSize = 4096

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

/// One session's metrics, labelled `session`: what it sends, counted as its frames
/// leave (`SessionObserver`), and its viewers and connections, set at scrape time.
final class SessionMetrics: SessionObserver {
    let publications, frames, bytes, superseded: Counter
    let frameAge, gestureTime: ValueHistogram
    let viewers, viewerConnections, publisherConnections: Gauge

    static var viewerConnectionsName: MetricNameDescriptor { ServerMetrics.name("chartwire_viewer_connections",
        "WebSocket viewer connections, by the session (or dashboard:id) they watch.") }

    init(id: String, registry r: PrometheusCollectorRegistry) {
        let l = [("session", id)]
        publications = r.makeCounter(descriptor: ServerMetrics.name("chartwire_publications_total",
            "Publications (frames rendered for every viewer size) of each session."), labels: l)
        frames = r.makeCounter(descriptor: ServerMetrics.name("chartwire_frames_sent_total", "Frames handed to the transport, by session."), labels: l)
        bytes = r.makeCounter(descriptor: ServerMetrics.name("chartwire_frame_bytes_sent_total",
            "Bytes of binary frames handed to the transport, by session."), labels: l)
        superseded = r.makeCounter(descriptor: ServerMetrics.name("chartwire_frames_superseded_total",
            "Frames a viewer was owed and never sent: a later publication changed what it shows first (the viewer behind), by session."), labels: l)
        frameAge = r.makeValueHistogram(descriptor: ServerMetrics.name("chartwire_frame_age_seconds",
            "From the first change a frame shows to the frame leaving the session (a viewer's first frames not counted)."),
            labels: l, buckets: ServerMetrics.ageBounds)
        gestureTime = r.makeValueHistogram(descriptor: ServerMetrics.name("chartwire_gesture_to_frame_seconds",
            "From a viewer's gesture (pointer, wheel, double click) arriving to the first frame showing what it changed leaving for that viewer."),
            labels: l, buckets: ServerMetrics.gestureBounds)
        viewers = r.makeGauge(descriptor: ServerMetrics.name("chartwire_viewers",
            "Viewers of each session (a dashboard's connection is a viewer of each of its sessions)."), labels: l)
        viewerConnections = r.makeGauge(descriptor: Self.viewerConnectionsName, labels: l)
        publisherConnections = r.makeGauge(descriptor: ServerMetrics.name("chartwire_publisher_connections",
            "Publisher WebSocket connections, by session."), labels: l)
    }

    func unregister(from r: PrometheusCollectorRegistry) {
        for c in [publications, frames, bytes, superseded] { r.unregisterCounter(c) }
        for h in [frameAge, gestureTime] { r.unregisterValueHistogram(h) }
        for g in [viewers, viewerConnections, publisherConnections] { r.unregisterGauge(g) }
    }

    func published() { publications.increment() }

    func frameSent(bytes n: Int, age: Double?) {
        frames.increment()
        if n > 0 { bytes.increment(by: Int64(n)) }
        if let age { frameAge.record(age) }
    }

    func frameSuperseded() { superseded.increment() }

    func gestureToFrame(_ seconds: Double) { gestureTime.record(seconds) }
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

import ChartSession
import Foundation
import TestSupport

// The live scenarios: a real wsserver, fed and watched by `cwload` (a native client),
// measured from outside (the server's CPU from /proc, bytes from the viewers, append
// latency from the feeder, frame ages from /api/stats).

/// The monitoring chart of the streaming issue: 4 line series, each a 250,000-point FIFO.
let monitorChart = """
{"title":"Monitor",
 "xAxes":[{"id":"t","alignment":"bottom","title":"Time (s)","mode":"extents"}],
 "yAxes":[{"id":"v","alignment":"left","title":"Value","mode":"visible"}],
 "series":[{"id":"s0","name":"Signal 0","capacity":250000},{"id":"s1","name":"Signal 1","capacity":250000},
           {"id":"s2","name":"Signal 2","capacity":250000},{"id":"s3","name":"Signal 3","capacity":250000}],
 "legend":{"position":"topLeft"}}
"""
let monitorSpec = """
{"sessions":[{"id":"monitor","title":"Monitor","chart":\(monitorChart)},
 {"id":"bulk","title":"Bulk","chart":{"series":[{"id":"b","name":"Bulk","capacity":10000000},{"id":"j","name":"JSON","capacity":10000000}]}},
 {"id":"gestures","title":"Gestures","chart":{"series":[{"id":"g","name":"Signal","capacity":1000000}],
  "modifiers":[{"type":"zoomPan"},{"type":"mouseWheelZoom"},{"type":"rollover"}]}}]}
"""

/// The same four series scrolling through a 20 s window, so that nearly every append
/// moves pixels (about 1.5 px a point at 1600 px): the fan-out scenarios use it, since
/// frames go out only when pixels change.
let scrollingSpec = monitorSpec.replacingOccurrences(of: #""mode":"extents""#, with: #""mode":"follow","window":20"#)

struct LiveServer {
    let process: Process
    let port: Int

    /// `args`: more flags; without `--data`, the server keeps its sessions in memory only.
    static func start(binDir: String, config: String, args: [String] = []) throws -> LiveServer {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binDir + "/wsserver")
        // cwload's thousands of viewers all come from 127.0.0.1: lift the per-address
        // connection limit (docs/security.md) so the fan-out measures the server.
        p.arguments = ["--port", "0", "--quiet", "--config", config, "--limit", "connectionsPerAddress=100000"]
            + (args.contains("--data") ? args : ["--data", "none"] + args)
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("wsserver exited before listening") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = Int(text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw BenchError("unexpected first line from wsserver: \(text)")
        }
        return LiveServer(process: p, port: port)
    }

    /// CPU seconds (user + system) the server has used.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return .nan }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Bytes the server has handed to write(2) and its kin, sockets and files alike
    /// (`wchar` of /proc/PID/io).
    var writtenBytes: Double { procValue("io", "wchar:") }

    var residentMB: Double { procValue("status", "VmRSS:") / 1024 }

    /// The number after `key` on its line of /proc/PID/`file` (NaN when absent).
    private func procValue(_ file: String, _ key: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/\(file)", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
              let n = Double(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") else { return .nan }
        return n
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs cwload in the background; `result()` waits and parses its JSON line.
final class Load {
    let process = Process()
    let out = Pipe()
    /// `cpus`: run it on those CPUs only (taskset(1)'s list, "1" or "1-3").
    init(binDir: String, _ args: [String], cpus: String? = nil) throws {
        if let cpus, let taskset = tool("taskset") {
            process.executableURL = URL(fileURLWithPath: taskset)
            process.arguments = ["-c", cpus, binDir + "/cwload"] + args
        } else {
            process.executableURL = URL(fileURLWithPath: binDir + "/cwload")
            process.arguments = args
        }
        process.standardOutput = out
        try process.run()
    }
    func result() throws -> JSONValue {
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("cwload \(process.arguments ?? []) failed") }
        return foundationJSON(String(decoding: data, as: UTF8.self))
    }
}

func number(_ v: JSONValue?, _ path: String...) -> Double {
    var cur = v
    for p in path { cur = cur?[p] }
    return cur?.doubleValue ?? .nan
}

struct LiveFigures {
    var rows: [(String, Double, (String, Double)?, String)] = []
}

/// A server hosting one of the specs above, its four windows filled with history (
/// 250,000 points each, 50 a second, ending now), and the ways the scenarios drive it.
final class Scenario {
    let binDir: String
    let server: LiveServer
    let warmup: Double

    /// `history`: the sessions whose four series s0...s3 get that many points of
    /// history (50 a second, ending now) before anything is measured.
    init(binDir: String, dir: URL, name: String, spec: String, warmup: Double,
         history: [(session: String, points: Int)] = [("monitor", 250_000)], binaryHistory: Bool = false,
         serverArgs: [String] = []) throws {
        let config = dir.appendingPathComponent(name + ".json").path
        try spec.write(toFile: config, atomically: true, encoding: .utf8)
        self.binDir = binDir
        self.warmup = warmup
        server = try LiveServer.start(binDir: binDir, config: config, args: serverArgs)
        for (session, points) in history {
            let start = Date().timeIntervalSince1970 - Double(points) / 50
            for s in 0..<4 {
                _ = try load(["ingest", "--series", "s\(s)", "--points", String(points), "--batch", "50000",
                              "--start", String(start), "--step", "0.02"] + (binaryHistory ? ["--binary"] : []), session: session).result()
            }
            dataEnd[session] = start + Double(points - 1) * 0.02
        }
    }

    /// Where each session's series s0...s3 end (Unix seconds; for a feed under way, when
    /// it will have ended).
    var dataEnd: [String: Double] = [:]

    /// Appends points (50 a second) to s0...s3 from where they end, at most 20 s back, up
    /// to now: a 20 s window is full of data when a scenario starts, however long the
    /// session sat unfed.
    func topUp(_ session: String) throws {
        let now = Date().timeIntervalSince1970
        let from = max(now - 20, (dataEnd[session] ?? 0) + 0.02)
        let n = Int((now - from) * 50)
        guard n > 0 else { return }
        for s in 0..<4 {
            _ = try load(["ingest", "--series", "s\(s)", "--points", String(n), "--batch", String(n), "--binary",
                          "--start", String(from), "--step", "0.02"], session: session).result()
        }
        dataEnd[session] = from + Double(n - 1) * 0.02
    }

    /// cwload with this server's port and the monitor session.
    func load(_ args: [String], session: String = "monitor") throws -> Load {
        try Load(binDir: binDir, [args[0], "--port", String(server.port), "--session", session] + args.dropFirst())
    }

    /// The feed: 50 appends a second to each series, a bounded signal.
    func feed(_ duration: Double, session: String = "monitor") throws -> Load {
        dataEnd[session] = Date().timeIntervalSince1970 + warmup + duration + 0.5
        return try load(["feed", "--series", "s0,s1,s2,s3", "--rate", "50", "--duration", String(duration), "--warmup", String(warmup)],
                 session: session)
    }

    /// The sessions' publication counts (`/api/stats`), by id.
    func publications() throws -> [String: Double] {
        let stats = try load(["get", "--series", "/api/stats"]).result()
        var out: [String: Double] = [:]
        for s in stats["sessions"]?.arrayValue ?? [] {
            if let id = s["id"]?.stringValue { out[id] = number(s, "publications") }
        }
        return out
    }

    /// Server CPU (% of one core) over the measured interval of a run that starts now.
    func cpu(during body: () throws -> Void) rethrows -> Double {
        try usage(during: body).cpu
    }

    /// The same, and the bytes a second the server wrote meanwhile (sockets and files).
    func usage(disk: String? = nil, during body: () throws -> Void) rethrows -> (cpu: Double, written: Double, disk: Double) {
        Thread.sleep(forTimeInterval: warmup)
        let c0 = server.cpuSeconds, w0 = server.writtenBytes, d0 = disk.flatMap(diskBytesWritten), t0 = Date()
        try body()
        let seconds = Date().timeIntervalSince(t0)
        let d1 = disk.flatMap(diskBytesWritten)
        return ((server.cpuSeconds - c0) / seconds * 100, (server.writtenBytes - w0) / seconds,
                d0.flatMap { a in d1.map { (Double($0 - a)) / seconds } } ?? .nan)
    }
}

/// The live groups: `monitor` (the monitoring chart, bulk ingest, gestures), `fanout`
/// (fan-out and the slow viewer), `ingest` (ingest while watched, independent views),
/// `durable` (with a data folder), `scrape` (the live and fan-out figures with
/// `/metrics` scraped once a second, beside them unscraped), `memory` (the server's
/// resident memory beside the bytes of the data it holds).
let liveGroups: Set<String> = ["monitor", "fanout", "ingest", "durable", "scrape", "memory"]

/// The live monitoring scenario, the fan-out scenarios and the ingest ones (`groups`:
/// those of `liveGroups` to run). Throws when the binaries are missing or a process
/// fails; the caller then leaves these figures out.
func runLive(binDir: String, quick: Bool, groups: Set<String> = liveGroups) throws -> LiveFigures {
    var figures = LiveFigures()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chartbench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let seconds = quick ? 4.0 : 10.0, warmup = quick ? 1.0 : 2.0
    if groups.contains("monitor") { figures.rows += try runMonitor(binDir: binDir, dir: dir, quick: quick, seconds: seconds, warmup: warmup).rows }
    if groups.contains("durable") { figures.rows += try runDurable(binDir: binDir, dir: dir, quick: quick, seconds: seconds, warmup: warmup).rows }
    if groups.contains("scrape") { figures.rows += try runScrape(binDir: binDir, dir: dir, quick: quick, seconds: seconds, warmup: warmup).rows }
    if groups.contains("memory") { figures.rows += try runMemory(binDir: binDir, dir: dir, quick: quick, seconds: seconds, warmup: warmup).rows }
    if groups.contains("fanout") {
        // Fan-out and a slow viewer, on the scrolling chart.
        let scrolling = try Scenario(binDir: binDir, dir: dir, name: "scrolling", spec: scrollingSpec, warmup: warmup)
        defer { scrolling.server.stop() }
        figures.rows += try runFanOut(scrolling, quick: quick, seconds: seconds).rows
    }
    if groups.contains("ingest") {
        let ingest = try Scenario(binDir: binDir, dir: dir, name: "ingest", spec: ingestSpec, warmup: warmup,
                                  history: [("pub", 2_000), ("http", 2_000), ("lines", 2_000), ("views", 250_000)],
                                  binaryHistory: true)
        defer { ingest.server.stop() }
        figures.rows += try runIngest(ingest, quick: quick).rows
        figures.rows += try runIndependent(ingest, quick: quick).rows
    }
    return figures
}

func runMonitor(binDir: String, dir: URL, quick: Bool, seconds: Double, warmup: Double) throws -> LiveFigures {
    var figures = LiveFigures()
    let live = try Scenario(binDir: binDir, dir: dir, name: "monitor", spec: monitorSpec, warmup: warmup)
    defer { live.server.stop() }

    // Baseline: the feed alone, nobody watching.
    let alone = try live.feed(seconds)
    let cpuAlone = live.cpu { Thread.sleep(forTimeInterval: seconds) }
    _ = try alone.result()

    // One viewer at 1600x900.
    let f1 = try live.feed(seconds)
    let v1 = try live.load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                            "--duration", String(seconds), "--warmup", String(warmup)])
    var viewerResult: JSONValue = .null, feedResult: JSONValue = .null
    let cpu1 = try live.cpu { viewerResult = try v1.result(); feedResult = try f1.result() }
    let stats = try live.load(["get", "--series", "/api/stats"]).result()
    let session = stats["sessions"]?.arrayValue?.first
    let fps = number(viewerResult, "fps", "mean")
    figures.rows.append(("live_server_cpu_pct_1viewer", cpu1, ("live_server_cpu_pct_feed_only", cpuAlone), "%"))
    figures.rows.append(("live_bytes_per_s_1viewer", number(viewerResult, "bytes_per_s"),
                         ("live_frames_per_s_1viewer", fps), "B/s"))
    figures.rows.append(("live_frame_age_p99_ms", number(session, "frameAgeP99Ms"),
                         ("live_frame_age_p50_ms", number(session, "frameAgeP50Ms")), "ms"))
    figures.rows.append(("append_latency_p99_ms", number(feedResult, "latency_ms", "p99"),
                         ("append_latency_p50_ms", number(feedResult, "latency_ms", "p50")), "ms"))
    // Bulk ingest: 10^7 points in batches of 10^6, binary, beside the same in JSON
    // (2 * 10^6 points); request to answer, the client's encoding not counted.
    let binary = try live.load(["ingest", "--series", "b", "--points", quick ? "4000000" : "10000000",
                                "--batch", "1000000", "--binary"], session: "bulk").result()
    let json = try live.load(["ingest", "--series", "j", "--points", "2000000", "--batch", "1000000"], session: "bulk").result()
    figures.rows.append(("ingest_binary_points_per_s", number(binary, "points_per_s"),
                         ("ingest_json_points_per_s", number(json, "points_per_s")), "/s"))

    // Gestures on a 10^6-point chart, one viewer at 1600x900 sending 60 a second as a
    // page does: a wheel zoom (the chart re-reduced), a drag, a rollover hover (only
    // that viewer's own layer).
    _ = try live.load(["ingest", "--series", "g", "--points", "1000000", "--batch", "500000", "--binary"], session: "gestures").result()
    let count = quick ? "180" : "600"
    func gestures(_ kind: String) throws -> JSONValue {
        try live.load(["gestures", "--series", kind, "--count", count, "--rate", "60", "--width", "1600", "--height", "900"],
                      session: "gestures").result()
    }
    let wheel = try gestures("wheel"), drag = try gestures("drag"), hover = try gestures("hover")
    figures.rows.append(("gesture_to_frame_p99_ms_1e6", number(wheel, "latency_ms", "p99"),
                         ("gesture_to_frame_p50_ms_1e6", number(wheel, "latency_ms", "p50")), "ms"))
    figures.rows.append(("drag_to_frame_p99_ms_1e6", number(drag, "latency_ms", "p99"),
                         ("drag_to_frame_p50_ms_1e6", number(drag, "latency_ms", "p50")), "ms"))
    figures.rows.append(("rollover_overlay_bytes", number(hover, "bytes", "p50"),
                         ("wheel_frame_bytes_1e6", number(wheel, "bytes", "p50")), "B"))
    live.server.stop()
    return figures
}

// MARK: Memory (`--only memory`)

/// One 10^7-point line, nothing else.
let lineSpec1e7 = """
{"sessions":[{"id":"line","title":"Line","chart":{"title":"Line",
 "xAxes":[{"id":"x","alignment":"bottom","title":"Time (s)","mode":"extents"}],
 "yAxes":[{"id":"y","alignment":"left","title":"Value","mode":"visible"}],
 "series":[{"id":"l","name":"Signal","capacity":10000000}]}}]}
"""

/// The server's resident memory (VmRSS) while one viewer (1600x900) watches: the
/// monitoring chart filled (4 x 250,000 points) and fed, and, on a server of its own,
/// one line of 10^7 points. Beside each: the raw bytes of the data held (x and y as
/// two Float64s, 16 bytes a point), what a store "within a few percent" comes to.
func runMemory(binDir: String, dir: URL, quick: Bool, seconds: Double, warmup: Double) throws -> LiveFigures {
    var figures = LiveFigures()
    let mb = 1024.0 * 1024
    /// The largest VmRSS seen twice a second while `viewer` runs.
    func peakRSS(_ server: LiveServer, while viewer: Load) throws -> Double {
        var peak = 0.0
        while viewer.process.isRunning {
            peak = max(peak, server.residentMB)
            Thread.sleep(forTimeInterval: 0.5)
        }
        _ = try viewer.result()
        return peak
    }
    let live = try Scenario(binDir: binDir, dir: dir, name: "memory-monitor", spec: monitorSpec, warmup: warmup)
    defer { live.server.stop() }
    let feed = try live.feed(seconds)
    let viewer = try live.load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                                "--duration", String(seconds), "--warmup", String(warmup)])
    let rssLive = try peakRSS(live.server, while: viewer)
    _ = try feed.result()
    live.server.stop()
    figures.rows.append(("server_rss_mb_live", rssLive, ("data_raw_mb_live", 4 * 250_000 * 16 / mb), "MB"))

    let line = try Scenario(binDir: binDir, dir: dir, name: "memory-line", spec: lineSpec1e7, warmup: warmup, history: [])
    defer { line.server.stop() }
    _ = try line.load(["ingest", "--series", "l", "--points", "10000000", "--batch", "1000000", "--binary"],
                      session: "line").result()
    let lineViewer = try line.load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                                    "--duration", String(seconds / 2), "--warmup", String(warmup)], session: "line")
    let rss1e7 = try peakRSS(line.server, while: lineViewer)
    line.server.stop()
    figures.rows.append(("server_rss_mb_1e7", rss1e7, ("data_raw_mb_1e7", 10_000_000 * 16 / mb), "MB"))

    // The same with irregular x (each step 1 ± 0.25 at random, as arrival times are):
    // no chunk's x lies on a line, so every x is stored as a plain float64.
    let jittered = try Scenario(binDir: binDir, dir: dir, name: "memory-line-irregular", spec: lineSpec1e7,
                                warmup: warmup, history: [])
    defer { jittered.server.stop() }
    _ = try jittered.load(["ingest", "--series", "l", "--points", "10000000", "--batch", "1000000", "--binary",
                           "--jitter", "0.5"], session: "line").result()
    let jitteredViewer = try jittered.load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                                            "--duration", String(seconds / 2), "--warmup", String(warmup)], session: "line")
    let rssIrregular = try peakRSS(jittered.server, while: jitteredViewer)
    figures.rows.append(("server_rss_mb_1e7_irregular_x", rssIrregular, ("data_raw_mb_1e7", 10_000_000 * 16 / mb), "MB"))
    return figures
}

func runFanOut(_ sc: Scenario, quick: Bool, seconds: Double) throws -> LiveFigures {
    var figures = LiveFigures()
    let warmup = sc.warmup
    // Fan-out: the most viewers (of those tried) that each get >= 30 frames/s while the
    // feed runs, with the server's CPU at that load, on the scrolling chart.
    var best = 0.0, bestCPU = Double.nan
    for count in quick ? [200, 1000] : [250, 500, 1000, 1500, 2000, 2500] {
        // cwload opens 500 connections a second and measures once all are open: the
        // feed must run through that too, or the last seconds measured have no data.
        let f = try sc.feed(Double(count) / 500 + seconds + 2)
        let v = try sc.load(["viewers", "--count", String(count), "--duration", String(seconds), "--warmup", String(warmup + 1)])
        var r: JSONValue = .null
        let c = try sc.cpu { Thread.sleep(forTimeInterval: 1); r = try v.result() }
        _ = try f.result()
        let connected = number(r, "connected"), minFps = number(r, "fps", "min")
        FileHandle.standardError.write(Data("fan-out \(count): connected \(connected), fps min \(minFps) median \(number(r, "fps", "median")), server \(Int(c)) %\n".utf8))
        guard connected == Double(count), minFps >= 30 else { break }
        best = Double(count); bestCPU = c
    }
    figures.rows.append(("fanout_viewers_30fps", best, ("fanout_server_cpu_pct", bestCPU), "viewers"))

    // A slow viewer (10 KB/s) among 100: the others' frame rate beside a run without it,
    // and the server's memory before and after.
    func others(throttle: Bool) throws -> (Double, Double) {
        let f = try sc.feed(seconds)
        var args = ["viewers", "--count", "101", "--duration", String(seconds), "--warmup", String(warmup)]
        if throttle { args += ["--throttle-one", "10000"] }
        let r = try sc.load(args).result()
        _ = try f.result()
        return (number(r, "fps", "mean"), number(r, "throttled_fps"))
    }
    let rssBefore = sc.server.residentMB
    let (plain, _) = try others(throttle: false)
    let (withSlow, slowFps) = try others(throttle: true)
    figures.rows.append(("slow_viewer_others_fps_ratio", withSlow / plain, ("slow_viewer_fps", slowFps), ""))
    figures.rows.append(("slow_viewer_server_rss_growth_mb", sc.server.residentMB - rssBefore,
                         ("server_rss_mb", sc.server.residentMB), "MB"))
    return figures
}

// MARK: Ingest while watched, and independent views

/// Telegraf's cpu input on 2 hosts of 4 cpus: the tag sets and fields `cwload lines` writes.
let telegrafHosts = (1...2).map { String(format: "web-%02d", $0) }
let telegrafCPUs = (0..<4).map { "cpu\($0)" }
let telegrafFields = ["usage_user", "usage_system", "usage_idle", "usage_iowait", "usage_steal"]

/// The sessions of the ingest figures and of the independent views. Every ingest
/// session is the scrolling monitor chart (four series through a 20 s window, fed 50
/// times a second so that frames change 30+ times a second whatever the ingest does)
/// at `maxFps` 30, with the ingested series beside it on an x axis of their own (top),
/// following their newest data, and a y axis of their own (right):
/// - `pub`: one series `p` of 10^6 points (FIFO), fed through the publisher WebSocket;
///   its window is its 10^6 newest points (the samples' index is x).
/// - `http`: the same with `h`, fed with JSON appends.
/// - `lines`: 40 series (2 hosts x 4 cpus x 5 fields) of 50,000 points, fed with
///   Telegraf's cpu lines, one rule a series; 2 s of their (nanosecond) time in view.
/// - `views`: the fan-out chart (four series of 250,000 points scrolling through 20 s)
///   with `"viewMode": "independent"` at `maxFps` 30 (the rate each viewer must keep), so
///   a view is rendered at most 30 times a second.
let ingestSpec: String = {
    func feedSeries() -> String {
        (0..<4).map { #"{"id":"s\#($0)","name":"Signal \#($0)","capacity":250000}"# }.joined(separator: ",")
    }
    func session(_ id: String, _ title: String, window: String, series: [String], extra: String = "") -> String {
        #"""
        {"id":"\#(id)","title":"\#(title)","maxFps":30,\#(extra)"chart":{"title":"\#(title)",
         "xAxes":[{"id":"t","alignment":"bottom","title":"Time (s)","mode":"follow","window":20},
                  {"id":"i","alignment":"top","title":"Ingest","mode":"follow","window":\#(window)}],
         "yAxes":[{"id":"v","alignment":"left","title":"Value","mode":"visible"},
                  {"id":"w","alignment":"right","title":"Ingest","mode":"visible"}],
         "series":[\#(feedSeries()),\#(series.joined(separator: ","))],
         "legend":{"position":"topLeft"}}}
        """#
    }
    func ingested(_ id: String, capacity: Int) -> String {
        #"{"id":"\#(id)","capacity":\#(capacity),"xAxis":"i","yAxis":"w","showInLegend":false}"#
    }
    var cpuSeries: [String] = [], rules: [String] = []
    for host in telegrafHosts {
        for cpu in telegrafCPUs {
            for field in telegrafFields {
                let id = "\(host)-\(cpu)-\(field)"
                cpuSeries.append(ingested(id, capacity: 50_000))
                rules.append(#"{"measurement":"cpu","tags":{"cpu":"\#(cpu)","host":"\#(host)"},"field":"\#(field)","series":"\#(id)"}"#)
            }
        }
    }
    let lineProtocol = #""lineProtocol":{"series":[\#(rules.joined(separator: ","))],"unknown":"ignore"},"#
    let views = #"""
        {"id":"views","title":"Views","viewMode":"independent","maxFps":30,"chart":{"title":"Monitor",
         "xAxes":[{"id":"t","alignment":"bottom","title":"Time (s)","mode":"follow","window":20}],
         "yAxes":[{"id":"v","alignment":"left","title":"Value","mode":"visible"}],
         "series":[\#(feedSeries())],"legend":{"position":"topLeft"}}}
        """#
    return #"{"sessions":["# + [
        session("pub", "Publisher", window: "1000000", series: [ingested("p", capacity: 1_000_000)]),
        session("http", "HTTP", window: "1000000", series: [ingested("h", capacity: 1_000_000)]),
        session("lines", "Lines", window: "2", series: cpuSeries, extra: lineProtocol),
        views,
    ].joined(separator: ",") + "]}"
}()

/// Ingest through the publisher WebSocket, HTTP JSON appends and line protocol, each
/// into its own session while 100 viewers watch it (1600x900, acknowledging every
/// frame) and the feed keeps its frames changing. Each figure is the ingest's rate;
/// beside it the slowest viewer's frame rate over a stretch that lies inside the
/// ingest: whether watching kept its 30 frames a second.
func runIngest(_ sc: Scenario, quick: Bool) throws -> LiveFigures {
    var figures = LiveFigures()
    let warmup = sc.warmup, seconds = quick ? 3.0 : 6.0
    let viewers = 100
    func phase(_ session: String, _ name: String, _ fpsName: String, rate: String, ingest: (Double) throws -> Load) throws {
        try sc.topUp(session)
        // (The feed runs `warmup` more than its duration: it outlasts the ingest by 0.5 s.)
        let f = try sc.feed(seconds + 2, session: session)
        let v = try sc.load(["viewers", "--count", String(viewers), "--duration", String(seconds), "--warmup", String(warmup)],
                            session: session)
        // The viewers are open 0.2 s after they start (500 a second) and measure from
        // `warmup` after that for `seconds`; the ingest runs from 0.5 s to beyond that.
        Thread.sleep(forTimeInterval: 0.5)
        let p0 = try sc.publications()[session] ?? .nan
        let c0 = sc.server.cpuSeconds, t0 = Date()
        let load = try ingest(warmup + seconds + 1)
        let r = try load.result()
        let cpu = (sc.server.cpuSeconds - c0) / Date().timeIntervalSince(t0) * 100
        let pubs = ((try sc.publications()[session] ?? .nan) - p0) / Date().timeIntervalSince(t0)
        let vr = try v.result()
        _ = try f.result()
        let minFps = number(vr, "fps", "min")
        func none(_ key: String) -> Bool { let n = number(r, key); return n.isNaN || n == 0 }
        let ok = number(vr, "connected") == Double(viewers) && none("failed") && none("errors")
        FileHandle.standardError.write(Data(("\(name): \(Int(number(r, rate))) /s (request or batch to answer), "
            + "viewers fps min \(minFps) median \(number(vr, "fps", "median")), \(Int(number(vr, "bytes_per_s") / 1000)) kB/s, "
            + "server \(Int(cpu)) %, \(String(format: "%.1f", pubs)) publications/s"
            + (ok ? "" : " — FAILED: \(String(describing: r)) \(String(describing: vr))") + "\n").utf8))
        figures.rows.append((name, ok ? number(r, rate) : .nan, (fpsName, minFps), "/s"))
    }
    // Publisher: 10,000-point binary batches, 16 in flight.
    try phase("pub", "ingest_publisher_points_per_s", "ingest_publisher_viewers_min_fps", rate: "points_per_s") { d in
        try sc.load(["publish", "--series", "p", "--batch", "10000", "--inflight", "16", "--duration", String(d)], session: "pub")
    }
    // HTTP JSON appends of 10,000 points, one keep-alive connection, request to answer.
    try phase("http", "ingest_http_points_per_s", "ingest_http_viewers_min_fps", rate: "points_per_s") { d in
        try sc.load(["ingest", "--series", "h", "--batch", "10000", "--duration", String(d)], session: "http")
    }
    // Line protocol: 1,000 lines a request (Telegraf's default metric_batch_size): 125
    // ticks of 8 cpus, 5,000 values.
    try phase("lines", "ingest_lineprotocol_points_per_s", "ingest_lineprotocol_viewers_min_fps", rate: "values_per_s") { d in
        try sc.load(["lines", "--batch", "1000", "--start", "1700000000", "--step", "0.0001", "--duration", String(d)], session: "lines")
    }
    return figures
}

/// Independent views: the most viewers (of those tried) on one `"viewMode":
/// "independent"` session that each zoom once (a y zoom about a point and by an amount
/// of their own, so every view differs) and then each still get 30 frames a second (the
/// session's maxFps) while the feed runs, with the server's CPU at that load. The x axis still
/// follows the data in every view, so every view changes with every append.
func runIndependent(_ sc: Scenario, quick: Bool) throws -> LiveFigures {
    var figures = LiveFigures()
    let warmup = sc.warmup, seconds = quick ? 3.0 : 4.0
    var best = 0.0, bestCPU = Double.nan
    try sc.topUp("views")
    for count in quick ? [25, 50, 100, 150, 200, 250, 300, 400, 500] : [5, 10, 20, 50, 100, 150, 200, 250, 300, 400, 500, 1000] {
        // The viewers connect (500 a second), warm up for `warmup` + 1 s and measure for
        // `seconds`; the feed (which runs `warmup` more than its duration) outlasts them.
        let f = try sc.feed(Double(count) / 500 + seconds + 1.5, session: "views")
        let v = try sc.load(["viewers", "--count", String(count), "--duration", String(seconds), "--warmup", String(warmup + 1),
                             "--zoom", "y"], session: "views")
        var r: JSONValue = .null
        let c = try sc.cpu { Thread.sleep(forTimeInterval: 1); r = try v.result() }
        _ = try f.result()
        let connected = number(r, "connected"), zoomed = number(r, "zoomed"), minFps = number(r, "fps", "min")
        FileHandle.standardError.write(Data(("independent \(count): connected \(connected), zoomed \(zoomed) "
            + "(first frames after the wheel: median \(Int(number(r, "zoom_frame_bytes", "median"))) B), "
            + "fps min \(minFps) median \(number(r, "fps", "median")), server \(Int(c)) %\n").utf8))
        // At least 30 frames/s, the session's maxFps: publications 1/30 s apart put 119 to
        // 121 of them in the measured seconds, so a viewer that got every one may count
        // 29.75; one that falls behind loses frames every second.
        guard connected == Double(count), zoomed == Double(count), minFps >= 29.5 else { break }
        best = Double(count); bestCPU = c
    }
    figures.rows.append(("independent_viewers_30fps", best, ("independent_server_cpu_pct", bestCPU), "viewers"))
    return figures
}

/// The CPU (% of a core) that `perSecond` `fdatasync`s a second cost by themselves on the
/// disk holding `folder`: writes as SQLite's WAL takes them (a 4 kB page, the store's
/// page size, and its 24-byte frame header after the one before, from the start again
/// after 16 MB, as a checkpointed WAL is reused) at that rate, each synced before the
/// next, less the same writes at the same rate unsynced (half the time each,
/// alternating by the second); the calling thread's user and kernel time over the wall
/// time. The price of the promise that an answered append survives a power loss, on
/// this machine's disk, whatever stores it.
func syncCost(folder: String, perSecond: Double, seconds: Double) -> Double {
    let path = folder + "/sync-probe"
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return .nan }
    defer { close(fd); unlink(path) }
    let frame = [UInt8](repeating: 0x5a, count: 4_096 + 24)
    func cpu() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let wrap = (16 << 20) / frame.count
    var used = [0.0, 0.0], wall = [0.0, 0.0], i = 0
    for second in 0..<max(2, Int(seconds)) {
        let synced = second % 2, start = Date(), c0 = cpu()
        for k in 0..<Int(perSecond) {
            _ = frame.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t((i % wrap) * frame.count)) }
            i += 1
            if synced == 1 { fdatasync(fd) }
            let due = Double(k + 1) / perSecond - Date().timeIntervalSince(start)
            if due > 0 { usleep(UInt32(due * 1e6)) }
        }
        used[synced] += cpu() - c0
        wall[synced] += Date().timeIntervalSince(start)
    }
    return (used[1] / wall[1] - used[0] / wall[0]) * 100
}

/// Durable sessions (docs/persistence.md), each figure beside the same measured
/// memory-only in this run, on two servers running side by side (one with `--data none`,
/// one with a data folder and `--fsync always`, the default) and measured in turn:
/// - the monitoring chart's feed alone: its append latency (also on a third server, with
///   `--fsync batch`);
/// - the feed with one viewer (1600x900): the server's CPU (also on the `batch` server),
///   the viewer's bytes a second, the frame ages (the live figures of `runMonitor`);
///   beside the `always` server's CPU less the `batch` one's, the syncs' own (`syncCost`);
/// - bulk binary ingest;
/// - fan-out on the scrolling chart (on two more servers, memory-only and durable): at
///   each viewer count, memory-only then durable, each going on while it keeps 30 frames/s;
/// then the durable monitoring server killed (SIGKILL) and started again on its data:
/// start to the first frame of the session holding the bulk points, and the data
/// folder's bytes per stored point.
func runDurable(binDir: String, dir: URL, quick: Bool, seconds: Double, warmup: Double) throws -> LiveFigures {
    var figures = LiveFigures()
    let n = quick ? 4_000_000 : 10_000_000
    let dataDir = dir.appendingPathComponent("durable-data").path
    let durableArgs = ["--data", dataDir, "--fsync", "always"]
    let config = dir.appendingPathComponent("durable.json").path
    try monitorSpec.write(toFile: config, atomically: true, encoding: .utf8)
    /// Process start to the first frame of the bulk session, read as frame.json.
    func firstFrame(_ args: [String]) throws -> (ms: Double, server: LiveServer) {
        let t0 = Date()
        let server = try LiveServer.start(binDir: binDir, config: config, args: args)
        _ = try Load(binDir: binDir, ["get", "--port", String(server.port), "--session", "bulk",
                                      "--series", "/api/sessions/bulk/frame.json?width=1600&height=900"]).result()
        return (Date().timeIntervalSince(t0) * 1000, server)
    }
    // The same start memory-only, with nothing stored: what a restart costs beyond it.
    let empty = try firstFrame(["--data", "none"])
    empty.server.stop()

    let memory = try Scenario(binDir: binDir, dir: dir, name: "durable", spec: monitorSpec, warmup: warmup, serverArgs: ["--data", "none"])
    defer { memory.server.stop() }
    let durable = try Scenario(binDir: binDir, dir: dir, name: "durable", spec: monitorSpec, warmup: warmup, serverArgs: durableArgs)
    defer { durable.server.stop() }
    // The feed's latency also with `--fsync batch` (synced at checkpoints only): what
    // the disk's sync costs an answer, beside the default's (`always`).
    let batch = try Scenario(binDir: binDir, dir: dir, name: "durable", spec: monitorSpec, warmup: warmup,
                             serverArgs: ["--data", dir.appendingPathComponent("durable-batch-data").path, "--fsync", "batch"])
    defer { batch.server.stop() }
    let both = [memory, durable]
    let feeds = try [memory, durable, batch].map { try $0.feed(seconds).result() }
    let viewed = try [memory, durable, batch].enumerated().map { k, sc in try sc.oneViewer(seconds, disk: k == 1 ? dataDir : nil) }
    batch.server.stop()
    let ingests = try both.map {
        try $0.load(["ingest", "--series", "b", "--points", String(n), "--batch", "1000000", "--binary"], session: "bulk").result()
    }
    figures.rows.append(("append_latency_p99_ms_durable", number(feeds[1], "latency_ms", "p99"),
                         ("append_latency_p99_ms", number(feeds[0], "latency_ms", "p99")), "ms"))
    figures.rows.append(("append_latency_p50_ms_durable", number(feeds[1], "latency_ms", "p50"),
                         ("append_latency_p50_ms", number(feeds[0], "latency_ms", "p50")), "ms"))
    figures.rows.append(("append_latency_p99_ms_durable_batch", number(feeds[2], "latency_ms", "p99"),
                         ("append_latency_p99_ms", number(feeds[0], "latency_ms", "p99")), "ms"))
    figures.rows.append(("live_server_cpu_pct_1viewer_durable", viewed[1].cpu, ("live_server_cpu_pct_1viewer", viewed[0].cpu), "%"))
    figures.rows.append(("live_server_cpu_pct_1viewer_durable_batch", viewed[2].cpu, ("live_server_cpu_pct_1viewer", viewed[0].cpu), "%"))
    // What the syncs of `--fsync always` cost by themselves: one per request of the feed
    // (4 series, 50 appends a second each, one at a time: 200 commits a second), made
    // by this process on the same disk, beside what `always` costs the server more than
    // `batch` (whose commits are the same, unsynced).
    let syncs = syncCost(folder: dir.path, perSecond: 200, seconds: seconds)
    figures.rows.append(("fdatasync_cpu_pct_200_per_s", syncs, ("live_cpu_pct_durable_less_batch", viewed[1].cpu - viewed[2].cpu), "%"))
    // What the store writes to its files (the append log; SQLite's WAL and, at
    // checkpoints, the database) while the feed runs, less what the memory-only server writes the same
    // way (none: its sockets are written with send(2), which wchar does not count);
    // beside the x and y of the points fed, 16 bytes a point.
    figures.rows.append(("store_written_bytes_per_s_durable", viewed[1].written - viewed[0].written,
                         ("fed_xy_float64_bytes_per_s", 16 * viewed[1].fedPoints), "B/s"))
    // What reached the disk meanwhile: the sectors written to the data folder's disk
    // (/proc/diskstats; the whole device, so other writers on it count too), a sync
    // writing whole 4 kB blocks however little changed.
    figures.rows.append(("store_disk_bytes_per_s_durable", viewed[1].disk, ("store_written_bytes_per_s_durable", viewed[1].written - viewed[0].written), "B/s"))
    figures.rows.append(("live_bytes_per_s_1viewer_durable", viewed[1].bytes, ("live_bytes_per_s_1viewer", viewed[0].bytes), "B/s"))
    figures.rows.append(("live_frame_age_p99_ms_durable", viewed[1].ageP99, ("live_frame_age_p99_ms", viewed[0].ageP99), "ms"))
    figures.rows.append(("ingest_binary_points_per_s_durable", number(ingests[1], "points_per_s"),
                         ("ingest_binary_points_per_s", number(ingests[0], "points_per_s")), "/s"))
    memory.server.stop()

    // Killed as a crash would, then started on its data.
    kill(durable.server.process.processIdentifier, SIGKILL)
    durable.server.process.waitUntilExit()
    // Three starts, each from a copy of the folder as the kill left it (a start folds
    // what the append log holds, and a clean stop folds again): their median is the
    // figure, since one start on a shared disk can take twice as long as the next.
    let crashed = dataDir + "-crashed"
    try? FileManager.default.removeItem(atPath: crashed)
    try FileManager.default.copyItem(atPath: dataDir, toPath: crashed)
    defer { try? FileManager.default.removeItem(atPath: crashed) }
    var restarts: [Double] = []
    var again: LiveServer! = nil
    for k in 0..<3 {
        if k > 0 {
            try FileManager.default.removeItem(atPath: dataDir)
            try FileManager.default.copyItem(atPath: crashed, toPath: dataDir)
        }
        let (ms, server) = try firstFrame(["--data", dataDir])
        restarts.append(ms)
        if k < 2 { server.stop() } else { again = server }
    }
    FileHandle.standardError.write(Data("durable: restarts \(restarts.map { String(Int($0)) }.joined(separator: ", ")) ms\n".utf8))
    let restartMs = restarts.sorted()[1]
    let stats = try Load(binDir: binDir, ["get", "--port", String(again.port), "--session", "bulk", "--series", "/api/stats"]).result()
    let points = (stats["sessions"]?.arrayValue ?? []).reduce(0.0) { $0 + number($1, "storedPoints") }
    again.stop()
    let files = (try? FileManager.default.contentsOfDirectory(atPath: dataDir)) ?? []
    let bytes = files.reduce(0) { total, f in
        total + ((try? FileManager.default.attributesOfItem(atPath: dataDir + "/" + f)[.size] as? Int) ?? 0)
    }
    FileHandle.standardError.write(Data("durable: \(Int(points)) points stored, \(bytes) bytes in the data folder\n".utf8))
    figures.rows.append(("restart_first_frame_ms_1e7", restartMs, ("start_first_frame_ms_memory", empty.ms), "ms"))
    // Beside the float64 x and y of a point: 16 bytes.
    figures.rows.append(("disk_bytes_per_point_1e7", Double(bytes) / points, ("xy_float64_bytes_per_point", 16), "B"))

    // Fan-out on the scrolling chart, memory-only and durable in turn at each count.
    let scrolling = [
        try Scenario(binDir: binDir, dir: dir, name: "durable-scrolling", spec: scrollingSpec, warmup: warmup, serverArgs: ["--data", "none"]),
        try Scenario(binDir: binDir, dir: dir, name: "durable-scrolling", spec: scrollingSpec, warmup: warmup,
                     serverArgs: ["--data", dir.appendingPathComponent("durable-fanout-data").path, "--fsync", "always"]),
    ]
    defer { for sc in scrolling { sc.server.stop() } }
    var best = [0.0, 0.0], bestCPU = [Double.nan, Double.nan], going = [true, true]
    for count in quick ? [200, 1000] : [250, 500, 1000, 1500, 2000, 2500] {
        for (k, sc) in scrolling.enumerated() where going[k] {
            let r = try sc.fanOut(count, seconds: seconds)
            FileHandle.standardError.write(Data("fan-out \(count)\(k == 1 ? " durable" : ""): connected \(r.connected), fps min \(r.minFps), server \(Int(r.cpu)) %\n".utf8))
            if r.connected == Double(count), r.minFps >= 30 { best[k] = Double(count); bestCPU[k] = r.cpu } else { going[k] = false }
        }
        if !going.contains(true) { break }
    }
    figures.rows.append(("fanout_viewers_30fps_durable", best[1], ("fanout_viewers_30fps", best[0]), "viewers"))
    figures.rows.append(("fanout_server_cpu_pct_durable", bestCPU[1], ("fanout_server_cpu_pct", bestCPU[0]), "%"))
    return figures
}

extension Scenario {
    /// The feed with one viewer (1600x900) of `session`: the server's CPU over the
    /// measured interval, the viewer's frame bytes and frames a second, and the
    /// session's frame ages (`/api/stats`).
    func oneViewer(_ seconds: Double, session: String = "monitor", disk: String? = nil) throws
        -> (cpu: Double, bytes: Double, fps: Double, ageP99: Double, ageP50: Double, written: Double, fedPoints: Double, disk: Double) {
        let f = try feed(seconds, session: session)
        let v = try load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                          "--duration", String(seconds), "--warmup", String(warmup)], session: session)
        var r: JSONValue = .null, fed: JSONValue = .null
        let use = try usage(disk: disk) { r = try v.result(); fed = try f.result() }
        let stats = try load(["get", "--series", "/api/stats"]).result()
        let s = stats["sessions"]?.arrayValue?.first { $0["id"]?.stringValue == session }
        return (use.cpu, number(r, "bytes_per_s"), number(r, "fps", "mean"), number(s, "frameAgeP99Ms"), number(s, "frameAgeP50Ms"),
                use.written, number(fed, "points") / seconds, use.disk)
    }

    /// `count` viewers (cwload's default size) while the feed runs: how many connected,
    /// the slowest one's frames a second, and the server's CPU.
    func fanOut(_ count: Int, seconds: Double) throws -> (connected: Double, minFps: Double, cpu: Double) {
        // cwload opens 500 connections a second and measures once all are open: the
        // feed must run through that too, or the last seconds measured have no data.
        let f = try feed(Double(count) / 500 + seconds + 2)
        let v = try load(["viewers", "--count", String(count), "--duration", String(seconds), "--warmup", String(warmup + 1)])
        var r: JSONValue = .null
        let c = try cpu { Thread.sleep(forTimeInterval: 1); r = try v.result() }
        _ = try f.result()
        return (number(r, "connected"), number(r, "fps", "min"), c)
    }
}

// MARK: Scraped by Prometheus (`--only scrape`)

/// GETs `/metrics` once a second on a thread of its own, as a Prometheus server scrapes
/// (a new connection each time), and counts the scrapes that were answered 200 and
/// their bytes, so a run shows that it really scraped.
final class Scraper: @unchecked Sendable {
    let port: Int
    let period: Double
    private let lock = NSLock()
    private var stopping = false
    private var answered = 0, failed = 0, bytes = 0
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, period: Double = 1) {
        self.port = port
        self.period = period
        Thread.detachNewThread { [self] in
            var next = Date()
            while !lock.withLock({ stopping }) {
                let n = Self.get(port: port, path: "/metrics")
                lock.withLock { if let n { answered += 1; bytes = n } else { failed += 1 } }
                next += period
                Thread.sleep(until: next)
            }
            done.signal()
        }
    }

    /// Stops (after the scrape under way) and says what it did.
    func finish() -> (scrapes: Int, failed: Int, bytes: Int) {
        lock.withLock { stopping = true }
        done.wait()
        return lock.withLock { (answered, failed, bytes) }
    }

    /// One GET over a new connection: the body's size when the answer is 200, else nil.
    static func get(port: Int, path: String) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard ok else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var answer: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer.append(contentsOf: buf[0..<n])
        }
        guard answer.starts(with: Array("HTTP/1.1 200".utf8)),
              let end = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }) else { return nil }
        return answer.count - end - 4
    }
}

/// The live figures with `/metrics` scraped once a second beside the same figures
/// unscraped, measured in turn on the same servers: the monitoring chart's one viewer
/// (server CPU, frame ages, frame rate; the unscraped run is repeated after the scraped
/// one, so the table shows what run-to-run noise is), and the fan-out search (at each
/// count, unscraped then scraped, each going on while it keeps 30 frames/s).
func runScrape(binDir: String, dir: URL, quick: Bool, seconds: Double, warmup: Double) throws -> LiveFigures {
    var figures = LiveFigures()
    var scraped: [(scrapes: Int, failed: Int, bytes: Int)] = []
    func scraping<T>(_ on: Bool, port: Int, _ body: () throws -> T) rethrows -> T {
        guard on else { return try body() }
        let s = Scraper(port: port)
        defer { scraped.append(s.finish()) }
        return try body()
    }

    // Three copies of the monitoring chart, one a run, so that each run's frame ages
    // (`/api/stats`: a session's last 4096) are its own.
    let runs = ["unscraped", "scraped", "again"]
    let spec = #"{"sessions":["# + runs.map { #"{"id":"\#($0)","title":"Monitor","chart":\#(monitorChart)}"# }.joined(separator: ",") + "]}"
    let live = try Scenario(binDir: binDir, dir: dir, name: "scrape-monitor", spec: spec, warmup: warmup,
                            history: runs.map { ($0, 250_000) })
    func oneViewer(_ session: String, scrape: Bool) throws -> (cpu: Double, fps: Double, ageP99: Double, ageP50: Double) {
        try scraping(scrape, port: live.server.port) {
            let f = try live.feed(seconds, session: session)
            let v = try live.load(["viewers", "--count", "1", "--width", "1600", "--height", "900",
                                   "--duration", String(seconds), "--warmup", String(warmup)], session: session)
            var r: JSONValue = .null
            let cpu = try live.cpu { r = try v.result(); _ = try f.result() }
            let stats = try live.load(["get", "--series", "/api/stats"]).result()
            let s = stats["sessions"]?.arrayValue?.first { $0["id"]?.stringValue == session }
            return (cpu, number(r, "fps", "mean"), number(s, "frameAgeP99Ms"), number(s, "frameAgeP50Ms"))
        }
    }
    let plain = try oneViewer("unscraped", scrape: false)
    let withScrape = try oneViewer("scraped", scrape: true)
    let again = try oneViewer("again", scrape: false)
    figures.rows.append(("live_server_cpu_pct_1viewer_scraped", withScrape.cpu, ("live_server_cpu_pct_1viewer_unscraped", plain.cpu), "%"))
    figures.rows.append(("live_server_cpu_pct_1viewer_again", again.cpu, ("live_server_cpu_pct_1viewer_unscraped", plain.cpu), "%"))
    figures.rows.append(("live_frame_age_p99_ms_scraped", withScrape.ageP99, ("live_frame_age_p99_ms_unscraped", plain.ageP99), "ms"))
    figures.rows.append(("live_frame_age_p99_ms_again", again.ageP99, ("live_frame_age_p99_ms_unscraped", plain.ageP99), "ms"))
    figures.rows.append(("live_frame_age_p50_ms_scraped", withScrape.ageP50, ("live_frame_age_p50_ms_unscraped", plain.ageP50), "ms"))
    figures.rows.append(("live_frames_per_s_1viewer_scraped", withScrape.fps, ("live_frames_per_s_1viewer_unscraped", plain.fps), "/s"))

    // What one scrape costs the server: 200 back to back, nothing else running.
    let n = 200, c0 = live.server.cpuSeconds
    var size = 0
    for _ in 0..<n { size = Scraper.get(port: live.server.port, path: "/metrics") ?? -1 }
    let perScrape = (live.server.cpuSeconds - c0) / Double(n) * 1000
    figures.rows.append(("metrics_scrape_bytes", Double(size), ("metrics_scrape_server_cpu_ms", perScrape), "B"))
    live.server.stop()

    let scrolling = try Scenario(binDir: binDir, dir: dir, name: "scrape-scrolling", spec: scrollingSpec, warmup: warmup)
    defer { scrolling.server.stop() }
    var best = [false: 0.0, true: 0.0], bestCPU = [false: Double.nan, true: Double.nan], going = [false: true, true: true]
    for count in quick ? [200, 1000] : [250, 500, 1000, 1500, 2000, 2500] {
        for scrape in [false, true] where going[scrape]! {
            let (connected, minFps, cpu) = try scraping(scrape, port: scrolling.server.port) {
                let f = try scrolling.feed(Double(count) / 500 + seconds + 2)
                let v = try scrolling.load(["viewers", "--count", String(count), "--duration", String(seconds), "--warmup", String(warmup + 1)])
                var r: JSONValue = .null
                let c = try scrolling.cpu { Thread.sleep(forTimeInterval: 1); r = try v.result() }
                _ = try f.result()
                return (number(r, "connected"), number(r, "fps", "min"), c)
            }
            FileHandle.standardError.write(Data("fan-out \(count)\(scrape ? " scraped" : ""): connected \(connected), fps min \(minFps), server \(Int(cpu)) %\n".utf8))
            if connected == Double(count), minFps >= 30 { best[scrape] = Double(count); bestCPU[scrape] = cpu } else { going[scrape] = false }
        }
        if going.values.allSatisfy({ !$0 }) { break }
    }
    figures.rows.append(("fanout_viewers_30fps_scraped", best[true]!, ("fanout_viewers_30fps_unscraped", best[false]!), "viewers"))
    figures.rows.append(("fanout_server_cpu_pct_scraped", bestCPU[true]!, ("fanout_server_cpu_pct_unscraped", bestCPU[false]!), "%"))
    let total = scraped.reduce(0) { $0 + $1.scrapes }, failed = scraped.reduce(0) { $0 + $1.failed }
    FileHandle.standardError.write(Data("scrape: \(total) scrapes answered 200, \(failed) failed\n".utf8))
    figures.rows.append(("metrics_scrapes_answered", Double(total), ("metrics_scrapes_failed", Double(failed)), ""))
    return figures
}

/// Bytes written so far to the disk holding `path` (/proc/diskstats: its sectors
/// written, 512 bytes each), nil when that disk is not listed there.
func diskBytesWritten(_ path: String) -> Int? {
    var st = stat()
    guard stat(path, &st) == 0, let text = try? String(contentsOfFile: "/proc/diskstats", encoding: .utf8) else { return nil }
    // (glibc's major() and minor(), which are macros.)
    let dev = UInt64(st.st_dev)
    let major = Int(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)), minor = Int((dev & 0xff) | ((dev >> 12) & ~0xff))
    for line in text.split(separator: "\n") {
        let f = line.split(separator: " ")
        if f.count > 9, Int(f[0]) == major, Int(f[1]) == minor, let sectors = Int(f[9]) { return sectors * 512 }
    }
    return nil
}

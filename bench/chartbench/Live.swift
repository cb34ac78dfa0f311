import ChartSession
import Foundation
import TestSupport

// The live scenarios: a real wsserver, fed and watched by `cwload` (a native client),
// measured from outside (the server's CPU from /proc, bytes from the viewers, append
// latency from the feeder, frame ages from /api/stats).

/// The monitoring chart of the streaming issue: 4 line series, each a 250,000-point FIFO.
let monitorSpec = """
{"sessions":[{"id":"monitor","title":"Monitor","chart":{"title":"Monitor",
 "xAxes":[{"id":"t","alignment":"bottom","title":"Time (s)","mode":"extents"}],
 "yAxes":[{"id":"v","alignment":"left","title":"Value","mode":"visible"}],
 "series":[{"id":"s0","name":"Signal 0","capacity":250000},{"id":"s1","name":"Signal 1","capacity":250000},
           {"id":"s2","name":"Signal 2","capacity":250000},{"id":"s3","name":"Signal 3","capacity":250000}],
 "legend":{"position":"topLeft"}}},
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

    static func start(binDir: String, config: String) throws -> LiveServer {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binDir + "/wsserver")
        p.arguments = ["--port", "0", "--quiet", "--config", config]
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

    var residentMB: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return .nan }
        return kb / 1024
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
    init(binDir: String, _ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binDir + "/cwload")
        process.arguments = args
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

    init(binDir: String, dir: URL, name: String, spec: String, warmup: Double) throws {
        let config = dir.appendingPathComponent(name + ".json").path
        try spec.write(toFile: config, atomically: true, encoding: .utf8)
        self.binDir = binDir
        self.warmup = warmup
        server = try LiveServer.start(binDir: binDir, config: config)
        let start = Date().timeIntervalSince1970 - 250_000 / 50
        for s in 0..<4 {
            _ = try load(["ingest", "--series", "s\(s)", "--points", "250000", "--batch", "50000",
                          "--start", String(start), "--step", "0.02"]).result()
        }
    }

    /// cwload with this server's port and the monitor session.
    func load(_ args: [String], session: String = "monitor") throws -> Load {
        try Load(binDir: binDir, [args[0], "--port", String(server.port), "--session", session] + args.dropFirst())
    }

    /// The feed: 50 appends a second to each series, a bounded signal.
    func feed(_ duration: Double) throws -> Load {
        try load(["feed", "--series", "s0,s1,s2,s3", "--rate", "50", "--duration", String(duration), "--warmup", String(warmup)])
    }

    /// Server CPU (% of one core) over the measured interval of a run that starts now.
    func cpu(during body: () throws -> Void) rethrows -> Double {
        Thread.sleep(forTimeInterval: warmup)
        let c0 = server.cpuSeconds, t0 = Date()
        try body()
        return (server.cpuSeconds - c0) / Date().timeIntervalSince(t0) * 100
    }
}

/// The live monitoring scenario and the fan-out scenarios. Throws when the binaries are
/// missing or a process fails; the caller then leaves these figures out.
func runLive(binDir: String, quick: Bool) throws -> LiveFigures {
    var figures = LiveFigures()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chartbench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let seconds = quick ? 4.0 : 10.0, warmup = quick ? 1.0 : 2.0
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

    // Fan-out and a slow viewer, on the scrolling chart.
    let scrolling = try Scenario(binDir: binDir, dir: dir, name: "scrolling", spec: scrollingSpec, warmup: warmup)
    defer { scrolling.server.stop() }
    figures.rows += try runFanOut(scrolling, quick: quick, seconds: seconds).rows
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

import ChartSession
import Foundation
import TestSupport

// The cluster group (`--only cluster`, docs/bench.md and docs/cluster.md): a Redis
// (appendonly yes, appendfsync always) in a temporary folder, three `wsserver --redis`
// nodes and nginx from deploy/nginx-cluster.conf.template, all on loopback and started
// here; beside each figure the same thing measured on a single node in the same run.

/// One session that moves on every point (`skew`: a 20 s window following its data, a
/// point every 0.1 s is 8 px at 1600 px), one for bulk data (`bulk`, 10^7 points), one
/// a viewer watches while its node is killed (`fail`), and the fan-out chart (`scroll`:
/// the monitoring chart's four series scrolling through 20 s, as `fanout_viewers_30fps`).
let clusterSpec = """
{"sessions":[
 {"id":"skew","title":"Skew","chart":{"xAxes":[{"id":"t","alignment":"bottom","mode":"follow","window":20}],
  "yAxes":[{"id":"v","alignment":"left","mode":"extents"}],"series":[{"id":"s","name":"Signal","capacity":100000}]}},
 {"id":"bulk","title":"Bulk","chart":{"series":[{"id":"b","name":"Bulk","capacity":10000000}]}},
 {"id":"fail","title":"Failover","chart":{"series":[{"id":"f","name":"Signal","capacity":1000}]}},
 {"id":"scroll","title":"Monitor","chart":\(monitorChart.replacingOccurrences(of: #""mode":"extents""#, with: #""mode":"follow","window":20"#))}]}
"""

/// A free loopback TCP port (bound and released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket() failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard ok else { throw BenchError("cannot bind a loopback port") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Where a Debian tool lives: on PATH, or in /usr/sbin (nginx, redis-server).
func tool(_ name: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin"] {
        let path = dir + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

func spawn(_ path: String, _ args: [String], quiet: Bool = true) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    if quiet { p.standardOutput = FileHandle.nullDevice; p.standardError = FileHandle.nullDevice }
    try p.run()
    return p
}

/// Pins a running process, every thread of it, to the CPUs in `cpus` (taskset(1)'s
/// list: "0", "1-3"). False when taskset is missing or refuses.
@discardableResult
func pin(_ p: Process, _ cpus: String) -> Bool {
    guard p.isRunning, let taskset = tool("taskset"),
          let t = try? spawn(taskset, ["-a", "-p", "-c", cpus, String(p.processIdentifier)]) else { return false }
    t.waitUntilExit()
    return t.terminationStatus == 0
}

/// Whether something answers TCP on 127.0.0.1:port.
func listening(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

func runCluster(binDir: String, quick: Bool) throws -> LiveFigures {
    var figures = LiveFigures()
    guard let redisServer = tool("redis-server"), let nginx = tool("nginx") else {
        throw BenchError("the cluster group needs redis-server and nginx (scripts/setup installs them)")
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chartbench-cluster-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var processes: [Process] = []
    defer {
        for p in processes where p.isRunning { p.terminate(); p.waitUntilExit() }
        try? FileManager.default.removeItem(at: dir)
    }
    let config = dir.appendingPathComponent("cluster.json").path
    try clusterSpec.write(toFile: config, atomically: true, encoding: .utf8)
    func cwload(_ port: Int, _ session: String, _ args: [String], cpus: String? = nil) throws -> Load {
        try Load(binDir: binDir, [args[0], "--port", String(port), "--session", session] + args.dropFirst(), cpus: cpus)
    }

    // Redis, as scripts/cluster starts it: every write on disk before it answers.
    let redisPort = try freePort()
    let redisDir = dir.appendingPathComponent("redis").path
    try FileManager.default.createDirectory(atPath: redisDir, withIntermediateDirectories: true)
    processes.append(try spawn(redisServer, ["--port", String(redisPort), "--bind", "127.0.0.1", "--dir", redisDir,
                                             "--appendonly", "yes", "--appendfsync", "always", "--save", ""]))
    let readyBy = Date().addingTimeInterval(10)
    while !listening(redisPort) {
        guard Date() < readyBy else { throw BenchError("redis-server did not start") }
        Thread.sleep(forTimeInterval: 0.05)
    }
    let redisURL = "redis://127.0.0.1:\(redisPort)"
    var nodes: [LiveServer] = []
    for _ in 0..<3 {
        let node = try LiveServer.start(binDir: binDir, config: config, args: ["--redis", redisURL])
        processes.append(node.process)
        nodes.append(node)
    }
    // The single node of the baselines: a data folder, so that it too acknowledges a
    // change only once it is on disk (SQLite, --fsync always).
    let singleData = dir.appendingPathComponent("single").path
    var single = try LiveServer.start(binDir: binDir, config: config, args: ["--data", singleData, "--fsync", "always"])
    processes.append(single.process)

    // 1. Skew: one viewer on node 0 and one on node 1, appends through node 0; beside it
    //    two viewers of the single node.
    let appends = quick ? 100 : 400
    let now = Date().timeIntervalSince1970
    func skew(_ a: Int, _ b: Int) throws -> JSONValue {
        try cwload(a, "skew", ["skew", "--port2", String(b), "--series", "s", "--count", String(appends), "--rate", "20",
                               "--start", String(now), "--step", "0.1"]).result()
    }
    let clusterSkew = try skew(nodes[0].port, nodes[1].port)
    let singleSkew = try skew(single.port, single.port)
    for (name, r) in [("cluster", clusterSkew), ("single node", singleSkew)] {
        FileHandle.standardError.write(Data(("skew, \(name): \(Int(number(r, "answered"))) of \(appends) appends seen by both viewers, "
            + "skew p50 \(number(r, "skew_ms", "p50")) p99 \(number(r, "skew_ms", "p99")) max \(number(r, "skew_ms", "max")) ms, "
            + "append to frame p50 \(number(r, "a_ms", "p50")) / \(number(r, "b_ms", "p50")) ms\n").utf8))
    }
    figures.rows.append(("cluster_sync_skew_p99_ms", number(clusterSkew, "skew_ms", "p99"),
                         ("single_node_two_viewers_skew_p99_ms", number(singleSkew, "skew_ms", "p99")), "ms"))
    figures.rows.append(("cluster_append_to_frame_p99_ms", max(number(clusterSkew, "a_ms", "p99"), number(clusterSkew, "b_ms", "p99")),
                         ("single_append_to_frame_p99_ms", number(singleSkew, "a_ms", "p99")), "ms"))

    // 2. Ingest: binary appends of 10^6 points through one node, each acknowledged once
    //    Redis has it on disk; beside it the single node with its data folder.
    let points = quick ? 2_000_000 : 10_000_000
    func ingest(_ port: Int) throws -> JSONValue {
        try cwload(port, "bulk", ["ingest", "--series", "b", "--points", String(points), "--batch", "1000000", "--binary"]).result()
    }
    let clusterIngest = try ingest(nodes[0].port)
    let singleIngest = try ingest(single.port)
    FileHandle.standardError.write(Data("ingest: cluster \(number(clusterIngest, "seconds")) s, single \(number(singleIngest, "seconds")) s for \(points) points\n".utf8))
    guard number(clusterIngest, "accepted") == Double(points) else { throw BenchError("cluster ingest: \(clusterIngest)") }
    figures.rows.append(("cluster_ingest_points_per_s", number(clusterIngest, "points_per_s"),
                         ("single_durable_ingest_points_per_s", number(singleIngest, "points_per_s")), "/s"))

    // Fan-out: the most viewers (of those tried) that each get >= 30 frames/s on node 2
    //    while the feed goes through node 1, beside the same on the single node.
    //    `cpus`: where cwload runs. `refine`: after the first count that fails, halve the
    //    gap to the last that passed that many times.
    func fanout(feedPort: Int, viewPort: Int, label: String, cpus: String? = nil, refine: Int = 0) throws -> Double {
        let seconds = quick ? 4.0 : 8.0, warmup = 2.0
        func passes(_ count: Int) throws -> Bool {
            let f = try cwload(feedPort, "scroll", ["feed", "--series", "s0,s1,s2,s3", "--rate", "50",
                                                    "--duration", String(Double(count) / 500 + seconds + 3), "--warmup", String(warmup)], cpus: cpus)
            let r = try cwload(viewPort, "scroll", ["viewers", "--count", String(count), "--duration", String(seconds),
                                                    "--warmup", String(warmup + 1)], cpus: cpus).result()
            _ = try f.result()
            let connected = number(r, "connected"), minFps = number(r, "fps", "min")
            FileHandle.standardError.write(Data("fan-out, \(label), \(count): connected \(connected), fps min \(minFps) median \(number(r, "fps", "median"))\n".utf8))
            return connected == Double(count) && minFps >= 30
        }
        var best = 0, failed: Int? = nil
        for count in quick ? [200, 1000] : [250, 500, 1000, 1500, 2000] {
            guard try passes(count) else { failed = count; break }
            best = count
        }
        for _ in 0..<refine {
            guard let high = failed, high - best > 50 else { break }
            let mid = (best + high) / 2
            if try passes(mid) { best = mid } else { failed = mid }
        }
        return Double(best)
    }
    let clusterFanout = try fanout(feedPort: nodes[0].port, viewPort: nodes[1].port, label: "cluster")
    let singleFanout = try fanout(feedPort: single.port, viewPort: single.port, label: "single node")
    figures.rows.append(("cluster_fanout_viewers_30fps_per_node", clusterFanout, ("fanout_viewers_30fps_single_node", singleFanout), "viewers"))
    // The same with the measured node on a CPU of its own (CPU 0) and everything else
    //    (Redis, the other nodes, cwload's viewers and feed) on the others, for both: on
    //    this 2-core box a cluster node otherwise shares its cores with two more nodes and
    //    Redis, which the single node does not. Bisected twice past the steps above.
    let cpuCount = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    if cpuCount >= 2, tool("taskset") != nil {
        let rest = cpuCount == 2 ? "1" : "1-\(cpuCount - 1)", all = "0-\(cpuCount - 1)"
        let everyone = processes
        func pinned(_ measured: Process, _ run: () throws -> Double) throws -> Double {
            for p in everyone { pin(p, p === measured ? "0" : rest) }
            defer { for p in everyone { pin(p, all) } }
            return try run()
        }
        let clusterPinned = try pinned(nodes[1].process) {
            try fanout(feedPort: nodes[0].port, viewPort: nodes[1].port, label: "cluster, pinned", cpus: rest, refine: quick ? 0 : 2)
        }
        let singlePinned = try pinned(single.process) {
            try fanout(feedPort: single.port, viewPort: single.port, label: "single node, pinned", cpus: rest, refine: quick ? 0 : 2)
        }
        figures.rows.append(("cluster_fanout_viewers_30fps_per_node_pinned", clusterPinned,
                             ("fanout_viewers_30fps_single_node_pinned", singlePinned), "viewers"))
    }

    // 3. Catch-up: a new node started on the same Redis, from its start to the first
    //    frame of the bulk session it serves (`frame.json`, 1600x900); beside it the single
    //    node restarted on its data folder.
    func firstFrame(_ start: () throws -> LiveServer) throws -> (Double, LiveServer) {
        let t0 = Date()
        let server = try start()
        _ = try cwload(server.port, "bulk", ["get", "--series", "/api/sessions/bulk/frame.json?width=1600&height=900"]).result()
        return (Date().timeIntervalSince(t0) * 1000, server)
    }
    let (catchup, fourth) = try firstFrame { try LiveServer.start(binDir: binDir, config: config, args: ["--redis", redisURL]) }
    processes.append(fourth.process)
    let stats = try cwload(fourth.port, "bulk", ["get", "--series", "/api/sessions"]).result()
    let held = (stats["sessions"]?.arrayValue ?? []).first { $0["id"]?.stringValue == "bulk" }?["series"]?.arrayValue?.first?["points"]?.doubleValue
    guard held == Double(points) else { throw BenchError("the new node holds \(held ?? -1) points of bulk, not \(points)") }
    fourth.stop()
    single.stop()
    let (restart, restarted) = try firstFrame { try LiveServer.start(binDir: binDir, config: config, args: ["--data", singleData, "--fsync", "always"]) }
    processes.append(restarted.process)
    single = restarted
    let suffix = points == 10_000_000 ? "1e7" : String(format: "%.0e", Double(points)).replacingOccurrences(of: "+0", with: "")
    figures.rows.append(("cluster_catchup_ms_" + suffix, catchup, ("single_restart_first_frame_ms_" + suffix, restart), "ms"))
    single.stop()

    // 4. Failover: nginx in front of the three nodes, a viewer through it; the node it is
    //    on is killed (SIGKILL) and the figure runs to its first frame after that (it
    //    reconnects as the page does, first after 0.5 s). Twice, killing two of the three.
    let nginxPort = try freePort()
    for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    // The template beside this source (bench/chartbench/ -> deploy/), wherever the run starts.
    let templatePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/nginx-cluster.conf.template").path
    let template = try String(contentsOfFile: templatePath, encoding: .utf8)
    let upstreams = nodes.map { "        server 127.0.0.1:\($0.port) max_fails=1 fail_timeout=2s;\n" }.joined()
    let nginxConf = template.replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(nginxPort)")
        .replacingOccurrences(of: "@DIR@", with: dir.path).replacingOccurrences(of: "@UPSTREAMS@\n", with: upstreams)
    let confPath = dir.appendingPathComponent("nginx.conf").path
    try nginxConf.write(toFile: confPath, atomically: true, encoding: .utf8)
    processes.append(try spawn(nginx, ["-c", confPath, "-p", dir.path, "-g", "daemon off;"]))
    let nginxBy = Date().addingTimeInterval(10)
    while !listening(nginxPort) {
        guard Date() < nginxBy else { throw BenchError("nginx did not start (\(confPath))") }
        Thread.sleep(forTimeInterval: 0.05)
    }
    var failovers: [Double] = [], connects: [Double] = []
    for _ in 0..<2 {
        let viewer = try cwload(nginxPort, "fail", ["failover", "--duration", "30"])
        // Its first line: drawing. Then find its node by the viewers each node counts.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = viewer.out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("cwload failover stopped before drawing") }
            line.append(chunk)
        }
        connects.append(number(foundationJSON(String(decoding: line, as: UTF8.self)), "first_frame_ms"))
        var victim: LiveServer? = nil
        for node in nodes where node.process.isRunning {
            let s = try cwload(node.port, "fail", ["get", "--series", "/api/stats"]).result()
            let count = (s["sessions"]?.arrayValue ?? []).first { $0["id"]?.stringValue == "fail" }.map { number($0, "viewers") } ?? 0
            if count > 0 { victim = node }
        }
        guard let victim else { throw BenchError("no node counts the failover viewer") }
        let killedAt = Date().timeIntervalSince1970
        kill(victim.process.processIdentifier, SIGKILL)
        victim.process.waitUntilExit()
        let r = try viewer.result()
        failovers.append((number(r, "frame_at") - killedAt) * 1000)
        FileHandle.standardError.write(Data(String(format: "failover: killed %.3f s, break seen %.3f s, first frame again %.3f s after (%d reconnects)\n",
                                                   killedAt.truncatingRemainder(dividingBy: 1000), number(r, "lost_at") - killedAt,
                                                   number(r, "frame_at") - killedAt, Int(number(r, "reconnects"))).utf8))
    }
    figures.rows.append(("cluster_failover_ms", failovers.max() ?? .nan,
                         ("balancer_connect_to_first_frame_ms", connects.max() ?? .nan), "ms"))
    return figures
}

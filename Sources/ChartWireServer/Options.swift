import ChartSession
import SQLiteStore
import RedisStore
import Foundation

/// The command line (INTERFACE.md). Parsing is pure so tests can check every error.
struct Options: Equatable {
    var host = "127.0.0.1"
    var port = 8080
    var webDir: String? = nil
    var configFile: String? = nil
    var demo = true
    var fontDir = "/usr/share/fonts/truetype/dejavu"
    /// Folders of further font families a spec may name (`--fonts`, repeatable; `none`
    /// for none). Default: Debian's Liberation fonts (fonts-liberation), when installed.
    var familyDirs: [String]? = nil
    static let defaultFamilyDir = "/usr/share/fonts/truetype/liberation"
    /// The folders loaded: those given, else the default when it is there.
    var resolvedFamilyDirs: [String] {
        if let familyDirs { return familyDirs }
        return FileManager.default.fileExists(atPath: Self.defaultFamilyDir) ? [Self.defaultFamilyDir] : []
    }
    var quiet = false
    /// Seconds of silence after which a viewer is sent a heartbeat; 0 turns them off.
    var heartbeat = 5.0
    /// The theme preset of charts whose spec names none.
    var theme = "light"
    /// Origins (`scheme://host[:port]`, or `*`) whose pages may open WebSockets and
    /// write, beside the server's own origin (docs/security.md, "Access").
    var allowOrigins: [String] = []
    /// Host names the server answers to beside its defaults (docs/security.md).
    var allowHosts: [String] = []
    /// Hosts (`host` or `host:port`) a series' pull `source` URL may name (`--pull-allow`,
    /// repeatable); empty: the config file's `server.pullAllow`, else any (docs/feeding.md,
    /// "Pulled data").
    var pullAllow: [String] = []
    /// A PEM file of the CAs `https://` pull sources are checked against instead of the
    /// system's CA store (`--pull-ca`); nil: the config file's `server.pullCA`, else the
    /// system's store.
    var pullCA: String? = nil
    /// PEM certificate chain and private key: serve https and wss.
    var tlsCert: String? = nil
    var tlsKey: String? = nil
    /// Transport budgets and timeouts (`--limit NAME=VALUE`).
    var transportLimits = TransportLimits()
    /// Session limits (`--limit NAME=VALUE` too; docs/limits.md).
    var sessionLimits = SessionLimits()
    /// Reverse proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`, repeatable).
    var trustedProxies: [String] = []
    /// `--log-format`: text or json lines.
    var logFormat = LogFormat.text
    /// The data folder (`--data`); nil: memory only (`--data none`).
    var dataDir: String? = Options.defaultDataDir
    static let defaultDataDir = "chartwire-data"
    /// When the store syncs its commits to disk (`--fsync`).
    var fsync = SQLiteStore.Sync.always
    /// The cluster's Redis (`--redis`); nil: this node stands alone.
    var redis: RedisAddress? = nil
    /// A cluster node snapshots a session into Redis after this many inputs (`--redis-snapshot`).
    /// nil: not given (then the config file's `server.redisSnapshot`, else `defaultRedisSnapshot`).
    var redisSnapshot: Int? = nil
    /// Entries of a session's stream kept before its snapshot (`--redis-tail`); nil: not
    /// given (then the config file's `server.redisTail`, else `defaultRedisTail`).
    var redisTail: Int? = nil
    /// Bytes of a session's stream kept before its snapshot (`--redis-tail-bytes`); nil:
    /// not given (then the config file's `server.redisTailBytes`, else `defaultRedisTailBytes`).
    var redisTailBytes: Int? = nil
    static let defaultRedisSnapshot = 20_000
    static let defaultRedisTail = 1000
    /// 64 MB: four times the 16 MB of entries after which a snapshot is due, so a node
    /// a few snapshots behind still catches up from the stream (docs/cluster.md).
    static let defaultRedisTailBytes = 64 << 20

    /// The snapshot interval and stream tail (entries and bytes) a cluster node uses: the
    /// command line's, else the config file's `server` settings', else the defaults.
    func redisCounts(file server: ConfigSpec.ServerSettings) -> (snapshot: Int, tail: Int, tailBytes: Int) {
        (redisSnapshot ?? server.redisSnapshot ?? Self.defaultRedisSnapshot, redisTail ?? server.redisTail ?? Self.defaultRedisTail,
         redisTailBytes ?? server.redisTailBytes ?? Self.defaultRedisTailBytes)
    }

    /// The pull allow-list the server uses: `--pull-allow`'s, else the config file's
    /// `server.pullAllow`; empty: any host.
    func pullAllowList(file server: ConfigSpec.ServerSettings) -> [String] {
        pullAllow.isEmpty ? server.pullAllow ?? [] : pullAllow
    }

    /// The CA file https pull sources are checked against: `--pull-ca`'s, else the
    /// config file's `server.pullCA`; nil: the system's CA store.
    func pullCAFile(file server: ConfigSpec.ServerSettings) -> String? {
        pullCA ?? server.pullCA
    }

    struct UsageError: Error, Equatable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static let usage = """
        usage: wsserver [--host ADDR] [--port N] [--web DIR] [--config FILE] [--no-demo] [--font-dir DIR] [--fonts DIR|none]...
                        [--heartbeat S] [--theme NAME] [--data DIR|none] [--fsync always|batch|off]
                        [--trusted-proxy ADDR]... [--log-format text|json] [--redis redis://HOST:PORT] [--quiet]
                        [--redis-snapshot N] [--redis-tail N] [--redis-tail-bytes N]
                        [--allow-origin ORIGIN]... [--allow-host NAME]... [--pull-allow HOST[:PORT]]... [--pull-ca FILE]
                        [--tls-cert FILE --tls-key FILE]
                        [--limit NAME=VALUE]...
          --host ADDR     address to bind (default 127.0.0.1)
          --port N        TCP port, 0 picks a free one (default 8080)
          --web DIR       folder of the static client (default: the package's web/)
          --config FILE   JSON spec of the sessions to host (default: the demo sessions)
          --no-demo       start with no demo sessions
          --font-dir DIR  folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf
                          (default /usr/share/fonts/truetype/dejavu)
          --fonts DIR     folder of TTF/OTF files whose families a spec may name
                          (repeatable; none: no families but the chart font; default
                          /usr/share/fonts/truetype/liberation when installed)
          --heartbeat S   send a viewer a heartbeat after S seconds without a message,
                          so clients notice a dead connection (default 5, 0 = off)
          --theme NAME    theme of charts whose spec names none: light, dark, iOS7 or contrast
                          (default light)
          --data DIR      folder where sessions, their changes and data are kept, so a
                          restart or a crash loses nothing acknowledged
                          (default ./chartwire-data; none: memory only)
          --fsync MODE    always: every commit synced to disk (survives power loss);
                          batch: synced about once a second (survives a process crash);
                          off: never synced (default always; docs/persistence.md)
          --trusted-proxy ADDR
                          believe X-Forwarded-For from this address (a reverse proxy;
                          repeatable); from anyone else it is ignored
          --log-format F  the log on stderr: text or json, one line per event (default text)
          --redis URL     run as a node of a cluster: sessions, their changes and data
                          are kept in this Redis and shared with every node using it
                          (replaces --data; docs/cluster.md)
          --redis-snapshot N
                          a node snapshots a session into Redis once N inputs (or 16 MB
                          of them) were logged since its last snapshot (default 20000;
                          replaces the config file's server.redisSnapshot)
          --redis-tail N  entries of a session's stream kept before its snapshot, for
                          nodes slightly behind (default 1000; at least 1; replaces
                          the config file's server.redisTail)
          --redis-tail-bytes N
                          at most N bytes of those entries are kept (default 67108864,
                          64 MB; 0 to 1099511627776; replaces the config file's
                          server.redisTailBytes)
          --quiet         no log on stderr but fatal errors
          --allow-origin ORIGIN
                          also accept WebSocket upgrades and writes from pages of ORIGIN,
                          and let its pages embed the charts in frames (scheme://host[:port];
                          * = any); repeatable; replaces the config file's
                          server.allowOrigins. Default: the server's own origin, and
                          requests without Origin (docs/embedding.md)
          --allow-host NAME
                          also answer requests whose Host is NAME (repeatable). Default:
                          the bound address, and localhost, 127.0.0.1, [::1] when bound to
                          loopback; any name when bound to 0.0.0.0 or :: and none given
          --pull-allow HOST[:PORT]
                          the only hosts a series' pull source URL may name (repeatable;
                          replaces the config file's server.pullAllow; default: any;
                          docs/feeding.md, "Pulled data")
          --pull-ca FILE  check https pull sources against the CA certificates of this
                          PEM file instead of the system's CA store (replaces the config
                          file's server.pullCA)
          --tls-cert FILE, --tls-key FILE
                          PEM certificate (chain) and key: serve https:// and wss://
          --limit NAME=VALUE
                          set a limit (repeatable). Session limits (docs/limits.md):
                          \(SessionLimits.all.map(\.name).joined(separator: ", "))
                          transport limits (docs/security.md):
        """ + "\n" + TransportLimits.usage

    static func parse(_ args: [String]) throws(UsageError) -> Options {
        var o = Options()
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < args.count, !args[i].hasPrefix("--") else { throw UsageError(message: "\(flag) needs a value") }
            return args[i]
        }
        while i < args.count {
            let arg = args[i]
            switch arg {
            case "--host":
                o.host = try value(arg)
                guard !o.host.isEmpty else { throw UsageError(message: "--host needs an address") }
            case "--port":
                let v = try value(arg)
                guard let p = Int(v), (0...65535).contains(p) else {
                    throw UsageError(message: "--port: \"\(v)\" is not a port number (0 to 65535)")
                }
                o.port = p
            case "--web": o.webDir = try value(arg)
            case "--config": o.configFile = try value(arg)
            case "--font-dir": o.fontDir = try value(arg)
            case "--fonts":
                let v = try value(arg)
                if v == "none" { o.familyDirs = [] } else { o.familyDirs = (o.familyDirs ?? []) + [v] }
            case "--heartbeat":
                let v = try value(arg)
                guard let s = Double(v), s == 0 || (0.1...3600).contains(s) else {
                    throw UsageError(message: "--heartbeat: \"\(v)\" is not a number of seconds (0, or 0.1 to 3600)")
                }
                o.heartbeat = s
            case "--theme":
                let v = try value(arg)
                guard Theme.presets[v] != nil else {
                    throw UsageError(message: "--theme: \"\(v)\" is not a theme (" + Theme.presets.keys.sorted().joined(separator: ", ") + ")")
                }
                o.theme = v
            case "--allow-origin":
                let v = try value(arg)
                if let why = WebOrigin.problem(v) {
                    throw UsageError(message: "--allow-origin: \"\(v.prefix(100))\" is not an origin: \(why)")
                }
                o.allowOrigins.append(v == "*" ? v : WebOrigin.normalized(v))
            case "--allow-host":
                let v = try value(arg)
                guard !v.isEmpty, !v.contains("/"), !v.contains(" ") else {
                    throw UsageError(message: "--allow-host: \"\(v)\" is not a host name")
                }
                o.allowHosts.append(v.lowercased())
            case "--pull-allow":
                let v = try value(arg)
                guard ConfigSpec.isPullHost(v) else {
                    throw UsageError(message: "--pull-allow: \"\(v)\" is not a host or host:port")
                }
                o.pullAllow.append(v.lowercased())
            case "--pull-ca":
                let v = try value(arg)
                guard !v.isEmpty else { throw UsageError(message: "--pull-ca: expected the path of a PEM file of CA certificates") }
                o.pullCA = v
            case "--tls-cert": o.tlsCert = try value(arg)
            case "--tls-key": o.tlsKey = try value(arg)
            case "--limit":
                // Transport limits (TransportLimits.handles); other names are refused here.
                let v = try value(arg)
                // A transport limit by its name; any other name is a session limit's.
                let name = v.split(separator: "=", maxSplits: 1).first.map(String.init) ?? v
                if TransportLimits.table.contains(where: { $0.name == name }) || !v.contains("=") {
                    try o.transportLimits.set(v)
                } else if SessionLimits.all.contains(where: { $0.name == name }) {
                    do { try o.sessionLimits.set(v) } catch { throw UsageError(message: "--limit: \(error)") }
                } else {
                    throw UsageError(message: "--limit: unknown limit \"\(name)\" ("
                        + (TransportLimits.table.map(\.name) + SessionLimits.all.map(\.name)).joined(separator: ", ") + ")")
                }
            case "--trusted-proxy":
                let v = try value(arg)
                guard LWSServer.isAddress(v) else {
                    throw UsageError(message: "--trusted-proxy: \"\(v)\" is not an IP address")
                }
                o.trustedProxies.append(LWSServer.normalAddress(v))
            case "--log-format":
                let v = try value(arg)
                guard let f = LogFormat(rawValue: v) else { throw UsageError(message: "--log-format: \"\(v)\" is not text or json") }
                o.logFormat = f
            case "--data":
                let v = try value(arg)
                guard !v.isEmpty else { throw UsageError(message: "--data needs a folder, or none") }
                o.dataDir = v == "none" ? nil : v
            case "--fsync":
                let v = try value(arg)
                guard let mode = SQLiteStore.Sync(rawValue: v) else {
                    throw UsageError(message: "--fsync: \"\(v)\" is not a mode (always, batch or off)")
                }
                o.fsync = mode
            case "--redis":
                let v = try value(arg)
                guard let address = RedisAddress.parse(v) else {
                    throw UsageError(message: "--redis: \"\(v)\" is not redis://HOST:PORT")
                }
                o.redis = address
            case "--redis-snapshot", "--redis-tail":
                let v = try value(arg)
                guard let n = Int(v), ConfigSpec.redisCountRange.contains(n) else {
                    throw UsageError(message: "\(arg): \"\(v)\" is not a whole number from 1 to 100000000")
                }
                if arg == "--redis-tail" { o.redisTail = n } else { o.redisSnapshot = n }
            case "--redis-tail-bytes":
                let v = try value(arg)
                guard let n = Int(v), ConfigSpec.redisTailBytesRange.contains(n) else {
                    throw UsageError(message: "\(arg): \"\(v)\" is not a whole number from 0 to \(ConfigSpec.redisTailBytesRange.upperBound)")
                }
                o.redisTailBytes = n
            case "--no-demo": o.demo = false
            case "--quiet": o.quiet = true
            case "--help", "-h": throw UsageError(message: "help")
            default: throw UsageError(message: "unknown argument \"\(arg)\" (see --help)")
            }
            i += 1
        }
        if (o.tlsCert == nil) != (o.tlsKey == nil) {
            throw UsageError(message: "--tls-cert and --tls-key go together")
        }
        return o
    }
}

/// The transport's budgets and timeouts (docs/security.md, "Limits"), each settable
/// with `--limit NAME=VALUE`.
struct TransportLimits: Equatable {
    /// Bytes of request bodies and publisher batches held at once, all connections together.
    var bodyBudgetMB = 256
    /// Connections open at once from one client address.
    var connectionsPerAddress = 64
    /// WebSocket messages a viewer may send per second (sustained) ...
    var messagesPerSecond = 200
    /// ... and at once after a quiet spell.
    var messageBurst = 400
    /// Seconds a client has to send a whole request head.
    var headerTimeoutS = 10
    /// Seconds a client has to send a whole request body, once its head is in.
    var bodyTimeoutS = 60
    /// Longest request target (path and query).
    var maxURLBytes = 8192
    /// Largest request head (request line and headers).
    var maxHeadBytes = 16384

    /// Each limit: name, range, what it bounds.
    static var table: [(name: String, path: WritableKeyPath<TransportLimits, Int>, range: ClosedRange<Int>, help: String)] { [
        ("bodyBudgetMB", \.bodyBudgetMB, 1...65536, "MiB of request bodies and publisher batches in flight, all connections"),
        ("connectionsPerAddress", \.connectionsPerAddress, 1...100_000, "open connections per client address"),
        ("messagesPerSecond", \.messagesPerSecond, 1...1_000_000, "WebSocket messages per second per viewer"),
        ("messageBurst", \.messageBurst, 1...1_000_000, "WebSocket messages a viewer may send at once"),
        ("headerTimeoutS", \.headerTimeoutS, 1...3600, "seconds to send a request head"),
        ("bodyTimeoutS", \.bodyTimeoutS, 1...86400, "seconds to send a request body"),
        ("maxURLBytes", \.maxURLBytes, 256...16384, "longest request target (414 past it)"),
        ("maxHeadBytes", \.maxHeadBytes, 1024...49152, "largest request head (431 past it)"),
    ] }

    static var usage: String {
        let d = TransportLimits()
        return table.map { "            \($0.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \($0.help) (default \(d[keyPath: $0.path]))" }
            .joined(separator: "\n")
    }

    /// Whether `NAME=VALUE` names one of these limits.
    static func handles(_ assignment: String) -> Bool {
        let name = assignment.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
        return table.contains { $0.name == name }
    }

    mutating func set(_ assignment: String) throws(Options.UsageError) {
        guard let eq = assignment.firstIndex(of: "=") else {
            throw Options.UsageError(message: "--limit: \"\(assignment)\" is not NAME=VALUE")
        }
        let name = String(assignment[..<eq]), text = String(assignment[assignment.index(after: eq)...])
        guard let entry = Self.table.first(where: { $0.name == name }) else {
            throw Options.UsageError(message: "--limit: unknown limit \"\(name)\" (" + Self.table.map(\.name).joined(separator: ", ") + ")")
        }
        guard let v = Int(text), entry.range.contains(v) else {
            throw Options.UsageError(message: "--limit: \(name) must be a whole number from \(entry.range.lowerBound) to \(entry.range.upperBound), not \"\(text)\"")
        }
        self[keyPath: entry.path] = v
    }
}

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
    var quiet = false
    /// Seconds of silence after which a viewer is sent a heartbeat; 0 turns them off.
    var heartbeat = 5.0
    /// The theme preset of charts whose spec names none.
    var theme = "light"
    /// The data folder (`--data`); nil: memory only (`--data none`).
    var dataDir: String? = Options.defaultDataDir
    static let defaultDataDir = "chartwire-data"
    /// When the store syncs its commits to disk (`--fsync`).
    var fsync = SQLiteStore.Sync.always
    /// The cluster's Redis (`--redis`); nil: this node stands alone.
    var redis: RedisAddress? = nil

    struct UsageError: Error, Equatable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static let usage = """
        usage: wsserver [--host ADDR] [--port N] [--web DIR] [--config FILE] [--no-demo] [--font-dir DIR]
                        [--heartbeat S] [--theme NAME] [--data DIR|none] [--fsync always|batch|off]
                        [--redis redis://HOST:PORT] [--quiet]
          --host ADDR     address to bind (default 127.0.0.1)
          --port N        TCP port, 0 picks a free one (default 8080)
          --web DIR       folder of the static client (default: the package's web/)
          --config FILE   JSON spec of the sessions to host (default: the demo sessions)
          --no-demo       start with no demo sessions
          --font-dir DIR  folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf
                          (default /usr/share/fonts/truetype/dejavu)
          --heartbeat S   send a viewer a heartbeat after S seconds without a message,
                          so clients notice a dead connection (default 5, 0 = off)
          --theme NAME    theme of charts whose spec names none: light, dark or contrast
                          (default light)
          --data DIR      folder where sessions, their changes and data are kept, so a
                          restart or a crash loses nothing acknowledged
                          (default ./chartwire-data; none: memory only)
          --fsync MODE    always: every commit synced to disk (survives power loss);
                          batch: synced at checkpoints (survives a process crash);
                          off: never synced (default always; docs/persistence.md)
          --redis URL     run as a node of a cluster: sessions, their changes and data
                          are kept in this Redis and shared with every node using it
                          (replaces --data; docs/cluster.md)
          --quiet         no request log on stderr
        """

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
            case "--no-demo": o.demo = false
            case "--quiet": o.quiet = true
            case "--help", "-h": throw UsageError(message: "help")
            default: throw UsageError(message: "unknown argument \"\(arg)\" (see --help)")
            }
            i += 1
        }
        return o
    }
}

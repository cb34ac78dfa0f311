import CLibWebSockets
import ChartSession
import Foundation

/// `--log-format`: one line per event, as text or as a JSON object.
enum LogFormat: String, CaseIterable, Sendable { case text, json }

/// The server's log on stderr (docs/deploy.md, "Logs"): one line per event with a
/// level (`error`, `warn`, `info`) and an event name, fields after the message, text
/// or JSON. Repetitive lines are rate-limited per key: at most `burst` lines per
/// `window` seconds, then one line saying how many more were left out. `--quiet`
/// silences it all (start-up failures are printed by the command line, not here).
/// Nothing logged carries a token: callers pass paths without their query strings,
/// and no header is logged. Touched only from the service thread.
final class ServerLog {
    enum Level: String { case error, warn, info }

    let format: LogFormat
    let quiet: Bool
    /// Lines per key and window before the rest are counted instead.
    var burst = 10
    var window = 10.0
    /// Where lines go (tests collect them).
    var write: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    var clock: () -> Double = { Date().timeIntervalSince1970 }

    private struct Budget {
        var windowStart: Double
        var lines = 0
        var suppressed = 0
        var level: Level
        var event: String
    }
    private var budgets: [String: Budget] = [:]

    init(format: LogFormat, quiet: Bool) {
        self.format = format
        self.quiet = quiet
    }

    /// Logs one event. `key` groups lines for rate limiting (default: the event).
    func log(_ level: Level, _ event: String, _ message: String, _ fields: [(String, String)] = [], key: String? = nil) {
        guard !quiet else { return }
        let now = clock()
        let k = key ?? event
        var b = budgets[k] ?? Budget(windowStart: now, level: level, event: event)
        if now - b.windowStart >= window {
            report(&b, now: now)
            b = Budget(windowStart: now, level: level, event: event)
        }
        b.lines += 1
        if b.lines > burst {
            b.suppressed += 1
        } else {
            emit(level, event, message, fields, at: now)
        }
        budgets[k] = b
    }

    /// Reports the lines left out in windows that have ended (called from the clock
    /// tick, so a burst followed by silence is still accounted for); `all`: in every
    /// window (on the way out).
    func flush(all: Bool = false) {
        guard !quiet, !budgets.isEmpty else { return }
        let now = clock()
        for (k, var b) in budgets where all || now - b.windowStart >= window {
            report(&b, now: now)
            budgets[k] = nil
        }
    }

    private func report(_ b: inout Budget, now: Double) {
        guard b.suppressed > 0 else { return }
        emit(b.level, b.event, "\(b.suppressed) more like this in \(Int(window)) s were not logged",
             [("suppressed", String(b.suppressed))], at: now)
        b.suppressed = 0
    }

    private func emit(_ level: Level, _ event: String, _ message: String, _ fields: [(String, String)], at time: Double) {
        let stamp = Self.timestamp(time)
        switch format {
        case .json:
            let members: [(String, JSONValue)] = [("time", .string(stamp)), ("level", .string(level.rawValue)),
                                                  ("event", .string(event)), ("message", .string(message))]
                + fields.map { ($0.0, .string($0.1)) }
            write(String(decoding: Jansson.serialize(.object(members)), as: UTF8.self))
        case .text:
            var line = "\(stamp) \(level.rawValue) \(event): \(Self.oneLine(message))"
            for (k, v) in fields { line += " \(k)=\(Self.textValue(v))" }
            write(line)
        }
    }

    /// Control characters escaped, so an event is one line whatever it quotes.
    static func oneLine(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 || c.value == 0x7f { out += String(format: "\\x%02x", c.value) } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// A field value as text: quoted when it has a space, a quote or `=`.
    static func textValue(_ s: String) -> String {
        let plain = oneLine(s)
        guard plain.isEmpty || plain.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return plain }
        return "\"" + plain.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ t: Double) -> String {
        var seconds = time_t(t.rounded(.down))
        var tm = tm()
        gmtime_r(&seconds, &tm)
        let ms = Int((t - t.rounded(.down)) * 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
                      Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec), ms)
    }
}

/// libwebsockets' own error lines, into the server's log (warn, rate-limited as one
/// key). Set with `lws_set_log_level`; called on the service thread.
extension LWSServer {
    /// One answered request (POSTs, and every refusal): its level from the status, the
    /// reason of a refusal, rate-limited by status and route so a flood of appends or
    /// of the same mistake is a few lines and a count.
    func logRequest(_ wsi: OpaquePointer, _ ex: HTTPExchange, _ response: HTTPResponse) {
        guard !logger.quiet else { return }
        let route = ServerMetrics.route(method: ex.method, path: ex.path)
        let level: ServerLog.Level = response.status >= 500 ? .error : response.status >= 400 ? .warn : .info
        var message = "\(ex.method) \(ex.path) -> \(response.status)"
        if response.status >= 400, response.body.count < 4096, let json = try? Jansson.parse(response.body),
           let reason = json["error"]?.stringValue ?? json["message"]?.stringValue {
            message += ": " + reason
        }
        log(level, "http", message, [("status", String(response.status)), ("route", route), ("client", clientAddress(wsi))],
            key: "http \(response.status) \(route)")
    }
}

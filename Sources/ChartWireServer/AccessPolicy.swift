import ChartSession
import Foundation

/// Who may reach the server, as pure decisions over header text (docs/security.md,
/// "Access"): the `Host` names it answers to (against DNS rebinding), the origins whose
/// pages may open WebSockets and write (against cross-site requests), and the strict
/// reading of `Content-Length`.
struct AccessPolicy {
    /// Host names (lower case, IPv6 in brackets, no port) the server answers to; nil: any.
    let hosts: Set<String>?
    /// Origins allowed beside the server's own (lower case, default ports dropped).
    let origins: Set<String>
    let anyOrigin: Bool
    /// "https" when serving TLS, else "http": the scheme of the server's own origin.
    let scheme: String

    init(options: Options) {
        scheme = options.tlsCert != nil ? "https" : "http"
        anyOrigin = options.allowOrigins.contains("*")
        let s = scheme
        origins = Set(options.allowOrigins.filter { $0 != "*" }.map { Self.normalizeOrigin($0, defaultScheme: s) })
        let bound = options.host.lowercased()
        let wildcard = ["0.0.0.0", "::", "[::]", ""].contains(bound)
        if wildcard {
            hosts = options.allowHosts.isEmpty ? nil : Set(options.allowHosts.compactMap(Self.hostName))
        } else {
            var names = Set(options.allowHosts.compactMap(Self.hostName))
            names.insert(bound.contains(":") && !bound.hasPrefix("[") ? "[\(bound)]" : bound)
            if Self.isLoopback(bound) { names.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
            hosts = names
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }

    /// The name part of a `Host` header (`name[:port]`, `[v6][:port]`), lower case and
    /// without a trailing dot; nil when it is not a plausible host.
    static func hostName(_ header: String) -> String? {
        var h = trimmingOWS(header).lowercased()
        guard !h.isEmpty, !h.contains(where: { $0 == "/" || $0 == " " || $0 == "@" || $0 == "," }) else { return nil }
        if h.hasPrefix("[") {
            guard let close = h.firstIndex(of: "]") else { return nil }
            let rest = h[h.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(h[...close])
        }
        let colons = h.filter { $0 == ":" }.count
        if colons == 1, let c = h.firstIndex(of: ":") {
            guard h[h.index(after: c)...].allSatisfy(\.isNumber) else { return nil }
            h = String(h[..<c])
        } else if colons > 1 {
            h = "[\(h)]"  // a bare IPv6 address
        }
        if h.hasSuffix(".") { h.removeLast() }
        return h.isEmpty ? nil : h
    }

    /// Whether a request with this `Host` header is answered (nil header: no).
    func hostAllowed(_ header: String?) -> Bool {
        guard let header, let name = Self.hostName(header) else { return false }
        return hosts.map { $0.contains(name) } ?? true
    }

    /// `scheme://host[:port]` in lower case, without the scheme's default port.
    static func normalizeOrigin(_ origin: String, defaultScheme: String) -> String {
        WebOrigin.normalized(origin)
    }

    /// The server's own origin as the request addressed it (`Host`).
    func ownOrigin(host: String?) -> String? {
        guard let host else { return nil }
        return Self.normalizeOrigin("\(scheme)://\(host)", defaultScheme: scheme)
    }

    /// Whether a request carrying `Origin: origin` may open a WebSocket or write.
    /// No Origin (curl, scripts, same-origin GETs of older browsers): allowed.
    func originAllowed(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        if anyOrigin { return true }
        let o = Self.normalizeOrigin(origin, defaultScheme: scheme)
        if let own = ownOrigin(host: host), o == own { return true }
        return origins.contains(o)
    }

    /// Whether the origin is allowed and not the server's own: its responses carry the
    /// CORS headers.
    func isCrossOriginAllowed(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return false }
        let o = Self.normalizeOrigin(origin, defaultScheme: scheme)
        if let own = ownOrigin(host: host), o == own { return false }
        return anyOrigin || origins.contains(o)
    }

    /// Headers of every HTML page (`/`, `/gallery`, `/s/`, `/d/`, `/e/`): which pages may
    /// show it in a frame (docs/embedding.md). The same allow-list as WebSockets and
    /// writes: the server's own pages (`'self'`) and the listed origins; `*`: any page.
    /// Without listed origins also `X-Frame-Options: SAMEORIGIN`, for browsers that
    /// predate `frame-ancestors` (it cannot name other origins, and browsers that know
    /// `frame-ancestors` ignore it).
    var pageHeaders: [String: String] {
        if anyOrigin { return ["Content-Security-Policy": "frame-ancestors *"] }
        let csp = (["frame-ancestors 'self'"] + origins.sorted()).joined(separator: " ")
        return origins.isEmpty ? ["Content-Security-Policy": csp, "X-Frame-Options": "SAMEORIGIN"]
                               : ["Content-Security-Policy": csp]
    }

    enum Length: Equatable {
        case absent
        case bytes(Int)
        case invalid(String)
    }

    /// `s` without the spaces and tabs (HTTP's optional white space) at either end.
    /// (Foundation's `trimmingCharacters` bridges through `NSString` on Linux: it was
    /// 3 % of the server's CPU under the monitoring feed, two calls a request.)
    static func trimmingOWS(_ s: String) -> String {
        let u = s.utf8
        guard let first = u.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = u.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return first == u.startIndex && last == u.index(before: u.endIndex) ? s : String(decoding: u[first...last], as: UTF8.self)
    }

    /// `Content-Length` read strictly from its occurrences (each a header line): one
    /// run of 1 to 15 decimal digits. `abc`, `1e3`, `-1`, `+5`, `5, 5` and a second
    /// line (even with the same value) are invalid.
    static func contentLength(_ occurrences: [String]) -> Length {
        guard let first = occurrences.first else { return .absent }
        if occurrences.count > 1 { return .invalid("more than one Content-Length header") }
        let v = trimmingOWS(first)
        guard (1...15).contains(v.utf8.count), v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(v) else {
            return .invalid("Content-Length \"\(v.prefix(40))\" is not a number of bytes")
        }
        return .bytes(n)
    }
}

import Foundation

/// An entry of the server's origin allow-list (`--allow-origin`, the spec file's
/// `server.allowOrigins`; docs/security.md, "Access", and docs/embedding.md):
/// `scheme://host[:port]` with scheme http or https, or `*` alone for any origin.
/// Pure text checks, shared by the command line and the spec reader so both refuse
/// the same entries with the same reasons.
public enum WebOrigin {
    /// Why `text` is not an allow-list entry, or nil when it is one.
    public static func problem(_ text: String) -> String? {
        if text == "*" { return nil }
        if text.isEmpty { return "an empty origin" }
        if text.contains(where: { $0.isWhitespace }) { return "an origin has no spaces" }
        let lower = text.lowercased()
        if lower == "null" { return "\"null\" (sandboxed frames, file:// pages) cannot be allowed by name; use * to allow every origin" }
        guard let sep = lower.range(of: "://") else {
            return "an origin starts with http:// or https:// (scheme://host[:port])"
        }
        let scheme = lower[..<sep.lowerBound]
        guard scheme == "http" || scheme == "https" else {
            return "the scheme \"\(scheme.prefix(20))\" is not http or https"
        }
        var authority = lower[sep.upperBound...]
        if authority.hasSuffix("/") { authority = authority.dropLast() }   // a pasted page address: "https://a.example/"
        if let c = authority.firstIndex(where: { "/?#".contains($0) }) {
            return "an origin has no path, query or fragment (\"\(authority[c...].prefix(40))\"): scheme://host[:port] only"
        }
        if authority.contains("@") { return "an origin has no user name or password" }
        if authority.contains("*") { return "a wildcard is * alone (any origin), not part of a host name" }
        var host = Substring(authority)
        var port: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "an IPv6 address in brackets lacks its \"]\"" }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return "unexpected \"\(rest.prefix(20))\" after the IPv6 address" }
                port = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
            if host.contains(":") { return "an IPv6 address goes in brackets: http://[::1]:8080" }
        }
        if host.isEmpty || host == "[]" { return "the origin has no host" }
        if !host.hasPrefix("["), !host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) {
            return "the host \"\(host.prefix(40))\" has characters a host name cannot have (use the punycode form of an international name)"
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isNumber), let n = Int(port), (1...65535).contains(n) else {
                return "the port \"\(port.prefix(20))\" is not a number from 1 to 65535"
            }
        }
        return nil
    }

    /// The form the server compares and sends: lower case, no trailing slash, without
    /// the scheme's default port (`https://a.example:443` is `https://a.example`).
    public static func normalized(_ text: String) -> String {
        var o = text.trimmingCharacters(in: .whitespaces).lowercased()
        if o.hasSuffix("/") { o.removeLast() }
        if o.hasPrefix("http://"), o.hasSuffix(":80") { o.removeLast(3) }
        if o.hasPrefix("https://"), o.hasSuffix(":443") { o.removeLast(4) }
        return o
    }
}

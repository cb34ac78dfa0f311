import CLibWebSockets
import Foundation

/// Behind a reverse proxy (docs/deploy.md): whose request it is.
extension LWSServer {
    /// The address a request came from: the peer's, or, when the peer is one of the
    /// configured proxies (`--trusted-proxy`), the address its `X-Forwarded-For` names
    /// (the rightmost entry that is not itself a trusted proxy: what a client puts in
    /// front of the list is never believed). From anyone else the header is ignored.
    func clientAddress(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        let peer = lws_get_peer_simple(wsi, &buf, buf.count).map { Self.normalAddress(String(cString: $0)) } ?? "?"
        guard !options.trustedProxies.isEmpty, options.trustedProxies.contains(peer) else { return peer }
        let n = Int(lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR))
        guard n > 0 else { return peer }
        var header = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &header, Int32(n + 1), WSI_TOKEN_X_FORWARDED_FOR) >= 0 else { return peer }
        return Self.forwardedClient(String(cString: header), peer: peer, trusted: options.trustedProxies)
    }

    /// The client an `X-Forwarded-For` list names, read from the right past the
    /// trusted proxies; `peer` when it names none.
    static func forwardedClient(_ header: String, peer: String, trusted: [String]) -> String {
        let hops = header.split(separator: ",").map { normalAddress($0.trimmingCharacters(in: .whitespaces)) }
        for hop in hops.reversed() where !hop.isEmpty && !trusted.contains(hop) {
            // Only an address is believed (a proxy passes on whatever the client wrote).
            return isAddress(hop) ? hop : peer
        }
        return hops.first { isAddress($0) } ?? peer
    }

    /// `::ffff:127.0.0.1` is `127.0.0.1`.
    static func normalAddress(_ s: String) -> String {
        s.lowercased().hasPrefix("::ffff:") && s.contains(".") ? String(s.dropFirst(7)) : s
    }

    /// An IPv4 or IPv6 address literal.
    static func isAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }
}

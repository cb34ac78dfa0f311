import CTLSClient
import ChartSession
import Foundation

/// The pull source of a spec's `source` URL (docs/feeding.md, "Pulled data"): asks
/// `GET <url>?series=<id>&from=<x>&to=<x>` (HTTP/1.0, `Connection: close`) on a
/// worker thread, never on the event loop, and answers the session with the points of
/// the body (the JSON shape of an append, or the binary `CWA1` one). An `https://` URL
/// goes through TLS (OpenSSL, through CTLSClient): the peer verified against the
/// system's CA store or `--pull-ca`'s, and against the URL's host, TLS 1.2 at least.
///
/// Bounded: one answer may take `PullLimits.timeout` seconds in all (connecting, the
/// TLS handshake, sending, reading), `maxBytes` of body and `maxPoints` points; anything else (a
/// refused connection, a status other than 200, a cut or garbled body) is a failure the
/// session notes and logs. Sessions ask at most one range per series at a time, so the
/// threads are bounded by the pulling series.
final class HTTPDataSource: ChartDataSource, @unchecked Sendable {
    let url: String
    let limits: PullLimits
    /// Hosts (`host` or `host:port`) URLs may name; nil: any.
    let allowed: Set<String>?
    static let queue = DispatchQueue(label: "chartwire.pull", attributes: .concurrent)

    /// The server itself (host, port), for sources given as a path (`/api/demo/points`).
    let own: (host: String, port: UInt16)?
    /// The PEM file of the CAs `https://` sources are checked against (`--pull-ca`);
    /// nil: the system's CA store.
    let caFile: String?

    init(url: String, limits: PullLimits = .standard, allowed: Set<String>? = nil, own: (host: String, port: UInt16)? = nil,
         caFile: String? = nil) {
        self.url = url; self.limits = limits; self.allowed = allowed; self.own = own; self.caFile = caFile
    }

    func dataPoints(for request: PullRequest, reply: @escaping @Sendable (PullAnswer) -> Void) {
        let limits = limits, allowed = allowed, caFile = caFile
        // A path is this server's own: asked on its own address, whatever --pull-allow says.
        let given = self.url
        var target = given
        if given.hasPrefix("/"), let own { target = "http://" + (own.host.contains(":") ? "[\(own.host)]" : own.host) + ":\(own.port)" + given }
        let mine = target != given
        Self.queue.async { [target] in
            reply(Self.fetch(url: target, request: request, limits: limits, allowed: mine ? nil : allowed, caFile: caFile))
        }
    }

    /// The parts of an `http://` or `https://` URL.
    struct Target: Equatable {
        var host: String
        var port: UInt16
        /// Path and query, as given (`/` when none).
        var path: String
        /// `https://`: through TLS.
        var tls = false
    }

    static func parse(_ url: String) -> Target? {
        let tls = url.hasPrefix("https://")
        guard tls || url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(tls ? 8 : 7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var host = Substring(authority), port: UInt16 = tls ? 443 : 80
        if host.hasPrefix("[") {  // [v6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") { guard let p = UInt16(after.dropFirst()) else { return nil }; port = p } else if !after.isEmpty { return nil }
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = UInt16(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains("@") else { return nil }
        return Target(host: String(host), port: port, path: path, tls: tls)
    }

    /// The request's path: the URL's, with the range added to its query.
    static func requestPath(_ target: Target, _ r: PullRequest) -> String {
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)" }
        let series = r.series.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? r.series
        return target.path + (target.path.contains("?") ? "&" : "?") + "series=\(series)&from=\(number(r.from))&to=\(number(r.to))"
    }

    static func fetch(url: String, request: PullRequest, limits: PullLimits, allowed: Set<String>?, caFile: String? = nil) -> PullAnswer {
        guard let target = parse(url) else { return .failure("source \(url): not an http(s)://host[:port]/path URL") }
        let host = target.host.lowercased()
        if let allowed, !allowed.contains(host), !allowed.contains("\(host):\(target.port)") {
            return .failure("source \(url): host \(target.host) is not in --pull-allow")
        }
        let deadline = Date().timeIntervalSince1970 + limits.timeout
        let raw: [UInt8]
        switch exchange(target, path: requestPath(target, request), deadline: deadline, maxBytes: limits.maxBytes + 64 * 1024, caFile: caFile) {
        case let .failure(why): return .failure("source \(url): \(why)")
        case let .success(bytes): raw = bytes
        }
        switch body(of: raw, maxBytes: limits.maxBytes) {
        case let .failure(why): return .failure("source \(url): \(why)")
        case let .success(body):
            let kind = SeriesKind.allCases.first { $0.valueFields == request.fields } ?? .line
            do {
                let p = try Router.readPoints(body, kind: kind)
                guard p.xs.count <= request.maxPoints else {
                    return .failure("source \(url): \(p.xs.count) points in one answer; at most \(request.maxPoints) are taken")
                }
                return .points(xs: p.xs, values: p.values)
            } catch {
                return .failure("source \(url): the answer is not a points body: \(error.message)")
            }
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case message(String)
        /// The reason alone (what `lastError` and the warnings show after the URL).
        var description: String { switch self { case let .message(m): m } }
    }

    /// The TLS settings (trusted CAs) of each `--pull-ca` file, nil for the system's CA
    /// store: made once, shared by every connection, kept while the process runs.
    nonisolated(unsafe) private static var tlsConfigs: [String?: OpaquePointer] = [:]
    private static let tlsLock = NSLock()

    /// The TLS settings trusting `caFile`'s CAs (nil: the system's), or why there are none.
    static func tlsConfig(caFile: String?) -> Result<OpaquePointer, Failure> {
        tlsLock.lock()
        defer { tlsLock.unlock() }
        if let made = tlsConfigs[caFile] { return .success(made) }
        var err = [CChar](repeating: 0, count: 512)
        let made: OpaquePointer? = if let caFile { cw_tls_config_new(caFile, &err, err.count) } else { cw_tls_config_new(nil, &err, err.count) }
        guard let made else { return .failure(.message(String(cString: err))) }
        tlsConfigs[caFile] = made
        return .success(made)
    }

    /// Reads and writes of one connection: the socket itself, or TLS over it. Each
    /// answers bytes moved (> 0), 0 at the peer's close (reads), or what to wait for.
    enum IO { case bytes(Int), closed, wait(Int16), failed(String) }

    /// Connects, sends the request and reads until the peer closes, within `deadline`
    /// and `maxBytes`; an `https` target through TLS (handshake included in the deadline).
    static func exchange(_ t: Target, path: String, deadline: Double, maxBytes: Int, caFile: String? = nil) -> Result<[UInt8], Failure> {
        var config: OpaquePointer? = nil
        if t.tls {
            switch tlsConfig(caFile: caFile) {
            case let .failure(why): return .failure(why)
            case let .success(c): config = c
            }
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(t.host, String(t.port), &hints, &list) == 0, let first = list else {
            return .failure(.message("cannot resolve \(t.host)"))
        }
        defer { freeaddrinfo(list) }
        var fd: Int32 = -1
        var why = "cannot connect to \(t.host):\(t.port)"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai, fd < 0 {
            ai = a.pointee.ai_next
            let s = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            guard s >= 0 else { continue }
            if connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                if wait(s, events: Int16(POLLOUT), deadline: deadline) {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
                    if err == 0 { fd = s; break }
                    why = "cannot connect to \(t.host):\(t.port): \(String(cString: strerror(err)))"
                } else {
                    why = "no connection to \(t.host):\(t.port) within the timeout"
                }
            }
            close(s)
        }
        guard fd >= 0 else { return .failure(.message(why)) }
        defer { close(fd) }

        // The plain socket's reads and writes, or TLS's after its handshake.
        let writeSome: (UnsafeRawBufferPointer) -> IO
        let readSome: (UnsafeMutableRawBufferPointer) -> IO
        var tls: OpaquePointer? = nil
        defer { if let tls { cw_tls_free(tls) } }
        if let config {
            var err = [CChar](repeating: 0, count: 512)
            guard let made = cw_tls_new(config, fd, t.host, &err, err.count) else { return .failure(.message(String(cString: err))) }
            tls = made
            while true {
                let r = cw_tls_handshake(made, &err, err.count)
                if Int(r) == CW_TLS_OK { break }
                if Int(r) == CW_TLS_ERROR { return .failure(.message(String(cString: err))) }
                guard wait(fd, events: Int16(Int(r) == CW_TLS_WANT_WRITE ? POLLOUT : POLLIN), deadline: deadline) else {
                    return .failure(.message("no TLS handshake with \(t.host):\(t.port) within the timeout"))
                }
            }
            func io(_ n: Int) -> IO {
                if n > 0 { return .bytes(n) }
                if n == CW_TLS_CLOSED { return .closed }
                if n == CW_TLS_WANT_READ { return .wait(Int16(POLLIN)) }
                if n == CW_TLS_WANT_WRITE { return .wait(Int16(POLLOUT)) }
                return .failed(String(cString: err))
            }
            writeSome = { b in io(cw_tls_write(made, b.baseAddress, b.count, &err, err.count)) }
            readSome = { b in io(cw_tls_read(made, b.baseAddress, b.count, &err, err.count)) }
        } else {
            writeSome = { b in
                let n = send(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL))
                if n > 0 { return .bytes(n) }
                return n < 0 && (errno == EAGAIN || errno == EINTR) ? .wait(Int16(POLLOUT)) : .failed("the request could not be sent")
            }
            readSome = { b in
                let n = recv(fd, b.baseAddress, b.count, 0)
                if n > 0 { return .bytes(n) }
                if n == 0 { return .closed }
                return errno == EAGAIN || errno == EINTR ? .wait(Int16(POLLIN)) : .failed("the connection failed while reading")
            }
        }

        let hostHeader = t.host.contains(":") ? "[\(t.host)]" : t.host
        let defaultPort: UInt16 = t.tls ? 443 : 80
        let head = Array("GET \(path) HTTP/1.0\r\nHost: \(hostHeader)\(t.port == defaultPort ? "" : ":\(t.port)")\r\nAccept: application/json\r\nUser-Agent: chartwire\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < head.count {
            switch head[sent...].withUnsafeBytes({ writeSome($0) }) {
            case let .bytes(n): sent += n
            case let .wait(events):
                guard wait(fd, events: events, deadline: deadline) else { return .failure(.message("the request could not be sent within the timeout")) }
            case .closed: return .failure(.message("the request could not be sent"))
            case let .failed(why): return .failure(.message(why))
            }
        }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch buffer.withUnsafeMutableBytes({ readSome($0) }) {
            case let .bytes(n):
                out += buffer[0..<n]
                if out.count > maxBytes { return .failure(.message("the answer is larger than \(maxBytes) bytes")) }
                // A whole answer of a stated length: done, even if the peer keeps the connection.
                if let need = completeLength(out), out.count >= need { return .success(out) }
            case .closed: return .success(out)
            case let .failed(why): return .failure(.message(why))
            case let .wait(events):
                guard wait(fd, events: events, deadline: deadline) else {
                    return .failure(.message("no whole answer within the timeout"))
                }
            }
        }
    }

    /// The length of the whole answer (head and body) when its head is in and states a
    /// `Content-Length`; nil otherwise (read to the end).
    static func completeLength(_ raw: [UInt8]) -> Int? {
        guard let end = headEnd(raw) else { return nil }
        let head = String(decoding: raw[..<end], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let n = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) else { return nil }
        return end + 4 + n
    }

    /// Where the head ends (the index of its blank line's `\r\n\r\n`).
    static func headEnd(_ raw: [UInt8]) -> Int? {
        guard raw.count >= 4 else { return nil }
        for i in 0...(raw.count - 4) where raw[i] == 13 && raw[i + 1] == 10 && raw[i + 2] == 13 && raw[i + 3] == 10 { return i }
        return nil
    }

    /// Waits until `fd` is ready for `events` or `deadline` (Unix seconds) passes.
    static func wait(_ fd: Int32, events: Int16, deadline: Double) -> Bool {
        while true {
            let left = deadline - Date().timeIntervalSince1970
            guard left > 0 else { return false }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if r > 0 { return true }
            if r < 0, errno != EINTR { return false }
        }
    }

    /// The body of a whole HTTP/1.x answer of status 200 (chunked or not).
    static func body(of raw: [UInt8], maxBytes: Int) -> Result<[UInt8], Failure> {
        guard let end = headEnd(raw) else {
            return .failure(.message(raw.isEmpty ? "the source closed without answering" : "the answer has no complete HTTP head"))
        }
        let head = String(decoding: raw[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ")
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
            return .failure(.message("the answer is not HTTP"))
        }
        guard code == 200 else { return .failure(.message("status \(code) (\(status.dropFirst(2).joined(separator: " ")))")) }
        var body = Array(raw[(end + 4)...])
        let headers = lines.dropFirst().map { $0.lowercased() }
        if let cl = headers.first(where: { $0.hasPrefix("content-length:") }), let n = Int(cl.dropFirst(15).trimmingCharacters(in: .whitespaces)) {
            guard body.count >= n else { return .failure(.message("the answer was cut short: \(body.count) of \(n) bytes")) }
            body = Array(body[..<n])
        }
        if headers.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
            var out: [UInt8] = [], i = 0
            while true {
                guard let lineEnd = body[i...].firstIndex(of: 13), lineEnd + 1 < body.count,
                      let size = Int(String(decoding: body[i..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                                        .trimmingCharacters(in: .whitespaces), radix: 16) else {
                    return .failure(.message("a garbled chunked body"))
                }
                i = lineEnd + 2
                if size == 0 { break }
                guard i + size <= body.count else { return .failure(.message("the answer was cut short in a chunk")) }
                out += body[i..<(i + size)]
                i += size + 2
            }
            body = out
        }
        guard body.count <= maxBytes else { return .failure(.message("the answer is larger than \(maxBytes) bytes")) }
        return .success(body)
    }
}

import Testing
import ChartSession
@testable import ChartWireServer

/// The HTTP pull source's pieces that need no network: URLs, the query, answers.
@Suite struct HTTPDataSourceTests {
    @Test func urlsAndTheQuery() throws {
        #expect(HTTPDataSource.parse("http://h:81/p?k=1") == .init(host: "h", port: 81, path: "/p?k=1"))
        #expect(HTTPDataSource.parse("http://h") == .init(host: "h", port: 80, path: "/"))
        #expect(HTTPDataSource.parse("http://[::1]:9/x") == .init(host: "::1", port: 9, path: "/x"))
        #expect(HTTPDataSource.parse("http://h?q=1") == .init(host: "h", port: 80, path: "/?q=1"))
        #expect(HTTPDataSource.parse("ftp://h/") == nil && HTTPDataSource.parse("http://h:99999/") == nil
                && HTTPDataSource.parse("http://u@h/") == nil && HTTPDataSource.parse("http:///p") == nil)
        // https: port 443 unless given, an IPv6 literal in brackets, the same refusals.
        #expect(HTTPDataSource.parse("https://data.example/p?k=1") == .init(host: "data.example", port: 443, path: "/p?k=1", tls: true))
        #expect(HTTPDataSource.parse("https://h:8443") == .init(host: "h", port: 8443, path: "/", tls: true))
        #expect(HTTPDataSource.parse("https://[2001:db8::1]/x") == .init(host: "2001:db8::1", port: 443, path: "/x", tls: true))
        #expect(HTTPDataSource.parse("https://[::1]:9443?q") == .init(host: "::1", port: 9443, path: "/?q", tls: true))
        #expect(HTTPDataSource.parse("https://[::1/x") == nil && HTTPDataSource.parse("https://[::1]x/") == nil
                && HTTPDataSource.parse("https://u:p@h/") == nil && HTTPDataSource.parse("https://h:443x/") == nil
                && HTTPDataSource.parse("https:///p") == nil && HTTPDataSource.parse("HTTPS://h/") == nil)
        #expect(HTTPDataSource.parse("http://h")?.tls == false)
        let r = PullRequest(session: "s", series: "a b", fields: ["y"], from: 100, to: 1.5, maxPoints: 10)
        #expect(HTTPDataSource.requestPath(.init(host: "h", port: 80, path: "/p?k=1"), r) == "/p?k=1&series=a%20b&from=100&to=1.5")
        #expect(HTTPDataSource.requestPath(.init(host: "h", port: 80, path: "/p"), r).hasPrefix("/p?series="))
    }

    func body(_ text: String) -> Result<[UInt8], HTTPDataSource.Failure> {
        HTTPDataSource.body(of: Array(text.utf8), maxBytes: 100)
    }
    func failure(_ r: Result<[UInt8], HTTPDataSource.Failure>) -> String? {
        if case let .failure(.message(m)) = r { return m } else { return nil }
    }

    @Test func answersAreReadWholeOrRefused() throws {
        #expect(try body("HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nabcdEXTRA").get() == Array("abcd".utf8))
        #expect(try body("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").get() == Array("abcde".utf8))
        #expect(failure(body("HTTP/1.1 500 Internal Server Error\r\n\r\n")) == "status 500 (Internal Server Error)")
        #expect(failure(body("HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nabc"))?.contains("cut short") == true)
        #expect(failure(body("")) == "the source closed without answering")
        #expect(failure(body("SSH-2.0-OpenSSH\r\n\r\n")) == "the answer is not HTTP")
        #expect(failure(body("HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "x", count: 101)))?.contains("larger") == true)
        #expect(HTTPDataSource.completeLength(Array("HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nab".utf8)) == 42)
        #expect(HTTPDataSource.completeLength(Array("HTTP/1.0 200 OK\r\n\r\nab".utf8)) == nil)
    }

    @Test func aRefusedConnectionAndAHostNotAllowedAreFailures() throws {
        let r = PullRequest(session: "s", series: "a", fields: ["y"], from: 0, to: 1, maxPoints: 10)
        // Port 9 (discard) on loopback: nothing listens here.
        guard case let .failure(m) = HTTPDataSource.fetch(url: "http://127.0.0.1:9/p", request: r, limits: .standard, allowed: nil) else {
            Issue.record("no failure"); return
        }
        #expect(m.contains("cannot connect"), "\(m)")
        guard case let .failure(n) = HTTPDataSource.fetch(url: "http://10.0.0.1/p", request: r, limits: .standard, allowed: ["localhost"]) else {
            Issue.record("no failure"); return
        }
        #expect(n.contains("not in --pull-allow"))
        // https the same way, the reason alone after the URL.
        guard case let .failure(t) = HTTPDataSource.fetch(url: "https://127.0.0.1:9/p", request: r, limits: .standard, allowed: nil) else {
            Issue.record("no failure"); return
        }
        #expect(t == "source https://127.0.0.1:9/p: cannot connect to 127.0.0.1:9: Connection refused", "\(t)")
    }

    /// A --pull-ca that is not a readable PEM file of certificates is refused with why;
    /// the system's store and a good file give settings, made once.
    @Test func caFiles() throws {
        guard case let .failure(.message(m)) = HTTPDataSource.tlsConfig(caFile: "/nonexistent/ca.pem") else {
            Issue.record("no failure"); return
        }
        #expect(m.hasPrefix("cannot read CA certificates from /nonexistent/ca.pem: "), "\(m)")
        let system = try HTTPDataSource.tlsConfig(caFile: nil).get()
        #expect(try HTTPDataSource.tlsConfig(caFile: nil).get() == system)
    }
}

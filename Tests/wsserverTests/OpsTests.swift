import Testing
import Foundation
import ChartSession
@testable import ChartWireServer

/// The pieces of issue 27 that need no server: the exposition writer, gzip bodies,
/// InfluxDB credentials.
@Suite struct OpsTests {
    @Test func expositionEscapesAndFormats() {
        var out = PrometheusText()
        out.family("m_total", .counter, "a \\ help\nline")
        out.sample("m_total", [("a", "q\"uo\\te\nnl"), ("b", "plain é")], 3)
        out.sample("m_total", [], 0.25)
        out.sample("g", [], .infinity)
        out.sample("g", [], -.infinity)
        out.sample("g", [], .nan)
        out.sample("g", [], 1e20)
        #expect(out.text == """
            # HELP m_total a \\\\ help\\nline
            # TYPE m_total counter
            m_total{a="q\\"uo\\\\te\\nnl",b="plain é"} 3
            m_total 0.25
            g +Inf
            g -Inf
            g NaN
            g 1e+20

            """)
    }

    @Test func histogramsAreCumulative() {
        var out = PrometheusText()
        out.histogram("h", [("s", "x")], bounds: [0.1, 1], counts: [2, 0, 5], sum: 9.5)
        #expect(out.text == """
            h_bucket{s="x",le="0.1"} 2
            h_bucket{s="x",le="1"} 2
            h_bucket{s="x",le="+Inf"} 7
            h_sum{s="x"} 9.5
            h_count{s="x"} 7

            """)
    }

    @Test func gzipBodiesAreBounded() throws {
        // "hello\n" gzipped (gzip -n).
        let hello: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
                              0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00]
        #expect(Gzip.decode(hello, limit: 6) == .success(Array("hello\n".utf8)))
        #expect(Gzip.decode(hello, limit: 5) == .failure(.tooLarge))
        #expect(Gzip.decode(hello + hello, limit: 100) == .success(Array("hello\nhello\n".utf8)))
        #expect(Gzip.decode(Array(hello.dropLast(4)), limit: 100) == .failure(.corrupt))
        #expect(Gzip.decode(Array("hello".utf8), limit: 100) == .failure(.corrupt))
        #expect(Gzip.decode([], limit: 100) == .failure(.corrupt))
        #expect(Gzip.decode(hello + [0x00], limit: 100) == .failure(.corrupt))
    }

    @Test func influxCredentials() throws {
        func token(_ auth: String?, _ query: [String: String] = [:]) -> Result<String?, Router.BodyError> {
            Router.influxToken(HTTPRequest(method: "POST", path: "/write", query: query, body: [], authorization: auth))
        }
        let basic = "Basic " + Data("user:s3cret-token".utf8).base64EncodedString()
        #expect(try token(basic).get() == "s3cret-token")
        #expect(try token("Basic " + Data("user:".utf8).base64EncodedString()).get() == nil)
        #expect(try token(nil, ["u": "me", "p": "tok-12345"]).get() == "tok-12345")
        // A Bearer/Token header is the existing route's to read; it wins over `p`.
        #expect(try token("Token abc", ["p": "other"]).get() == nil)
        #expect(throws: Router.BodyError.self) { try token("Basic !!!").get() }
        #expect(throws: Router.BodyError.self) { try token("Basic " + Data("no-colon".utf8).base64EncodedString()).get() }
    }

    @Test func forwardedForOnlyPastTrustedProxies() throws {
        let trusted = ["127.0.0.1", "10.0.0.2"]
        // The rightmost hop that is not a trusted proxy is the client.
        #expect(LWSServer.forwardedClient("203.0.113.7", peer: "127.0.0.1", trusted: trusted) == "203.0.113.7")
        #expect(LWSServer.forwardedClient("6.6.6.6, 203.0.113.7, 10.0.0.2", peer: "127.0.0.1", trusted: trusted) == "203.0.113.7")
        #expect(LWSServer.forwardedClient("::ffff:198.51.100.1", peer: "127.0.0.1", trusted: trusted) == "198.51.100.1")
        // Not an address: the peer.
        #expect(LWSServer.forwardedClient("evil\nline", peer: "127.0.0.1", trusted: trusted) == "127.0.0.1")
        #expect(LWSServer.forwardedClient("", peer: "127.0.0.1", trusted: trusted) == "127.0.0.1")
        #expect(try Options.parse(["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"]).trustedProxies == ["127.0.0.1", "::1"])
        #expect(throws: Options.UsageError(message: "--trusted-proxy: \"nginx\" is not an IP address")) {
            try Options.parse(["--trusted-proxy", "nginx"])
        }
    }
}

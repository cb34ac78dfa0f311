import Testing
import Foundation
import ChartSession
import TestSupport
@testable import ChartWireServer

/// The pieces of issue 27 that need no server: the exposition writer, gzip bodies,
/// InfluxDB credentials.
@Suite struct OpsTests {
    /// The registry's exposition, read back: per-session families appear with the
    /// session, count what its observer is told, and go when the session does.
    @Test func metricsFollowTheSessions() throws {
        let metrics = ServerMetrics()
        let hub = SessionHub()
        hub.onAdd = { s in s.observer = metrics.observer(for: s) }
        hub.add(Session(id: "a\"b", title: "t", chart: Chart(title: nil, xAxes: [], yAxes: [], series: []), measurer: TestFonts.measurer))
        let session = try #require(hub.session("a\"b"))
        let m = try #require(session.observer as? SessionMetrics)
        m.published()
        m.frameSent(bytes: 100, age: nil)
        m.frameSent(bytes: 50, age: 0.003)
        m.frameSent(bytes: 0, age: 7)
        m.gestureToFrame(0.02)
        metrics.countPoints(5, feed: .lineProtocol)
        metrics.observePublish(0.002)
        metrics.record(method: "POST", path: "/api/sessions/x/series/y/append", binaryBody: false,
                       response: .error(404, "no"))
        let text = String(decoding: metrics.render(hub: hub, lifecycle: Lifecycle()), as: UTF8.self)
        let lines = Set(text.split(separator: "\n").map(String.init))
        // Label values escaped as the format asks.
        #expect(lines.contains(#"chartwire_frames_sent_total{session="a\"b"} 3"#))
        #expect(lines.contains(#"chartwire_frame_bytes_sent_total{session="a\"b"} 150"#))
        #expect(lines.contains(#"chartwire_publications_total{session="a\"b"} 1"#))
        #expect(lines.contains(#"chartwire_frame_age_seconds_bucket{session="a\"b",le="0.0025"} 0"#))
        #expect(lines.contains(#"chartwire_frame_age_seconds_bucket{session="a\"b",le="0.005"} 1"#))
        #expect(lines.contains(#"chartwire_frame_age_seconds_bucket{session="a\"b",le="5.0"} 1"#))
        #expect(lines.contains(#"chartwire_frame_age_seconds_bucket{session="a\"b",le="+Inf"} 2"#))
        #expect(lines.contains(#"chartwire_frame_age_seconds_count{session="a\"b"} 2"#))
        #expect(lines.contains(#"chartwire_gesture_to_frame_seconds_count{session="a\"b"} 1"#))
        #expect(lines.contains(#"chartwire_gesture_to_frame_seconds_bucket{session="a\"b",le="0.01"} 0"#))
        #expect(lines.contains(#"chartwire_gesture_to_frame_seconds_bucket{session="a\"b",le="0.025"} 1"#))
        #expect(lines.contains(#"chartwire_points_ingested_total{feed="line_protocol"} 5"#))
        #expect(lines.contains(#"chartwire_http_requests_refused_total{status="404",route="append"} 1"#))
        #expect(lines.contains("chartwire_publish_seconds_count 1"))
        #expect(lines.contains("chartwire_sessions 1.0"))
        #expect(lines.contains("# TYPE chartwire_frame_age_seconds histogram"))
        #expect(lines.contains("# TYPE chartwire_points_ingested_total counter"))

        // Gone with the session.
        _ = hub.remove("a\"b")
        let after = String(decoding: metrics.render(hub: hub, lifecycle: Lifecycle()), as: UTF8.self)
        #expect(!after.contains("a\\\"b"))
        #expect(!after.contains("chartwire_frames_sent_total"))
        #expect(after.contains("chartwire_sessions 0.0"))
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

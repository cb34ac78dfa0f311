import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Tokens and roles: who watches a session and who steers it.
@Suite struct AccessTests {
    static let access = SessionAccess(viewerTokens: ["watch-token-1"], controllerTokens: ["steer-token-1", "steer-token-2"], anonymous: nil)

    @Test func tokensGiveRoles() {
        #expect(Self.access.role(for: "watch-token-1") == .success(.viewer))
        #expect(Self.access.role(for: "steer-token-2") == .success(.controller))
        #expect(Self.access.role(for: "steer-token-") == .failure(.unknownToken))
        #expect(Self.access.role(for: "steer-token-22") == .failure(.unknownToken))
        #expect(Self.access.role(for: nil) == .failure(.tokenRequired))
        var anonymousViewers = Self.access
        anonymousViewers.anonymous = .viewer
        #expect(anonymousViewers.role(for: nil) == .success(.viewer))
        #expect(anonymousViewers.role(for: "wrong-token") == .failure(.unknownToken), "a wrong token is refused, not demoted")
        #expect(SessionAccess.open.role(for: nil) == .success(.controller))
        #expect(SessionAccess.same("abc", "abc") && !SessionAccess.same("abc", "abd") && !SessionAccess.same("abc", "abcd"))
        #expect(!SessionAccess.same("", String(repeating: "a", count: 256)), "lengths that differ by 256")
    }

    func session(_ access: SessionAccess) -> Session {
        let s = Fixtures.session(Fixtures.staticChart(modifiers: [ZoomPanModifier(), MouseWheelZoomModifier(), RolloverModifier()]))
        s.access = access
        return s
    }

    @Test func helloWithoutTheRightTokenIsRefused() throws {
        let s = session(Self.access)
        let v = s.connect()
        for token in [nil, "not-a-token"] {
            let reply = try #require(s.receive(.hello(Fixtures.size, format: .binary, token: token), from: v).first?.json)
            #expect(reply["code"] == "unauthorized")
            #expect(reply["message"]?.stringValue?.contains("not-a-token") == false, "the token is never echoed")
            #expect(s.nextFrame(for: v) == nil && !s.wantsFrame(v))
            #expect(s.receive(.wheel(WheelEvent(x: 100, y: 100, deltaY: 100)), from: v).first?.json?["code"] == "hello_required")
        }
        // The same connection may try again.
        let welcome = try #require(s.receive(.hello(Fixtures.size, format: .binary, token: "steer-token-1"), from: v).first?.json)
        #expect(welcome["type"] == "welcome" && welcome["role"] == "controller")
        #expect(s.nextFrame(for: v) != nil)
    }

    @Test func viewersWatchAndGetAnErrorWhenTheyTryToSteer() throws {
        let s = session(Self.access)
        let v = s.connect()
        let welcome = try #require(s.receive(.hello(Fixtures.size, format: .binary, token: "watch-token-1"), from: v).first?.json)
        #expect(welcome["role"] == "viewer")
        #expect(welcome["consumes"] == .array([]), "the page scrolls: this viewer steers nothing")
        _ = s.nextFrame(for: v); _ = s.receive(.ack, from: v)
        let plot = s.layout(size: Fixtures.size).plotRect
        let before = s.chart.resolvedRanges()
        let wheel = s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -300, time: 1000)), from: v)
        #expect(wheel.first?.json?["code"] == "read_only")
        #expect(s.chart.resolvedRanges() == before)
        // A drag: one error for its press, none for its moves; nothing moves.
        let down = s.receive(.pointer(PointerEvent(phase: .down, x: plot.midX, y: plot.midY, buttons: 1, time: 3000)), from: v)
        #expect(down.first?.json?["code"] == "read_only")
        let move = s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX + 80, y: plot.midY, buttons: 1, time: 3020)), from: v)
        #expect(move.isEmpty)
        _ = s.receive(.pointer(PointerEvent(phase: .up, x: plot.midX + 80, y: plot.midY, time: 3040)), from: v)
        #expect(s.chart.resolvedRanges() == before)
        // Hovering draws this viewer's rollover: that is its own, not the chart's.
        #expect(s.receive(.pointer(PointerEvent(phase: .move, x: plot.midX, y: plot.midY, buttons: 0, time: 5000)), from: v).isEmpty)
        let frame = try BinaryFrame.decodeFrame(try #require(s.nextFrame(for: v)?.bytes))
        guard case let .full(own)? = frame.layers.first(where: { $0.id == .modifier }) else { Issue.record("no own layer"); return }
        #expect(own.commands.contains { $0.op == "markers" })

        // A controller steers.
        let c = s.connect()
        _ = s.receive(.hello(Fixtures.size, format: .binary, token: "steer-token-2"), from: c)
        #expect(s.receive(.wheel(WheelEvent(x: plot.midX, y: plot.midY, deltaY: -300)), from: c).isEmpty)
        #expect(s.chart.resolvedRanges() != before)
    }

    @Test func specReadsAccessWithoutEverShowingATokenInAnError() throws {
        func decode(_ access: String) throws -> SessionAccess {
            try ConfigSpec.decode(foundationJSON(#"{"sessions":[{"id":"a","access":"# + access + #","chart":{"series":[]}}]}"#))[0].access
        }
        let a = try decode(#"{"viewerTokens":["watch-token-1"],"controllerTokens":["steer-token-1"],"anonymous":"viewer"}"#)
        #expect(a == SessionAccess(viewerTokens: ["watch-token-1"], controllerTokens: ["steer-token-1"], anonymous: .viewer))
        #expect(try decode(#"{"controllerTokens":["steer-token-1"]}"#).anonymous == nil, "with access, anonymous is none by default")
        do {
            _ = try decode(#"{"controllerTokens":["short"]}"#)
            Issue.record("a short token was accepted")
        } catch let e as JSONReadError {
            #expect(e.path == "$.sessions[0].access.controllerTokens[0]" && !e.description.contains("short"))
        }
        #expect(throws: JSONReadError.self) { _ = try decode(#"{"anonymous":"none"}"#) }
        #expect(throws: JSONReadError.self) { _ = try decode(#"{"anonymous":"everyone"}"#) }
        // The demo: one open, one read-only and one steerable session.
        let demo = try ConfigSpec.decode(foundationJSON(DemoSpec.json)).map(\.access)
        #expect(demo[0].isOpen)
        #expect(demo[1].anonymous == .viewer && demo[1].controllerTokens.isEmpty)
        #expect(demo[2].anonymous == .viewer && demo[2].controllerTokens == ["demo-controller"])
    }
}

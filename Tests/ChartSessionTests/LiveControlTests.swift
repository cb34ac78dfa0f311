import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Live control: patches over a running session's spec, whole replacements, and the
/// live state read back as a spec.
@Suite struct LiveControlTests {
    static let spec = """
        {"id": "live", "title": "Live", "chart": {
          "xAxes": [{"id": "x"}], "yAxes": [{"id": "y"}],
          "series": [
            {"id": "a", "name": "A", "data": {"x": [0, 1, 2], "y": [1, 3, 2]}},
            {"id": "b", "name": "B", "type": "column", "data": {"x": [0, 1, 2], "y": [2, 2, 2]}}
          ],
          "modifiers": [{"type": "zoomPan"}, {"type": "mouseWheelZoom"}]}}
        """

    func session() throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(Self.spec)).makeSession(measurer: TestFonts.measurer)
    }

    @Test func mergeFollowsJSONMergePatchAndMergesListsById() throws {
        let base = foundationJSON(#"{"a": 1, "b": {"c": 2, "d": 3}, "list": [{"id": "p", "v": 1}, {"id": "q", "v": 2}], "plain": [1, 2]}"#)
        let merged = try SpecPatch.merge(base, foundationJSON(#"""
            {"a": null, "b": {"c": 20}, "list": [{"id": "q", "remove": true}, {"id": "p", "w": 5}, {"id": "r", "v": 3}], "plain": [9]}
            """#))
        #expect(merged["a"] == nil)
        #expect(merged["b"] == foundationJSON(#"{"c": 20, "d": 3}"#))
        #expect(merged["list"] == foundationJSON(#"[{"id": "p", "v": 1, "w": 5}, {"id": "r", "v": 3}]"#))
        #expect(merged["plain"] == [9])
        #expect(throws: JSONReadError(path: "$.list[0]", message: "no entry with id \"zz\" to remove")) {
            try SpecPatch.merge(base, foundationJSON(#"{"list": [{"id": "zz", "remove": true}]}"#))
        }
    }

    @Test func patchKeepsPointsZoomAndModifiersItDoesNotTouch() throws {
        let s = try session()
        _ = try s.append(seriesId: "a", xs: [3, 4], values: [[5, 6]])
        s.chart.setRange("x", DoubleRange(1, 3))
        let zoomPan = s.chart.modifiers[0]
        let before = s.chart.version
        let version = try s.applyPatch(foundationJSON(#"""
            {"title": "Renamed", "chart": {"title": "Chart title", "series": [{"id": "a", "color": "#ff0000"}, {"id": "c", "name": "C"}]}}
            """#))
        #expect(version > before)
        #expect(s.title == "Renamed" && s.chart.title == "Chart title")
        #expect(s.chart.series.map(\.id) == ["a", "b", "c"])
        let a = s.chart.series[0]
        #expect(a.color == "#ff0000")
        #expect(a.data.arrays.xs == [0, 1, 2, 3, 4], "the appended points stay")
        #expect(s.chart.axis("x")?.userRange == DoubleRange(1, 3), "an unchanged axis keeps its zoom")
        #expect(s.chart.modifiers[0] === zoomPan, "untouched modifiers keep their state")
        #expect(s.specJSON?["title"] == "Renamed")

        // A changed axis shows its new definition; new modifiers replace the old.
        try s.applyPatch(foundationJSON(#"{"chart": {"xAxes": [{"id": "x", "title": "Time"}], "modifiers": [{"type": "rollover"}]}}"#))
        #expect(s.chart.axis("x")?.userRange == nil && s.chart.axis("x")?.config.title == "Time")
        #expect(s.chart.modifiers.count == 1 && s.chart.modifiers[0] is RolloverModifier && zoomPan.parentSurface == nil)

        // Data given in the patch replaces the series' points; removing a series works.
        try s.applyPatch(foundationJSON(#"{"chart": {"series": [{"id": "a", "data": {"x": [10, 11], "y": [1, 2]}}, {"id": "b", "remove": true}]}}"#))
        #expect(s.chart.series.map(\.id) == ["a", "c"])
        #expect(s.chart.series[0].data.arrays.xs == [10, 11])
    }

    @Test func aRefusedPatchChangesNothing() throws {
        let s = try session()
        _ = try s.append(seriesId: "a", xs: [3], values: [[4]])
        let version = s.chart.version, spec = s.specJSON
        let refused: [(String, String)] = [
            (#"{"chart": {"series": [{"id": "a", "xAxis": "nope"}]}}"#, "$.chart.series[0].xAxis"),
            (#"{"chart": {"series": [{"id": "a", "type": "pie"}]}}"#, "$.chart.series"),
            (#"{"chart": {"bogus": true}}"#, "$.chart.bogus"),
            (#"{"id": "other"}"#, "$.id"),
            (#"{"access": {"tokensFile": "/etc/passwd"}}"#, "$.access.tokensFile"),
        ]
        for (patch, path) in refused {
            #expect(throws: JSONReadError.self) { try s.applyPatch(foundationJSON(patch)) }
            do { try s.applyPatch(foundationJSON(patch)) } catch { #expect(error.path.hasPrefix(path), "\(patch): \(error)") }
        }
        #expect(s.chart.version == version && s.specJSON == spec)
        #expect(s.chart.series.map(\.id) == ["a", "b"] && s.chart.series[0].data.count == 4)
    }

    @Test func stackingSeriesThatDoNotShareTheirXIsRefused() throws {
        let s = try session()
        _ = try s.append(seriesId: "a", xs: [3], values: [[4]])
        // The spec's own points agree; the live ones (an appended x = 3) do not.
        let patch = #"{"chart": {"series": [{"id": "a", "stackIndex": 1}, {"id": "c", "data": {"x": [0, 1, 2, 5], "y": [1, 1, 1, 1]}, "stackIndex": 1}]}}"#
        #expect(throws: JSONReadError.self) { try s.applyPatch(foundationJSON(patch)) }
        #expect(s.chart.series.map(\.id) == ["a", "b"] && s.chart.series[0].stackIndex == nil)
        // Once they share their x, they stack.
        try s.applyPatch(foundationJSON(patch.replacingOccurrences(of: "2, 5]", with: "2, 3]")))
        #expect(s.chart.series[2].stacked?.arrays.ys == [2, 4, 3, 5])
    }

    @Test func viewersGetANewWelcomeAndTheChangedFrame() throws {
        let s = try session()
        let v = s.connect()
        _ = s.receive(.hello(Fixtures.size, format: .json, token: nil), from: v)
        s.publish(now: 0)
        #expect(s.nextFrame(for: v) != nil)
        _ = s.receive(.ack, from: v)
        #expect(s.nextFrame(for: v) == nil)
        try s.applyPatch(foundationJSON(#"{"title": "New title", "chart": {"title": "Drawn title", "modifiers": []}}"#))
        s.publish(now: 1)
        let next = s.nextFrame(for: v)
        guard case let .text(welcome)? = next else { Issue.record("no welcome: \(String(describing: next))"); return }
        #expect(welcome["type"] == "welcome" && welcome["title"] == "New title")
        #expect(welcome["consumes"] == .array([]), "no modifier: no gesture is consumed")
        guard case let .text(frame)? = s.nextFrame(for: v) else { Issue.record("no frame"); return }
        #expect(frame["type"] == "frame")
        #expect(String(describing: frame).contains("Drawn title"), "the frame draws the new chart title")
    }

    @Test func theWebSocketPatchNeedsAController() throws {
        let s = try session()
        s.access = SessionAccess(viewerTokens: ["watch-token-1"], controllerTokens: ["steer-token-1"], anonymous: nil)
        let watcher = s.connect(), steerer = s.connect()
        _ = s.receive(.hello(Fixtures.size, format: .binary, token: "watch-token-1"), from: watcher)
        _ = s.receive(.hello(Fixtures.size, format: .binary, token: "steer-token-1"), from: steerer)
        let patch = foundationJSON(#"{"type": "patch", "spec": {"title": "Steered"}}"#)
        #expect(s.receive(json: patch, from: watcher).first?.json?["code"] == "read_only")
        #expect(s.title == "Live")
        #expect(s.receive(json: patch, from: steerer).first?.json?["type"] == "patched")
        #expect(s.title == "Steered")
        let bad = foundationJSON(#"{"type": "patch", "spec": {"chart": {"series": [{"id": "a", "type": "nope"}]}}}"#)
        let reply = try #require(s.receive(json: bad, from: steerer).first?.json)
        #expect(reply["code"] == "bad_patch" && reply["message"]?.stringValue?.contains("$.chart.series[0].type") == true)

        // Access patched so that the watcher's token no longer opens the session.
        #expect(s.receive(json: foundationJSON(#"{"type": "patch", "spec": {"access": {"viewerTokens": ["other-token-1"]}}}"#), from: steerer)
            .first?.json?["type"] == "patched")
        #expect(s.nextFrame(for: watcher)?.json?["code"] == "unauthorized")
        #expect(s.nextFrame(for: watcher) == nil && !s.wantsFrame(watcher))
    }

    @Test func theLiveSpecLoadsBackToTheSameChart() throws {
        let s = try session()
        s.access = SessionAccess(viewerTokens: [], controllerTokens: ["steer-token-1"], anonymous: .viewer)
        try s.applyPatch(foundationJSON(#"{"access": {"controllerTokens": ["steer-token-1"], "anonymous": "viewer"}}"#))
        _ = try s.append(seriesId: "a", xs: [3, 4], values: [[.nan, 6]])
        s.chart.setRange("x", DoubleRange(0.5, 3.5))
        s.chart.setHidden("b", true)
        let spec = try #require(s.liveSpec(includeData: true))
        #expect(spec["access"]?["controllerTokens"] == nil, "tokens are never sent back")
        #expect(spec["chart"]?["xAxes"]?.arrayValue?.first?["visibleRange"] == [0.5, 3.5])

        var json = spec
        // Tokens have to be put back before loading it.
        if case var .object(root) = json, let i = root.firstIndex(where: { $0.0 == "access" }) {
            root[i].1 = foundationJSON(#"{"controllerTokens": ["steer-token-1"], "anonymous": "viewer"}"#)
            json = .object(root)
        }
        let copy = try ConfigSpec.decodeSession(json).makeSession(measurer: TestFonts.measurer)
        #expect(copy.chart.axis("x")?.userRange == DoubleRange(0.5, 3.5))
        #expect(copy.chart.series[1].isHidden)
        let (xs, ys) = copy.chart.series[0].data.arrays
        #expect(xs == [0, 1, 2, 3, 4] && ys[3].isNaN && ys[4] == 6)
        let size = ViewerSize(width: 640, height: 400, dpr: 1)
        #expect(copy.displayList(size: size) == s.displayList(size: size), "the copy draws the same chart")
    }

    @Test func replacingStartsFromTheSpecAlone() throws {
        let s = try session()
        _ = try s.append(seriesId: "a", xs: [3], values: [[4]])
        let spec = try ConfigSpec.decodeSession(foundationJSON(#"{"id": "live", "chart": {"series": [{"id": "a"}]}}"#))
        try s.replace(with: spec)
        #expect(s.title == "live" && s.chart.series.count == 1 && s.chart.series[0].data.isEmpty)
        #expect(s.chart.modifiers.count == ModifierSpec.defaults.count)
    }
}

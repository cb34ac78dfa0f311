import Foundation
import Testing
import LayoutEngine
import TestSupport
@testable import ChartSession

/// Random charts: random axis sets (numeric, time, logarithmic, category; any side,
/// inner, turned, hidden, with minor ticks and label formats), random data over ranges
/// from a millisecond to a century and magnitudes from 1e-6 to 1e12, random canvas
/// sizes. Every layout keeps its invariants, no command carries NaN or infinity, and
/// the same spec gives the same display list.
@Suite struct AxisPropertyTests {
    static func floats(_ c: DrawCommand) -> [Float] {
        switch c {
        case let .polyline(points, _, width, dash): return points + [width] + dash
        case let .segments(coords, _, width, dash): return coords + [width] + dash
        case let .rect(x, y, w, h, _, _, lineWidth): return [x, y, w, h, lineWidth]
        case let .text(x, y, _, _, _, _, _, angle): return [x, y, angle]
        case let .columns(line): return [line.x0, line.dx, line.y0, line.dy, line.width]
        case let .markers(m): return [m.size, m.lineWidth, m.x0, m.y0, m.unit]
        case let .bars(b): return [b.lineWidth, b.x0, b.y0, b.unit]
        case let .band(b): return [b.top, b.bottom, b.a.x0, b.a.y0, b.b.x0, b.b.y0]
        case let .wedges(w): return [w.cx, w.cy, w.r0, w.r1, w.lineWidth] + w.wedges.flatMap { [$0.a0, $0.a1, $0.offset] }
        case let .polygon(points, _, g): return points + (g.map { [$0.x0, $0.y0, $0.x1, $0.y1] } ?? [])
        case let .clip(x, y, w, h): return [x, y, w, h]
        case .unclip: return []
        case let .opacity(a): return [a]
        case let .image(x, y, w, h, _): return [x, y, w, h]
        }
    }

    /// A random spec (JSON text) and the size to draw it at.
    static func randomChart(_ rng: inout SplitMix) -> (String, ViewerSize) {
        let n = 40 + Int(rng.next() % 300)
        var xAxes: [String] = [], yAxes: [String] = [], series: [String] = []
        var xValues: [[Double]] = []
        for i in 0..<(1 + Int(rng.next() % 2)) {
            var fields = [#""id":"x\#(i)""#]
            fields.append(#""alignment":"\#(rng.pick(["bottom", "top", "auto"]))""#)
            let kind = rng.pick(["numeric", "numeric", "time", "logarithmic", "category"])
            fields.append(#""type":"\#(kind)""#)
            let xs: [Double]
            switch kind {
            case "time":
                let span = pow(10, -3 + rng.unit() * 12.5), start = 1e9 + rng.unit() * 1e9
                xs = (0..<n).map { start + span * Double($0) / Double(n - 1) }
                fields.append(#""timeZone":"\#(rng.pick(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu"]))""#)
                if rng.chance(0.2) { fields.append(#""weekends":true"#) }
                if rng.chance(0.2) {
                    fields.append(#""exclude":[{"every":"day","from":"17:00","to":"09:00"},{"every":"year","on":"12-25","days":2},"#
                                  + #"{"every":"month","on":"last Fri"},{"date":"2001-09-11","days":3},{"every":"year","on":"12-24","from":"13:00"},"#
                                  + #"{"every":"month","on":"15","days":2,"from":"22:00","to":"02:30"}]"#)
                }
            case "logarithmic":
                let lo = pow(10, -6 + rng.unit() * 10), decades = 0.1 + rng.unit() * 8
                xs = (0..<n).map { lo * pow(10, decades * Double($0) / Double(n - 1)) }
            case "category":
                let names = (0..<(1 + Int(rng.next() % 40))).map { "\"Category \($0)\"" }
                fields.append(#""categories":[\#(names.joined(separator: ","))]"#)
                xs = (0..<n).map { Double($0 % names.count) }.sorted()
            default:
                let magnitude = pow(10, -6 + rng.unit() * 18), start = (rng.unit() - 0.5) * magnitude * 4
                xs = (0..<n).map { start + magnitude * Double($0) / Double(n - 1) }
                fields.append(#""labelFormat":"\#(rng.pick(["auto", "si", "decimal"]))""#)
                if rng.chance(0.3) { fields.append(#""minorTicks":"auto""#) }
                if rng.chance(0.15) { fields.append(#""tickMultiplier":\#(rng.pick([0.25, 15, 1e6]))"#) }
            }
            if rng.chance(0.25) { fields.append(#""labelAngle":\#(rng.pick([-90, -45, -30, 45, 90]))"#) }
            if rng.chance(0.1) { fields.append(#""isCenterAxis":true"#) }
            if rng.chance(0.1) { fields.append(#""visibility":"\#(rng.pick(["hidden", "hiddenKeepingSpace"]))""#) }
            if rng.chance(0.5) { fields.append(#""title":"X axis \#(i)""#) }
            xAxes.append("{" + fields.joined(separator: ",") + "}")
            xValues.append(xs)
        }
        for j in 0..<(1 + Int(rng.next() % 3)) {
            var fields = [#""id":"y\#(j)""#, #""alignment":"\#(rng.pick(["left", "right", "auto"]))""#]
            let log = rng.chance(0.2)
            if log { fields.append(#""type":"logarithmic""#) }
            if rng.chance(0.3) { fields.append(#""minorTicks":"auto","minorGridLines":true"#) }
            if rng.chance(0.1) { fields.append(#""isCenterAxis":true,"axisPositionValue":\#(rng.unit() * 10)"#) }
            if rng.chance(0.2) { fields.append(#""labelSpace":"\#(rng.pick(["current", "minPresentedSize", "maxPresentedSize"]))""#) }
            if rng.chance(0.5) { fields.append(#""title":"Y axis \#(j)""#) }
            yAxes.append("{" + fields.joined(separator: ",") + "}")
            let xi = Int(rng.next() % UInt64(xValues.count))
            let magnitude = pow(10, -6 + rng.unit() * 18)
            var v = log ? magnitude : (rng.unit() - 0.5) * magnitude
            let ys = xValues[xi].map { _ -> Double in
                v = log ? v * (0.8 + rng.unit() * 0.45) : v + (rng.unit() - 0.5) * magnitude / 10
                return v
            }
            func list(_ a: [Double]) -> String { a.map { String($0) }.joined(separator: ",") }
            series.append(#"{"id":"s\#(j)","xAxis":"x\#(xi)","yAxis":"y\#(j)","data":{"x":[\#(list(xValues[xi]))],"y":[\#(list(ys))]}}"#)
        }
        let stacked = rng.chance(0.15) ? #""axisLayout":{"left":"stacked"},"# : ""
        let spec = #"{"sessions":[{"id":"r","chart":{"# + stacked + #""title":"Random","xAxes":["# + xAxes.joined(separator: ",")
            + #"],"yAxes":["# + yAxes.joined(separator: ",") + #"],"series":["# + series.joined(separator: ",") + "]}}]}"
        let size = ViewerSize(width: 120 + Int(rng.next() % 1700), height: 120 + Int(rng.next() % 1100), dpr: rng.pick([1.0, 2.0]))
        return (spec, size)
    }

    @Test func randomChartsStaySound() throws {
        var rng = SplitMix(seed: 2026)
        for i in 0..<400 {
            let (spec, size) = Self.randomChart(&rng)
            let decoded = try ConfigSpec.decode(foundationJSON(spec))
            let s = decoded[0].makeSession(measurer: TestFonts.measurer)
            let list = s.displayList(size: size)
            let layout = s.layout(size: size)
            #expect(layout.invariantViolations() == [], "chart \(i) at \(size): \(spec.prefix(600))")
            for layer in list.layers {
                for c in layer.commands where !Self.floats(c).allSatisfy(\.isFinite) {
                    Issue.record("chart \(i): non-finite number in \(c.json.compactText.prefix(300))")
                }
            }
            let again = try ConfigSpec.decode(foundationJSON(spec))[0].makeSession(measurer: TestFonts.measurer)
            #expect(again.displayList(size: size) == list, "chart \(i) differs on a second build")
        }
    }
}

import Foundation
import LayoutEngine
import Testing
import TestSupport
@testable import ChartSession

/// No finite data, however extreme, may crash the frame builder or put a NaN or an
/// infinity into a display list (issue 25: `{"x":[-1e308,1e308],"y":[0,1]}` appended to
/// a line series killed the server with SIGILL at the next frame).
@Suite struct ExtremeValueTests {
    static let sizes = [ViewerSize(width: 1, height: 1, dpr: 1), ViewerSize(width: 300, height: 200, dpr: 2),
                        ViewerSize(width: 1200, height: 700, dpr: 1), ViewerSize(width: 57, height: 913, dpr: 0.25)]

    /// Data that overflows spans, sums and squares, and that sits below pixel resolution.
    static let xSets: [[Double]] = [
        [-1e308, 1e308],
        [-.greatestFiniteMagnitude, 0, .greatestFiniteMagnitude],
        [1e308.nextDown, 1e308],
        [0, .leastNonzeroMagnitude],
        [-0.0, 0],
        [-1e308, -1e308.nextDown, 5, 1e300],
    ]
    static let ySets: [[Double]] = [
        [0, 1, 0.5, 2, 3, 4],
        [-1e308, 1e308, -1e308, 1e308, 0, 1e308],
        [.greatestFiniteMagnitude, .greatestFiniteMagnitude, 1, -.greatestFiniteMagnitude, 7, 1e-320],
        [.leastNonzeroMagnitude, 0, -.leastNonzeroMagnitude, 0, 1, 1],
    ]
    /// Visible ranges set by the spec (nil: automatic).
    static let ranges: [(Double, Double)?] = [nil, (-1e308, 1e308), (1e308.nextDown, 1e308), (0, 5e-324), (-5, 5)]

    static func json(_ v: [Double]) -> String { "[" + v.map { "\($0)" }.joined(separator: ",") + "]" }

    /// Every number of the display list at every size, with the paths of those not finite.
    static func nonFinite(_ session: Session) -> [String] {
        var bad: [String] = []
        for size in sizes {
            func walk(_ j: JSONValue, _ path: String) {
                switch j {
                case let .double(d) where !d.isFinite: bad.append("\(size.width)x\(size.height) \(path) = \(d)")
                case let .array(a): for (i, e) in a.enumerated() { walk(e, "\(path)[\(i)]") }
                case let .object(o): for (k, e) in o { walk(e, "\(path).\(k)") }
                default: break
                }
            }
            walk(session.displayList(size: size).json, "")
        }
        // The binary encoding a viewer is sent.
        let viewer = session.connect()
        _ = session.receive(.hello(sizes[1], format: .binary, token: nil), from: viewer)
        _ = session.nextFrame(for: viewer)
        session.disconnect(viewer)
        return bad
    }

    static func session(_ spec: String) throws -> Session {
        try ConfigSpec.decodeSession(foundationJSON(spec)).makeSession(measurer: TestFonts.measurer)
    }

    static func data(_ kind: SeriesKind, xs: [Double], ys: [Double]) -> String {
        var fields = [#""x":\#(json(xs))"#]
        if kind == .candlestick || kind == .ohlc {
            // Valid candles: low and high enclose open and close.
            let open = (0..<xs.count).map { ys[$0 % ys.count] }, close = (0..<xs.count).map { ys[($0 + 1) % ys.count] }
            fields += [#""open":\#(json(open))"#, #""close":\#(json(close))"#,
                       #""high":\#(json(zip(open, close).map { max($0, $1) }))"#, #""low":\#(json(zip(open, close).map { min($0, $1) }))"#]
            return "{" + fields.joined(separator: ",") + "}"
        }
        for (k, f) in kind.valueFields.enumerated() {
            // Each field its own rotation of the values (candles: open, high, low, close).
            let v = (0..<xs.count).map { ys[($0 + k) % ys.count] }
            fields.append(#""\#(f)":\#(json(f == "size" ? v.map(abs) : v))"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func axis(_ id: String, _ extra: String, range: (Double, Double)?) -> String {
        var s = #"{"id":"\#(id)""# + extra
        if let r = range { s += #","visibleRange":[\#(r.0),\#(r.1)]"# }
        return s + "}"
    }

    /// Each series kind (bars: columns on a rotated chart), with every data set and
    /// visible range, on numeric axes.
    @Test(arguments: ["line", "step", "area", "band", "scatter", "bubble", "column", "bars", "candlestick", "ohlc"])
    func everyKindStaysFinite(_ name: String) throws {
        let kind = name == "bars" ? SeriesKind.column : SeriesKind(rawValue: name)!
        let (xAlign, yAlign) = name == "bars" ? ("left", "bottom") : ("bottom", "left")
        for xs in Self.xSets {
            for ys in Self.ySets {
                for (xr, yr) in zip(Self.ranges, Self.ranges.reversed()) {
                    let spec = #"""
                        {"id":"e","chart":{"xAxes":[\#(Self.axis("x", #","alignment":"\#(xAlign)""#, range: xr))],
                         "yAxes":[\#(Self.axis("y", #","alignment":"\#(yAlign)""#, range: yr))],
                         "series":[{"id":"s","type":"\#(kind.rawValue)","data":\#(Self.data(kind, xs: xs, ys: ys))}]}}
                        """#
                    let bad = try Self.nonFinite(Self.session(spec))
                    #expect(bad.isEmpty, "\(name) x=\(xs) y=\(ys) ranges \(String(describing: xr)) \(String(describing: yr)): \(bad.prefix(3))")
                }
            }
        }
    }

    /// The append of the report: accepted, and the next frames build.
    @Test(arguments: ["line", "step", "area", "scatter", "column"])
    func theReportedAppend(_ kind: String) throws {
        let s = try Self.session(#"{"id":"a","chart":{"series":[{"id":"s","type":"\#(kind)"}]}}"#)
        #expect(try s.append(seriesId: "s", xs: [-1e308, 1e308], ys: [0, 1]) == 2)
        #expect(Self.nonFinite(s).isEmpty)
        _ = try s.append(seriesId: "s", xs: [1e308], ys: [-1e308])
        #expect(Self.nonFinite(s).isEmpty)
    }

    /// Where data enters, x must be finite (a binary body can carry any double); the
    /// refusal keeps its message and loses nothing already there.
    @Test func nonFiniteXIsRefusedWhereDataEnters() throws {
        let s = try Self.session(#"{"id":"b","chart":{"series":[{"id":"s","data":{"x":[0,1],"y":[2,3]}}]}}"#)
        for bad in [Double.infinity, -.infinity, .nan] {
            let (xs, ys) = try AppendBody.decode(AppendBody.encode(xs: [5, bad], ys: [1, 1]))
            #expect(throws: SessionError.self) { try s.append(seriesId: "s", xs: xs, ys: ys) }
            do { _ = try s.append(seriesId: "s", xs: xs, ys: ys) } catch {
                #expect("\(error)".contains("x[1] is not a finite number"), "\(error)")
            }
        }
        #expect(throws: SessionError.self) { try s.append(seriesId: "s", xs: [6], ys: [.infinity]) }
        #expect(s.chart.series[0].data.count == 2)
        #expect(Self.nonFinite(s).isEmpty)
    }

    /// Stacked members whose sums overflow (1e308 + 1e308), percentage stacks too.
    @Test(arguments: ["line", "area", "column"], [false, true])
    func stackedSumsStayFinite(_ kind: String, _ percent: Bool) throws {
        let member = { (id: String) in
            #"{"id":"\#(id)","type":"\#(kind)","stackIndex":0\#(percent ? #","stackPercent":true"# : ""),"data":{"x":[-1e308,0,1e308],"y":[1e308,-1e308,1e308]}}"#
        }
        let s = try Self.session(#"{"id":"st","chart":{"series":[\#(member("a")),\#(member("b")),\#(member("c"))]}}"#)
        #expect(Self.nonFinite(s).isEmpty)
    }

    /// Logarithmic, time and category axes with extreme data and ranges.
    @Test(arguments: [#""type":"logarithmic""#, #""type":"logarithmic","logBase":1.000001"#, #""type":"time""#,
                      #""type":"category","categories":["a","b","c"]"#])
    func otherAxisTypes(_ type: String) throws {
        for xs in Self.xSets {
            for ys in Self.ySets {
                for r in Self.ranges {
                    // A log axis shows positive ranges only (the spec refuses others).
                    let xr = type.contains("log") && (r?.0 ?? 1) <= 0 ? nil : r
                    let spec = #"""
                        {"id":"o","chart":{"xAxes":[\#(Self.axis("x", "," + type, range: xr))],
                         "yAxes":[\#(Self.axis("y", type.contains("log") ? "," + type : "", range: xr))],
                         "series":[{"id":"s","type":"line","data":\#(Self.data(.line, xs: xs, ys: ys))},
                                   {"id":"c","type":"column","data":\#(Self.data(.column, xs: xs, ys: ys))}]}}
                        """#
                    let bad = try Self.nonFinite(Self.session(spec))
                    #expect(bad.isEmpty, "\(type) x=\(xs) y=\(ys) range \(String(describing: xr)): \(bad.prefix(3))")
                }
            }
        }
    }

    /// Pies and donuts whose totals overflow.
    @Test(arguments: ["pie", "donut"])
    func radialTotalsOverflow(_ kind: String) throws {
        for ys in Self.ySets {
            let spec = #"{"id":"p","chart":{"series":[{"id":"s","type":"\#(kind)","data":{"x":[0,1,2,3,4,5],"y":\#(Self.json(ys.map(abs)))}}]}}"#
            #expect(try Self.nonFinite(Self.session(spec)).isEmpty, "\(kind) \(ys)")
        }
    }
}

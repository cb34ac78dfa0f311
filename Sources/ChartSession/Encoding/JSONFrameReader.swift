/// Reads the JSON form of frames back into values (tests, tools, Swift clients): the
/// inverse of `Frame.json`, so that a test can hold the JSON form to the same
/// command-for-command standard as the binary one.
public enum JSONFrameReader {
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public let path: String
        public var description: String { "JSON frame: bad or missing \(path)" }
    }

    public static func frame(_ v: JSONValue) throws(Error) -> Frame {
        let layers = try array(v, "layers").map { l throws(Error) -> FrameLayer in
            guard let id = LayerID(rawValue: try string(l, "id")) else { throw Error(path: "layers[].id") }
            let version = UInt32(try number(l, "version"))
            if let patch = l["patch"] {
                guard let ops = patch.arrayValue else { throw Error(path: "patch") }
                return .patch(LayerPatch(id: id, base: UInt32(try number(l, "base")), version: version,
                                         ops: try ops.map { op throws(Error) -> LayerPatch.Op in
                                             if let n = op["keep"]?.doubleValue { return .keep(Int(n)) }
                                             if let n = op["skip"]?.doubleValue { return .skip(Int(n)) }
                                             if let c = op["insert"] { return .insert(try commands(c)) }
                                             guard let p = op["columns"] else { throw Error(path: "patch[]") }
                                             return .columns(ColumnsPatch(
                                                 shift: Int32(try number(p, "shift")), x0: Float(try number(p, "x0")),
                                                 keepFrom: Int(try number(p, "keepFrom")), keepCount: Int(try number(p, "keepCount")),
                                                 head: try entries(p, "head"), tail: try entries(p, "tail")))
                                         }))
            }
            return .full(Layer(id: id, version: version, commands: try commands(l["commands"] ?? .null)))
        }
        return Frame(width: Int(try number(v, "width")), height: Int(try number(v, "height")), dpr: try number(v, "dpr"),
                     dataTime: v["dataTime"]?.doubleValue ?? 0, layers: layers)
    }

    static func number(_ v: JSONValue, _ key: String) throws(Error) -> Double {
        guard let n = v[key]?.doubleValue else { throw Error(path: key) }
        return n
    }
    static func float(_ v: JSONValue, _ key: String) throws(Error) -> Float { Float(try number(v, key)) }
    static func string(_ v: JSONValue, _ key: String) throws(Error) -> String {
        guard let s = v[key]?.stringValue else { throw Error(path: key) }
        return s
    }
    static func array(_ v: JSONValue, _ key: String) throws(Error) -> [JSONValue] {
        guard let a = v[key]?.arrayValue else { throw Error(path: key) }
        return a
    }
    static func floats(_ v: JSONValue, _ key: String) throws(Error) -> [Float] {
        guard let a = v[key]?.arrayValue else { return [] }
        var out: [Float] = []
        for x in a { guard let d = x.doubleValue else { throw Error(path: key) }; out.append(Float(d)) }
        return out
    }

    static func entries(_ v: JSONValue, _ key: String) throws(Error) -> [ColumnLine.Entry] {
        try array(v, key).map { e throws(Error) -> ColumnLine.Entry in
            guard let f = e.arrayValue?.compactMap(\.doubleValue), f.count == 6 else { throw Error(path: key) }
            return ColumnLine.Entry(column: Int32(f[0]), lo: UInt16(f[1]), hi: UInt16(f[2]), first: UInt16(f[3]),
                                    last: UInt16(f[4]), joined: f[5] != 0)
        }
    }

    /// A `columns` command's fields.
    static func columns(_ c: JSONValue) throws(Error) -> ColumnLine {
        var area: ColumnLine.Area? = nil
        if let a = c["area"] {
            area = ColumnLine.Area(fill: try string(a, "fill"), gradient: a["gradient"]?.stringValue,
                           base: UInt16(try number(a, "base")), top: UInt16(try number(a, "top")))
        }
        return ColumnLine(stroke: try string(c, "stroke"), width: try float(c, "width"), dash: try floats(c, "dash"),
                           x0: try float(c, "x0"), dx: try float(c, "dx"), y0: try float(c, "y0"),
                           dy: try float(c, "dy"), entries: try entries(c, "entries"),
                           step: c["step"]?.boolValue ?? false, area: area)
    }

    static func commands(_ v: JSONValue) throws(Error) -> [DrawCommand] {
        guard let list = v.arrayValue else { throw Error(path: "commands") }
        return try list.map { c throws(Error) -> DrawCommand in
            switch try string(c, "op") {
            case "polyline":
                return .polyline(points: try floats(c, "points"), stroke: try string(c, "stroke"), width: try float(c, "width"),
                                 dash: try floats(c, "dash"))
            case "segments":
                return .segments(coords: try floats(c, "coords"), stroke: try string(c, "stroke"), width: try float(c, "width"),
                                 dash: try floats(c, "dash"))
            case "rect":
                return .rect(x: try float(c, "x"), y: try float(c, "y"), w: try float(c, "w"), h: try float(c, "h"),
                             fill: c["fill"]?.stringValue, stroke: c["stroke"]?.stringValue,
                             lineWidth: Float(c["lineWidth"]?.doubleValue ?? 0))
            case "text":
                guard let align = DrawCommand.TextAlign(rawValue: try string(c, "align")),
                      let baseline = DrawCommand.TextBaseline(rawValue: try string(c, "baseline")) else { throw Error(path: "align") }
                return .text(x: try float(c, "x"), y: try float(c, "y"), text: try string(c, "text"), font: try string(c, "font"),
                             fill: try string(c, "fill"), align: align, baseline: baseline,
                             angle: Float(c["angle"]?.doubleValue ?? 0))
            case "columns":
                return .columns(try columns(c))
            case "band":
                guard let a = c["a"], let b = c["b"] else { throw Error(path: "band") }
                return .band(BandFill(fill: try string(c, "fill"), fillY1: try string(c, "fillY1"), top: try float(c, "top"),
                                      bottom: try float(c, "bottom"), a: try columns(a), b: try columns(b)))
            case "wedges":
                guard let list = c["wedges"]?.arrayValue else { throw Error(path: "wedges") }
                let wedges = try list.map { w throws(Error) in
                    WedgeSet.Wedge(fill: try string(w, "fill"), a0: try float(w, "a0"), a1: try float(w, "a1"), offset: try float(w, "offset"))
                }
                return .wedges(WedgeSet(cx: try float(c, "cx"), cy: try float(c, "cy"), r0: try float(c, "r0"), r1: try float(c, "r1"),
                                        stroke: c["stroke"]?.stringValue, lineWidth: Float(c["lineWidth"]?.doubleValue ?? 0),
                                        wedges: wedges))
            case "polygon":
                var gradient: Gradient? = nil
                if let g = c["gradient"] {
                    gradient = Gradient(color: try string(g, "color"), x0: try float(g, "x0"), y0: try float(g, "y0"),
                                        x1: try float(g, "x1"), y1: try float(g, "y1"))
                }
                return .polygon(points: try floats(c, "points"), fill: try string(c, "fill"), gradient: gradient)
            case "markers":
                guard let shape = MarkerShape(rawValue: try string(c, "shape")) else { throw Error(path: "shape") }
                let n = try floats(c, "cells")
                guard n.count % 2 == 0 else { throw Error(path: "cells") }
                var cells: [MarkerSet.Cell] = []
                for k in stride(from: 0, to: n.count, by: 2) { cells.append(MarkerSet.Cell(x: UInt16(n[k]), y: UInt16(n[k + 1]))) }
                return .markers(MarkerSet(shape: shape, size: try float(c, "size"), fill: c["fill"]?.stringValue,
                                          stroke: c["stroke"]?.stringValue, lineWidth: Float(c["lineWidth"]?.doubleValue ?? 0),
                                          x0: try float(c, "x0"), y0: try float(c, "y0"), unit: try float(c, "unit"), cells: cells))
            case "bars":
                let n = try floats(c, "bars")
                guard n.count % 4 == 0 else { throw Error(path: "bars") }
                var bars: [BarSet.Bar] = []
                for k in stride(from: 0, to: n.count, by: 4) {
                    let left = UInt16(n[k]), width = UInt16(n[k + 1]), top = UInt16(n[k + 2]), height = UInt16(n[k + 3])
                    bars.append(BarSet.Bar(left: left, width: width, top: top, height: height))
                }
                return .bars(BarSet(fill: try string(c, "fill"), stroke: c["stroke"]?.stringValue,
                                    lineWidth: Float(c["lineWidth"]?.doubleValue ?? 0), x0: try float(c, "x0"),
                                    y0: try float(c, "y0"), unit: try float(c, "unit"), bars: bars))
            case "clip":
                return .clip(x: try float(c, "x"), y: try float(c, "y"), w: try float(c, "w"), h: try float(c, "h"))
            case "unclip":
                return .unclip
            case "opacity":
                return .opacity(try float(c, "alpha"))
            case "image":
                return .image(x: try float(c, "x"), y: try float(c, "y"), w: try float(c, "w"), h: try float(c, "h"),
                              src: try string(c, "src"))
            default:
                throw Error(path: "op")
            }
        }
    }
}

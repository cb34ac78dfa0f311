/// The JSON form of a display list (INTERFACE.md): the same content as the binary
/// frames, for debugging, tests and users' own tooling.
extension DisplayList {
    public var json: JSONValue {
        .object([
            ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("dpr", .number(dpr)),
            ("layers", .array(layers.map(\.json))),
        ])
    }
}

extension Layer {
    public var json: JSONValue {
        .object([("id", .string(id.rawValue)), ("version", .int(Int64(version))),
                 ("commands", .array(commands.map(\.json)))])
    }
}

extension Frame {
    public var json: JSONValue {
        .object([
            ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("dpr", .number(dpr)),
            ("dataTime", .number(dataTime)), ("layers", .array(layers.map(\.json))),
        ])
    }
}

extension FrameLayer {
    public var json: JSONValue {
        switch self {
        case let .full(l): return l.json
        case let .patch(p): return p.json
        }
    }
}

extension LayerPatch {
    /// `{"id","version","base","patch":[{"keep":n} | {"skip":n} | {"insert":[commands]} | {"columns":{...}}]}`
    public var json: JSONValue {
        .object([("id", .string(id.rawValue)), ("version", .int(Int64(version))), ("base", .int(Int64(base))),
                 ("patch", .array(ops.map { op -> JSONValue in
                     switch op {
                     case let .keep(n): return .object([("keep", .int(Int64(n)))])
                     case let .skip(n): return .object([("skip", .int(Int64(n)))])
                     case let .insert(c): return .object([("insert", .array(c.map(\.json)))])
                     case let .columns(p):
                         return .object([("columns", .object([
                             ("shift", .int(Int64(p.shift))), ("x0", DrawCommand.jsonFloat(p.x0)),
                             ("keepFrom", .int(Int64(p.keepFrom))), ("keepCount", .int(Int64(p.keepCount))),
                             ("head", ColumnLine.entriesJSON(p.head)), ("tail", ColumnLine.entriesJSON(p.tail)),
                         ]))])
                     }
                 }))])
    }
}

extension ColumnLine {
    /// The fields of a `columns` command, without `op`.
    var jsonFields: [(String, JSONValue)] {
        let f = DrawCommand.jsonFloat
        func nums(_ fs: [Float]) -> JSONValue { .array(fs.map(f)) }
        var fields: [(String, JSONValue)] = []
        fields += [("stroke", .string(self.stroke)), ("width", f(self.width))]
        if !self.dash.isEmpty { fields.append(("dash", nums(self.dash))) }
        if self.step { fields.append(("step", .bool(true))) }
        if let a = self.area {
            var area: [(String, JSONValue)] = [("fill", .string(a.fill))]
            if let g = a.gradient { area.append(("gradient", .string(g))) }
            area += [("base", .int(Int64(a.base))), ("top", .int(Int64(a.top)))]
            fields.append(("area", .object(area)))
        }
        fields += [("x0", f(self.x0)), ("dx", f(self.dx)), ("y0", f(self.y0)), ("dy", f(self.dy)),
                   ("entries", ColumnLine.entriesJSON(self.entries))]
        return fields
    }

    /// Entries as `[[column, lo, hi, first, last, joined (0 or 1)], ...]`.
    static func entriesJSON(_ entries: [Entry]) -> JSONValue {
        .array(entries.map { e in
            .array([.int(Int64(e.column)), .int(Int64(e.lo)), .int(Int64(e.hi)), .int(Int64(e.first)),
                    .int(Int64(e.last)), .int(e.joined ? 1 : 0)])
        })
    }
}

extension DrawCommand {
    /// A float through its shortest decimal form, so 3.1 stays "3.1" rather than the
    /// double nearest the float (3.0999999046325684).
    static func jsonFloat(_ v: Float) -> JSONValue { .number(Double("\(v)") ?? Double(v)) }

    public var json: JSONValue {
        // Each float is printed through its shortest decimal form, so 3.1 stays "3.1"
        // rather than the double nearest the float (3.0999999046325684).
        let f = DrawCommand.jsonFloat
        func nums(_ fs: [Float]) -> JSONValue { .array(fs.map(f)) }
        var fields: [(String, JSONValue)] = [("op", .string(op))]
        switch self {
        case let .polyline(points, stroke, width, dash):
            fields += [("points", nums(points)), ("stroke", .string(stroke)), ("width", f(width))]
            if !dash.isEmpty { fields.append(("dash", nums(dash))) }
        case let .segments(coords, stroke, width, dash):
            fields += [("coords", nums(coords)), ("stroke", .string(stroke)), ("width", f(width))]
            if !dash.isEmpty { fields.append(("dash", nums(dash))) }
        case let .rect(x, y, w, h, fill, stroke, lineWidth):
            fields += [("x", f(x)), ("y", f(y)), ("w", f(w)), ("h", f(h))]
            if let fill { fields.append(("fill", .string(fill))) }
            if let stroke { fields += [("stroke", .string(stroke)), ("lineWidth", f(lineWidth))] }
        case let .text(x, y, text, font, fill, align, baseline, angle):
            fields += [("x", f(x)), ("y", f(y)), ("text", .string(text)), ("font", .string(font)),
                       ("fill", .string(fill)), ("align", .string(align.rawValue)),
                       ("baseline", .string(baseline.rawValue))]
            if angle != 0 { fields.append(("angle", f(angle))) }
        case let .columns(line):
            fields += line.jsonFields
        case let .band(b):
            fields += [("fill", .string(b.fill)), ("fillY1", .string(b.fillY1)), ("top", f(b.top)), ("bottom", f(b.bottom)),
                       ("a", .object(b.a.jsonFields)), ("b", .object(b.b.jsonFields))]
        case let .polygon(points, fill, gradient):
            fields += [("points", nums(points)), ("fill", .string(fill))]
            if let g = gradient {
                fields.append(("gradient", .object([("color", .string(g.color)), ("x0", f(g.x0)), ("y0", f(g.y0)),
                                                    ("x1", f(g.x1)), ("y1", f(g.y1))])))
            }
        case let .wedges(w):
            fields += [("cx", f(w.cx)), ("cy", f(w.cy)), ("r0", f(w.r0)), ("r1", f(w.r1))]
            if let stroke = w.stroke { fields += [("stroke", .string(stroke)), ("lineWidth", f(w.lineWidth))] }
            fields.append(("wedges", .array(w.wedges.map {
                .object([("fill", .string($0.fill)), ("a0", f($0.a0)), ("a1", f($0.a1)), ("offset", f($0.offset))])
            })))
        case let .markers(m):
            fields += [("shape", .string(m.shape.rawValue)), ("size", f(m.size))]
            if let fill = m.fill { fields.append(("fill", .string(fill))) }
            if let stroke = m.stroke { fields += [("stroke", .string(stroke)), ("lineWidth", f(m.lineWidth))] }
            fields += [("x0", f(m.x0)), ("y0", f(m.y0)), ("unit", f(m.unit)),
                       ("cells", .array(m.cells.flatMap { [JSONValue.int(Int64($0.x)), .int(Int64($0.y))] }))]
        case let .bars(b):
            fields.append(("fill", .string(b.fill)))
            if let stroke = b.stroke { fields += [("stroke", .string(stroke)), ("lineWidth", f(b.lineWidth))] }
            fields += [("x0", f(b.x0)), ("y0", f(b.y0)), ("unit", f(b.unit)),
                       ("bars", .array(b.bars.flatMap { r -> [JSONValue] in
                           [.int(Int64(r.left)), .int(Int64(r.width)), .int(Int64(r.top)), .int(Int64(r.height))]
                       }))]
        case let .clip(x, y, w, h):
            fields += [("x", f(x)), ("y", f(y)), ("w", f(w)), ("h", f(h))]
        case .unclip:
            break
        case let .opacity(alpha):
            fields.append(("alpha", f(alpha)))
        case let .image(x, y, w, h, src):
            fields += [("x", f(x)), ("y", f(y)), ("w", f(w)), ("h", f(h)), ("src", .string(src))]
        }
        return .object(fields)
    }
}

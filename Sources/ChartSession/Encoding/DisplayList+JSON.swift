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

extension DrawCommand {
    public var json: JSONValue {
        // Each float is printed through its shortest decimal form, so 3.1 stays "3.1"
        // rather than the double nearest the float (3.0999999046325684).
        func f(_ v: Float) -> JSONValue { .number(Double("\(v)") ?? Double(v)) }
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
        case let .clip(x, y, w, h):
            fields += [("x", f(x)), ("y", f(y)), ("w", f(w)), ("h", f(h))]
        case .unclip:
            break
        }
        return .object(fields)
    }
}

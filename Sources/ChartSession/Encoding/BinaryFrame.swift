/// The binary wire form of display lists (documented byte by byte in
/// docs/protocol.md). Layers are encoded on their own, so a session encodes each
/// layer once per canvas size and every viewer of that size gets the same bytes;
/// a frame is a small header followed by the layers a viewer needs.
public enum BinaryFrame {
    public static let magic: [UInt8] = Array("CWF1".utf8)
    public static let headerSize = 16

    enum Opcode: UInt8 {
        case polyline = 1, segments = 2, rect = 3, text = 4, clip = 5, unclip = 6
    }

    // MARK: Encoding

    /// Encodes one layer: code, version, body length, then the body (a string table
    /// and the commands).
    public static func encodeLayer(_ layer: Layer) -> [UInt8] {
        var strings: [String] = []
        var index: [String: UInt16] = [:]
        func ref(_ s: String) -> UInt16 {
            if let i = index[s] { return i }
            precondition(strings.count < Int(UInt16.max), "too many distinct strings in one layer")
            let i = UInt16(strings.count)
            strings.append(s); index[s] = i
            return i
        }

        var body = ByteWriter(capacity: 1024)
        body.u32(UInt32(layer.commands.count))
        for c in layer.commands {
            switch c {
            case let .polyline(points, stroke, width, dash), let .segments(points, stroke, width, dash):
                let isPolyline = if case .polyline = c { true } else { false }
                body.u8((isPolyline ? Opcode.polyline : Opcode.segments).rawValue)
                body.u16(ref(stroke))
                body.f32(width)
                body.u8(UInt8(min(dash.count, 255)))
                body.f32s(Array(dash.prefix(255)))
                let perItem = isPolyline ? 2 : 4
                body.u32(UInt32(points.count / perItem))
                body.f32s(Array(points.prefix(points.count / perItem * perItem)))
            case let .rect(x, y, w, h, fill, stroke, lineWidth):
                body.u8(Opcode.rect.rawValue)
                body.u8((fill != nil ? 1 : 0) | (stroke != nil ? 2 : 0))
                body.f32(x); body.f32(y); body.f32(w); body.f32(h)
                if let fill { body.u16(ref(fill)) }
                if let stroke { body.u16(ref(stroke)); body.f32(lineWidth) }
            case let .text(x, y, text, font, fill, align, baseline, angle):
                body.u8(Opcode.text.rawValue)
                body.f32(x); body.f32(y); body.f32(angle)
                body.u16(ref(text)); body.u16(ref(font)); body.u16(ref(fill))
                body.u8(UInt8(DrawCommand.TextAlign.allCases.firstIndex(of: align)!))
                body.u8(UInt8(DrawCommand.TextBaseline.allCases.firstIndex(of: baseline)!))
            case let .clip(x, y, w, h):
                body.u8(Opcode.clip.rawValue)
                body.f32(x); body.f32(y); body.f32(w); body.f32(h)
            case .unclip:
                body.u8(Opcode.unclip.rawValue)
            }
        }

        var table = ByteWriter(capacity: 256)
        table.u16(UInt16(strings.count))
        for s in strings {
            let utf8 = Array(s.utf8.prefix(Int(UInt16.max)))
            table.u16(UInt16(utf8.count))
            table.bytes.append(contentsOf: utf8)
        }

        var out = ByteWriter(capacity: 12 + table.bytes.count + body.bytes.count)
        out.u8(layer.id.code); out.u8(0); out.u8(0); out.u8(0)
        out.u32(layer.version)
        out.u32(UInt32(table.bytes.count + body.bytes.count))
        out.bytes.append(contentsOf: table.bytes)
        out.bytes.append(contentsOf: body.bytes)
        return out.bytes
    }

    /// A frame: header, then the given encoded layers in order.
    public static func frame(width: Int, height: Int, dpr: Double, encodedLayers: [[UInt8]]) -> [UInt8] {
        var out = ByteWriter(capacity: headerSize + encodedLayers.reduce(0) { $0 + $1.count })
        out.bytes.append(contentsOf: magic)
        out.u16(UInt16(clamping: width)); out.u16(UInt16(clamping: height))
        out.f32(Float(dpr))
        out.u8(UInt8(encodedLayers.count)); out.u8(0); out.u8(0); out.u8(0)
        for l in encodedLayers { out.bytes.append(contentsOf: l) }
        return out.bytes
    }

    public static func encode(_ list: DisplayList) -> [UInt8] {
        frame(width: list.width, height: list.height, dpr: list.dpr, encodedLayers: list.layers.map(encodeLayer))
    }

    // MARK: Decoding (tests, tools)

    public static func decode(_ bytes: [UInt8]) throws(FrameDecodeError) -> DisplayList {
        var r = ByteReader(bytes)
        guard Array(try r.bytes(4)) == magic else { throw FrameDecodeError(offset: 0, message: "bad magic") }
        let width = Int(try r.u16()), height = Int(try r.u16())
        let dpr = Double(try r.f32())
        let count = Int(try r.u8())
        _ = try r.bytes(3)
        var layers: [Layer] = []
        for _ in 0..<count {
            let at = r.offset
            guard let id = LayerID(code: try r.u8()) else { throw FrameDecodeError(offset: at, message: "unknown layer code") }
            _ = try r.bytes(3)
            let version = try r.u32()
            let length = Int(try r.u32())
            var body = ByteReader(Array(try r.bytes(length)))
            layers.append(Layer(id: id, version: version, commands: try decodeBody(&body, base: r.offset - length)))
        }
        guard r.remaining == 0 else { throw FrameDecodeError(offset: r.offset, message: "\(r.remaining) trailing bytes") }
        return DisplayList(width: width, height: height, dpr: dpr, layers: layers)
    }

    static func decodeBody(_ r: inout ByteReader, base: Int) throws(FrameDecodeError) -> [DrawCommand] {
        let stringCount = Int(try r.u16())
        var strings: [String] = []
        for _ in 0..<stringCount {
            let n = Int(try r.u16())
            strings.append(String(decoding: try r.bytes(n), as: UTF8.self))
        }
        func str(_ r: inout ByteReader) throws(FrameDecodeError) -> String {
            let at = r.offset
            let i = Int(try r.u16())
            guard i < strings.count else { throw FrameDecodeError(offset: base + at, message: "string \(i) out of range") }
            return strings[i]
        }
        let count = Int(try r.u32())
        var out: [DrawCommand] = []
        for _ in 0..<count {
            let at = r.offset
            guard let op = Opcode(rawValue: try r.u8()) else { throw FrameDecodeError(offset: base + at, message: "unknown opcode") }
            switch op {
            case .polyline, .segments:
                let stroke = try str(&r), width = try r.f32()
                let dash = try r.f32s(Int(try r.u8()))
                let n = Int(try r.u32())
                let coords = try r.f32s(n * (op == .polyline ? 2 : 4))
                out.append(op == .polyline ? .polyline(points: coords, stroke: stroke, width: width, dash: dash)
                                           : .segments(coords: coords, stroke: stroke, width: width, dash: dash))
            case .rect:
                let flags = try r.u8()
                let x = try r.f32(), y = try r.f32(), w = try r.f32(), h = try r.f32()
                let fill = flags & 1 != 0 ? try str(&r) : nil
                var stroke: String? = nil, lw: Float = 0
                if flags & 2 != 0 { stroke = try str(&r); lw = try r.f32() }
                out.append(.rect(x: x, y: y, w: w, h: h, fill: fill, stroke: stroke, lineWidth: lw))
            case .text:
                let x = try r.f32(), y = try r.f32(), angle = try r.f32()
                let text = try str(&r), font = try str(&r), fill = try str(&r)
                let a = Int(try r.u8()), b = Int(try r.u8())
                guard a < DrawCommand.TextAlign.allCases.count, b < DrawCommand.TextBaseline.allCases.count else {
                    throw FrameDecodeError(offset: base + r.offset, message: "bad text align or baseline")
                }
                out.append(.text(x: x, y: y, text: text, font: font, fill: fill, align: DrawCommand.TextAlign.allCases[a],
                                 baseline: DrawCommand.TextBaseline.allCases[b], angle: angle))
            case .clip:
                out.append(.clip(x: try r.f32(), y: try r.f32(), w: try r.f32(), h: try r.f32()))
            case .unclip:
                out.append(.unclip)
            }
        }
        guard r.remaining == 0 else { throw FrameDecodeError(offset: base + r.offset, message: "trailing bytes in layer") }
        return out
    }
}

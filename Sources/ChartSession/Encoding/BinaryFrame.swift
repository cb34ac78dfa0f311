/// The binary wire form of display lists (documented byte by byte in
/// docs/protocol.md). Layers are encoded on their own, so a session encodes each
/// layer (or patch) once per canvas size and every viewer of that size gets the same
/// bytes; a frame is a small header followed by the layers a viewer needs.
public enum BinaryFrame {
    public static let magic: [UInt8] = Array("CWF2".utf8)
    public static let headerSize = 24

    enum Opcode: UInt8 {
        case polyline = 1, segments = 2, rect = 3, text = 4, clip = 5, unclip = 6, columns = 7, markers = 8, bars = 9, polygon = 10, wedges = 11, band = 12, opacity = 13, image = 14
    }
    enum PatchOpcode: UInt8 {
        case keep = 1, skip = 2, insert = 3, columns = 4
    }
    /// Second byte of a layer header.
    enum LayerKind: UInt8 { case full = 0, patch = 1 }

    // MARK: Encoding

    /// The string table every layer body starts with.
    struct StringTable {
        var strings: [String] = []
        /// Past `linear` strings, where each string stands (a layer's few colours and
        /// fonts are found faster by comparing than by hashing).
        var index: [String: UInt16] = [:]
        static let linear = 16
        init() { strings.reserveCapacity(8) }
        mutating func ref(_ s: String) -> UInt16 {
            if strings.count <= Self.linear {
                if let i = strings.firstIndex(of: s) { return UInt16(i) }
            } else if let i = index[s] {
                return i
            }
            precondition(strings.count < Int(UInt16.max), "too many distinct strings in one layer")
            let i = UInt16(strings.count)
            strings.append(s)
            if strings.count == Self.linear + 1 {
                // (Room for a layer's labels at once: growing by doubling rehashed them all.)
                index.reserveCapacity(4 * Self.linear)
                for (k, t) in strings.enumerated() { index[t] = UInt16(k) }
            } else if strings.count > Self.linear + 1 {
                index[s] = i
            }
            return i
        }
        var encoded: [UInt8] {
            var table = ByteWriter(capacity: 256)
            table.u16(UInt16(strings.count))
            for s in strings {
                let n = min(s.utf8.count, Int(UInt16.max))
                table.u16(UInt16(n))
                table.bytes.append(contentsOf: s.utf8.prefix(n))
            }
            return table.bytes
        }
    }

    /// Encodes one whole layer: code, kind, version, body length, then the body (a
    /// string table and the commands).
    public static func encodeLayer(_ layer: Layer) -> [UInt8] {
        var strings = StringTable()
        var body = ByteWriter(capacity: 1024)
        body.u32(UInt32(layer.commands.count))
        for c in layer.commands { encode(c, into: &body, strings: &strings) }
        return layerBytes(layer.id, kind: .full, version: layer.version, prefix: [], strings: strings, body: body.bytes)
    }

    /// Encodes a patch: the header as for a whole layer (kind 1), then u32 base
    /// version, the string table and the operations.
    public static func encodePatch(_ patch: LayerPatch) -> [UInt8] {
        var strings = StringTable()
        var body = ByteWriter(capacity: 256)
        body.u32(UInt32(patch.ops.count))
        for op in patch.ops {
            switch op {
            case let .keep(n): body.u8(PatchOpcode.keep.rawValue); body.u32(UInt32(n))
            case let .skip(n): body.u8(PatchOpcode.skip.rawValue); body.u32(UInt32(n))
            case let .insert(commands):
                body.u8(PatchOpcode.insert.rawValue)
                body.u32(UInt32(commands.count))
                for c in commands { encode(c, into: &body, strings: &strings) }
            case let .columns(p):
                body.u8(PatchOpcode.columns.rawValue)
                body.u32(UInt32(bitPattern: p.shift))
                body.f32(p.x0)
                body.u32(UInt32(p.keepFrom)); body.u32(UInt32(p.keepCount))
                encodeRuns(p.head, into: &body)
                encodeRuns(p.tail, into: &body)
            }
        }
        var prefix = ByteWriter(capacity: 4)
        prefix.u32(patch.base)
        return layerBytes(patch.id, kind: .patch, version: patch.version, prefix: prefix.bytes, strings: strings, body: body.bytes)
    }

    public static func encode(_ layer: FrameLayer) -> [UInt8] {
        switch layer {
        case let .full(l): return encodeLayer(l)
        case let .patch(p): return encodePatch(p)
        }
    }

    static func layerBytes(_ id: LayerID, kind: LayerKind, version: UInt32, prefix: [UInt8], strings: StringTable,
                           body: [UInt8]) -> [UInt8] {
        let table = strings.encoded
        var out = ByteWriter(capacity: 12 + prefix.count + table.count + body.count)
        out.u8(id.code); out.u8(kind.rawValue); out.u8(0); out.u8(0)
        out.u32(version)
        out.u32(UInt32(prefix.count + table.count + body.count))
        out.bytes.append(contentsOf: prefix)
        out.bytes.append(contentsOf: table)
        out.bytes.append(contentsOf: body)
        return out.bytes
    }

    static func encode(_ c: DrawCommand, into body: inout ByteWriter, strings: inout StringTable) {
        switch c {
        case let .polyline(points, stroke, width, dash), let .segments(points, stroke, width, dash):
            let isPolyline = if case .polyline = c { true } else { false }
            body.u8((isPolyline ? Opcode.polyline : Opcode.segments).rawValue)
            body.u16(strings.ref(stroke))
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
            if let fill { body.u16(strings.ref(fill)) }
            if let stroke { body.u16(strings.ref(stroke)); body.f32(lineWidth) }
        case let .text(x, y, text, font, fill, align, baseline, angle):
            body.u8(Opcode.text.rawValue)
            body.f32(x); body.f32(y); body.f32(angle)
            body.u16(strings.ref(text)); body.u16(strings.ref(font)); body.u16(strings.ref(fill))
            body.u8(UInt8(DrawCommand.TextAlign.allCases.firstIndex(of: align)!))
            body.u8(UInt8(DrawCommand.TextBaseline.allCases.firstIndex(of: baseline)!))
        case let .columns(line):
            body.u8(Opcode.columns.rawValue)
            encodeColumns(line, into: &body, strings: &strings)
        case let .band(band):
            body.u8(Opcode.band.rawValue)
            body.u16(strings.ref(band.fill)); body.u16(strings.ref(band.fillY1))
            body.f32(band.top); body.f32(band.bottom)
            encodeColumns(band.a, into: &body, strings: &strings)
            encodeColumns(band.b, into: &body, strings: &strings)
        case let .markers(m):
            body.u8(Opcode.markers.rawValue)
            body.u8(UInt8(MarkerShape.allCases.firstIndex(of: m.shape)!))
            body.u8((m.fill != nil ? 1 : 0) | (m.stroke != nil ? 2 : 0))
            body.f32(m.size)
            if let fill = m.fill { body.u16(strings.ref(fill)) }
            if let stroke = m.stroke { body.u16(strings.ref(stroke)); body.f32(m.lineWidth) }
            body.f32(m.x0); body.f32(m.y0); body.f32(m.unit)
            body.u32(UInt32(m.cells.count))
            body.u16Pairs(m.cells) { ($0.x, $0.y) }
        case let .bars(b):
            body.u8(Opcode.bars.rawValue)
            body.u16(strings.ref(b.fill))
            body.u8(b.stroke != nil ? 2 : 0)
            if let stroke = b.stroke { body.u16(strings.ref(stroke)); body.f32(b.lineWidth) }
            body.f32(b.x0); body.f32(b.y0); body.f32(b.unit)
            body.u32(UInt32(b.bars.count))
            for r in b.bars { body.u16(r.left); body.u16(r.width); body.u16(r.top); body.u16(r.height) }
        case let .polygon(points, fill, gradient):
            body.u8(Opcode.polygon.rawValue)
            body.u16(strings.ref(fill))
            body.u8(gradient != nil ? 1 : 0)
            if let g = gradient {
                body.u16(strings.ref(g.color)); body.f32(g.x0); body.f32(g.y0); body.f32(g.x1); body.f32(g.y1)
            }
            body.u32(UInt32(points.count / 2))
            body.f32s(Array(points.prefix(points.count / 2 * 2)))
        case let .wedges(set):
            body.u8(Opcode.wedges.rawValue)
            body.f32(set.cx); body.f32(set.cy); body.f32(set.r0); body.f32(set.r1)
            body.u8(set.stroke != nil ? 2 : 0)
            if let stroke = set.stroke { body.u16(strings.ref(stroke)); body.f32(set.lineWidth) }
            body.u32(UInt32(set.wedges.count))
            for w in set.wedges { body.u16(strings.ref(w.fill)); body.f32(w.a0); body.f32(w.a1); body.f32(w.offset) }
        case let .clip(x, y, w, h):
            body.u8(Opcode.clip.rawValue)
            body.f32(x); body.f32(y); body.f32(w); body.f32(h)
        case .unclip:
            body.u8(Opcode.unclip.rawValue)
        case let .opacity(alpha):
            body.u8(Opcode.opacity.rawValue)
            body.f32(alpha)
        case let .image(x, y, w, h, src):
            body.u8(Opcode.image.rawValue)
            body.f32(x); body.f32(y); body.f32(w); body.f32(h)
            body.u16(strings.ref(src))
        }
    }

    /// A columns line after its opcode (also the two lines of a band).
    static func encodeColumns(_ line: ColumnLine, into body: inout ByteWriter, strings: inout StringTable) {
        body.u16(strings.ref(line.stroke))
        body.f32(line.width)
        body.u8(UInt8(min(line.dash.count, 255)))
        body.f32s(Array(line.dash.prefix(255)))
        body.u8((line.step ? 1 : 0) | (line.area != nil ? 2 : 0) | (line.area?.gradient != nil ? 4 : 0))
        if let area = line.area {
            body.u16(strings.ref(area.fill)); body.u16(area.base); body.u16(area.top)
            if let g = area.gradient { body.u16(strings.ref(g)) }
        }
        body.f32(line.x0); body.f32(line.dx); body.f32(line.y0); body.f32(line.dy)
        encodeRuns(line.entries, into: &body)
    }

    /// Column entries as runs: a run is a stretch of entries each joined to the one
    /// before it. u32 run count, then per run: i32 column of its first entry, u16 entry
    /// count, u8 flags (bit 0: the first entry is joined to the entry before the run),
    /// then the entries. An entry is a u8 tag — bits 0–4 the column distance from the
    /// previous entry of the run (1–31; 0 with a u16 distance following; 0 for a run's
    /// first entry), bit 5 `single` (lo equals hi), bit 6 `first` follows, bit 7 `last`
    /// follows — then u16 lo, u16 hi unless single, u16 first, u16 last when flagged
    /// (absent, `first` is lo and `last` is hi).
    static func encodeRuns(_ entries: [ColumnLine.Entry], into body: inout ByteWriter) {
        let countAt = body.bytes.count
        body.u32(0)
        var runs: UInt32 = 0
        var i = 0
        while i < entries.count {
            var end = i + 1
            while end < entries.count, end - i < Int(UInt16.max), entries[end].joined,
                  entries[end].column > entries[end - 1].column { end += 1 }
            body.u32(UInt32(bitPattern: entries[i].column))
            body.u16(UInt16(end - i))
            body.u8(entries[i].joined ? 1 : 0)
            for j in i..<end {
                let e = entries[j]
                let distance = j == i ? 0 : Int(e.column - entries[j - 1].column)
                var tag = UInt8(distance >= 1 && distance <= 31 ? distance : 0)
                if e.lo == e.hi { tag |= 0x20 }
                if e.first != e.lo { tag |= 0x40 }
                if e.last != e.hi { tag |= 0x80 }
                body.u8(tag)
                if j != i, tag & 0x1F == 0 { body.u16(UInt16(clamping: distance)) }
                body.u16(e.lo)
                if e.lo != e.hi { body.u16(e.hi) }
                if e.first != e.lo { body.u16(e.first) }
                if e.last != e.hi { body.u16(e.last) }
            }
            runs += 1
            i = end
        }
        body.patchU32(at: countAt, runs)
    }

    /// A frame: header, then the given encoded layers in order.
    public static func frame(width: Int, height: Int, dpr: Double, dataTime: Double = 0, encodedLayers: [[UInt8]]) -> [UInt8] {
        var out = ByteWriter(capacity: headerSize + encodedLayers.reduce(0) { $0 + $1.count })
        out.bytes.append(contentsOf: magic)
        out.u16(UInt16(clamping: width)); out.u16(UInt16(clamping: height))
        out.f32(Float(dpr))
        out.u8(UInt8(encodedLayers.count)); out.u8(0); out.u8(0); out.u8(0)
        out.f64(dataTime)
        for l in encodedLayers { out.bytes.append(contentsOf: l) }
        return out.bytes
    }

    public static func encode(_ list: DisplayList) -> [UInt8] {
        frame(width: list.width, height: list.height, dpr: list.dpr, encodedLayers: list.layers.map(encodeLayer))
    }

    public static func encode(_ frame: Frame) -> [UInt8] {
        self.frame(width: frame.width, height: frame.height, dpr: frame.dpr, dataTime: frame.dataTime,
                   encodedLayers: frame.layers.map(encode))
    }

    // MARK: Decoding (tests, tools)

    /// Decodes a frame of whole layers (a first frame, frame.json's binary twin).
    public static func decode(_ bytes: [UInt8]) throws(FrameDecodeError) -> DisplayList {
        let frame = try decodeFrame(bytes)
        var layers: [Layer] = []
        for l in frame.layers {
            guard case let .full(layer) = l else { throw FrameDecodeError(offset: 0, message: "frame holds a patch") }
            layers.append(layer)
        }
        return DisplayList(width: frame.width, height: frame.height, dpr: frame.dpr, layers: layers)
    }

    public static func decodeFrame(_ bytes: [UInt8]) throws(FrameDecodeError) -> Frame {
        var r = ByteReader(bytes)
        guard Array(try r.bytes(4)) == magic else { throw FrameDecodeError(offset: 0, message: "bad magic") }
        let width = Int(try r.u16()), height = Int(try r.u16())
        let dpr = Double(try r.f32())
        let count = Int(try r.u8())
        _ = try r.bytes(3)
        let dataTime = try r.f64()
        var layers: [FrameLayer] = []
        for _ in 0..<count {
            let at = r.offset
            guard let id = LayerID(code: try r.u8()) else { throw FrameDecodeError(offset: at, message: "unknown layer code") }
            guard let kind = LayerKind(rawValue: try r.u8()) else { throw FrameDecodeError(offset: at + 1, message: "unknown layer kind") }
            _ = try r.bytes(2)
            let version = try r.u32()
            let length = Int(try r.u32())
            let base = r.offset
            var body = ByteReader(Array(try r.bytes(length)))
            switch kind {
            case .full:
                layers.append(.full(Layer(id: id, version: version, commands: try decodeBody(&body, base: base))))
            case .patch:
                layers.append(.patch(try decodePatch(&body, id: id, version: version, base: base)))
            }
        }
        guard r.remaining == 0 else { throw FrameDecodeError(offset: r.offset, message: "\(r.remaining) trailing bytes") }
        return Frame(width: width, height: height, dpr: dpr, dataTime: dataTime, layers: layers)
    }

    static func decodeStrings(_ r: inout ByteReader) throws(FrameDecodeError) -> [String] {
        let stringCount = Int(try r.u16())
        var strings: [String] = []
        for _ in 0..<stringCount {
            let n = Int(try r.u16())
            strings.append(String(decoding: try r.bytes(n), as: UTF8.self))
        }
        return strings
    }

    static func decodeBody(_ r: inout ByteReader, base: Int) throws(FrameDecodeError) -> [DrawCommand] {
        let strings = try decodeStrings(&r)
        let out = try decodeCommands(&r, count: Int(try r.u32()), strings: strings, base: base)
        guard r.remaining == 0 else { throw FrameDecodeError(offset: base + r.offset, message: "trailing bytes in layer") }
        return out
    }

    static func decodePatch(_ r: inout ByteReader, id: LayerID, version: UInt32, base: Int) throws(FrameDecodeError) -> LayerPatch {
        let baseVersion = try r.u32()
        let strings = try decodeStrings(&r)
        var ops: [LayerPatch.Op] = []
        for _ in 0..<Int(try r.u32()) {
            let at = r.offset
            guard let op = PatchOpcode(rawValue: try r.u8()) else {
                throw FrameDecodeError(offset: base + at, message: "unknown patch opcode")
            }
            switch op {
            case .keep: ops.append(.keep(Int(try r.u32())))
            case .skip: ops.append(.skip(Int(try r.u32())))
            case .insert: ops.append(.insert(try decodeCommands(&r, count: Int(try r.u32()), strings: strings, base: base)))
            case .columns:
                let shift = Int32(bitPattern: try r.u32())
                let x0 = try r.f32()
                let keepFrom = Int(try r.u32()), keepCount = Int(try r.u32())
                let head = try decodeRuns(&r), tail = try decodeRuns(&r)
                ops.append(.columns(ColumnsPatch(shift: shift, x0: x0, keepFrom: keepFrom, keepCount: keepCount,
                                                 head: head, tail: tail)))
            }
        }
        guard r.remaining == 0 else { throw FrameDecodeError(offset: base + r.offset, message: "trailing bytes in patch") }
        return LayerPatch(id: id, base: baseVersion, version: version, ops: ops)
    }

    /// A columns line after its opcode.
    static func decodeColumns(_ r: inout ByteReader, _ str: (inout ByteReader) throws(FrameDecodeError) -> String) throws(FrameDecodeError) -> ColumnLine {
        let stroke = try str(&r), width = try r.f32()
        let dash = try r.f32s(Int(try r.u8()))
        let flags = try r.u8()
        var area: ColumnLine.Area? = nil
        if flags & 2 != 0 {
            area = ColumnLine.Area(fill: try str(&r), base: try r.u16(), top: try r.u16())
            if flags & 4 != 0 { area?.gradient = try str(&r) }
        }
        let x0 = try r.f32(), dx = try r.f32(), y0 = try r.f32(), dy = try r.f32()
        return ColumnLine(stroke: stroke, width: width, dash: dash, x0: x0, dx: dx, y0: y0, dy: dy,
                  entries: try decodeRuns(&r), step: flags & 1 != 0, area: area)
    }

    static func decodeRuns(_ r: inout ByteReader) throws(FrameDecodeError) -> [ColumnLine.Entry] {
        var out: [ColumnLine.Entry] = []
        for _ in 0..<Int(try r.u32()) {
            var column = Int32(bitPattern: try r.u32())
            let count = Int(try r.u16())
            let flags = try r.u8()
            guard count > 0 else { throw FrameDecodeError(offset: r.offset, message: "empty run") }
            for j in 0..<count {
                let tag = try r.u8()
                if j > 0 { column += tag & 0x1F != 0 ? Int32(tag & 0x1F) : Int32(try r.u16()) }
                let lo = try r.u16()
                let hi = tag & 0x20 != 0 ? lo : try r.u16()
                let first = tag & 0x40 != 0 ? try r.u16() : lo
                let last = tag & 0x80 != 0 ? try r.u16() : hi
                out.append(ColumnLine.Entry(column: column, lo: lo, hi: hi, first: first, last: last,
                                            joined: j == 0 ? flags & 1 != 0 : true))
            }
        }
        return out
    }

    static func decodeCommands(_ r: inout ByteReader, count: Int, strings: [String], base: Int) throws(FrameDecodeError) -> [DrawCommand] {
        func str(_ r: inout ByteReader) throws(FrameDecodeError) -> String {
            let at = r.offset
            let i = Int(try r.u16())
            guard i < strings.count else { throw FrameDecodeError(offset: base + at, message: "string \(i) out of range") }
            return strings[i]
        }
        /// An outline's colour and width, present when bit 1 of `flags` is set.
        func outline(_ flags: UInt8, _ r: inout ByteReader) throws(FrameDecodeError) -> (String?, Float) {
            flags & 2 != 0 ? (try str(&r), try r.f32()) : (nil, 0)
        }
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
                let (stroke, lw) = try outline(flags, &r)
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
            case .columns:
                out.append(.columns(try decodeColumns(&r, str)))
            case .band:
                let fill = try str(&r), fillY1 = try str(&r), top = try r.f32(), bottom = try r.f32()
                let a = try decodeColumns(&r, str), b = try decodeColumns(&r, str)
                out.append(.band(BandFill(fill: fill, fillY1: fillY1, top: top, bottom: bottom, a: a, b: b)))
            case .markers:
                let shape = Int(try r.u8()), flags = try r.u8()
                guard shape < MarkerShape.allCases.count else { throw FrameDecodeError(offset: base + at + 1, message: "unknown marker shape") }
                let size = try r.f32()
                let fill = flags & 1 != 0 ? try str(&r) : nil
                let (stroke, lw) = try outline(flags, &r)
                let x0 = try r.f32(), y0 = try r.f32(), unit = try r.f32()
                let n = Int(try r.u32())
                guard n <= r.remaining / 4 else { throw FrameDecodeError(offset: base + r.offset, message: "marker count past the end") }
                var cells: [MarkerSet.Cell] = []
                cells.reserveCapacity(n)
                for _ in 0..<n { cells.append(MarkerSet.Cell(x: try r.u16(), y: try r.u16())) }
                out.append(.markers(MarkerSet(shape: MarkerShape.allCases[shape], size: size, fill: fill, stroke: stroke,
                                              lineWidth: lw, x0: x0, y0: y0, unit: unit, cells: cells)))
            case .bars:
                let fill = try str(&r), flags = try r.u8()
                let (stroke, lw) = try outline(flags, &r)
                let x0 = try r.f32(), y0 = try r.f32(), unit = try r.f32()
                let n = Int(try r.u32())
                guard n <= r.remaining / 8 else { throw FrameDecodeError(offset: base + r.offset, message: "bar count past the end") }
                var bars: [BarSet.Bar] = []
                bars.reserveCapacity(n)
                for _ in 0..<n {
                    bars.append(BarSet.Bar(left: try r.u16(), width: try r.u16(), top: try r.u16(), height: try r.u16()))
                }
                out.append(.bars(BarSet(fill: fill, stroke: stroke, lineWidth: lw, x0: x0, y0: y0, unit: unit, bars: bars)))
            case .polygon:
                let fill = try str(&r), flags = try r.u8()
                var gradient: Gradient? = nil
                if flags & 1 != 0 {
                    gradient = Gradient(color: try str(&r), x0: try r.f32(), y0: try r.f32(), x1: try r.f32(), y1: try r.f32())
                }
                let n = Int(try r.u32())
                out.append(.polygon(points: try r.f32s(n * 2), fill: fill, gradient: gradient))
            case .wedges:
                let cx = try r.f32(), cy = try r.f32(), r0 = try r.f32(), r1 = try r.f32()
                let (stroke, lw) = try outline(try r.u8(), &r)
                let n = Int(try r.u32())
                guard n <= r.remaining / 14 else { throw FrameDecodeError(offset: base + r.offset, message: "wedge count past the end") }
                var wedges: [WedgeSet.Wedge] = []
                for _ in 0..<n { wedges.append(WedgeSet.Wedge(fill: try str(&r), a0: try r.f32(), a1: try r.f32(), offset: try r.f32())) }
                out.append(.wedges(WedgeSet(cx: cx, cy: cy, r0: r0, r1: r1, stroke: stroke, lineWidth: lw, wedges: wedges)))
            case .clip:
                out.append(.clip(x: try r.f32(), y: try r.f32(), w: try r.f32(), h: try r.f32()))
            case .unclip:
                out.append(.unclip)
            case .opacity:
                out.append(.opacity(try r.f32()))
            case .image:
                let x = try r.f32(), y = try r.f32(), w = try r.f32(), h = try r.f32()
                out.append(.image(x: x, y: y, w: w, h: h, src: try str(&r)))
            }
        }
        return out
    }
}

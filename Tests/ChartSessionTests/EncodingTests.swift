import Testing
@testable import ChartSession

@Suite struct EncodingTests {
    static let everyOp = Layer(id: .overlay, version: 7, commands: [
        .rect(x: 0, y: 0, w: 10, h: 5, fill: "#fff", stroke: nil, lineWidth: 0),
        .rect(x: 1, y: 2, w: 3, h: 4, fill: nil, stroke: "red", lineWidth: 1.5),
        .rect(x: 1, y: 2, w: 3, h: 4, fill: "#fff", stroke: "red", lineWidth: 2),
        .clip(x: 1, y: 1, w: 8, h: 3),
        .polyline(points: [0, 0, 1.5, 2.25, 3, -1], stroke: "#1f77b4", width: 1.5, dash: []),
        .polyline(points: [0, 0, 5, 5], stroke: "red", width: 1, dash: [4, 2]),
        .segments(coords: [0, 0, 1, 1, 2, 2, 3, 3], stroke: "#e3e5ea", width: 0.5, dash: []),
        .unclip,
        .text(x: 10, y: 20, text: "Température °C ✓", font: "12px ChartWire Sans", fill: "#333", align: .center,
              baseline: .alphabetic, angle: -90),
        .text(x: 1, y: 2, text: "", font: "bold 16px ChartWire Sans", fill: "#333", align: .right, baseline: .middle, angle: 0),
        .markers(MarkerSet(shape: .triangle, size: 7, fill: "#2ca02c", stroke: nil, lineWidth: 0, x0: 39.5, y0: 9.5,
                           unit: 0.5, cells: [.init(x: 0, y: 0), .init(x: 65535, y: 3), .init(x: 12, y: 900)])),
        .markers(MarkerSet(shape: .cross, size: 9, fill: nil, stroke: "red", lineWidth: 2, x0: 0, y0: 0, unit: 1, cells: [])),
        .markers(MarkerSet(shape: .circle, size: 6, fill: "#fff", stroke: "#9467bd", lineWidth: 1.5, x0: 1, y0: 2, unit: 1,
                           cells: [.init(x: 5, y: 5)])),
        .bars(BarSet(fill: "#4c8fd6", stroke: "#1f5fb4", lineWidth: 1, x0: 39, y0: 9, unit: 1,
                     bars: [.init(left: 0, width: 30, top: 10, height: 200), .init(left: 40, width: 1, top: 0, height: 65535)])),
        .bars(BarSet(fill: "#000", stroke: nil, lineWidth: 0, x0: 0, y0: 0, unit: 0.5, bars: [])),
        .polygon(points: [0, 0, 10, 0, 10, 5], fill: "rgba(31,119,180,0.35)", gradient: nil),
        .wedges(WedgeSet(cx: 100, cy: 80.5, r0: 0, r1: 60, stroke: "#fff", lineWidth: 1.5, wedges: [
            .init(fill: "#1f77b4", a0: 0, a1: 1.25), .init(fill: "#d62728", a0: 1.25, a1: 6.283185, offset: 10)])),
        .wedges(WedgeSet(cx: 1, cy: 2, r0: 20, r1: 40, stroke: nil, lineWidth: 0, wedges: [])),
        .opacity(0.25),
        .image(x: 12, y: 30.5, w: 64, h: 48, src: "/api/sessions/gallery-annotations/images/logo"),
        .opacity(1),
        .band(BandFill(fill: "rgba(31,119,180,0.35)", fillY1: "#fdd", top: 10, bottom: 300,
                       a: ColumnLine(stroke: "#1f77b4", width: 1.5, dash: [], x0: 40.5, dx: 1, y0: -4000, dy: 0.25, entries: [
                           .init(column: 0, lo: 100, hi: 120, first: 100, last: 120, joined: false),
                           .init(column: 1, lo: 90, hi: 90, first: 90, last: 90, joined: true)]),
                       b: ColumnLine(stroke: "#d62728", width: 1.5, dash: [2, 2], x0: 40.5, dx: 1, y0: -4000, dy: 0.25, entries: [
                           .init(column: 0, lo: 130, hi: 130, first: 130, last: 130, joined: false)]))),
        .polygon(points: [1, 2, 3, 4, 5, 6, 1, 6], fill: "#fff",
                 gradient: Gradient(color: "#000", x0: 0, y0: 1, x1: 0, y1: 6.5)),
        .columns(ColumnLine(stroke: "#123", width: 2, dash: [3, 1], x0: 1.5, dx: 0.5, y0: -100, dy: 0.125, entries: [
            .init(column: 0, lo: 3, hi: 9, first: 3, last: 7, joined: false),
            .init(column: 4, lo: 5, hi: 5, first: 6, last: 5, joined: true),
        ], step: true, area: ColumnLine.Area(fill: "#abc", gradient: "#fff", base: 800, top: 16))),
        .columns(ColumnLine(stroke: "#123", width: 1, dash: [], x0: 0, dx: 1, y0: 0, dy: 1, entries: [
            .init(column: 0, lo: 3, hi: 9, first: 3, last: 9, joined: false),
        ], area: ColumnLine.Area(fill: "#abc", base: 0, top: 65535))),
    ])

    /// The JSON form reads back to the same commands (tools and tests use it).
    /// A command is as large as its largest case, and a frame copies commands by the
    /// thousand: the line cases (two lines in a band) stay boxed, so a label or a rect
    /// is not hundreds of bytes.
    /// The diff's command comparison: the same bytes are equal at once, equal commands
    /// made apart (other string objects) are equal by `==`, and a change is a change.
    @Test func commandsCompareByBytesThenByValue() {
        let font = String(repeating: "f", count: 40)   // a string kept on the heap
        let made = { (x: Float, font: String) in
            DrawCommand.text(x: x, y: 2, text: "label", font: font, fill: "#000", align: .left, baseline: .alphabetic, angle: 0)
        }
        let a = [made(1, font), .opacity(0.5), made(1, font), made(1, font)]
        let b = [made(1, font), .opacity(0.5), made(1, String(repeating: "f", count: 40)), made(1.5, font)]
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                #expect(DrawCommand.same(a, 0, b, 0))
                #expect(DrawCommand.same(a, 1, b, 1))
                #expect(DrawCommand.same(a, 2, b, 2))
                #expect(!DrawCommand.same(a, 3, b, 3))
                #expect(!DrawCommand.same(a, 0, b, 1))
            }
        }
        #expect(a.sameCommands(as: Array(a)))
        #expect(!a.sameCommands(as: b))
    }

    @Test func commandsStaySmall() {
        #expect(MemoryLayout<DrawCommand>.size <= 80)
    }

    @Test func jsonFormReadsBack() throws {
        let json = JSONValue.array(Self.everyOp.commands.map(\.json))
        #expect(try JSONFrameReader.commands(json) == Self.everyOp.commands)
    }

    @Test func decodeWhatIsEncoded() throws {
        let list = DisplayList(width: 800, height: 500, dpr: 2, layers: [
            Self.everyOp, Layer(id: .background, version: 1, commands: []),
        ])
        let bytes = BinaryFrame.encode(list)
        #expect(try BinaryFrame.decode(bytes) == list)
    }

    /// The exact bytes of a small frame, as docs/protocol.md describes them.
    @Test func exactBytes() {
        let list = DisplayList(width: 300, height: 200, dpr: 1, layers: [
            Layer(id: .series, version: 5, commands: [
                .polyline(points: [1, 2], stroke: "red", width: 2, dash: []),
                .unclip,
            ]),
        ])
        let expected: [UInt8] = [
            0x43, 0x57, 0x46, 0x32,  // "CWF2"
            0x2C, 0x01, 0xC8, 0x00,  // width 300, height 200
            0x00, 0x00, 0x80, 0x3F,  // dpr 1.0
            0x01, 0, 0, 0,           // one layer, reserved
            0, 0, 0, 0, 0, 0, 0, 0,  // data time: unknown (0.0)
            0x01, 0, 0, 0,           // layer "series", whole, reserved
            0x05, 0, 0, 0,           // version 5
            0x20, 0, 0, 0,           // body length 32
            0x01, 0x00, 0x03, 0x00, 0x72, 0x65, 0x64,  // strings: 1 — "red"
            0x02, 0, 0, 0,           // two commands
            0x01, 0x00, 0x00,        // polyline, stroke string 0
            0x00, 0x00, 0x00, 0x40,  // width 2.0
            0x00,                    // no dash
            0x01, 0, 0, 0,           // one point
            0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40,  // (1, 2)
            0x06,                    // unclip
        ]
        #expect(BinaryFrame.encode(list) == expected)
    }

    /// The exact bytes of docs/protocol.md's columns and patch examples, and what the
    /// patch makes of the layer.
    @Test func columnsAndPatchExactBytes() throws {
        typealias E = ColumnLine.Entry
        let line = ColumnLine(stroke: "red", width: 1, dash: [], x0: 10, dx: 1, y0: 0, dy: 0.25, entries: [
            E(column: 0, lo: 40, hi: 48, first: 40, last: 48, joined: false),
            E(column: 1, lo: 44, hi: 44, first: 44, last: 44, joined: true),
        ])
        let whole = Layer(id: .series, version: 6, commands: [.columns(line)])
        let first = BinaryFrame.encode(Frame(width: 300, height: 200, dpr: 1, layers: [.full(whole)]))
        #expect(first == [67, 87, 70, 50, 44, 1, 200, 0, 0, 0, 128, 63, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 6, 0,
                          0, 0, 55, 0, 0, 0, 1, 0, 3, 0, 114, 101, 100, 1, 0, 0, 0, 7, 0, 0, 0, 0, 128, 63, 0, 0, 0, 0, 32, 65,
                          0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 128, 62, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 40, 0, 48, 0, 33, 44, 0])
        let patch = LayerPatch(id: .series, base: 6, version: 7, ops: [.columns(ColumnsPatch(
            shift: 1, x0: 10.5, keepFrom: 1, keepCount: 1, head: [],
            tail: [E(column: 1, lo: 44, hi: 52, first: 44, last: 52, joined: true)]))])
        let second = BinaryFrame.encode(Frame(width: 300, height: 200, dpr: 1, layers: [.patch(patch)]))
        #expect(second == [67, 87, 70, 50, 44, 1, 200, 0, 0, 0, 128, 63, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 7, 0,
                           0, 0, 47, 0, 0, 0, 6, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 40, 65, 1, 0, 0, 0, 1, 0, 0,
                           0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 44, 0, 52, 0])
        #expect(try BinaryFrame.decodeFrame(first).layers == [.full(whole)])
        #expect(try BinaryFrame.decodeFrame(second).layers == [.patch(patch)])
        let applied = try patch.apply(to: whole)
        guard case let .columns(patched) = applied.commands[0] else { Issue.record("not columns"); return }
        #expect(patched.x0 == 10.5)
        #expect(patched.entries == [E(column: 0, lo: 44, hi: 44, first: 44, last: 44, joined: true),
                                    E(column: 1, lo: 44, hi: 52, first: 44, last: 52, joined: true)])
        // A patch for another base is refused, not misapplied.
        #expect(throws: LayerPatch.ApplyError.wrongBase(expected: 6, held: 5)) {
            try patch.apply(to: Layer(id: .series, version: 5, commands: [.columns(line)]))
        }
    }

    @Test func truncatedOrCorruptFramesAreRefused() {
        let bytes = BinaryFrame.encode(DisplayList(width: 10, height: 10, dpr: 1, layers: [Self.everyOp]))
        for cut in [0, 3, 15, 16, 30, bytes.count - 1] {
            #expect(throws: FrameDecodeError.self) { try BinaryFrame.decode(Array(bytes.prefix(cut))) }
        }
        var badMagic = bytes; badMagic[0] = 0
        #expect(throws: FrameDecodeError.self) { try BinaryFrame.decode(badMagic) }
        #expect(throws: FrameDecodeError.self) { try BinaryFrame.decode(bytes + [0]) }
    }

    @Test func jsonFormOfEachOp() {
        let texts = Self.everyOp.commands.map(\.json.compactText)
        #expect(texts[0] == ##"{"op":"rect","x":0,"y":0,"w":10,"h":5,"fill":"#fff"}"##)
        #expect(texts[1] == ##"{"op":"rect","x":1,"y":2,"w":3,"h":4,"stroke":"red","lineWidth":1.5}"##)
        #expect(texts[3] == ##"{"op":"clip","x":1,"y":1,"w":8,"h":3}"##)
        #expect(texts[4] == ##"{"op":"polyline","points":[0,0,1.5,2.25,3,-1],"stroke":"#1f77b4","width":1.5}"##)
        #expect(texts[5] == ##"{"op":"polyline","points":[0,0,5,5],"stroke":"red","width":1,"dash":[4,2]}"##)
        #expect(texts[6] == ##"{"op":"segments","coords":[0,0,1,1,2,2,3,3],"stroke":"#e3e5ea","width":0.5}"##)
        #expect(texts[7] == ##"{"op":"unclip"}"##)
        #expect(texts[8] == ##"{"op":"text","x":10,"y":20,"text":"Température °C ✓","font":"12px ChartWire Sans","fill":"#333","align":"center","baseline":"alphabetic","angle":-90}"##)
        // Floats print in their shortest form, not as the nearest double.
        #expect(DrawCommand.clip(x: 3.1, y: 0.1, w: 1, h: 1).json.compactText == ##"{"op":"clip","x":3.1,"y":0.1,"w":1,"h":1}"##)
    }
}

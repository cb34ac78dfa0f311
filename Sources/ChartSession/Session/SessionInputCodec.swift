import LayoutEngine

/// The stored form of session inputs and snapshots (docs/persistence.md, "Stored
/// form"): little-endian binary, numbers as IEEE float64 columns (never a row or a
/// text per point), JSON as a tagged tree (doubles kept bit for bit). Pure Swift, so
/// every store (SQLite here, Redis next) keeps the same bytes.
public enum SessionCodec {
    public struct DecodeError: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// The kind byte each input starts with (also the log's `kind` column).
    public static func kind(_ input: SessionInput) -> UInt8 {
        switch input {
        case .define: return 1
        case .patch: return 2
        case .delete: return 3
        case .append: return 4
        case .insert: return 5
        case .update: return 6
        case .removeFirst: return 7
        case .clear: return 8
        case .replaceData: return 9
        case .write: return 10
        case .view: return 11
        case .clock: return 12
        case .pull: return 13
        case .presented: return 14
        }
    }

    public static func encode(_ input: SessionInput) -> [UInt8] {
        var w = Writer()
        w.byte(kind(input))
        switch input {
        case let .define(spec): w.json(spec)
        case let .patch(patch): w.json(patch)
        case .delete: break
        case let .append(s, xs, values), let .replaceData(s, xs, values):
            w.string(s); w.columns([xs] + values)
        case let .insert(s, index, xs, values):
            w.string(s); w.int(index); w.columns([xs] + values)
        case let .update(s, index, values):
            w.string(s); w.int(index); w.columns(values)
        case let .removeFirst(s, n): w.string(s); w.int(n)
        case let .clear(s): w.string(s)
        case let .write(body, precision, now):
            w.string(precision.rawValue); w.double(now); w.bytes(body)
        case let .view(state): w.view(state)
        case let .clock(elapsed, startedAt): w.double(elapsed); w.double(startedAt)
        case let .presented(p): w.presented(p)
        case let .pull(s, from, to, xs, values):
            w.string(s); w.double(from); w.double(to); w.columns([xs] + values)
        }
        return w.out
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> SessionInput {
        var r = Reader(bytes)
        let input: SessionInput
        switch try r.byte() {
        case 1: input = .define(spec: try r.json())
        case 2: input = .patch(try r.json())
        case 3: input = .delete
        case 4:
            let s = try r.string(), c = try r.columns()
            guard !c.isEmpty else { throw DecodeError(message: "an append without x") }
            input = .append(series: s, xs: c[0], values: Array(c.dropFirst()))
        case 5:
            let s = try r.string(), i = try r.int(), c = try r.columns()
            guard !c.isEmpty else { throw DecodeError(message: "an insert without x") }
            input = .insert(series: s, index: i, xs: c[0], values: Array(c.dropFirst()))
        case 6: input = .update(series: try r.string(), index: try r.int(), values: try r.columns())
        case 7: input = .removeFirst(series: try r.string(), count: try r.int())
        case 8: input = .clear(series: try r.string())
        case 9:
            let s = try r.string(), c = try r.columns()
            guard !c.isEmpty else { throw DecodeError(message: "a replace without x") }
            input = .replaceData(series: s, xs: c[0], values: Array(c.dropFirst()))
        case 10:
            guard let p = LineProtocolPrecision(rawValue: try r.string()) else { throw DecodeError(message: "unknown precision") }
            let now = try r.double()
            input = .write(body: try r.bytes(), precision: p, now: now)
        case 11: input = .view(try r.view())
        case 12: input = .clock(elapsed: try r.double(), startedAt: try r.double())
        case 13:
            let s = try r.string(), from = try r.double(), to = try r.double(), c = try r.columns()
            guard !c.isEmpty else { throw DecodeError(message: "a pull without x") }
            input = .pull(series: s, from: from, to: to, xs: c[0], values: Array(c.dropFirst()))
        case 14: input = .presented(try r.presented())
        case let k: throw DecodeError(message: "unknown input kind \(k) (written by a newer build?)")
        }
        guard r.atEnd else { throw DecodeError(message: "bytes after the input") }
        return input
    }

    // MARK: Snapshots

    /// A snapshot's state without its series' points (those are stored as column
    /// chunks beside it).
    public static func encodeState(_ s: SessionSnapshot) -> [UInt8] {
        var w = Writer()
        w.byte(3)  // format (1: without the settled ranges and the legend places; 2: without the label extents)
        w.json(s.spec)
        w.view(s.view)
        w.byte(s.clockElapsed == nil ? 0 : 1)
        w.double(s.clockElapsed ?? 0)
        w.double(s.startUnixTime)
        w.int(s.generators.count)
        for g in s.generators {
            w.string(g.series); w.int(g.emitted); w.u64(g.random); w.double(g.walk)
        }
        w.int(s.ranges.count)
        for r in s.ranges { w.string(r.id); w.int(r.first); w.int(r.count) }
        w.int(s.settledRanges.count)
        for r in s.settledRanges { w.string(r.axis); w.double(r.range.min); w.double(r.range.max) }
        w.int(s.legends.count)
        for l in s.legends {
            w.double(l.size.width); w.double(l.size.height)
            w.byte(l.shown.outside ? 1 : 0)
            w.string(l.shown.position?.rawValue ?? "")
        }
        w.int(s.labelExtents.count)
        for e in s.labelExtents { w.string(e.axis); w.double(e.extent.lowerBound); w.double(e.extent.upperBound) }
        return w.out
    }

    /// The state `encodeState` wrote; `series` comes empty (the chunks fill it).
    public static func decodeState(_ bytes: [UInt8]) throws(DecodeError) -> SessionSnapshot {
        var r = Reader(bytes)
        let format = try r.byte()
        guard (1...3).contains(format) else { throw DecodeError(message: "unknown snapshot format \(format) (written by a newer build?)") }
        let spec = try r.json()
        let view = try r.view()
        let hasClock = try r.byte() == 1
        let elapsed = try r.double()
        let unix = try r.double()
        var generators: [SessionSnapshot.GeneratorProgress] = []
        for _ in 0..<(try r.count()) {
            generators.append(.init(series: try r.string(), emitted: try r.int(), random: try r.u64(), walk: try r.double()))
        }
        var ranges: [SessionSnapshot.SeriesRange] = []
        for _ in 0..<(try r.count()) { ranges.append(.init(id: try r.string(), first: try r.int(), count: try r.int())) }
        var settled: [(axis: String, range: DoubleRange)] = []
        if format >= 2 {
            for _ in 0..<(try r.count()) {
                let axis = try r.string(), lo = try r.double(), hi = try r.double()
                guard lo.isFinite, hi.isFinite, lo <= hi else { throw DecodeError(message: "a settled range that is not one") }
                settled.append((axis, DoubleRange(lo, hi)))
            }
        }
        var legends: [SessionSnapshot.ShownLegendAt] = []
        // (Format 2 wrote the places last, and only when there were any.)
        if format >= 3 || format == 2 && !r.atEnd {
            for _ in 0..<(try r.count()) {
                let size = Size(width: try r.double(), height: try r.double())
                let outside = try r.byte() == 1, name = try r.string()
                guard size.width.isFinite, size.height.isFinite, name.isEmpty || LegendPosition(rawValue: name) != nil else {
                    throw DecodeError(message: "a legend place of the snapshot state is not one")
                }
                legends.append(.init(size: size, shown: Chart.ShownLegend(outside: outside, position: LegendPosition(rawValue: name))))
            }
        }
        var extents: [(axis: String, extent: ClosedRange<Double>)] = []
        if format >= 3 {
            for _ in 0..<(try r.count()) {
                let axis = try r.string(), lo = try r.double(), hi = try r.double()
                guard lo.isFinite, hi.isFinite, lo >= 0, lo <= hi else { throw DecodeError(message: "a label extent of the snapshot state is not one") }
                extents.append((axis, lo...hi))
            }
        }
        guard r.atEnd else { throw DecodeError(message: "bytes after the snapshot state") }
        return SessionSnapshot(spec: spec, view: view, clockElapsed: hasClock ? elapsed : nil, startUnixTime: unix,
                               generators: generators, series: [], ranges: ranges, settledRanges: settled, legends: legends,
                               labelExtents: extents)
    }

    /// A float64 column as bytes, and back.
    public static func columnBytes(_ v: [Double]) -> [UInt8] {
        var w = Writer()
        w.rawDoubles(v)
        return w.out
    }

    /// Appends a float64 column's values to `out` (one copy, for rebuilding long series).
    public static func appendColumn(_ bytes: [UInt8], to out: inout [Double]) throws(DecodeError) {
        guard bytes.count % 8 == 0 else { throw DecodeError(message: "a column of \(bytes.count) bytes is not float64s") }
        #if _endian(big)
        out += try column(bytes)
        #else
        bytes.withUnsafeBytes { raw in out.append(contentsOf: raw.bindMemory(to: Double.self)) }
        #endif
    }

    public static func column(_ bytes: [UInt8]) throws(DecodeError) -> [Double] {
        guard bytes.count % 8 == 0 else { throw DecodeError(message: "a column of \(bytes.count) bytes is not float64s") }
        var out = [Double](repeating: 0, count: bytes.count / 8)
        out.withUnsafeMutableBytes { dst in bytes.withUnsafeBytes { dst.copyMemory(from: $0) } }
        #if _endian(big)
        out = out.map { Double(bitPattern: $0.bitPattern.byteSwapped) }
        #endif
        return out
    }

    /// x columns at least this long are kept as a ramp when they lie on one.
    static let rampMinimum = 16

    // MARK: Writer and reader

    struct Writer {
        var out: [UInt8] = []
        mutating func byte(_ b: UInt8) { out.append(b) }
        mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        mutating func int(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
        mutating func double(_ d: Double) { u64(d.bitPattern) }
        mutating func bytes(_ b: [UInt8]) { int(b.count); out.append(contentsOf: b) }
        mutating func string(_ s: String) { bytes(Array(s.utf8)) }
        mutating func rawDoubles(_ v: [Double]) {
            #if _endian(big)
            for d in v { double(d) }
            #else
            v.withUnsafeBytes { out.append(contentsOf: $0) }
            #endif
        }
        /// Columns: their count, then each as its length and its float64s; an x column
        /// (the first) of `rampMinimum` points or more that lies on a line as `XRamp`
        /// keeps it (a sample index, a fixed rate's timestamps) instead: -1, then 1 (on
        /// the line) or 2 (within an `Int16` offset in units in the last place of
        /// it), the length, the first value and the step, and for 2 one offset a point.
        /// Read back bit for bit; 8 or 2 bytes less a point than plain float64s.
        mutating func columns(_ c: [[Double]]) {
            int(c.count)
            for (k, col) in c.enumerated() {
                if k == 0, col.count >= SessionCodec.rampMinimum, let ramp = XRamp(column: col) {
                    int(-1)
                    byte(ramp.offsets.isEmpty ? 1 : 2)
                    int(col.count)
                    double(ramp.first)
                    double(ramp.step)
                    #if _endian(big)
                    for o in ramp.offsets { withUnsafeBytes(of: o.littleEndian) { out.append(contentsOf: $0) } }
                    #else
                    ramp.offsets.withUnsafeBytes { out.append(contentsOf: $0) }
                    #endif
                } else {
                    int(col.count)
                    rawDoubles(col)
                }
            }
        }
        mutating func json(_ v: JSONValue) {
            switch v {
            case .null: byte(0)
            case let .bool(b): byte(b ? 2 : 1)
            case let .int(i): byte(3); u64(UInt64(bitPattern: i))
            case let .double(d): byte(4); double(d)
            case let .string(s): byte(5); string(s)
            case let .array(a): byte(6); int(a.count); for e in a { json(e) }
            case let .object(m): byte(7); int(m.count); for (k, e) in m { string(k); json(e) }
            }
        }
        mutating func presented(_ p: PresentedState) {
            int(p.labels.count)
            for l in p.labels { string(l.axis); double(l.extent.lowerBound); double(l.extent.upperBound) }
            int(p.legends.count)
            for l in p.legends { size(l.size); legend(l.shown) }
        }
        mutating func size(_ s: Size) { double(s.width); double(s.height) }
        /// A legend place: 0 inside, 1 outside (then its position's name, "" for none),
        /// 2 no legend.
        mutating func legend(_ shown: Chart.ShownLegend?) {
            guard let shown else { return byte(2) }
            byte(shown.outside ? 1 : 0)
            string(shown.position?.rawValue ?? "")
        }
        mutating func view(_ s: SharedViewState) {
            int(s.ranges.count)
            for (axis, range) in s.ranges {
                string(axis)
                byte(range == nil ? 0 : 1)
                double(range?.min ?? 0); double(range?.max ?? 0)
            }
            int(s.series.count)
            for e in s.series {
                string(e.id)
                byte((e.isHidden ? 1 : 0) | (e.isSelected ? 2 : 0))
                int(e.selectedPoints.count); for p in e.selectedPoints { int(p) }
                int(e.selectedSlices.count); for p in e.selectedSlices { int(p) }
                double(e.rotation)
            }
        }
    }

    struct Reader {
        let b: [UInt8]
        var i = 0
        init(_ b: [UInt8]) { self.b = b }
        var atEnd: Bool { i == b.count }
        mutating func need(_ n: Int) throws(DecodeError) {
            guard n >= 0, b.count - i >= n else { throw DecodeError(message: "truncated at byte \(i)") }
        }
        mutating func byte() throws(DecodeError) -> UInt8 { try need(1); defer { i += 1 }; return b[i] }
        mutating func u64() throws(DecodeError) -> UInt64 {
            try need(8)
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
            i += 8
            return v
        }
        mutating func int() throws(DecodeError) -> Int {
            let v = Int64(bitPattern: try u64())
            guard let n = Int(exactly: v) else { throw DecodeError(message: "integer out of range") }
            return n
        }
        /// A count of things still to read (bounded by the bytes left).
        mutating func count() throws(DecodeError) -> Int {
            let n = try int()
            guard n >= 0, n <= b.count - i else { throw DecodeError(message: "bad count \(n) at byte \(i)") }
            return n
        }
        mutating func double() throws(DecodeError) -> Double { Double(bitPattern: try u64()) }
        mutating func bytes() throws(DecodeError) -> [UInt8] {
            let n = try count()
            defer { i += n }
            return Array(b[i..<i + n])
        }
        mutating func string() throws(DecodeError) -> String { String(decoding: try bytes(), as: UTF8.self) }
        mutating func columns() throws(DecodeError) -> [[Double]] {
            var out: [[Double]] = []
            for _ in 0..<(try count()) {
                let n = try int()
                if n == -1, out.isEmpty {
                    out.append(try rampColumn())
                    continue
                }
                guard n >= 0, n <= (b.count - i) / 8 else { throw DecodeError(message: "bad column length at byte \(i)") }
                out.append(try SessionCodec.column(Array(b[i..<i + 8 * n])))
                i += 8 * n
            }
            return out
        }
        /// An x column kept as a ramp (`Writer.columns`), after its -1.
        mutating func rampColumn() throws(DecodeError) -> [Double] {
            let form = try byte()
            let n = try int()
            let first = try double(), step = try double()
            guard form == 1 || form == 2, n >= 0, n <= (form == 1 ? 1 << 27 : (b.count - i) / 2), first.isFinite, step.isFinite else {
                throw DecodeError(message: "bad ramp column at byte \(i)")
            }
            var out = [Double](repeating: 0, count: n)
            out.withUnsafeMutableBufferPointer { o in
                for j in 0..<n { o[j] = first + Double(j) * step }
                guard form == 2 else { return }
                for j in 0..<n {
                    let offset = Int16(bitPattern: UInt16(b[i + 2 * j]) | UInt16(b[i + 2 * j + 1]) << 8)
                    o[j] = Double(bitPattern: UInt64(bitPattern: Int64(bitPattern: o[j].bitPattern) &+ Int64(offset)))
                }
            }
            if form == 2 { i += 2 * n }
            return out
        }
        mutating func json(depth: Int = 0) throws(DecodeError) -> JSONValue {
            guard depth < 512 else { throw DecodeError(message: "JSON nested too deep") }
            switch try byte() {
            case 0: return .null
            case 1: return .bool(false)
            case 2: return .bool(true)
            case 3: return .int(Int64(bitPattern: try u64()))
            case 4: return .double(try double())
            case 5: return .string(try string())
            case 6:
                var a: [JSONValue] = []
                for _ in 0..<(try count()) { a.append(try json(depth: depth + 1)) }
                return .array(a)
            case 7:
                var m: [(String, JSONValue)] = []
                for _ in 0..<(try count()) { let k = try string(); m.append((k, try json(depth: depth + 1))) }
                return .object(m)
            case let t: throw DecodeError(message: "unknown JSON tag \(t)")
            }
        }
        mutating func presented() throws(DecodeError) -> PresentedState {
            var labels: [PresentedState.LabelExtent] = []
            for _ in 0..<(try count()) {
                let axis = try string(), lo = try double(), hi = try double()
                guard lo.isFinite, hi.isFinite, lo >= 0, lo <= hi else { throw DecodeError(message: "a label extent that is not one") }
                labels.append(.init(axis: axis, extent: lo...hi))
            }
            var legends: [PresentedState.LegendPlace] = []
            for _ in 0..<(try count()) { legends.append(.init(size: try size(), shown: try legend())) }
            return PresentedState(labels: labels, legends: legends)
        }
        mutating func size() throws(DecodeError) -> Size {
            let s = Size(width: try double(), height: try double())
            guard s.width.isFinite, s.height.isFinite, s.width >= 0, s.height >= 0 else { throw DecodeError(message: "a size that is not one") }
            return s
        }
        mutating func legend() throws(DecodeError) -> Chart.ShownLegend? {
            let flag = try byte()
            if flag == 2 { return nil }
            let name = try string()
            guard flag <= 1, name.isEmpty || LegendPosition(rawValue: name) != nil else {
                throw DecodeError(message: "a legend place that is not one")
            }
            return Chart.ShownLegend(outside: flag == 1, position: LegendPosition(rawValue: name))
        }
        mutating func view() throws(DecodeError) -> SharedViewState {
            var ranges: [(axis: String, range: DoubleRange?)] = []
            for _ in 0..<(try count()) {
                let axis = try string()
                let has = try byte() == 1
                let lo = try double(), hi = try double()
                ranges.append((axis, has ? DoubleRange(lo, hi) : nil))
            }
            var series: [SharedViewState.SeriesState] = []
            for _ in 0..<(try count()) {
                let id = try string()
                let flags = try byte()
                var points: [Int] = [], slices: [Int] = []
                for _ in 0..<(try count()) { points.append(try int()) }
                for _ in 0..<(try count()) { slices.append(try int()) }
                series.append(.init(id: id, isHidden: flags & 1 != 0, isSelected: flags & 2 != 0,
                                    selectedPoints: points, selectedSlices: slices, rotation: try double()))
            }
            return SharedViewState(ranges: ranges, series: series)
        }
    }
}

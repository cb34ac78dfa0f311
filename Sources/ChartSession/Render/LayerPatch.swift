/// A layer sent as the changes from a version the viewer already holds.
///
/// The viewer rebuilds the new command list by walking its copy of `base` with the
/// operations in order: `keep` copies base commands, `skip` drops them, `insert` adds
/// new ones, and `columns` replaces the next base command (a `columns` line) by a
/// patched copy of it. Base commands left over at the end are dropped. The rebuilt
/// list equals the layer the server would send whole (tested, command for command).
public struct LayerPatch: Equatable, Sendable {
    public enum Op: Equatable, Sendable {
        case keep(Int)
        case skip(Int)
        case insert([DrawCommand])
        case columns(ColumnsPatch)
    }

    public var id: LayerID
    /// The version this patch applies to, and the version it produces.
    public var base: UInt32
    public var version: UInt32
    public var ops: [Op]

    public init(id: LayerID, base: UInt32, version: UInt32, ops: [Op]) {
        self.id = id; self.base = base; self.version = version; self.ops = ops
    }

    public enum ApplyError: Error, Equatable, CustomStringConvertible, Sendable {
        case wrongBase(expected: UInt32, held: UInt32)
        case pastEnd(op: Int)
        case notColumns(op: Int)
        case badKeptRange(op: Int)

        public var description: String {
            switch self {
            case let .wrongBase(e, h): return "patch applies to version \(e), the viewer holds \(h)"
            case let .pastEnd(op): return "operation \(op) reads past the end of the base layer"
            case let .notColumns(op): return "operation \(op) patches a command that is not a columns line"
            case let .badKeptRange(op): return "operation \(op) keeps entries the base line does not have"
            }
        }
    }

    /// The layer this patch produces from `base`.
    public func apply(to base: Layer) throws(ApplyError) -> Layer {
        guard base.id == id, base.version == self.base else {
            throw .wrongBase(expected: self.base, held: base.version)
        }
        var out: [DrawCommand] = []
        var at = 0
        let old = base.commands
        for (i, op) in ops.enumerated() {
            switch op {
            case let .keep(n):
                guard n >= 0, at + n <= old.count else { throw .pastEnd(op: i) }
                out.append(contentsOf: old[at..<(at + n)]); at += n
            case let .skip(n):
                guard n >= 0, at + n <= old.count else { throw .pastEnd(op: i) }
                at += n
            case let .insert(commands):
                out.append(contentsOf: commands)
            case let .columns(p):
                guard at < old.count else { throw .pastEnd(op: i) }
                guard case let .columns(line) = old[at] else { throw .notColumns(op: i) }
                out.append(.columns(try p.apply(to: line, op: i)))
                at += 1
            }
        }
        return Layer(id: id, version: version, commands: out)
    }

    /// The patch from `old` to `new` (same layer), or nil when sending `new` whole is
    /// as small: common leading and trailing commands are kept, columns lines that
    /// only scrolled or grew are patched, the rest is replaced.
    public static func diff(from old: Layer, to new: Layer) -> LayerPatch? {
        guard old.id == new.id else { return nil }
        // Commands are compared where they lie: read out of an array, each would be
        // copied first (every string and array in it retained, then released).
        let ops = old.commands.withUnsafeBufferPointer { a in
            new.commands.withUnsafeBufferPointer { b in operations(from: a, to: b) }
        }
        return LayerPatch(id: new.id, base: old.version, version: new.version, ops: ops)
    }

    private static func operations(from a: UnsafeBufferPointer<DrawCommand>, to b: UnsafeBufferPointer<DrawCommand>) -> [Op] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, DrawCommand.same(a, prefix, b, prefix) { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix,
              DrawCommand.same(a, a.count - 1 - suffix, b, b.count - 1 - suffix) { suffix += 1 }
        let oldCount = a.count - suffix - prefix, newCount = b.count - suffix - prefix

        var ops: [Op] = []
        ops.reserveCapacity(8)
        // A run of replaced commands is gathered here and goes out as one skip and one
        // insert (merged into the ops as it grew, each insert copied the run so far).
        var skipped = 0
        var inserted: [DrawCommand] = []
        func flush() {
            if skipped > 0 { ops.append(.skip(skipped)); skipped = 0 }
            if !inserted.isEmpty { ops.append(.insert(inserted)); inserted = [] }
        }
        func add(_ op: Op) {
            flush()
            switch (ops.last, op) {
            case let (.keep(m)?, .keep(n)): ops[ops.count - 1] = .keep(m + n)
            default: ops.append(op)
            }
        }
        if prefix > 0 { add(.keep(prefix)) }
        if oldCount == newCount {
            // Command by command: equal ones kept, columns lines patched, others replaced.
            for i in prefix..<(prefix + newCount) {
                if DrawCommand.same(a, i, b, i) { add(.keep(1)); continue }
                if case let .columns(ol) = a[i], case let .columns(nl) = b[i], let p = ColumnsPatch.diff(from: ol, to: nl) {
                    add(.columns(p))
                } else {
                    if inserted.isEmpty { inserted.reserveCapacity(prefix + newCount - i) }
                    skipped += 1
                    inserted.append(b[i])
                }
            }
        } else {
            skipped = oldCount
            inserted = Array(b[prefix..<(prefix + newCount)])
        }
        if suffix > 0 { add(.keep(suffix)) }
        flush()
        return ops
    }
}

extension [DrawCommand] {
    /// Equal command for command, compared where they lie (see `LayerPatch.diff`).
    func sameCommands(as other: [DrawCommand]) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBufferPointer { a in
            other.withUnsafeBufferPointer { b in
                if a.baseAddress == b.baseAddress { return true }
                for i in 0..<a.count where !DrawCommand.same(a, i, b, i) { return false }
                return true
            }
        }
    }
}

extension DrawCommand {
    /// Whether `a[i]` equals `b[j]`: at once when they are the same bytes (the same
    /// strings and arrays, equal numbers: an unchanged command of a layer made again, its
    /// font names kept by the memo), else by `==`. (`==` on commands read from a buffer
    /// copies both first, every string and array in them retained and released.)
    @inline(__always)
    static func same(_ a: UnsafeBufferPointer<DrawCommand>, _ i: Int, _ b: UnsafeBufferPointer<DrawCommand>, _ j: Int) -> Bool {
        let size = MemoryLayout<DrawCommand>.size
        let stride = MemoryLayout<DrawCommand>.stride
        let p = UnsafeRawPointer(a.baseAddress!) + i * stride, q = UnsafeRawPointer(b.baseAddress!) + j * stride
        var k = 0
        while k + 8 <= size {
            guard p.loadUnaligned(fromByteOffset: k, as: UInt64.self) == q.loadUnaligned(fromByteOffset: k, as: UInt64.self) else {
                return a[i] == b[j]
            }
            k += 8
        }
        while k < size {
            guard p.load(fromByteOffset: k, as: UInt8.self) == q.load(fromByteOffset: k, as: UInt8.self) else { return a[i] == b[j] }
            k += 1
        }
        return true
    }
}

/// The change of one `columns` line: the columns moved by `shift` (new column 0 is
/// old column `shift`), its first column now stands at `x0`, and its entries are
/// `head`, then old entries `keepFrom..<keepFrom+keepCount` (columns re-based), then
/// `tail`. Style and vertical scale are unchanged (otherwise the line is sent whole).
public struct ColumnsPatch: Equatable, Sendable {
    public var shift: Int32
    public var x0: Float
    public var keepFrom: Int
    public var keepCount: Int
    public var head: [ColumnLine.Entry]
    public var tail: [ColumnLine.Entry]

    public init(shift: Int32, x0: Float, keepFrom: Int, keepCount: Int, head: [ColumnLine.Entry], tail: [ColumnLine.Entry]) {
        self.shift = shift; self.x0 = x0; self.keepFrom = keepFrom; self.keepCount = keepCount
        self.head = head; self.tail = tail
    }

    func apply(to line: ColumnLine, op: Int) throws(LayerPatch.ApplyError) -> ColumnLine {
        guard keepFrom >= 0, keepCount >= 0, keepFrom + keepCount <= line.entries.count else { throw .badKeptRange(op: op) }
        var out = line
        out.x0 = x0
        out.anchor = line.anchor + Int64(shift)
        out.entries = head
        out.entries.reserveCapacity(head.count + keepCount + tail.count)
        for var e in line.entries[keepFrom..<(keepFrom + keepCount)] {
            e.column -= shift
            out.entries.append(e)
        }
        out.entries.append(contentsOf: tail)
        return out
    }

    /// The patch from `old` to `new`, or nil when they differ in style or scale or the
    /// shift does not fit. Keeps the longest stretch of old entries that reappears
    /// unchanged (after re-basing) in `new`.
    static func diff(from old: ColumnLine, to new: ColumnLine) -> ColumnsPatch? {
        guard new.isPatchable(from: old) else { return nil }
        let shift64 = new.anchor - old.anchor
        guard let shift = Int32(exactly: shift64) else { return nil }
        let o = old.entries, n = new.entries
        let best: (newStart: Int, oldStart: Int, count: Int)
        if let l = new.lineage, l.count > 0, let id = old.lineage?.id, l.parent == id,
           l.parentStart >= 0, l.parentStart + l.count <= o.count, l.start >= 0, l.start + l.count <= n.count {
            // The reducer kept these entries from `old` as they were: the stretch is known
            // without comparing it, and only its ends are tried further.
            best = o.withUnsafeBufferPointer { o in
                n.withUnsafeBufferPointer { n in
                    func same(_ i: Int, _ j: Int) -> Bool {
                        var e = o[i]
                        e.column -= shift
                        return e == n[j]
                    }
                    var (a, b, count) = (l.start, l.parentStart, l.count)
                    while a > 0, b > 0, same(b - 1, a - 1) { a -= 1; b -= 1; count += 1 }
                    while a + count < n.count, b + count < o.count, same(b + count, a + count) { count += 1 }
                    return (a, b, count)
                }
            }
        } else {
            best = alignedStretch(o, n, shift: shift)
        }
        return ColumnsPatch(shift: shift, x0: new.x0, keepFrom: best.oldStart, keepCount: best.count,
                            head: Array(n[..<best.newStart]), tail: Array(n[(best.newStart + best.count)...]))
    }

    /// The longest stretch of `o` that reappears in `n` (columns re-based by `shift`).
    private static func alignedStretch(_ o: [ColumnLine.Entry], _ n: [ColumnLine.Entry],
                                       shift: Int32) -> (newStart: Int, oldStart: Int, count: Int) {
        var best = (newStart: 0, oldStart: 0, count: 0)
        // Candidate alignments: each of the first few new entries, matched to the old
        // entry in the same column (the edge entries often change).
        for start in 0..<min(n.count, 4) {
            // An entry inside the stretch found keeps the same alignment: a shorter stretch.
            if best.count > 0, start < best.newStart + best.count { continue }
            let column = n[start].column + shift
            var lo = 0, hi = o.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if o[mid].column < column { lo = mid + 1 } else { hi = mid }
            }
            var count = 0
            while start + count < n.count, lo + count < o.count {
                var e = o[lo + count]
                e.column -= shift
                guard e == n[start + count] else { break }
                count += 1
            }
            if count > best.count { best = (start, lo, count) }
        }
        return best
    }
}

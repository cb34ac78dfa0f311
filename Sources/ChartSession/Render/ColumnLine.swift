/// A line series reduced to what one device-pixel column can show: for every column
/// that holds data, the lowest and highest value drawn there, quantised.
///
/// Columns are anchored to the data, not to the window: column `k` of a series holds
/// the points whose x lies in `[k·w, (k+1)·w)` for the data width `w` of one device
/// pixel. Scrolling moves `x0` and keeps every column's content, so a frame that only
/// scrolled re-sends nothing but the columns that changed (see `LayerPatch`).
///
/// How it is drawn (the client does exactly this; `ColumnLine.polyline` is the same
/// in Swift, for tests):
/// - entry `e` stands at `x = x0 + e.column·dx` and spans `y(lo)...y(hi)`, where
///   `y(q) = y0 + q·dy`;
/// - a run of entries is a stretch of connected line; an entry with `joined` continues
///   the line from the entry before it. A joined entry in the very next column is
///   connected from wherever the pen stands; across empty columns (sparse data) the
///   line runs from `(x of previous, y(previous.last))` to `(x, y(first))`, the exact
///   ends of the data's segment;
/// - within an entry the pen goes to the nearer of `lo`/`hi` first, then the other.
///
/// Every pixel the full-resolution line covers is covered within one device pixel in x
/// and in y, values quantised to a quarter of one (tested against the full line).
///
/// A step line (`step`) holds each value until the next point: a joined entry is
/// reached by a horizontal segment at the previous entry's `last`, then a vertical
/// one to its own `first`; within an entry the pen visits `lo`, `hi`, then `last`.
/// An area (`area`) fills each stretch of line closed down to its baseline, under the
/// stroke.
public struct ColumnLine: Equatable, Sendable {
    /// The fill under a line: each stretch's polygon closed to the quantised value
    /// `base`, in `fill`, or with `gradient` a vertical gradient from `fill` at the
    /// quantised value `top` (the plot edge away from the baseline) to `gradient` at
    /// `base`.
    public struct Area: Equatable, Sendable {
        public var fill: String
        public var gradient: String?
        public var base: UInt16
        public var top: UInt16
        public init(fill: String, gradient: String? = nil, base: UInt16, top: UInt16) {
            self.fill = fill; self.gradient = gradient; self.base = base; self.top = top
        }
    }

    public struct Entry: Equatable, Sendable {
        /// Column relative to the line's first column (>= 0, non-decreasing; a column
        /// repeats when a gap splits it).
        public var column: Int32
        public var lo: UInt16
        public var hi: UInt16
        /// The first and last value of the data in the column; used only where a
        /// connection spans empty columns, or is the entry a sparse connection reaches.
        public var first: UInt16
        public var last: UInt16
        /// A line runs from the previous entry to this one.
        public var joined: Bool

        public init(column: Int32, lo: UInt16, hi: UInt16, first: UInt16, last: UInt16, joined: Bool) {
            self.column = column; self.lo = lo; self.hi = hi; self.first = first; self.last = last; self.joined = joined
        }
    }

    public var stroke: String
    public var width: Float
    public var dash: [Float]
    /// CSS x of column 0 and the distance between columns (one device pixel).
    public var x0: Float
    public var dx: Float
    /// CSS y of quantised value 0 and of one quantum.
    public var y0: Float
    public var dy: Float
    public var entries: [Entry] {
        // Entries changed by anyone but the reducer no longer are what `lineage` says.
        didSet { lineage = nil }
    }
    /// Drawn as a step line.
    public var step = false
    /// Filled down to a baseline (nil: a line only).
    public var area: Area?
    /// The absolute data column of column 0 (not sent: the server's own bookkeeping,
    /// from which a patch computes how far the columns moved). Not part of `==`.
    public var anchor: Int64 = 0
    /// Which of the entries the reducer took unchanged from the line it reduced before
    /// (server bookkeeping, not sent, not part of `==`): a patch from that line starts
    /// from them instead of comparing every entry (`ColumnsPatch.diff`).
    var lineage: Lineage?

    /// A line's identity and the stretch of entries it shares with its parent.
    struct Lineage: Sendable {
        /// This line's number (unique in the process), and its parent's.
        var id: UInt64
        var parent: UInt64
        /// Entries `start..<start+count` are the parent's entries from `parentStart` on,
        /// their columns re-based by the difference of the two anchors.
        var start: Int
        var parentStart: Int
        var count: Int
    }

    public init(stroke: String, width: Float, dash: [Float], x0: Float, dx: Float, y0: Float, dy: Float, entries: [Entry],
                step: Bool = false, area: Area? = nil) {
        self.stroke = stroke; self.width = width; self.dash = dash
        self.x0 = x0; self.dx = dx; self.y0 = y0; self.dy = dy; self.entries = entries
        self.step = step; self.area = area
    }

    public static func == (a: ColumnLine, b: ColumnLine) -> Bool {
        a.stroke == b.stroke && a.width == b.width && a.dash == b.dash && a.x0 == b.x0 && a.dx == b.dx
            && a.y0 == b.y0 && a.dy == b.dy && a.step == b.step && a.area == b.area && a.entries == b.entries
    }

    /// Gives `first` and `last` their canonical values (`lo` and `hi`) wherever the
    /// drawing does not use them: only a connection across empty columns uses them (the
    /// previous entry's `last`, this entry's `first`); an entry that starts a stretch
    /// draws from `lo` to `hi` whatever its first value. So they cost nothing on the
    /// wire (which sends them only when they differ from `lo` and `hi`), equal drawings
    /// compare equal, and a point leaving or joining a column changes nothing unless it
    /// moves the column's extremes.
    /// A step line uses them at every joined connection.
    public mutating func normalize() { normalize(entries.indices) }

    /// The same for the entries in `range` only (an entry's canonical values depend on
    /// it and its two neighbours: entries whose neighbourhood did not change keep theirs).
    mutating func normalize(_ range: Range<Int>) {
        for i in range.clamped(to: entries.indices) {
            let e = entries[i]
            if !(i > 0 && uses(entries[i - 1], e)) { entries[i].first = e.lo }
            if !(i + 1 < entries.count && uses(e, entries[i + 1])) { entries[i].last = e.hi }
        }
    }

    /// Whether drawing the connection from `previous` to `next` reads the previous
    /// entry's `last` and the next entry's `first`.
    func uses(_ previous: Entry, _ next: Entry) -> Bool {
        step ? next.joined : Self.spansGap(previous, next)
    }

    /// Same style and quantisation: a patch may carry only changed entries.
    func isPatchable(from old: ColumnLine) -> Bool {
        stroke == old.stroke && width == old.width && dash == old.dash && dx == old.dx && y0 == old.y0 && dy == old.dy
            && step == old.step && area == old.area
    }

    /// True when the entries of `next` follow `entries` as a stretch of sparse line: a
    /// joined entry more than one column after its predecessor uses first/last.
    static func spansGap(_ previous: Entry, _ next: Entry) -> Bool {
        next.joined && next.column > previous.column + 1
    }

    /// The polylines the client draws for this line, in CSS pixels (tests compare
    /// them against the full line; the client's `drawColumns` does the same).
    public var polylines: [[Float]] {
        var out: [[Float]] = []
        var current: [Float] = []
        var penY: Float = 0
        func y(_ q: UInt16) -> Float { y0 + Float(q) * dy }
        for (i, e) in entries.enumerated() {
            let x = x0 + Float(e.column) * dx
            if step {
                if i > 0, e.joined {
                    current += [x, y(entries[i - 1].last), x, y(e.first)]
                } else {
                    if current.count >= 4 { out.append(current) }
                    current = [x, y(e.first)]
                }
                current += [x, y(e.lo), x, y(e.hi), x, y(e.last)]
                continue
            }
            if i > 0, e.joined {
                let p = entries[i - 1]
                if Self.spansGap(p, e) {
                    let px = x0 + Float(p.column) * dx
                    current += [px, y(p.last), x, y(e.first)]
                    penY = y(e.first)
                }
            } else {
                if current.count >= 4 { out.append(current) }
                current = [x, y(e.first)]
                penY = y(e.first)
            }
            let (a, b) = abs(penY - y(e.lo)) <= abs(penY - y(e.hi)) ? (e.lo, e.hi) : (e.hi, e.lo)
            current += [x, y(a), x, y(b)]
            penY = y(b)
        }
        if current.count >= 4 { out.append(current) }
        return out
    }
}

/// The fill between the two lines of a band series, both reduced to device-pixel
/// columns over the same columns: `fill` where the first line (`a`, the series' `y`)
/// is above the second (`b`, `y1`) on screen, `fillY1` where it is below. The client
/// fills the region under `a` (down to `bottom`) clipped to the region above `b` (up to
/// `top`) in `fill`, and the other way round in `fillY1`; the lines themselves are
/// separate `columns` commands.
public struct BandFill: Equatable, Sendable {
    public var fill: String
    public var fillY1: String
    /// CSS y of the plot's top and bottom edges.
    public var top: Float
    public var bottom: Float
    public var a: ColumnLine
    public var b: ColumnLine
    public init(fill: String, fillY1: String, top: Float, bottom: Float, a: ColumnLine, b: ColumnLine) {
        self.fill = fill; self.fillY1 = fillY1; self.top = top; self.bottom = bottom; self.a = a; self.b = b
    }
}

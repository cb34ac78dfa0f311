import Foundation
import LayoutEngine

/// How an export writes X values (docs/export.md, "Data").
public enum ExportXFormat: String, CaseIterable, Sendable {
    /// As the X axis writes them: a time axis by its `dateFormat` in its time zone (ISO
    /// 8601 with the zone's offset when it has none), a category axis by the category's
    /// name; numbers as they are.
    case axis
    /// The stored numbers (Unix seconds on a time axis, slot indices on a category axis).
    case raw
    /// Both: `x` as `axis` writes it and `xRaw` as `raw` does.
    case both
}

/// Which data an export takes (docs/export.md, "Data").
public struct DataExportOptions: Equatable, Sendable {
    /// Series ids, in the order wanted; nil: every series that is not hidden, in chart order.
    public var series: [String]?
    /// The X range, in X axis units, each end included; nil ends: the series' X axis'
    /// visible range (the view every viewer of a shared session sees).
    public var from: Double?
    public var to: Double?
    public var xFormat: ExportXFormat
    public init(series: [String]? = nil, from: Double? = nil, to: Double? = nil, xFormat: ExportXFormat = .axis) {
        self.series = series; self.from = from; self.to = to; self.xFormat = xFormat
    }
}

/// A refused export: the HTTP status and a message naming the fault.
public struct DataExportError: Error, Equatable, CustomStringConvertible, Sendable {
    public var status: Int
    public var message: String
    public var description: String { message }
    public init(_ status: Int, _ message: String) { self.status = status; self.message = message }
}

/// The points of some of a chart's series in an X range, written as CSV or JSON
/// (docs/export.md, "Data"). Made on the session's thread; it keeps copies of the
/// series' data (the chunks are shared, copy-on-write, not copied), so the writers can
/// run later, a piece at a time, while the session goes on changing.
public final class DataExport: @unchecked Sendable {
    /// One series' share of the export.
    public struct Part: Sendable {
        public var id: String
        public var name: String
        public var kind: SeriesKind
        /// The series' X axis (nil for a pie or donut, which has none that applies).
        public var axis: AxisConfig?
        /// The X range asked for (nil: the whole series: a pie or donut).
        public var from: Double?
        public var to: Double?
        /// The points written: live indices into `values`.
        public var indices: Range<Int>
        /// `kind.valueFields`' data, in that order (x is the first's).
        var values: [XYData]
        var sliceNames: [String]
        var zone: TimeZoneOffsets
        /// A vertical band: its key (stored as x) is written as `y`, its first value as
        /// `x` (as its X axis writes it), its second as `x1`; `from`/`to` bound the key,
        /// in its Y axis' units (`yAxis`).
        public var vertical = false
        public var yAxis: AxisConfig?
        /// The value columns: "label" (a slice's name) for a pie or donut, then the
        /// series type's value fields (a vertical band's `y`, its key, and `x1`).
        public var fields: [String] { vertical ? ["y", "x1"] : (kind.isRadial ? ["label"] : []) + kind.valueFields }
        public var count: Int { indices.count }
        /// Point `i`'s x: its key, a vertical band's first value.
        func x(_ i: Int) -> Double { vertical ? values[0].y(i) : values[0].x(i) }
        /// Where the value column `field` comes from: the k-th value field's y (k ≥ 0),
        /// -1 a slice's name, -4 the key (a vertical band's `y`); nil: not this part's.
        func source(_ field: String) -> Int? {
            if vertical { return field == "y" ? -4 : field == "x1" ? 1 : nil }
            return fields.firstIndex(of: field).map { kind.isRadial ? $0 - 1 : $0 }
        }
        /// The value of column `source` (not -1) at point `i`.
        func value(_ source: Int, _ i: Int) -> Double { source == -4 ? values[0].x(i) : values[source].y(i) }
    }

    public let parts: [Part]
    public let xFormat: ExportXFormat
    public let session: String
    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }

    /// The value columns of the CSV, every series' in order of first appearance.
    public var csvFields: [String] {
        var out: [String] = []
        for p in parts { for f in p.fields where !out.contains(f) { out.append(f) } }
        return out
    }

    /// Picks the series and their points. Throws 404 for an unknown series, 400 for a
    /// range that is not one, 413 past the `exportPoints` limit.
    public init(chart: Chart, session: String = "", options: DataExportOptions = DataExportOptions(),
                limits: SessionLimits = SessionLimits.current) throws(DataExportError) {
        self.session = session
        self.xFormat = options.xFormat
        if let from = options.from, let to = options.to, from > to {
            throw DataExportError(400, "from (\(Self.number(from))) is after to (\(Self.number(to)))")
        }
        var chosen: [Series] = []
        if let ids = options.series {
            guard !ids.isEmpty else { throw DataExportError(400, "series= names no series") }
            for id in ids {
                guard let i = chart.seriesIndex(id) else { throw DataExportError(404, "no series \"\(id)\" in session \"\(session)\"") }
                if !chosen.contains(where: { $0.id == id }) { chosen.append(chart.series[i]) }
            }
        } else {
            chosen = chart.series.filter { !$0.isHidden }
        }
        let needsView = options.from == nil || options.to == nil
        let ranges = needsView ? chart.resolvedRanges() : [:]
        var parts: [Part] = []
        var total = 0
        for s in chosen {
            let axis = chart.axis(s.xAxisId)?.config
            let values = [s.data] + s.more
            var from: Double?, to: Double?
            var indices = 0..<s.data.count
            if s.isVertical {
                // A vertical band's key is on its Y axis: the points of its view there
                // (from= and to=, X units, do not apply).
                let view = (ranges.isEmpty ? chart.resolvedRanges() : ranges)[s.yAxisId]
                from = view?.min ?? -.infinity
                to = view?.max ?? .infinity
                let lo = s.data.lowerBound(from!), hi = s.data.upperBound(to!)
                indices = lo < hi ? lo..<hi : 0..<0
            } else if !s.kind.isRadial {
                let view = ranges[s.xAxisId]
                from = options.from ?? view?.min ?? -.infinity
                to = options.to ?? view?.max ?? .infinity
                // One end given past the view's other end leaves nothing (not a reversed range).
                let lo = s.data.lowerBound(from!), hi = s.data.upperBound(to!)
                indices = lo < hi ? lo..<hi : 0..<0
            }
            total += indices.count
            if total > limits.exportPoints {
                LimitCounters.count("exportPoints")
                throw DataExportError(413, "the export holds more than \(limits.exportPoints) points (limit exportPoints; "
                                      + "\(SessionLimits.howToRaise("exportPoints"))); ask for fewer series (series=) or a narrower range (from=, to=)")
            }
            var zone = TimeZoneOffsets.utc
            if axis?.type == .time, !indices.isEmpty {
                let xs = s.isVertical ? s.valueRange(indices: indices) : (s.data.x(indices.lowerBound), s.data.x(indices.upperBound - 1))
                if let xs { zone = TimeZones.offsets(axis!.timeZone, over: DoubleRange(xs.min, xs.max)) }
            }
            var part = Part(id: s.id, name: s.name, kind: s.kind, axis: axis, from: from, to: to, indices: indices,
                            values: values, sliceNames: s.sliceNames, zone: zone)
            part.vertical = s.isVertical
            if s.isVertical { part.yAxis = chart.axis(s.yAxisId)?.config }
            parts.append(part)
        }
        self.parts = parts
    }

    /// The whole CSV at once (small exports, tests, Swift programs).
    public func csv() -> [UInt8] { Self.drain(csvWriter()) }
    /// The whole JSON document at once.
    public func json() -> [UInt8] { Self.drain(jsonWriter()) }

    static func drain(_ w: ExportWriter) -> [UInt8] {
        var out: [UInt8] = []
        while w.next(into: &out, max: Int.max) {}
        return out
    }

    /// Writes the CSV a piece at a time (the server streams it).
    public func csvWriter() -> ExportWriter { ExportWriter(self, csv: true) }
    /// Writes the JSON a piece at a time.
    public func jsonWriter() -> ExportWriter { ExportWriter(self, csv: false) }

    // MARK: Values as text

    /// A slice's name as the pie's labels and legend give it.
    static func sliceName(_ names: [String], _ i: Int) -> String { i < names.count ? names[i] : "Slice \(i + 1)" }

    /// A number as the shortest text that reads back as the same double; whole numbers
    /// without ".0"; "" for a gap (NaN).
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return v.description
    }

    /// x as the axis writes it (`ExportXFormat.axis`); nil: a number.
    static func axisText(_ v: Double, part: Part) -> String? {
        guard let axis = part.axis, v.isFinite else { return nil }
        switch axis.type {
        case .time:
            if let pattern = axis.dateFormat {
                return TimeTickGenerator.format(v, pattern: pattern, zone: part.zone)
            }
            return iso8601(v, zone: part.zone)
        case .category:
            let i = Int(v.rounded())
            return v == v.rounded() && axis.categories.indices.contains(i) ? axis.categories[i] : nil
        case .numeric, .logarithmic:
            return nil
        }
    }

    /// ISO 8601 in the zone, with its offset ("2026-11-28T09:30:00+01:00"; "Z" in UTC);
    /// milliseconds when the instant has them.
    public static func iso8601(_ v: Double, zone: TimeZoneOffsets) -> String {
        let ms = ((v * 1000).rounded() / 1000)
        let whole = ms == ms.rounded(.down)
        var s = TimeTickGenerator.format(ms, pattern: whole ? "yyyy-MM-dd'T'HH:mm:ss" : "yyyy-MM-dd'T'HH:mm:ss.SSS", zone: zone)
        let off = zone.offset(atUTC: ms)
        if off == 0 { s += "Z"; return s }
        let a = abs(off) / 60
        s += (off < 0 ? "-" : "+") + (a / 60 < 10 ? "0" : "") + String(a / 60) + ":" + (a % 60 < 10 ? "0" : "") + String(a % 60)
        return s
    }

    /// Reads an ISO 8601 date or date-time ("2026-11-28", "2026-11-28T09:30",
    /// "2026-11-28 09:30:00.5+01:00", "...Z") as Unix seconds; without an offset it is a
    /// reading in `zone`. nil: not that form.
    public static func parseISO8601(_ text: String, zone: TimeZoneOffsets = .utc) -> Double? {
        let c = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= c.count else { return nil }
            var v = 0
            for k in 0..<n { let d = c[i + k]; guard d >= 48, d <= 57 else { return nil }; v = v * 10 + Int(d - 48) }
            i += n
            return v
        }
        func take(_ ch: UInt8) -> Bool { if i < c.count, c[i] == ch { i += 1; return true }; return false }
        guard let year = digits(4), take(45), let month = digits(2), take(45), let day = digits(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0, fraction = 0.0
        if i < c.count, c[i] == 84 || c[i] == 32 {  // T or space
            i += 1
            guard let h = digits(2), take(58), let m = digits(2), h < 24, m < 60 else { return nil }
            hour = h; minute = m
            if take(58) {
                guard let s = digits(2), s < 60 else { return nil }
                second = s
                if take(46) || take(44) {
                    let start = i
                    var scale = 0.1
                    while i < c.count, c[i] >= 48, c[i] <= 57 { fraction += Double(c[i] - 48) * scale; scale /= 10; i += 1 }
                    guard i > start else { return nil }
                }
            }
        }
        let local = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: fraction).seconds
        guard CivilTime(seconds: local).day == day else { return nil }  // 2026-02-31
        if i == c.count { return zone.utc(fromLocal: local) ?? local }
        if take(90), i == c.count { return local }  // Z
        // A "+" in a URL's query arrives as a space: read either as "+".
        guard i < c.count, c[i] == 43 || c[i] == 45 || c[i] == 32 else { return nil }
        let sign = c[i] == 45 ? -1.0 : 1.0
        i += 1
        guard let oh = digits(2) else { return nil }
        _ = take(58)
        let om = i < c.count ? digits(2) : 0
        guard let om, i == c.count, oh <= 23, om < 60 else { return nil }
        return local - sign * Double(oh * 3600 + om * 60)
    }
}

/// Writes an export's CSV or JSON a piece at a time: `next` appends rows until the
/// buffer holds `max` bytes (or the end), so a large export never becomes one string.
public final class ExportWriter {
    let export: DataExport
    let csv: Bool
    let fields: [String]
    // Where it is: the part, (JSON) the column, and the row within the part.
    var part = 0, column = -1, row = 0
    var started = false, finished = false, columnOpen = false

    init(_ export: DataExport, csv: Bool) {
        self.export = export
        self.csv = csv
        self.fields = export.csvFields
    }

    /// Appends the next bytes to `out` until it holds at least `max` bytes or the
    /// export is written; false once everything is written.
    public func next(into out: inout [UInt8], max: Int) -> Bool {
        if finished { return false }
        if csv { writeCSV(&out, max) } else { writeJSON(&out, max) }
        return !finished
    }

    // MARK: CSV

    /// RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled.
    static func csvField(_ s: String, _ out: inout [UInt8]) {
        let bytes = s.utf8
        guard bytes.contains(where: { $0 == 44 || $0 == 34 || $0 == 13 || $0 == 10 }) else { out.append(contentsOf: bytes); return }
        out.append(34)
        for b in bytes { if b == 34 { out.append(34) }; out.append(b) }
        out.append(34)
    }

    private func writeCSV(_ out: inout [UInt8], _ max: Int) {
        let both = export.xFormat == .both
        if !started {
            started = true
            let header = ["series", "name", "x"] + (both ? ["xRaw"] : []) + fields
            for (k, h) in header.enumerated() { if k > 0 { out.append(44) }; Self.csvField(h, &out) }
            out.append(13); out.append(10)
        }
        let parts = export.parts
        while part < parts.count, out.count < max {
            let p = parts[part]
            // Where each of the CSV's value columns comes from in this part.
            let slots: [Int?] = fields.map { p.source($0) }
            let idText: [UInt8] = { var b: [UInt8] = []; Self.csvField(p.id, &b); b.append(44); Self.csvField(p.name, &b); b.append(44); return b }()
            while row < p.indices.count, out.count < max {
                let i = p.indices.lowerBound + row
                let x = p.x(i)
                out.append(contentsOf: idText)
                switch export.xFormat {
                case .raw: out.append(contentsOf: DataExport.number(x).utf8)
                case .axis, .both:
                    if let t = DataExport.axisText(x, part: p) { Self.csvField(t, &out) } else { out.append(contentsOf: DataExport.number(x).utf8) }
                    if both { out.append(44); out.append(contentsOf: DataExport.number(x).utf8) }
                }
                for slot in slots {
                    out.append(44)
                    guard let slot else { continue }
                    if slot == -1 { Self.csvField(DataExport.sliceName(p.sliceNames, i), &out) } else {
                        out.append(contentsOf: DataExport.number(p.value(slot, i)).utf8)
                    }
                }
                out.append(13); out.append(10)
                row += 1
            }
            if row >= p.indices.count { part += 1; row = 0 }
        }
        if part >= parts.count { finished = true }
    }

    // MARK: JSON

    static func jsonString(_ s: String, _ out: inout [UInt8]) {
        out.append(34)
        for b in s.utf8 {
            switch b {
            case 34: out.append(92); out.append(34)
            case 92: out.append(92); out.append(92)
            case 10: out.append(92); out.append(110)
            case 13: out.append(92); out.append(114)
            case 9: out.append(92); out.append(116)
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8)); out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
            default: out.append(b)
            }
        }
        out.append(34)
    }

    static func jsonNumber(_ v: Double, _ out: inout [UInt8]) {
        if v.isFinite { out.append(contentsOf: DataExport.number(v).utf8) } else { out.append(contentsOf: Array("null".utf8)) }
    }

    /// The JSON columns of a part: x, xRaw (format both), then its fields.
    private func columns(_ p: DataExport.Part) -> [String] {
        ["x"] + (export.xFormat == .both ? ["xRaw"] : []) + p.fields
    }

    private func writeJSON(_ out: inout [UInt8], _ max: Int) {
        func raw(_ s: String) { out.append(contentsOf: s.utf8) }
        if !started {
            started = true
            raw("{\"session\":"); Self.jsonString(export.session, &out)
            raw(",\"format\":\"\(export.xFormat.rawValue)\",\"points\":\(export.pointCount),\"series\":[")
        }
        let parts = export.parts
        while part < parts.count, out.count < max {
            let p = parts[part]
            let cols = columns(p)
            if column < 0 {
                raw(part > 0 ? ",{" : "{")
                raw("\"id\":"); Self.jsonString(p.id, &out)
                raw(",\"name\":"); Self.jsonString(p.name, &out)
                raw(",\"type\":\"\(p.kind.rawValue)\"")
                if let a = p.axis, !p.kind.isRadial {
                    raw(",\"xAxis\":"); Self.jsonString(a.id, &out)
                    raw(",\"xType\":\"\(a.type.rawValue)\"")
                    if a.type == .time { raw(",\"timeZone\":"); Self.jsonString(a.timeZone, &out) }
                }
                if p.vertical {
                    raw(",\"orientation\":\"vertical\"")
                    if let y = p.yAxis { raw(",\"yAxis\":"); Self.jsonString(y.id, &out) }
                }
                if let f = p.from { raw(",\"from\":"); Self.jsonNumber(f, &out) }
                if let t = p.to { raw(",\"to\":"); Self.jsonNumber(t, &out) }
                raw(",\"count\":\(p.count)")
                column = 0; row = 0
            }
            while column < cols.count, out.count < max {
                let name = cols[column]
                if !columnOpen { raw(",\""); raw(name); raw("\":["); columnOpen = true }
                // What the column holds: -3 x as the axis writes it, -2 x raw, -1 a slice's
                // name, -4 a vertical band's key, k ≥ 0 the k-th value field (found once, not per value).
                let what = name == "x" ? (export.xFormat == .raw ? -2 : -3) : name == "xRaw" ? -2 : name == "label" ? -1
                    : p.source(name)!
                while row < p.indices.count, out.count < max {
                    let i = p.indices.lowerBound + row
                    if row > 0 { out.append(44) }
                    switch what {
                    case -3:
                        let x = p.x(i)
                        if let t = DataExport.axisText(x, part: p) { Self.jsonString(t, &out) } else { Self.jsonNumber(x, &out) }
                    case -2: Self.jsonNumber(p.x(i), &out)
                    case -1: Self.jsonString(DataExport.sliceName(p.sliceNames, i), &out)
                    default: Self.jsonNumber(p.value(what, i), &out)
                    }
                    row += 1
                }
                if row >= p.indices.count { raw("]"); columnOpen = false; column += 1; row = 0 }
            }
            if column >= cols.count { raw("}"); part += 1; column = -1; row = 0 }
        }
        if part >= parts.count { raw("]}\n"); finished = true }
    }
}

extension DataExport {
    /// Query parameters an export takes (`token` is the page's, ignored here).
    public static let queryKeys: Set<String> = ["series", "from", "to", "format", "token"]

    /// The options of `GET /api/sessions/{s}/data.csv|json` from its query: `series=a,b`,
    /// `from=`/`to=` (X axis units, or ISO 8601 when every series asked for is on a time
    /// axis: without an offset a reading in the first such axis' zone), `format=axis|raw|both`.
    public static func options(query: [String: String], chart: Chart) throws(DataExportError) -> DataExportOptions {
        if let unknown = query.keys.filter({ !queryKeys.contains($0) }).sorted().first {
            throw DataExportError(400, "unknown parameter \"\(unknown)\"; an export takes series, from, to and format")
        }
        var o = DataExportOptions()
        if let f = query["format"] {
            guard let x = ExportXFormat(rawValue: f) else { throw DataExportError(400, "format must be axis, raw or both") }
            o.xFormat = x
        }
        if let list = query["series"] {
            let ids = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !ids.contains(where: \.isEmpty) else { throw DataExportError(400, "series= takes series ids separated by commas") }
            o.series = ids
        }
        let chosen = (o.series ?? chart.series.filter { !$0.isHidden }.map(\.id)).compactMap { chart.seriesIndex($0).map { chart.series[$0] } }
        let axes = chosen.filter { !$0.kind.isRadial }.compactMap { chart.axis($0.xAxisId)?.config }
        func bound(_ key: String) throws(DataExportError) -> Double? {
            guard let text = query[key] else { return nil }
            if let v = Double(text), v.isFinite { return v }
            guard let first = axes.first(where: { $0.type == .time }) else {
                throw DataExportError(400, "\(key) must be a number in X axis units (ISO 8601 dates only for time axes)")
            }
            guard axes.allSatisfy({ $0.type == .time }) else {
                throw DataExportError(400, "\(key) is a date but not every series asked for is on a time axis; give a number or series=")
            }
            guard let approx = parseISO8601(text, zone: .utc) else {
                throw DataExportError(400, "\(key) must be a number or an ISO 8601 date (2026-11-28, 2026-11-28T09:30:00Z, 2026-11-28T09:30:00+01:00)")
            }
            // The zone's offset at that instant (summer time), when the text gave none.
            let exact = TimeZones.offsets(first.timeZone, over: DoubleRange(approx - 86_400, approx + 86_400))
            return parseISO8601(text, zone: exact) ?? approx
        }
        o.from = try bound("from")
        o.to = try bound("to")
        return o
    }
}

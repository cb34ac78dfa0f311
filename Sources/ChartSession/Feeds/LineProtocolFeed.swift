/// How a session takes InfluxDB line protocol (`lineProtocol` in its spec,
/// docs/feeding.md): which series each measurement, tag set and field feed, and what
/// happens to the ones nothing names.
public struct LineProtocolMapping: Equatable, Sendable {
    /// One rule: lines of `measurement` whose tags include every one of `tags` feed
    /// `series`. An x/y series takes the value of `field`; a series with several
    /// values (a candlestick's open, high, low and close) takes the fields named after
    /// them, all in one line.
    public struct Rule: Equatable, Sendable {
        public var measurement: String
        public var tags: [LineProtocolTag]
        public var field: String?
        public var series: String
        public init(measurement: String, tags: [LineProtocolTag] = [], field: String?, series: String) {
            self.measurement = measurement; self.tags = tags; self.field = field; self.series = series
        }
    }

    /// What happens to a value no rule takes.
    public enum Unknown: String, CaseIterable, Sendable {
        /// The whole write is refused (nothing stored), naming the line.
        case error
        /// It is skipped (counted in the answer's `ignored`).
        case ignore
        /// A line series is made for it (and a rule, so later writes go there too).
        case create
    }

    public var rules: [Rule] = []
    public var unknown = Unknown.error
    public init(rules: [Rule] = [], unknown: Unknown = .error) { self.rules = rules; self.unknown = unknown }

    /// The first rule for a value of `field` in a line with this key.
    func rule(for key: LineProtocolSeriesKey, field: String) -> Rule? {
        rules.first { r in
            r.measurement == key.measurement && (r.field == nil || r.field == field)
                && r.tags.allSatisfy { t in key.tags.contains(t) }
        }
    }

    static func read(_ r: inout JSONReader, series: [SeriesSpec]) throws -> LineProtocolMapping {
        var m = LineProtocolMapping()
        m.unknown = try r.oneOf("unknown", Unknown.self) ?? .error
        var byId: [String: SeriesSpec] = [:]
        for s in series where byId[s.id] == nil { byId[s.id] = s }
        m.rules = try r.objects("series") { e in
            let measurement = try e.requiredString("measurement")
            var tags: [LineProtocolTag] = []
            try e.object("tags") { t in
                guard case let .object(members) = t.value else { return }
                for (k, v) in members {
                    guard let s = v.stringValue else { throw JSONReadError(path: "\(t.path).\(k)", message: "expected a string, found \(v.kindName)") }
                    tags.append(LineProtocolTag(key: k, value: s))
                    _ = try t.string(k)
                }
            }
            let field = try e.string("field")
            let id = try e.requiredString("series")
            guard let target = byId[id] else {
                throw JSONReadError(path: "\(e.path).series", message: "no series \"\(id)\" in the chart")
            }
            if target.orientation == .vertical {
                // (A line's timestamp is its x; a vertical band's key is y.)
                throw JSONReadError(path: "\(e.path).series", message: "\"\(id)\" is a vertical band (its key y, its values x and x1): it is fed by appends, not timestamped lines")
            }
            if target.kind.valueFields.count == 1, field == nil {
                throw JSONReadError(path: "\(e.path).field", message: "is required: the field whose values feed \"\(id)\"")
            }
            if target.kind.valueFields.count > 1, field != nil {
                throw JSONReadError(path: "\(e.path).field", message: "a \(target.kind.rawValue) series takes the fields "
                                    + target.kind.valueFields.joined(separator: ", ") + " of each line; leave field out")
            }
            return Rule(measurement: measurement, tags: tags, field: field, series: id)
        } ?? []
        return m
    }
}

/// Why a line-protocol write was refused (nothing of it stored).
public struct LineProtocolWriteError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    /// The HTTP status that answers it: 400, or 413 past a limit (docs/limits.md).
    public var status = 400
    public var description: String { message }
}

extension Session {
    /// What a write stored.
    public struct LineProtocolWrite: Equatable, Sendable {
        /// Values stored as points.
        public var accepted = 0
        /// Values no rule took, skipped (`unknown: ignore`, and string fields).
        public var ignored = 0
        /// Series made for values no rule took (`unknown: create`).
        public var created: [String] = []
    }

    /// Stores parsed lines by the session's `lineProtocol` rules: each value is a
    /// point at the line's timestamp (Unix seconds; `now` for a line without one).
    /// Atomic: every point is checked first, and on an error nothing is stored.
    public func write(_ lines: [LineProtocolLine], now: Double) throws(LineProtocolWriteError) -> LineProtocolWrite {
        guard let mapping = lineProtocol else {
            throw LineProtocolWriteError(message: "session \"\(id)\" takes no line protocol: its spec has no \"lineProtocol\" section")
        }
        var result = LineProtocolWrite()
        // Where each series key's fields go, worked out once per key.
        enum Target { case series(Int), multi(Int), newSeries(Int), skip }
        var resolved: [LineProtocolSeriesKey: [String: Target]] = [:]
        var batches: [(xs: [Double], values: [[Double]])] = chart.series.map { s in ([], s.kind.valueFields.map { _ in [] }) }
        var created: [(rule: LineProtocolMapping.Rule, name: String)] = []
        var newBatches: [(xs: [Double], ys: [Double])] = []
        // Series made by this write, by what they take, and every id in use (kept as
        // series are made: a write making thousands of series stays linear).
        struct NewKey: Hashable { var key: LineProtocolSeriesKey, field: String }
        var createdIndex: [NewKey: Int] = [:]
        var taken: Set<String> = []

        func describe(_ key: LineProtocolSeriesKey, _ field: String?) -> String {
            "measurement \"\(key.measurement)\"" + (field.map { ", field \"\($0)\"" } ?? "")
                + (key.tags.isEmpty ? "" : ", tags " + key.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        func target(_ key: LineProtocolSeriesKey, _ field: String, line: Int) throws(LineProtocolWriteError) -> Target {
            if let rule = mapping.rule(for: key, field: field), let i = chart.seriesIndex(rule.series) {
                return chart.series[i].kind.valueFields.count > 1 ? .multi(i) : .series(i)
            }
            if let k = createdIndex[NewKey(key: key, field: field)] { return .newSeries(k) }
            switch mapping.unknown {
            case .error:
                throw LineProtocolWriteError(message: "line \(line): no series takes \(describe(key, field)); "
                                             + "add a rule to lineProtocol.series, or set lineProtocol.unknown to \"create\" or \"ignore\"")
            case .ignore: return .skip
            case .create:
                if taken.isEmpty { taken = Set(chart.series.map(\.id)) }
                let rule = LineProtocolMapping.Rule(measurement: key.measurement, tags: key.tags, field: field,
                                                    series: Self.seriesId(for: key, field: field, taken: taken))
                taken.insert(rule.series)
                createdIndex[NewKey(key: key, field: field)] = created.count
                created.append((rule, "\(key.measurement) \(field)" + (key.tags.isEmpty ? "" : " (" + key.tags.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")")))
                newBatches.append(([], []))
                return .newSeries(created.count - 1)
            }
        }

        for line in lines {
            let x = line.timestampNanos.map { Double($0) / 1e9 } ?? now
            var fields = resolved[line.seriesKey] ?? [:]
            var multiDone: Set<Int> = []
            for f in line.fields {
                let t: Target
                if let known = fields[f.key] { t = known } else { t = try target(line.seriesKey, f.key, line: line.lineNumber); fields[f.key] = t }
                switch t {
                case .skip:
                    result.ignored += 1
                case let .series(i):
                    guard let v = f.value.number else {
                        throw LineProtocolWriteError(message: "line \(line.lineNumber): field \"\(f.key)\" holds a string; series \"\(chart.series[i].id)\" takes numbers")
                    }
                    batches[i].xs.append(x)
                    batches[i].values[0].append(v)
                case let .newSeries(k):
                    guard let v = f.value.number else { result.ignored += 1; continue }
                    newBatches[k].xs.append(x)
                    newBatches[k].ys.append(v)
                case let .multi(i):
                    // One point from the fields named after the series' values.
                    guard multiDone.insert(i).inserted else { continue }
                    var point: [Double] = []
                    for name in chart.series[i].kind.valueFields {
                        guard let v = line.fields.last(where: { $0.key == name })?.value.number else {
                            throw LineProtocolWriteError(message: "line \(line.lineNumber): series \"\(chart.series[i].id)\" takes the numeric fields "
                                                         + chart.series[i].kind.valueFields.joined(separator: ", ") + "; \"\(name)\" is missing")
                        }
                        point.append(v)
                    }
                    batches[i].xs.append(x)
                    for k in point.indices { batches[i].values[k].append(point[k]) }
                }
            }
            resolved[line.seriesKey] = fields
        }

        // Everything is checked before anything is stored.
        for (i, b) in batches.enumerated() where !b.xs.isEmpty {
            do {
                try chart.series[i].validate(xs: b.xs, values: b.values)
                try chart.checkStackX(i, xs: b.xs)
            } catch {
                throw LineProtocolWriteError(message: "series \"\(chart.series[i].id)\": \(error)")
            }
        }
        // The point budget of series without capacity, for all of the write at once.
        var growth = newBatches.reduce(0) { $0 + $1.xs.count }
        var first = created.first?.rule.series
        for (i, b) in batches.enumerated() where !b.xs.isEmpty && chart.series[i].data.capacity == nil {
            growth += b.xs.count
            first = first ?? chart.series[i].id
        }
        do { try checkPointBudget(adding: growth, series: first ?? "") } catch {
            throw LineProtocolWriteError(message: error.description, status: error.status)
        }
        let limits = SessionLimits.current
        if !created.isEmpty, chart.series.count + created.count > limits.seriesPerChart {
            LimitCounters.count("seriesPerChart")
            throw LineProtocolWriteError(message: "the write makes \(created.count) series, and session \"\(id)\" has \(chart.series.count): "
                                         + "a chart holds at most \(limits.seriesPerChart) (limit seriesPerChart; \(SessionLimits.howToRaise("seriesPerChart")))",
                                         status: 413)
        }
        let ids = chart.series.map(\.id)
        if !created.isEmpty {
            // New series go through the spec, so the live spec lists them and their rules.
            let patch: JSONValue = .object([
                ("chart", .object([("series", .array(created.map { .object([("id", .string($0.rule.series)), ("name", .string($0.name))]) }))])),
                ("lineProtocol", .object([("series", .array((specJSON?["lineProtocol"]?["series"]?.arrayValue ?? []) + created.map { c in
                    .object([("measurement", .string(c.rule.measurement)), ("field", .string(c.rule.field ?? "")), ("series", .string(c.rule.series))]
                            + (c.rule.tags.isEmpty ? [] : [("tags", .object(c.rule.tags.map { ($0.key, .string($0.value)) }))]))
                }))])),
            ])
            do { try applyPatch(patch) } catch {
                throw LineProtocolWriteError(message: "cannot make series for new values: \(error)")
            }
            result.created = created.map(\.rule.series)
        }
        chart.suspendUpdates {
            for (i, b) in batches.enumerated() where !b.xs.isEmpty {
                try! chart.append(seriesId: ids[i], xs: b.xs, values: b.values)
                result.accepted += b.xs.count
            }
            for (k, b) in newBatches.enumerated() where !b.xs.isEmpty {
                // Checked like any append; a new series holds nothing before.
                guard (try? chart.append(seriesId: created[k].rule.series, xs: b.xs, ys: b.ys)) != nil else { continue }
                result.accepted += b.xs.count
            }
        }
        recordPoints()
        return result
    }

    /// An id for a series made from line protocol: measurement, field and tag values,
    /// reduced to the characters ids allow, shortened with a hash when long, and made
    /// unique against `taken`.
    static func seriesId(for key: LineProtocolSeriesKey, field: String, taken: Set<String>) -> String {
        let raw = ([key.measurement, field] + key.tags.map(\.value)).joined(separator: "-")
        var id = String(raw.unicodeScalars.map { s -> Character in
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == "_") ? Character(s) : "_"
        })
        if id.count > 64 {
            var h: UInt64 = 0xcbf29ce484222325
            for b in raw.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
            id = String(id.prefix(51)) + "-" + String(h & 0xFFF_FFFF_FFFF, radix: 16)
        }
        var unique = id, n = 2
        while taken.contains(unique) { unique = String(id.prefix(60)) + "-\(n)"; n += 1 }
        return unique
    }
}

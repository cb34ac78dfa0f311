/// Several sessions' charts on one page, laid out as a grid, drawn over one WebSocket
/// (`/d/{id}`, `/ws/d/{id}`; spec `dashboards`, docs/config.md). Each chart is a
/// session of its own, with its own access, view mode and feeds; a session may be on
/// several dashboards and keeps its own page.
public struct Dashboard: Equatable, Sendable {
    public struct Cell: Equatable, Sendable {
        public var session: String
        public var columnSpan = 1
        public var rowSpan = 1
        public init(session: String, columnSpan: Int = 1, rowSpan: Int = 1) {
            self.session = session; self.columnSpan = columnSpan; self.rowSpan = rowSpan
        }
    }
    public var id: String
    public var title: String
    public var description: String?
    /// Grid columns; cells fill rows left to right.
    public var columns = 2
    /// Height of a grid row, CSS px.
    public var rowHeight = 320.0
    public var cells: [Cell]

    public init(id: String, title: String, columns: Int = 2, rowHeight: Double = 320, cells: [Cell]) {
        self.id = id; self.title = title; self.columns = columns; self.rowHeight = rowHeight; self.cells = cells
    }

    /// Most charts on one dashboard (one WebSocket carries them all).
    public static let maxCells = 32

    /// What the page is told first on a dashboard's connection: the grid.
    public func layoutMessage(titles: [String: String]) -> JSONValue {
        .object([
            ("type", "dashboard"), ("id", .string(id)), ("title", .string(title)),
            ("columns", .int(Int64(columns))), ("rowHeight", .number(rowHeight)),
            ("charts", .array(cells.enumerated().map { i, c in
                .object([("chart", .int(Int64(i))), ("session", .string(c.session)), ("title", .string(titles[c.session] ?? c.session)),
                         ("columnSpan", .int(Int64(c.columnSpan))), ("rowSpan", .int(Int64(c.rowSpan)))])
            })),
        ])
    }
}

extension ConfigSpec {
    /// The `dashboards` of a whole spec, checked against its `sessions` (ids are
    /// checked by `sessionIds`, the sessions the server will host).
    public static func decodeDashboards(_ json: JSONValue, sessionIds: Set<String>) throws(JSONReadError) -> [Dashboard] {
        guard let list = json["dashboards"] else { return [] }
        guard case let .array(items) = list else { throw JSONReadError(path: "$.dashboards", message: "expected an array, found \(list.kindName)") }
        var out: [Dashboard] = [], seen: Set<String> = []
        do {
            for (i, item) in items.enumerated() {
                var r = JSONReader(item, path: "$.dashboards[\(i)]")
                let id = try identifier(&r, "id")
                guard seen.insert(id).inserted else { throw JSONReadError(path: "\(r.path).id", message: "duplicate dashboard id \"\(id)\"") }
                var d = Dashboard(id: id, title: try r.string("title") ?? id, cells: [])
                d.description = try r.string("description")
                d.columns = try r.integer("columns", min: 1, max: 6) ?? 2
                d.rowHeight = try r.number("rowHeight", min: 120, max: 2000) ?? 320
                d.cells = try r.objects("charts") { c in
                    let session = try c.requiredString("session")
                    guard sessionIds.contains(session) else { throw JSONReadError(path: "\(c.path).session", message: "no session \"\(session)\"") }
                    return Dashboard.Cell(session: session, columnSpan: try c.integer("columnSpan", min: 1, max: 6) ?? 1,
                                          rowSpan: try c.integer("rowSpan", min: 1, max: 6) ?? 1)
                } ?? []
                guard !d.cells.isEmpty, d.cells.count <= Dashboard.maxCells else {
                    throw JSONReadError(path: "\(r.path).charts", message: "a dashboard shows 1 to \(Dashboard.maxCells) charts")
                }
                for (k, c) in d.cells.enumerated() where c.columnSpan > d.columns {
                    throw JSONReadError(path: "\(r.path).charts[\(k)].columnSpan", message: "is wider than the dashboard's \(d.columns) columns")
                }
                try r.finish()
                out.append(d)
            }
        } catch let e as JSONReadError {
            throw e
        } catch {
            throw JSONReadError(path: "$.dashboards", message: "\(error)")
        }
        return out
    }
}

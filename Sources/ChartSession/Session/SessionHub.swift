/// Every hosted session, in the order they were declared.
public final class SessionHub {
    public private(set) var sessions: [Session] = []

    public init(sessions: [Session] = []) { self.sessions = sessions }

    public func session(_ id: String) -> Session? { sessions.first { $0.id == id } }

    public func add(_ session: Session) {
        precondition(self.session(session.id) == nil, "duplicate session id \(session.id)")
        sessions.append(session)
    }

    /// Advances every session's clock.
    public func advance(to now: Double) { for s in sessions { s.advance(to: now) } }

    /// `GET /api/sessions`.
    public var listing: JSONValue {
        .object([("sessions", .array(sessions.map { s in
            .object([
                ("id", .string(s.id)), ("title", .string(s.title)), ("viewers", .int(Int64(s.viewerCount))),
                ("series", .array(s.chart.series.map {
                    .object([("id", .string($0.id)), ("name", .string($0.name)), ("points", .int(Int64($0.data.count)))])
                })),
            ])
        }))])
    }
}

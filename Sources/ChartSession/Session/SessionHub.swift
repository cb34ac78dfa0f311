/// Every hosted session, in the order they were declared.
public final class SessionHub {
    public private(set) var sessions: [Session] = []

    public init(sessions: [Session] = []) { self.sessions = sessions }

    public func session(_ id: String) -> Session? { sessions.first { $0.id == id } }

    /// Grids of sessions shown on one page over one connection.
    public var dashboards: [Dashboard] = []
    public func dashboard(_ id: String) -> Dashboard? { dashboards.first { $0.id == id } }

    /// Where the sessions' inputs are logged (`SessionInput`); given to every session
    /// added. nil: memory only.
    public var journal: (any SessionJournal)? {
        didSet { for s in sessions { s.journal = journal } }
    }

    /// Called with every session the hub takes (`add`, `replace`): the server gives
    /// each its `/metrics` observer.
    public var onAdd: ((Session) -> Void)? {
        didSet { if let onAdd { for s in sessions { onAdd(s) } } }
    }

    public func add(_ session: Session) {
        precondition(self.session(session.id) == nil, "duplicate session id \(session.id)")
        session.journal = journal
        onAdd?(session)
        sessions.append(session)
        session.recordPoints()
        session.groupPeers = { [weak self, weak session] in
            guard let self, let session, let group = session.eventGroup else { return [] }
            return self.sessions.filter { $0 !== session && $0.eventGroup == group }
        }
        session.mayJoinGroup = { [weak self, weak session] group, token in
            self?.mayJoin(group: group, token: token, except: session) ?? true
        }
        session.isControlToken = { [weak self] token in
            guard let control = self?.controlToken else { return false }
            return SessionAccess.same(control, token)
        }
    }

    /// The server's control token (`CHARTWIRE_CONTROL_TOKEN`): it steers every session.
    public var controlToken: String?

    /// Whether a client holding `token` (nil: none) may put a session into event group
    /// `group` (docs/limits.md, "Event groups"): when no session of the group is
    /// protected (has access), anyone; otherwise the control token or a controller token
    /// of one of the group's sessions. `except`: the session being redefined.
    public func mayJoin(group: String, token: String?, except: Session? = nil) -> Bool {
        let members = sessions.filter { $0 !== except && $0.eventGroup == group }
        guard members.contains(where: { !$0.access.isOpen }) else { return true }
        guard let token else { return false }
        if let control = controlToken, SessionAccess.same(control, token) { return true }
        return members.contains { !$0.access.isOpen && (try? $0.access.role(for: token).get()) == .controller }
    }

    /// Puts `session` in the place of the hosted session with its id (a session rebuilt
    /// from storage at start-up takes the place of the one the config file made).
    public func replace(_ session: Session) {
        guard let i = sessions.firstIndex(where: { $0.id == session.id }) else { return add(session) }
        sessions[i].finishRendering()
        session.journal = journal
        session.groupPeers = sessions[i].groupPeers
        sessions[i] = session
        onAdd?(session)
    }

    /// Stops hosting a session; its viewers are told and disconnected by the transport
    /// (which notices through `removals`).
    @discardableResult
    public func remove(_ id: String) -> Session? {
        guard let i = sessions.firstIndex(where: { $0.id == id }) else { return nil }
        removals &+= 1
        // Views still rendering are collected now: the transport looks only at hosted
        // sessions, and the render thread stays taken until they are.
        sessions[i].finishRendering()
        sessions[i].releasePoints()
        return sessions.remove(at: i)
    }

    /// Counts removals, so the transport can tell cheaply when to look for viewers of
    /// sessions no longer hosted.
    public private(set) var removals = 0

    /// Advances every session's clock.
    public func advance(to now: Double, unixTime: Double = 0) {
        for s in sessions { s.advance(to: now, unixTime: unixTime) }
    }

    /// Whether some session generates its own data or animates, so its clock must
    /// run often.
    public var needsClock: Bool { sessions.contains(where: \.needsClock) }

    /// `GET /api/sessions`.
    public var listing: JSONValue {
        .object([("sessions", .array(sessions.map { s in
            .object([
                ("id", .string(s.id)), ("title", .string(s.title)), ("viewers", .int(Int64(s.viewerCount))),
                ("series", .array(s.chart.series.map {
                    .object([("id", .string($0.id)), ("name", .string($0.name)), ("points", .int(Int64($0.data.count)))]
                            + (s.pullJSON(series: $0.id).map { [("pull", $0)] } ?? []))
                })),
            ] + (s.pullWarnings.isEmpty ? [] : [("warnings", .array(s.pullWarnings.map { .string($0) }))]))
        }))])
    }

    /// `GET /api/stats`: what each session has published and sent, and the age of its
    /// frames (first change shown to frame handed to the transport), in milliseconds.
    public var stats: JSONValue {
        .object([("sessions", .array(sessions.map { s in
            let st = s.stats
            func ms(_ q: Double) -> JSONValue { st.ageQuantile(q).map { .number(($0 * 1e6).rounded() / 1e3) } ?? .null }
            let pulls = s.pullStates.compactMap { p in s.pullJSON(series: p.series).map { j -> JSONValue in
                guard case let .object(m) = j else { return j }
                return .object([("series", .string(p.series))] + m)
            } }
            return .object([
                ("id", .string(s.id)), ("viewers", .int(Int64(s.viewerCount))),
                ("publications", .int(Int64(st.publications))), ("frames", .int(Int64(st.frames))),
                ("superseded", .int(Int64(st.superseded))),
                ("bytes", .int(Int64(st.bytes))), ("frameAgeP50Ms", ms(0.5)), ("frameAgeP99Ms", ms(0.99)),
            ] + (pulls.isEmpty ? [] : [("pulls", .array(pulls))]))
        })),
        // What the limits refused since start-up, by limit name, and the limits in force
        // with the points they bound (docs/limits.md).
        ("refused", LimitCounters.json),
        ("limits", .object(SessionLimits.all.map { ($0.name, .int(Int64(SessionLimits.current[keyPath: $0.key]))) })),
        ("uncappedPoints", .int(Int64(Session.serverUncappedPoints))),
        ])
    }
}

/// Live control of a running session (docs/feeding.md, "Live control"): a session is
/// redefined by a whole spec (`PUT`) or a partial one (`PATCH`, the `patch` message),
/// and its live state is read back as a spec (`GET .../spec`).
///
/// Both are atomic: the new spec is checked whole, with the JSON paths start-up uses,
/// before anything changes; a refused one changes nothing. Viewers stay connected: they
/// are sent a new `welcome` (the title, series and gestures may have changed) and the
/// changed layers, in one frame.
extension Session {
    /// Whether the sender of `patch` (with `token`) may make the change: moving the
    /// session into an event group with a protected session needs the server's control
    /// token or a controller token of one of the group's sessions (docs/limits.md, "Event
    /// groups"). Checked before the patch enters the door (`submit`), since rights are
    /// the sender's, not part of the session's state a replay rebuilds.
    public func checkPatchRights(_ patch: JSONValue, token: String?) throws(JSONReadError) {
        guard case let .string(group)? = patch["eventGroup"], group != eventGroup, !mayJoinGroup(group, token) else { return }
        LimitCounters.count("eventGroup")
        throw JSONReadError(path: "$.eventGroup", message: "event group \"\(group)\" has a protected session; joining it needs the "
                            + "server's control token or a controller token of one of its sessions")
    }

    /// Lays `patch` over the session's spec and redefines the session with the result.
    /// What the patch does not touch keeps its live state: series keep their points
    /// (appended ones too), generators their progress, shown/hidden and selection
    /// their last change, axes whose definition is unchanged their zoom, and modifiers
    /// (when the patch leaves `modifiers` alone) their state. Returns the chart's version.
    @discardableResult
    public func applyPatch(_ patch: JSONValue) throws(JSONReadError) -> UInt64 {
        guard case .object = patch else { throw JSONReadError(path: "$", message: "a patch is an object: the fields of the session's spec to change") }
        guard let base = specJSON else {
            throw JSONReadError(path: "$", message: "session \"\(id)\" was built in Swift and has no spec to patch")
        }
        if let given = patch["id"], given != .string(id) {
            throw JSONReadError(path: "$.id", message: "a patch cannot change the session's id (\"\(id)\")")
        }
        if patch["access"] != nil, base["access"]?["tokensFile"] != nil {
            throw JSONReadError(path: "$.access", message: "this session's access comes with a tokens file, read at start-up; change it there")
        }
        if SpecPatch.mentions(patch["access"], "tokensFile") {
            throw JSONReadError(path: "$.access.tokensFile", message: "token files are read at start-up only; give viewerTokens and controllerTokens")
        }
        let merged = try SpecPatch.merge(Self.withDefaultAxes(base, for: patch), patch)
        var spec = try ConfigSpec.decodeSession(merged, runtime: false)
        // Tokens read from a file at start-up are not in the JSON: keep them.
        if patch["access"] == nil { spec.access = access }
        try redefine(spec, carrying: patch)
        specJSON = merged
        return chart.version
    }

    /// A spec that relies on the default x or y axis, patched with axes of that
    /// direction, names the default first: the patch adds its axes beside it (the
    /// series on it stay there) rather than replacing it. `{"id": "y", "remove": true}`
    /// removes it.
    static func withDefaultAxes(_ base: JSONValue, for patch: JSONValue) -> JSONValue {
        guard case var .object(root) = base, let c = root.firstIndex(where: { $0.0 == "chart" }),
              case var .object(chart) = root[c].1 else { return base }
        for (key, id) in [("xAxes", "x"), ("yAxes", "y")] where patch["chart"]?[key]?.arrayValue != nil {
            guard chart.first(where: { $0.0 == key }).map({ $0.1 == .null }) ?? true else { continue }
            chart.removeAll { $0.0 == key }
            chart.append((key, .array([.object([("id", .string(id))])])))
        }
        root[c].1 = .object(chart)
        return .object(root)
    }

    /// Replaces the session's whole definition (`PUT`): charts, data and state come
    /// from `spec` alone. Viewers stay connected.
    public func replace(with spec: SessionSpec) throws(JSONReadError) {
        precondition(spec.id == id, "a session keeps its id")
        try redefine(spec, carrying: nil)
        specJSON = spec.json
    }

    /// Makes the chart `spec` describes and takes it in place of the current one. With
    /// `patch`, state the patch does not touch carries over (see `applyPatch`).
    private func redefine(_ spec: SessionSpec, carrying patch: JSONValue?) throws(JSONReadError) {
        // (Views still rendering finish first: the new definition replaces what they read.)
        finishRendering()
        viewsNeedClock = true   // views take the new definition; the next clock step looks
        let fresh = spec.makeChart(defaultTheme: defaultTheme)
        var keepModifiers = false
        var rangesGiven: Set<String> = []
        if let patch {
            // Axes whose visibleRange the patch names (null too): they take it.
            for key in ["xAxes", "yAxes"] {
                for entry in patch["chart"]?[key]?.arrayValue ?? [] where entry["visibleRange"] != nil {
                    if let id = entry["id"]?.stringValue { rangesGiven.insert(id) }
                }
            }
            let patchedSeries = patch["chart"]?["series"]
            let oldSeries = specJSON?["chart"]?["series"], newSeries = spec.json?["chart"]?["series"]
            // Entries by id, found in one step each (thousands of series: linear, not quadratic).
            let patched = SpecPatch.entries(patchedSeries), olds = SpecPatch.entries(oldSeries), news = SpecPatch.entries(newSeries)
            fresh.carrySeries(from: chart) { new, old in
                let given = patched[new.id]
                new.carry(from: old,
                          data: given?["data"] == nil,
                          generator: olds[new.id]?["generator"] == news[new.id]?["generator"],
                          visibility: given?["hidden"] == nil,
                          selection: given?["selected"] == nil && given?["selectedSlices"] == nil,
                          rotation: !SpecPatch.mentions(given, "rotation"))
            }
            keepModifiers = specJSON?["chart"]?["modifiers"] == spec.json?["chart"]?["modifiers"]
        }
        if let conflict = fresh.stackConflict() { throw JSONReadError(path: "$.chart.series", message: conflict) }

        // Checked: from here on nothing fails.
        chart.adopt(fresh, keepModifiers: keepModifiers, rangesGiven: rangesGiven)
        main.cache.forgetMemos()
        viewMode = spec.viewMode
        let modifiers = spec.chart.modifiers
        modifierFactory = { modifiers.map { $0.make() } }
        // Viewers' own views start again from the new definition.
        for v in viewers.values where v.view != nil { leaveView(v) }
        title = spec.title
        description = spec.description
        maxFps = spec.maxFps
        lineProtocol = spec.lineProtocol
        eventGroup = spec.eventGroup
        let accessChanged = access != spec.access
        access = spec.access
        for v in viewers.values where v.size != nil || v.role != nil {
            if accessChanged, case let .failure(refusal) = access.role(for: v.token) {
                // Its token no longer opens the session: it holds nothing until a new hello.
                v.role = nil
                v.size = nil
                v.welcomeOwed = false
                v.notices.append(ProtocolError(.unauthorized, refusal.message).json)
                continue
            }
            if accessChanged, case let .success(role) = access.role(for: v.token) { v.role = role }
            v.welcomeOwed = v.size != nil
            v.modifierDirty = true
        }
    }

    /// The session's spec as it stands now: as defined and patched, with the live
    /// state a saved copy should start from (each axis' zoom as `visibleRange`, each
    /// series' `hidden` and `selected`). Tokens are never included. `data`: every
    /// series' points as they are now, in place of those the spec gave (series fed by a
    /// generator keep none: the generator makes them).
    public func liveSpec(includeData: Bool = false) -> JSONValue? {
        guard case var .object(root)? = specJSON else { return nil }
        func set(_ members: inout [(String, JSONValue)], _ key: String, _ value: JSONValue?) {
            if let i = members.firstIndex(where: { $0.0 == key }) {
                if let value { members[i].1 = value } else { members.remove(at: i) }
            } else if let value {
                members.append((key, value))
            }
        }
        func update(_ members: inout [(String, JSONValue)], _ key: String, _ change: (inout [(String, JSONValue)]) -> Void) {
            guard let i = members.firstIndex(where: { $0.0 == key }), case var .object(inner) = members[i].1 else { return }
            change(&inner)
            members[i].1 = .object(inner)
        }
        func number(_ d: Double) -> JSONValue { d.isNaN ? .null : .number(d) }
        update(&root, "access") { access in
            set(&access, "viewerTokens", nil)
            set(&access, "controllerTokens", nil)
        }
        update(&root, "chart") { c in
            for key in ["xAxes", "yAxes"] {
                guard let i = c.firstIndex(where: { $0.0 == key }), case let .array(list) = c[i].1 else { continue }
                c[i].1 = .array(list.map { entry in
                    guard case var .object(a) = entry, let id = entry["id"]?.stringValue, let axis = chart.axis(id) else { return entry }
                    set(&a, "visibleRange", axis.userRange.map { .array([.number($0.min), .number($0.max)]) })
                    return .object(a)
                })
            }
            guard let i = c.firstIndex(where: { $0.0 == "series" }), case let .array(list) = c[i].1 else { return }
            c[i].1 = .array(list.map { entry in
                guard case var .object(o) = entry, let id = entry["id"]?.stringValue,
                      let k = chart.seriesIndex(id) else { return entry }
                let s = chart.series[k]
                set(&o, "hidden", s.isHidden ? .bool(true) : nil)
                set(&o, "selected", s.isSelected ? .bool(true) : nil)
                if s.kind.isRadial { set(&o, "selectedSlices", s.selectedSlices.isEmpty ? nil : .array(s.selectedSlices.sorted().map { .int(Int64($0)) })) }
                if includeData, s.generator == nil {
                    // (By the names the spec gives them: a vertical band's key is y, its values x and x1.)
                    var data: [(String, JSONValue)] = [(s.keyField, .array(s.data.arrays.xs.map(number)))]
                    for (field, name) in zip(s.kind.valueFields, s.fieldNames) {
                        data.append((name, .array((s.values(field)?.arrays.ys ?? []).map(number))))
                    }
                    set(&o, "data", .object(data))
                }
                return .object(o)
            })
        }
        return .object(root)
    }
}

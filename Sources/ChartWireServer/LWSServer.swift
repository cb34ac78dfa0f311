import ChartExport
import CLibWebSockets
import ChartSession
import Foundation

/// The libwebsockets transport. Everything runs on the one thread that calls
/// `lws_service`: the protocol callback, the periodic tick and all session work, so
/// sessions need no locks. This file and `LWSCallback.swift` hold every C pointer
/// of the server.
final class LWSServer {
    let options: Options
    let logger: ServerLog
    var router: Router
    let hub: SessionHub
    /// The store (`--data`); nil: memory only.
    let durability: Durability?
    private(set) var context: OpaquePointer?
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var protocolNames: [UnsafeMutablePointer<CChar>] = []
    private var tickTimer: UnsafeMutablePointer<lws_sorted_usec_list_t>?
    /// Fires when the earliest session publication falls due (see `pump`).
    private var publishTimer: UnsafeMutablePointer<lws_sorted_usec_list_t>?
    /// `hub.removals` when last looked at, to notice removed sessions.
    private var seenRemovals = 0
    /// The chart version each session had when last looked at, to notice changes.
    private var seenVersions: [ObjectIdentifier: UInt64] = [:]
    private var hostCString: UnsafeMutablePointer<CChar>?
    private var tlsCertCString: UnsafeMutablePointer<CChar>?
    private var tlsKeyCString: UnsafeMutablePointer<CChar>?
    /// Descriptors kept free beside the ones open at start (files the server opens,
    /// render threads' pipes).
    static let reservedDescriptors = 16
    /// Seconds a connection may make no progress sending a body or reading an answer.
    static let idleTimeoutS: Int32 = 10
    nonisolated(unsafe) static let alpn = strdup("http/1.1")!

    /// State of HTTP exchanges and WebSocket viewers, by connection.
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    /// HTTP answers waiting for the commit of the changes they acknowledge.
    var heldAnswers: [OpaquePointer] = []
    var clients: [OpaquePointer: WSClient] = [:]
    /// Publisher connections (`/publish/{session}/{series}`), by connection.
    var publishers: [OpaquePointer: Publisher] = [:]
    /// Work an embedding program runs on this thread (`ChartServer.every`).
    final class Timer {
        let interval: Double
        let body: (Double) -> Void
        var next: Double
        init(interval: Double, body: @escaping (Double) -> Void) {
            self.interval = interval; self.body = body
            next = ProcessInfo.processInfo.systemUptime + interval
        }
    }
    var timers: [Timer] = []
    /// Reused for every write (see `write`).
    var scratch: [UInt8] = []

    // MARK: Transport guards (docs/security.md)

    let access: AccessPolicy
    var netLimits: TransportLimits { options.transportLimits }
    /// Bytes of request bodies and publisher batches held now (declared lengths of
    /// bodies being received, publisher batches being gathered), all connections.
    var bodyBytesInFlight = 0
    var bodyBudget: Int { netLimits.bodyBudgetMB << 20 }
    /// Open connections by client address, and each connection's address.
    var connectionsByAddress: [String: Int] = [:]
    var addressOf: [OpaquePointer: String] = [:]
    /// Connections whose refused request's body lws is discarding, with the time by
    /// which it must be in (then they are closed); no further request is read on them.
    var draining: [OpaquePointer: Double] = [:]
    /// Connections `sweepSlowBodies` closed: lws closes them on its next pass, but a
    /// body byte read before that would restart lws's content timer and keep them, so
    /// every further callback for them answers -1 (close now).
    var expired: Set<OpaquePointer> = []
    /// The address of the connection lws just accepted, for the wsi it makes next.
    var acceptedAddress: String?
    /// What the guards refused or closed, by name (`GET /api/stats`, "transport").
    var counters: [String: Int] = [:]
    func count(_ name: String) { counters[name, default: 0] += 1 }
    /// Rate limit of lws's own log lines (one a second at most; the rest counted).
    /// Slack of lws's header space over `maxHeadBytes` + `maxURLBytes`.
    static let headerSlack = 1024

    var transportStats: JSONValue {
        var members: [(String, JSONValue)] = [
            ("bodyBytesInFlight", .int(Int64(bodyBytesInFlight))),
            ("bodyBudgetBytes", .int(Int64(bodyBudget))),
            ("connections", .int(Int64(addressOf.count))),
        ]
        for (k, v) in counters.sorted(by: { $0.key < $1.key }) { members.append((k, .int(Int64(v)))) }
        return .object(members)
    }

    /// Largest WebSocket message accepted from a client.
    static let maxMessage = 64 * 1024
    /// Largest batch a publisher may send: a whole append body.
    static let maxBatch = Router.maxAppendBody
    /// Acknowledgements queued for a publisher before the server stops reading from
    /// it until they are written (so a publisher that does not read cannot grow them).
    static let maxPublisherOutbox = 256
    static let viewerProtocol = "chartwire.v1"
    static let publisherProtocol = "chartwire.publish.v1"
    /// Replies queued for one client before further ones are dropped.
    static let maxOutbox = 64
    /// Period of the session clock while some series has a data generator or an
    /// animation runs.
    static let tickMicros: Int64 = 20_000
    /// Period of the clock otherwise: it only sends heartbeats (publication is
    /// driven by events and its own timer, see `pump`).
    static let idleTickMicros: Int64 = 250_000
    /// The period the tick timer was last set with.
    private var tickPeriod = Int64.max
    /// When the tick and publish timers fall due (`lws_now_usecs`), for `run`.
    private var tickDeadline = Int64.max
    private var publishDeadline = Int64.max

    init(options given: Options, resources: ServerResources) {
        var options = given
        // The command line's --allow-origin replaces the config file's list.
        if options.allowOrigins.isEmpty, let list = resources.allowOrigins { options.allowOrigins = list }
        // So does its --pull-allow the file's server.pullAllow.
        options.pullAllow = options.pullAllowList(file: resources.server)
        options.pullCA = options.pullCAFile(file: resources.server)
        self.options = options
        self.access = AccessPolicy(options: options)
        self.logger = ServerLog(format: options.logFormat, quiet: options.quiet)
        self.hub = resources.hub
        self.durability = resources.durability
        if options.heartbeat > 0 { for s in resources.hub.sessions { s.heartbeat = options.heartbeat } }
        self.router = Router(hub: resources.hub, webDir: resources.webDir,
                             fonts: resources.webFonts.familyFiles.merging(["regular.ttf": resources.regularFont, "bold.ttf": resources.boldFont]) { _, b in b },
                             measurer: resources.measurer, webFonts: resources.webFonts)
        SessionLimits.current = options.sessionLimits
        router.controlToken = resources.controlToken
        resources.hub.controlToken = resources.controlToken
        router.defaultTheme = options.theme
        router.pageHeaders = access.pageHeaders
        router.imageRenderer = resources.glyphFonts.map { ImageRenderer(fonts: $0) }
        router.heartbeat = options.heartbeat > 0 ? options.heartbeat : nil
        router.metrics.connections = { [unowned self] in self.connectionCounts() }
        router.metrics.refusals = { [unowned self] in
            // (lws's log lines and failed accepts are counted beside them, but refuse nothing.)
            self.counters.filter { !["lwsLogLines", "acceptFailed"].contains($0.key) }
                .merging(LimitCounters.snapshot) { $0 + $1 }
        }
        // Every session, hosted now or made later, counts its frames into /metrics.
        resources.hub.onAdd = { [metrics = router.metrics] s in s.observer = metrics.observer(for: s) }
        router.transportStats = { currentServer?.transportStats }
        router.durability = resources.durability
        if let warning = resources.webFonts.warning { log(.warn, "fonts", warning) }
        for warning in resources.fontWarnings + resources.webFonts.fallbackWarnings + resources.webFonts.familyWarnings {
            log(.warn, "fonts", warning)
        }
        if let note = resources.webFonts.familyNote { log(.info, "fonts", note) }
        for warning in resources.hookWarnings { log(.warn, "hooks", warning) }
        if let note = resources.storeNote { log(.info, "store", note) }
    }

    struct ListenError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Creates the context and starts listening; returns the bound port.
    func start() throws(ListenError) -> Int {
        // lws's own lines (errors and warnings) go through `lwsLogLine`: counted, read
        // for the head-overflow signal, and logged by the server's log (rate-limited,
        // silent under --quiet).
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN), lwsLogEmit)
        // The CAs https pull sources are checked against, read first: a bad --pull-ca
        // fails the start.
        if let ca = options.pullCA, case let .failure(.message(why)) = HTTPDataSource.tlsConfig(caFile: ca) {
            throw ListenError(message: "--pull-ca: \(why)")
        }
        let names: [UnsafeMutablePointer<CChar>] = ["http", Self.viewerProtocol, Self.publisherProtocol].map { (s: String) in strdup(s)! }
        protocolNames = names
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: names.count + 1)
        table.initialize(repeating: lws_protocols(), count: names.count + 1)
        for (i, name) in names.enumerated() {
            table[i].name = UnsafePointer(name)
            table[i].callback = lwsCallback
            table[i].per_session_data_size = 0
            table[i].rx_buffer_size = 16 * 1024
        }
        protocols = table

        var info = lws_context_creation_info()
        info.port = Int32(options.port)
        hostCString = strdup(options.host)
        info.iface = UnsafePointer(hostCString)
        info.protocols = UnsafePointer(table)
        info.gid = -1
        info.uid = -1
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        // Header space: the largest head allowed, a longest URL and some slack. A head
        // within it but over `maxHeadBytes` (or a target over `maxURLBytes`) is answered
        // 431 (414) by `screenHead`; one past it is closed by lws without an answer (it
        // gives up parsing; counted as headDroppedByLws).
        info.max_http_header_data2 = UInt32(netLimits.maxHeadBytes + netLimits.maxURLBytes + Self.headerSlack)
        // Heads being read at once (each holds that space while it arrives): the rest wait.
        info.max_http_header_pool2 = 256
        // A head must be whole within headerTimeoutS of the connection (or of the last
        // request on it); a body stalled for timeout_secs is closed by lws, and one slower
        // than bodyTimeoutS in all by `sweepSlowBodies`.
        info.timeout_secs_ah_idle = UInt32(netLimits.headerTimeoutS)
        info.timeout_secs = UInt32(Self.idleTimeoutS)
        // At the descriptor limit lws stops polling the listening socket (accept
        // modulation) once its own count reaches fd_limit_per_thread; leave room for the
        // descriptors the process holds besides connections, so accept never fails with
        // EMFILE (which lws would retry at once, spinning).
        var rl = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0, rl.rlim_cur != rlim_t.max {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 16
            let room = Int(rl.rlim_cur) - open - Self.reservedDescriptors
            info.fd_limit_per_thread = UInt32(max(8, room))
        }
        if let cert = options.tlsCert, let key = options.tlsKey {
            tlsCertCString = strdup(cert)
            tlsKeyCString = strdup(key)
            info.ssl_cert_filepath = UnsafePointer(tlsCertCString)
            info.ssl_private_key_filepath = UnsafePointer(tlsKeyCString)
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            // HTTP/1.1 only: lws would offer h2 by ALPN, whose streams the server's
            // head checks and WebSocket upgrades are not written for.
            info.alpn = UnsafePointer(Self.alpn)
        }
        if !options.host.contains(":") { info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
        info.user = Unmanaged.passUnretained(self).toOpaque()
        guard let ctx = lws_create_context(&info) else {
            if options.tlsCert != nil {
                throw ListenError(message: "cannot listen on \(options.host):\(options.port) with TLS (check --tls-cert and --tls-key: readable PEM files of a matching pair)")
            }
            throw ListenError(message: "cannot listen on \(options.host):\(options.port)")
        }
        context = ctx
        signalContext = ctx
        // A render thread that finished a publication's views wakes the loop, which
        // collects them (`collectRendered`). (lws_cancel_service may be called from any
        // thread; the context outlives the sessions' render threads' use of it only while
        // the server runs, hence the global, cleared on the way out.)
        Session.onRenderFinished { if let ctx = signalContext { lws_cancel_service(ctx) } }
        guard let vhost = lws_get_vhost_by_name(ctx, "default") else {
            throw ListenError(message: "libwebsockets created no default vhost")
        }
        let port = Int(lws_get_vhost_listen_port(vhost))
        // Pull sources (a series' spec `source`): fetched on worker threads, whose
        // answers wake the loop, which takes them in (`collectPulls`). A source given as
        // a path is this server's own, asked on the loopback address for a wildcard bind.
        let allow = options.pullAllow.isEmpty ? nil : Set(options.pullAllow)
        let ownHost = options.host == "0.0.0.0" ? "127.0.0.1" : options.host == "::" ? "::1" : options.host
        let own = (host: ownHost, port: UInt16(clamping: port))
        let ca = options.pullCA
        Session.makeURLSources { url in HTTPDataSource(url: url, allowed: allow, own: own, caFile: ca) }
        Session.onPullAnswered { if let ctx = signalContext { lws_cancel_service(ctx) } }

        let timer = UnsafeMutablePointer<lws_sorted_usec_list_t>.allocate(capacity: 1)
        timer.initialize(to: lws_sorted_usec_list_t())
        tickTimer = timer
        let publish = UnsafeMutablePointer<lws_sorted_usec_list_t>.allocate(capacity: 1)
        publish.initialize(to: lws_sorted_usec_list_t())
        publishTimer = publish
        scheduleTick()
        return port
    }

    /// Serves until `shouldStop` turns true (a signal) or the loop fails.
    func run(until shouldStop: () -> Bool) {
        guard let ctx = context else { return }
        while !shouldStop() {
            // lws waits in poll() with its next timer's distance truncated to whole
            // milliseconds, so in the last millisecond before one of our timers it
            // polls with a zero timeout again and again (measured: ~20 polls, most of
            // the server's CPU with a few appends a second). Sleep that remainder
            // instead; input arriving meanwhile waits at most a millisecond.
            let wait = min(tickDeadline, publishDeadline) - lws_now_usecs()
            if wait > 0 && wait <= 1000 { usleep(useconds_t(wait)) }
            if lws_service(ctx, 0) < 0 { break }
            collectRendered()
            collectExports()
            collectPulls()
            // What the turn changed: one commit, then the answers held for it go.
            durability?.commitIfPending()
            if let cluster = durability as? ClusterDurability {
                // Redis did not take the turn's changes: their answers say so.
                if let why = cluster.takeFailure() {
                    for wsi in heldAnswers { exchanges[wsi]?.response = .error(503, why) }
                }
                // Other nodes' inputs, read by the Redis reader, applied in stream order.
                if cluster.drain() { pump() }
                // Presence between nodes; viewers told when the data goes or comes back.
                liveTurn(cluster)
            }
            releaseHeldAnswers()
        }
        // A signal: let the connections go cleanly (LWSServer+Drain.swift); writes that
        // finish meanwhile are committed and answered as in the loop above.
        if shouldStop() {
            drain(ctx) {
                collectRendered()
                collectExports()
                durability?.commitIfPending()
                releaseHeldAnswers()
            }
        }
        durability?.commitIfPending()
        durability?.close()
        // A cluster node's snapshot still being written is let finish (it would be
        // written again by the next node to snapshot the session, from further back).
        (durability as? ClusterDurability)?.snapshotWriter.waitUntilIdle(seconds: 5)
        // Views still rendering would wake a context about to go.
        for session in hub.sessions { session.finishRendering() }
        signalContext = nil
        lws_context_destroy(ctx)
        context = nil
        tickTimer?.deallocate()
        publishTimer?.deallocate()
        protocols?.deallocate()
        for name in protocolNames { free(name) }
        free(hostCString)
        free(tlsCertCString)
        free(tlsKeyCString)
    }

    /// Image exports being drawn (one at a time, in order) and those done, waiting for
    /// the loop to write them.
    static let exportQueue = DispatchQueue(label: "chartwire.export")
    let finishedExports = ExportMailbox()

    /// Draws an export on `exportQueue`, then wakes the loop to write it.
    func startExport(_ wsi: OpaquePointer, _ ex: HTTPExchange, _ job: @escaping @Sendable () -> HTTPResponse) {
        let w = SentAcross(wsi), e = SentAcross(ex)
        let done = finishedExports
        Self.exportQueue.async {
            let response = job()
            done.post((w, e, response))
            if let ctx = signalContext { lws_cancel_service(ctx) }
        }
    }

    /// Exports drawn since the last turn: answered on their connections if these are
    /// still the same exchanges (a connection closed meanwhile drops its answer).
    func collectExports() {
        let done = finishedExports.take()
        for item in done {
            let wsi = item.wsi.value, ex = item.exchange.value
            guard let current = exchanges[wsi], current === ex, ex.held else { continue }
            ex.response = item.response
            router.metrics.record(method: ex.method, path: ex.path, binaryBody: false, response: item.response)
            addCORS(wsi, ex)
            if item.response.status >= 400 { logRequest(wsi, ex, item.response) }
            // Written now (not among the answers held for a commit, which a failed
            // cluster commit turns into 503s).
            lws_callback_on_writable(wsi)
        }
    }

    /// After a commit: the HTTP answers it covers may go (their connections still open).
    private func releaseHeldAnswers() {
        guard !heldAnswers.isEmpty else { return }
        for wsi in heldAnswers where exchanges[wsi]?.held == true { lws_callback_on_writable(wsi) }
        heldAnswers = []
    }

    private func scheduleTick() {
        guard let ctx = context, let timer = tickTimer else { return }
        let period = hub.needsClock || !timers.isEmpty ? Self.tickMicros : Self.idleTickMicros
        tickPeriod = period
        tickDeadline = lws_now_usecs() + period
        lws_sul_schedule(ctx, 0, timer, lwsTick, period)
    }

    /// Runs every `tickMicros`: advances the session clocks (generators), queues
    /// heartbeats, publishes what is due and asks to write to every viewer owed
    /// something.
    fileprivate func tick() {
        let now = ProcessInfo.processInfo.systemUptime
        for t in timers where now >= t.next {
            t.next = max(t.next + t.interval, now)
            t.body(Date().timeIntervalSince1970)
        }
        sweepSlowBodies(now: now)
        hub.advance(to: now, unixTime: Date().timeIntervalSince1970)
        for session in hub.sessions where session.pullsData { session.runPulls(now: now) }
        durability?.maintain(hub)
        if let cluster = durability as? ClusterDurability { liveTurn(cluster) }
        // A modifier's clock work (a long press) changed what it draws for some viewers.
        let redraw = Set(hub.sessions.filter { $0.takeViewerLayersChangedByClock() }.map(ObjectIdentifier.init))
        for (wsi, client) in clients {
            if !redraw.isEmpty, client.cells.contains(where: { redraw.contains(ObjectIdentifier($0.session)) }), client.wantsWrite {
                lws_callback_on_writable(wsi)
            }
            if options.heartbeat > 0, client.outbox.isEmpty, now - client.lastWrite >= options.heartbeat {
                client.outbox.append(.text(["type": "heartbeat"]))
                lws_callback_on_writable(wsi)
            }
        }
        pump()
        logger.flush()
        scheduleTick()
    }

    /// Sessions whose views a render thread finished (see `Session.finishRendering`):
    /// their viewers may now be sent those frames, and the next publication may be due.
    private func collectRendered() {
        var finished = false
        for session in hub.sessions where session.hasRenderingWork {
            let ready = session.takeReadyViewers()
            for id in ready {
                guard let wsi = viewerSockets[ViewerKey(session: ObjectIdentifier(session), viewer: id)],
                      let client = clients[wsi], client.wantsWrite else { continue }
                lws_callback_on_writable(wsi)
            }
            if !session.hasRenderingWork { finished = true }
        }
        // The publication is done: the next may be due.
        if finished { pump() }
    }

    /// Pull sources' answers that arrived: taken in through each session's door; a
    /// failure is logged (and kept in the series' pull state, `GET /api/stats`).
    private func collectPulls() {
        var taken = false
        let now = ProcessInfo.processInfo.systemUptime
        for session in hub.sessions where session.hasPullAnswers {
            for f in session.collectPulls(now: now) {
                logger.log(.warn, "pull", f.message, [("session", session.id), ("series", f.series)], key: "pull:\(session.id):\(f.series)")
            }
            taken = true
        }
        if taken { pump() }
    }

    /// A session's viewer, to find its connection.
    struct ViewerKey: Hashable {
        let session: ObjectIdentifier
        let viewer: ViewerID
    }
    /// The connection of each viewer (of dashboards too), for waking exactly those whose
    /// frames became ready.
    var viewerSockets: [ViewerKey: OpaquePointer] = [:]

    func register(_ wsi: OpaquePointer, _ client: WSClient) {
        clients[wsi] = client
        for cell in client.cells { viewerSockets[ViewerKey(session: ObjectIdentifier(cell.session), viewer: cell.viewer)] = wsi }
    }

    func unregister(_ wsi: OpaquePointer) -> WSClient? {
        guard let client = clients.removeValue(forKey: wsi) else { return nil }
        for cell in client.cells { viewerSockets[ViewerKey(session: ObjectIdentifier(cell.session), viewer: cell.viewer)] = nil }
        return client
    }

    /// Notices which sessions changed (appends, gestures, generators), publishes those
    /// whose frame is due, wakes their viewers, and sets the publish timer for the
    /// earliest one not yet due. Called after every event that may change a chart, so
    /// a change is published at once unless the session's `maxFps` holds it back, and
    /// then exactly when it may be.
    func pump() {
        // An event (a viewer arriving to watch an animation, a series shown or hidden)
        // may need the fast clock now rather than at the next idle tick.
        if tickPeriod != Self.tickMicros, hub.needsClock { scheduleTick() }
        publishDeadline = .max
        if hub.removals != seenRemovals { seenRemovals = hub.removals; closeRemoved() }
        let now = ProcessInfo.processInfo.systemUptime
        var earliest = Double.infinity
        for session in hub.sessions {
            // Chart events (pans, zooms, selections) go to every viewer of the session.
            let events = session.takeEvents()
            if !events.isEmpty {
                for (wsi, client) in clients {
                    guard let chart = client.cells.firstIndex(where: { $0.session === session }) else { continue }
                    for e in events where client.outbox.count < Self.maxOutbox { client.enqueue(e, chart: chart) }
                    lws_callback_on_writable(wsi)
                }
            }
            let key = ObjectIdentifier(session)
            if seenVersions[key] != session.chart.version {
                seenVersions[key] = session.chart.version
                session.noteChange(at: now, wallMs: Date().timeIntervalSince1970 * 1000)
            }
            guard let due = session.publishDue(now: now) else { continue }
            if due <= now {
                let started = ProcessInfo.processInfo.systemUptime
                session.publish(now: now)
                router.metrics.observePublish(ProcessInfo.processInfo.systemUptime - started)
                for (wsi, client) in clients where client.watches(session) && client.wantsWrite {
                    lws_callback_on_writable(wsi)
                }
            } else {
                earliest = min(earliest, due)
            }
        }
        if earliest.isFinite, let ctx = context, let timer = publishTimer {
            let delay = max(1, Int64((earliest - now) * 1e6))
            publishDeadline = lws_now_usecs() + delay
            lws_sul_schedule(ctx, 0, timer, lwsPublish, delay)
        } else if let timer = publishTimer {
            lws_sul_cancel(timer)
        }
    }

    /// Tells the viewers of sessions no longer hosted, and closes their connections
    /// once that is written.
    private func closeRemoved() {
        let hosted = Set(hub.sessions.map(ObjectIdentifier.init))
        for (wsi, client) in clients where !client.closing {
            guard let gone = client.cells.firstIndex(where: { !hosted.contains(ObjectIdentifier($0.session)) }) else { continue }
            client.closing = true
            client.outbox = []
            client.enqueue(ProtocolError(.sessionRemoved, "session \"\(client.cells[gone].session.id)\" was removed").json, chart: gone)
            lws_callback_on_writable(wsi)
        }
        for (wsi, p) in publishers where !hosted.contains(ObjectIdentifier(p.session)) && !p.closing {
            p.closing = true
            p.outbox.append(ProtocolError(.sessionRemoved, "session \"\(p.session.id)\" was removed").json)
            lws_callback_on_writable(wsi)
        }
        seenVersions = seenVersions.filter { hosted.contains($0.key) }
    }

    /// One event in the server's log (Log.swift).
    func log(_ level: ServerLog.Level, _ event: String, _ message: String, _ fields: [(String, String)] = [], key: String? = nil) {
        logger.log(level, event, message, fields, key: key)
    }

    /// Closes the connections whose request body has not arrived whole within
    /// `bodyTimeoutS` of its head (lws times out a stalled body itself, but a body that
    /// trickles a byte every few seconds restarts that timer each time).
    func sweepSlowBodies(now: Double) {
        let limit = Double(netLimits.bodyTimeoutS)
        for (wsi, ex) in exchanges where ex.awaitingBody && now - ex.started > limit {
            count("bodyTimeout")
            log(.warn, "body-timeout", "\(ex.method) \(ex.path): body not in after \(netLimits.bodyTimeoutS) s, closed", key: "body-timeout")
            releaseBody(ex)
            exchanges[wsi] = nil
            expired.insert(wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC)
        }
        for (wsi, deadline) in draining where now > deadline {
            draining[wsi] = nil
            expired.insert(wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC)
        }
    }

    /// Gives back an exchange's share of the body budget.
    func releaseBody(_ ex: HTTPExchange) {
        bodyBytesInFlight -= ex.reserved
        ex.reserved = 0
        ex.awaitingBody = false
    }

    /// One line of lws's log: counted, and logged through the server's log
    /// (rate-limited, silent under --quiet). "Ran out of header data space" marks the head lws is about to drop.
    func lwsLogLine(_ level: Int32, _ text: String) {
        // A head past lws's header space: lws closes the connection without an answer.
        if text.contains("Ran out of header data space") || text.contains("More hdr frags") { count("headDroppedByLws") }
        if text.hasPrefix("accept: errno") { count("acceptFailed") }
        count("lwsLogLines")
        logger.log(.warn, "libwebsockets", text.trimmingCharacters(in: .whitespacesAndNewlines), key: "libwebsockets")
    }
}

private func lwsLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    currentServer?.lwsLogLine(level, String(cString: line))
}

/// One HTTP request in progress: what arrived, and the response being written.
final class HTTPExchange {
    var method = "GET"
    var path = "/"
    var query: [String: String] = [:]
    var authorization: String?
    var contentEncoding: String?
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// `Router.bodyLimit` for its method and path, found at its first body bytes.
    var bodyLimit: Int?
    var response: HTTPResponse?
    var sent = 0
    /// When its head was in (system uptime), for the body timeout.
    var started = ProcessInfo.processInfo.systemUptime
    /// Its body is still arriving.
    var awaitingBody = false
    /// Bytes of the body budget it holds (its declared length).
    var reserved = 0
    /// Headers added to its response (CORS).
    var extraHeaders: [(String, String)] = []
    /// The connection closes once the response is written (a refusal: what follows
    /// the head on the connection is never read as another request).
    var closeAfter = false
    /// A refusal with a sound declared body: the body is read and discarded (by lws),
    /// then nothing more is read on the connection (`LWSServer.draining`).
    var drainThenClose = false
    /// Its answer waits for a commit (`LWSServer.heldAnswers`).
    var held = false
}

/// One publisher connection: batches in, one acknowledgement (or error) per batch out.
final class Publisher {
    let session: Session
    let series: String
    var rx: [UInt8] = []
    var rxTooLarge = false
    var rxBinary = false
    /// Batches received so far (the number the next acknowledgement carries).
    var batches = 0
    var outbox: [JSONValue] = []
    /// Reading is paused until the outbox drains.
    var paused = false
    var closing = false
    /// Bytes of the body budget the batch being gathered holds.
    var held = 0
    /// The batch being gathered did not fit the body budget: it is dropped.
    var overBudget = false
    /// On a cluster node: by batch number, the commit its acknowledgement waits for.
    var commitOf: [Int: Int] = [:]

    init(session: Session, series: String) { self.session = session; self.series = series }
}

/// One WebSocket viewer.
/// One WebSocket viewer connection: a viewer of one session (`/ws/{s}`), or of each
/// session of a dashboard (`/ws/d/{id}`), whose messages then carry a `chart` index.
final class WSClient {
    struct Cell {
        let session: Session
        let viewer: ViewerID
    }
    let cells: [Cell]
    /// The dashboard it shows; nil: one session.
    let dashboard: Dashboard?
    /// The cell whose frame is tried first at the next write (round robin).
    var nextCell = 0
    var rx: [UInt8] = []
    var rxTooLarge = false
    var rxBinary = false
    var outbox: [Outgoing] = []
    /// Its session was removed: the connection closes once the outbox is written.
    var closing = false
    /// When something was last written to this viewer (system uptime, seconds).
    var lastWrite = ProcessInfo.processInfo.systemUptime
    /// Message rate limit: tokens left (one per message) and when last refilled.
    var tokens = -1.0
    var refilled = ProcessInfo.processInfo.systemUptime
    /// Messages dropped since the last one accepted.
    var dropped = 0
    /// The close code sent once `closing` has written the outbox.
    var closeStatus = LWS_CLOSE_STATUS_GOINGAWAY

    init(cells: [Cell], dashboard: Dashboard? = nil) { self.cells = cells; self.dashboard = dashboard }

    /// A viewer of `session`.
    func watches(_ session: Session) -> Bool { cells.contains { $0.session === session } }

    /// Queues a message from cell `chart`'s session: on a dashboard it says which chart.
    func enqueue(_ json: JSONValue, chart: Int) {
        guard dashboard != nil, case let .object(members) = json else { outbox.append(.text(json)); return }
        outbox.append(.text(.object(members + [("chart", .int(Int64(chart)))])))
    }

    /// (A viewer whose view is still rendering wants nothing yet: asking would wait for
    /// the render thread. It is asked again when the view is done.)
    var wantsWrite: Bool {
        !outbox.isEmpty || closing || cells.contains { !$0.session.isRendering($0.viewer) && $0.session.wantsFrame($0.viewer) }
    }
}

private func lwsTick(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    currentServer?.tick()
}

private func lwsPublish(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    currentServer?.pump()
}

/// The server the C callbacks reach. Set once before the loop starts; touched only
/// from the service thread.
nonisolated(unsafe) var currentServer: LWSServer?

/// The context a signal handler wakes (lws_cancel_service only writes to a pipe, which
/// is safe in a handler; nothing else of Swift is touched there).
nonisolated(unsafe) var signalContext: OpaquePointer?

import CLibWebSockets
import CWireGuard
import ChartSession
import Foundation

/// The protocol callback for both the HTTP protocol and `chartwire.v1`.
func lwsCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let server = currentServer else { return 0 }
    return server.handle(wsi: wsi, reason: reason, input: input, len: len)
}

extension LWSServer {
    /// libwebsockets stores a request's path under a token named for its method.
    static let methods: [(name: String, token: lws_token_indexes)] = [
        ("GET", WSI_TOKEN_GET_URI), ("POST", WSI_TOKEN_POST_URI), ("HEAD", WSI_TOKEN_HEAD_URI),
        ("PUT", WSI_TOKEN_PUT_URI), ("PATCH", WSI_TOKEN_PATCH_URI), ("DELETE", WSI_TOKEN_DELETE_URI),
        ("OPTIONS", WSI_TOKEN_OPTIONS_URI),
    ]

    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, len: Int) -> Int32 {
        // A connection closed for a slow body (`sweepSlowBodies`): whatever it sends
        // before lws's next pass closes it at once.
        if expired.contains(wsi), [LWS_CALLBACK_HTTP, LWS_CALLBACK_HTTP_BODY, LWS_CALLBACK_HTTP_BODY_COMPLETION,
                                   LWS_CALLBACK_HTTP_WRITEABLE].contains(reason) { return -1 }
        switch reason {
        // MARK: HTTP
        case LWS_CALLBACK_HTTP:
            // A request after a refused one whose body was being discarded: never served.
            if draining[wsi] != nil { return -1 }
            let ex = HTTPExchange()
            ex.path = input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: len), as: UTF8.self) } ?? "/"
            ex.method = Self.methods.first { header(wsi, $0.token) != nil }?.name ?? "UNKNOWN"
            ex.query = queryArguments(wsi)
            ex.authorization = header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
            ex.contentEncoding = header(wsi, WSI_TOKEN_HTTP_CONTENT_ENCODING)
            exchanges[wsi] = ex
            if let refusal = screenHead(wsi, ex) {
                // A head whose framing is sound (403, 413, 421, 503 with a valid length)
                // has its declared body read and discarded, so that a client sending it
                // whole still reads the answer; anything after it on the connection is
                // refused unread. Other refusals close at once.
                if ex.reserved == 0, [403, 413, 421, 503].contains(refusal.status),
                   case let .bytes(n) = AccessPolicy.contentLength(headerOccurrences(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)), n > 0 {
                    ex.drainThenClose = true
                } else {
                    ex.closeAfter = true
                }
                return respond(wsi, ex, refusal)
            }
            if ex.method == "OPTIONS" { return respond(wsi, ex, preflight(wsi, ex)) }
            if Self.bodyMethods.contains(ex.method) {
                ex.awaitingBody = true
                return 0  // the body follows
            }
            return respond(wsi, ex)

        case LWS_CALLBACK_HTTP_BODY:
            guard let ex = exchanges[wsi], ex.awaitingBody, let input else { return 0 }
            if ex.bodyLimit == nil {
                // Once a body: its limit, and room for the length it declared (checked
                // against the limit and the bodies' budget in `screenHead`), so a large
                // body is received without growing and copying its buffer again and again.
                ex.bodyLimit = Router.bodyLimit(method: ex.method, path: ex.path)
                if ex.reserved > 0 { ex.body.reserveCapacity(ex.reserved) }
            }
            if ex.body.count + len > ex.bodyLimit! {
                ex.bodyTooLarge = true
                ex.body = []
            } else if !ex.bodyTooLarge {
                ex.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let ex = exchanges[wsi], ex.awaitingBody else { return -1 }
            let result = respond(wsi, ex)
            pump()  // an append may be due for publication at once
            return result

        case LWS_CALLBACK_HTTP_WRITEABLE:
            // An answer held for its commit (`releaseHeldAnswers`): its headers go now.
            if let ex = exchanges[wsi], ex.held { ex.held = false; return respond(wsi, ex, released: true) }
            guard let ex = exchanges[wsi], let response = ex.response else { return 0 }
            if let stream = response.stream { return writeStreamed(wsi, ex, response, stream) }
            let chunk = min(64 * 1024, response.body.count - ex.sent)
            let last = ex.sent + chunk >= response.body.count
            let ok = write(wsi, response.body, range: ex.sent..<(ex.sent + chunk),
                           mode: last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            guard ok else { return -1 }
            ex.sent += chunk
            // A reader that takes the answer, however slowly, keeps the connection;
            // one that stops reading for `timeout_secs` loses it.
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.idleTimeoutS)
            if !last { lws_callback_on_writable(wsi); return 0 }
            exchanges[wsi] = nil
            if ex.closeAfter { return -1 }
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // `input` is the accepted socket. Too many connections from its address:
            // closed at once (a fixed 503 written first when not TLS).
            let fd = Int32(truncatingIfNeeded: Int(bitPattern: input))
            guard let address = Self.peerAddress(fd) else { return 0 }
            if connectionsByAddress[address, default: 0] >= netLimits.connectionsPerAddress {
                count("connectionsPerAddress")
                if access.scheme == "http" {
                    _ = Self.tooManyConnections.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                }
                return 1
            }
            acceptedAddress = address
            return 0

        case LWS_CALLBACK_WSI_CREATE:
            // Made for the connection just accepted (before its socket is attached).
            if let address = acceptedAddress {
                acceptedAddress = nil
                addressOf[wsi] = address
                connectionsByAddress[address, default: 0] += 1
            }
            return 0

        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
            draining[wsi] = nil
            expired.remove(wsi)
            if let ex = exchanges.removeValue(forKey: wsi) { releaseBody(ex) }
            if let c = unregister(wsi) { for cell in c.cells { cell.session.disconnect(cell.viewer) } }
            if let p = publishers.removeValue(forKey: wsi) { bodyBytesInFlight -= p.held; p.held = 0 }
            if reason == LWS_CALLBACK_WSI_DESTROY, let address = addressOf.removeValue(forKey: wsi) {
                let n = connectionsByAddress[address, default: 1] - 1
                connectionsByAddress[address] = n > 0 ? n : nil
            }
            return 0

        // MARK: WebSocket
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // Refuse the upgrade unless the Host is one the server answers to, the page's
            // Origin is allowed, and the path names a hosted session (and, for a
            // publisher, a series of it and a controller's Authorization).
            if router.lifecycle.draining {
                _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_SERVICE_UNAVAILABLE.rawValue), "the server is shutting down")
                return 1
            }
            let host = header(wsi, WSI_TOKEN_HOST)
            if !access.hostAllowed(host) {
                count("hostRefused")
                _ = lws_return_http_status(wsi, UInt32(host == nil ? 400 : 421), host == nil ? "a Host header is required" : "this server does not answer to that Host")
                return 1
            }
            if !access.originAllowed(header(wsi, WSI_TOKEN_ORIGIN), host: host) {
                count("originRefused")
                _ = lws_return_http_status(wsi, 403, "WebSocket connections from this Origin are not allowed")
                log(.warn, "ws-refused", "WebSocket from a foreign Origin refused", [("origin", header(wsi, WSI_TOKEN_ORIGIN) ?? "")], key: "ws-origin")
                return 1
            }
            if isPublisher(wsi) { return filterPublisher(wsi) }
            guard viewerTarget(wsi) != nil else {
                _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_NOT_FOUND.rawValue), "no such session or dashboard")
                return 1
            }
            return 0

        case LWS_CALLBACK_ESTABLISHED:
            // Follow its frame headers for the mask bit lws does not check (plain TCP).
            if access.scheme == "http" { cw_ws_track(lws_get_socket_fd(wsi)) }
            if isPublisher(wsi) {
                guard let (session, series) = publishTarget(wsi) else { return -1 }
                publishers[wsi] = Publisher(session: session, series: series)
                log(.info, "publisher_open", "publisher of \(session.id)/\(series)", [("session", session.id), ("series", series), ("client", clientAddress(wsi))])
                return 0
            }
            switch viewerTarget(wsi) {
            case let .session(session)?:
                let client = WSClient(cells: [.init(session: session, viewer: session.connect())])
                register(wsi, client)
                log(.info, "ws_open", "viewer \(client.cells[0].viewer) of \(session.id)", [("session", session.id), ("client", clientAddress(wsi))])
            case let .dashboard(d)?:
                let sessions = d.cells.compactMap { hub.session($0.session) }
                guard sessions.count == d.cells.count else { return -1 }
                let client = WSClient(cells: sessions.map { .init(session: $0, viewer: $0.connect()) }, dashboard: d)
                // The page learns the grid first, then says hello for each chart.
                client.outbox.append(.text(d.layoutMessage(titles: Dictionary(sessions.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a }))))
                register(wsi, client)
                lws_callback_on_writable(wsi)
                log(.info, "ws_open", "viewer of dashboard \(d.id) (\(sessions.count) charts)", [("dashboard", d.id), ("client", clientAddress(wsi))])
            case nil:
                return -1
            }
            return 0

        case LWS_CALLBACK_RECEIVE:
            // RFC 6455 5.1: a client frame without a mask fails the connection (1002).
            if cw_ws_unmasked(lws_get_socket_fd(wsi)) != 0 {
                count("wsUnmasked")
                var why = Array("client frames must be masked".utf8)
                lws_close_reason(wsi, LWS_CLOSE_STATUS_PROTOCOL_ERR, &why, why.count)
                return -1
            }
            if let p = publishers[wsi] { return receivePublisher(wsi, p, input: input, len: len) }
            guard let client = clients[wsi] else { return -1 }
            if client.closing { return 0 }
            guard gather(wsi, input, len, into: &client.rx, tooLarge: &client.rxTooLarge, binary: &client.rxBinary,
                         limit: Self.maxMessage, keepCapacity: true) else { return 0 }
            switch admit(client) {
            case .accept: break
            case .drop:
                client.rx.removeAll(keepingCapacity: client.rx.capacity <= 4096)
                if client.wantsWrite { lws_callback_on_writable(wsi) }
                return 0
            case .close:
                // Closed (1008) at the next write; what it sends meanwhile is read and
                // ignored, so the close is not lost to a reset.
                count("rateLimitClosed")
                log(.warn, "ws-rate-limit", "closed: over \(netLimits.messagesPerSecond) messages a second", key: "ws-rate-limit")
                client.closing = true
                client.closeStatus = LWS_CLOSE_STATUS_POLICY_VIOLATION
                client.outbox = []
                client.rx.removeAll()
                lws_callback_on_writable(wsi)
                return 0
            }
            receiveMessage(client)
            pump()  // a gesture may have changed the chart
            if client.wantsWrite { lws_callback_on_writable(wsi) }
            return 0

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            // A close payload is empty, or a code (and a UTF-8 reason): one byte, or a
            // reason that is not UTF-8, fails the connection (RFC 6455 5.5.1, 7.1.6)
            // instead of being echoed. lws itself answers a reserved code with 1002.
            if len == 1 { count("wsProtocolError"); return -1 }
            if len > 2, let input,
               String(validating: UnsafeRawBufferPointer(start: input + 2, count: len - 2), as: UTF8.self) == nil {
                count("wsProtocolError")
                return -1
            }
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            // Nothing leaves (an ack, a reply, a frame) before the changes it may show are
            // committed: the changes of one loop turn share that commit.
            durability?.commitIfPending()
            if let p = publishers[wsi] { return writePublisher(wsi, p) }
            guard let client = clients[wsi] else { return 0 }
            if client.closing && client.outbox.isEmpty {
                var why = Array((client.closeStatus == LWS_CLOSE_STATUS_POLICY_VIOLATION ? "over the message rate limit" : "").utf8)
                lws_close_reason(wsi, client.closeStatus, &why, why.count)
                return -1
            }
            var next: Outgoing? = nil, from: Session? = nil, owedBefore = 0
            if !client.outbox.isEmpty {
                next = client.outbox.removeFirst()
            } else if !client.closing {
                // One frame per write; on a dashboard, the charts take turns.
                let n = client.cells.count, now = ProcessInfo.processInfo.systemUptime
                for k in 0..<n {
                    let i = (client.nextCell + k) % n, cell = client.cells[i]
                    if cell.session.isRendering(cell.viewer) { continue }
                    owedBefore = cell.session.viewersOwed
                    guard let out = cell.session.nextFrame(for: cell.viewer, now: now) else { continue }
                    from = cell.session
                    client.nextCell = (i + 1) % n
                    switch out {
                    case let .text(json) where client.dashboard != nil:
                        client.enqueue(json, chart: i)
                        next = client.outbox.removeLast()
                    case let .binary(bytes) where client.dashboard != nil:
                        // "CWD" and the chart index before the frame (docs/protocol.md, "Dashboards").
                        next = .binary([0x43, 0x57, 0x44, UInt8(i)] + bytes)
                    default:
                        next = out
                    }
                    break
                }
            }
            if let next {
                let ok: Bool
                switch next {
                case let .text(json):
                    ok = write(wsi, Jansson.serialize(json, realPrecision: 9), mode: LWS_WRITE_TEXT)
                case let .binary(bytes):
                    ok = write(wsi, bytes, mode: LWS_WRITE_BINARY)
                }
                guard ok else { return -1 }
                client.lastWrite = ProcessInfo.processInfo.systemUptime
            }
            // The last viewer owed the previous publication got it: the next may go.
            if let from, owedBefore > 0, from.viewersOwed == 0 { pump() }
            if client.wantsWrite { lws_callback_on_writable(wsi) }
            return 0

        case LWS_CALLBACK_CLOSED:
            cw_ws_untrack(lws_get_socket_fd(wsi))
            if let p = publishers.removeValue(forKey: wsi) {
                log(.info, "publisher_close", "publisher of \(p.session.id)/\(p.series) after \(p.batches) batches", [("session", p.session.id), ("series", p.series)])
            }
            if let c = unregister(wsi) {
                for cell in c.cells { cell.session.disconnect(cell.viewer) }
                log(.info, "ws_close", "viewer of \(c.dashboard.map { "dashboard " + $0.id } ?? c.cells[0].session.id)")
            }
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, nil, input, len)
        }
    }

    // MARK: Messages

    /// `{"type":"ack"}` as the bundled client and cwload send it (any other spelling
    /// goes through the parser).
    static let ackMessage = Array(#"{"type":"ack"}"#.utf8)

    private func receiveMessage(_ client: WSClient) {
        if client.dashboard != nil { return receiveDashboardMessage(client) }
        let (session, viewer) = (client.cells[0].session, client.cells[0].viewer)
        let replies: [Outgoing]
        if client.rxTooLarge {
            replies = [.text(ProtocolError(.tooLarge, "messages are limited to \(Self.maxMessage) bytes").json)]
        } else if client.rxBinary {
            replies = [.text(ProtocolError(.unsupported, "send JSON text messages; binary messages are not accepted").json)]
        } else if client.rx.elementsEqual(Self.ackMessage) {
            // The message every viewer sends after every frame: no parser needed.
            replies = session.receive(.ack, from: viewer)
        } else {
            do {
                let json = try Jansson.parse(client.rx)
                // (Dated for the gesture-to-frame time, on the clock frames are dated by.)
                replies = session.receive(json: json, from: viewer, at: ProcessInfo.processInfo.systemUptime)
            } catch {
                replies = [.text(ProtocolError(.badJSON, error.description).json)]
            }
        }
        client.rx.removeAll(keepingCapacity: client.rx.capacity <= 4096)
        client.outbox.append(contentsOf: replies.prefix(max(0, Self.maxOutbox - client.outbox.count)))
        // A cluster node whose Redis is away says so after the welcome (Cluster+Live.swift).
        if let status = dataStatusAfterWelcome(replies) { client.outbox.append(.text(status)) }
    }

    /// A dashboard's message: an object with a `chart` index (which of its sessions it
    /// is for) beside the fields of a viewer's message.
    private func receiveDashboardMessage(_ client: WSClient) {
        defer { client.rx.removeAll(keepingCapacity: client.rx.capacity <= 4096) }
        func refuse(_ e: ProtocolError) {
            if client.outbox.count < Self.maxOutbox { client.outbox.append(.text(e.json)) }
        }
        if client.rxTooLarge { return refuse(ProtocolError(.tooLarge, "messages are limited to \(Self.maxMessage) bytes")) }
        if client.rxBinary { return refuse(ProtocolError(.unsupported, "send JSON text messages; binary messages are not accepted")) }
        let json: JSONValue
        do { json = try Jansson.parse(client.rx) } catch { return refuse(ProtocolError(.badJSON, error.description)) }
        guard case let .object(members) = json, let index = json["chart"], case let .int(i) = index,
              i >= 0, i < client.cells.count else {
            return refuse(ProtocolError(.badField, "$.chart: a dashboard's messages carry \"chart\", the index of one of its \(client.cells.count) charts"))
        }
        let cell = client.cells[Int(i)]
        let message = JSONValue.object(members.filter { $0.0 != "chart" })
        let replies = cell.session.receive(json: message, from: cell.viewer, at: ProcessInfo.processInfo.systemUptime)
        // An event group on this page: the pointer shows on the group's other charts too.
        if let group = cell.session.eventGroup, case let .pointer(e)? = try? ClientMessage.decode(message),
           let at = cell.session.groupLocation(of: e, viewer: cell.viewer) {
            for (j, other) in client.cells.enumerated() where j != Int(i) && other.session.eventGroup == group
                && cell.session.groupMaySteer(other.session, viewer: cell.viewer) {
                other.session.receiveGroupPointer(e, at: at, source: cell.session.chart, viewer: other.viewer)
            }
        }
        for r in replies.prefix(max(0, Self.maxOutbox - client.outbox.count)) {
            if case let .text(t) = r { client.enqueue(t, chart: Int(i)) } else { client.outbox.append(r) }
        }
        if let status = dataStatusAfterWelcome(replies) { client.enqueue(status, chart: Int(i)) }
    }

    // MARK: Publishers (docs/feeding.md)

    private func isPublisher(_ wsi: OpaquePointer) -> Bool {
        guard let proto = lws_get_protocol(wsi), let name = proto.pointee.name else { return false }
        return String(cString: name) == Self.publisherProtocol
    }

    /// `/publish/{session}/{series}`, when both exist.
    private func publishTarget(_ wsi: OpaquePointer) -> (Session, String)? {
        guard let path = header(wsi, WSI_TOKEN_GET_URI) else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == "publish", let session = hub.session(parts[1]),
              session.chart.seriesIndex(parts[2]) != nil else { return nil }
        return (session, parts[2])
    }

    /// A publisher's upgrade: the series must exist and, for a session with access,
    /// `Authorization: Bearer <controller token>` must come with it (as for appends).
    private func filterPublisher(_ wsi: OpaquePointer) -> Int32 {
        guard let path = header(wsi, WSI_TOKEN_GET_URI) else { return 1 }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == "publish" else {
            _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_NOT_FOUND.rawValue), "publishers connect to /publish/{session}/{series}")
            return 1
        }
        guard publishTarget(wsi) != nil else {
            _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_NOT_FOUND.rawValue), "no such session or series")
            return 1
        }
        let req = HTTPRequest(method: "POST", path: path, query: [:], body: [], authorization: header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION))
        if let refused = router.authorize(req, session: parts[1]) {
            // libwebsockets wraps the reason in a small HTML page: the reason alone, escaped.
            let reason = (try? Jansson.parse(refused.body))?["error"]?.stringValue ?? "refused"
            _ = lws_return_http_status(wsi, UInt32(refused.status), htmlEscape(reason))
            log(.warn, "publisher_refused", "\(path) -> \(refused.status): \(reason)", [("status", String(refused.status)), ("client", clientAddress(wsi))],
                key: "publisher_refused \(refused.status)")
            return 1
        }
        return 0
    }

    /// Gathers one WebSocket message's fragments into `rx`: at most `limit` bytes (past
    /// it the message is `tooLarge` and nothing of it is kept), and whether it is binary.
    /// True once the message is whole. `keepCapacity`: whether a new message reuses the
    /// last one's storage.
    private func gather(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int, into rx: inout [UInt8],
                        tooLarge: inout Bool, binary: inout Bool, limit: Int, keepCapacity: Bool) -> Bool {
        if lws_is_first_fragment(wsi) != 0 {
            rx.removeAll(keepingCapacity: keepCapacity)
            tooLarge = false
            binary = lws_frame_is_binary(wsi) != 0
        }
        if let input, !tooLarge {
            if rx.count + len > limit {
                tooLarge = true
                rx = []
            } else {
                rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            }
        }
        return lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
    }

    private func receivePublisher(_ wsi: OpaquePointer, _ p: Publisher, input: UnsafeMutableRawPointer?, len: Int) -> Int32 {
        if p.closing { return 0 }
        // A batch's bytes count against the body budget while it is gathered: unfinished
        // batches on many connections cannot hold more than the budget together.
        if lws_is_first_fragment(wsi) != 0 {
            bodyBytesInFlight -= p.held
            p.held = 0
            p.overBudget = false
        }
        if !p.overBudget {
            if bodyBytesInFlight + len > bodyBudget {
                p.overBudget = true
                count("publisherBudget")
                bodyBytesInFlight -= p.held
                p.held = 0
            } else {
                bodyBytesInFlight += len
                p.held += len
            }
        }
        guard gather(wsi, input, len, into: &p.rx, tooLarge: &p.rxTooLarge, binary: &p.rxBinary,
                     limit: p.overBudget ? 0 : Self.maxBatch, keepCapacity: p.rx.capacity <= Self.maxMessage) else { return 0 }
        p.batches += 1
        if p.overBudget {
            p.outbox.append(.object([("type", "error"), ("batch", .int(Int64(p.batches))), ("code", "overloaded"),
                                     ("message", .string("the server holds \(netLimits.bodyBudgetMB) MiB of unfinished bodies and batches; nothing of this batch was stored, send it again later"))]))
        } else {
            if let cluster = durability as? ClusterDurability { p.commitOf[p.batches] = cluster.nextCommit }
            let ack = applyBatch(p)
            if case let .int(n)? = ack["accepted"] { router.metrics.countPoints(Int(n), feed: .publisher) }
            p.outbox.append(ack)
        }
        bodyBytesInFlight -= p.held
        p.held = 0
        p.overBudget = false
        p.rx.removeAll(keepingCapacity: p.rx.capacity <= Self.maxMessage)
        if p.outbox.count >= Self.maxPublisherOutbox, !p.paused {
            // Stop reading until the acknowledgements are written.
            p.paused = true
            lws_rx_flow_control(wsi, 0)
        }
        lws_callback_on_writable(wsi)
        pump()  // the batch may be due for publication at once
        return 0
    }

    /// Stores one batch atomically; the acknowledgement or the error that says why
    /// nothing of it was stored.
    private func applyBatch(_ p: Publisher) -> JSONValue {
        func refuse(_ code: ProtocolError.Code, _ message: String) -> JSONValue {
            .object([("type", "error"), ("batch", .int(Int64(p.batches))), ("code", .string(code.rawValue)), ("message", .string(message))])
        }
        // Removed (the transport closes the connection at its next turn): nothing more is stored.
        guard hub.session(p.session.id) === p.session else {
            return refuse(.sessionRemoved, "session \"\(p.session.id)\" was removed")
        }
        if p.rxTooLarge { return refuse(.tooLarge, "a batch is limited to \(Self.maxBatch) bytes") }
        guard let index = p.session.chart.seriesIndex(p.series) else {
            return refuse(.badField, "session \"\(p.session.id)\" has no series \"\(p.series)\" any more")
        }
        let kind = p.session.chart.series[index].kind, orientation = p.session.chart.series[index].orientation
        if p.rxBinary && !AppendBody.isBinary(p.rx) {
            return refuse(.badMessage, "a binary batch starts with \"CWA1\" (the binary append body)")
        }
        do {
            let points = try Router.readPoints(p.rx, kind: kind, orientation: orientation, categories: Router.categories(p.session, series: index))
            let n = try p.session.submit(.append(series: p.series, xs: points.xs, values: points.values)).count
            return .object([("type", "ack"), ("batch", .int(Int64(p.batches))), ("accepted", .int(Int64(n)))])
        } catch let e as Router.BodyError {
            return refuse(.badMessage, e.message)
        } catch SessionInputError.unavailable(let why) {
            return refuse(.unavailable, why)
        } catch {
            return refuse(.badField, "\(error)")
        }
    }

    private func writePublisher(_ wsi: OpaquePointer, _ p: Publisher) -> Int32 {
        guard !p.outbox.isEmpty else {
            if p.closing { lws_close_reason(wsi, LWS_CLOSE_STATUS_GOINGAWAY, nil, 0); return -1 }
            return 0
        }
        var message = p.outbox.removeFirst()
        if let cluster = durability as? ClusterDurability, case let .int(batch)? = message["batch"],
           let serial = p.commitOf.removeValue(forKey: Int(batch)), message["type"] == .string("ack"), cluster.commitFailed(serial) {
            // Redis did not take the commit this batch was in: not acknowledged.
            message = .object([("type", "error"), ("batch", .int(batch)), ("code", .string(ProtocolError.Code.unavailable.rawValue)),
                               ("message", .string("redis did not take this batch; it was not stored"))])
        }
        guard write(wsi, Jansson.serialize(message, realPrecision: 17), mode: LWS_WRITE_TEXT) else { return -1 }
        if p.paused, p.outbox.count < Self.maxPublisherOutbox / 2 {
            p.paused = false
            lws_rx_flow_control(wsi, 1)
        }
        if !p.outbox.isEmpty || p.closing { lws_callback_on_writable(wsi) }
        return 0
    }

    // MARK: HTTP helpers

    /// `released`: the answer was held for the commit of the change it acknowledges and
    /// is written now.
    private func respond(_ wsi: OpaquePointer, _ ex: HTTPExchange, _ prepared: HTTPResponse? = nil, released: Bool = false) -> Int32 {
        // HEAD is answered as GET, without the body.
        let method = ex.method == "HEAD" ? "GET" : ex.method
        // An image export draws off the loop (a large one takes a while): the answer is
        // held and written when the drawing is done (`collectExports`).
        if !released, prepared == nil, !ex.bodyTooLarge,
           case let .draw(job)? = router.imageJob(HTTPRequest(method: method, path: ex.path, query: ex.query, body: [])) {
            ex.held = true
            ex.body = []
            releaseBody(ex)
            startExport(wsi, ex, job)
            return 0
        }
        let response: HTTPResponse = released ? ex.response! : prepared ?? (ex.bodyTooLarge
            ? .error(413, "body larger than \(Router.bodyLimit(method: ex.method, path: ex.path)) bytes")
            : router.handle(HTTPRequest(method: method, path: ex.path, query: ex.query, body: ex.body, authorization: ex.authorization,
                                        contentEncoding: ex.contentEncoding)))
        if !released {
            router.metrics.record(method: ex.method, path: ex.path, binaryBody: AppendBody.isBinary(ex.body), response: response)
            ex.body = []
            releaseBody(ex)
            ex.response = response
            if prepared == nil { addCORS(wsi, ex) }
            if ex.method == "POST" || response.status >= 400 { logRequest(wsi, ex, response) }
            // A change is answered after it is committed. When a commit syncs (`--fsync
            // always`, a cluster's Redis), at the end of this loop turn, in one commit with
            // every change that arrived in the turn (group commit). When it does not
            // (`batch`, `off`: a write to the append log), here, and the answer goes at
            // once, without a turn of the loop waiting for the socket to be writable.
            if let durability, durability.hasPending {
                if durability.commitsCheaply {
                    durability.commitIfPending()
                } else {
                    ex.held = true
                    heldAnswers.append(wsi)
                    return 0
                }
            }
        }

        var headers = [UInt8](repeating: 0, count: Int(cw_lws_pre()) + 1024)
        let ok: Bool = headers.withUnsafeMutableBufferPointer { buf in
            let start = buf.baseAddress! + Int(cw_lws_pre())
            let end = buf.baseAddress! + buf.count
            var p: UnsafeMutablePointer<UInt8>? = start
            // A streamed body has no length: lws adds `connection: close`, the body goes
            // in chunks (`writeStreamed`), and the last chunk tells the reader it is whole.
            let length = response.stream == nil ? lws_filepos_t(response.body.count) : lws_filepos_t.max  // LWS_ILLEGAL_HTTP_CONTENT_LEN
            guard lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType.isEmpty ? nil : response.contentType,
                                              length, &p, end) == 0 else { return false }
            var extra = [("cache-control:", response.cacheControl)]
                + response.headers.sorted(by: { $0.key < $1.key }).map { ($0.key.lowercased() + ":", $0.value) } + ex.extraHeaders
            if response.stream != nil { extra.append(("transfer-encoding:", "chunked")) }
            if ex.closeAfter || ex.drainThenClose { extra.append(("connection:", "close")) }
            for (name, value) in extra {
                guard lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), &p, end) == 0 else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
        guard ok else { return -1 }
        if ex.drainThenClose { draining[wsi] = ProcessInfo.processInfo.systemUptime + Double(netLimits.bodyTimeoutS) }
        if response.body.isEmpty && response.stream == nil || ex.method == "HEAD" {
            exchanges[wsi] = nil
            // A refusal closes (lws writes what it holds first): bytes after the head
            // are never read as a request.
            if ex.closeAfter { return -1 }
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        // A small body (an append's answer, an error) goes out at once, saving a trip
        // through the event loop per request (lws keeps what the socket cannot take).
        if response.body.count <= Self.inlineBody, response.stream == nil {
            guard write(wsi, response.body, mode: LWS_WRITE_HTTP_FINAL) else { return -1 }
            exchanges[wsi] = nil
            if ex.closeAfter { return -1 }
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// Largest response body written in the same callback as its headers.
    static let inlineBody = 4096

    /// One chunk of a streamed answer (`HTTPResponse.stream`, HTTP/1.1 chunked): the
    /// body first, then what the stream writes, about 64 KiB a turn, so the answer is
    /// never held whole; the last write carries the zero-length chunk.
    private func writeStreamed(_ wsi: OpaquePointer, _ ex: HTTPExchange, _ response: HTTPResponse, _ stream: BodyStream) -> Int32 {
        var payload = ex.sent == 0 ? response.body : []
        let more = payload.count < 64 * 1024 ? stream.next(&payload, 64 * 1024) : true
        ex.sent += 1
        var framed: [UInt8] = []
        framed.reserveCapacity(payload.count + 32)
        if !payload.isEmpty {
            framed += Array(String(payload.count, radix: 16).utf8) + [13, 10]
            framed += payload
            framed += [13, 10]
        }
        if !more { framed += Array("0\r\n\r\n".utf8) }
        guard write(wsi, framed, mode: more ? LWS_WRITE_HTTP : LWS_WRITE_HTTP_FINAL) else { return -1 }
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.idleTimeoutS)
        if more { lws_callback_on_writable(wsi); return 0 }
        exchanges[wsi] = nil
        // lws closes it (no length: `connection: close`).
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Writes bytes with the LWS_PRE headroom lws needs before them, through one
    /// scratch buffer the server keeps (a write per frame per viewer allocates nothing).
    private func write(_ wsi: OpaquePointer, _ bytes: [UInt8], range: Range<Int>? = nil, mode: lws_write_protocol) -> Bool {
        let r = range ?? 0..<bytes.count
        let pre = Int(cw_lws_pre())
        if scratch.count < pre + r.count { scratch = [UInt8](repeating: 0, count: max(pre + r.count, 2 * scratch.count)) }
        let written = scratch.withUnsafeMutableBufferPointer { b in
            bytes.withUnsafeBufferPointer { src in
                if !r.isEmpty { (b.baseAddress! + pre).update(from: src.baseAddress! + r.lowerBound, count: r.count) }
            }
            return lws_write(wsi, b.baseAddress! + pre, r.count, mode)
        }
        return written >= 0
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let n = Int(lws_hdr_total_length(wsi, token))
        guard n > 0 else { return nil }
        var buf = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(n + 1), token) >= 0 else { return nil }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var out: [String: String] = [:]
        var i: Int32 = 0
        // Each argument whole, however long (the request target is at most maxURLBytes):
        // a fixed 512-byte buffer ended the arguments, silently, at the first longer one
        // (a data export's long series= list).
        while i < 32 {
            let n = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i))
            guard n > 0 else { break }
            var buf = [CChar](repeating: 0, count: n + 1)
            guard lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, i) > 0 else { break }
            let s = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let eq = s.firstIndex(of: "=") {
                out[String(s[..<eq])] = String(s[s.index(after: eq)...])
            } else {
                out[s] = ""
            }
            i += 1
        }
        return out
    }

    enum ViewerTarget { case session(Session), dashboard(Dashboard) }

    /// `/ws/{session}` or `/ws/d/{dashboard}`, when hosted.
    private func viewerTarget(_ wsi: OpaquePointer) -> ViewerTarget? {
        guard let path = header(wsi, WSI_TOKEN_GET_URI) else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        if parts.count == 2, parts[0] == "ws" { return hub.session(parts[1]).map { .session($0) } }
        if parts.count == 3, parts[0] == "ws", parts[1] == "d" { return hub.dashboard(parts[2]).map { .dashboard($0) } }
        return nil
    }
}

// MARK: Transport guards (docs/security.md)

extension LWSServer {
    static let bodyMethods: Set<String> = ["POST", "PUT", "PATCH"]
    static let writeMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// Answer to a connection over `connectionsPerAddress`, written before it is closed.
    static let tooManyConnections = Array(("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        + "connection: close\r\ncontent-length: 51\r\n\r\n{\"error\":\"too many connections from this address\"}\n").utf8)

    /// The numeric address of a socket's peer ("127.0.0.1", "::1").
    static func peerAddress(_ fd: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let r = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard r == 0 else { return nil }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every occurrence (header line) of a header, in order.
    func headerOccurrences(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> [String] {
        var out: [String] = []
        var i: Int32 = 0
        while i < 16 {
            let n = Int(lws_hdr_fragment_length(wsi, token, i))
            if n <= 0 && i > 0 { break }
            if n <= 0 && lws_hdr_total_length(wsi, token) == 0 { break }
            var buf = [CChar](repeating: 0, count: n + 1)
            _ = lws_hdr_copy_fragment(wsi, &buf, Int32(n + 1), token, i)
            out.append(String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            i += 1
        }
        return out
    }

    /// The request target's length: the path lws decoded plus its query arguments.
    private func targetLength(_ wsi: OpaquePointer, _ ex: HTTPExchange) -> Int {
        let token = Self.methods.first { $0.name == ex.method }?.token ?? WSI_TOKEN_GET_URI
        var n = Int(lws_hdr_total_length(wsi, token))
        var i: Int32 = 0
        while i < 1024 {
            let f = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i))
            if f <= 0 { break }
            n += f + 1
            i += 1
        }
        return n
    }

    /// The head's known headers together (lws keeps unknown ones apart; a head whose
    /// unknown headers overflow lws's header space is closed by lws unanswered).
    private func headLength(_ wsi: OpaquePointer) -> Int {
        var n = 0
        for t in 0..<Int(WSI_TOKEN_COUNT.rawValue) {
            n += Int(lws_hdr_total_length(wsi, lws_token_indexes(UInt32(t))))
        }
        return n
    }

    /// The checks a request head passes before anything of it is acted on, or the
    /// refusal (the connection then closes once it is written).
    func screenHead(_ wsi: OpaquePointer, _ ex: HTTPExchange) -> HTTPResponse? {
        if ex.method == "UNKNOWN" {
            count("badRequest")
            return .error(405, "method not supported")
        }
        if targetLength(wsi, ex) > netLimits.maxURLBytes {
            count("uriTooLong")
            return .error(414, "the request target is longer than \(netLimits.maxURLBytes) bytes")
        }
        if headLength(wsi) > netLimits.maxHeadBytes {
            count("headTooLarge")
            return .error(431, "the request head is larger than \(netLimits.maxHeadBytes) bytes")
        }
        let host = header(wsi, WSI_TOKEN_HOST)
        if headerOccurrences(wsi, WSI_TOKEN_HOST).count > 1 {
            count("badRequest")
            return .error(400, "more than one Host header")
        }
        if !access.hostAllowed(host) {
            count("hostRefused")
            return host == nil ? .error(400, "a Host header is required")
                : .error(421, "this server does not answer to Host \"\(host!.prefix(100))\"")
        }
        if lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0 {
            count("lengthRequired")
            return Self.bodyMethods.contains(ex.method)
                ? .error(411, "Transfer-Encoding (chunked bodies) is not accepted: send the body with Content-Length")
                : .error(400, "Transfer-Encoding is not accepted")
        }
        let length = AccessPolicy.contentLength(headerOccurrences(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH))
        var declared = 0
        switch length {
        case let .invalid(why):
            count("badRequest")
            return .error(400, why)
        case .absent:
            if Self.bodyMethods.contains(ex.method) {
                count("lengthRequired")
                return .error(411, "\(ex.method) needs a Content-Length header")
            }
        case let .bytes(n):
            declared = n
            if n > 0 && !Self.bodyMethods.contains(ex.method) {
                count("badRequest")
                return .error(400, "\(ex.method) requests carry no body")
            }
        }
        if Self.writeMethods.contains(ex.method) || ex.method == "OPTIONS" {
            let origin = header(wsi, WSI_TOKEN_ORIGIN)
            if !access.originAllowed(origin, host: host) {
                count("originRefused")
                return .error(403, "requests from Origin \"\(origin!.prefix(100))\" are not allowed (see --allow-origin)")
            }
        }
        if Self.bodyMethods.contains(ex.method) {
            let limit = Router.bodyLimit(method: ex.method, path: ex.path)
            if declared > limit {
                count("bodyTooLarge")
                return .error(413, "body larger than \(limit) bytes")
            }
            if bodyBytesInFlight + declared > bodyBudget {
                count("bodyBudget")
                ex.extraHeaders.append(("retry-after:", "1"))
                return .error(503, "the server holds \(netLimits.bodyBudgetMB) MiB of request bodies in flight; try again shortly")
            }
            ex.reserved = declared
            bodyBytesInFlight += declared
        }
        return nil
    }

    /// `OPTIONS`: the CORS preflight of a cross-origin write (an allowed Origin gets the
    /// methods and headers it may use; others were refused 403 in `screenHead`).
    func preflight(_ wsi: OpaquePointer, _ ex: HTTPExchange) -> HTTPResponse {
        let allow = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
        ex.extraHeaders.append(("allow:", allow))
        let origin = header(wsi, WSI_TOKEN_ORIGIN), host = header(wsi, WSI_TOKEN_HOST)
        if origin != nil, access.originAllowed(origin, host: host) {
            ex.extraHeaders += [("access-control-allow-origin:", origin!), ("vary:", "Origin"),
                                ("access-control-allow-methods:", allow),
                                ("access-control-allow-headers:", "authorization, content-type"),
                                ("access-control-max-age:", "600")]
        }
        return HTTPResponse(status: 204, contentType: "text/plain", body: [])
    }

    /// An allowed cross-origin request's answer may be read by the page that sent it.
    func addCORS(_ wsi: OpaquePointer, _ ex: HTTPExchange) {
        let origin = header(wsi, WSI_TOKEN_ORIGIN)
        guard access.isCrossOriginAllowed(origin, host: header(wsi, WSI_TOKEN_HOST)) else { return }
        ex.extraHeaders += [("access-control-allow-origin:", origin!), ("vary:", "Origin")]
    }

    enum Admission { case accept, drop, close }

    /// A viewer's message against its rate (a token bucket of `messageBurst` refilled at
    /// `messagesPerSecond`, both per chart: a dashboard acknowledges each chart's frames):
    /// past it the message is dropped and the first one dropped is answered
    /// `rate_limited`; a viewer that keeps on for another burst is closed (1008).
    func admit(_ client: WSClient) -> Admission {
        let now = ProcessInfo.processInfo.systemUptime
        let charts = Double(client.cells.count)
        let burst = Double(netLimits.messageBurst) * charts
        if client.tokens < 0 { client.tokens = burst }
        client.tokens = min(burst, client.tokens + (now - client.refilled) * Double(netLimits.messagesPerSecond) * charts)
        client.refilled = now
        if client.tokens >= 1 {
            client.tokens -= 1
            client.dropped = 0
            return .accept
        }
        client.dropped += 1
        count("rateLimited")
        if Double(client.dropped) > burst { return .close }
        if client.dropped == 1, client.outbox.count < Self.maxOutbox {
            client.outbox.append(.text(.object([("type", "error"), ("code", "rate_limited"),
                ("message", .string("more than \(netLimits.messagesPerSecond) messages a second; this one and those until the rate drops are ignored, and the connection closes if it goes on"))])))
        }
        return .drop
    }
}

import CLibWebSockets
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
        switch reason {
        // MARK: HTTP
        case LWS_CALLBACK_HTTP:
            let ex = HTTPExchange()
            ex.path = input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: len), as: UTF8.self) } ?? "/"
            ex.method = Self.methods.first { header(wsi, $0.token) != nil }?.name ?? "UNKNOWN"
            ex.query = queryArguments(wsi)
            ex.authorization = header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
            exchanges[wsi] = ex
            if ["POST", "PUT", "PATCH"].contains(ex.method) { return 0 }  // the body follows
            return respond(wsi, ex)

        case LWS_CALLBACK_HTTP_BODY:
            guard let ex = exchanges[wsi], let input else { return 0 }
            if ex.body.count + len > Router.bodyLimit(method: ex.method, path: ex.path) {
                ex.bodyTooLarge = true
                ex.body = []
            } else if !ex.bodyTooLarge {
                ex.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: len))
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let ex = exchanges[wsi] else { return -1 }
            let result = respond(wsi, ex)
            pump()  // an append may be due for publication at once
            return result

        case LWS_CALLBACK_HTTP_WRITEABLE:
            // An answer held for its commit (`releaseHeldAnswers`): its headers go now.
            if let ex = exchanges[wsi], ex.held { ex.held = false; return respond(wsi, ex, released: true) }
            guard let ex = exchanges[wsi], let response = ex.response else { return 0 }
            let chunk = min(64 * 1024, response.body.count - ex.sent)
            let last = ex.sent + chunk >= response.body.count
            let ok = write(wsi, response.body, range: ex.sent..<(ex.sent + chunk),
                           mode: last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            guard ok else { return -1 }
            ex.sent += chunk
            if !last { lws_callback_on_writable(wsi); return 0 }
            exchanges[wsi] = nil
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
            exchanges[wsi] = nil
            if let c = unregister(wsi) { for cell in c.cells { cell.session.disconnect(cell.viewer) } }
            publishers[wsi] = nil
            return 0

        // MARK: WebSocket
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // Refuse the upgrade unless the path names a hosted session (and, for a
            // publisher, a series of it and a controller's Authorization).
            if isPublisher(wsi) { return filterPublisher(wsi) }
            guard viewerTarget(wsi) != nil else {
                _ = lws_return_http_status(wsi, UInt32(HTTP_STATUS_NOT_FOUND.rawValue), "no such session or dashboard")
                return 1
            }
            return 0

        case LWS_CALLBACK_ESTABLISHED:
            if isPublisher(wsi) {
                guard let (session, series) = publishTarget(wsi) else { return -1 }
                publishers[wsi] = Publisher(session: session, series: series)
                log("publisher open \(session.id)/\(series)")
                return 0
            }
            switch viewerTarget(wsi) {
            case let .session(session)?:
                let client = WSClient(cells: [.init(session: session, viewer: session.connect())])
                register(wsi, client)
                log("ws open \(session.id) viewer \(client.cells[0].viewer)")
            case let .dashboard(d)?:
                let sessions = d.cells.compactMap { hub.session($0.session) }
                guard sessions.count == d.cells.count else { return -1 }
                let client = WSClient(cells: sessions.map { .init(session: $0, viewer: $0.connect()) }, dashboard: d)
                // The page learns the grid first, then says hello for each chart.
                client.outbox.append(.text(d.layoutMessage(titles: Dictionary(sessions.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a }))))
                register(wsi, client)
                lws_callback_on_writable(wsi)
                log("ws open dashboard \(d.id) (\(sessions.count) charts)")
            case nil:
                return -1
            }
            return 0

        case LWS_CALLBACK_RECEIVE:
            if let p = publishers[wsi] { return receivePublisher(wsi, p, input: input, len: len) }
            guard let client = clients[wsi] else { return -1 }
            if client.closing { return 0 }
            guard gather(wsi, input, len, into: &client.rx, tooLarge: &client.rxTooLarge, binary: &client.rxBinary,
                         limit: Self.maxMessage, keepCapacity: true) else { return 0 }
            receiveMessage(client)
            pump()  // a gesture may have changed the chart
            if client.wantsWrite { lws_callback_on_writable(wsi) }
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            // Nothing leaves (an ack, a reply, a frame) before the changes it may show are
            // committed: the changes of one loop turn share that commit.
            durability?.commitIfPending()
            if let p = publishers[wsi] { return writePublisher(wsi, p) }
            guard let client = clients[wsi] else { return 0 }
            if client.closing && client.outbox.isEmpty {
                lws_close_reason(wsi, LWS_CLOSE_STATUS_GOINGAWAY, nil, 0)
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
            if let p = publishers.removeValue(forKey: wsi) {
                log("publisher close \(p.session.id)/\(p.series) after \(p.batches) batches")
            }
            if let c = unregister(wsi) {
                for cell in c.cells { cell.session.disconnect(cell.viewer) }
                log("ws close \(c.dashboard.map { "dashboard " + $0.id } ?? c.cells[0].session.id)")
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
                replies = session.receive(json: json, from: viewer)
            } catch {
                replies = [.text(ProtocolError(.badJSON, error.description).json)]
            }
        }
        client.rx.removeAll(keepingCapacity: client.rx.capacity <= 4096)
        client.outbox.append(contentsOf: replies.prefix(max(0, Self.maxOutbox - client.outbox.count)))
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
        let replies = cell.session.receive(json: message, from: cell.viewer)
        // An event group on this page: the pointer shows on the group's other charts too.
        if let group = cell.session.eventGroup, case let .pointer(e)? = try? ClientMessage.decode(message),
           let at = cell.session.groupLocation(of: e, viewer: cell.viewer) {
            for (j, other) in client.cells.enumerated() where j != Int(i) && other.session.eventGroup == group {
                other.session.receiveGroupPointer(e, at: at, source: cell.session.chart, viewer: other.viewer)
            }
        }
        for r in replies.prefix(max(0, Self.maxOutbox - client.outbox.count)) {
            if case let .text(t) = r { client.enqueue(t, chart: Int(i)) } else { client.outbox.append(r) }
        }
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
            log("publisher refused \(path) -> \(refused.status)")
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
        guard gather(wsi, input, len, into: &p.rx, tooLarge: &p.rxTooLarge, binary: &p.rxBinary,
                     limit: Self.maxBatch, keepCapacity: p.rx.capacity <= Self.maxMessage) else { return 0 }
        p.batches += 1
        if let cluster = durability as? ClusterDurability { p.commitOf[p.batches] = cluster.nextCommit }
        p.outbox.append(applyBatch(p))
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
        let kind = p.session.chart.series[index].kind
        if p.rxBinary && !AppendBody.isBinary(p.rx) {
            return refuse(.badMessage, "a binary batch starts with \"CWA1\" (the binary append body)")
        }
        do {
            let points = try Router.readPoints(p.rx, kind: kind)
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
    private func respond(_ wsi: OpaquePointer, _ ex: HTTPExchange, released: Bool = false) -> Int32 {
        // HEAD is answered as GET, without the body.
        let method = ex.method == "HEAD" ? "GET" : ex.method
        let response: HTTPResponse = released ? ex.response! : ex.bodyTooLarge
            ? .error(413, "body larger than \(Router.bodyLimit(method: ex.method, path: ex.path)) bytes")
            : router.handle(HTTPRequest(method: method, path: ex.path, query: ex.query, body: ex.body, authorization: ex.authorization))
        if !released {
            ex.body = []
            ex.response = response
            if ex.method == "POST" || response.status >= 400 { log("\(ex.method) \(ex.path) -> \(response.status)") }
            // A change is answered after it is committed, at the end of this loop turn, in
            // one transaction with every change that arrived in the turn (group commit).
            if let durability, durability.store.hasPending {
                ex.held = true
                heldAnswers.append(wsi)
                return 0
            }
        }

        var headers = [UInt8](repeating: 0, count: Int(cw_lws_pre()) + 1024)
        let ok: Bool = headers.withUnsafeMutableBufferPointer { buf in
            let start = buf.baseAddress! + Int(cw_lws_pre())
            let end = buf.baseAddress! + buf.count
            var p: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType,
                                              lws_filepos_t(response.body.count), &p, end) == 0 else { return false }
            let name = "cache-control:", value = response.cacheControl
            guard lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), &p, end) == 0 else { return false }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
        guard ok else { return -1 }
        if response.body.isEmpty || ex.method == "HEAD" {
            exchanges[wsi] = nil
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        // A small body (an append's answer, an error) goes out at once, saving a trip
        // through the event loop per request (lws keeps what the socket cannot take).
        if response.body.count <= Self.inlineBody {
            guard write(wsi, response.body, mode: LWS_WRITE_HTTP_FINAL) else { return -1 }
            exchanges[wsi] = nil
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// Largest response body written in the same callback as its headers.
    static let inlineBody = 4096

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
        var buf = [CChar](repeating: 0, count: 512)
        var i: Int32 = 0
        while i < 32, lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, i) > 0 {
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

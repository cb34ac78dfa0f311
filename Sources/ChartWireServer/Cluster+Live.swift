import CLibWebSockets
import ChartSession
import Foundation
import RedisStore

/// What a cluster node shares that is not in the log (docs/cluster.md, "Presence
/// between nodes", and "Viewers while Redis is away"):
///
/// - Presence: the spots of this node's viewers go to the other nodes over Redis
///   pub/sub, one channel per session (`cw:live:{session}`), each publication the node's
///   whole set for that session (so a lost one is mended by the next), coalesced by
///   `RedisPubSub` to at most 20 a second per session, and repeated every second while
///   the set is not empty. A node drops another node's set when that node says it is
///   empty, or when it has not been heard for `expiry` seconds (the node died or lost
///   Redis).
/// - Whether viewers are told the data is reconnecting (`announcedDown`).
final class ClusterLive {
    let pubsub: RedisPubSub
    static func channel(_ session: String) -> String { "cw:live:" + session }
    static let pattern = "cw:live:*"
    static let keepAlive = 1.0
    static let expiry = 3.0
    /// By session: the presence modifier and its version last posted.
    private var posted: [String: (modifier: ObjectIdentifier, version: Int, empty: Bool)] = [:]
    private var keptAliveAt = -Double.infinity
    /// `PresenceModifier.localChanges` when the sessions were last looked through.
    private var seenChanges = -1
    /// By session, by node: when its presence was last heard.
    private var heard: [String: [String: Double]] = [:]
    /// Whether the viewers were told the node's data is reconnecting (Redis away).
    var announcedDown = false

    init(_ address: RedisAddress, node: String) {
        pubsub = RedisPubSub(address, node: node, pattern: Self.pattern) { if let ctx = signalContext { lws_cancel_service(ctx) } }
    }

    func start() { pubsub.start() }

    /// Posts the presence that changed here (and, each second, every set that is not
    /// empty), applies what other nodes published, and forgets nodes not heard for
    /// `expiry` seconds. Returns the sessions whose viewers' drawing changed.
    func turn(_ hub: SessionHub, now: Double) -> [Session] {
        let keep = now - keptAliveAt >= Self.keepAlive
        if keep { keptAliveAt = now }
        // (Sessions are looked through only when some spot here moved, or to keep sets
        // alive: not on every loop turn.)
        let moved = PresenceModifier.localChanges.load(ordering: .relaxed)
        let look = keep || moved != seenChanges
        seenChanges = moved
        for s in hub.sessions where look {
            guard let p = s.presence else { continue }
            let id = ObjectIdentifier(p)
            let last = posted[s.id]
            let changed = last?.modifier != id || last?.version != p.localVersion
            let wasEmpty = last?.empty ?? true
            // (A node with nothing to show says so once; a set is repeated while it lasts.)
            guard changed || keep && !wasEmpty else { continue }
            let spots = p.localSpots
            posted[s.id] = (id, p.localVersion, spots.isEmpty)
            if spots.isEmpty && wasEmpty { continue }
            let body: JSONValue = .object([("spots", .array(spots.map { .array([.int(Int64($0.viewer)), .double($0.x), .double($0.y)]) }))])
            pubsub.post(channel: Self.channel(s.id), body: Jansson.serialize(body))
        }
        var changed: [ObjectIdentifier: Session] = [:]
        for m in pubsub.take() {
            let id = String(m.channel.dropFirst("cw:live:".count))
            guard let s = hub.session(id), let p = s.presence, let list = Self.spots(m.body) else { continue }
            heard[id, default: [:]][m.node] = list.isEmpty ? nil : now
            if s.changeOverlays({ p.setRemote(node: m.node, list) }) { changed[ObjectIdentifier(s)] = s }
        }
        for (id, nodes) in heard {
            for (node, at) in nodes where now - at > Self.expiry {
                heard[id]?[node] = nil
                guard let s = hub.session(id), let p = s.presence else { continue }
                if s.changeOverlays({ p.setRemote(node: node, []) }) { changed[ObjectIdentifier(s)] = s }
            }
            if heard[id]?.isEmpty == true { heard[id] = nil }
        }
        return Array(changed.values)
    }

    /// Most spots taken from one node for one session (presence is for rooms of people).
    static let maxSpots = 256

    /// `{"spots":[[viewer, x, y], ...]}` with at most `maxSpots`; nil when it is not that.
    static func spots(_ body: [UInt8]) -> [(viewer: Int64, x: Double, y: Double)]? {
        guard let json = try? Jansson.parse(body, maxValues: 4 * maxSpots + 8), let list = json["spots"]?.arrayValue,
              list.count <= maxSpots else { return nil }
        var out: [(viewer: Int64, x: Double, y: Double)] = []
        for item in list {
            guard let a = item.arrayValue, a.count == 3, case let .int(v) = a[0], let x = a[1].doubleValue, let y = a[2].doubleValue,
                  x.isFinite, y.isFinite else { return nil }
            out.append((v, x, y))
        }
        return out
    }
}

extension LWSServer {
    /// A cluster node's turn for what is not in the log: presence between nodes, and
    /// telling the viewers when the node's data goes away (Redis unreachable) or is back
    /// (docs/protocol.md, `status`).
    func liveTurn(_ cluster: ClusterDurability) {
        let now = ProcessInfo.processInfo.systemUptime
        for session in cluster.live.turn(hub, now: now) {
            for (wsi, client) in clients where client.watches(session) && client.wantsWrite { lws_callback_on_writable(wsi) }
        }
        let down = cluster.unavailable != nil
        guard down != cluster.live.announcedDown else { return }
        cluster.live.announcedDown = down
        let message = Self.dataStatus(down: down)
        for (wsi, client) in clients where !client.closing {
            for i in client.cells.indices where client.outbox.count < Self.maxOutbox { client.enqueue(message, chart: i) }
            lws_callback_on_writable(wsi)
        }
    }

    /// `{"type":"status","data":"reconnecting"|"live"}`.
    static func dataStatus(down: Bool) -> JSONValue {
        .object([("type", "status"), ("data", .string(down ? "reconnecting" : "live"))])
    }

    /// After a viewer's `welcome` (replies to its `hello`): the data state, when it is
    /// not live, so a viewer arriving while Redis is away is told at once.
    func dataStatusAfterWelcome(_ replies: [Outgoing]) -> JSONValue? {
        guard let cluster = durability as? ClusterDurability, cluster.live.announcedDown,
              replies.contains(where: { if case let .text(t) = $0 { return t["type"] == .string("welcome") }; return false }) else { return nil }
        return Self.dataStatus(down: true)
    }
}

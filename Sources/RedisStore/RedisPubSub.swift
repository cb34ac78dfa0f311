import CHiredis
import ChartStore
import Foundation
import Synchronization

/// Ephemeral traffic between the nodes of a cluster over Redis pub/sub (docs/cluster.md,
/// "Presence between nodes"): what is posted is not logged, and a node that was not
/// listening never sees it.
///
/// One thread with two connections of its own: one `PSUBSCRIBE`d to `pattern` (a
/// subscribed connection can do nothing else, so it is not the store's, nor the
/// reader's), one that `PUBLISH`es. The thread waits in `poll` on the subscribed socket
/// and on a pipe that `post` writes to, so the event loop never waits for Redis here.
///
/// - Coalesced: a channel is published at most once per `interval`; what is posted
///   meanwhile replaces what waits (the newest wins), so a pointer moving at 120 Hz
///   costs Redis at most `1 / interval` publications a second per channel.
/// - Node ids: every publication starts with the node's name and a newline; a node's
///   own publications, which come back to it, are dropped.
/// - What is read is queued for the event loop, which `wake` wakes (`take`).
public final class RedisPubSub: @unchecked Sendable {
    /// A publication of another node.
    public struct Message: Sendable, Equatable {
        public let channel: String
        public let node: String
        public let body: [UInt8]
    }

    struct State {
        /// By channel, the newest body not yet published.
        var outgoing: [String: [UInt8]] = [:]
        /// By channel, when it was last published (system uptime).
        var sentAt: [String: Double] = [:]
        var incoming: [Message] = []
        var stopped = false
        var publications = 0
        var subscribed = false
    }
    private let state = Mutex(State())
    public let node: String
    public let pattern: String
    /// Seconds between two publications on one channel.
    public let interval: Double
    private let address: RedisAddress
    private let wake: @Sendable () -> Void
    static let maxQueued = 10_000
    /// Written by `post`, read by the thread's `poll`: [read end, write end].
    private let pipeFDs: (Int32, Int32)
    private var thread: Thread?

    public init(_ address: RedisAddress, node: String, pattern: String, interval: Double = 0.05,
                wake: @escaping @Sendable () -> Void) {
        self.address = address
        self.node = node
        self.pattern = pattern
        self.interval = interval
        self.wake = wake
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        pipeFDs = (fds[0], fds[1])
    }

    deinit {
        if pipeFDs.0 >= 0 { close(pipeFDs.0) }
        if pipeFDs.1 >= 0 { close(pipeFDs.1) }
    }

    /// Publishes `body` on `channel` within `interval` of its last publication there;
    /// a later `post` on the same channel before then replaces it.
    public func post(channel: String, body: [UInt8]) {
        state.withLock { $0.outgoing[channel] = body }
        poke()
    }

    /// What other nodes published since the last call, in the order read.
    public func take() -> [Message] {
        state.withLock { s in
            defer { s.incoming = [] }
            return s.incoming
        }
    }

    /// `PUBLISH` commands sent so far (each one channel's newest body).
    public var publications: Int { state.withLock { $0.publications } }
    /// Whether the subscription stands (false while Redis is away).
    public var isSubscribed: Bool { state.withLock { $0.subscribed } }

    public func start() {
        let t = Thread { [self] in run() }
        t.name = "redis-pubsub"
        thread = t
        t.start()
    }

    public func stop() {
        state.withLock { $0.stopped = true }
        poke()
    }

    private func poke() {
        var one: UInt8 = 1
        _ = write(pipeFDs.1, &one, 1)
    }

    /// The bytes published: the node's name, a newline, the body.
    public static func frame(node: String, body: [UInt8]) -> [UInt8] { Array(node.utf8) + [0x0A] + body }

    /// (node, body) of a publication; nil when it has no node line.
    public static func unframe(_ bytes: [UInt8]) -> (node: String, body: [UInt8])? {
        guard let nl = bytes.firstIndex(of: 0x0A) else { return nil }
        return (String(decoding: bytes[..<nl], as: UTF8.self), Array(bytes[(nl + 1)...]))
    }

    // MARK: The thread

    private func run() {
        let publisher = RedisConnection(address, timeoutMs: 1000)
        var sub: UnsafeMutablePointer<redisContext>? = nil
        var retryAt = 0.0
        defer { if let sub { redisFree(sub) } }
        while !state.withLock({ $0.stopped }) {
            let now = ProcessInfo.processInfo.systemUptime
            if sub == nil, now >= retryAt {
                sub = subscribe()
                state.withLock { $0.subscribed = sub != nil }
                if sub == nil { retryAt = now + 0.5 }
                // (Publications read with the subscription's answer wait in hiredis' buffer.)
                if let c = sub, !readMessages(c, fromSocket: false) {
                    redisFree(c)
                    sub = nil
                    state.withLock { $0.subscribed = false }
                }
            }
            // What is due: each channel's newest body, once per interval.
            var due: [(String, [UInt8])] = []
            var next = Double.infinity
            state.withLock { s in
                for (channel, body) in s.outgoing {
                    let at = (s.sentAt[channel] ?? -.infinity) + interval
                    if at <= now {
                        due.append((channel, body))
                        s.sentAt[channel] = now
                    } else {
                        next = min(next, at)
                    }
                }
                for (channel, _) in due { s.outgoing[channel] = nil }
                s.publications += due.count
                // (Channels quiet for a while are forgotten.)
                if s.sentAt.count > 4096 { s.sentAt = s.sentAt.filter { now - $0.value < interval } }
            }
            if !due.isEmpty {
                let commands = due.map { [Array("PUBLISH".utf8), Array($0.0.utf8), Self.frame(node: node, body: $0.1)] }
                // (Redis away: the publications are lost, as ephemeral traffic may be.)
                _ = try? publisher.pipeline(commands)
            }
            var wait = next.isFinite ? max(1, Int32((next - now) * 1000)) : 1000
            if sub == nil { wait = min(wait, max(1, Int32((retryAt - now) * 1000))) }
            var fds = [pollfd(fd: pipeFDs.0, events: Int16(POLLIN), revents: 0)]
            if let sub { fds.append(pollfd(fd: sub.pointee.fd, events: Int16(POLLIN), revents: 0)) }
            guard poll(&fds, nfds_t(fds.count), wait) > 0 else { continue }
            if fds[0].revents != 0 {
                var buf = [UInt8](repeating: 0, count: 64)
                while read(pipeFDs.0, &buf, buf.count) > 0 {}
            }
            if let c = sub, fds.count > 1, fds[1].revents != 0 {
                if !readMessages(c) {
                    redisFree(c)
                    sub = nil
                    state.withLock { $0.subscribed = false }
                    retryAt = ProcessInfo.processInfo.systemUptime + 0.5
                }
            }
        }
    }

    /// A connection subscribed to `pattern`, or nil (Redis away).
    private func subscribe() -> UnsafeMutablePointer<redisContext>? {
        guard let c = cw_redis_connect(address.host, Int32(address.port), 1000) else { return nil }
        if c.pointee.err != 0 { redisFree(c); return nil }
        _ = cw_redis_set_timeout(c, 1000)
        let args = [Array("PSUBSCRIBE".utf8), Array(pattern.utf8)]
        let buffers = args.map { a in a.withUnsafeBufferPointer { p in strndup(UnsafeRawPointer(p.baseAddress!).assumingMemoryBound(to: CChar.self), a.count) } }
        defer { for b in buffers { free(b) } }
        var argv: [UnsafePointer<CChar>?] = buffers.map { UnsafePointer($0) }
        let lengths = args.map(\.count)
        let rc = argv.withUnsafeMutableBufferPointer { av in
            lengths.withUnsafeBufferPointer { lv in redisAppendCommandArgv(c, Int32(args.count), av.baseAddress, lv.baseAddress) }
        }
        var raw: UnsafeMutableRawPointer? = nil
        guard rc == 0, redisGetReply(c, &raw) == 0, let reply = raw else { redisFree(c); return nil }
        let value = RedisConnection.value(reply.assumingMemoryBound(to: redisReply.self))
        freeReplyObject(reply)
        guard value.array?.first?.text == "psubscribe" else { redisFree(c); return nil }
        return c
    }

    /// Reads what the socket holds (or, `fromSocket` false, only what hiredis buffered)
    /// and queues the other nodes' publications; false when the connection is lost.
    private func readMessages(_ c: UnsafeMutablePointer<redisContext>, fromSocket: Bool = true) -> Bool {
        if fromSocket { guard redisBufferRead(c) == 0 else { return false } }
        var got: [Message] = []
        while true {
            var raw: UnsafeMutableRawPointer? = nil
            guard redisGetReplyFromReader(c, &raw) == 0 else { return false }
            guard let reply = raw else { break }
            let value = RedisConnection.value(reply.assumingMemoryBound(to: redisReply.self))
            freeReplyObject(reply)
            // ["pmessage", pattern, channel, bytes]
            guard let parts = value.array, parts.count == 4, parts[0].text == "pmessage",
                  let channel = parts[2].text, let bytes = parts[3].bytes,
                  let (from, body) = Self.unframe(bytes), from != node else { continue }
            got.append(Message(channel: channel, node: from, body: body))
        }
        if !got.isEmpty {
            state.withLock { s in
                s.incoming += got
                // (A loop that stopped taking does not make this grow without bound.)
                if s.incoming.count > Self.maxQueued { s.incoming.removeFirst(s.incoming.count - Self.maxQueued) }
            }
            wake()
        }
        return true
    }
}

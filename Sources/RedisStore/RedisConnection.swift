import CHiredis
import ChartStore
import Foundation

/// One reply of Redis (RESP2).
public enum RedisValue: Equatable, Sendable {
    case string([UInt8])
    case int(Int64)
    case array([RedisValue])
    case null
    case status(String)
    case error(String)

    public var bytes: [UInt8]? { if case let .string(b) = self { return b }; return nil }
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
    public var int: Int64? { if case let .int(n) = self { return n }; return nil }
    public var array: [RedisValue]? { if case let .array(a) = self { return a }; return nil }
}

/// Where Redis is (`--redis redis://HOST:PORT`).
public struct RedisAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public init(host: String, port: Int) { self.host = host; self.port = port }

    /// Parses `redis://HOST[:PORT]` (port 6379 when left out).
    public static func parse(_ url: String) -> RedisAddress? {
        guard url.hasPrefix("redis://") else { return nil }
        let rest = url.dropFirst("redis://".count)
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { return nil }
        if let colon = rest.lastIndex(of: ":") {
            let host = String(rest[..<colon])
            guard !host.isEmpty, let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port) else { return nil }
            return RedisAddress(host: host, port: port)
        }
        return RedisAddress(host: String(rest), port: 6379)
    }

    public var description: String { "redis://\(host):\(port)" }
}

/// A blocking connection to Redis through hiredis, used by one thread at a time.
/// Every command goes as an argument vector (binary-safe); `pipeline` sends several
/// and then reads their replies, one round trip. A broken connection is dropped and
/// made again by the next call.
public final class RedisConnection {
    public let address: RedisAddress
    /// Connect and read/write timeouts, in milliseconds.
    let timeoutMs: Int
    private var ctx: UnsafeMutablePointer<redisContext>?

    public init(_ address: RedisAddress, timeoutMs: Int = 2000) {
        self.address = address
        self.timeoutMs = timeoutMs
    }

    deinit { if let ctx { redisFree(ctx) } }

    /// Connects if not connected.
    public func connect() throws(StoreError) {
        if ctx != nil { return }
        guard let c = cw_redis_connect(address.host, Int32(address.port), timeoutMs) else {
            throw StoreError("redis unavailable at \(address): cannot allocate a connection")
        }
        if c.pointee.err != 0 {
            let message = Self.errorText(c)
            redisFree(c)
            throw StoreError("redis unavailable at \(address): \(message)")
        }
        _ = cw_redis_set_timeout(c, timeoutMs)
        ctx = c
    }

    public var isConnected: Bool { ctx != nil }

    /// Drops the connection (the next call connects again).
    public func disconnect() {
        if let ctx { redisFree(ctx) }
        ctx = nil
    }

    private static func errorText(_ c: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: c.pointee.errstr) { raw in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.firstIndex(of: 0) ?? b.count
            return String(decoding: b[..<n], as: UTF8.self)
        }
    }

    public func command(_ args: [[UInt8]]) throws(StoreError) -> RedisValue {
        try pipeline([args])[0]
    }

    public func command(_ args: String...) throws(StoreError) -> RedisValue {
        try pipeline([args.map { Array($0.utf8) }])[0]
    }

    /// Like `pipeline`, but a command Redis refused (`-LOADING` while it reads its
    /// append-only file, `-READONLY` on a replica...) throws too: a read that failed
    /// must never look like an empty answer.
    public func read(_ commands: [[String]]) throws(StoreError) -> [RedisValue] {
        let replies = try pipeline(commands.map { $0.map { Array($0.utf8) } })
        for r in replies { if case let .error(message) = r { throw StoreError("redis unavailable at \(address): \(message)") } }
        return replies
    }

    public func read(_ args: String...) throws(StoreError) -> RedisValue { try read([args])[0] }

    /// Sends every command, then reads every reply (in order). An I/O error drops the
    /// connection and throws; a command Redis refused is an `.error` reply.
    ///
    /// The commands are written in Redis' protocol by this function, not by hiredis:
    /// small pieces gathered in one buffer, and each argument of `directBytes` or more
    /// sent from the caller's array as it is (a 16 MB append or chunk is not copied
    /// twice more on its way to the socket). hiredis only reads the replies.
    public func pipeline(_ commands: [[[UInt8]]]) throws(StoreError) -> [RedisValue] {
        try connect()
        guard let c = ctx else { throw StoreError("redis unavailable at \(address)") }
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        func header(_ mark: UInt8, _ n: Int) {
            out.append(mark)
            out.append(contentsOf: String(n).utf8)
            out.append(13); out.append(10)
        }
        func send(_ raw: UnsafeRawBufferPointer) -> Bool {
            guard let base = raw.baseAddress, raw.count > 0 else { return true }
            return cw_redis_send_all(c, base, raw.count) == 0
        }
        for args in commands {
            header(UInt8(ascii: "*"), args.count)
            for a in args {
                header(UInt8(ascii: "$"), a.count)
                if a.count >= Self.directBytes {
                    guard out.withUnsafeBytes(send), a.withUnsafeBytes(send) else { try fail(c, errno) }
                    out.removeAll(keepingCapacity: true)
                } else {
                    out.append(contentsOf: a)
                }
                out.append(13); out.append(10)
            }
        }
        guard out.withUnsafeBytes(send) else { try fail(c, errno) }
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer? = nil
            if redisGetReply(c, &raw) != 0 || raw == nil { try fail(c) }
            let reply = raw!.assumingMemoryBound(to: redisReply.self)
            replies.append(Self.value(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Arguments this long are written from the caller's memory, not gathered.
    static let directBytes = 64 << 10

    private func fail(_ c: UnsafeMutablePointer<redisContext>, _ code: Int32) throws(StoreError) -> Never {
        let message = code == EAGAIN || code == EWOULDBLOCK ? "timed out writing" : String(cString: strerror(code))
        disconnect()
        throw StoreError("redis unavailable at \(address): \(message)")
    }

    private func fail(_ c: UnsafeMutablePointer<redisContext>) throws(StoreError) -> Never {
        let message = c.pointee.err != 0 ? Self.errorText(c) : "connection lost"
        disconnect()
        throw StoreError("redis unavailable at \(address): \(message)")
    }

    static func value(_ r: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let t = Int32(r.pointee.type)
        func bytes() -> [UInt8] {
            guard let s = r.pointee.str, r.pointee.len > 0 else { return [] }
            return s.withMemoryRebound(to: UInt8.self, capacity: Int(r.pointee.len)) { Array(UnsafeBufferPointer(start: $0, count: Int(r.pointee.len))) }
        }
        switch t {
        case cw_redis_reply_string(): return .string(bytes())
        case cw_redis_reply_integer(): return .int(Int64(r.pointee.integer))
        case cw_redis_reply_status(): return .status(String(decoding: bytes(), as: UTF8.self))
        case cw_redis_reply_error(): return .error(String(decoding: bytes(), as: UTF8.self))
        case cw_redis_reply_array():
            var items: [RedisValue] = []
            for i in 0..<Int(r.pointee.elements) { if let e = r.pointee.element[i] { items.append(value(e)) } }
            return .array(items)
        default: return .null
        }
    }
}

import CLibWebSockets
import Foundation

extension LWSServer {
    /// The longest a drain may take: past it the server exits with what is left.
    static let drainSeconds = 5.0

    /// After SIGTERM or SIGINT: stops accepting connections, tells every viewer and
    /// publisher the server is going away (WebSocket close 1001, once what is queued
    /// for it is written: its page reconnects, to another node behind a balancer),
    /// finishes the HTTP requests in flight (a write whose body is arriving is
    /// applied and answered), and returns once every connection is gone or after
    /// `drainSeconds`. `/readyz` answers 503 meanwhile.
    func drain(_ ctx: OpaquePointer, serviceOnce: () -> Void) {
        router.lifecycle.draining = true
        let started = ProcessInfo.processInfo.systemUptime
        // Closes the listening sockets; the connections already made stay.
        lws_context_deprecate(ctx, nil)
        let viewers = clients.count, feeds = publishers.count, requests = exchanges.count
        for (wsi, client) in clients where !client.closing {
            client.closing = true
            lws_callback_on_writable(wsi)
        }
        for (wsi, p) in publishers where !p.closing {
            p.closing = true
            lws_callback_on_writable(wsi)
        }
        log(.info, "drain", "draining: \(viewers) viewer connections, \(feeds) publishers, \(requests) requests in flight")
        while !(clients.isEmpty && publishers.isEmpty && exchanges.isEmpty),
              ProcessInfo.processInfo.systemUptime - started < Self.drainSeconds {
            // (The tick timer wakes the loop at least every quarter second.)
            if lws_service(ctx, 0) < 0 { break }
            serviceOnce()
        }
        let left = clients.count + publishers.count + exchanges.count
        log(left > 0 ? .warn : .info, "drain", String(format: "drained in %.2f s", ProcessInfo.processInfo.systemUptime - started)
            + (left > 0 ? ", \(left) connections cut at the \(Int(Self.drainSeconds)) s limit" : ""))
        logger.flush(all: true)
    }
}

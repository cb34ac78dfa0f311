import CLibWebSockets
import ChartSession
import Foundation

// wsserver: the ChartWire live-chart server (see README.md and docs/).

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("wsserver: \(message)\n".utf8))
    exit(code)
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if error.message == "help" { print(Options.usage); exit(0) }
    fail(error.message)
}

let resources: ServerResources
do { resources = try ServerResources.load(options) } catch { fail(error.message) }

let server = LWSServer(options: options, resources: resources)
currentServer = server

nonisolated(unsafe) var stopRequested: sig_atomic_t = 0
signal(SIGPIPE, SIG_IGN)
// Series grow by doubling their arrays; glibc's adaptive mmap threshold would let the
// outgrown buffers (tens of MB) come from the heap and stay resident after they are
// freed. A fixed 1 MiB threshold keeps large buffers in their own mappings, returned
// to the system when freed.
_ = cw_set_mmap_threshold(1 << 20)
for sig in [SIGINT, SIGTERM] {
    signal(sig) { _ in
        stopRequested = 1
        if let ctx = signalContext { lws_cancel_service(ctx) }
    }
}

let port: Int
do { port = try server.start() } catch { fail(error.message, code: 1) }
let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
FileHandle.standardOutput.write(Data("listening on http://\(shownHost):\(port)\n".utf8))
server.run(until: { stopRequested != 0 })

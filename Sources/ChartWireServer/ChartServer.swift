import ChartExport
import CLibWebSockets
import ChartSession
import Foundation
import LayoutEngine

/// The ChartWire server as a library: a Swift program hosts sessions in-process,
/// defines their charts in Swift (no JSON), adds its own modifiers and feeds data,
/// and the server streams them to browsers exactly as `wsserver` does
/// (docs/feeding.md, "Embedding").
///
/// Everything runs on the thread that calls `run`: the transport, every session and
/// the bodies given to `every`. Change sessions only from those bodies (or before
/// `run`): sessions have no locks.
public final class ChartServer {
    /// Where and how to serve.
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port (`start` returns it).
        public var port = 8080
        /// The static client; nil: the package's `web/`.
        public var webDir: String? = nil
        public var fontDir = "/usr/share/fonts/truetype/dejavu"
        /// Folders of further families a spec may name (as `--fonts`); nil: Debian's
        /// Liberation fonts when installed.
        public var fontFamilyDirs: [String]? = nil
        /// Seconds of silence before a viewer is sent a heartbeat; 0: none.
        public var heartbeat = 5.0
        /// The theme of charts whose spec names none: light, dark, iOS7 or contrast.
        public var theme = "light"
        /// Host the demo sessions too.
        public var demo = false
        /// No request log on stderr.
        public var quiet = true
        /// Origins (`scheme://host[:port]`, or `*`) whose pages may embed the charts
        /// and connect, beside the server's own (as `--allow-origin`; docs/embedding.md).
        public var allowOrigins: [String] = []
        public init() {}
    }

    public struct StartError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The hosted sessions.
    public var hub: SessionHub { resources.hub }
    /// Measures text in the chart font: what a `Session` needs.
    public var measurer: TextMeasurer { resources.measurer }

    private let options: Options
    private let resources: ServerResources
    private var server: LWSServer?
    private var pendingTimers: [LWSServer.Timer] = []

    /// Loads the fonts and the web folder (and the demo, if asked for).
    public init(_ configuration: Configuration = Configuration()) throws(StartError) {
        var o = Options()
        o.host = configuration.host
        o.port = configuration.port
        o.webDir = configuration.webDir
        o.fontDir = configuration.fontDir
        o.familyDirs = configuration.fontFamilyDirs
        o.heartbeat = configuration.heartbeat
        o.theme = configuration.theme
        o.demo = configuration.demo
        o.quiet = configuration.quiet
        for origin in configuration.allowOrigins {
            if let why = WebOrigin.problem(origin) { throw StartError(message: "allowOrigins: \"\(origin.prefix(100))\" is not an origin: \(why)") }
            o.allowOrigins.append(origin == "*" ? origin : WebOrigin.normalized(origin))
        }
        // A program hosting sessions in Swift keeps them in memory (its own code makes them).
        o.dataDir = nil
        do { resources = try ServerResources.load(o) } catch { throw StartError(message: error.message) }
        options = o
    }

    /// Hosts a chart as session `id` (`/s/{id}`, `/ws/{id}`) and returns the session.
    @discardableResult
    public func host(_ chart: Chart, id: String, title: String? = nil, maxFps: Double = Session.defaultMaxFps,
                     access: SessionAccess = .open) -> Session {
        let session = Session(id: id, title: title ?? id, chart: chart, measurer: measurer, maxFps: maxFps)
        session.access = access
        session.defaultTheme = options.theme
        if options.heartbeat > 0 { session.heartbeat = options.heartbeat }
        hub.add(session)
        return session
    }

    /// A hosted session's data as CSV (`json: false`) or JSON, as `GET
    /// /api/sessions/{id}/data.csv|data.json` answers (docs/export.md, "Data"): the data
    /// in view, or `options`' range and series. Call it on the server's thread (an
    /// `every` body, a modifier) or before `run`. Throws 404 for an unknown session or
    /// series, 400 for a bad range, 413 past the `exportPoints` limit.
    public func exportData(_ id: String, json: Bool = false, options: DataExportOptions = DataExportOptions()) throws(DataExportError) -> [UInt8] {
        guard let session = hub.session(id) else { throw DataExportError(404, "no session \"\(id)\"") }
        let export = try DataExport(chart: session.chart, session: id, options: options)
        return json ? export.json() : export.csv()
    }

    /// Session `id` drawn as a viewer of `width`×`height` CSS pixels at `dpr` would see
    /// it now, as a PNG, SVG or PDF file's bytes (what `GET /api/sessions/{id}/image.png`
    /// serves); `theme` names a built-in theme (`Theme.presets`) for this image only.
    /// Throws for an unknown session, a size past the limits or an unknown theme. Reads
    /// the session: call it on the server's thread (an `every` body) or before `start`.
    public func image(session id: String, format: ImageFormat = .png, width: Int = 800, height: Int = 500, dpr: Double = 1,
                      theme: String? = nil) throws(ExportError) -> [UInt8] {
        guard let session = hub.session(id) else { throw ExportError("no session \"\(id)\"") }
        guard let fonts = resources.glyphFonts else { throw ExportError("this server has no image export") }
        var query = ["width": String(width), "height": String(height), "dpr": String(dpr)]
        if let theme { query["theme"] = theme }
        do {
            let request = try ImageExport.Request.read(format: format, query: query)
            return try ImageExport(renderer: ImageRenderer(fonts: fonts)).render(session, request)
        } catch {
            throw ExportError(error.message)
        }
    }

    /// Runs `body` every `interval` seconds (at least 0.02) on the server's thread,
    /// with the Unix time: where a program feeds its sessions. What it changes reaches
    /// viewers by itself.
    public func every(_ interval: Double, _ body: @escaping (Double) -> Void) {
        let timer = LWSServer.Timer(interval: max(0.02, interval), body: body)
        if let server { server.timers.append(timer) } else { pendingTimers.append(timer) }
    }

    /// Starts listening; returns the port.
    @discardableResult
    public func start() throws(StartError) -> Int {
        let s = LWSServer(options: options, resources: resources)
        s.timers = pendingTimers
        pendingTimers = []
        server = s
        currentServer = s
        do { return try s.start() } catch { throw StartError(message: error.message) }
    }

    /// Serves until SIGINT or SIGTERM (starting first if `start` was not called).
    public func run() throws(StartError) {
        if server == nil { try start() }
        Self.installSignalHandlers()
        server?.run(until: { stopRequested != 0 })
    }

    /// The `wsserver` command (INTERFACE.md): parses `args`, serves, exits.
    public static func runCommandLine(_ args: [String]) -> Never {
        func fail(_ message: String, code: Int32 = 2) -> Never {
            FileHandle.standardError.write(Data("wsserver: \(message)\n".utf8))
            exit(code)
        }
        let options: Options
        do {
            options = try Options.parse(args)
        } catch {
            if error.message == "help" { print(Options.usage); exit(0) }
            fail(error.message)
        }
        let resources: ServerResources
        do { resources = try ServerResources.load(options) } catch { fail(error.message) }
        let server = LWSServer(options: options, resources: resources)
        currentServer = server
        installSignalHandlers()
        let port: Int
        do { port = try server.start() } catch { fail(error.message, code: 1) }
        let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
        FileHandle.standardOutput.write(Data("listening on \(options.tlsCert != nil ? "https" : "http")://\(shownHost):\(port)\n".utf8))
        server.run(until: { stopRequested != 0 })
        exit(0)
    }

    static func installSignalHandlers() {
        signal(SIGPIPE, SIG_IGN)
        // Series grow by doubling their arrays; glibc's adaptive mmap threshold would let
        // the outgrown buffers (tens of MB) come from the heap and stay resident after
        // they are freed. A fixed 1 MiB threshold keeps large buffers in their own
        // mappings, returned to the system when freed.
        _ = cw_set_mmap_threshold(1 << 20)
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { _ in
                stopRequested = 1
                if let ctx = signalContext { lws_cancel_service(ctx) }
            }
        }
    }
}

/// Set by SIGINT/SIGTERM; the service loop stops at its next turn.
nonisolated(unsafe) var stopRequested: sig_atomic_t = 0

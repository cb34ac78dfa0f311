import ChartExport
import ChartSession
import FontStack
import Foundation
import LayoutEngine
import RedisStore
import SQLiteStore

/// Everything the server loads before it listens: fonts, web folder, sessions.
/// Failures here are start-up errors: one line on stderr, exit code 2.
struct StartupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

struct ServerResources {
    var measurer: TextMeasurer
    var regularFont: [UInt8]
    var boldFont: [UInt8]
    var webDir: String
    var webFonts: WebFonts
    /// Fallback fonts that are not installed.
    var fontWarnings: [String]
    var hub: SessionHub
    /// `CHARTWIRE_CONTROL_TOKEN`: creates sessions, and opens every session's control.
    var controlToken: String?
    /// The store sessions are kept in (`--data`); nil: memory only.
    var durability: Durability?
    /// The config file's `server.allowOrigins` (used when `--allow-origin` gives none).
    var allowOrigins: [String]? = nil
    /// The config file's `server` settings (none: every field nil).
    var server = ConfigSpec.ServerSettings()
    /// The chart font's faces for the image export.
    var glyphFonts: GlyphFonts? = nil
    /// Sessions whose spec names a Swift hook this program has not registered (a
    /// crosshair class): they start with the plain one.
    var hookWarnings: [String] = []
    /// A note on the data folder's database for the log (pages made larger than 4 kB).
    var storeNote: String? = nil

    static func load(_ options: Options) throws(StartupError) -> ServerResources {
        // Before any spec is read: generators' default capacity comes from the limits.
        SessionLimits.current = options.sessionLimits
        // Freed memory goes back to the system after a burst, not at the next one.
        Allocator.purgeInBackground()
        let fonts: ChartFonts
        do { fonts = try ChartFonts.load(primaryDir: options.fontDir).adding(familyDirs: options.resolvedFamilyDirs) } catch {
            throw StartupError(message: error.message)
        }
        // Before any spec is read: the families a spec may name.
        for (name, family) in fonts.families { FontFamilies.register(name, faces: Set(family.faces.keys)) }
        let measurer = fonts.measurer
        var fontFamilyWarnings = fonts.familyWarnings

        let webDir = try locateWebDir(options.webDir)

        var specs: [SessionSpec] = []
        /// Each spec document with its name, for its dashboards.
        var documents: [(text: String, source: String)] = []
        /// The cluster's Redis: `--redis`, else the config file's `server.redis`.
        var redis = options.redis
        /// The config file's `server` settings (none: every field nil).
        var server = ConfigSpec.ServerSettings()
        if options.demo && options.configFile == nil {
            specs += try decodeSpec(DemoSpec.json, source: "embedded demo spec")
            // (The fonts session names the Liberation families: left out, with a warning,
            // by a server started without them.)
            var gallery = try parseSpec(GallerySpec.json, source: "embedded axis gallery")
            if FontFamilies.problem(family: "Liberation Serif", face: FontFace(italic: true)) != nil
                || FontFamilies.problem(family: "Liberation Mono", face: FontFace()) != nil,
               case var .object(top) = gallery, let i = top.firstIndex(where: { $0.0 == "sessions" }),
               case let .array(list) = top[i].1 {
                top[i].1 = .array(list.filter { $0["id"]?.stringValue != "gallery-fonts" })
                gallery = .object(top)
                fontFamilyWarnings.append("gallery-fonts is not hosted: it needs the Liberation fonts (fonts-liberation, --fonts)")
            }
            specs += try decodeSpec(gallery, source: "embedded axis gallery")
            documents.append((DemoSpec.json, "embedded demo spec"))
        }
        if let file = options.configFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw StartupError(message: "--config: cannot read \(file)")
            }
            let text = String(decoding: data, as: UTF8.self)
            documents.append((text, file))
            let json = try parseSpec(text, source: file)
            var fromFile = try decodeSpec(json, source: file)
            // Token files are named relative to the config file.
            let dir = (file as NSString).deletingLastPathComponent
            for i in fromFile.indices {
                guard let name = fromFile[i].access.tokensFile else { continue }
                let path = name.hasPrefix("/") ? name : (dir.isEmpty ? name : dir + "/" + name)
                try loadTokens(path, into: &fromFile[i].access, session: fromFile[i].id)
            }
            specs += fromFile
            // The file's `server` settings, where the command line gives none.
            // (`decodeSpec` has checked them: reading them again cannot fail.)
            server = (try? ConfigSpec.decodeServer(json)) ?? server
            if redis == nil, let url = server.redis {
                guard let address = RedisAddress.parse(url) else {
                    throw StartupError(message: "\(file): $.server.redis: \"\(url)\" is not redis://HOST:PORT")
                }
                redis = address
            }
        }
        let hub = SessionHub()
        for spec in specs {
            guard hub.session(spec.id) == nil else {
                throw StartupError(message: "session \"\(spec.id)\" is declared twice")
            }
            hub.add(spec.makeSession(measurer: measurer, defaultTheme: options.theme))
        }
        var durability: Durability? = nil
        var storeNote: String? = nil
        if let address = redis {
            // A cluster node: Redis holds the sessions (docs/cluster.md).
            let counts = options.redisCounts(file: server)
            let cluster = ClusterDurability(redis: RedisStore(address), snapshotEntries: counts.snapshot, streamTail: RedisStore.StreamTail(entries: counts.tail, bytes: counts.tailBytes))
            // (Sessions made from Redis later, made elsewhere or reloaded, get the
            // heartbeat the transport gives the sessions it starts with.)
            let heartbeat = options.heartbeat > 0 ? options.heartbeat : nil
            try cluster.start(hub: hub) { spec in
                let s = spec.makeSession(measurer: measurer, defaultTheme: options.theme)
                s.heartbeat = heartbeat
                return s
            }
            hub.journal = cluster
            durability = cluster
        } else if let dir = options.dataDir {
            let store: SQLiteStore
            do { store = try SQLiteStore(folder: dir, sync: options.fsync) } catch { throw StartupError(message: "--data: \(error.message)") }
            storeNote = store.pageSizeNote
            let d = Durability(store: store)
            try d.restore(into: hub, configured: hub.sessions) { spec in
                spec.makeSession(measurer: measurer, defaultTheme: options.theme)
            }
            hub.journal = d
            durability = d
        }
        let ids = Set(hub.sessions.map(\.id))
        for (text, source) in documents {
            let dashboards: [Dashboard]
            do { dashboards = try ConfigSpec.decodeDashboards(Jansson.parse(text, maxValues: nil), sessionIds: ids) } catch {
                throw StartupError(message: "\(source): \(error)")
            }
            for d in dashboards {
                guard hub.dashboard(d.id) == nil else { throw StartupError(message: "dashboard \"\(d.id)\" is declared twice") }
                hub.dashboards.append(d)
            }
        }
        let webFonts = WebFonts.load(webDir: webDir, fonts: fonts)
        var controlToken: String? = nil
        if let token = ProcessInfo.processInfo.environment["CHARTWIRE_CONTROL_TOKEN"], !token.isEmpty {
            guard SessionAccess.tokenLengths.contains(token.utf8.count) else {
                throw StartupError(message: "CHARTWIRE_CONTROL_TOKEN must be 8 to 256 bytes")
            }
            controlToken = token
        }
        let hookWarnings = hub.sessions.flatMap { s in
            s.chart.modifiers.compactMap { ($0 as? CrosshairModifier)?.missingClass }.map { name in
                "session \"\(s.id)\": crosshair class \"\(name)\" is not registered in this program "
                    + "(CrosshairModifier.register, before the server starts): it shows the plain crosshair"
            }
        }
        return ServerResources(measurer: measurer, regularFont: fonts.regular, boldFont: fonts.bold, webDir: webDir,
                               webFonts: webFonts, fontWarnings: fonts.missing + fontFamilyWarnings, hub: hub, controlToken: controlToken,
                               durability: durability, allowOrigins: server.allowOrigins, server: server, glyphFonts: GlyphFonts(fonts: fonts),
                               hookWarnings: hookWarnings, storeNote: storeNote)
    }

    /// Adds the tokens of a file `{"viewerTokens": [...], "controllerTokens": [...]}`.
    /// Errors name the file and the field, never a token.
    static func loadTokens(_ path: String, into access: inout SessionAccess, session: String) throws(StartupError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StartupError(message: "session \"\(session)\": cannot read tokensFile \(path)")
        }
        let json: JSONValue
        do { json = try Jansson.parse(String(decoding: data, as: UTF8.self)) } catch {
            throw StartupError(message: "session \"\(session)\": tokensFile \(path) is not JSON")
        }
        for (key, role) in [("viewerTokens", SessionAccess.Role.viewer), ("controllerTokens", .controller)] {
            guard let value = json[key] else { continue }
            guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count,
                  list.allSatisfy({ SessionAccess.tokenLengths.contains($0.utf8.count) }) else {
                throw StartupError(message: "session \"\(session)\": tokensFile \(path): \(key) must be strings of 8 to 256 bytes")
            }
            if role == .viewer { access.viewerTokens += list } else { access.controllerTokens += list }
        }
    }

    static func decodeSpec(_ text: String, source: String) throws(StartupError) -> [SessionSpec] {
        try decodeSpec(parseSpec(text, source: source), source: source)
    }

    static func parseSpec(_ text: String, source: String) throws(StartupError) -> JSONValue {
        do { return try Jansson.parse(text, maxValues: nil) } catch { throw StartupError(message: "\(source): \(error)") }
    }

    static func decodeSpec(_ json: JSONValue, source: String) throws(StartupError) -> [SessionSpec] {
        do { return try ConfigSpec.decode(json) } catch { throw StartupError(message: "\(source): \(error)") }
    }

    /// `--web DIR`, else `web/` in the working directory, else the package's `web/`
    /// found from this source file's location.
    static func locateWebDir(_ given: String?) throws(StartupError) -> String {
        let fm = FileManager.default
        func valid(_ dir: String) -> Bool { fm.fileExists(atPath: dir + "/client.html") }
        if let given {
            guard valid(given) else { throw StartupError(message: "--web: \(given) has no client.html") }
            return given
        }
        let candidates = [
            fm.currentDirectoryPath + "/web",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("web").path,
        ]
        guard let found = candidates.first(where: valid) else {
            throw StartupError(message: "cannot find the web/ folder; pass --web DIR")
        }
        return found
    }
}

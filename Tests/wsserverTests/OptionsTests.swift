import Testing
@testable import ChartWireServer
import RedisStore
import ChartSession

@Suite struct OptionsTests {
    @Test func defaults() throws {
        let o = try Options.parse([])
        #expect(o.host == "127.0.0.1" && o.port == 8080 && o.demo && o.configFile == nil && o.webDir == nil)
    }

    @Test func everyFlag() throws {
        let o = try Options.parse(["--host", "0.0.0.0", "--port", "0", "--web", "/w", "--config", "c.json", "--no-demo",
                                   "--font-dir", "/f", "--quiet", "--heartbeat", "0.5"])
        #expect(o == Options(host: "0.0.0.0", port: 0, webDir: "/w", configFile: "c.json", demo: false, fontDir: "/f",
                             quiet: true, heartbeat: 0.5))
        #expect(try Options.parse(["--heartbeat", "0"]).heartbeat == 0)
        #expect(try Options.parse(["--theme", "dark"]).theme == "dark" && Options().theme == "light")
    }

    @Test func fontFamilyFolders() throws {
        // Default: Debian's Liberation fonts when installed (fonts-liberation is in the setup).
        #expect(try Options.parse([]).resolvedFamilyDirs == ["/usr/share/fonts/truetype/liberation"])
        #expect(try Options.parse(["--fonts", "none"]).resolvedFamilyDirs == [])
        #expect(try Options.parse(["--fonts", "/a", "--fonts", "/b"]).resolvedFamilyDirs == ["/a", "/b"])
        #expect(throws: Options.UsageError(message: "--fonts needs a value")) { try Options.parse(["--fonts"]) }
    }

    @Test func dataFolderAndFsync() throws {
        #expect(try Options.parse([]).dataDir == "chartwire-data" && Options().fsync == .always)
        #expect(try Options.parse(["--data", "none"]).dataDir == nil)
        let o = try Options.parse(["--data", "/var/lib/cw", "--fsync", "batch"])
        #expect(o.dataDir == "/var/lib/cw" && o.fsync == .batch)
        #expect(try Options.parse(["--fsync", "off"]).fsync == .off)
        let r = try Options.parse(["--redis", "redis://10.0.0.5:7000", "--redis-snapshot", "500", "--redis-tail", "20", "--redis-tail-bytes", "0"])
        #expect(r.redis == RedisAddress(host: "10.0.0.5", port: 7000) && r.redisSnapshot == 500 && r.redisTail == 20 && r.redisTailBytes == 0)
        #expect(Options().redisSnapshot == nil && Options().redisTail == nil && Options().redisTailBytes == nil)
        #expect(Options().redisCounts(file: .init()) == (20_000, 1000, 64 << 20))
    }

    /// `--redis-snapshot`, `--redis-tail`, `--redis-tail-bytes` and `--pull-allow` win over the config file's
    /// `server` settings, which win over the defaults.
    @Test func commandLineWinsOverTheConfigFile() throws {
        var file = ConfigSpec.ServerSettings()
        file.redisSnapshot = 300
        file.redisTail = 7
        file.redisTailBytes = 5000
        file.pullAllow = ["data.example:9000"]
        let none = try Options.parse([])
        #expect(none.redisCounts(file: file) == (300, 7, 5000))
        #expect(none.pullAllowList(file: file) == ["data.example:9000"])
        #expect(none.pullAllowList(file: .init()) == [])
        let given = try Options.parse(["--redis-snapshot", "50", "--pull-allow", "Other.example"])
        #expect(given.redisCounts(file: file) == (50, 7, 5000))
        #expect(try Options.parse(["--redis-tail-bytes", "123"]).redisCounts(file: file) == (300, 7, 123))
        #expect(given.pullAllowList(file: file) == ["other.example"])
        file.pullCA = "file-ca.pem"
        #expect(none.pullCAFile(file: file) == "file-ca.pem" && none.pullCAFile(file: .init()) == nil)
        #expect(try Options.parse(["--pull-ca", "ca.pem"]).pullCAFile(file: file) == "ca.pem")
        #expect(try Options.parse(["--redis-tail", "2"]).redisCounts(file: .init()) == (20_000, 2, 64 << 20))
    }

    @Test(arguments: [
        (["--port"], "--port needs a value"),
        (["--port", "http"], #"--port: "http" is not a port number (0 to 65535)"#),
        (["--port", "70000"], #"--port: "70000" is not a port number (0 to 65535)"#),
        (["--config", "--no-demo"], "--config needs a value"),
        (["--colour"], #"unknown argument "--colour" (see --help)"#),
        (["serve"], #"unknown argument "serve" (see --help)"#),
        (["--heartbeat", "0.01"], #"--heartbeat: "0.01" is not a number of seconds (0, or 0.1 to 3600)"#),
        (["--heartbeat", "soon"], #"--heartbeat: "soon" is not a number of seconds (0, or 0.1 to 3600)"#),
        (["--theme", "neon"], #"--theme: "neon" is not a theme (contrast, dark, iOS7, light)"#),
        (["--allow-origin", "evil.example"], #"--allow-origin: "evil.example" is not an origin: an origin starts with http:// or https:// (scheme://host[:port])"#),
        (["--allow-origin", "http://a.example/path"], #"--allow-origin: "http://a.example/path" is not an origin: an origin has no path, query or fragment ("/path"): scheme://host[:port] only"#),
        (["--allow-origin", "ftp://a.example"], #"--allow-origin: "ftp://a.example" is not an origin: the scheme "ftp" is not http or https"#),
        (["--allow-origin", "https://*.example.com"], #"--allow-origin: "https://*.example.com" is not an origin: a wildcard is * alone (any origin), not part of a host name"#),
        (["--allow-origin", "http://a.example:99999"], #"--allow-origin: "http://a.example:99999" is not an origin: the port "99999" is not a number from 1 to 65535"#),
        (["--allow-origin", "null"], #"--allow-origin: "null" is not an origin: "null" (sandboxed frames, file:// pages) cannot be allowed by name; use * to allow every origin"#),
        (["--allow-host", "a/b"], #"--allow-host: "a/b" is not a host name"#),
        (["--pull-ca"], "--pull-ca needs a value"),
        (["--pull-ca", ""], "--pull-ca: expected the path of a PEM file of CA certificates"),
        (["--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-key", "k.pem"], "--tls-cert and --tls-key go together"),
        (["--limit", "bodyBudgetMB"], #"--limit: "bodyBudgetMB" is not NAME=VALUE"#),
        (["--limit", "speed=3"], #"--limit: unknown limit "speed" (bodyBudgetMB, connectionsPerAddress, messagesPerSecond, messageBurst, headerTimeoutS, bodyTimeoutS, maxURLBytes, maxHeadBytes, jsonValues, sessionPoints, serverPoints, generatorCapacity, sessions, seriesPerChart, axesPerChart, annotationsPerChart, canvasSizes, patchHistory, exportPoints)"#),
        (["--limit", "bodyBudgetMB=0"], #"--limit: bodyBudgetMB must be a whole number from 1 to 65536, not "0""#),
        (["--limit", "headerTimeoutS=1.5"], #"--limit: headerTimeoutS must be a whole number from 1 to 3600, not "1.5""#),
        (["--limit", "maxHeadBytes=100000"], #"--limit: maxHeadBytes must be a whole number from 1024 to 49152, not "100000""#),
        (["--data"], "--data needs a value"),
        (["--redis-tail", "0"], #"--redis-tail: "0" is not a whole number from 1 to 100000000"#),
        (["--redis-tail-bytes", "-1"], #"--redis-tail-bytes: "-1" is not a whole number from 0 to 1099511627776"#),
        (["--redis-tail-bytes", "64MB"], #"--redis-tail-bytes: "64MB" is not a whole number from 0 to 1099511627776"#),
        (["--redis-snapshot", "many"], #"--redis-snapshot: "many" is not a whole number from 1 to 100000000"#),
        (["--fsync", "sometimes"], #"--fsync: "sometimes" is not a mode (always, batch or off)"#),
    ])
    func badFlags(args: [String], message: String) {
        #expect(throws: Options.UsageError(message: message)) { try Options.parse(args) }
    }

    @Test func transportFlags() throws {
        let o = try Options.parse(["--allow-origin", "https://App.Example:8443", "--allow-origin", "*",
                                   "--allow-host", "Charts.Example", "--tls-cert", "c.pem", "--tls-key", "k.pem",
                                   "--limit", "bodyBudgetMB=32", "--limit", "connectionsPerAddress=5",
                                   "--limit", "messagesPerSecond=10", "--limit", "messageBurst=20",
                                   "--limit", "headerTimeoutS=3", "--limit", "bodyTimeoutS=30",
                                   "--limit", "maxURLBytes=1024", "--limit", "maxHeadBytes=4096"])
        #expect(o.allowOrigins == ["https://app.example:8443", "*"] && o.allowHosts == ["charts.example"])
        #expect(o.tlsCert == "c.pem" && o.tlsKey == "k.pem")
        #expect(TransportLimits.handles("bodyBudgetMB=3") && !TransportLimits.handles("seriesPerChart=3"))
        #expect(o.transportLimits == TransportLimits(bodyBudgetMB: 32, connectionsPerAddress: 5, messagesPerSecond: 10,
                                            messageBurst: 20, headerTimeoutS: 3, bodyTimeoutS: 30,
                                            maxURLBytes: 1024, maxHeadBytes: 4096))
        let d = try Options.parse([]).transportLimits
        #expect(d.bodyBudgetMB == 256 && d.connectionsPerAddress == 64 && d.messagesPerSecond == 200
                && d.headerTimeoutS == 10 && d.bodyTimeoutS == 60)
        #expect(Options.usage.contains("--limit NAME=VALUE") && Options.usage.contains("bodyBudgetMB"))
    }
}

@Suite struct AccessPolicyTests {
    func policy(_ args: [String]) throws -> AccessPolicy { AccessPolicy(options: try Options.parse(args)) }

    @Test func contentLengthIsStrict() {
        #expect(AccessPolicy.contentLength([]) == .absent)
        #expect(AccessPolicy.contentLength(["42"]) == .bytes(42))
        #expect(AccessPolicy.contentLength([" 7 "]) == .bytes(7))
        for bad in ["abc", "1e3", "-1", "+5", "5, 5", "0x10", "", "1234567890123456"] {
            guard case .invalid = AccessPolicy.contentLength([bad]) else { Issue.record("\(bad) accepted"); continue }
        }
        #expect(AccessPolicy.contentLength(["5", "5"]) == .invalid("more than one Content-Length header"))
    }

    @Test func hostNames() throws {
        #expect(AccessPolicy.hostName("LocalHost:8080") == "localhost")
        #expect(AccessPolicy.hostName("[::1]:80") == "[::1]")
        #expect(AccessPolicy.hostName("example.com.") == "example.com")
        #expect(AccessPolicy.hostName(" \tExample.COM:443\t ") == "example.com" && AccessPolicy.hostName(" \t ") == nil)
        #expect(AccessPolicy.trimmingOWS("\t é x \t") == "é x" && AccessPolicy.trimmingOWS("a") == "a" && AccessPolicy.trimmingOWS("") == "")
        #expect(AccessPolicy.hostName("a:b") == nil && AccessPolicy.hostName("a b") == nil && AccessPolicy.hostName("") == nil)
        let loop = try policy([])
        #expect(loop.hostAllowed("127.0.0.1:8080") && loop.hostAllowed("localhost") && loop.hostAllowed("[::1]:8080"))
        #expect(!loop.hostAllowed("evil.example") && !loop.hostAllowed(nil))
        #expect(try policy(["--host", "0.0.0.0"]).hostAllowed("anything.example"))
        let named = try policy(["--host", "0.0.0.0", "--allow-host", "charts.example"])
        #expect(named.hostAllowed("charts.example:80") && !named.hostAllowed("evil.example"))
    }

    /// Who may frame the pages: 'self' and the allow-list; X-Frame-Options only when the
    /// list is empty (it cannot name other origins); `*` lets any page frame them.
    @Test func frameAncestors() throws {
        #expect(try policy([]).pageHeaders == ["Content-Security-Policy": "frame-ancestors 'self'", "X-Frame-Options": "SAMEORIGIN"])
        #expect(try policy(["--allow-origin", "https://b.example", "--allow-origin", "HTTP://A.example:80"]).pageHeaders
                == ["Content-Security-Policy": "frame-ancestors 'self' http://a.example https://b.example"])
        #expect(try policy(["--allow-origin", "*", "--allow-origin", "https://b.example"]).pageHeaders
                == ["Content-Security-Policy": "frame-ancestors *"])
        // The same list opens WebSockets: an origin that may frame the pages may connect.
        let p = try policy(["--allow-origin", "http://127.0.0.1:9000"])
        #expect(p.originAllowed("http://127.0.0.1:9000", host: "127.0.0.1:8080") && !p.originAllowed("http://127.0.0.1:9001", host: "127.0.0.1:8080"))
    }

    /// The Swift API's list is checked as the flag's, before anything is loaded.
    @Test func chartServerAllowOrigins() {
        var c = ChartServer.Configuration()
        c.allowOrigins = ["https://ok.example", "https://portal.example/dash"]
        #expect(throws: ChartServer.StartError.self) { try ChartServer(c) }
        do { _ = try ChartServer(c) } catch {
            #expect(error.message == #"allowOrigins: "https://portal.example/dash" is not an origin: an origin has no path, query or fragment ("/dash"): scheme://host[:port] only"#)
        }
    }

    @Test func origins() throws {
        let p = try policy(["--allow-origin", "https://app.example"])
        #expect(p.originAllowed(nil, host: "127.0.0.1:8080"))
        #expect(p.originAllowed("http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(p.originAllowed("https://app.example:443", host: "127.0.0.1:8080"))
        #expect(!p.originAllowed("http://evil.example", host: "127.0.0.1:8080"))
        #expect(!p.originAllowed("null", host: "127.0.0.1:8080"))
        #expect(!p.originAllowed("http://127.0.0.1:9999", host: "127.0.0.1:8080"))
        #expect(p.isCrossOriginAllowed("https://app.example", host: "127.0.0.1:8080"))
        #expect(!p.isCrossOriginAllowed("http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(try policy(["--allow-origin", "*"]).originAllowed("http://evil.example", host: "x"))
        let tls = try policy(["--tls-cert", "c", "--tls-key", "k"])
        #expect(tls.originAllowed("https://localhost:8443", host: "localhost:8443") && !tls.originAllowed("http://localhost:8443", host: "localhost:8443"))
    }
}

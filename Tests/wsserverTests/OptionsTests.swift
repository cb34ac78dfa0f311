import Testing
@testable import ChartWireServer

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

    @Test func dataFolderAndFsync() throws {
        #expect(try Options.parse([]).dataDir == "chartwire-data" && Options().fsync == .always)
        #expect(try Options.parse(["--data", "none"]).dataDir == nil)
        let o = try Options.parse(["--data", "/var/lib/cw", "--fsync", "batch"])
        #expect(o.dataDir == "/var/lib/cw" && o.fsync == .batch)
        #expect(try Options.parse(["--fsync", "off"]).fsync == .off)
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
        (["--theme", "neon"], #"--theme: "neon" is not a theme (contrast, dark, light)"#),
        (["--data"], "--data needs a value"),
        (["--fsync", "sometimes"], #"--fsync: "sometimes" is not a mode (always, batch or off)"#),
    ])
    func badFlags(args: [String], message: String) {
        #expect(throws: Options.UsageError(message: message)) { try Options.parse(args) }
    }
}

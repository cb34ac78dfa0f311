// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ChartWire",
    products: [
        .executable(name: "wsserver", targets: ["wsserver"]),
        .executable(name: "chartbench", targets: ["chartbench"]),
        .executable(name: "cwload", targets: ["cwload"]),
        .library(name: "LayoutEngine", targets: ["LayoutEngine"]),
        .library(name: "ChartSession", targets: ["ChartSession"]),
        // Display lists drawn into PNG, SVG and PDF (docs/export.md).
        .library(name: "ChartExport", targets: ["ChartExport"]),
        // The server as a library: a Swift program hosts sessions in-process (docs/feeding.md).
        .library(name: "ChartWireServer", targets: ["ChartWireServer"]),
    ],
    dependencies: [
        // GET /metrics: swift-prometheus's registry and exposition (with swift-metrics'
        // CoreMetrics and swift-atomics underneath), from the machine's package mirror.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // C libraries, found through pkg-config. Macros and variadic functions Swift
        // cannot see are wrapped as small inline functions in each shim header.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .systemLibrary(
            name: "CHarfBuzz",
            pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]
        ),
        // SQLite, the embedded store's database (Debian's libsqlite3-dev), used directly
        // like jansson: no Swift wrapper package to build.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // hiredis, the Redis client of the cluster store (Debian's libhiredis-dev).
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // Text shaping with HarfBuzz behind a small C API (bytes and code points in,
        // advances out), so no HarfBuzz type reaches Swift.
        .target(name: "CShaping", dependencies: ["CHarfBuzz"]),
        // zlib, for gzip request bodies (InfluxDB clients and Telegraf compress writes).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Cairo (1.16: image, SVG and PDF surfaces) and FreeType, for rendering display
        // lists to images (ChartExport, docs/export.md). cairo-ft's pkg-config brings both.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo-ft",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // PNG encoding with zlib at a fast level (Cairo's own writer uses zlib's default), and
        // JPEG (libjpeg-turbo: Debian's libjpeg62-turbo-dev) and GIF (giflib: libgif-dev, which
        // has no pkg-config file) decoding for annotation images, behind a C API of pixels.
        .target(name: "CExport", dependencies: ["CZlib"],
                linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("gif")]),
        // WebSocket client-frame masking, which libwebsockets does not check: follows
        // frame headers in what lws receives (a recv() wrapper) for the server to ask.
        .target(name: "CWireGuard"),
        // A TLS client over a non-blocking socket for https pull sources (OpenSSL:
        // Debian's libssl-dev), behind a C API of bytes, so no OpenSSL type reaches Swift.
        .target(name: "CTLSClient", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),

        // Pure, deterministic values: ranges, ticks, text measurement, measure/layout.
        .target(name: "LayoutEngine"),

        // The chart font: reads DejaVu and the fallback fonts, measures text as Chromium
        // shapes it (HarfBuzz, through CShaping).
        .target(name: "FontStack", dependencies: ["LayoutEngine", "CShaping"]),

        // Charts, series, modifiers, sessions and viewers; display lists and encodings.
        .target(name: "ChartSession", dependencies: ["LayoutEngine"]),
        // Display lists drawn as the page draws them, into PNG, SVG and PDF (Cairo, with
        // glyphs shaped by HarfBuzz in the chart font's own files). The only Swift target
        // that sees Cairo or FreeType.
        .target(name: "ChartExport", dependencies: ["ChartSession", "LayoutEngine", "FontStack", "CCairo", "CExport", "CShaping"]),

        // The storage seam: the protocol every store implements (sessions' change logs,
        // snapshots, data chunks), with an in-memory store for tests. No C, no I/O.
        .target(name: "ChartStore"),
        // The embedded default store: SQLite in WAL mode in the data folder.
        .target(name: "SQLiteStore", dependencies: ["ChartStore", "CSQLite", "CZlib"]),
        // The cluster's store: every node's sessions in one Redis (docs/cluster.md).
        .target(name: "RedisStore", dependencies: ["ChartStore", "CHiredis"]),

        // The server: libwebsockets transport, HTTP routes, JSON through jansson. All of
        // the server's C interop lives here (and in the C targets).
        .target(
            name: "ChartWireServer",
            dependencies: ["ChartSession", "ChartExport", "LayoutEngine", "FontStack", "CLibWebSockets", "CJansson", "CZlib", "CWireGuard", "CTLSClient",
                           "ChartStore", "SQLiteStore", "RedisStore",
                           .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        // The command-line server (INTERFACE.md). It allocates with jemalloc: a view-frame
        // makes and frees many small values on two threads, and glibc's malloc took a
        // tenth of the server's time there (docs/bench.md, "The allocator"). Programs
        // hosting the library choose their own allocator.
        .executableTarget(name: "wsserver", dependencies: ["ChartWireServer"],
                          linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]),
        // A Swift program hosting its own sessions, with no JSON (docs/feeding.md, "Embedding").
        .executableTarget(name: "embedded-example", dependencies: ["ChartWireServer", "ChartSession", "LayoutEngine"],
                          path: "examples/embedded"),

        // Native load client for the benchmark's live and fan-out figures (C, epoll).
        .executableTarget(name: "cwload", path: "bench/cwload", linkerSettings: [.linkedLibrary("m")]),

        // Frame-build benchmark (see docs/bench.md).
        .executableTarget(
            name: "chartbench",
            dependencies: ["ChartSession", "ChartExport", "LayoutEngine", "FontStack", "TestSupport"],
            path: "bench/chartbench",
            // The server's allocator, so its in-process figures measure what the server runs.
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),

        // Shared by the tests and the benchmark: the chart font as the server loads it,
        // and a C-free JSON reader.
        .target(name: "TestSupport", dependencies: ["LayoutEngine", "ChartSession", "FontStack"], path: "Tests/TestSupport"),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine", "TestSupport"]),
        .testTarget(name: "FontStackTests", dependencies: ["FontStack", "LayoutEngine", "TestSupport"]),
        .testTarget(
            name: "ChartSessionTests", dependencies: ["ChartSession", "LayoutEngine", "TestSupport"],
            exclude: ["Golden"]  // stored display lists, read by GoldenTests
        ),
        // Its FuzzHarness.swift is a link to fuzz/Harness/Harness.swift (what each fuzz
        // target runs on its bytes): the tests replay the corpus and the regressions
        // through it. The harness reaches the server's internals (`@testable`), so it is
        // compiled into the tests rather than built as a target of its own, which a plain
        // `swift build -c release` (no -enable-testing) could not compile.
        .testTarget(name: "wsserverTests", dependencies: ["ChartWireServer", "ChartExport", "CExport", "ChartSession", "LayoutEngine", "FontStack", "TestSupport"]),
        .testTarget(name: "ChartExportTests", dependencies: ["ChartExport", "ChartSession", "LayoutEngine", "FontStack", "TestSupport"]),
        .testTarget(name: "ChartStoreTests", dependencies: ["ChartStore", "SQLiteStore", "RedisStore", "CSQLite", "ChartSession", "LayoutEngine", "TestSupport"]),
    ]
)

// libFuzzer targets (fuzz/, docs/fuzzing.md). They exist only when CHARTWIRE_FUZZ is
// set, as scripts/fuzz does (with -sanitize=fuzzer, into .build-fuzz): each defines
// LLVMFuzzerTestOneInput and starts libFuzzer, so the ordinary build must not see them. What they
// run is FuzzHarness, which the unit tests use to replay the corpus and every crash found.
if Context.environment["CHARTWIRE_FUZZ"] != nil {
    package.targets.append(.target(name: "FuzzHarness", dependencies: ["ChartWireServer", "CExport", "ChartSession", "LayoutEngine", "FontStack"],
                                   path: "fuzz/Harness"))
    package.targets.append(.target(name: "CFuzzDriver", path: "fuzz/CFuzzDriver"))
    for name in ["json-spec", "client-message", "append-body", "points", "line-protocol", "router", "frame", "image"] {
        package.targets.append(.executableTarget(
            name: "fuzz-\(name)", dependencies: ["FuzzHarness", "CFuzzDriver"], path: "fuzz/targets/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: "fuzz-\(name)", targets: ["fuzz-\(name)"]))
    }
}

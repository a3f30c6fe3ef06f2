// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenAgentsMirror",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "MirrorStore", targets: ["MirrorStore"]),
        .library(name: "Bridge", targets: ["Bridge"]),
        .library(name: "SyncEngine", targets: ["SyncEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.4.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        // Already Hummingbird's: the web viewer ends its live streams on a graceful shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // Layer 1: the system's libsqlite3 (Debian: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // The system's libedit (Debian: libedit-dev), for the REPL's line editing.
        .systemLibrary(
            name: "CEditLine",
            path: "Sources/CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),

        // Avahi's client library (Debian: libavahi-client-dev), for DNS-SD discovery (Bridge) and
        // advertisement (the simulator): see Sources/CAvahi/shim.h for why not its dns_sd compatibility library.
        // Its headers are in /usr/include (its pkg-config flags add only -D_REENTRANT, which SwiftPM refuses).
        .systemLibrary(
            name: "CAvahi",
            path: "Sources/CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),

        // GitHub's CommonMark library with its extensions (Debian: libcmark-gfm-dev,
        // libcmark-gfm-extensions-dev): the exports read the agent's Markdown with it, and render it as HTML.
        .systemLibrary(
            name: "CCmarkGFM",
            path: "Sources/CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),

        // Layer 1½: what every layer above shares and nothing below it needs: durations in plain
        // units, the thread executor, the bounded buffer, one-shot and broadcast signals.
        .target(name: "Primitives"),

        // Layer 2: the SQLite layer and the mirror's tables and queries.
        // The SQL of the mirror lives in schema/ and is compiled in by the EmbedSchema plugin.
        .target(
            name: "MirrorStore",
            dependencies: ["CSQLite", "Primitives"],
            plugins: ["EmbedSchema"]
        ),

        // Layer 3: wire types and the WebSocket JSON-RPC client of the bridge.
        .target(
            name: "Bridge",
            dependencies: [
                "CAvahi",
                "Primitives",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // wss://: the certificate pin (SHA-256) and the pinned trust.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        // Layer 4: the sync engine: catch-up, live updates, reconnects, the outbox.
        .target(
            name: "SyncEngine",
            dependencies: [
                "MirrorStore",
                "Bridge",
                "Primitives",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The detector of secrets in text (token formats, keys, passwords) and their redaction.
        .target(
            name: "Secrets",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),

        // Layer 4: the read model, one typed, redacted view of the mirror for every front end.
        .target(
            name: "ReadModel",
            dependencies: ["MirrorStore", "Secrets", "Bridge"]
        ),

        // Layer 5: the command layer shared by oa-sync and oa-repl.
        .target(
            name: "Commands",
            dependencies: [
                "ReadModel",
                "MirrorStore",
                "Primitives",
                "Secrets",
                "Bridge",
                "SyncEngine",
                "CCmarkGFM",
                .product(name: "Logging", package: "swift-log"),
                // The HTML export: its templates, and the hash of the index's script for its CSP.
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),

        // Layer 5: the mirror as an MCP server (oa-repl --mcp), on the official Swift SDK.
        .target(
            name: "MirrorMCP",
            dependencies: [
                "Commands",
                "ReadModel",
                "MirrorStore",
                "Primitives",
                "Secrets",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 5: the web viewer (oa serve): the read model's pages over HTTP on 127.0.0.1, live.
        .target(
            name: "WebViewer",
            dependencies: [
                "Bridge",
                "Commands",
                "ReadModel",
                "MirrorStore",
                "Primitives",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 6: what the programs share: their common options, declared once with ArgumentParser
        // (which the command layer, also used by the MCP server and JSON lines, does without).
        .target(
            name: "ProgramOptions",
            dependencies: [
                "Bridge",
                "Commands",
                "Primitives",
                "SyncEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Layer 6: the programs, as libraries the one executable runs: oa-sync's options and run…
        .target(
            name: "SyncProgram",
            dependencies: [
                "Bridge",
                "Commands",
                "Primitives",
                "ProgramOptions",
                "SyncEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // …and oa-repl's.
        .target(
            name: "ReplProgram",
            dependencies: [
                "Bridge",
                "CEditLine",
                "Commands",
                "MirrorMCP",
                "Primitives",
                "ProgramOptions",
                "WebViewer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // The one executable, linking the Swift runtime and Foundation once: oa-sync and oa-repl
        // are links to it (it runs the program its link is named after), and `oa sync …`, `oa repl …`.
        // SwiftPM makes no links: tools/build/link-programs, ToolSupport's ProgramLinks do.
        .executableTarget(
            name: "oa",
            dependencies: [
                "SyncProgram",
                "ReplProgram",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Build-time: turns schema/*.sql into Swift source inside MirrorStore.
        .executableTarget(
            name: "schema-embedder",
            path: "tools/build/schema-embedder"
        ),
        .plugin(
            name: "EmbedSchema",
            capability: .buildTool(),
            dependencies: ["schema-embedder"],
            path: "tools/build/plugins/EmbedSchema"
        ),

        // Tools: benchmarks, probes and demos, and what they share.
        .target(
            name: "ToolSupport",
            dependencies: ["Primitives"],
            path: "tools/support"
        ),
        // The options the benchmarks share (--events, --sessions, --directory).
        .target(
            name: "BenchOptions",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "tools/bench/options"
        ),
        .executableTarget(
            name: "oa-store-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/store"
        ),
        .executableTarget(
            name: "oa-store-probe",
            dependencies: ["MirrorStore"],
            path: "tools/testing/store-probe"
        ),
        .executableTarget(
            name: "oa-bridge-sim",
            dependencies: [
                "ToolSupport",
                // Its DNS-SD advertisement (--advertise): server side, so not in Bridge.
                "CAvahi",
                "Bridge",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "tools/simulator"
        ),
        .executableTarget(
            name: "oa-bridge-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "Bridge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/bridge"
        ),
        .executableTarget(
            name: "oa-repl-bench",
            dependencies: [
                "ToolSupport",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/repl"
        ),
        .executableTarget(
            name: "oa-follow-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/follow"
        ),
        .executableTarget(
            name: "oa-sync-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "Bridge",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/sync",
            exclude: ["sqlite-baseline.py", "sqlite-schema-floor.py"]
        ),
        .executableTarget(
            name: "oa-burst-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "Bridge",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/bench/burst"
        ),
        .executableTarget(
            name: "oa-soak-bench",
            dependencies: [
                "ToolSupport",
                "BenchOptions",
                "Bridge",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "tools/bench/soak"
        ),
        .executableTarget(
            name: "oa-viewer-bench",
            dependencies: [
                "ToolSupport",
                "Bridge",
                "MirrorStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "tools/bench/viewer"
        ),

        .target(
            name: "TestSupport",
            dependencies: ["Bridge", "MirrorStore", "Primitives", "ToolSupport"],
            path: "Tests/TestSupport"
        ),
        // The front ends run in process (the shell, JSON lines, the MCP server), apart from
        // TestSupport so that the tests of the lower layers do not wait for the programs to build.
        .target(
            name: "FrontEndSupport",
            dependencies: ["Bridge", "Commands", "MirrorMCP", "Primitives", "ReplProgram", "Secrets", "TestSupport", "ToolSupport",
                           .product(name: "MCP", package: "swift-sdk"), .product(name: "Logging", package: "swift-log")],
            path: "Tests/FrontEndSupport"
        ),
        .testTarget(
            name: "HarnessTests",
            dependencies: ["Primitives", "TestSupport"]
        ),
        .testTarget(
            name: "PrimitivesTests",
            dependencies: ["Primitives", "TestSupport"]
        ),
        .testTarget(
            name: "MirrorStoreTests",
            dependencies: ["MirrorStore", "Primitives", "TestSupport", "ToolSupport"]
        ),
        .testTarget(
            name: "DocsTests",
            dependencies: ["TestSupport", "ToolSupport"]
        ),
        .testTarget(
            name: "BridgeTests",
            dependencies: ["Bridge", "TestSupport", "ToolSupport"]
        ),
        .testTarget(
            name: "ReplTests",
            dependencies: ["Commands", "ReadModel", "ReplProgram", "MirrorMCP", "MirrorStore", "Primitives", "Secrets", "TestSupport", "FrontEndSupport",
                           "ToolSupport", "CCmarkGFM"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "ViewerTests",
            dependencies: ["Bridge", "Commands", "MirrorStore", "Primitives", "ReadModel", "ReplProgram", "Secrets", "TestSupport", "ToolSupport",
                           "WebViewer", .product(name: "Logging", package: "swift-log"), .product(name: "NIOSSL", package: "swift-nio-ssl")]
        ),
        .testTarget(
            name: "SecretsTests",
            dependencies: ["Primitives", "Secrets", "TestSupport", "ToolSupport"]
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: ["Bridge", "Commands", "FrontEndSupport", "MirrorStore", "SyncEngine", "TestSupport", "ToolSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

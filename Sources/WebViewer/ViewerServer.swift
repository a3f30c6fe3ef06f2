import Bridge
import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOSSL
import Primitives
import ServiceLifecycle

/// The web viewer: a read-only view of the mirror in a browser, served on 127.0.0.1 by default.
/// Pages are rendered by the server from the read model (`ViewerMirror`), with the templates of
/// the HTML export; open pages follow the mirror through one follower of its change log
/// (`LiveHub`). `ViewerGuard` stands before every route. A `Service`: in a `ServiceGroup`, a
/// signal shuts it down gracefully (the live streams end first, then the requests under way).
public struct ViewerServer: Service {
    /// What the server serves, where, and to whom.
    public struct Configuration: Sendable {
        public var mirrorPath: String
        /// The address it listens on: loopback (`127.0.0.1`, `::1`, `localhost`) unless TLS and a
        /// token are given.
        public var address: String
        /// 0: a port the system picks (the URL printed names it).
        public var port: Int
        public var redacts: Bool
        /// Names besides the loopback ones that a request's `Host` may give (`--host-name`).
        public var hostNames: [String]
        public var tls: TLSConfiguration?
        /// The token a browser signs in with; required beyond loopback.
        public var token: BridgeToken?

        public init(mirrorPath: String, address: String = "127.0.0.1", port: Int = ViewerServer.defaultPort, redacts: Bool = true,
                    hostNames: [String] = [], tls: TLSConfiguration? = nil, token: BridgeToken? = nil) {
            self.mirrorPath = mirrorPath
            self.address = address
            self.port = port
            self.redacts = redacts
            self.hostNames = hostNames
            self.tls = tls
            self.token = token
        }

        /// Whether `address` is a loopback one, which needs neither TLS nor a token.
        public var isLoopback: Bool { ViewerServer.isLoopback(address) }
    }

    /// The port of `oa serve` unless told otherwise.
    public static let defaultPort = 8787

    public static func isLoopback(_ address: String) -> Bool {
        ["127.0.0.1", "::1", "[::1]", "localhost"].contains(address.lowercased()) || address.hasPrefix("127.")
    }

    public let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until cancelled or shut down gracefully, printing the URL on standard output.
    public func run() async throws {
        try await run { url in _ = DescriptorWriting.writeLine("oa serve: the mirror \(configuration.mirrorPath) at \(url) (Ctrl-C stops)", to: STDOUT_FILENO) }
    }

    /// Serves until cancelled or shut down gracefully; `ready` gets the viewer's URL once it listens.
    public func run(ready: @escaping @Sendable (String) -> Void) async throws {
        let configuration = configuration
        let hub = LiveHub()
        let mirror = ViewerMirror(mirrorPath: configuration.mirrorPath, redacts: configuration.redacts)
        let hosts = BoundHosts()
        let access = configuration.token.map(ViewerAccess.init)
        let router = Router()
        router.add(middleware: ViewerGuard(hosts: hosts, access: access, unredacted: !configuration.redacts))
        ViewerRoutes.add(to: router, mirror: mirror, hub: hub, access: access)
        let tls = configuration.tls != nil
        let app = Application(
            router: router,
            server: try configuration.tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: .init(address: .hostname(configuration.address, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let extra = configuration.hostNames + (configuration.isLoopback ? [] : [configuration.address])
                hosts.bind(.loopback(port: port, tls: tls, extra: extra))
                let host = configuration.isLoopback ? (configuration.address.contains(":") ? "[::1]" : "127.0.0.1")
                    : (configuration.hostNames.first ?? configuration.address)
                ready("\(tls ? "https" : "http")://\(host):\(port)/")
            },
            logger: logger
        )
        // Open event streams end first, so that nothing holds the server's end.
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await app.run() }
                    group.addTask { await hub.follow(mirrorPath: configuration.mirrorPath, logger: logger) }
                    try await group.next()
                    group.cancelAll()
                }
            } onCancel: {
                Task { await hub.finish() }
            }
        } onGracefulShutdown: {
            Task { await hub.finish() }
        }
    }
}

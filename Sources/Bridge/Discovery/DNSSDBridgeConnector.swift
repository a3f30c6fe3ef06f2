import Logging

/// Connects to a bridge found by DNS-SD, resolving it again before every connection attempt, so
/// that a bridge whose address or port changed (DHCP, another network, a restart) is found again.
public struct DNSSDBridgeConnector: BridgeConnector {
    /// The bridge asked for: a named instance, or the only one found.
    public let target: DNSSDBridgeTarget
    /// How long each resolution may browse.
    public let resolveTimeout: Duration
    /// How each connection connects and waits, once resolved.
    public let options: BridgeClientOptions
    public let logger: Logger

    /// A connector to the bridge that `target` names.
    public init(target: DNSSDBridgeTarget, resolveTimeout: Duration, options: BridgeClientOptions, logger: Logger) {
        self.target = target
        self.resolveTimeout = resolveTimeout
        self.options = options
        self.logger = logger
    }

    /// Resolves the bridge (a failure to find it fails this attempt, like a refused connection),
    /// then connects to the URL it advertises and runs `body` on the connection. A `wss://`
    /// bridge's certificate must match `pin`, else the pin it advertises (`tls_sha256`), else any
    /// (trust on first use).
    public func withConnection<T: Sendable>(
        isRetry: Bool,
        pin: CertificatePin?,
        onOpen: @Sendable () async -> Void,
        _ body: @Sendable (any BridgeConnection) async throws -> T
    ) async throws -> T {
        let bridge = try await BridgeDiscovery.resolve(instance: target.instance, timeout: resolveTimeout)
        logger.info("resolved", metadata: ["instance": "\(bridge.instanceName)", "url": "\(bridge.url)",
                                           "tls_sha256": "\(bridge.tlsSHA256 ?? "none")"])
        let advertised = bridge.tlsSHA256.flatMap(CertificatePin.init(parsing:))
        return try await WebSocketBridgeConnector(url: bridge.url, options: options, logger: logger)
            .withConnection(isRetry: isRetry, pin: pin ?? advertised, onOpen: onOpen, body)
    }
}

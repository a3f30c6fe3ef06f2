import Bridge
import Logging
import SyncEngine

/// Starts the sync engine the one way oa-sync and the REPL's `sync` both do: the credentials,
/// then the client's options, a configuration and a connector for each bridge, then the engine.
public struct EngineLauncher: Sendable {
    /// The program's name, which the client announces to the bridge in `initialize`.
    public var clientName: String
    /// `--tls-pin` (nil: `$OA_TLS_PIN`, else the pin remembered for the bridge).
    public var pinOption: String?
    /// `--token-file` (nil: `$OA_TOKEN_FILE`, else `$OA_TOKEN`).
    public var tokenFileOption: String?
    /// How long the first connection attempt waits for the answer to `initialize` (later ones
    /// wait at least 10 s).
    public var handshakeTimeout: Duration = .seconds(3)
    /// How long to wait before reconnecting.
    public var backoff = BackoffPolicy()
    /// Events the first `history.changes` page asks for.
    public var changesPageSize = 2000
    /// A stock bridge's session with live updates is fetched again after this much quiet.
    public var refetchAfterQuiet: Duration = .seconds(2)
    /// How long DNS-SD browses before each connection to a `dnssd` bridge.
    public var discoveryTimeout = BridgeChoice.defaultDiscoveryTimeout
    /// The largest message read whole (nil: `BridgeClientOptions`' default, 128 MiB).
    public var maximumMessageSize: Int?
    /// The hard cap on a stock timeline read in parts (nil: `BridgeClientOptions`' default).
    public var maximumTimelineSize: Int?

    public init(clientName: String, pinOption: String? = nil, tokenFileOption: String? = nil) {
        self.clientName = clientName
        self.pinOption = pinOption
        self.tokenFileOption = tokenFileOption
    }

    /// The engine syncing `bridges` into the mirror at `mirrorPath`, each under `desktopName` if
    /// given, else its entry's name.
    ///
    /// - Throws: `CredentialsError` or `BridgeTokenError` when the pin or the token given cannot be
    ///   used; `MirrorStoreError` or `SQLiteError` when the mirror cannot be opened.
    public func engine(mirrorPath: String, bridges: [BridgeEntry], desktopName: String? = nil, logger: Logger,
                       observer: @escaping @Sendable (_ desktop: String, SyncEvent) -> Void = { _, _ in }) throws -> SyncEngine<ContinuousClock> {
        let options = clientOptions(try BridgeCredentials(pinOption: pinOption, tokenFileOption: tokenFileOption))
        let targets = bridges.map { entry in
            let configuration = SyncConfiguration(
                bridgeURL: entry.bridge,
                desktopName: desktopName ?? entry.desktopName,
                clientOptions: options,
                backoff: backoff,
                changesPageSize: changesPageSize,
                refetchAfterQuiet: refetchAfterQuiet
            )
            let connector = BridgeChoice.connector(for: entry.bridge, options: options, discoveryTimeout: discoveryTimeout, logger: logger)
                ?? WebSocketBridgeConnector(url: entry.bridge, options: options, logger: logger)
            return BridgeTarget(configuration: configuration, connector: connector)
        }
        return try SyncEngine(mirrorPath: mirrorPath, bridges: targets, logger: logger, observer: observer)
    }

    /// How the client connects: as this program, with `credentials`.
    func clientOptions(_ credentials: BridgeCredentials) -> BridgeClientOptions {
        var options = BridgeClientOptions(
            clientInfo: .mirror(program: clientName),
            firstHandshakeTimeout: handshakeTimeout,
            retryHandshakeTimeout: max(handshakeTimeout, .seconds(10))
        )
        options.pin = credentials.pin
        options.token = credentials.token
        if let maximumMessageSize { options.maximumMessageSize = maximumMessageSize }
        if let maximumTimelineSize { options.maximumTimelineSize = maximumTimelineSize }
        return options
    }
}

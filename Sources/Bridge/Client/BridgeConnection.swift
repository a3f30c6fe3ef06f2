import Logging

/// What the sync engine needs of one connection to a bridge: what the bridge said it can do, its
/// notifications, and the requests the engine makes. `BridgeClient` is the WebSocket connection;
/// a test can script one in-process.
public protocol BridgeConnection: Sendable {
    /// The bridge's answer to `initialize`.
    var capabilities: BridgeCapabilities { get async }
    /// The bridge's notifications, in order; ends when the connection does. Bounded: the reader
    /// must keep reading, or the connection stops reading from the bridge.
    var notifications: BoundedBuffer<BridgeNotification> { get }
    /// Why the connection ended (nil while it is open).
    var closeReason: String? { get async }

    func recentSessions() async throws -> [RecentSession]
    func sessionTimeline(sessionID: String, limit: Int?, timeout: Duration?) async throws -> [TimelineItem]
    func threads(topK: Int?) async throws -> [ThreadItem]
    func historyChanges(since: Int64, limit: Int, timeout: Duration?) async throws -> HistoryChangesPage
    func historySessions(after cursor: String?, limit: Int) async throws -> HistorySessionsPage
    func newSession() async throws -> String
    func prompt(sessionID: String, text: String, clientMessageID: String?) async throws -> PromptAccepted
    /// Ends the connection; requests still waiting fail.
    func close() async
}

/// Opens a connection to a bridge for each attempt of the sync engine.
public protocol BridgeConnector: Sendable {
    /// Connects and completes the handshake.
    ///
    /// - Parameters:
    ///   - isRetry: a reconnect attempt (it may wait longer for a bridge waking up).
    ///   - onOpen: called once the transport is open, before the handshake.
    func connect(isRetry: Bool, onOpen: @escaping @Sendable () async -> Void) async throws -> any BridgeConnection
}

extension BridgeClient: BridgeConnection {}

/// Connects over WebSocket (`BridgeClient`).
public struct WebSocketBridgeConnector: BridgeConnector {
    /// `ws://` or `wss://` URL of the bridge.
    public let url: String
    public let options: BridgeClientOptions
    public let logger: Logger

    public init(url: String, options: BridgeClientOptions, logger: Logger) {
        self.url = url
        self.options = options
        self.logger = logger
    }

    public func connect(isRetry: Bool, onOpen: @escaping @Sendable () async -> Void) async throws -> any BridgeConnection {
        try await BridgeClient.connect(to: url, options: options, isRetry: isRetry, logger: logger, onWebSocketOpen: onOpen)
    }
}

import Logging
import Primitives

/// What the sync engine needs of one connection to a bridge: what the bridge said it can do, its
/// notifications, and the requests the engine makes. `BridgeClient` is the WebSocket connection;
/// a test can script one in-process.
public protocol BridgeConnection: Sendable {
    /// The bridge's answer to `initialize`.
    var capabilities: BridgeCapabilities { get async }
    /// The bridge's notifications, in order; ends when the connection does. Bounded: the reader
    /// must keep reading, or the connection stops reading from the bridge.
    var notifications: BoundedBuffer<BridgeNotification> { get }
    /// Why the connection ended (nil while it is open): what its waiting requests failed with.
    var closeError: BridgeError? { get async }
    /// The pin of the certificate a `wss://` bridge presented (nil otherwise).
    var certificatePin: CertificatePin? { get }
    /// True when that certificate was checked against a pin (given, remembered or advertised);
    /// false when it was trusted on first use.
    var certificateWasPinned: Bool { get }

    func recentSessions() async throws -> [RecentSession]
    func sessionTimeline(sessionID: String, limit: Int?, timeout: Duration?) async throws -> [TimelineItem]
    /// A session's whole timeline; an answer over the message limit is read in parts.
    func sessionTimelineInParts(sessionID: String, timeout: Duration?) async throws -> TimelineAnswer
    func threads(topK: Int?) async throws -> [ThreadItem]
    /// A page of the history after `since`: `limit` events at most, and, when `maxBytes` is given
    /// (only to a bridge that offers it), ending once its updates reach that many bytes.
    func historyChanges(since: Int64, limit: Int, maxBytes: Int?, timeout: Duration?) async throws -> HistoryChangesPage
    /// A page as `historyChanges` gives it; a large one is read in parts (which holds the
    /// connection until they are read: the caller reads them, or stops them).
    func historyChangesInParts(since: Int64, limit: Int, maxBytes: Int?, timeout: Duration?) async throws -> HistoryChangesAnswer
    func historySessions(after cursor: String?, limit: Int) async throws -> HistorySessionsPage
    func newSession() async throws -> String
    func prompt(sessionID: String, text: String, clientMessageID: String?) async throws -> PromptAccepted
    /// Ends the connection; requests still waiting fail.
    func close() async
}

extension BridgeConnection {
    /// No certificate: a connection without TLS.
    public var certificatePin: CertificatePin? { nil }
    public var certificateWasPinned: Bool { false }

    /// The timeline whole, as `sessionTimeline` gives it: for connections that read no answer in parts.
    public func sessionTimelineInParts(sessionID: String, timeout: Duration?) async throws -> TimelineAnswer {
        .whole(try await sessionTimeline(sessionID: sessionID, limit: nil, timeout: timeout))
    }

    /// The page whole, as `historyChanges` gives it: for connections that read no answer in parts.
    public func historyChangesInParts(since: Int64, limit: Int, maxBytes: Int?, timeout: Duration?) async throws -> HistoryChangesAnswer {
        .whole(try await historyChanges(since: since, limit: limit, maxBytes: maxBytes, timeout: timeout))
    }
}

/// Opens a connection to a bridge for each attempt of the sync engine, for the length of a scope.
public protocol BridgeConnector: Sendable {
    /// Connects, completes the handshake, runs `body` with the connection, and closes it: the
    /// connection's tasks are children of this call and have ended when it returns, whether
    /// `body` returned or threw.
    ///
    /// - Parameters:
    ///   - isRetry: a reconnect attempt (it may wait longer for a bridge waking up).
    ///   - pin: the pin a `wss://` bridge's certificate must match; nil: the connector's own (an
    ///     advertised one), else any certificate (trust on first use).
    ///   - onOpen: called once the transport is open, before the handshake.
    ///   - body: the work done on the connection; its result is returned.
    func withConnection<T: Sendable>(
        isRetry: Bool,
        pin: CertificatePin?,
        onOpen: @Sendable () async -> Void,
        _ body: @Sendable (any BridgeConnection) async throws -> T
    ) async throws -> T
}

extension BridgeClient: BridgeConnection {}

/// Connects over WebSocket (`BridgeClient`).
public struct WebSocketBridgeConnector: BridgeConnector {
    /// `ws://` or `wss://` URL of the bridge.
    public let url: String
    /// How each connection connects and waits.
    public let options: BridgeClientOptions
    /// The connections' logger.
    public let logger: Logger

    /// A connector to the bridge at `url`.
    public init(url: String, options: BridgeClientOptions, logger: Logger) {
        self.url = url
        self.options = options
        self.logger = logger
    }

    /// Connects over WebSocket (`BridgeClient.withConnection`) and runs `body` on the connection,
    /// which closes when `body` returns or throws.
    public func withConnection<T: Sendable>(
        isRetry: Bool,
        pin: CertificatePin?,
        onOpen: @Sendable () async -> Void,
        _ body: @Sendable (any BridgeConnection) async throws -> T
    ) async throws -> T {
        var options = options
        options.pin = pin
        return try await BridgeClient.withConnection(to: url, options: options, isRetry: isRetry, logger: logger, onWebSocketOpen: onOpen) { client in
            try await body(client)
        }
    }
}

/// How a `BridgeClient` connects and waits.
public struct BridgeClientOptions: Sendable {
    /// Who the client says it is in `initialize`.
    public var clientInfo: ClientInfo
    /// How long the first connection attempt waits for the `initialize` answer.
    public var firstHandshakeTimeout: Duration
    /// How long later attempts wait (a desktop waking up may be slow).
    public var retryHandshakeTimeout: Duration
    /// How long a request waits for its answer (a stock bridge never answers unknown methods).
    public var requestTimeout: Duration
    /// Ping interval; a ping unanswered by the next one closes the connection. nil: no pings.
    public var keepaliveInterval: Duration?
    /// How long closing waits for the bridge to answer the close handshake before dropping the
    /// connection.
    public var closeTimeout: Duration
    /// The largest message accepted whole, in bytes (a stock timeline comes in one message, often
    /// one frame); a larger one ends the connection (`BridgeError.messageTooLarge`), except a
    /// stock timeline's answer, read in parts up to `maximumTimelineSize`, each of its items
    /// still within this limit.
    public var maximumMessageSize: Int
    /// The hard cap on a stock timeline's answer read in parts, in bytes (2 GiB): a larger one
    /// ends the connection (`BridgeError.messageTooLarge`), and its session fails alone.
    public var maximumTimelineSize: Int
    /// What happens to the bridge's notifications.
    public var notifications: NotificationHandling
    /// The pin a `wss://` bridge's certificate must match; nil: any certificate, whose pin the
    /// client then reports (`BridgeClient.certificatePin`) for the caller to remember.
    public var pin: CertificatePin?
    /// The bearer token sent on the WebSocket upgrade, if the bridge wants one.
    public var token: BridgeToken?

    /// What a client does with the notifications the bridge sends.
    public enum NotificationHandling: Sendable, Equatable {
        /// Kept for the reader of `BridgeClient.notifications`, up to `limit` notifications and
        /// `byteLimit` bytes; while that many wait, the client stops reading the socket (answers
        /// queue behind them too), so the reader must keep reading. Nothing is dropped.
        case buffered(limit: Int, byteLimit: Int)
        /// Not kept: for a connection that only makes requests (a control or probe connection),
        /// which would otherwise stop once `buffered`'s bound is reached.
        case discarded

        /// 1,024 notifications or 16 MiB.
        public static let standard = NotificationHandling.buffered(limit: 1024, byteLimit: 16 << 20)
    }

    public init(
        clientInfo: ClientInfo = .mirror(program: "openagents-mirror"),
        firstHandshakeTimeout: Duration = .seconds(3),
        retryHandshakeTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(15),
        keepaliveInterval: Duration? = .seconds(15),
        closeTimeout: Duration = .seconds(15),
        maximumMessageSize: Int = 128 << 20,
        maximumTimelineSize: Int = 2 << 30,
        notifications: NotificationHandling = .standard
    ) {
        self.clientInfo = clientInfo
        self.firstHandshakeTimeout = firstHandshakeTimeout
        self.retryHandshakeTimeout = retryHandshakeTimeout
        self.requestTimeout = requestTimeout
        self.keepaliveInterval = keepaliveInterval
        self.closeTimeout = closeTimeout
        self.maximumMessageSize = maximumMessageSize
        self.maximumTimelineSize = maximumTimelineSize
        self.notifications = notifications
    }

    /// These options with notifications discarded (for a connection that only makes requests).
    public var discardingNotifications: BridgeClientOptions {
        var options = self
        options.notifications = .discarded
        return options
    }
}

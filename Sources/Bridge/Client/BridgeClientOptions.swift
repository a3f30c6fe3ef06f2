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
    /// The largest frame (and message) accepted, in bytes: a stock timeline comes in one frame.
    public var maximumMessageSize: Int

    public init(
        clientInfo: ClientInfo = ClientInfo(name: "openagents-mirror", title: "OpenAgents Mirror", version: "0.1.0"),
        firstHandshakeTimeout: Duration = .seconds(3),
        retryHandshakeTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(15),
        keepaliveInterval: Duration? = .seconds(15),
        maximumMessageSize: Int = 128 << 20
    ) {
        self.clientInfo = clientInfo
        self.firstHandshakeTimeout = firstHandshakeTimeout
        self.retryHandshakeTimeout = retryHandshakeTimeout
        self.requestTimeout = requestTimeout
        self.keepaliveInterval = keepaliveInterval
        self.maximumMessageSize = maximumMessageSize
    }
}

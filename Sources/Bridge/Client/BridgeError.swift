/// Why talking to the bridge failed.
public enum BridgeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bridge URL is not a `ws://` or `wss://` URL.
    case invalidURL(String)
    /// No WebSocket connection could be made.
    case connectionFailed(url: String, reason: String)
    /// The bridge did not answer `initialize` in time (it may not be a bridge, or is busy).
    case handshakeTimedOut(url: String, after: Duration)
    /// The bridge speaks a protocol version this client does not.
    case unsupportedProtocol(version: String)
    /// A request got no answer in time. It is not retried: it may still have been carried out.
    case timedOut(method: String, after: Duration)
    /// The connection closed; requests still waiting fail with this.
    case connectionClosed(reason: String)
    /// The bridge sent a message over this client's limit (`BridgeClientOptions.maximumMessageSize`),
    /// which ends the connection: `size` is how many bytes it held, at least (nil when unknown).
    case messageTooLarge(size: Int?, limit: Int)
    /// A history page of one event, the event `seq`, is still over the message limit: the event
    /// alone is too large for this client (`size`: the message's bytes, at least, when known).
    case eventTooLarge(seq: Int64, size: Int?, limit: Int)
    /// The bridge answered with an error.
    case server(method: String, error: JSONRPCError)
    /// The bridge's answer does not have the expected shape.
    case unexpectedResult(method: String, reason: String)
    /// A `wss://` bridge presented a certificate that does not match the pin in force; nothing
    /// was sent to it.
    case certificateMismatch(url: String, expected: CertificatePin, presented: CertificatePin)
    /// The bridge answered the WebSocket upgrade with `status`, 401 or 403, and no token was
    /// sent: it wants a token (a 403 may also refuse this client whatever the token).
    case tokenRequired(url: String, status: Int)
    /// The bridge answered the WebSocket upgrade with `status`, 401 or 403, to the token sent.
    case tokenRefused(url: String, status: Int)
    /// The bridge answered the WebSocket upgrade with another HTTP status (nil: none could be read).
    case upgradeRefused(url: String, status: Int?)

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "\(url) is not a bridge URL: expected ws://HOST:PORT or wss://HOST:PORT"
        case .connectionFailed(let url, let reason):
            "cannot connect to \(url): \(reason)"
        case .handshakeTimedOut(let url, let after):
            "\(url) did not answer initialize within \(after.formattedSeconds): is it an OpenAgents bridge?"
        case .unsupportedProtocol(let version):
            "the bridge speaks protocol \(version); this client speaks 0.2.x"
        case .timedOut(let method, let after):
            "\(method) got no answer within \(after.formattedSeconds)"
        case .connectionClosed(let reason):
            "the connection to the bridge closed: \(reason)"
        case .messageTooLarge(let size, let limit):
            "the bridge sent a message " + (size.map { "of at least \($0) bytes, " } ?? "")
                + "over this client's message limit of \(limit) bytes"
        case .eventTooLarge(let seq, let size, let limit):
            "history event \(seq) alone is over this client's message limit of \(limit) bytes"
                + (size.map { " (its page was at least \($0) bytes)" } ?? "")
        case .server(let method, let error):
            "the bridge refused \(method): \(error)"
        case .unexpectedResult(let method, let reason):
            "unexpected answer to \(method): \(reason)"
        case .certificateMismatch(let url, let expected, let presented):
            "\(url) presented a certificate that does not match the pin: expected SHA-256 \(expected), got \(presented); nothing was sent to it"
        case .tokenRequired(let url, let status):
            "\(url) needs a token: it answered the WebSocket upgrade, sent without one, with HTTP \(status)"
                + (status == 403 ? " (or it refuses this client whatever the token)" : "")
        case .tokenRefused(let url, let status):
            "\(url) refused the token: it answered the WebSocket upgrade with HTTP \(status)"
        case .upgradeRefused(let url, let status):
            "\(url) refused the WebSocket upgrade" + (status.map { " (HTTP \($0))" } ?? "")
        }
    }
}

extension BridgeError {
    /// What a declined WebSocket upgrade means, from the HTTP status of the bridge's answer (nil:
    /// none could be read) and whether a token was sent: 401 and 403 are about the token, which
    /// was refused when one was sent and is missing when none was.
    static func declinedUpgrade(url: String, status: Int?, tokenSent: Bool) -> BridgeError {
        switch status {
        case let status? where status == 401 || status == 403:
            tokenSent ? .tokenRefused(url: url, status: status) : .tokenRequired(url: url, status: status)
        default: .upgradeRefused(url: url, status: status)
        }
    }
}

extension Duration {
    /// `3 s`, `0.25 s`.
    var formattedSeconds: String {
        // In seconds, by the standard library's Duration division.
        let value = self / .seconds(1)
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

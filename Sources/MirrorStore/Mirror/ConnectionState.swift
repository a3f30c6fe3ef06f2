/// Where the engine is with the bridge, as its observer shows it and the mirror's status records it.
///
/// `offline → connecting → handshaking → syncing → live`, and back to `offline` (then
/// `connecting` after the backoff) whenever the connection is lost.
public enum ConnectionState: String, Sendable, CaseIterable, Encodable {
    /// Not connected; waiting to try again.
    case offline
    /// Opening the WebSocket.
    case connecting
    /// Waiting for the answer to `initialize`.
    case handshaking
    /// Catching up: pages of history, timelines, queued prompts.
    case syncing
    /// Caught up; applying live updates as they come.
    case live
}

/// Where a queued prompt is on its way to the bridge.
///
/// `queued → sending → sent | failed | unconfirmed`; `failed` and `unconfirmed` wait for the user,
/// who may queue them again or drop them.
public enum OutboxState: String, Sendable, Codable, CaseIterable {
    /// Waiting to be sent.
    case queued
    /// Claimed by a sender; its answer has not arrived.
    case sending
    /// The bridge accepted it.
    case sent
    /// The bridge refused it; `lastError` says why.
    case failed
    /// Sent, but the answer was lost and the bridge cannot de-duplicate a resend.
    case unconfirmed
}

/// A prompt in the outbox.
public struct OutboxItem: Sendable, Equatable {
    public var id: Int64
    public var sessionID: String
    public var text: String
    /// Identifies the prompt to a bridge that de-duplicates (`_meta.client_message_id`).
    public var clientMessageID: String
    public var state: OutboxState
    /// How many times it was claimed for sending.
    public var attempts: Int
    public var lastError: String?
    /// The prompt's echo in the local timeline, if any.
    public var localEventID: Int64?
    public var createdAt: Int64
    public var updatedAt: Int64
    public var sentAt: Int64?
}

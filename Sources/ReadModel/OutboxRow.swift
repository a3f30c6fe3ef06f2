import MirrorStore
import Secrets

/// A prompt queued here and what became of it, encoded member for member as `docs/cli.md`
/// documents `outbox.list`. Made by `MirrorViews`: its text and error redacted by the views'
/// policy (a prompt may hold a key its writer pasted).
public struct OutboxRow: Sendable, Encodable {
    public var id: Int64
    public var sessionID: String
    public var text: String
    public var state: String
    public var attempts: Int
    public var lastError: String?
    public var clientMessageID: String
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    public var sentAt: Timestamp?

    enum CodingKeys: String, CodingKey {
        case id, sessionID = "session_id", text, state, attempts, lastError = "last_error", clientMessageID = "client_message_id"
        case createdAt = "created_at", updatedAt = "updated_at", sentAt = "sent_at"
    }

    init(_ item: OutboxItem, redactor: Redactor?) {
        id = item.id
        sessionID = item.sessionID
        text = redactor?.redact(item.text) ?? item.text
        state = item.state.rawValue
        attempts = item.attempts
        lastError = item.lastError.map { redactor?.redact($0) ?? $0 }
        clientMessageID = item.clientMessageID
        createdAt = Timestamp(milliseconds: item.createdAt)
        updatedAt = Timestamp(milliseconds: item.updatedAt)
        sentAt = Timestamp(milliseconds: item.sentAt)
    }
}

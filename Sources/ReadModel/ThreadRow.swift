import MirrorStore

/// A vendor CLI thread as `threads` lists it (`threads.list` in `docs/cli.md`), its title
/// redacted by the views' policy.
public struct ThreadRow: Sendable, Encodable {
    public var threadID: String
    public var title: String?
    public var source: String?
    public var createdAt: Timestamp?
    public var updatedAt: Timestamp?
    public var lastMessageAt: Timestamp?
    public var messageCount: Int64?

    enum CodingKeys: String, CodingKey {
        case threadID = "id", title, source, createdAt = "created_at", updatedAt = "updated_at", lastMessageAt = "last_message_at"
        case messageCount = "message_count"
    }

    init(_ thread: ThreadRecord, title: String?) {
        threadID = thread.threadID
        self.title = title
        source = thread.source
        createdAt = Timestamp(milliseconds: thread.createdAt)
        updatedAt = Timestamp(milliseconds: thread.updatedAt)
        lastMessageAt = Timestamp(milliseconds: thread.lastMessageTS)
        messageCount = thread.messageCount
    }
}

/// One item of the bridge's `threads/list`: a vendor CLI transcript (not a session).
public struct ThreadRecord: Sendable, Equatable {
    public var threadID: String
    public var title: String?
    /// `codex` or `claude_code`.
    public var source: String?
    public var createdAt: Int64?
    public var updatedAt: Int64?
    public var lastMessageTS: Int64?
    public var messageCount: Int64?
    /// The item exactly as received.
    public var itemJSON: [UInt8]

    public init(
        threadID: String,
        title: String? = nil,
        source: String? = nil,
        createdAt: Int64? = nil,
        updatedAt: Int64? = nil,
        lastMessageTS: Int64? = nil,
        messageCount: Int64? = nil,
        itemJSON: [UInt8]
    ) {
        self.threadID = threadID
        self.title = title
        self.source = source
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastMessageTS = lastMessageTS
        self.messageCount = messageCount
        self.itemJSON = itemJSON
    }
}

extension MirrorStore {
    /// Records `threads/list` items: new ones are added, known ones take the new values.
    public func upsertThreads(_ threads: [ThreadRecord]) throws {
        try write {
            let now = clock.now()
            for thread in threads {
                try database.run(
                    """
                    INSERT INTO threads (thread_id, title, source, created_at, updated_at, last_message_ts,
                                         message_count, item_json, first_seen_at, last_seen_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
                    ON CONFLICT (thread_id) DO UPDATE SET
                        title = excluded.title, source = excluded.source, created_at = excluded.created_at,
                        updated_at = excluded.updated_at, last_message_ts = excluded.last_message_ts,
                        message_count = excluded.message_count, item_json = excluded.item_json,
                        last_seen_at = excluded.last_seen_at
                    """,
                    [thread.threadID, thread.title, thread.source, thread.createdAt, thread.updatedAt,
                     thread.lastMessageTS, thread.messageCount, DatabaseValue.textBytes(thread.itemJSON), now]
                )
            }
        }
    }

    /// Mirrored threads, most recently updated first.
    public func threads(limit: Int? = nil) throws -> [ThreadRecord] {
        try database.query(
            """
            SELECT thread_id, title, source, created_at, updated_at, last_message_ts, message_count, item_json
            FROM threads ORDER BY updated_at DESC, thread_id LIMIT ?
            """,
            [limit ?? -1]
        ) { row in
            ThreadRecord(
                threadID: row.string(0),
                title: row.optionalString(1),
                source: row.optionalString(2),
                createdAt: row.optionalInt64(3),
                updatedAt: row.optionalInt64(4),
                lastMessageTS: row.optionalInt64(5),
                messageCount: row.optionalInt64(6),
                itemJSON: row.bytes(7)
            )
        }
    }
}

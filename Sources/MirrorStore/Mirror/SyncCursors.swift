/// What a row of `sync_cursors` is about. (A history's cursor is a column of its row in
/// `histories`: a `seq` means something only within its history.)
public enum SyncScope: Hashable, Sendable {
    /// One session's timeline watermark (stock bridges).
    case session(String)

    /// The scope's key in `sync_cursors`.
    public var key: String {
        switch self {
        case .session(let id): "session:\(id)"
        }
    }
}

/// The `(last_ts, message_count)` a stock bridge reported for a session when its timeline was
/// last fetched: the timeline needs fetching again when the bridge reports something else.
public struct SessionWatermark: Hashable, Sendable {
    public var lastTS: Int64
    public var messageCount: Int64

    public init(lastTS: Int64, messageCount: Int64) {
        self.lastTS = lastTS
        self.messageCount = messageCount
    }
}

extension MirrorStore {
    /// The watermark the session's timeline was last fetched at, if it ever was.
    public func watermark(for sessionID: String) throws -> SessionWatermark? {
        try database.queryFirst(
            "SELECT last_ts, message_count FROM sync_cursors WHERE scope = ? AND last_ts IS NOT NULL",
            [SyncScope.session(sessionID).key]
        ) { SessionWatermark(lastTS: $0.int64(0), messageCount: $0.int64(1)) }
    }

    /// Records a session's watermark, in the caller's transaction.
    func setWatermark(_ watermark: SessionWatermark, for sessionID: String, now: Int64) throws {
        try database.run(
            """
            INSERT INTO sync_cursors (scope, last_ts, message_count, updated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (scope) DO UPDATE SET last_ts = excluded.last_ts, message_count = excluded.message_count,
                updated_at = excluded.updated_at
            """,
            [SyncScope.session(sessionID).key, watermark.lastTS, watermark.messageCount, now]
        )
    }
}

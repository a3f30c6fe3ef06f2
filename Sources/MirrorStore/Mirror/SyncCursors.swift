/// What a row of `sync_cursors` is about.
public enum SyncScope: Hashable, Sendable {
    /// The global history cursor of `tinyvex/history.changes`.
    case changes
    /// One session's timeline watermark (stock bridges).
    case session(String)

    /// The scope's key in `sync_cursors`.
    public var key: String {
        switch self {
        case .changes: "changes"
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
    /// The last `seq` of the history that is fully mirrored (0: nothing yet).
    public func historyCursor() throws -> Int64 {
        try database.scalarInt64("SELECT seq FROM sync_cursors WHERE scope = ?", [SyncScope.changes.key]) ?? 0
    }

    /// The watermark the session's timeline was last fetched at, if it ever was.
    public func watermark(for sessionID: String) throws -> SessionWatermark? {
        try database.queryFirst(
            "SELECT last_ts, message_count FROM sync_cursors WHERE scope = ? AND last_ts IS NOT NULL",
            [SyncScope.session(sessionID).key]
        ) { SessionWatermark(lastTS: $0.int64(0), messageCount: $0.int64(1)) }
    }

    /// Moves the history cursor forward to `seq` (never back), in the caller's transaction.
    func advanceHistoryCursor(to seq: Int64, now: Int64) throws {
        try database.run(
            """
            INSERT INTO sync_cursors (scope, seq, updated_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (scope) DO UPDATE SET seq = max(coalesce(seq, 0), excluded.seq), updated_at = excluded.updated_at
            """,
            [SyncScope.changes.key, seq, now]
        )
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

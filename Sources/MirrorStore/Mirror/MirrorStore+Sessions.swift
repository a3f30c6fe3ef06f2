/// What the bridge says about a session (from `recentSessions` or `tinyvex/history.sessions`).
/// Fields left nil keep what the mirror already has.
public struct SessionRecord: Sendable, Equatable {
    public var sessionID: String
    public var title: String?
    public var mode: String?
    public var lastTS: Int64?
    /// The bridge's `message_count`.
    public var serverEventCount: Int64?
    /// The bridge's `last_seq` (history-cursor bridges).
    public var serverLastSeq: Int64?

    public init(
        sessionID: String,
        title: String? = nil,
        mode: String? = nil,
        lastTS: Int64? = nil,
        serverEventCount: Int64? = nil,
        serverLastSeq: Int64? = nil
    ) {
        self.sessionID = sessionID
        self.title = title
        self.mode = mode
        self.lastTS = lastTS
        self.serverEventCount = serverEventCount
        self.serverLastSeq = serverLastSeq
    }
}

/// A mirrored session.
public struct SessionSummary: Sendable, Equatable {
    public var sessionID: String
    public var origin: EventOrigin
    public var title: String?
    public var mode: String?
    public var lastTS: Int64?
    public var serverEventCount: Int64?
    public var serverLastSeq: Int64?
    /// Events this mirror holds for the session.
    public var localEventCount: Int64
    public var firstSeenAt: Int64
    public var lastSeenAt: Int64
}

extension MirrorStore {
    /// Records what the bridge says about sessions, creating the ones not yet mirrored.
    public func upsertSessions(_ records: [SessionRecord]) throws {
        try write {
            let now = clock.now()
            for record in records {
                try database.run(
                    """
                    INSERT INTO sessions (session_id, title, mode, last_ts, server_event_count, server_last_seq,
                                          first_seen_at, last_seen_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                    ON CONFLICT (session_id) DO UPDATE SET
                        title = coalesce(excluded.title, title),
                        mode = coalesce(excluded.mode, mode),
                        last_ts = coalesce(excluded.last_ts, last_ts),
                        server_event_count = coalesce(excluded.server_event_count, server_event_count),
                        server_last_seq = coalesce(excluded.server_last_seq, server_last_seq),
                        last_seen_at = excluded.last_seen_at
                    """,
                    [record.sessionID, record.title, record.mode, record.lastTS, record.serverEventCount,
                     record.serverLastSeq, now]
                )
            }
        }
    }

    /// Creates a session that exists only here (made offline) with a placeholder id.
    public func createLocalSession(id: String, title: String? = nil) throws {
        try write {
            let now = clock.now()
            try database.run(
                """
                INSERT INTO sessions (session_id, origin, title, last_ts, first_seen_at, last_seen_at)
                VALUES (?1, 'local', ?2, ?3, ?3, ?3)
                """,
                [id, title, now]
            )
        }
    }

    /// Gives a session made offline the id the bridge assigned, everywhere the mirror refers to it
    /// (events, outbox, watermark). If the bridge's id is already mirrored (its updates arrived
    /// first), the local session's events are appended to it and the local row removed.
    public func remapSession(localID: String, to serverID: String) throws {
        try write {
            guard try session(id: localID) != nil else { throw MirrorStoreError.unknownSession(id: localID) }
            if try session(id: serverID) == nil {
                try database.run("UPDATE sessions SET session_id = ?, origin = 'server' WHERE session_id = ?", [serverID, localID])
                try database.run(
                    "UPDATE sync_cursors SET scope = ? WHERE scope = ?",
                    [SyncScope.session(serverID).key, SyncScope.session(localID).key]
                )
            } else {
                let localNo = try sessionNumber(of: localID)
                let serverNo = try sessionNumber(of: serverID)
                let offset = try nextOrdinal(inSession: serverNo)
                let first = try database.scalarInt64("SELECT min(ordinal) FROM events WHERE session_no = ?", [localNo]) ?? 0
                try database.run(
                    "UPDATE events SET session_no = ?1, ordinal = ordinal - ?3 + ?4 WHERE session_no = ?2",
                    [serverNo, localNo, first, offset]
                )
                try database.run("UPDATE outbox SET session_id = ? WHERE session_id = ?", [serverID, localID])
                // Followers of the local session learn where it went.
                try database.run(
                    """
                    INSERT INTO change_log (kind, session_no, merged_session_id, into_session_no, after_event_id, changed_at)
                    VALUES ('session_merged', ?1, ?2, ?3, coalesce((SELECT value FROM counters WHERE name = 'event_id'), 0),
                            CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
                    """,
                    [localNo, localID, serverNo]
                )
                try database.run("DELETE FROM sessions WHERE session_no = ?", [localNo])
                try database.run(
                    "UPDATE sessions SET local_event_count = (SELECT count(*) FROM events WHERE session_no = ?1) WHERE session_no = ?1",
                    [serverNo]
                )
                // The bridge's session keeps its own watermark.
                try database.run("DELETE FROM sync_cursors WHERE scope = ?", [SyncScope.session(localID).key])
            }
        }
    }

    /// Mirrored sessions, most recent activity first.
    public func sessions(limit: Int? = nil, offset: Int = 0) throws -> [SessionSummary] {
        try database.query(
            "SELECT \(Self.sessionColumns) FROM sessions ORDER BY last_ts DESC, session_id LIMIT ? OFFSET ?",
            [limit ?? -1, offset],
            Self.sessionSummary
        )
    }

    /// The session with exactly this id.
    public func session(id: String) throws -> SessionSummary? {
        try database.queryFirst("SELECT \(Self.sessionColumns) FROM sessions WHERE session_id = ?", [id], Self.sessionSummary)
    }

    /// Ids of sessions that start with `prefix` (ASCII letters match either case), at most `limit`.
    public func sessionIDs(withPrefix prefix: String, limit: Int = 10) throws -> [String] {
        let escaped = prefix.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
        return try database.query(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' ORDER BY session_id LIMIT ?",
            [escaped + "%", limit]
        ) { $0.string(0) }
    }

    /// How many sessions the mirror holds.
    public func sessionCount() throws -> Int {
        Int(try database.scalarInt64("SELECT count(*) FROM sessions") ?? 0)
    }

    /// Whether the session has live events not yet confirmed by a refetch.
    public func hasProvisionalEvents(sessionID: String) throws -> Bool {
        // Named, because the planner would otherwise walk the whole timeline by its primary key.
        try database.scalarInt64(
            """
            SELECT EXISTS (SELECT 1 FROM events INDEXED BY events_provisional
                           WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = ?) AND provisional = 1)
            """,
            [sessionID]
        ) == 1
    }

    /// How many of the session's prompts are queued or being sent.
    public func pendingPromptCount(sessionID: String) throws -> Int {
        Int(try database.scalarInt64(
            "SELECT count(*) FROM outbox WHERE session_id = ? AND state IN ('queued', 'sending')", [sessionID]) ?? 0)
    }

    /// Creates the session row if missing and notes that it was seen now; returns its key.
    func touchSession(_ sessionID: String, now: Int64) throws -> Int64 {
        guard let number = try database.queryFirst(
            """
            INSERT INTO sessions (session_id, first_seen_at, last_seen_at) VALUES (?1, ?2, ?2)
            ON CONFLICT (session_id) DO UPDATE SET last_seen_at = excluded.last_seen_at
            RETURNING session_no
            """,
            [sessionID, now],
            { $0.int64(0) }
        ) else {
            throw MirrorStoreError.unknownSession(id: sessionID)
        }
        return number
    }

    /// The key of the mirrored session with this id.
    func sessionNumber(of sessionID: String) throws -> Int64 {
        guard let number = try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID]) else {
            throw MirrorStoreError.unknownSession(id: sessionID)
        }
        return number
    }

    static let sessionColumns = """
        session_id, origin, title, mode, last_ts, server_event_count, server_last_seq, local_event_count,
        first_seen_at, last_seen_at
        """

    static func sessionSummary(_ row: Row) -> SessionSummary {
        SessionSummary(
            sessionID: row.string(0),
            origin: EventOrigin(rawValue: row.string(1)) ?? .server,
            title: row.optionalString(2),
            mode: row.optionalString(3),
            lastTS: row.optionalInt64(4),
            serverEventCount: row.optionalInt64(5),
            serverLastSeq: row.optionalInt64(6),
            localEventCount: row.int64(7),
            firstSeenAt: row.int64(8),
            lastSeenAt: row.int64(9)
        )
    }
}

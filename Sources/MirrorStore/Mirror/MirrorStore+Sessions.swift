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
    /// The history the session came from (nil: made offline, not yet on a desktop).
    public var history: HistoryKey?
    /// The short name of the desktop it came from.
    public var desktop: String?
    /// When the mirror noticed that the desktop no longer has the session (it stays here).
    public var goneAt: Int64?
    /// How many of its events the desktop no longer has (they stay here, marked).
    public var goneEventCount: Int64
    /// Why its timeline could not be mirrored, when the last try failed (nil otherwise).
    public var syncError: String? = nil
    /// When that try failed.
    public var syncErrorAt: Int64? = nil
    /// When it is tried again, at the earliest.
    public var retryAfter: Int64? = nil
}

extension MirrorStore {
    /// Records what the bridge of `history` says about sessions, creating the ones not yet
    /// mirrored (in that history). A session listed again is no longer gone from the desktop.
    public func upsertSessions(_ records: [SessionRecord], history: HistoryKey?) throws {
        try write {
            let now = clock.now()
            for record in records {
                try database.run(
                    """
                    INSERT INTO sessions (session_id, title, mode, last_ts, server_event_count, server_last_seq,
                                          first_seen_at, last_seen_at, history_no)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)
                    ON CONFLICT (session_id) DO UPDATE SET
                        title = coalesce(excluded.title, title),
                        mode = coalesce(excluded.mode, mode),
                        last_ts = coalesce(excluded.last_ts, last_ts),
                        server_event_count = coalesce(excluded.server_event_count, server_event_count),
                        server_last_seq = coalesce(excluded.server_last_seq, server_last_seq),
                        last_seen_at = excluded.last_seen_at,
                        history_no = coalesce(history_no, excluded.history_no),
                        gone_at = NULL
                    """,
                    [record.sessionID, record.title, record.mode, record.lastTS, record.serverEventCount,
                     record.serverLastSeq, now, history?.rawValue]
                )
            }
        }
    }

    /// Marks the sessions of `history` that its bridge no longer lists as gone from the desktop
    /// (they stay), and unmarks listed ones. `listed` are the ids the bridge listed, asked for at
    /// `listedSince` (a session touched since then is on the desktop, listed or not). A bridge that
    /// lists only its most recent sessions says nothing of older ones: with `listsOnlyNewerThan`,
    /// only a session whose last event time the bridge reported as later than that is marked.
    /// Returns the sessions newly marked.
    @discardableResult
    public func markUnlistedSessionsGone(history: HistoryKey, listed: [String], listedSince: Int64,
                                         listsOnlyNewerThan newest: Int64? = nil) throws -> Int {
        try write {
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS listed_sessions (session_id TEXT PRIMARY KEY) WITHOUT ROWID")
            defer { try? database.execute("DELETE FROM listed_sessions") }
            for sessionID in listed {
                try database.run("INSERT OR IGNORE INTO listed_sessions (session_id) VALUES (?)", [sessionID])
            }
            try database.run(
                """
                UPDATE sessions SET gone_at = ?2
                WHERE history_no = ?1 AND gone_at IS NULL AND origin = 'server' AND last_seen_at < ?3
                  AND session_id NOT IN (SELECT session_id FROM listed_sessions)
                  AND (?4 IS NULL OR coalesce((SELECT c.last_ts FROM sync_cursors c WHERE c.scope = 'session:' || session_id),
                                              last_ts) > ?4)
                """,
                [history.rawValue, clock.now(), listedSince, newest]
            )
            return database.changes
        }
    }

    /// Marks the events a history-cursor bridge pruned, from its list of sessions (as
    /// `upsertSessions` recorded it): of a listed session, the mirror holding more events up to
    /// its `last_seq` than the bridge counts means the desktop dropped its oldest ones (a desktop
    /// prunes from the start), and as many of the oldest events are marked gone. Nothing is
    /// deleted. Returns the events newly marked.
    @discardableResult
    public func markPrunedEvents(history: HistoryKey, listed: [SessionRecord]) throws -> Int {
        try write {
            let now = clock.now()
            var marked = 0
            for record in listed {
                // Only a session holding more events than the bridge counts can have lost any.
                guard let count = record.serverEventCount, let lastSeq = record.serverLastSeq,
                      let sessionNo = try database.scalarInt64(
                          """
                          SELECT session_no FROM sessions
                          WHERE session_id = ? AND history_no = ? AND local_event_count - gone_event_count > ?
                          """,
                          [record.sessionID, history.rawValue, count])
                else { continue }
                let present = try database.scalarInt64(
                    """
                    SELECT count(*) FROM events
                    WHERE session_no = ? AND origin = 'server' AND provisional = 0 AND gone_at IS NULL AND seq <= ?
                    """,
                    [sessionNo, lastSeq]
                ) ?? 0
                guard present > count else { continue }
                try database.run(
                    """
                    UPDATE events SET gone_at = ?3 WHERE event_id IN (
                        SELECT event_id FROM events
                        WHERE session_no = ?1 AND origin = 'server' AND provisional = 0 AND gone_at IS NULL
                        ORDER BY ordinal LIMIT ?2)
                    """,
                    [sessionNo, present - count, now]
                )
                marked += database.changes
                try database.run(
                    """
                    UPDATE sessions SET gone_event_count = (SELECT count(*) FROM events INDEXED BY events_gone WHERE session_no = ?1 AND gone_at IS NOT NULL)
                    WHERE session_no = ?1
                    """,
                    [sessionNo]
                )
            }
            return marked
        }
    }

    /// The last title the agent gave the session (ACP's `session_info_update`), among the events
    /// indexed for search; nil when it gave none.
    public func agentTitle(sessionID: String) throws -> String? {
        try database.queryFirst(
            """
            SELECT e.text FROM sessions s JOIN events e INDEXED BY events_marked ON e.session_no = s.session_no AND e.kind = 'session_info_update'
            JOIN single_entries n ON n.event_id = e.event_id
            WHERE s.session_id = ?1 ORDER BY e.ordinal DESC LIMIT 1
            """,
            [sessionID]
        ) { $0.string(0) }
    }

    /// Creates a session that exists only here (made offline) with a placeholder id, for the
    /// desktop of `history` (nil: the only one there is, whichever it turns out to be).
    public func createLocalSession(id: String, title: String? = nil, history: HistoryKey? = nil) throws {
        try write {
            let now = clock.now()
            try database.run(
                """
                INSERT INTO sessions (session_id, origin, title, last_ts, first_seen_at, last_seen_at, history_no)
                VALUES (?1, 'local', ?2, ?3, ?3, ?3, ?4)
                """,
                [id, title, now, history?.rawValue]
            )
        }
    }

    /// Gives a session made offline the id the bridge of `history` assigned, everywhere the mirror
    /// refers to it (events, outbox, watermark). If the bridge's id is already mirrored (its
    /// updates arrived first), the local session's events are appended to it and the local row
    /// removed.
    public func remapSession(localID: String, to serverID: String, history: HistoryKey? = nil) throws {
        try write {
            guard try session(id: localID) != nil else { throw MirrorStoreError.unknownSession(id: localID) }
            if try session(id: serverID) == nil {
                try database.run(
                    "UPDATE sessions SET session_id = ?1, origin = 'server', history_no = coalesce(?3, history_no) WHERE session_id = ?2",
                    [serverID, localID, history?.rawValue]
                )
                try database.run(
                    "UPDATE sync_cursors SET scope = ? WHERE scope = ?",
                    [SyncScope.session(serverID).key, SyncScope.session(localID).key]
                )
            } else {
                let localNo = try sessionNumber(of: localID)
                let serverNo = try sessionNumber(of: serverID)
                let offset = try nextOrdinal(inSession: serverNo)
                let first = try database.scalarInt64("SELECT min(ordinal) FROM events WHERE session_no = ?", [localNo]) ?? 0
                try withdrawEntries(ofSession: localNo, derivedThrough: try searchIndexedUpTo())
                // The local events go after the server session's last: its entries from there on change.
                try changingIndexedEvents(ofSession: serverNo, from: offset) {
                    try database.run(
                        "UPDATE events SET session_no = ?1, ordinal = ordinal - ?3 + ?4 WHERE session_no = ?2",
                        [serverNo, localNo, first, offset]
                    )
                }
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

    /// Sessions, most recent activity first, at most `limit` after the first `offset`: those of
    /// the desktop named `desktop` if given; with `among` or `titleHolding`, only those among
    /// these ids or whose title (the one the desktop's list gave) holds these words, ignoring the
    /// case of ASCII letters.
    public func sessions(limit: Int? = nil, offset: Int = 0, desktop: String? = nil,
                         among ids: [String]? = nil, titleHolding words: String? = nil) throws -> [SessionSummary] {
        var arguments: [any DatabaseValueConvertible] = [limit ?? -1, offset, desktop]
        var matching: [String] = []
        if let ids, !ids.isEmpty {
            matching.append("session_id IN (" + ids.indices.map { "?\($0 + 4)" }.joined(separator: ", ") + ")")
            arguments += ids
        }
        if let words {
            arguments.append(words.lowercased())
            matching.append("instr(lower(coalesce(title, '')), ?\(arguments.count)) > 0")
        }
        let kept = ids == nil && words == nil ? "" : " AND (" + (matching.isEmpty ? "0" : matching.joined(separator: " OR ")) + ")"
        return try database.query(
            """
            SELECT \(Self.sessionColumns) FROM sessions
            WHERE (?3 IS NULL OR history_no IN (SELECT history_no FROM histories WHERE desktop = ?3))\(kept)
            ORDER BY last_ts DESC, session_id LIMIT ?1 OFFSET ?2
            """,
            arguments,
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
            SELECT EXISTS (SELECT 1 FROM events INDEXED BY events_marked
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

    /// Creates the session row if missing (in `history`) and notes that it was seen now; returns
    /// its key. A session made offline takes the history of the first events it gets from a bridge.
    func touchSession(_ sessionID: String, history: HistoryKey?, now: Int64) throws -> Int64 {
        guard let number = try database.queryFirst(
            """
            INSERT INTO sessions (session_id, first_seen_at, last_seen_at, history_no) VALUES (?1, ?2, ?2, ?3)
            ON CONFLICT (session_id) DO UPDATE SET last_seen_at = excluded.last_seen_at,
                history_no = coalesce(history_no, excluded.history_no)
            RETURNING session_no
            """,
            [sessionID, now, history?.rawValue],
            { $0.int64(0) }
        ) else {
            throw MirrorStoreError.unknownSession(id: sessionID)
        }
        return number
    }

    /// The key of the session, which is created when missing (in `history`, seen `now`); a
    /// session already mirrored is not written here: the append that follows notes it as seen
    /// (`appendEvents`, with its counts).
    func sessionForAppend(_ sessionID: String, history: HistoryKey?, now: Int64) throws -> Int64 {
        if let number = try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID]) {
            return number
        }
        return try touchSession(sessionID, history: history, now: now)
    }

    /// The key of the mirrored session with this id.
    func sessionNumber(of sessionID: String) throws -> Int64 {
        guard let number = try knownSessionNumber(sessionID) else { throw MirrorStoreError.unknownSession(id: sessionID) }
        return number
    }

    /// The key of the mirrored session with this id, nil if there is none.
    func knownSessionNumber(_ sessionID: String) throws -> Int64? {
        try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID])
    }

    static let sessionColumns = """
        session_id, origin, title, mode, last_ts, server_event_count, server_last_seq, local_event_count,
        first_seen_at, last_seen_at, history_no, (SELECT desktop FROM histories h WHERE h.history_no = sessions.history_no),
        gone_at, gone_event_count, sync_error, sync_error_at, retry_after
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
            lastSeenAt: row.int64(9),
            history: row.optionalInt64(10).map(HistoryKey.init(rawValue:)),
            desktop: row.optionalString(11),
            goneAt: row.optionalInt64(12),
            goneEventCount: row.int64(13),
            syncError: row.optionalString(14),
            syncErrorAt: row.optionalInt64(15),
            retryAfter: row.optionalInt64(16)
        )
    }
}

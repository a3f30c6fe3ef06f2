extension MirrorStore {
    /// Every history the mirror holds, oldest first.
    public func histories() throws -> [HistoryRecord] {
        try database.query("SELECT \(Self.historyColumns) FROM histories h ORDER BY h.history_no", [], Self.historyRecord)
    }

    /// The history with this key.
    public func history(_ key: HistoryKey) throws -> HistoryRecord? {
        try database.queryFirst("SELECT \(Self.historyColumns) FROM histories h WHERE h.history_no = ?", [key.rawValue],
                                Self.historyRecord)
    }

    /// The history a bridge named so (or the mirror named so for it).
    public func history(withID historyID: String) throws -> HistoryRecord? {
        try database.queryFirst("SELECT \(Self.historyColumns) FROM histories h WHERE h.history_id = ?", [historyID],
                                Self.historyRecord)
    }

    /// The history that a bridge naming none, reached as `desktop`, continues: the newest one the
    /// mirror named for that desktop and did not see end.
    public func currentHistory(ofDesktop desktop: String) throws -> HistoryRecord? {
        try database.queryFirst(
            """
            SELECT \(Self.historyColumns) FROM histories h
            WHERE h.identity = 'mirror' AND h.desktop = ? AND h.gone_at IS NULL ORDER BY h.history_no DESC LIMIT 1
            """,
            [desktop], Self.historyRecord
        )
    }

    /// The history a mirror written before histories were kept apart holds, while no bridge has
    /// taken it over.
    public func unclaimedHistory() throws -> HistoryRecord? {
        try database.queryFirst("SELECT \(Self.historyColumns) FROM histories h WHERE h.identity = 'unclaimed' LIMIT 1", [],
                                Self.historyRecord)
    }

    /// Records a history first seen now.
    public func createHistory(identity: HistoryIdentity, historyID: String, desktop: String, bridgeURL: String?) throws -> HistoryRecord {
        try write {
            let now = clock.now()
            let number = try database.queryFirst(
                """
                INSERT INTO histories (identity, history_id, desktop, bridge_url, first_seen_at, last_connected_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?5) RETURNING history_no
                """,
                [identity.rawValue, historyID, desktop, bridgeURL, now]
            ) { $0.int64(0) }
            guard let number, let record = try history(HistoryKey(rawValue: number)) else {
                throw MirrorStoreError.unknownHistory(historyID)
            }
            return record
        }
    }

    /// Gives an unclaimed history (or any history, renamed) its identity, its id and the desktop
    /// it was reached as.
    public func claimHistory(_ key: HistoryKey, identity: HistoryIdentity, historyID: String, desktop: String,
                             bridgeURL: String?) throws -> HistoryRecord {
        try write {
            try database.run(
                "UPDATE histories SET identity = ?2, history_id = ?3, desktop = ?4, bridge_url = ?5 WHERE history_no = ?1",
                [key.rawValue, identity.rawValue, historyID, desktop, bridgeURL]
            )
            guard let record = try history(key) else { throw MirrorStoreError.unknownHistory("\(key.rawValue)") }
            return record
        }
    }

    /// Notes that the history's bridge was reached now, as `desktop` at `bridgeURL` (a desktop
    /// renamed or moved keeps its history: the identity decides, not the address).
    public func noteConnected(_ key: HistoryKey, desktop: String, bridgeURL: String) throws {
        try write {
            try database.run(
                "UPDATE histories SET desktop = ?2, bridge_url = ?3, last_connected_at = ?4, gone_at = NULL WHERE history_no = ?1",
                [key.rawValue, desktop, bridgeURL, clock.now()]
            )
        }
    }

    /// Notes that a catch-up of the history completed now.
    public func noteSynced(_ key: HistoryKey) throws {
        try write {
            try database.run("UPDATE histories SET last_synced_at = ?2 WHERE history_no = ?1", [key.rawValue, clock.now()])
        }
    }

    /// Marks a history as no longer on its desktop (its history started again), with its sessions.
    public func markHistoryGone(_ key: HistoryKey) throws {
        try write {
            let now = clock.now()
            try database.run("UPDATE histories SET gone_at = coalesce(gone_at, ?2) WHERE history_no = ?1", [key.rawValue, now])
            try database.run("UPDATE sessions SET gone_at = coalesce(gone_at, ?2) WHERE history_no = ?1", [key.rawValue, now])
        }
    }

    /// The last `seq` of the history that is fully mirrored (0: nothing yet).
    public func historyCursor(of key: HistoryKey) throws -> Int64 {
        try database.scalarInt64("SELECT cursor FROM histories WHERE history_no = ?", [key.rawValue]) ?? 0
    }

    /// Moves the history's cursor forward to `seq` (never back), in the caller's transaction.
    func advanceHistoryCursor(of key: HistoryKey, to seq: Int64) throws {
        try database.run("UPDATE histories SET cursor = max(cursor, ?2) WHERE history_no = ?1", [key.rawValue, seq])
    }

    static let historyColumns = """
        h.history_no, h.identity, h.history_id, h.desktop, h.bridge_url, h.cursor, h.first_seen_at, h.last_connected_at,
        h.last_synced_at, h.gone_at, (SELECT count(*) FROM sessions s WHERE s.history_no = h.history_no)
        """

    static func historyRecord(_ row: Row) -> HistoryRecord {
        HistoryRecord(
            key: HistoryKey(rawValue: row.int64(0)),
            identity: HistoryIdentity(rawValue: row.string(1)) ?? .mirror,
            historyID: row.string(2),
            desktop: row.string(3),
            bridgeURL: row.optionalString(4),
            cursor: row.int64(5),
            firstSeenAt: row.int64(6),
            lastConnectedAt: row.optionalInt64(7),
            lastSyncedAt: row.optionalInt64(8),
            goneAt: row.optionalInt64(9),
            sessionCount: row.int(10)
        )
    }
}

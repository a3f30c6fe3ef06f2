import Bridge
import Foundation
import MirrorStore

/// The simulator's history: a SQLite file in the desktop's stock `acp_events` layout, plus tables
/// of its own: the cursor extension's idempotent prompts, and the history's identity.
///
/// A history-cursor bridge's global `seq` is the row's `event_id` (AUTOINCREMENT: never reused,
/// even after the oldest events are pruned). The history's id (`history_id`, version 2 of the
/// extension) is made when the file first gets one: a new file is a new history, as a reinstalled
/// desktop's is.
final class SimulatorHistory {
    /// What the simulator knows of one session, kept in memory and updated on every append.
    struct SessionStats {
        var lastTS: Int64
        var count: Int64
        var lastSeq: Int64
        var mode: String?
        var title: String?
    }

    /// One stored event.
    struct StoredEvent {
        var seq: Int64
        var sessionID: String
        var ts: Int64
        var updateJSON: [UInt8]
    }

    let database: Database
    private(set) var sessions: [String: SessionStats] = [:]
    /// The history's identity, made once per file.
    let historyID: String

    init(path: String) throws {
        database = try Database(path: path)
        try database.enableWriteAheadLogging()
        // Pages are read in place through a map (up to 2 GiB) rather than copied in by a system
        // call each: a catch-up reads the whole history.
        try database.execute("PRAGMA mmap_size = 2147483648")
        try database.execute("""
            CREATE TABLE IF NOT EXISTS acp_events (event_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
              seq INTEGER NOT NULL, ts INTEGER NOT NULL, update_json TEXT NOT NULL, meta_json TEXT NULL, index_hints TEXT NULL);
            CREATE INDEX IF NOT EXISTS acp_events_by_session_seq ON acp_events (session_id, seq);
            CREATE INDEX IF NOT EXISTS acp_events_by_ts ON acp_events (ts);
            CREATE TABLE IF NOT EXISTS conversation_titles (session_id TEXT PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS sim_client_messages (client_message_id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
              status TEXT NOT NULL, received_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS sim_history (history_id TEXT NOT NULL);
            """)
        try database.run("INSERT INTO sim_history (history_id) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM sim_history)",
                         [UUID().uuidString.lowercased()])
        historyID = try database.queryFirst("SELECT history_id FROM sim_history LIMIT 1", []) { $0.string(0) } ?? ""
        try loadSessionStats()
    }

    /// Deletes the session's `count` oldest events (a desktop pruning old transcripts); returns how
    /// many it deleted.
    func prune(sessionID: String, oldest count: Int) throws -> Int {
        try database.run(
            """
            DELETE FROM acp_events WHERE event_id IN
                (SELECT event_id FROM acp_events WHERE session_id = ? ORDER BY ts, event_id LIMIT ?)
            """,
            [sessionID, count]
        )
        let deleted = database.changes
        try loadSessionStats()
        return deleted
    }

    /// Deletes a session and its events (the desktop's deleteSession); returns the events deleted.
    func delete(sessionID: String) throws -> Int {
        try database.run("DELETE FROM acp_events WHERE session_id = ?", [sessionID])
        let deleted = database.changes
        try database.run("DELETE FROM conversation_titles WHERE session_id = ?", [sessionID])
        try loadSessionStats()
        return deleted
    }

    var eventCount: Int64 { sessions.values.reduce(0) { $0 + $1.count } }
    var lastSeq: Int64 { sessions.values.map(\.lastSeq).max() ?? 0 }

    private func loadSessionStats() throws {
        let rows = try database.query(
            "SELECT session_id, max(ts), count(*), max(event_id) FROM acp_events GROUP BY session_id"
        ) { ($0.string(0), SessionStats(lastTS: $0.int64(1), count: $0.int64(2), lastSeq: $0.int64(3))) }
        sessions = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        let modes = try database.query(
            """
            SELECT session_id, update_json FROM acp_events
            WHERE update_json LIKE '%current_mode_update%' ORDER BY event_id
            """
        ) { ($0.string(0), $0.bytes(1)) }
        for (sessionID, json) in modes {
            if let mode = (try? JSONParser.parse(json))?["current_mode_id"]?.stringValue { sessions[sessionID]?.mode = mode }
        }
        for (sessionID, title) in try database.query("SELECT session_id, title FROM conversation_titles", [], { ($0.string(0), $0.string(1)) }) {
            sessions[sessionID]?.title = title
        }
    }

    /// Stores events (each an update object's JSON) in one transaction; returns them with their seqs.
    func append(_ updates: [(sessionID: String, ts: Int64, json: [UInt8])]) throws -> [StoredEvent] {
        try database.writeTransaction {
            try updates.map { update in
                try database.run(
                    "INSERT INTO acp_events (session_id, seq, ts, update_json) VALUES (?, 0, ?, ?)",
                    [update.sessionID, update.ts, DatabaseValue.textBytes(update.json)]
                )
                let seq = database.lastInsertRowID
                var stats = sessions[update.sessionID] ?? SessionStats(lastTS: update.ts, count: 0, lastSeq: seq)
                stats.lastTS = max(stats.lastTS, update.ts)
                stats.count += 1
                stats.lastSeq = seq
                if let mode = (try? JSONParser.parse(update.json))?["current_mode_id"]?.stringValue { stats.mode = mode }
                sessions[update.sessionID] = stats
                return StoredEvent(seq: seq, sessionID: update.sessionID, ts: update.ts, updateJSON: update.json)
            }
        }
    }

    /// Stores a burst's updates, `Burst.transactionSize` a transaction, and sets its `firstSeq`
    /// and `transactionTimes`: the updates of a transaction share a time, `now()` or just after
    /// the session's last. Unlike `append`, does not parse the updates (none is a mode update).
    ///
    /// - Throws: when SQLite fails (the transactions before stay), or if the seqs were not
    ///   contiguous (they are, as long as this connection is the file's only writer).
    func append(_ burst: inout Burst, now: () -> Int64) throws {
        var firstSeq: Int64?
        for start in stride(from: 0, to: burst.count, by: Burst.transactionSize) {
            let end = min(start + Burst.transactionSize, burst.count)
            let previous = sessions[burst.sessionID]
            let ts = max(now(), (previous?.lastTS ?? 0) + 1)
            let lastSeq = try database.writeTransaction {
                var seq: Int64 = 0
                for index in start..<end {
                    try database.run(
                        "INSERT INTO acp_events (session_id, seq, ts, update_json) VALUES (?, 0, ?, ?)",
                        [burst.sessionID, ts, DatabaseValue.textBytes(burst.update(index))]
                    )
                    seq = database.lastInsertRowID
                    let first = firstSeq ?? seq
                    firstSeq = first
                    guard seq == first + Int64(index) else {
                        throw JSONRPCError(code: -32603, message: "the burst's seqs are not contiguous: \(seq) for update \(index) after \(first)")
                    }
                }
                return seq
            }
            var stats = previous ?? SessionStats(lastTS: ts, count: 0, lastSeq: lastSeq)
            stats.lastTS = ts
            stats.count += Int64(end - start)
            stats.lastSeq = lastSeq
            sessions[burst.sessionID] = stats
            burst.transactionTimes.append(ts)
        }
        burst.firstSeq = firstSeq ?? 0
    }

    /// The `limit` sessions with the newest events.
    func recentSessions(limit: Int) -> [(id: String, stats: SessionStats)] {
        sessions.map { (id: $0.key, stats: $0.value) }
            .sorted { ($0.stats.lastTS, $0.id) > ($1.stats.lastTS, $1.id) }
            .prefix(limit).map { $0 }
    }

    /// A session's events by time, oldest first (the stock server's order); the oldest `limit`.
    func timeline(sessionID: String, limit: Int?) throws -> [StoredEvent] {
        try database.query(
            "SELECT event_id, session_id, ts, update_json FROM acp_events WHERE session_id = ? ORDER BY ts LIMIT ?",
            [sessionID, limit ?? -1],
            Self.storedEvent
        )
    }

    /// One event of `changes(since:limit:_:)`, read in place: its buffers are valid during the
    /// call it is given to only.
    struct ChangeRow {
        var seq: Int64
        var ts: Int64
        /// Whether the update is JSON at all (a bridge skips those that are not).
        var isJSON: Bool
        var sessionID: UnsafeRawBufferPointer
        var updateJSON: UnsafeRawBufferPointer
    }

    /// Calls `body` with each event after `since`, in seq order, `limit` at most, read in place (a
    /// page is written from them without a copy of each), until `body` returns false (the page is
    /// full); returns the seq of the last one it was called with, or `since` when there is none. SQLite's `json_valid` tells which updates are JSON, far cheaper
    /// than parsing each: RFC 8259 JSON on Debian's SQLite 3.40, as from 3.45 on; 3.42–3.44 also
    /// took JSON5.
    func changes(since: Int64, limit: Int, _ body: (ChangeRow) -> Bool) throws -> Int64 {
        var last = since
        try database.forEachRow(
            """
            SELECT event_id, session_id, ts, update_json, json_valid(update_json) FROM acp_events
            WHERE event_id > ? ORDER BY event_id LIMIT ?
            """,
            [since, limit]
        ) { row in
            last = row.int64(0)
            return row.withBytes(1) { sessionID in
                row.withBytes(3) { update in
                    body(ChangeRow(seq: last, ts: row.int64(2), isJSON: row.bool(4), sessionID: sessionID, updateJSON: update))
                }
            }
        }
        return last
    }

    /// The prompt result recorded for a client message id, if it was seen before.
    func knownClientMessage(_ id: String) throws -> String? {
        try database.queryFirst("SELECT status FROM sim_client_messages WHERE client_message_id = ?", [id]) { $0.string(0) }
    }

    func recordClientMessage(_ id: String, sessionID: String, status: String, at time: Int64) throws {
        try database.run(
            "INSERT OR IGNORE INTO sim_client_messages (client_message_id, session_id, status, received_at) VALUES (?, ?, ?, ?)",
            [id, sessionID, status, time]
        )
    }

    private static func storedEvent(_ row: Row) -> StoredEvent {
        StoredEvent(seq: row.int64(0), sessionID: row.string(1), ts: row.int64(2), updateJSON: row.bytes(3))
    }
}

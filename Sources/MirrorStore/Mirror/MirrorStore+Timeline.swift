/// What `appendEvents` did.
public struct AppendOutcome: Sendable, Equatable {
    /// Events written.
    public var inserted: Int
    /// Events skipped because an event with the same `seq` is already mirrored.
    public var duplicates: Int
}

/// What `replaceTimelineTail` did.
public struct TailReplacement: Sendable, Equatable {
    /// Mirrored server events the fetch still holds.
    public var kept: Int
    /// Provisional events removed: live updates the fetch replaced.
    public var removed: Int
    /// Fetched events written.
    public var inserted: Int
    /// Provisional events the fetch confirmed.
    public var confirmed: Int
    /// Confirmed events the fetch no longer holds, marked as gone from the desktop now (they stay).
    public var markedGone = 0
    /// Events marked gone earlier that the fetch holds again.
    public var returned = 0
    /// The fetch was empty, and the session, which holds confirmed events, is now marked gone.
    public var sessionMarkedGone = false

    /// True when the fetch changed nothing but confirmations.
    public var isUnchanged: Bool { removed == 0 && inserted == 0 && markedGone == 0 && returned == 0 }
}

/// What `insert` wrote.
struct WrittenEvents {
    /// The id of the first event written (0 when none was); the others follow it.
    var firstEventID: Int64
    /// Events written.
    var count: Int
    /// What was written to each session, in the order written.
    var sessions: [SessionAppend] = []
    /// The highest seq written.
    var highestSeq: Int64?
}

/// What `insert` wrote to one session.
struct SessionAppend {
    var sessionNo: Int64
    var appended: Int64 = 0
    /// The latest event time written.
    var lastTS: Int64?
    /// The mode the last mode-setting event written sets.
    var mode: String?

    mutating func add(_ row: EventBatch.Row, mode: String?) {
        appended += 1
        if let timestamp = row.timestamp, timestamp > lastTS ?? .min { lastTS = timestamp }
        if let mode { self.mode = mode }
    }
}

extension MirrorStore {
    /// Appends events to their sessions' timelines and, in the same transaction, advances the
    /// cursor of `history` to `cursor` or to the highest `seq` appended, whichever is higher — so
    /// the cursor is never ahead of the data it covers, and every mirrored `seq` of the history is
    /// at or below it.
    ///
    /// Events with a `seq` at or below the history's cursor are already mirrored and skipped (as
    /// are repeats within `events`), so re-applying a page is harmless. Sessions are created as
    /// needed, in `history`. The cursor only moves forward.
    ///
    /// - Parameter history: the history the events come from; required when they carry seqs or a
    ///   cursor is given (a seq means something only within its history).
    /// - Parameter indexing: whether the events are indexed for search with the commit.
    /// - Parameter modeOf: the session mode an event sets, if any (the store does not read update
    ///   JSON); the last such event appended of each session sets its mode, in the same transaction.
    @discardableResult
    public func appendEvents(
        _ events: [NewEvent],
        history: HistoryKey?,
        advancingHistoryCursorTo cursor: Int64? = nil,
        indexing: SearchIndexingMode = .withCommit,
        modeOf: (NewEvent) -> String? = { _ in nil }
    ) throws -> AppendOutcome {
        try appendEvents(EventBatch(events, modeOf: modeOf), history: history, advancingHistoryCursorTo: cursor, indexing: indexing)
    }

    /// Appends a packed batch of events, as `appendEvents(_:history:advancingHistoryCursorTo:modeOf:)`
    /// does (the modes are the batch's).
    @discardableResult
    public func appendEvents(_ batch: EventBatch, history: HistoryKey?, advancingHistoryCursorTo cursor: Int64? = nil,
                             indexing: SearchIndexingMode = .withCommit) throws -> AppendOutcome {
        if history == nil && (cursor != nil || batch.lowestSeq != nil) { throw MirrorStoreError.historyRequired }
        return try write {
            let now = clock.now()
            let rows = try rowsToWrite(batch, history: history, bySession: true)
            let written = try insert(batch, rows: rows, indexing: indexing) { try sessionForAppend($0, history: history, now: now) }
            // Each session written to is also noted as seen now, and takes `history` if it had none
            // (a session made offline), as `touchSession` does: one write per session and batch.
            for session in written.sessions {
                try database.run(
                    """
                    UPDATE sessions SET local_event_count = local_event_count + ?1,
                        last_ts = CASE WHEN ?2 > coalesce(last_ts, -1) THEN ?2 ELSE last_ts END,
                        mode = coalesce(?4, mode), last_seen_at = ?5, history_no = coalesce(history_no, ?6)
                    WHERE session_no = ?3
                    """,
                    [session.appended, session.lastTS, session.sessionNo, session.mode, now, history?.rawValue]
                )
            }
            if let history, let target = [cursor, written.highestSeq].compactMap({ $0 }).max() {
                try advanceHistoryCursor(of: history, to: target)
            }
            return AppendOutcome(inserted: written.count, duplicates: batch.count - written.count)
        }
    }

    /// Brings a session's timeline in line with a fetched one, as an archive: the mirror keeps
    /// every confirmed event, whatever the fetch says. In one transaction:
    /// - each confirmed server event the fetch holds (matched by content, as many times as the
    ///   fetch holds it) stays; one it no longer holds stays too, marked as gone from the desktop
    ///   (the desktop pruned it); one marked so that the fetch holds again is unmarked;
    /// - the fetched events left over are new: provisional events (live updates) that match them
    ///   from the start are confirmed, the rest of the provisional ones are replaced by them;
    /// - an empty fetch of a session holding confirmed events marks the session gone (the desktop
    ///   no longer has it), and a fetch that holds events unmarks it;
    /// - the watermark the fetch was made at is recorded.
    ///
    /// Local events (our own prompts) are never touched; new events are placed after them.
    ///
    /// - Parameter fetchedAfterLiveEvents: the fetch was asked for after every live event of the
    ///   session had arrived, so it holds them all: a provisional event it does not hold is stale (a
    ///   live update applied after a fetch that already held it), and goes. Otherwise such events
    ///   may have arrived after the fetch was made, and stay, unconfirmed, when the fetch ends
    ///   while still matching them.
    /// - Parameter indexing: whether the events inserted are indexed for search with the commit.
    @discardableResult
    public func replaceTimelineTail(
        sessionID: String,
        history: HistoryKey?,
        with fetched: [NewEvent],
        watermark: SessionWatermark? = nil,
        fetchedAfterLiveEvents: Bool = false,
        indexing: SearchIndexingMode = .withCommit
    ) throws -> TailReplacement {
        try write {
            let now = clock.now()
            let sessionNo = try touchSession(sessionID, history: history, now: now)
            let mirrored = try database.query(
                """
                SELECT event_id, content_hash, provisional, gone_at IS NOT NULL FROM events
                WHERE session_no = ? AND origin = 'server' ORDER BY ordinal
                """,
                [sessionNo]
            ) { MirroredEvent(id: $0.int64(0), hash: $0.int64(1), provisional: $0.bool(2), gone: $0.bool(3)) }
            let plan = ArchiveMerge(mirrored: mirrored, fetched: fetched.map(\.contentHash.rawValue),
                                    fetchedAfterLiveEvents: fetchedAfterLiveEvents)
            var result = TailReplacement(kept: plan.kept, removed: plan.removed.count, inserted: 0, confirmed: plan.confirmed.count,
                                         markedGone: plan.markedGone.count, returned: plan.returned.count)
            for id in plan.confirmed {
                try database.run("UPDATE events SET provisional = 0 WHERE event_id = ?", [id])
            }
            for id in plan.markedGone {
                try database.run("UPDATE events SET gone_at = ? WHERE event_id = ?", [now, id])
            }
            for id in plan.returned {
                try database.run("UPDATE events SET gone_at = NULL WHERE event_id = ?", [id])
            }
            try deleteEvents(plan.removed, ofSession: sessionNo)
            let tail = EventBatch(plan.inserted.map { fetched[$0] })
            result.inserted = try insert(tail, rows: try rowsToWrite(tail, history: history, bySession: false), indexing: indexing) { _ in sessionNo }.count
            let sessionGone = fetched.isEmpty && mirrored.contains { !$0.provisional }
            if sessionGone {
                result.sessionMarkedGone = try database.scalarInt64(
                    "SELECT gone_at IS NULL FROM sessions WHERE session_no = ?", [sessionNo]) == 1
            }
            try recordFetch(sessionID: sessionID, sessionNo: sessionNo, watermark: watermark, sessionGone: sessionGone, now: now)
            return result
        }
    }

    /// Records that a session's timeline was fetched whole: its counts, whether it is gone from
    /// the desktop (`sessionGone`), the watermark the fetch was made at.
    func recordFetch(sessionID: String, sessionNo: Int64, watermark: SessionWatermark?, sessionGone: Bool, now: Int64) throws {
        try database.run(
            """
            UPDATE sessions SET
                local_event_count = (SELECT count(*) FROM events WHERE session_no = ?1),
                gone_event_count = (SELECT count(*) FROM events INDEXED BY events_gone WHERE session_no = ?1 AND gone_at IS NOT NULL),
                gone_at = CASE WHEN ?5 THEN coalesce(gone_at, ?4) ELSE NULL END,
                last_ts = coalesce(?2, last_ts),
                server_event_count = coalesce(?3, server_event_count)
            WHERE session_no = ?1
            """,
            [sessionNo, watermark?.lastTS, watermark?.messageCount, now, sessionGone]
        )
        if let watermark {
            try setWatermark(watermark, for: sessionID, now: now)
        }
    }

    /// Reads a session's timeline in order.
    public func timeline(sessionID: String, range: TimelineRange = .all) throws -> [TimelineEvent] {
        try database.query(
            """
            SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions)
            WHERE s.session_id = ? AND e.ordinal >= ? AND e.ordinal <= ? ORDER BY e.ordinal LIMIT ?
            """,
            [sessionID, range.fromOrdinal, range.throughOrdinal ?? .max, range.limit ?? -1]
        ) { Self.timelineEvent($0, sessionID: sessionID) }
    }

    /// The last `limit` events of a session before the ordinal `ordinal`, in order.
    public func timeline(sessionID: String, before ordinal: Int64, limit: Int) throws -> [TimelineEvent] {
        try database.query(
            """
            SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions)
            WHERE s.session_id = ? AND e.ordinal < ? ORDER BY e.ordinal DESC LIMIT ?
            """,
            [sessionID, ordinal, limit]
        ) { Self.timelineEvent($0, sessionID: sessionID) }.reversed()
    }

    /// The ordinals of a session's events that its desktop no longer has (`gone_at` set), in
    /// order, found by their own index without reading the session's other events.
    public func goneOrdinals(sessionID: String) throws -> [Int64] {
        try database.query(
            """
            SELECT e.ordinal FROM events e INDEXED BY events_gone
            WHERE e.session_no = (SELECT session_no FROM sessions WHERE session_id = ?) AND e.gone_at IS NOT NULL
            ORDER BY e.ordinal
            """,
            [sessionID]
        ) { $0.int64(0) }
    }

    /// How many events of a session lie before the ordinal `start`, and how many at or after `end`.
    public func eventCounts(sessionID: String, before start: Int64, from end: Int64) throws -> (before: Int, after: Int) {
        try database.queryFirst(
            """
            SELECT (SELECT count(*) FROM events WHERE session_no = s.session_no AND ordinal < ?2),
                   (SELECT count(*) FROM events WHERE session_no = s.session_no AND ordinal >= ?3)
            FROM sessions s WHERE s.session_id = ?1
            """,
            [sessionID, start, end]
        ) { (before: $0.int(0), after: $0.int(1)) } ?? (0, 0)
    }

    /// The event with this id, if mirrored.
    public func event(id: Int64) throws -> TimelineEvent? {
        try database.queryFirst("SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions) WHERE e.event_id = ?", [id]) {
            Self.timelineEvent($0)
        }
    }

    /// Events joined with their sessions, as `e` and `s`.
    static let eventsWithSessions = "events e JOIN sessions s ON s.session_no = e.session_no"

    static let eventColumns =
        "e.event_id, s.session_id, e.ordinal, e.seq, e.ts, e.kind, e.text, e.update_json, e.content_hash, e.provisional, e.origin, e.gone_at"

    /// - Parameter sessionID: the row's session when the caller knows it (one string for every
    ///   row of a timeline instead of one each).
    static func timelineEvent(_ row: Row, sessionID: String? = nil) -> TimelineEvent {
        TimelineEvent(
            eventID: row.int64(0),
            sessionID: sessionID ?? row.string(1),
            ordinal: row.int64(2),
            seq: row.optionalInt64(3),
            timestamp: row.optionalInt64(4),
            kind: row.string(5),
            text: row.string(6),
            updateJSON: row.bytes(7),
            contentHash: ContentHash(rawValue: row.int64(8)),
            provisional: row.bool(9),
            origin: EventOrigin(rawValue: row.string(10)) ?? .server,
            goneAt: row.optionalInt64(11)
        )
    }

    /// Inserts the events of `batch` at `rows` (indices, in the order to write them) at the end of
    /// their sessions' timelines, many rows per statement, with new event ids in that order, and,
    /// as `indexing` says, indexes their text for search (derived from the batch when no event
    /// before them waits to be: `EventsInHand`).
    ///
    /// - Parameter sessionNumber: the key of an event's session, by its id (creating it if need
    ///   be). Consecutive rows of one key continue its timeline; rows of one session must be
    ///   consecutive.
    func insert(_ batch: EventBatch, rows: [Int], indexing: SearchIndexingMode,
                sessionNumber: (String) throws -> Int64) throws -> WrittenEvents {
        guard !rows.isEmpty else { return WrittenEvents(firstEventID: 0, count: 0) }
        var written = WrittenEvents(firstEventID: try allocateEventIDs(rows.count), count: rows.count)
        var eventID = written.firstEventID
        // Gathered for indexing when nothing waits before them: derived from here, not read back.
        var inHand = try indexing == .withCommit && searchIndexedUpTo() == eventID - 1 ? EventsInHand(reservingCapacity: rows.count) : nil
        var session = -1
        var sessionNo: Int64 = 0
        var ordinal: Int64 = 0
        try batch.bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
            var start = 0
            while start < rows.count {
                let count = rows.count - start >= Self.rowsPerInsert ? Self.rowsPerInsert : 1
                let statement = try database.cachedStatement(count == 1 ? Self.insertOneSQL : Self.insertManySQL)
                // Clears the bindings, which point into `bytes`, before they go.
                defer { statement.reset() }
                var parameter: Int32 = 1
                for index in rows[start..<(start + count)] {
                    let row = batch.rows[index]
                    if row.session != session {
                        session = row.session
                        let number = try sessionNumber(batch.sessionIDs[session])
                        if number != sessionNo || written.sessions.isEmpty {
                            sessionNo = number
                            ordinal = try nextOrdinal(inSession: sessionNo)
                            written.sessions.append(SessionAppend(sessionNo: sessionNo))
                        }
                    }
                    written.sessions[written.sessions.count - 1].add(row, mode: batch.modes.isEmpty ? nil : batch.modes[index])
                    if let seq = row.seq, seq > written.highestSeq ?? .min { written.highestSeq = seq }
                    try statement.bind(.integer(eventID), at: parameter)
                    try statement.bind(.integer(sessionNo), at: parameter + 1)
                    try statement.bind(.integer(ordinal), at: parameter + 2)
                    try statement.bind(row.seq.databaseValue, at: parameter + 3)
                    try statement.bind(row.timestamp.databaseValue, at: parameter + 4)
                    try statement.bindText(borrowing: UnsafeRawBufferPointer(rebasing: bytes[row.kind]), at: parameter + 5)
                    try statement.bindText(borrowing: UnsafeRawBufferPointer(rebasing: bytes[row.text]), at: parameter + 6)
                    try statement.bindText(borrowing: UnsafeRawBufferPointer(rebasing: bytes[row.update]), at: parameter + 7)
                    try statement.bind(.integer(row.contentHash.rawValue), at: parameter + 8)
                    try statement.bind(.integer(row.provisional ? 1 : 0), at: parameter + 9)
                    try statement.bindText(borrowing: row.origin.staticName, at: parameter + 10)
                    inHand?.append(
                        id: eventID, sessionNo: sessionNo, ordinal: ordinal, kind: UnsafeRawBufferPointer(rebasing: bytes[row.kind]),
                        text: UnsafeRawBufferPointer(rebasing: bytes[row.text]), origin: row.origin, timestamp: row.timestamp
                    )
                    eventID += 1
                    ordinal += 1
                    parameter += 11
                }
                try statement.run()
                start += count
            }
        }
        if indexing == .withCommit {
            try indexEventsForSearch(upTo: eventID - 1, atMost: rows.count + Self.searchIndexingPerWrite, inHand: inHand)
        }
        return written
    }

    /// The indices of the rows of `batch` to write, session by session or in the order given:
    /// without those whose seq is already mirrored (at or below the cursor of `history`) or
    /// repeated earlier in the batch.
    func rowsToWrite(_ batch: EventBatch, history: HistoryKey?, bySession: Bool) throws -> [Int] {
        let order = bySession ? batch.rowsBySession() : Array(0..<batch.count)
        guard let lowestSeq = batch.lowestSeq else { return order }
        guard let history else { throw MirrorStoreError.historyRequired }
        let mirroredUpTo = try historyCursor(of: history)
        // A batch in order past the cursor (the usual case) is written whole.
        if batch.seqsAscending && lowestSeq > mirroredUpTo { return order }
        var seen = Set<Int64>()
        let kept = batch.rows.map { row in
            guard let seq = row.seq else { return true }
            return seq > mirroredUpTo && seen.insert(seq).inserted
        }
        return order.filter { kept[$0] }
    }

    /// Rows per multi-row INSERT: fewer statements per page, far below SQLite's parameter limit.
    static let rowsPerInsert = 64

    private static let insertOneSQL = insertSQL(rows: 1)
    private static let insertManySQL = insertSQL(rows: rowsPerInsert)

    private static func insertSQL(rows: Int) -> String {
        let tuple = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        return """
            INSERT INTO events (event_id, session_no, ordinal, seq, ts, kind, text, update_json, content_hash,
                                provisional, origin)
            VALUES \(Array(repeating: tuple, count: rows).joined(separator: ", "))
            """
    }

    /// Reserves `count` event ids that were never handed out before; returns the first.
    private func allocateEventIDs(_ count: Int) throws -> Int64 {
        let last = try database.scalarInt64("SELECT value FROM counters WHERE name = 'event_id'") ?? 0
        try database.run(
            "INSERT INTO counters (name, value) VALUES ('event_id', ?1) ON CONFLICT (name) DO UPDATE SET value = ?1",
            [last + Int64(count)]
        )
        return last + 1
    }

    /// The ordinal after the session's last event.
    func nextOrdinal(inSession sessionNo: Int64) throws -> Int64 {
        (try database.scalarInt64("SELECT max(ordinal) FROM events WHERE session_no = ?", [sessionNo]) ?? -1) + 1
    }
}

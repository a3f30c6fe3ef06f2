/// What `appendEvents` did.
public struct AppendOutcome: Sendable, Equatable {
    /// Events written.
    public var inserted: Int
    /// Events skipped because an event with the same `seq` is already mirrored.
    public var duplicates: Int
}

/// What `replaceTimelineTail` did.
public struct TailReplacement: Sendable, Equatable {
    /// Server events kept: the common prefix of the mirrored and the fetched timeline.
    public var kept: Int
    /// Mirrored server events removed after the prefix.
    public var removed: Int
    /// Fetched events written after the prefix.
    public var inserted: Int
    /// Provisional events the fetch confirmed.
    public var confirmed: Int

    /// True when the fetch changed nothing but confirmations.
    public var isUnchanged: Bool { removed == 0 && inserted == 0 }
}

/// Where an event goes: its session's key in the mirror (`sessions.session_no`) and its ordinal.
struct EventPlace {
    var sessionNo: Int64
    var ordinal: Int64
}

extension MirrorStore {
    /// Appends events to their sessions' timelines and, in the same transaction, advances the
    /// global history cursor to `cursor` or to the highest `seq` appended, whichever is higher — so
    /// the cursor is never ahead of the data it covers, and every mirrored `seq` is at or below it.
    ///
    /// Events with a `seq` at or below the cursor are already mirrored and skipped (as are repeats
    /// within `events`), so re-applying a page is harmless. Sessions are created as needed. The
    /// cursor only moves forward.
    ///
    /// - Parameter modeOf: the session mode an event sets, if any (the store does not read update
    ///   JSON); the last such event appended of each session sets its mode, in the same transaction.
    @discardableResult
    public func appendEvents(
        _ events: [NewEvent],
        advancingHistoryCursorTo cursor: Int64? = nil,
        modeOf: (NewEvent) -> String? = { _ in nil }
    ) throws -> AppendOutcome {
        try write {
            let now = clock.now()
            let fresh = try eventsNotYetMirrored(events)
            var sessions: [String: (number: Int64, nextOrdinal: Int64, appended: Int64, lastTS: Int64?)] = [:]
            var places: [EventPlace] = []
            places.reserveCapacity(fresh.count)
            for event in fresh {
                var session = try sessions[event.sessionID] ?? {
                    let number = try touchSession(event.sessionID, now: now)
                    return (number, try nextOrdinal(inSession: number), 0, nil)
                }()
                places.append(EventPlace(sessionNo: session.number, ordinal: session.nextOrdinal))
                session.nextOrdinal += 1
                session.appended += 1
                if let timestamp = event.timestamp, timestamp > session.lastTS ?? .min { session.lastTS = timestamp }
                sessions[event.sessionID] = session
            }
            // Rows go in session by session: a timeline then lies in runs of neighbouring rows
            // (one per transaction) instead of one row per page among every other session's.
            let order = places.indices.sorted {
                (places[$0].sessionNo, places[$0].ordinal) < (places[$1].sessionNo, places[$1].ordinal)
            }
            try insert(fresh, at: places, inOrder: order)
            for session in sessions.values {
                try database.run(
                    """
                    UPDATE sessions SET local_event_count = local_event_count + ?1,
                        last_ts = CASE WHEN ?2 > coalesce(last_ts, -1) THEN ?2 ELSE last_ts END
                    WHERE session_no = ?3
                    """,
                    [session.appended, session.lastTS, session.number]
                )
            }
            var modes: [Int64: String] = [:]
            for (event, place) in zip(fresh, places) {
                if let mode = modeOf(event) { modes[place.sessionNo] = mode }
            }
            for (sessionNo, mode) in modes {
                try database.run("UPDATE sessions SET mode = ? WHERE session_no = ?", [mode, sessionNo])
            }
            let highestSeq = fresh.lazy.compactMap(\.seq).max()
            if let target = [cursor, highestSeq].compactMap({ $0 }).max() {
                try advanceHistoryCursor(to: target, now: now)
            }
            return AppendOutcome(inserted: fresh.count, duplicates: events.count - fresh.count)
        }
    }

    /// `events` without those whose `seq` is already mirrored (at or below the history cursor) or
    /// repeated earlier in `events`.
    private func eventsNotYetMirrored(_ events: [NewEvent]) throws -> [NewEvent] {
        guard events.contains(where: { $0.seq != nil }) else { return events }
        let mirroredUpTo = try historyCursor()
        // A page in order past the cursor (the usual case) is kept as it is, without a copy.
        var highest = mirroredUpTo
        let inOrderPastCursor = events.allSatisfy { event in
            guard let seq = event.seq else { return true }
            defer { highest = seq }
            return seq > highest
        }
        if inOrderPastCursor { return events }
        var seen = Set<Int64>()
        return events.filter { event in
            guard let seq = event.seq else { return true }
            return seq > mirroredUpTo && seen.insert(seq).inserted
        }
    }

    /// Makes a fetched timeline the session's server timeline: keeps the server events that match
    /// the fetched ones from the start (confirming provisional ones), replaces the rest, and
    /// records the watermark the fetch was made at — all in one transaction.
    ///
    /// Local events (our own prompts) are never removed; fetched events after the prefix are
    /// placed after them.
    ///
    /// - Parameter fetchedAfterLiveEvents: the fetch was asked for after every live event of the
    ///   session had arrived, so it holds them all: a provisional event past its end is stale (a
    ///   live update applied after a fetch that already held it), and goes. Otherwise such events
    ///   may have arrived after the fetch was made, and stay, unconfirmed.
    @discardableResult
    public func replaceTimelineTail(
        sessionID: String,
        with fetched: [NewEvent],
        watermark: SessionWatermark? = nil,
        fetchedAfterLiveEvents: Bool = false
    ) throws -> TailReplacement {
        try write {
            let now = clock.now()
            let sessionNo = try touchSession(sessionID, now: now)
            let mirrored = try database.query(
                """
                SELECT event_id, content_hash, provisional FROM events
                WHERE session_no = ? AND origin = 'server' ORDER BY ordinal
                """,
                [sessionNo]
            ) { (id: $0.int64(0), hash: $0.int64(1), provisional: $0.bool(2)) }

            var prefix = 0
            while prefix < mirrored.count, prefix < fetched.count,
                  mirrored[prefix].hash == fetched[prefix].contentHash.rawValue {
                prefix += 1
            }
            // Live events that arrived after the fetch was made extend it rather than contradict it:
            // when the fetch ends while still matching, trailing provisional events stay (unconfirmed).
            let keepsTrailingLive = prefix == fetched.count && !fetchedAfterLiveEvents
            let stale = keepsTrailingLive ? mirrored[prefix...].filter { !$0.provisional } : Array(mirrored[prefix...])
            var result = TailReplacement(kept: prefix, removed: stale.count, inserted: 0, confirmed: 0)
            for event in mirrored[..<prefix] where event.provisional {
                try database.run("UPDATE events SET provisional = 0 WHERE event_id = ?", [event.id])
                result.confirmed += 1
            }
            for event in stale {
                try database.run("DELETE FROM events WHERE event_id = ?", [event.id])
            }
            let firstOrdinal = try nextOrdinal(inSession: sessionNo)
            let tail = try eventsNotYetMirrored(Array(fetched[prefix...]))
            try insert(tail, at: tail.indices.map { EventPlace(sessionNo: sessionNo, ordinal: firstOrdinal + Int64($0)) })
            result.inserted = tail.count
            try database.run(
                """
                UPDATE sessions SET
                    local_event_count = (SELECT count(*) FROM events WHERE session_no = ?1),
                    last_ts = coalesce(?2, last_ts),
                    server_event_count = coalesce(?3, server_event_count)
                WHERE session_no = ?1
                """,
                [sessionNo, watermark?.lastTS, watermark?.messageCount]
            )
            if let watermark {
                try setWatermark(watermark, for: sessionID, now: now)
            }
            return result
        }
    }

    /// Reads a session's timeline in order.
    public func timeline(sessionID: String, range: TimelineRange = .all) throws -> [TimelineEvent] {
        try database.query(
            """
            SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions)
            WHERE s.session_id = ? AND e.ordinal >= ? ORDER BY e.ordinal LIMIT ?
            """,
            [sessionID, range.fromOrdinal, range.limit ?? -1]
        ) { Self.timelineEvent($0, sessionID: sessionID) }
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
        "e.event_id, s.session_id, e.ordinal, e.seq, e.ts, e.kind, e.text, e.update_json, e.content_hash, e.provisional, e.origin"

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
            origin: EventOrigin(rawValue: row.string(10)) ?? .server
        )
    }

    /// Inserts events at their places (one per event; the session ids of `events` are not read),
    /// in the order of the indices `order` (default: as given), many rows per statement, with new
    /// event ids in that order, and indexes their text for search unless `defersSearchIndexing`;
    /// returns the first id (the others follow it).
    @discardableResult
    func insert(_ events: [NewEvent], at places: [EventPlace], inOrder order: [Int]? = nil) throws -> Int64 {
        precondition(events.count == places.count && (order?.count ?? events.count) == events.count, "one place per event")
        let firstEventID = try allocateEventIDs(events.count)
        var eventID = firstEventID
        var start = 0
        while start < events.count {
            let rows = events.count - start >= Self.rowsPerInsert ? Self.rowsPerInsert : 1
            let statement = try database.cachedStatement(Self.insertSQL(rows: rows))
            defer { statement.reset() }
            var index: Int32 = 1
            for position in start..<(start + rows) {
                let offset = order?[position] ?? position
                let event = events[offset]
                let place = places[offset]
                try statement.bind(.integer(eventID), at: index)
                eventID += 1
                try statement.bind(.integer(place.sessionNo), at: index + 1)
                try statement.bind(.integer(place.ordinal), at: index + 2)
                try statement.bind(event.seq.databaseValue, at: index + 3)
                try statement.bind(event.timestamp.databaseValue, at: index + 4)
                try statement.bind(.text(event.kind), at: index + 5)
                try statement.bind(.text(event.text), at: index + 6)
                try statement.bind(.textBytes(event.updateJSON), at: index + 7)
                try statement.bind(.integer(event.contentHash.rawValue), at: index + 8)
                try statement.bind(.integer(event.provisional ? 1 : 0), at: index + 9)
                try statement.bind(.text(event.origin.rawValue), at: index + 10)
                index += 11
            }
            try statement.run()
            start += rows
        }
        if !events.isEmpty && !defersSearchIndexing {
            try indexEventsForSearch(upTo: eventID - 1, atMost: Self.searchIndexingPerWrite)
        }
        return firstEventID
    }

    /// Rows per multi-row INSERT: fewer statements per page, far below SQLite's parameter limit.
    static let rowsPerInsert = 64

    static func insertSQL(rows: Int) -> String {
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

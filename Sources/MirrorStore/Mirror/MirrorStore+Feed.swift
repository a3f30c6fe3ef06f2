import Primitives

extension MirrorStore {
    /// Where a follower that wants only what comes next starts: after everything committed.
    public func feedEnd() throws -> FeedPosition {
        try read {
            var position = FeedPosition(eventID: try handedOutEventID(), changeID: try latestChangeID())
            position.floorEventID = position.eventID
            return position
        }
    }

    /// Where a follower that had every event up to `eventID` goes on from: after that event and
    /// the changes committed before it (an id not handed out yet counts as the last one that was).
    public func feedPosition(afterEvent eventID: Int64) throws -> FeedPosition {
        try read {
            let eventID = min(eventID, try handedOutEventID())
            let changeID = try database.scalarInt64("SELECT max(change_id) FROM change_log WHERE after_event_id < ?", [eventID])
            return FeedPosition(eventID: eventID, changeID: changeID ?? 0)
        }
    }

    /// The session's key that a follower of one session filters by (stable when a session made
    /// offline gets the bridge's id), or nil when it is not mirrored.
    public func sessionKey(of sessionID: String) throws -> Int64? {
        try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID])
    }

    /// What was committed after `position`, in commit order, from one snapshot: events appended,
    /// events removed that the follower was given, and prompts' state changes. At most `limit`
    /// events and `limit` changes, and events of about `byteLimit` bytes (at least one): a
    /// follower holds one page at a time, however large the events.
    ///
    /// - Parameters:
    ///   - sessionKey: only this session's (from `sessionKey(of:)`); nil: every session's.
    ///   - desktop: only the sessions of the desktop of this name; nil: every desktop's.
    public func feed(after position: FeedPosition, sessionKey: Int64?, desktop: String? = nil, limit: Int,
                     byteLimit: Int = 4 << 20) throws -> FeedPage {
        try read {
            let lastEventID = try handedOutEventID()
            let snapshotChangeID = try latestChangeID()
            let changes = try database.query(
                """
                SELECT c.change_id, c.kind, c.session_no, c.event_id, c.outbox_id, c.state, c.after_event_id,
                       coalesce(s.session_id, c.merged_session_id), into_s.session_id
                FROM change_log c LEFT JOIN sessions s ON s.session_no = c.session_no
                    LEFT JOIN sessions into_s ON into_s.session_no = c.into_session_no
                WHERE c.change_id > ? ORDER BY c.change_id LIMIT ?
                """,
                [position.changeID, limit]
            ) { row in
                LoggedChange(changeID: row.int64(0), kind: row.string(1), sessionNo: row.optionalInt64(2), eventID: row.optionalInt64(3),
                             outboxID: row.optionalInt64(4), state: row.optionalString(5), afterEventID: row.int64(6),
                             sessionID: row.optionalString(7) ?? "", intoSessionID: row.optionalString(8))
            }
            // Changes at the limit: events after the last one read wait for the next page, as do
            // changes that come after events beyond the limit.
            var horizon = changes.count == limit ? min(lastEventID, changes.last?.afterEventID ?? lastEventID) : lastEventID
            horizon = max(horizon, position.eventID)
            let sessionFilter = try sessionFilter(sessionKey, idRange: horizon - position.eventID)
            let desktopFilter = desktop == nil ? "" : "AND s.history_no IN (SELECT history_no FROM histories WHERE desktop = ?5)"
            let desktopSessions = try desktop.map { desktop in
                Set(try database.query(
                    "SELECT s.session_no FROM sessions s JOIN histories h USING (history_no) WHERE h.desktop = ?", [desktop]
                ) { $0.int64(0) })
            }
            let statement = try database.cachedStatement(
                """
                SELECT \(Self.eventColumns) FROM \(Self.eventsWithSessions)
                WHERE e.event_id > ?1 AND e.event_id <= ?2 \(sessionFilter) \(desktopFilter) ORDER BY e.event_id LIMIT ?4
                """
            )
            defer { statement.reset() }
            var parameters: [any DatabaseValueConvertible] = [position.eventID, horizon, sessionKey, limit]
            if let desktop { parameters.append(desktop) }
            try statement.bind(parameters)
            var events: [TimelineEvent] = []
            var bytes = 0
            while events.count < limit, bytes < byteLimit, try statement.step() {
                let event = Self.timelineEvent(statement.row)
                bytes += event.updateJSON.count + event.text.utf8.count
                events.append(event)
            }
            let eventsCut = events.count == limit || bytes >= byteLimit
            if eventsCut, let last = events.last { horizon = last.eventID }
            let keptChanges = changes.prefix { $0.afterEventID <= horizon }

            var items: [FeedItem] = []
            items.reserveCapacity(events.count + keptChanges.count)
            var nextEvent = events.startIndex
            for change in keptChanges {
                while nextEvent < events.endIndex, events[nextEvent].eventID <= change.afterEventID {
                    items.append(.appended(events[nextEvent]))
                    nextEvent += 1
                }
                guard sessionKey == nil || change.sessionNo == sessionKey,
                      desktopSessions.map({ sessions in change.sessionNo.map(sessions.contains) ?? false }) ?? true,
                      let item = change.item(givenBefore: position) else { continue }
                items.append(item)
            }
            items.append(contentsOf: events[nextEvent...].map(FeedItem.appended))

            var next = position
            next.eventID = horizon
            next.changeID = keptChanges.last?.changeID ?? position.changeID
            if horizon > position.eventID && snapshotChangeID > next.changeID {
                next.addPendingRead(after: position.eventID, upTo: horizon, snapshotChangeID: snapshotChangeID)
            }
            next.pendingReads.removeAll { $0.snapshotChangeID <= next.changeID }
            return FeedPage(items: items, position: next,
                            isPartial: eventsCut || keptChanges.count < changes.count || changes.count == limit)
        }
    }

    /// Forgets changes older than `age` by the system's clock, which the change log's triggers
    /// read: a follower away for longer is not told of them. Returns how many went.
    @discardableResult
    public func pruneChangeLog(olderThan age: Duration) throws -> Int {
        try write {
            try database.run(
                "DELETE FROM change_log WHERE changed_at < CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - ?",
                [age.milliseconds]
            )
            return database.changes
        }
    }

    /// The condition that keeps one session's events (`?3`) among those `feed` reads, written so
    /// that SQLite takes whichever way reads fewer entries: the session's index (every event of
    /// the session, filtered by id) or the range of ids (every session's events in it, filtered
    /// by session; `+` keeps SQLite from using the index for the term). Without statistics it
    /// always took the index, whose cost grows with the session: while following a session of
    /// 100,000 events live, each read took 18 ms and the follower a whole core, where the range
    /// of what was committed since the last read is a few rows.
    private func sessionFilter(_ sessionKey: Int64?, idRange: Int64) throws -> String {
        guard let sessionKey else { return "" }
        let sessionEvents = try database.scalarInt64("SELECT local_event_count FROM sessions WHERE session_no = ?", [sessionKey]) ?? 0
        return idRange <= sessionEvents ? "AND +e.session_no = ?3" : "AND e.session_no = ?3"
    }

    /// The highest event id ever handed out (events never get a lower one later).
    private func handedOutEventID() throws -> Int64 {
        try database.scalarInt64("SELECT value FROM counters WHERE name = 'event_id'") ?? 0
    }

    /// The highest change id ever logged, pruned or not.
    private func latestChangeID() throws -> Int64 {
        try database.scalarInt64("SELECT seq FROM sqlite_sequence WHERE name = 'change_log'") ?? 0
    }
}

/// A row of the change log.
private struct LoggedChange {
    var changeID: Int64
    var kind: String
    var sessionNo: Int64?
    var eventID: Int64?
    var outboxID: Int64?
    var state: String?
    var afterEventID: Int64
    var sessionID: String
    /// Where a merged session went.
    var intoSessionID: String?

    /// The item a follower at `position` gets, if any (none for an event it was never given).
    func item(givenBefore position: FeedPosition) -> FeedItem? {
        switch kind {
        case "event_removed":
            guard let eventID, position.gave(eventID: eventID, before: changeID) else { return nil }
            return .removed(eventID: eventID, sessionID: sessionID)
        case "event_confirmed":
            guard let eventID, position.gave(eventID: eventID, before: changeID) else { return nil }
            return .confirmed(eventID: eventID, sessionID: sessionID)
        case "outbox":
            guard let outboxID, let state else { return nil }
            return .outboxChanged(outboxID: outboxID, sessionID: sessionID, state: state)
        case "session_merged":
            guard let intoSessionID else { return nil }
            return .sessionMerged(sessionID: sessionID, into: intoSessionID)
        default:
            return nil
        }
    }
}

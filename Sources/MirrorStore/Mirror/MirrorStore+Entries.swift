/// The entries of the conversation, derived from the events (`schema/0012_entries.sql`): kept in
/// step with the full-text index's watermark (`search_indexed`), derived again for a session
/// whose indexed events change, and rebuilt whole on demand.
extension MirrorStore {
    /// How long the row of a message still streaming may lag behind its chunks (ms): it is
    /// rewritten whole at most this often while it streams, so that a message of n chunks costs
    /// about n row updates and (its duration / this) rewrites of at most 128 KiB, not n rewrites.
    public static let streamingEntryRefresh: Int64 = 300

    /// Derives the entries of the events with ids in `after` < id ≤ `last`, taken in the order of
    /// their ids, in the caller's transaction; a session found changed rather than appended to
    /// (events placed among those derived) is derived again from before the first of them (up to
    /// `last`). Returns whether it left many messages open lagging (`EntryWriter.manyOpenMessages`:
    /// a catch-up's pass across many sessions).
    ///
    /// - Parameter inHand: the events of that range, gathered as they were written at the ends of
    ///   their sessions' timelines (`insert`): derived from there, not read back, and none placed
    ///   before an event derived already.
    @discardableResult
    func deriveEntries(after first: Int64, through last: Int64, inHand: EventsInHand? = nil) throws -> Bool {
        let now = clock.now()
        // Events in hand were appended to their sessions, all of whose events were derived before.
        let writer = EntryWriter(database: database, now: now, lastEventID: last, derived: inHand == nil ? .through(first) : .everyEventBefore)
        do {
            // Moved to the writer and back, not copied: it changes them in place.
            writer.openTexts = openMessageTexts
            openMessageTexts = OpenMessageTexts()
            defer { openMessageTexts = writer.openTexts ?? OpenMessageTexts() }
            if let inHand {
                for event in inHand.events { try writer.add(event) }
                try writer.finish(singles: .inHand(inHand.singles))
            } else {
                _ = try database.query(
                    "SELECT \(DerivedEvent.columns) FROM events WHERE event_id > ?1 AND event_id <= ?2 ORDER BY event_id", [first, last]
                ) { try writer.add(DerivedEvent(row: $0)) }
                try writer.finish(singles: .selected(SelectedSingles(condition: "event_id > ?2 AND event_id <= ?3", arguments: [first, last])))
            }
        }
        for sessionNo in writer.sessionsOutOfOrder.sorted() {
            let placed = try database.scalarInt64(
                "SELECT min(ordinal) FROM events WHERE session_no = ?1 AND event_id > ?2 AND event_id <= ?3", [sessionNo, first, last]
            ) ?? .min
            let restart = try derivationRestart(ofSession: sessionNo, before: placed, through: last)
            try withdrawEntries(ofSession: sessionNo, after: restart, derivedThrough: last)
            try deriveEntries(ofSession: sessionNo, after: restart, through: last)
        }
        return writer.lagsOpenMessages
    }

    /// Runs `body`, which changes indexed events of a session from the ordinal `first` on
    /// (deletes or moves them, or places events among them), with the session's entries from
    /// there withdrawn before and derived again after, in the caller's transaction.
    func changingIndexedEvents<T>(ofSession sessionNo: Int64, from first: Int64, _ body: () throws -> T) throws -> T {
        let indexed = try searchIndexedUpTo()
        let restart = try derivationRestart(ofSession: sessionNo, before: first, through: indexed)
        try withdrawEntries(ofSession: sessionNo, after: restart, derivedThrough: indexed)
        let result = try body()
        try deriveEntries(ofSession: sessionNo, after: restart, through: indexed)
        return result
    }

    /// Deletes the events `ids` of a session, some of them indexed perhaps, as
    /// `changingIndexedEvents` does, in the caller's transaction.
    func deleteEvents(_ ids: [Int64], ofSession sessionNo: Int64) throws {
        guard !ids.isEmpty else { return }
        let first = try ids.map { id in
            try database.scalarInt64("SELECT ordinal FROM events WHERE event_id = ?1", [id]) ?? .max
        }.min() ?? .max
        try changingIndexedEvents(ofSession: sessionNo, from: first) {
            for id in ids {
                try database.run("DELETE FROM events WHERE event_id = ?", [id])
            }
        }
    }

    /// The ordinal after which a session's entries are derived again when its events change from
    /// the ordinal `first` on: that of the last event before `first`, among those derived (ids up
    /// to `last`), that ends a message (neither a chunk nor an update of a tool call), whose
    /// entries and those before it stay as they are; `Int64.min` if there is none. (An event not
    /// derived yet ends nothing: a merge places the local session's events after such ones.)
    func derivationRestart(ofSession sessionNo: Int64, before first: Int64, through last: Int64) throws -> Int64 {
        try database.scalarInt64(
            """
            SELECT ordinal FROM events WHERE session_no = ?1 AND ordinal < ?2 AND event_id <= ?3 AND \(DerivedEvent.Role.sql) = 0
            ORDER BY ordinal DESC LIMIT 1
            """,
            [sessionNo, first, last]
        ) ?? .min
    }

    /// Removes a session's entries that begin after the ordinal `restart` (all of them by
    /// default) and their rows in the index (made from its events as they are now, before they
    /// change, with ids up to `last`: what they were derived from).
    func withdrawEntries(ofSession sessionNo: Int64, after restart: Int64 = .min, derivedThrough last: Int64) throws {
        // Rows derived again may be of the same first event, length and last event, and yet other chunks.
        openMessageTexts.forget()
        let messages = try database.query(
            """
            SELECT \(EntryWriter.messageColumns()), text_hash IS NOT NULL FROM entries
            WHERE session_no = ?1 AND first_ordinal > ?2 ORDER BY entry_id
            """,
            [sessionNo, restart]
        ) { (message: EntryWriter.message($0), indexed: $0.bool(12)) }
        var rows = EntryIndexRows()
        for entry in messages where entry.indexed && entry.message.indexedEvents > 0 {
            let message = entry.message
            let text = try entryText(of: message, firstEvents: message.indexedEvents, derivedThrough: last)
            try rows.delete(rowID: message.entryID, text: text, kind: message.kind, sessionNo: sessionNo, database: database)
        }
        let singles = try database.query(
            """
            SELECT e.event_id, e.kind, e.text FROM events e JOIN single_entries s ON s.event_id = e.event_id
            WHERE e.session_no = ?1 AND e.ordinal > ?2
            """,
            [sessionNo, restart]
        ) { (id: $0.int64(0), kind: $0.string(1), text: $0.string(2)) }
        for single in singles {
            try rows.delete(rowID: single.id, text: single.text, kind: single.kind, sessionNo: sessionNo, database: database)
        }
        try rows.write(database: database, selected: nil)
        try database.run("DELETE FROM entries WHERE session_no = ?1 AND first_ordinal > ?2", [sessionNo, restart])
        try database.run(
            "DELETE FROM single_entries WHERE event_id IN (SELECT event_id FROM events WHERE session_no = ?1 AND ordinal > ?2)", [sessionNo, restart]
        )
    }

    /// Derives a session's entries from its events after the ordinal `restart` up to the event id
    /// `last`, in the order of their ordinals (the session has no entry after `restart`).
    func deriveEntries(ofSession sessionNo: Int64, after restart: Int64, through last: Int64) throws {
        let writer = EntryWriter(database: database, now: clock.now(), lastEventID: last, derived: .nothing)
        _ = try database.query(
            "SELECT \(DerivedEvent.columns) FROM events WHERE session_no = ?1 AND ordinal > ?2 AND event_id <= ?3 ORDER BY ordinal",
            [sessionNo, restart, last]
        ) { try writer.add(DerivedEvent(row: $0)) }
        try writer.finish(singles: .selected(SelectedSingles(
            condition: "session_no = ?2 AND ordinal > ?3 AND event_id <= ?4", arguments: [sessionNo, restart, last]
        )))
    }

    /// Derives every entry again from the events, and the index with them, in one transaction:
    /// what the incremental derivation holds, made in one pass (a test holds the two equal).
    public func rebuildEntries() throws {
        try write { try rebuildEntriesInTransaction() }
    }

    /// `rebuildEntries()` in the caller's transaction (the migrations, for a mirror made before entries).
    func rebuildEntriesInTransaction() throws {
        openMessageTexts.forget()
        try database.execute("INSERT INTO entries_fts (entries_fts) VALUES ('delete-all')")
        try database.execute("INSERT OR REPLACE INTO counters (name, value) VALUES ('\(EntryIndexRows.indexedTextBytes)', 0)")
        try database.execute("DELETE FROM entries")
        try database.execute("DELETE FROM single_entries")
        let last = try searchIndexedUpTo()
        let now = clock.now()
        let writer = EntryWriter(database: database, now: now, lastEventID: last, derived: .nothing)
        var session: Int64?
        _ = try database.query(
            "SELECT \(DerivedEvent.columns) FROM events WHERE event_id <= ?1 ORDER BY session_no, ordinal", [last]
        ) { row in
            let event = DerivedEvent(row: row)
            if let session, session != event.sessionNo { try writer.finish(session: session) }
            session = event.sessionNo
            try writer.add(event)
        }
        try writer.finish(singles: .selected(SelectedSingles(condition: "event_id <= ?2", arguments: [last])))
        try database.execute("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')")
    }

    /// Whether a message still streaming has a row older than `streamingEntryRefresh` that lags
    /// behind its chunks.
    func hasLaggingEntries() throws -> Bool {
        try database.scalarInt64(
            "SELECT 1 FROM entries WHERE indexed_events < events AND indexed_at <= ?1 LIMIT 1",
            [clock.now() - Self.streamingEntryRefresh]
        ) != nil
    }

    /// Rewrites now the rows of the messages still streaming that lag behind their chunks, however
    /// recently they were written: for the end of a run, after which nothing indexes again.
    public func catchUpStreamingEntries() throws {
        guard try database.scalarInt64("SELECT 1 FROM entries WHERE indexed_events < events LIMIT 1") != nil else { return }
        try write { try refreshLaggingEntries(all: true) }
    }

    /// Rewrites the rows of the messages whose rows lag behind their chunks for longer than
    /// `streamingEntryRefresh` (or for any time, if `all`), in the caller's transaction.
    func refreshLaggingEntries(all: Bool = false) throws {
        let now = clock.now()
        let lagging = try database.query(
            "SELECT \(EntryWriter.messageColumns()) FROM entries WHERE indexed_events < events AND indexed_at <= ?1",
            [all ? Int64.max : now - Self.streamingEntryRefresh]
        ) { EntryWriter.message($0) }
        guard !lagging.isEmpty else { return }
        let indexed = try searchIndexedUpTo()
        let writer = EntryWriter(database: database, now: now, lastEventID: indexed, derived: .through(indexed))
        // Lent to the writer and back, as for a derivation of events in hand.
        writer.openTexts = openMessageTexts
        openMessageTexts = OpenMessageTexts()
        defer { openMessageTexts = writer.openTexts ?? OpenMessageTexts() }
        for message in lagging { try writer.refresh(message) }
        try writer.finish()
    }
}

extension MirrorStore {
    /// The text of the entry `entryID` (a search hit's `eventID`): a message's chunks joined, or
    /// its one event's text; nil when there is no such entry.
    public func entryText(entryID: Int64) throws -> String? {
        try read {
            try storedEntry(entryID).map { try entryText(of: $0, derivedThrough: searchIndexedUpTo()) }
        }
    }

    /// The entry `entryID` as it is stored: a message's row of `entries`, or a single event's row
    /// of `single_entries` with its event; nil when there is no such entry.
    func storedEntry(_ entryID: Int64) throws -> EntryWriter.Message? {
        if let message = try database.queryFirst(
            "SELECT \(EntryWriter.messageColumns()) FROM entries WHERE entry_id = ?1", [entryID], { EntryWriter.message($0) }
        ) {
            return message
        }
        return try database.queryFirst(
            """
            SELECT e.event_id, e.session_no, e.kind, e.origin, e.ordinal, e.ordinal, e.event_id, 1, s.length, 1, NULL, s.ts
            FROM single_entries s JOIN events e ON e.event_id = s.event_id WHERE s.event_id = ?1
            """,
            [entryID]
        ) { EntryWriter.message($0) }
    }

    /// The text of `message`, as it is now.
    ///
    /// - Parameters:
    ///   - count: of a message, the text of its first `count` chunks (what its row in the index
    ///     holds, when it lags);
    ///   - last: the highest event id it was derived from (the watermark, or a derivation's bound):
    ///     its chunks are read up to there, not up to its last chunk's id, which a merged session's
    ///     chunks need not grow with.
    func entryText(of message: EntryWriter.Message, firstEvents count: Int64 = .max, derivedThrough last: Int64) throws -> String {
        if EntryWriter.isChunk(kind: message.kind, origin: message.origin) {
            return try EntryWriter.chunkTexts(of: message, upTo: last, database: database).joined(first: Int(count))
        }
        return try database.queryFirst("SELECT text FROM events WHERE event_id = ?1", [message.entryID]) { $0.string(0) } ?? ""
    }
}

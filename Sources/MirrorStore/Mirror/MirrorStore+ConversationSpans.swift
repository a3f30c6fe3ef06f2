/// The spans of a session's conversation a reader reads one at a time (the web viewer's windows),
/// measured on its entries (`schema/0012_entries.sql`): a span holds whole entries, at most so
/// many and about so many bytes of text, so that a session of 100,000 events streamed in chunks
/// of a few characters opens at its first screen, whatever the number of events in it.
extension MirrorStore {
    /// How much one span holds: at most `entries` entries, and entries of at most `bytes` bytes
    /// of text (always at least one entry, however long).
    public struct SpanBudget: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int

        public init(entries: Int, bytes: Int) {
            self.entries = entries
            self.bytes = bytes
        }
    }

    /// Where a span of the session `sessionID` that starts at the entry holding `ordinal` (or the
    /// first after it) begins and ends: `end` nil when it reaches the session's end (events not
    /// derived into entries yet included).
    public func conversationSpan(sessionID: String, from ordinal: Int64, budget: SpanBudget) throws -> (start: Int64, end: Int64?) {
        guard let sessionNo = try knownSessionNumber(sessionID) else { return (ordinal, nil) }
        // The message holding `ordinal`, if one begins before it: messages do not overlap.
        let holding = try database.queryFirst(
            """
            SELECT first_ordinal, last_ordinal, entry_id FROM entries
            WHERE session_no = ?1 AND first_ordinal < ?2 ORDER BY first_ordinal DESC LIMIT 1
            """,
            [sessionNo, ordinal]
        ) { (first: $0.int64(0), last: $0.int64(1), id: $0.int64(2)) }.flatMap { $0.last >= ordinal ? $0 : nil }
        // The holding message, and the entries from `ordinal` on (not those nested in it before).
        let rows = try database.query(
            """
            SELECT \(Self.entryOrdinalsAndLength) FROM \(Self.eventsWithEntries)
            WHERE e.session_no = ?1 AND e.ordinal >= ?2 AND \(Self.entryJoined) AND (e.ordinal >= ?3 OR e.event_id = ?4)
            ORDER BY e.ordinal LIMIT ?5
            """,
            [sessionNo, holding?.first ?? ordinal, ordinal, holding?.id, budget.entries + 1]
        ) { (first: $0.int64(0), last: $0.int64(1), length: $0.int(2)) }
        let start = min(ordinal, rows.first?.first ?? ordinal)
        var bytes = 0
        var reach = start
        for (index, row) in rows.enumerated() {
            if index == budget.entries || (index > 0 && bytes + row.length > budget.bytes) {
                // Up to the entry that does not fit; an entry nested in one that does (a tool
                // call's update amid a message) goes with it.
                return (start, max(row.first - 1, reach))
            }
            bytes += row.length
            reach = max(reach, row.last)
        }
        return (start, nil)
    }

    /// Where the span of the session `sessionID` that ends just before `ordinal` begins, by the
    /// same budget; nil when no event lies before `ordinal`.
    public func conversationSpanStart(sessionID: String, before ordinal: Int64, budget: SpanBudget) throws -> Int64? {
        guard ordinal > 0, try !timeline(sessionID: sessionID, before: ordinal, limit: 1).isEmpty else { return nil }
        guard let sessionNo = try knownSessionNumber(sessionID) else { return 0 }
        let rows = try database.query(
            """
            SELECT \(Self.entryOrdinalsAndLength) FROM \(Self.eventsWithEntries)
            WHERE e.session_no = ?1 AND e.ordinal < ?2 AND \(Self.entryJoined) ORDER BY e.ordinal DESC LIMIT ?3
            """,
            [sessionNo, ordinal, budget.entries + 1]
        ) { (first: $0.int64(0), length: $0.int(2)) }
        var bytes = 0
        var start: Int64 = 0
        for (index, row) in rows.enumerated() {
            if index == budget.entries || (index > 0 && bytes + row.length > budget.bytes) { return start }
            bytes += row.length
            start = row.first
        }
        return 0
    }
}

extension MirrorStore {
    /// The ordinals (first, last) of the person's first `limit` messages in the session
    /// `sessionID`, each whole, found by their own indexes without reading the entries or events
    /// between them (those from the desktop are messages, `entries_prompts`; those written here
    /// single entries, `events_marked`): a session's title is its first prompt's line, and lists
    /// ask it for each row. (Kinds and origins are written in the query, not bound, for the
    /// planner to take the partial indexes.)
    public func promptSpans(sessionID: String, limit: Int) throws -> [(first: Int64, last: Int64)] {
        guard let sessionNo = try knownSessionNumber(sessionID) else { return [] }
        return try database.query(
            """
            SELECT * FROM (SELECT first_ordinal, last_ordinal FROM entries
                           WHERE session_no = ?1 AND kind = 'user_message_chunk' ORDER BY first_ordinal LIMIT ?2)
            UNION ALL
            SELECT * FROM (SELECT e.ordinal, e.ordinal FROM events e INDEXED BY events_marked JOIN single_entries s ON s.event_id = e.event_id
                           WHERE e.session_no = ?1 AND e.origin = 'local' AND e.kind = 'user_message_chunk' ORDER BY e.ordinal LIMIT ?2)
            ORDER BY 1 LIMIT ?2
            """,
            [sessionNo, limit]
        ) { (first: $0.int64(0), last: $0.int64(1)) }
    }
}

extension MirrorStore {
    /// Whether any entry of the session `sessionID` was derived: its opening then is (entries are
    /// derived in the order of the events).
    public func hasEntries(sessionID: String) throws -> Bool {
        guard let sessionNo = try knownSessionNumber(sessionID) else { return false }
        return try database.scalarInt64(
            """
            SELECT CASE WHEN EXISTS (SELECT 1 FROM entries WHERE session_no = ?1) THEN 1
                        ELSE EXISTS (SELECT 1 FROM events e JOIN single_entries s ON s.event_id = e.event_id WHERE e.session_no = ?1) END
            """,
            [sessionNo]
        ) == 1
    }
}

extension MirrorStore {
    /// A session's events joined with the entries they begin, if any: a message's row of
    /// `entries` (`n`) or a single event's of `single_entries` (`s`). Walked in the order of
    /// `events_by_session`, they are the session's entries in order.
    static let eventsWithEntries = """
        events e LEFT JOIN entries n ON n.entry_id = e.event_id LEFT JOIN single_entries s ON s.event_id = e.event_id
        """
    /// A row joined with both tables of entries (`n`, `s`) has its entry in one of them: for a
    /// session's event, it begins an entry.
    static let entryJoined = "coalesce(n.entry_id, s.event_id) IS NOT NULL"
    /// The entry's first and last ordinals and the bytes of its text.
    static let entryOrdinalsAndLength = "e.ordinal, coalesce(n.last_ordinal, e.ordinal), coalesce(n.length, s.length)"
}

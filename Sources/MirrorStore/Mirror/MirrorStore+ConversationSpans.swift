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
        let rows = try database.query(
            """
            SELECT first_ordinal, last_ordinal, length FROM entries
            WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = ?1) AND last_ordinal >= ?2
            ORDER BY first_ordinal LIMIT ?3
            """,
            [sessionID, ordinal, budget.entries + 1]
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
        let rows = try database.query(
            """
            SELECT first_ordinal, length FROM entries
            WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = ?1) AND first_ordinal < ?2
            ORDER BY first_ordinal DESC LIMIT ?3
            """,
            [sessionID, ordinal, budget.entries + 1]
        ) { (first: $0.int64(0), length: $0.int(1)) }
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
    /// `sessionID`, each whole, found by their own index without reading the entries or events
    /// between them: a session's title is its first prompt's line, and lists ask it for each row.
    /// (The kind is written in the query, not bound, for the planner to take the partial index.)
    public func promptSpans(sessionID: String, limit: Int) throws -> [(first: Int64, last: Int64)] {
        try database.query(
            """
            SELECT first_ordinal, last_ordinal FROM entries
            WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = ?1) AND kind = 'user_message_chunk'
            ORDER BY first_ordinal LIMIT ?2
            """,
            [sessionID, limit]
        ) { (first: $0.int64(0), last: $0.int64(1)) }
    }
}

extension MirrorStore {
    /// Whether any entry of the session `sessionID` was derived: its opening then is (entries are
    /// derived in the order of the events).
    public func hasEntries(sessionID: String) throws -> Bool {
        try database.scalarInt64(
            "SELECT EXISTS (SELECT 1 FROM entries WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = ?1))", [sessionID]
        ) == 1
    }
}

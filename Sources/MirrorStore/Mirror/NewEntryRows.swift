/// Rows of `entries` for messages that had none before, gathered and written many to a
/// statement (`MultiRowInsert`): a catch-up makes hundreds of thousands of them.
struct NewEntryRows {
    struct Row {
        /// The message (its texts left out).
        var message: EntryWriter.Message
        var open: Bool
        /// Its text is in the index (else it waits, lagging).
        var indexed: Bool
        var textHash: Int64?
        var indexedAt: Int64
    }

    private var rows: [Row] = []

    private static let insert = MultiRowInsert(
        "INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length, "
            + "open, indexed_events, text_hash, ts, indexed_at)",
        row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )

    mutating func append(_ row: Row, database: Database) throws {
        rows.append(row)
        if rows.count == MultiRowInsert.rowsPerStatement { try flush(database: database) }
    }

    /// Writes the rows not written yet.
    mutating func flush(database: Database) throws {
        defer { rows.removeAll(keepingCapacity: true) }
        try Self.insert.write(rows, database: database) { row, statement, first in
            let message = row.message
            try statement.bind(.integer(message.entryID), at: first)
            try statement.bind(.integer(message.sessionNo), at: first + 1)
            try statement.bind(.text(message.kind), at: first + 2)
            try statement.bind(.text(message.origin), at: first + 3)
            try statement.bind(.integer(message.firstOrdinal), at: first + 4)
            try statement.bind(.integer(message.lastOrdinal), at: first + 5)
            try statement.bind(.integer(message.lastEventID), at: first + 6)
            try statement.bind(.integer(message.events), at: first + 7)
            try statement.bind(.integer(message.length), at: first + 8)
            try statement.bind(.integer(row.open ? 1 : 0), at: first + 9)
            try statement.bind(.integer(row.indexed ? message.events : 0), at: first + 10)
            try statement.bind(row.textHash.map(DatabaseValue.integer) ?? .null, at: first + 11)
            try statement.bind(message.timestamp.map(DatabaseValue.integer) ?? .null, at: first + 12)
            try statement.bind(.integer(row.indexedAt), at: first + 13)
        }
    }
}

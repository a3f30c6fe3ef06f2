/// Rows of entries that had none before (nothing of theirs to delete from the index), written
/// `perStatement` to a statement: a catch-up makes hundreds of thousands of them, and a statement
/// each (as `INSERT … ON CONFLICT`) cost more than deriving them.
struct NewEntryRows {
    struct Row {
        /// The message (its texts left out: `text` has them joined).
        var message: EntryWriter.Message
        var open: Bool
        /// Its text goes into the index now (`text`); if false, it waits, lagging.
        var indexed: Bool
        var text: String
        var textHash: Int64?
        var indexedAt: Int64
    }

    static let perStatement = 64

    private var rows: [Row] = []

    mutating func append(_ row: Row, database: Database) throws {
        rows.append(row)
        if rows.count == Self.perStatement { try flush(database: database) }
    }

    /// Writes the rows not written yet.
    mutating func flush(database: Database) throws {
        defer { rows.removeAll(keepingCapacity: true) }
        try write(rows, database: database, sql: Self.entriesSQL) { row, statement, first in
            let message = row.message
            let values: [DatabaseValue] = [
                .integer(message.entryID), .integer(message.sessionNo), .text(message.kind), .text(message.origin),
                .integer(message.firstOrdinal), .integer(message.lastOrdinal), .integer(message.lastEventID), .integer(message.events),
                .integer(message.length), .integer(row.open ? 1 : 0), .integer(row.indexed ? message.events : 0),
                row.textHash.map(DatabaseValue.integer) ?? .null, message.timestamp.map(DatabaseValue.integer) ?? .null,
                .integer(row.indexedAt),
            ]
            for (offset, value) in values.enumerated() { try statement.bind(value, at: first + Int32(offset)) }
        }
        try write(rows.filter { $0.indexed && !$0.text.isEmpty }, database: database, sql: Self.indexSQL) { row, statement, first in
            try statement.bind(.integer(row.message.entryID), at: first)
            try statement.bind(.text(row.text), at: first + 1)
            try statement.bind(.text(MirrorStore.kindToken(row.message.kind)), at: first + 2)
            try statement.bind(.text("s\(row.message.sessionNo)"), at: first + 3)
        }
    }

    /// Runs `sql(n)` on `rows`, as many at a time as a statement takes, `bind` binding each row's
    /// values from its first parameter on.
    private func write(_ rows: [Row], database: Database, sql: (Int) -> String,
                       bind: (Row, Statement, Int32) throws -> Void) throws {
        let columns = Int32(sql(1).filter { $0 == "?" }.count)
        var start = 0
        while start < rows.count {
            let count = rows.count - start >= Self.perStatement ? Self.perStatement : 1
            let statement = try database.cachedStatement(sql(count))
            defer { statement.reset() }
            for (index, row) in rows[start..<(start + count)].enumerated() {
                try bind(row, statement, Int32(index) * columns + 1)
            }
            try statement.run()
            start += count
        }
    }

    private static func entriesSQL(_ count: Int) -> String {
        "INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length, "
            + "open, indexed_events, text_hash, ts, indexed_at) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    private static func indexSQL(_ count: Int) -> String {
        "INSERT INTO entries_fts (rowid, text, kind, session) VALUES " + Array(repeating: "(?, ?, ?, ?)", count: count).joined(separator: ", ")
    }
}

/// Rows a derivation adds to the full-text index (`entries_fts`) and takes out of it, written
/// together when it ends, in the order of their rowids.
///
/// FTS5 gathers a transaction's terms in memory and writes them out as a new segment whenever a
/// row comes with a rowid below the one before. Messages end (and are indexed) in an order other
/// than their ids' when sessions interleave, and rows written as they came made a segment every
/// few rows: the index cost twice what its rows did (`docs/benchmarks.md`, issue 31).
struct EntryIndexRows {
    private struct Row {
        var rowID: Int64
        /// 0 takes the row out (given the text it was made from: the index is contentless), 1 adds it.
        var step: Int64
        var text: String
        var kind: String
        var sessionNo: Int64
    }

    private var rows: [Row] = []
    /// The bytes of the rows' texts.
    private var textBytes = 0
    /// The bytes of text the rows add to the index, less those they take out.
    private var indexedBytesChange: Int64 = 0

    /// The counter of the bytes of text the index holds (`schema/0020_index_without_sizes.sql`):
    /// search ranks an entry's length against their average.
    static let indexedTextBytes = "indexed_text_bytes"

    /// The text of rows gathered before they are written (bytes): more than FTS5 gathers in memory
    /// before it writes a segment anyway (1 MiB), so that their order costs nothing more.
    static let held = 4 << 20

    /// Adds the row of an entry.
    mutating func insert(rowID: Int64, text: String, kind: String, sessionNo: Int64, database: Database) throws {
        try append(Row(rowID: rowID, step: 1, text: text, kind: kind, sessionNo: sessionNo), database: database)
    }

    /// Takes out the row `rowID`, made from `text` (FTS5 removes the tokens of the text given: any
    /// other text would leave the row's own in the index).
    mutating func delete(rowID: Int64, text: String, kind: String, sessionNo: Int64, database: Database) throws {
        try append(Row(rowID: rowID, step: 0, text: text, kind: kind, sessionNo: sessionNo), database: database)
    }

    private mutating func append(_ row: Row, database: Database) throws {
        rows.append(row)
        textBytes += row.text.utf8.count
        indexedBytesChange += Int64(row.text.utf8.count) * (row.step == 0 ? -1 : 1)
        if textBytes >= Self.held { try write(database: database, selected: nil) }
    }

    private static let pending = MultiRowInsert(
        "INSERT INTO temp.entry_index_rows (step, row_id, text, kind, session)", row: "(?, ?, ?, ?, ?)"
    )

    private static let direct = MultiRowInsert(
        "INSERT INTO entries_fts (entries_fts, rowid, text, kind, session)", row: "(?, ?, ?, ?, ?)", oneRowEach: true
    )

    /// Writes the rows gathered, and those of `selected` (read from their events, `selectedBytes`
    /// the bytes of their texts), in the order of their rowids; forgets the rows gathered.
    mutating func write(database: Database, selected: SelectedSingles?, selectedBytes: Int64 = 0) throws {
        defer {
            rows.removeAll(keepingCapacity: true)
            textBytes = 0
            indexedBytesChange = 0
        }
        if let selected {
            indexedBytesChange += selectedBytes
            try writeMerged(with: selected, database: database)
        } else if !rows.isEmpty {
            rows.sort { ($0.rowID, $0.step) < ($1.rowID, $1.step) }
            try Self.direct.write(rows, database: database) { row, statement, first in
                try Self.bind(row, step: row.step == 0 ? .text("delete") : .null, to: statement, at: first)
            }
        }
        if indexedBytesChange != 0 {
            try database.run(
                "INSERT INTO counters (name, value) VALUES ('\(Self.indexedTextBytes)', ?1) ON CONFLICT (name) DO UPDATE SET value = value + ?1",
                [indexedBytesChange]
            )
        }
    }

    /// Binds `step` and a row's columns from parameter `first` on.
    private static func bind(_ row: Row, step: DatabaseValue, to statement: Statement, at first: Int32) throws {
        try statement.bind(step, at: first)
        try statement.bind(.integer(row.rowID), at: first + 1)
        try statement.bind(.text(row.text), at: first + 2)
        try statement.bind(.text(MirrorStore.kindToken(row.kind)), at: first + 3)
        try statement.bind(.text("s\(row.sessionNo)"), at: first + 4)
    }

    /// Writes the rows gathered with those of `selected` by one statement, which orders them all.
    private func writeMerged(with selected: SelectedSingles, database: Database) throws {
        var sources: [String] = []
        if !rows.isEmpty {
            // Gathered in a table of this connection, so that one statement merges them with the singles'.
            try database.execute(
                """
                CREATE TEMP TABLE IF NOT EXISTS entry_index_rows (
                    row_id INTEGER NOT NULL, step INTEGER NOT NULL, text TEXT NOT NULL, kind TEXT NOT NULL, session TEXT NOT NULL,
                    PRIMARY KEY (row_id, step)) WITHOUT ROWID
                """
            )
            try Self.pending.write(rows, database: database) { row, statement, first in
                try Self.bind(row, step: .integer(row.step), to: statement, at: first)
            }
            sources.append("SELECT row_id, step, text, kind, session FROM temp.entry_index_rows")
        }
        sources.append("SELECT event_id AS row_id, 1 AS step, text, 'k' || hex(kind) AS kind, 's' || session_no AS session \(selected.rows)")
        try database.run(
            """
            INSERT INTO entries_fts (entries_fts, rowid, text, kind, session)
            SELECT CASE step WHEN 0 THEN 'delete' END, row_id, text, kind, session
            FROM (\(sources.joined(separator: " UNION ALL "))) ORDER BY row_id, step
            """,
            [0] + selected.arguments
        )
        if !rows.isEmpty { try database.execute("DELETE FROM temp.entry_index_rows") }
    }
}

/// The single events of a derivation (every event with text that is not a chunk of a message),
/// whose entries and rows in the index are written in bulk when it finishes.
enum SingleEvents {
    /// Read from `events` by SQL.
    case selected(SelectedSingles)
    /// At hand (`EventsInHand`): written from their texts.
    case inHand([SingleEvent])
}

/// The single events `condition` admits, its parameters numbered from `?2` on, whose entries and
/// rows in the index are written straight from the events, by SQL.
struct SelectedSingles {
    var condition: String
    var arguments: [Int64]

    /// `FROM` and `WHERE` of a statement reading them.
    var rows: String { "FROM events WHERE \(condition) AND text <> '' AND NOT \(EntryWriter.isChunkSQL)" }
}

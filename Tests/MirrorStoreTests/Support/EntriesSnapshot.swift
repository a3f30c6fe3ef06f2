@testable import MirrorStore
import Testing

/// Every entry of a mirror (but when its row was written), every token its index holds, by row,
/// and the bytes of text it holds: what a rebuild of the entries must leave as it found it.
struct EntriesSnapshot: Equatable {
    var entries: [String]
    var tokens: [String]
    var indexedTextBytes: Int64

    init(_ store: MirrorStore) throws {
        try store.database.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.entries_vocabulary USING fts5vocab(main, entries_fts, instance)")
        entries = try store.database.query(
            """
            SELECT entry_id || ' ' || session_no || ' ' || kind || ' ' || origin || ' ' || first_ordinal || ' ' || last_ordinal
                   || ' ' || last_event_id || ' ' || events || ' ' || length || ' ' || open || ' ' || (indexed_events = events) || ' '
                   || coalesce(text_hash, 'NULL') || ' ' || coalesce(ts, 'NULL')
            FROM entries
            UNION ALL
            SELECT 'single ' || event_id || ' ' || length || ' ' || coalesce(text_hash, 'NULL') || ' ' || coalesce(ts, 'NULL') FROM single_entries
            ORDER BY 1
            """
        ) { $0.string(0) }
        tokens = try store.database.query(
            "SELECT term, doc, col, offset FROM temp.entries_vocabulary ORDER BY doc, col, offset"
        ) { "\($0.string(0)) \($0.int64(1)) \($0.string(2)) \($0.int64(3))" }
        indexedTextBytes = try store.indexedTextBytes()
    }
}

/// Expects the entries and the index's tokens that `store` derived as it went to be those a
/// rebuild makes, the full-text index passing FTS5's integrity check before and after.
func expectSameAsRebuilt(_ store: MirrorStore, _ label: String) throws {
    try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    let incremental = try EntriesSnapshot(store)
    try store.rebuildEntries()
    let rebuilt = try EntriesSnapshot(store)
    #expect(rebuilt.entries == incremental.entries, "\(label): entries")
    #expect(rebuilt.tokens == incremental.tokens, "\(label): the index's tokens")
    try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
}

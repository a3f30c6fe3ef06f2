/// The rows of `entries_fts`, the full-text index of the entries: contentless, so a row is
/// deleted by giving the text it was made from.
enum EntryIndex {
    static func insert(rowID: Int64, text: String, kind: String, sessionNo: Int64, database: Database) throws {
        try database.run(
            "INSERT INTO entries_fts (rowid, text, kind, session) VALUES (?1, ?2, ?3, ?4)",
            [rowID, text, MirrorStore.kindToken(kind), "s\(sessionNo)"]
        )
    }

    /// Deletes the row `rowID`, made from `text` (FTS5 removes the tokens of the text given: any
    /// other text would leave the row's own in the index).
    static func delete(rowID: Int64, text: String, kind: String, sessionNo: Int64, database: Database) throws {
        try database.run(
            "INSERT INTO entries_fts (entries_fts, rowid, text, kind, session) VALUES ('delete', ?1, ?2, ?3, ?4)",
            [rowID, text, MirrorStore.kindToken(kind), "s\(sessionNo)"]
        )
    }

    /// The hash that groups entries restating one text: of the kind and the text.
    static func textHash(kind: String, text: String) -> Int64 {
        var hasher = ContentHash.Hasher()
        hasher.combine(kind.utf8)
        hasher.combine(CollectionOfOne(0))
        hasher.combine(text.utf8)
        return hasher.value
    }
}

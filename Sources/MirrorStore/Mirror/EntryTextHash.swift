import CSQLite

/// The hash that groups entries restating one text, of the kind and the text; also as the SQL
/// function `oa_text_hash(kind, text)`, so that the entries of single events are written by one
/// `INSERT … SELECT` rather than a statement each.
enum EntryTextHash {
    static func hash(kind: String, text: String) -> Int64 {
        var hasher = ContentHash.Hasher()
        hasher.combine(kind.utf8)
        hasher.combine(CollectionOfOne(0))
        hasher.combine(text.utf8)
        return hasher.value
    }

    static let functionName = "oa_text_hash"

    /// Registers `oa_text_hash` on the connection (once per connection).
    static func register(on database: Database) throws(SQLiteError) {
        let code = sqlite3_create_function_v2(
            database.handle, functionName, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, values in
                sqlite3_result_int64(context, EntryTextHash.hash(values?[0], values?[1]))
            }, nil, nil, nil
        )
        guard code == SQLITE_OK else {
            throw SQLiteError(extendedCode: code, message: "cannot register \(functionName)", sql: nil)
        }
    }

    /// The hash of two text values, as `hash(kind:text:)` makes it of the strings they hold.
    private static func hash(_ kind: OpaquePointer?, _ text: OpaquePointer?) -> Int64 {
        var hasher = ContentHash.Hasher()
        hasher.combine(bytes(of: kind))
        hasher.combine(CollectionOfOne(0))
        hasher.combine(bytes(of: text))
        return hasher.value
    }

    private static func bytes(of value: OpaquePointer?) -> UnsafeRawBufferPointer {
        guard let text = sqlite3_value_text(value) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    }
}

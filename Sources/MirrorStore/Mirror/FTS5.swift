import CSQLite

/// The connection's FTS5 extension API, through which auxiliary functions are registered and the
/// index's tokenizer is found.
enum FTS5 {
    /// The `fts5_api` of `database`'s connection; valid as long as the connection is open.
    static func api(of database: Database) throws(SQLiteError) -> UnsafeMutablePointer<fts5_api> {
        var api: UnsafeMutablePointer<fts5_api>?
        let statement = try Statement(database: database, sql: "SELECT fts5(?1)")
        let code = withUnsafeMutablePointer(to: &api) { slot in
            "fts5_api_ptr".withCString { type in
                sqlite3_bind_pointer(statement.handle, 1, slot, type, nil)
                return sqlite3_step(statement.handle)
            }
        }
        guard code == SQLITE_ROW, let api else {
            throw SQLiteError(extendedCode: code == SQLITE_ROW ? SQLITE_ERROR : code, message: "FTS5 is not available", sql: "SELECT fts5(?1)")
        }
        return api
    }
}

import CSQLite

/// A prepared statement of one `Database`.
///
/// Bind parameters (1-based, as in SQLite), then `step()` through the rows. A statement is reset
/// and its bindings cleared by `reset()`, which `Database` does before handing out a cached one.
/// Not thread-safe: it belongs to its database's owner.
public final class Statement {
    let handle: OpaquePointer
    /// The SQL text this statement was prepared from.
    public let sql: String
    /// The connection, for error messages. `sqlite3_close_v2` keeps it alive until every statement is finalized.
    private let connection: OpaquePointer

    init(database: Database, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(connection: database.handle, resultCode: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = database.handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears the previous run: the statement can be bound and stepped again.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [any DatabaseValueConvertible]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            try bind(value.databaseValue, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    public func bind(_ value: DatabaseValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(var text):
            code = text.withUTF8 { bindText(UnsafeRawBufferPointer($0), at: index) }
        case .textBytes(let bytes):
            code = bytes.withUnsafeBytes { bindText($0, at: index) }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), csqlite_transient())
            }
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: connection, resultCode: code, sql: sql)
        }
    }

    /// Binds UTF-8 bytes as text that SQLite reads in place, without a copy: they must stay valid
    /// and unchanged until the statement is reset. An empty buffer binds '' (not NULL).
    func bindText(borrowing bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
        let code: Int32
        if let base = bytes.baseAddress, !bytes.isEmpty {
            code = sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        } else {
            code = bindEmptyText(at: index)
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: connection, resultCode: code, sql: sql)
        }
    }

    /// Binds a string constant as text, read in place (it lives as long as the program).
    func bindText(borrowing text: StaticString, at index: Int32) throws(SQLiteError) {
        try bindText(borrowing: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), at: index)
    }

    /// Binds UTF-8 bytes as text, copied by SQLite; an empty buffer binds '' (not NULL).
    private func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return bindEmptyText(at: index)
        }
        return sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), csqlite_transient())
    }

    /// Binds '' (not NULL), from a constant that lives as long as the program.
    private func bindEmptyText(at index: Int32) -> Int32 {
        let empty: StaticString = ""
        return empty.utf8Start.withMemoryRebound(to: CChar.self, capacity: 1) { sqlite3_bind_text(handle, index, $0, 0, nil) }
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError(connection: connection, resultCode: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    public func run() throws(SQLiteError) {
        while try step() {}
    }

    /// The current row; valid until the next `step()` or `reset()`.
    public var row: Row { Row(handle: handle) }
}

/// A read-only view of a statement's current row. Columns are 0-based.
public struct Row {
    let handle: OpaquePointer

    /// True when the column holds NULL.
    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    public func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    public func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    public func int(_ column: Int32) -> Int {
        Int(int64(column))
    }

    public func bool(_ column: Int32) -> Bool {
        int64(column) != 0
    }

    /// The column as a String (NULL reads as ""); invalid UTF-8 is repaired.
    public func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func optionalString(_ column: Int32) -> String? {
        isNull(column) ? nil : string(column)
    }

    /// Calls `body` with the column's bytes exactly as stored (text or blob), read in place: the
    /// buffer is valid during the call only.
    public func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// The column's bytes exactly as stored (text or blob).
    public func bytes(_ column: Int32) -> [UInt8] {
        withBytes(column) { Array($0) }
    }
}

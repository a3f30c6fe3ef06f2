import CSQLite

/// An error reported by SQLite, with everything needed to understand it: the primary and
/// extended result codes, SQLite's message, and the SQL that failed (when there was one).
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_IOERR_WRITE`, …).
    public let extendedCode: Int32
    /// SQLite's message for the failure.
    public let message: String
    /// The statement that failed, if the failure came from one.
    public let sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_FULL`, `SQLITE_NOTADB`, …).
    public var code: Int32 { extendedCode & 0xFF }

    /// SQLite's name for the result code, as `sqlite3_errstr` spells it.
    public var codeDescription: String { String(cString: sqlite3_errstr(extendedCode)) }

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the last error of `connection`.
    init(connection: OpaquePointer?, resultCode: Int32, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(
            extendedCode: connection.map { sqlite3_extended_errcode($0) } ?? resultCode,
            message: message ?? String(cString: sqlite3_errstr(resultCode)),
            sql: sql
        )
    }

    public var description: String {
        var text = "SQLite error \(extendedCode) (\(codeDescription)): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    /// True when the database or its disk is full.
    public var isDiskFull: Bool { code == SQLITE_FULL }
    /// True when another connection holds the lock SQLite waited for (busy or locked).
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// True when the database cannot be written (a read-only file or directory, a read-only open).
    public var isReadOnly: Bool { code == SQLITE_READONLY }
    /// True when the file is damaged (or is not a database at all).
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    /// True for a constraint violation (unique, foreign key, check, not null).
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
}

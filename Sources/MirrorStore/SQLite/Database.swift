import CSQLite
import Primitives

/// One connection to a SQLite database file.
///
/// Opens with a busy timeout and foreign keys on; `enableWriteAheadLogging()` adds WAL. Statements
/// prepared through `cachedStatement(_:)` are kept for the life of the connection. Writes go
/// through `writeTransaction(_:)` (`BEGIN IMMEDIATE`: one writer at a time, and never a deadlock
/// when a reader later wants to write); multi-statement reads through `readTransaction(_:)`, which
/// sees one consistent snapshot while other connections commit.
///
/// A `Database` is not thread-safe: one task or actor owns it.
public final class Database {
    /// How a connection may use its file.
    public enum AccessMode: Sendable {
        /// Read and write; creates the file when missing.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
    }

    let handle: OpaquePointer
    /// The file this connection opened.
    public let path: String
    private var statementCache: [String: Statement] = [:]
    private var savepointDepth = 0

    /// Opens (and, read-write, creates) the database at `path`.
    ///
    /// - Parameter busyTimeout: how long to wait for another connection's lock before failing
    ///   with `SQLITE_BUSY`.
    public init(path: String, mode: AccessMode = .readWrite, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        _ = Self.sqliteConfigured
        var handle: OpaquePointer?
        let access = mode == .readWrite ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, resultCode: code)
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: error.extendedCode, message: "cannot open \(path): \(error.message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout.milliseconds))
        // Read the file before anything else: a file that is not a database fails here, untouched.
        try execute("PRAGMA schema_version")
        try execute("PRAGMA foreign_keys = ON")
        // Statement journals and sorts in memory: a file per statement is the slowest part of a
        // write otherwise.
        try execute("PRAGMA temp_store = MEMORY")
    }

    /// Configures SQLite for the process, once, before its first connection: without statistics
    /// of its memory, whose process-wide mutex every allocation and free took. False when SQLite
    /// was in use before (it then keeps them).
    private static let sqliteConfigured = csqlite_disable_memory_statistics() == SQLITE_OK

    /// Switches the file to write-ahead logging with `synchronous=NORMAL`: readers are never
    /// blocked by the writer, and a commit survives a crash of the process (not of the machine).
    /// This writes the file's header, so callers first check that the file is theirs.
    ///
    /// - Parameter pageSizeIfNew: the size of the file's pages when the file is new (empty); a
    ///   file that holds a database keeps its own (a database in WAL mode cannot change it).
    public func enableWriteAheadLogging(pageSizeIfNew: Int = 4096) throws {
        try execute("PRAGMA page_size = \(pageSizeIfNew)")
        guard try queryFirst("PRAGMA journal_mode = WAL", [], { $0.string(0) }) == "wal" else {
            throw SQLiteError(extendedCode: 1, message: "\(path) cannot use write-ahead logging", sql: "PRAGMA journal_mode = WAL")
        }
        try execute("PRAGMA synchronous = NORMAL")
        try execute("PRAGMA wal_autocheckpoint = \(Self.walCheckpointBytes / pageSize())")
    }

    /// The size of the file's pages in bytes: what SQLite counts the log and its checkpoints in.
    public func pageSize() throws -> Int {
        max(512, Int(try scalarInt64("PRAGMA page_size") ?? 4096))
    }

    /// How large the write-ahead log grows before a commit copies it into the database (SQLite's
    /// automatic checkpoint, counted in pages: this many bytes whatever the page size).
    static let walCheckpointBytes = 64 << 20

    /// Calls `hook` with the table's name whenever this connection inserts, updates or deletes a
    /// row of a rowid table (SQLite's update hook), inside the statement doing it; nil removes it.
    public func setUpdateHook(_ hook: ((_ table: String) -> Void)?) {
        updateHook = hook.map(UpdateHook.init)
        guard let updateHook else {
            sqlite3_update_hook(handle, nil, nil)
            return
        }
        sqlite3_update_hook(handle, { context, _, _, table, _ in
            guard let context, let table else { return }
            Unmanaged<UpdateHook>.fromOpaque(context).takeUnretainedValue().call(String(cString: table))
        }, Unmanaged.passUnretained(updateHook).toOpaque())
    }

    /// Keeps the update hook's closure alive while SQLite holds a pointer to it.
    private final class UpdateHook {
        let call: (String) -> Void

        init(_ call: @escaping (String) -> Void) {
            self.call = call
        }
    }

    private var updateHook: UpdateHook?

    /// Calls `observer` after each commit of this connection with the size of the whole
    /// write-ahead log in pages (SQLite's WAL hook; it falls only when the log starts over), on the
    /// committing thread; nil removes it. The automatic checkpoint, which SQLite runs from the same
    /// hook, still runs after the observer, at the threshold `PRAGMA wal_autocheckpoint` had when
    /// the first observer was set (the pragma reads 0 while one is). Setting that pragma while an
    /// observer is set replaces the observer.
    public func observeCommits(_ observer: ((_ walPages: Int) -> Void)?) throws {
        // Once a hook of this connection's is set, the pragma reads 0: the threshold is kept here.
        let automaticPages: Int32
        if let commitObserver {
            automaticPages = commitObserver.automaticCheckpointPages
        } else {
            let configured = try scalarInt64("PRAGMA wal_autocheckpoint")
            automaticPages = Int32(clamping: configured ?? 0)
        }
        commitObserver = observer.map { CommitObserver(call: $0, automaticCheckpointPages: automaticPages) }
        guard let commitObserver else {
            sqlite3_wal_autocheckpoint(handle, automaticPages)
            return
        }
        sqlite3_wal_hook(handle, { context, connection, schema, pages in
            guard let context else { return SQLITE_OK }
            let observer = Unmanaged<CommitObserver>.fromOpaque(context).takeUnretainedValue()
            observer.call(Int(pages))
            if observer.automaticCheckpointPages > 0, pages >= observer.automaticCheckpointPages {
                // What SQLite's own hook does, which this one replaces; its failure is the next one's to find.
                _ = sqlite3_wal_checkpoint(connection, schema)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(commitObserver).toOpaque())
    }

    private final class CommitObserver {
        let call: (Int) -> Void
        let automaticCheckpointPages: Int32

        init(call: @escaping (Int) -> Void, automaticCheckpointPages: Int32) {
            self.call = call
            self.automaticCheckpointPages = automaticCheckpointPages
        }
    }

    private var commitObserver: CommitObserver?

    /// Sets how much memory SQLite may keep for this connection's page cache.
    public func setPageCacheSize(kibibytes: Int) throws(SQLiteError) {
        try execute("PRAGMA cache_size = -\(kibibytes)")
    }

    deinit {
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_wal_hook(handle, nil, nil)
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements separated by semicolons, ignoring any rows they return.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw SQLiteError(
                extendedCode: sqlite3_extended_errcode(handle),
                message: text ?? String(cString: sqlite3_errstr(code)),
                sql: sql
            )
        }
    }

    /// The most prepared statements a connection keeps for reuse: many times the texts of SQL the
    /// programs run, so that one built from its data (a list of ids) cannot grow the cache with
    /// every new list.
    static let statementCacheLimit = 256

    /// A prepared statement for `sql`, kept for reuse: reset and with its bindings cleared. Past
    /// `statementCacheLimit` statements the cache starts again (a statement handed out lives on
    /// while its user holds it).
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        if statementCache.count >= Self.statementCacheLimit { statementCache.removeAll(keepingCapacity: true) }
        statementCache[sql] = statement
        return statement
    }

    /// Runs a statement with `arguments` bound to its parameters.
    public func run(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        try statement.run()
    }

    /// Runs a query and maps each row.
    public func query<T>(
        _ sql: String,
        _ arguments: [any DatabaseValueConvertible] = [],
        _ map: (Row) throws -> T
    ) throws -> [T] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var results: [T] = []
        while try statement.step() {
            results.append(try map(statement.row))
        }
        return results
    }

    /// Runs a query and hands each row to `body` while it returns true: the rows after the one it
    /// returned false for are not read (a page that stops at a byte budget, say).
    public func forEachRow(
        _ sql: String,
        _ arguments: [any DatabaseValueConvertible] = [],
        _ body: (Row) throws -> Bool
    ) throws {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step(), try body(statement.row) {}
    }

    /// Runs a query and maps its first row, if any.
    public func queryFirst<T>(
        _ sql: String,
        _ arguments: [any DatabaseValueConvertible] = [],
        _ map: (Row) throws -> T
    ) throws -> T? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try statement.step() ? map(statement.row) : nil
    }

    /// The integer in the first column of the first row (nil when there is no row or it is NULL).
    public func scalarInt64(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws -> Int64? {
        try queryFirst(sql, arguments) { $0.optionalInt64(0) } ?? nil
    }

    /// The rowid of the last row inserted by this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rows this connection's statements inserted, changed or deleted since it opened.
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`) and commits it; rolls back when it
    /// throws. Inside another write transaction, runs as a savepoint of it; inside a read
    /// transaction, fails (`SQLITE_MISUSE`): a read snapshot cannot become a write.
    ///
    /// An error thrown inside `body` must reach this method: catching it in `body` and going on
    /// could write outside the transaction if SQLite had already rolled it back.
    public func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(.write, body)
    }

    /// Runs `body` in a read transaction: every statement inside sees the same snapshot. Inside
    /// another transaction, simply runs `body` in it.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(.read, body)
    }

    private enum TransactionKind {
        case read
        case write
    }

    /// The kind of the outermost transaction this connection opened, while it is open.
    private var openTransaction: TransactionKind?

    private func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        if let outer = openTransaction {
            guard kind == .write else { return try body() }
            guard outer == .write else {
                throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "a write cannot run inside a read transaction")
            }
            return try savepoint(body)
        }
        try execute(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        openTransaction = kind
        defer { openTransaction = nil }
        do {
            let result = try body()
            try ensureStillInTransaction()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        let name = "nested_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE \(name)")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK TO \(name); RELEASE \(name)") }
            throw error
        }
    }

    /// Fails when SQLite rolled the transaction back by itself (after some I/O or memory errors).
    private func ensureStillInTransaction() throws(SQLiteError) {
        guard isInTransaction else {
            throw SQLiteError(extendedCode: SQLITE_ABORT, message: "the transaction was rolled back after an earlier error")
        }
    }
}

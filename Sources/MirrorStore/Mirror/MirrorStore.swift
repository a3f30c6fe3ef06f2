import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local mirror: one SQLite file holding sessions, timelines, threads, sync state and the
/// outbox, with the queries the sync engine and the REPL need.
///
/// Opening a mirror read-write creates the file (mode 0600) when missing and applies pending
/// migrations from `schema/`, each in its own transaction. Every write method is one transaction:
/// either all of it is in the file or none of it is. Readers in other connections or processes
/// are never blocked by it (WAL).
///
/// A `MirrorStore` is one connection and is not thread-safe: one task or actor owns it.
public final class MirrorStore {
    /// `PRAGMA application_id` of every mirror file: "OAMR".
    public static let applicationID: Int32 = 0x4F41_4D52

    /// The page size of a new mirror. Large pages cost an ingest fewer B-tree pages to split,
    /// write to the log and checkpoint (an initial sync of 1M events in about 0.8 the time of 4 KiB
    /// pages: docs/benchmarks.md); mirrors made before keep their 4 KiB pages.
    static let pageSize = 16_384

    /// The underlying connection.
    public let database: Database
    /// The mirror's file.
    public var path: String { database.path }
    /// The wall clock of the times the mirror records (a writer stamps its own records by it too).
    public let clock: MirrorClock
    /// What the last write transaction left of its open messages for the next one.
    var openMessageTexts = OpenMessageTexts()

    /// Opens the mirror at `path`, migrating it to this build's version first if it is older.
    ///
    /// - Parameter migrating: told, when a mirror made by an older build needs migrations, before
    ///   each one (how many are done, of how many) and once they all are: a migration may take
    ///   seconds on a large mirror (deriving its entries again), for a front end to say why
    ///   opening takes long.
    /// - Throws: `MirrorStoreError` when the file is not a SQLite database, not a mirror, or from a
    ///   newer version; `SQLiteError` when SQLite fails (permissions, full disk, a lock held too long).
    public convenience init(
        path: String, mode: Database.AccessMode = .readWrite, clock: MirrorClock = .system,
        migrating: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws {
        try self.init(path: path, mode: mode, clock: clock, migratingTo: Migration.latestVersion, migrating: migrating)
    }

    /// Opens the mirror and migrates it to `targetVersion` only (for tests of older versions).
    init(path: String, mode: Database.AccessMode, clock: MirrorClock, migratingTo targetVersion: Int,
         migrating: ((_ done: Int, _ total: Int) -> Void)? = nil) throws {
        if Self.isSpecialFile(path) {
            throw MirrorStoreError.notAMirror(path: path, reason: "it is not a regular file")
        }
        if mode == .readWrite {
            Self.createPrivateFileIfMissing(path)
        } else if access(path, F_OK) != 0 {
            throw MirrorStoreError.mirrorNotFound(path: path)
        }
        do {
            database = try Database(path: path, mode: mode)
        } catch where error.code == SQLITE_NOTADB {
            throw MirrorStoreError.notADatabase(path: path, underlying: error)
        }
        self.clock = clock
        let version = try checkOwnership()
        if mode == .readWrite {
            try database.enableWriteAheadLogging(pageSizeIfNew: Self.pageSize)
        }
        try database.setPageCacheSize(kibibytes: PageCacheBudget.catchUp.kibibytes)
        try SearchRank.register(on: database)
        try EntryTextHash.register(on: database)
        if mode == .readOnly {
            try mapForReading()
        }
        if version < targetVersion {
            guard mode == .readWrite else {
                throw MirrorStoreError.schemaTooOld(path: path, found: version, required: targetVersion)
            }
            // A new file's migrations make it; only an existing mirror's are worth telling.
            try migrate(from: version, to: targetVersion, reporting: version > 0 ? migrating : nil)
        }
    }

    /// Reads the file through a memory map (up to 1 GiB) rather than a system call per page: for
    /// connections that mostly read. Events lie in the order they arrived, so a long timeline is
    /// read from thousands of pages; mapped, they are read in place instead of being copied in.
    /// (The writer of a long sync does without: the pages it touches would count as its memory.)
    public func mapForReading() throws {
        try database.execute("PRAGMA mmap_size = 1073741824")
    }

    /// The schema version recorded in the file.
    public func schemaVersion() throws -> Int {
        Int(try database.scalarInt64("PRAGMA user_version") ?? 0)
    }

    /// Checks that the file is an empty database or a mirror this build can read; returns its version.
    ///
    /// Its reads share one snapshot: a mirror that another process is creating meanwhile is seen
    /// before its first migration or after it, never as tables without a version (which would
    /// look like another application's).
    private func checkOwnership() throws -> Int {
        try database.readTransaction { try readOwnership() }
    }

    private func readOwnership() throws -> Int {
        let version = try schemaVersion()
        let applicationID = Int32(truncatingIfNeeded: try database.scalarInt64("PRAGMA application_id") ?? 0)
        if applicationID != 0 && applicationID != Self.applicationID {
            throw MirrorStoreError.notAMirror(path: path, reason: "it belongs to another application (application_id \(applicationID))")
        }
        if applicationID == 0 {
            let tables = try database.query(
                "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 3"
            ) { $0.string(0) }
            if version != 0 || !tables.isEmpty {
                let listed = tables.isEmpty ? "" : " (it has \(tables.joined(separator: ", ")))"
                throw MirrorStoreError.notAMirror(path: path, reason: "it holds another application's tables\(listed)")
            }
        }
        if version > Migration.latestVersion {
            throw MirrorStoreError.schemaTooNew(path: path, found: version, supported: Migration.latestVersion)
        }
        return version
    }

    /// Applies the pending migrations up to `targetVersion`, each in its own transaction.
    ///
    /// Foreign keys are off while they run, as SQLite's recipe for rebuilding a table requires
    /// (dropping a parent table would otherwise cascade), and checked before each commits.
    private func migrate(from version: Int, to targetVersion: Int, reporting report: ((_ done: Int, _ total: Int) -> Void)?) throws {
        try database.execute("PRAGMA foreign_keys = OFF")
        defer { try? database.execute("PRAGMA foreign_keys = ON") }
        let pending = Migration.all.filter { $0.version > version && $0.version <= targetVersion }
        for (done, migration) in pending.enumerated() {
            report?(done, pending.count)
            try database.writeTransaction {
                // Another process may have migrated while this one waited for the lock.
                guard try schemaVersion() < migration.version else { return }
                try database.execute(migration.sql)
                try completeMigration(to: migration.version)
                let violations = try database.query("PRAGMA foreign_key_check") { $0.string(0) }
                if let table = violations.first {
                    throw MirrorStoreError.migrationFailed(
                        path: path, version: migration.version,
                        reason: "\(violations.count) rows of \(table) would refer to rows that do not exist"
                    )
                }
                try database.execute("PRAGMA user_version = \(migration.version)")
                try database.execute("PRAGMA application_id = \(Self.applicationID)")
            }
        }
        report?(pending.count, pending.count)
    }

    /// Does what a migration needs besides its SQL, with the store's own code: the entries of the
    /// conversation are derived from the events a mirror made before them holds. That code writes
    /// the tables of this build, not those of the version that introduced entries: the migration
    /// to that version marks them pending (`entries_pending`, in its transaction), and the one to
    /// the latest derives them, however many opens the migrations between took.
    private func completeMigration(to version: Int) throws {
        if version == Self.entriesVersion {
            try database.execute("INSERT OR REPLACE INTO counters (name, value) VALUES ('\(Self.entriesPending)', 1)")
        }
        if version == Migration.latestVersion,
           try database.scalarInt64("SELECT value FROM counters WHERE name = '\(Self.entriesPending)'") != nil {
            try rebuildEntriesInTransaction()
            try database.execute("DELETE FROM counters WHERE name = '\(Self.entriesPending)'")
        }
    }

    /// The counter that says the entries wait to be derived by the last migration.
    private static let entriesPending = "entries_pending"

    /// The version that introduced the entries (`schema/0012_entries.sql`).
    static let entriesVersion = 12

    /// Whether `path` exists and is not a regular file (a directory, a device, a pipe).
    private static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) != S_IFREG
    }

    /// Creates an empty file readable by its owner only, so that SQLite (and its -wal and -shm
    /// files, which copy the mode) never exposes the mirror to other users. A symbolic link to a
    /// file not yet there is followed: its target is created so. An existing file is left as it is.
    private static func createPrivateFileIfMissing(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    /// A number that changes whenever another connection commits to the mirror
    /// (`PRAGMA data_version`): a cheap way to notice other processes' writes.
    public func dataVersion() throws -> Int64 {
        try database.scalarInt64("PRAGMA data_version") ?? 0
    }

    /// Sets how much memory SQLite's page cache of this connection may keep from now on (a store
    /// opens with `.catchUp`'s); a smaller budget than before frees the pages past it at once.
    public func usePageCache(_ budget: PageCacheBudget) throws {
        try database.setPageCacheSize(kibibytes: budget.kibibytes)
    }

    /// The most memory SQLite's page cache of this connection may keep now, in KiB.
    public func pageCacheKiB() throws -> Int {
        let size = try database.scalarInt64("PRAGMA cache_size") ?? 0
        // Negative: in KiB; positive: in pages.
        return size < 0 ? Int(-size) : Int(size) * (try database.pageSize()) / 1024
    }

    /// Gives back to the system the memory that the connection's page cache and the C allocator
    /// hold without using it: after a long catch-up, before the process waits for updates for hours.
    public func releaseMemory() throws {
        try database.execute("PRAGMA shrink_memory")
        #if canImport(Glibc)
        // glibc keeps freed memory for reuse; malloc_trim hands it back. Its header is not part of
        // the Glibc module, so it is looked up by name (RTLD_DEFAULT is a null handle).
        if let symbol = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        #endif
    }

    /// Has `checkpointer` copy the write-ahead log while this store writes: woken each time the
    /// log has grown by `checkpointerWakeBytes` since it was last woken, so that the automatic
    /// checkpoint a commit runs once the log is large finds little left to copy. The store then
    /// keeps `checkpointer` (and its thread) for as long as it lives.
    public func handCheckpoints(to checkpointer: WALCheckpointer) throws {
        var wakes = CheckpointWakes(everyPages: Self.checkpointerWakeBytes / (try database.pageSize()))
        try database.observeCommits { pages in
            if wakes.commit(leavingPages: pages) { checkpointer.wake() }
        }
    }

    /// The growth of the log that wakes the checkpointer: small commits (live updates, one at a
    /// time) wait for its next round instead of each costing the disk two syncs.
    static let checkpointerWakeBytes = 1 << 20

    /// Copies the write-ahead log into the database file and empties it, so that the file alone
    /// holds everything (for a copy or a backup). Waits for readers to finish with the log.
    ///
    /// - Throws: `MirrorStoreError.checkpointIncomplete` when another connection kept part of the
    ///   log (reading from it, or checkpointing it at the same moment); `SQLiteError`.
    public func checkpoint() throws {
        let busy = try database.queryFirst("PRAGMA wal_checkpoint(TRUNCATE)", []) { $0.int64(0) }
        if busy == 1 { throw MirrorStoreError.checkpointIncomplete(path: database.path) }
    }

    /// Runs `body` in one write transaction (inside another, as a savepoint of it).
    public func write<T>(_ body: () throws -> T) throws -> T {
        guard !database.isInTransaction else {
            do {
                return try database.writeTransaction(body)
            } catch {
                // Rolled back to the savepoint: what it took or left of the open messages' texts is no longer so.
                openMessageTexts.forget()
                throw error
            }
        }
        do {
            return try database.writeTransaction {
                openMessageTexts.begin(at: try transactionStamp())
                let result = try body()
                openMessageTexts.end(at: try transactionStamp())
                return result
            }
        } catch {
            openMessageTexts.forget()
            throw error
        }
    }

    /// The stamp of the mirror as this connection sees it inside a transaction: its own changes,
    /// and the count of other connections' commits.
    func transactionStamp() throws -> OpenMessageTexts.Stamp {
        OpenMessageTexts.Stamp(changes: database.totalChanges, dataVersion: try dataVersion())
    }

    /// Runs `body` in one read transaction: all its reads see the same snapshot.
    public func read<T>(_ body: () throws -> T) throws -> T {
        try database.readTransaction(body)
    }
}

import Foundation
import TestSupport
import Testing
import ToolSupport
@testable import MirrorStore

@Suite("Schema and migrations", .startsPrograms(endsWithin: .seconds(120)))
struct SchemaTests {
    @Test("the binary embeds exactly the files of schema/")
    func embeddedMigrationsAreTheSchemaFiles() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Repository.schemaDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        #expect(files.count >= 3)
        #expect(Migration.all.map(\.name) == files.map(\.lastPathComponent))
        for (migration, file) in zip(Migration.all, files) {
            #expect(migration.sql == (try String(contentsOf: file, encoding: .utf8)), "\(file.lastPathComponent) differs")
        }
        #expect(Migration.all.map(\.version) == Array(1...Migration.all.count))
    }

    @Test("a new mirror's schema is what the sqlite3 shell makes of schema/")
    func schemaMatchesShell() async throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("mirror.sqlite"))
        #expect(try store.schemaVersion() == Migration.latestVersion)

        let shellPath = directory.path("shell.sqlite")
        let script = Migration.all.map(\.sql).joined(separator: "\n")
        try await runShell(database: shellPath, input: script)
        let shell = try Database(path: shellPath, mode: .readOnly)
        #expect(try schemaObjects(store.database) == schemaObjects(shell))
        #expect(try schemaObjects(store.database).contains { $0.hasPrefix("table|entries_fts|") })
    }

    @Test("a new mirror has pages of 16 KiB and a log checkpointed at 64 MiB; a mirror made with 4 KiB pages keeps them")
    func pageSize() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("new.sqlite"))
        #expect(try store.database.scalarInt64("PRAGMA page_size") == 16_384)
        #expect(try store.database.scalarInt64("PRAGMA wal_autocheckpoint") == 4_096)

        let olderPath = directory.path("older.sqlite")
        let older = try Database(path: olderPath)
        try older.enableWriteAheadLogging(pageSizeIfNew: 4_096)
        try older.execute("PRAGMA application_id = \(MirrorStore.applicationID)")
        let reopened = try MirrorStore(path: olderPath)
        #expect(try reopened.database.scalarInt64("PRAGMA page_size") == 4_096)
        #expect(try reopened.database.scalarInt64("PRAGMA wal_autocheckpoint") == 16_384)
    }

    @Test("every earlier version migrates to the latest and keeps its data")
    func migratesFromEveryEarlierVersion() throws {
        for start in 0..<Migration.latestVersion {
            let directory = try TemporaryDirectory()
            let path = directory.path("mirror.sqlite")
            do {
                let old = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: start)
                #expect(try old.schemaVersion() == start)
                if start >= 12 {
                    // Version 12: the events' entries, indexed whole.
                    try old.database.execute(
                        """
                        INSERT INTO sessions (session_no, session_id, local_event_count, first_seen_at, last_seen_at)
                            VALUES (1, 's1', 1, 1, 1);
                        INSERT INTO events (event_id, session_no, ordinal, seq, kind, text, update_json, content_hash)
                            VALUES (1, 1, 0, 1, 'agent_message_chunk', 'written before the upgrade', '{}', 7);
                        INSERT OR REPLACE INTO counters (name, value) VALUES ('event_id', 1), ('search_indexed', 1);
                        INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length,
                                             open, indexed_events, indexed_at, text_hash, ts)
                            VALUES (1, 1, 'agent_message_chunk', 'server', 0, 0, 1, 1, 26, 1, 1, 1, 1, NULL);
                        INSERT INTO entries_fts (rowid, text, kind, session) VALUES (1, 'written before the upgrade', 'k', 's1');
                        """
                    )
                } else if start >= 5 {
                    // Versions 5…11: events keyed by the session's number, indexed for search by the store.
                    try old.database.execute(
                        """
                        INSERT INTO sessions (session_no, session_id, local_event_count, first_seen_at, last_seen_at)
                            VALUES (1, 's1', 1, 1, 1);
                        INSERT INTO events (event_id, session_no, ordinal, seq, kind, text, update_json, content_hash)
                            VALUES (1, 1, 0, 1, 'agent_message_chunk', 'written before the upgrade', '{}', 7);
                        INSERT INTO events_fts (rowid, text) VALUES (1, 'written before the upgrade');
                        INSERT OR REPLACE INTO counters (name, value) VALUES ('event_id', 1), ('search_indexed', 1);
                        """
                    )
                } else if start >= 1 {
                    // Versions 1…4 share the layout of sessions and events: write as they did.
                    try old.database.execute(
                        """
                        INSERT INTO sessions (session_id, local_event_count, first_seen_at, last_seen_at) VALUES ('s1', 1, 1, 1);
                        INSERT INTO events (session_id, ordinal, event_id, seq, kind, text, update_json, content_hash)
                            VALUES ('s1', 0, 1, 1, 'agent_message_chunk', 'written before the upgrade', '{}', 7);
                        INSERT INTO counters (name, value) VALUES ('event_id', 1);
                        """
                    )
                }
            }
            var reports: [[Int]] = []
            let store = try MirrorStore(path: path) { reports.append([$0, $1]) }
            #expect(try store.schemaVersion() == Migration.latestVersion)
            let steps = Migration.latestVersion - start
            #expect(reports == (start == 0 ? [] : (0...steps).map { [$0, steps] }), "an existing mirror's steps are told, from version \(start)")
            var freshReports = 0
            let fresh = try MirrorStore(path: directory.path("fresh.sqlite")) { _, _ in freshReports += 1 }
            #expect(freshReports == 0, "a new file's are not")
            #expect(try schemaObjects(store.database) == schemaObjects(fresh.database), "from version \(start)")
            if start >= 1 {
                #expect(try store.timeline(sessionID: "s1").map(\.text) == ["written before the upgrade"])
                #expect(try store.search("upgrade").count == 1, "events from version \(start) are searchable")
            }
        }
    }

    @Test("a version 17 mirror's single entries move to their own table: what it held reads and searches as a derivation's")
    func migratesSingleEntries() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        do {
            let old = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: 17)
            // A prompt written here, a message of two chunks, a tool call and a title, each entry a row of `entries`.
            try old.database.execute(
                """
                INSERT INTO sessions (session_no, session_id, local_event_count, first_seen_at, last_seen_at) VALUES (1, 's1', 5, 1, 1);
                INSERT INTO events (event_id, session_no, ordinal, seq, ts, kind, text, update_json, content_hash, origin) VALUES
                    (1, 1, 0, NULL, 10, 'user_message_chunk', 'please fix the parser', '{}', 1, 'local'),
                    (2, 1, 1, 1, 11, 'agent_message_chunk', 'Looking', '{}', 2, 'server'),
                    (3, 1, 2, 2, 12, 'agent_message_chunk', ' at the parser', '{}', 3, 'server'),
                    (4, 1, 3, 3, 13, 'tool_call', 'Read parser.swift', '{}', 4, 'server'),
                    (5, 1, 4, 4, 14, 'session_info_update', 'Parser fix', '{}', 5, 'server');
                INSERT OR REPLACE INTO counters (name, value) VALUES ('event_id', 5), ('search_indexed', 5);
                INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length,
                                     open, indexed_events, indexed_at, text_hash, ts)
                    SELECT id, 1, kind, origin, first, last, lastID, events, length(CAST(text AS BLOB)), 0, events, 1,
                           oa_text_hash(kind, text), ts
                    FROM (SELECT 1 AS id, 'user_message_chunk' AS kind, 'local' AS origin, 0 AS first, 0 AS last, 1 AS lastID, 1 AS events,
                                 'please fix the parser' AS text, 10 AS ts
                          UNION ALL SELECT 2, 'agent_message_chunk', 'server', 1, 2, 3, 2, 'Looking at the parser', 11
                          UNION ALL SELECT 4, 'tool_call', 'server', 3, 3, 4, 1, 'Read parser.swift', 13
                          UNION ALL SELECT 5, 'session_info_update', 'server', 4, 4, 5, 1, 'Parser fix', 14);
                INSERT INTO entries_fts (rowid, text, kind, session)
                    SELECT entry_id, CASE entry_id WHEN 1 THEN 'please fix the parser' WHEN 2 THEN 'Looking at the parser'
                                                   WHEN 4 THEN 'Read parser.swift' ELSE 'Parser fix' END, 'k' || hex(kind), 's1'
                    FROM entries ORDER BY entry_id;
                """
            )
        }
        let store = try MirrorStore(path: path)
        #expect(try store.database.query("SELECT event_id FROM single_entries ORDER BY event_id") { $0.int64(0) } == [1, 4, 5])
        #expect(try store.database.query("SELECT entry_id FROM entries") { $0.int64(0) } == [2])
        #expect(try store.search("parser").map(\.eventID).sorted() == [1, 2, 4, 5])
        #expect(try store.search("parser", filter: SearchFilter(kind: "tool_call")).map(\.eventID) == [4])
        #expect(try store.agentTitle(sessionID: "s1") == "Parser fix")
        #expect(try store.promptSpans(sessionID: "s1", limit: 5).map { [$0.first, $0.last] } == [[0, 0]])
        #expect(try store.hasEntries(sessionID: "s1"))
        let budget = MirrorStore.SpanBudget(entries: 2, bytes: 1 << 20)
        #expect(try store.conversationSpan(sessionID: "s1", from: 0, budget: budget) == (0, 2))
        #expect(try store.conversationSpan(sessionID: "s1", from: 2, budget: budget) == (1, 3))
        #expect(try store.conversationSpanStart(sessionID: "s1", before: 3, budget: budget) == 0)
        let migrated = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == migrated)
    }

    @Test("a version 16 mirror's status keys become one record per desktop, names with ':' and one the prefix of another too; the keys go")
    func migratesStatusKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        do {
            let old = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: 16)
            try old.database.execute(
                """
                INSERT INTO sync_status (key, value, updated_at) VALUES
                    ('bridge_url', 'ws://127.0.0.1:4000', 30), ('connection_state', 'live', 30), ('events', '12', 30),
                    ('desktop:127.0.0.1:bridge_url', 'ws://127.0.0.1:9099', 10), ('desktop:127.0.0.1:connection_state', 'offline', 11),
                    ('desktop:127.0.0.1:last_success_at', '9', 9), ('desktop:127.0.0.1:last_error', 'gone away', 12),
                    ('desktop:127.0.0.1:last_error_at', '12', 12),
                    ('desktop:127.0.0.1:4000:bridge_url', 'ws://127.0.0.1:4000', 20), ('desktop:127.0.0.1:4000:connection_state', 'live', 30)
                """
            )
        }
        let store = try MirrorStore(path: path)
        #expect(try store.desktopStatuses() == [
            DesktopSyncStatus(desktop: "127.0.0.1:4000", bridgeURL: "ws://127.0.0.1:4000", connectionState: .live, stateSince: 30,
                              lastSuccessAt: nil, lastError: nil, lastErrorAt: nil, updatedAt: 30),
            DesktopSyncStatus(desktop: "127.0.0.1", bridgeURL: "ws://127.0.0.1:9099", connectionState: .offline, stateSince: 11,
                              lastSuccessAt: 9, lastError: "gone away", lastErrorAt: 12, updatedAt: 12),
        ])
        #expect(try store.database.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'sync_status'") == 0)
    }

    @Test("a version 4 mirror becomes append-ordered in place, with everything it held")
    func migratesVersion4Mirror() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        do {
            let old = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: 4)
            // What a release with schema 4 writes: sessions from the bridge and one made offline,
            // interleaved timelines, a provisional and a local event, a prompt with its echo, cursors.
            var sql = "INSERT INTO sessions (session_id, origin, title, mode, last_ts, server_event_count, local_event_count, first_seen_at, last_seen_at) VALUES "
                + "('A', 'server', 'first', 'codex', 500, 3, 3, 10, 20), ('B', 'server', NULL, NULL, 400, 2, 2, 11, 21), "
                + "('LOCAL-1', 'local', NULL, NULL, 30, NULL, 1, 12, 22);\n"
            let rows: [(session: String, ordinal: Int, id: Int, seq: String, text: String, provisional: Int, origin: String)] = [
                ("A", 0, 1, "1", "alpha one", 0, "server"), ("B", 0, 2, "2", "bravo one", 0, "server"),
                ("A", 1, 3, "3", "alpha two", 0, "server"), ("B", 1, 4, "NULL", "bravo live", 1, "server"),
                ("A", 2, 6, "NULL", "my prompt", 0, "local"), ("LOCAL-1", 0, 7, "NULL", "offline prompt", 0, "local"),
            ]
            for row in rows {
                sql += "INSERT INTO events (session_id, ordinal, event_id, seq, ts, kind, text, update_json, content_hash, provisional, origin) "
                    + "VALUES ('\(row.session)', \(row.ordinal), \(row.id), \(row.seq), \(row.id * 100), 'agent_message_chunk', "
                    + "'\(row.text)', '{\"n\":\(row.id)}', \(row.id * 11), \(row.provisional), '\(row.origin)');\n"
            }
            sql += """
                INSERT INTO counters (name, value) VALUES ('event_id', 7);
                INSERT INTO sync_cursors (scope, seq, updated_at) VALUES ('changes', 3, 5);
                INSERT INTO outbox (session_id, text, client_message_id, state, local_event_id, created_at, updated_at)
                    VALUES ('A', 'my prompt', 'c-1', 'sent', 6, 1, 1), ('LOCAL-1', 'offline prompt', 'c-2', 'queued', 7, 2, 2);
                """
            try old.database.execute(sql)
        }
        let store = try MirrorStore(path: path)
        #expect(try store.schemaVersion() == Migration.latestVersion)
        #expect(try store.timeline(sessionID: "A").map(\.text) == ["alpha one", "alpha two", "my prompt"])
        #expect(try store.timeline(sessionID: "A").map(\.eventID) == [1, 3, 6])
        #expect(try store.timeline(sessionID: "A").map(\.origin) == [.server, .server, .local])
        #expect(try store.timeline(sessionID: "B").map(\.provisional) == [false, true])
        #expect(try store.timeline(sessionID: "B").first?.updateJSON == Array(#"{"n":2}"#.utf8))
        #expect(try store.hasProvisionalEvents(sessionID: "B"))
        #expect(try store.session(id: "A")?.title == "first")
        #expect(try store.session(id: "LOCAL-1")?.origin == .local)
        #expect(try store.historyCursor() == 3)
        #expect(try store.outboxItems().map(\.localEventID) == [6, 7])
        // One message: consecutive chunks of one kind and origin.
        #expect(try store.search("alpha").map { [$0.eventID, $0.ordinal, $0.lastOrdinal] } == [[1, 0, 1]])
        #expect(try store.counts().events == 6)
        try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try store.database.query("PRAGMA foreign_key_check") { $0.string(0) }.isEmpty)

        // Writing goes on where the old mirror stopped: new ids, next ordinals, the cursor.
        try store.appendEvents([messageEvent("A", seq: 4, text: "alpha three"), messageEvent("C", seq: 5, text: "charlie")])
        #expect(try store.timeline(sessionID: "A").map(\.ordinal) == [0, 1, 2, 3])
        #expect(try store.timeline(sessionID: "A").last?.eventID == 8)
        #expect(try store.historyCursor() == 5)
        #expect(try store.search("alpha").count == 2, "after the local prompt, a message of its own")
        try store.remapSession(localID: "LOCAL-1", to: "SERVER-1")
        #expect(try store.timeline(sessionID: "SERVER-1").map(\.text) == ["offline prompt"])
        #expect(try store.outboxItems().last?.sessionID == "SERVER-1")
    }

    @Test("reopening keeps everything")
    func reopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        do {
            let store = try MirrorStore(path: path)
            try store.appendEvents([messageEvent("s1", seq: 1, text: "one"), messageEvent("s1", seq: 2, text: "two")],
                                   advancingHistoryCursorTo: 2)
            try store.recordStatus(.state(.live), desktop: "laptop", bridgeURL: "ws://127.0.0.1:9099")
        }
        let store = try MirrorStore(path: path)
        #expect(try store.timeline(sessionID: "s1").map(\.text) == ["one", "two"])
        #expect(try store.historyCursor() == 2)
        #expect(try store.desktopStatuses().map(\.connectionState) == [.live])
    }

    @Test("a mirror from a newer version is refused, untouched")
    func newerSchemaIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        do {
            let store = try MirrorStore(path: path)
            try store.database.execute("PRAGMA user_version = \(Migration.latestVersion + 1)")
        }
        let error = try #require(throws: MirrorStoreError.self) { try MirrorStore(path: path) }
        #expect(error == .schemaTooNew(path: path, found: Migration.latestVersion + 1, supported: Migration.latestVersion))
        #expect(error.description.contains("newer"))
        let database = try Database(path: path, mode: .readOnly)
        #expect(try database.scalarInt64("PRAGMA user_version") == Int64(Migration.latestVersion + 1))
    }

    @Test("a link to a mirror not there yet makes its target, readable by its owner only")
    func linkToNewMirror() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.sqlite")
        _ = try MirrorStore(path: link)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path("target.sqlite"))
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.sqlite")
    }

    @Test("a directory, a device or a pipe is refused, untouched")
    func specialFiles() throws {
        let directory = try TemporaryDirectory()
        let pipe = directory.path("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        for path in [directory.url.path, "/dev/null", pipe] {
            #expect(throws: MirrorStoreError.notAMirror(path: path, reason: "it is not a regular file")) {
                try MirrorStore(path: path)
            }
            #expect(throws: MirrorStoreError.notAMirror(path: path, reason: "it is not a regular file")) {
                try MirrorStore(path: path, mode: .readOnly)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["pipe"])
    }

    @Test("a file that is not a SQLite database is refused, untouched")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        let garbage = Data(String(repeating: "these are not the bytes of a database\n", count: 200).utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: MirrorStoreError.self) { try MirrorStore(path: path) }
        guard case .notADatabase(let reportedPath, let underlying) = error else {
            Issue.record("expected notADatabase, got \(error)")
            return
        }
        #expect(reportedPath == path)
        #expect(underlying.code == 26)
        #expect(error.description.contains("is not a SQLite database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test("another application's SQLite database is refused, untouched")
    func foreignDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tinyvex.sqlite")
        try FileManager.default.copyItem(
            at: Repository.stockFixtures.appending(path: "tinyvex-sample.sqlite"),
            to: URL(fileURLWithPath: path)
        )
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: MirrorStoreError.self) { try MirrorStore(path: path) }
        #expect(error.description.contains("not an OpenAgents mirror"))
        #expect(error.description.contains("acp_events"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("read-only opens neither create nor migrate")
    func readOnly() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.sqlite")
        #expect(throws: MirrorStoreError.mirrorNotFound(path: missing)) { try MirrorStore(path: missing, mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: missing))

        let old = directory.path("old.sqlite")
        _ = try MirrorStore(path: old, mode: .readWrite, clock: .system, migratingTo: 1)
        #expect(throws: MirrorStoreError.schemaTooOld(path: old, found: 1, required: Migration.latestVersion)) {
            try MirrorStore(path: old, mode: .readOnly)
        }
    }

    @Test("a new mirror file is private to its owner and in WAL mode")
    func fileModeAndJournal() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try store.database.queryFirst("PRAGMA journal_mode") { $0.string(0) } == "wal")
        #expect(try store.database.scalarInt64("PRAGMA foreign_keys") == 1)
        #expect(try store.database.scalarInt64("PRAGMA synchronous") == 1)
        #expect(try store.database.scalarInt64("PRAGMA application_id") == Int64(MirrorStore.applicationID))
    }

    /// `type|name|sql` of every schema object, sorted.
    private func schemaObjects(_ database: Database) throws -> [String] {
        try database.query("SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name") {
            "\($0.string(0))|\($0.string(1))|\($0.string(2))"
        }
    }
}

/// Runs the sqlite3 command-line shell on `database` with `input` on its standard input.
func runShell(database: String, input: String) async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-bail", database]
    let stdin = Pipe()
    process.standardInput = stdin
    let end = try ProcessEnd(running: process)
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    #expect(await end.status(within: .seconds(60)) == 0, "sqlite3 failed, or did not end within 60 s")
}

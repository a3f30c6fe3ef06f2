import Bridge
import Foundation
@testable import MirrorStore
import TestSupport
import Testing

/// A mirror written before histories were kept apart (schema version 8) moves over without losing
/// or fetching anything again.
@Suite("Histories: migrating a mirror of one desktop", .startsPrograms(endsWithin: .seconds(180)))
struct HistoryMigrationTests {
    @Test("a version-8 mirror's history is taken over by its bridge: its cursor kept, nothing fetched twice", arguments: [1, 2])
    func migratedMirror(version: Int) async throws {
        let directory = try TemporaryDirectory()
        let simulatorDatabase = directory.path("desktop.sqlite")
        let simulator = try await SimulatorProcess(flavor: "cursor", database: simulatorDatabase, seed: (4, 600),
                                             extraArguments: ["--history-cursor-version", String(version)])
        let mirror = directory.path("mirror.sqlite")
        try writeVersion8Mirror(mirror, from: simulatorDatabase, bridgeURL: simulator.url)

        let first = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains(" 0 event(s) written"), "nothing fetched again: \(first.standardOutput)")
        #expect(!first.standardError.contains("started again"))
        try await SimulatorControl.withConnection(to: simulator.url) { control in
            try await control.append("AFTER-MIGRATION", (0..<3).map { SimulatorControl.chunk("new \($0)") })
        }
        let second = try await OASyncProcess.run(["--bridge", simulator.url, "--db", mirror, "--once"])
        #expect(second.standardOutput.contains(" 3 event(s) written"), "\(second.standardOutput)")
        try expectMirrorHolds(try simulatorHistory(simulatorDatabase), mirror: mirror)

        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let histories = try store.histories()
        #expect(histories.count == 1)
        #expect(histories.first?.identity == (version == 2 ? .bridge : .mirror))
        #expect(histories.first?.cursor == 603)
        #expect(try store.sessions().allSatisfy { $0.history == histories.first?.key && $0.goneAt == nil })
    }

    /// Writes what a version-8 mirror synced with the simulator held: its sessions and events (with
    /// their seqs), the global history cursor, and the bridge's URL in the status.
    private func writeVersion8Mirror(_ path: String, from simulatorDatabase: String, bridgeURL: String) throws {
        let old = try MirrorStore(path: path, mode: .readWrite, clock: .system, migratingTo: 8)
        let rows = try simulatorHistory(simulatorDatabase)
        try old.write {
            for row in rows {
                try old.database.run(
                    "INSERT INTO sessions (session_id, first_seen_at, last_seen_at) VALUES (?1, 1, 1) ON CONFLICT DO NOTHING",
                    [row.sessionID]
                )
                try old.database.run(
                    """
                    INSERT INTO events (event_id, session_no, ordinal, seq, kind, text, update_json, content_hash)
                    SELECT ?1, session_no, (SELECT count(*) FROM events e WHERE e.session_no = s.session_no), ?1, 'agent_message_chunk',
                           '', ?3, 0
                    FROM sessions s WHERE session_id = ?2
                    """,
                    [row.seq, row.sessionID, DatabaseValue.textBytes(row.updateJSON)]
                )
            }
            try old.database.run("UPDATE sessions SET local_event_count = (SELECT count(*) FROM events e WHERE e.session_no = sessions.session_no)")
            try old.database.run("INSERT OR REPLACE INTO counters (name, value) VALUES ('event_id', ?1), ('search_indexed', 0)", [rows.last?.seq ?? 0])
            try old.database.run("INSERT INTO sync_cursors (scope, seq, updated_at) VALUES ('changes', ?, 1)", [rows.last?.seq ?? 0])
            try old.database.run("INSERT INTO sync_status (key, value, updated_at) VALUES ('bridge_url', ?, 1)", [bridgeURL])
        }
        #expect(try old.schemaVersion() == 8)
    }
}

import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Checkpoints of the write-ahead log")
struct CheckpointTests {
    /// The sizes of the log the observer was told of, commit by commit.
    private final class LogSizes {
        var pages: [Int] = []
    }

    /// Commits `count` transactions of one row of about a page each, noting the log's size after each.
    private func commitRows(_ count: Int, automaticCheckpointPages: Int, in directory: TemporaryDirectory) throws -> [Int] {
        let database = try Database(path: directory.path("log-\(automaticCheckpointPages).sqlite"))
        try database.enableWriteAheadLogging(pageSizeIfNew: 4_096)
        try database.execute("PRAGMA wal_autocheckpoint = \(automaticCheckpointPages)")
        try database.execute("CREATE TABLE rows (text TEXT NOT NULL)")
        let sizes = LogSizes()
        try database.observeCommits { sizes.pages.append($0) }
        for _ in 0..<count {
            try database.writeTransaction {
                try database.run("INSERT INTO rows (text) VALUES (?)", [String(repeating: "x", count: 3_000)])
            }
        }
        return sizes.pages
    }

    @Test("a commit observer is told the log's size after each commit; the automatic checkpoint still starts the log over")
    func commitObserverKeepsTheAutomaticCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let withoutCheckpoint = try commitRows(40, automaticCheckpointPages: 0, in: directory)
        #expect(withoutCheckpoint.count == 40)
        #expect(zip(withoutCheckpoint, withoutCheckpoint.dropFirst()).allSatisfy { $0 < $1 }, "\(withoutCheckpoint)")

        let checkpointed = try commitRows(40, automaticCheckpointPages: 8, in: directory)
        #expect(checkpointed.count == 40)
        // Past 8 pages a commit checkpoints; the next one writes the log from its start again.
        let restarts = zip(checkpointed, checkpointed.dropFirst()).filter { $0 >= 8 && $1 < $0 }.count
        #expect(restarts >= 4, "\(checkpointed)")
        #expect(checkpointed.allSatisfy { $0 <= 10 }, "\(checkpointed)")
    }

    @Test("a store's commits that leave the log large wake its checkpointer, which copies the log into the file")
    func largeCommitsWakeTheCheckpointer() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        // It never checkpoints on its own in this test: only a wake makes it.
        let checkpointer = WALCheckpointer(path: path, interval: .seconds(3_600))
        defer { checkpointer.stop() }
        try store.handCheckpoints(to: checkpointer)
        let fileSizeBefore = try fileSize(path)

        let text = String(repeating: "a few words of a long tool output ", count: 100)
        let events = (1...1_000).map { entryEvent("s", seq: Int64($0), text: "\($0) \(text)") }
        try store.appendEvents(events, advancingHistoryCursorTo: 1_000)

        let copied = 3_000_000
        #expect(fileSizeBefore < copied)
        try await waitUntil("the log copied into the mirror's file", timeout: .seconds(60)) {
            try fileSize(path) >= copied
        }
    }

    private func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }
}

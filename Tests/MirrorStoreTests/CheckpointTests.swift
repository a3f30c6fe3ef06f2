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

    @Test("a second observer keeps the automatic checkpoint's threshold; removing the observer restores it")
    func observerReplacedAndRemoved() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("observed.sqlite"))
        try database.enableWriteAheadLogging(pageSizeIfNew: 4_096)
        try database.execute("PRAGMA wal_autocheckpoint = 8")
        try database.execute("CREATE TABLE rows (text TEXT NOT NULL)")
        try database.observeCommits { _ in }
        let sizes = LogSizes()
        try database.observeCommits { sizes.pages.append($0) }
        for _ in 0..<20 {
            try database.writeTransaction {
                try database.run("INSERT INTO rows (text) VALUES (?)", [String(repeating: "x", count: 3_000)])
            }
        }
        #expect(sizes.pages.count == 20)
        #expect(sizes.pages.allSatisfy { $0 <= 10 }, "the threshold was kept: \(sizes.pages)")
        try database.observeCommits(nil)
        #expect(try database.scalarInt64("PRAGMA wal_autocheckpoint") == 8)
    }

    @Test("the checkpointer is woken each time the log grows by the step since the last wake, counted again once it starts over")
    func wakesFollowTheLogsGrowth() {
        var wakes = CheckpointWakes(everyPages: 64)
        let logSizes = [3, 40, 63, 64, 70, 100, 127, 128, 5, 60, 69, 133, 500, 501]
        let woken = logSizes.filter { wakes.commit(leavingPages: $0) }
        #expect(woken == [64, 128, 69, 133, 500])
    }

    @Test("stopped, the checkpointer has let go of the log: the store's checkpoint then empties it")
    func stopLetsTheFinalCheckpointEmptyTheLog() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        let checkpointer = WALCheckpointer(path: path, interval: .milliseconds(1))
        try store.handCheckpoints(to: checkpointer)
        let text = String(repeating: "a few words of a long tool output ", count: 100)
        for round in 0..<5 {
            let events = (1...400).map { entryEvent("s", seq: Int64(round * 400 + $0), text: "\($0) \(text)") }
            try store.appendEvents(events, advancingHistoryCursorTo: Int64(round * 400 + 400))
            checkpointer.wake()
        }
        checkpointer.stop()
        try store.checkpoint()
        #expect(try fileSize(path + "-wal") == 0)
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

import Foundation
import Primitives
import TestSupport
import Testing
import ToolSupport
@testable import MirrorStore

@Suite("Crash safety and concurrent readers", .startsPrograms(endsWithin: .seconds(120)))
struct CrashSafetyTests {
    @Test("a writer killed at random points leaves events and cursor both written or neither", arguments: [1, 2, 3])
    func killedWriter(round: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        var expectedMinimum: Int64 = 0
        for kill in 0..<4 {
            let probe = try Probe(database: path, pageSize: 257 * round, sessions: 7)
            let committed = try await probe.waitForCommits(Int.random(in: 1...6))
            try await probe.killHard()
            #expect(committed >= expectedMinimum, "kill \(kill): the probe resumed from the cursor")
            expectedMinimum = committed
            try expectConsistent(path, atLeast: committed)
        }
    }

    @Test("a writer killed between writing a page's events and its cursor leaves neither", arguments: [0, 1, 3])
    func killedBetweenStatements(pagesBefore: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let probe = try Probe(database: path, pageSize: 300, sessions: 4, stallAfterPages: pagesBefore)
        let committed = try await pagesBefore == 0 ? 0 : probe.waitForCommits(pagesBefore)
        #expect(try await probe.readLine() == "stalled")
        try await probe.killHard()
        try expectConsistent(path, atLeast: committed)
        let store = try MirrorStore(path: path)
        #expect(try store.historyCursor() == Int64(300 * pagesBefore), "the stalled page left nothing behind")
        #expect(try store.counts().events == 300 * pagesBefore)
    }

    @Test("a mirror opened while another connection creates it is found not made yet, or made; never another application's")
    func openedWhileCreated() async throws {
        let directory = try TemporaryDirectory()
        let base = directory.url.path
        // SQLite's work on threads of their own, not the test process's pool.
        let foreign = OneShot<[String]>()
        Thread {
            var reasons: [String] = []
            for round in 0..<200 {
                let path = "\(base)/mirror-\(round).sqlite"
                let created = OneShot<Void>()
                Thread {
                    _ = try? MirrorStore(path: path)
                    created.settle()
                }.start()
                while created.settledValue == nil {
                    do {
                        _ = try MirrorStore(path: path, mode: .readOnly)
                    } catch MirrorStoreError.notAMirror(_, let reason) {
                        reasons.append(reason)
                    } catch {
                        // Not there yet, or not migrated yet: what a follower waits through.
                    }
                }
            }
            foreign.settle(reasons)
        }.start()
        guard let reasons = await foreign.valueUnlessCancelled() else { throw CancellationError() }
        #expect(reasons.isEmpty, "opened mid-creation, a mirror was taken for another application's: \(reasons.prefix(3))")
    }

    @Test("a reader sees one consistent snapshot while another process commits")
    func readerDuringWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        _ = try MirrorStore(path: path)
        let probe = try Probe(database: path, pageSize: 500, sessions: 5)
        _ = try await probe.waitForCommits(1)
        let reader = try MirrorStore(path: path, mode: .readOnly)
        var snapshots: Set<Int64> = []
        for _ in 0..<200 {
            let (cursor, count, maxSeq) = try reader.read {
                (try reader.historyCursor(), Int64(try reader.counts().events), try reader.database.scalarInt64("SELECT max(seq) FROM events") ?? 0)
            }
            #expect(cursor == count)
            #expect(cursor == maxSeq)
            snapshots.insert(cursor)
            if snapshots.count >= 3 { break }
            _ = try await probe.waitForCommits(1)
        }
        #expect(snapshots.count >= 3, "the reader saw the writer's commits")
        try await probe.killHard()
    }

    @Test("a reader is not blocked by an open write transaction and does not see it")
    func readerNotBlocked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let writer = try MirrorStore(path: path)
        try writer.appendEvents([messageEvent("s", seq: 1, text: "committed")], advancingHistoryCursorTo: 1)
        let reader = try MirrorStore(path: path, mode: .readOnly)
        try writer.write {
            try writer.appendEvents([messageEvent("s", seq: 2, text: "pending")], advancingHistoryCursorTo: 2)
            #expect(try reader.timeline(sessionID: "s").map(\.text) == ["committed"])
            #expect(try reader.historyCursor() == 1)
        }
        #expect(try reader.timeline(sessionID: "s").map(\.text) == ["committed", "pending"])
    }

    @Test("a write cannot start inside a read snapshot")
    func writeInsideRead() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("mirror.sqlite"))
        let error = try #require(throws: SQLiteError.self) {
            try store.read { try store.appendEvents([messageEvent("s", seq: 1, text: "x")], advancingHistoryCursorTo: 1) }
        }
        #expect(error.message.contains("inside a read transaction"))
        #expect(try store.counts().events == 0)
    }

    @Test("a full disk fails the write with a clear error and leaves the mirror as it was")
    func fullDisk() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("mirror.sqlite"))
        try store.appendEvents([messageEvent("s", seq: 1, text: "before")], advancingHistoryCursorTo: 1)
        let pages = try #require(try store.database.scalarInt64("PRAGMA page_count"))
        try store.database.execute("PRAGMA max_page_count = \(pages + 2)")
        let big = (2...2000).map { messageEvent("s", seq: Int64($0), text: String(repeating: "payload \($0) ", count: 20)) }
        let error = try #require(throws: SQLiteError.self) { try store.appendEvents(big, advancingHistoryCursorTo: 2000) }
        #expect(error.isDiskFull)
        #expect(error.description.contains("full"))
        #expect(try store.historyCursor() == 1)
        #expect(try store.timeline(sessionID: "s").map(\.text) == ["before"])
        #expect(!store.database.isInTransaction)
    }

    /// Checks the invariant of a mirror the probe wrote: seqs 1…cursor, each once, and a sound index.
    private func expectConsistent(_ path: String, atLeast committed: Int64) throws {
        let store = try MirrorStore(path: path)
        let cursor = try store.historyCursor()
        #expect(cursor >= committed)
        let seqs = try store.database.query("SELECT seq FROM events ORDER BY seq") { $0.int64(0) }
        #expect(Int64(seqs.count) == cursor, "every event up to the cursor, and none past it")
        #expect(seqs.enumerated().allSatisfy { Int64($0.offset + 1) == $0.element }, "seqs 1…cursor, each once")
        let counted = try store.database.scalarInt64("SELECT sum(local_event_count) FROM sessions") ?? 0
        #expect(counted == cursor)
        try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
        #expect(try store.database.queryFirst("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }
}

/// The `oa-store-probe` helper, appending pages to a mirror until it is killed. Its lines are read
/// and its end awaited with deadlines, sleeping the task, not a thread of the pool.
final class Probe {
    private let lines: OutputLineReader
    private let end: ProcessEnd

    init(database: String, pageSize: Int, sessions: Int, stallAfterPages: Int? = nil) throws {
        let process = Process()
        process.executableURL = BuildProducts.executable("oa-store-probe")
        process.arguments = ["append", database, String(pageSize), String(sessions)] + (stallAfterPages.map { [String($0)] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        lines = OutputLineReader(descriptor: dup(output.fileHandleForReading.fileDescriptor))
        end = try ProcessEnd(running: process)
        try? output.fileHandleForWriting.close()
        try? output.fileHandleForReading.close()
    }

    /// Released, it is killed (SIGKILL) and not waited for: `killHard()` waits.
    deinit {
        if !end.hasEnded { kill(end.processIdentifier, SIGKILL) }
    }

    /// Reads `count` more `committed SEQ` lines; returns the last SEQ.
    func waitForCommits(_ count: Int) async throws -> Int64 {
        var last: Int64 = 0
        for _ in 0..<count {
            let line = try await readLine()
            guard line.hasPrefix("committed "), let seq = Int64(line.dropFirst("committed ".count)) else {
                throw ProbeError.unexpectedOutput(line)
            }
            last = seq
        }
        return last
    }

    /// SIGKILL (no chance to finish the transaction under way), then waits for its end, at most 10 s.
    func killHard() async throws {
        guard await end.kill() else { throw ProbeError.notEnded }
    }

    /// The next line the probe printed, within `timeout`.
    func readLine(timeout: Duration = .seconds(60)) async throws -> String {
        try await lines.nextLine(before: .now + timeout, program: "oa-store-probe") { [end] in !end.hasEnded }
    }

    enum ProbeError: Error {
        case unexpectedOutput(String)
        case notEnded
    }
}

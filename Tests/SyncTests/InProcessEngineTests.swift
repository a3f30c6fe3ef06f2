import Bridge
import Foundation
import MirrorStore
@testable import SyncEngine
import TestSupport
import Testing

/// The sync engine against desktops scripted in this process (`ScriptedDesktop`), through the
/// `BridgeConnection` protocol: no socket, no simulator, every step under the test's control.
@Suite("Sync engine in-process", .endsWithin(.seconds(180)))
struct InProcessEngineTests {
    @Test("catch-up, then a live burst through a small buffer: the bound holds, nothing is lost, order is kept; search indexing put off by a burst waits for the engine's clock")
    func burstThroughSmallBuffer() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2), notificationLimit: 8)
        for index in 0..<2_000 { await desktop.store(session: "S\(index % 3)", text: "history \(index) ") }
        let clock = TestClock()
        let engine = try engine(mirror, [desktop], changesPageSize: 300, eventsPerTransaction: 700, liveBatchLimit: 64, clock: clock)
        let reader = try MirrorStore(path: mirror, mode: .readOnly)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            try await waitFor("the history cursor to reach 2000", look: { try reader.historyCursor() }, until: { $0 == 2_000 })

            // A burst far larger than the buffer: each send waits while 8 are waiting.
            for index in 0..<5_000 { await desktop.store(session: "S\(index % 3)", text: "live \(index) ") }

            // A lost notification: the next one's seq shows the gap, and the engine pages over it.
            // Chunks of a stream, each with its spaces, as a model sends them.
            await desktop.store(session: "S0", text: "never announced ", announced: false)
            await desktop.store(session: "S0", text: "announced after a gap ")
            try await waitFor("the history cursor to reach 7002, past the gap", look: { try reader.historyCursor() }, until: { $0 == 7_002 })
            #expect(await desktop.changesAskedSince.contains(7_000))
            // The engine's clock has not moved. Whether the live batches came as a burst (more
            // waiting behind them) depends on how the writer kept up; if they did, what the burst
            // put off waits while the clock stands still, and is indexed only once an indexing
            // interval has passed on the engine's clock.
            let indexedWithClockStill = try reader.searchIndexedUpTo()
            _ = try await clock.passingTime {
                try await waitFor("the search index to reach 7002", look: { try reader.searchIndexedUpTo() }, until: { $0 == 7_002 })
            }
            if indexedWithClockStill < 7_002 {
                #expect(clock.now.offset >= SearchIndexingPolicy<TestClock.Instant>.burstIndexingInterval,
                        "what the burst put off (search index at \(indexedWithClockStill)) waited for time to pass on the engine's clock")
            }
            group.cancelAll()
        }
        await engine.finish()

        try expectMirrorHolds(await desktop.historyRows, mirror: mirror)
        let announced = try reader.search("announced")
        #expect(announced.count == 1 && announced[0].snippet.contains("never [announced] [announced] after a gap"),
                "live events are searchable, in the message they continue")
    }

    @Test("the writer's page cache keeps a live budget while following, and after each reconnect's catch-up")
    func pageCacheBudgetWhileLive() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2))
        for index in 0..<1_000 { await desktop.store(session: "S\(index % 3)", text: "history \(index) ") }
        let clock = TestClock()
        let engine = try engine(mirror, [desktop], clock: clock)
        let reader = try MirrorStore(path: mirror, mode: .readOnly)
        #expect(try await engine.pageCacheKiB() == PageCacheBudget.catchUp.kibibytes, "a store opens with a catch-up's budget")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            for round in 1...2 {
                try await waitFor("live, round \(round)", look: { try reader.desktopStatuses().first?.connectionState }, until: { $0 == .live })
                #expect(try await engine.pageCacheKiB() == PageCacheBudget.live.kibibytes, "round \(round)")
                await desktop.store(session: "S0", text: "while offline \(round) ")
                await desktop.dropConnections()
                // Reconnecting after the backoff, on the engine's clock.
                _ = try await clock.passingTime {
                    try await waitFor("the history cursor to reach \(1_000 + round)", look: { try reader.historyCursor() }, until: { $0 == Int64(1_000 + round) })
                }
            }
            group.cancelAll()
        }
        await engine.finish()
        try expectMirrorHolds(await desktop.historyRows, mirror: mirror)
    }

    @Test("the page byte budget is asked for only from a desktop that offers it, and pages then stop at it", arguments: [true, false])
    func pageBudgetOnlyWhenOffered(offered: Bool) async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2), offersMaxBytes: offered)
        // Small events the pages grow on, then a run of large ones, then small ones again.
        for index in 0..<3_000 { await desktop.store(session: "S\(index % 3)", text: "small \(index) ") }
        let large = String(repeating: "x", count: 200_000)
        for index in 0..<20 { await desktop.store(session: "L", text: "\(index) \(large)") }
        for index in 0..<500 { await desktop.store(session: "S0", text: "after \(index) ") }
        let engine = try engine(mirror, [desktop], changesPageSize: 100)
        _ = try await engine.syncOnce()
        await engine.finish()
        try expectMirrorHolds(await desktop.historyRows, mirror: mirror)

        let asked = await desktop.changesAskedMaxBytes
        #expect(!asked.isEmpty)
        if offered {
            let budget = try #require(asked.first ?? nil)
            #expect(asked.allSatisfy { $0 == budget }, "every page asked with one budget: \(Set(asked))")
            // A page holds the events below the budget and the one that reaches it, no more.
            for (page, last) in await desktop.changesAnsweredBytes {
                #expect(page - last < budget, "a page of \(page) bytes, its last event \(last), the budget \(budget)")
            }
        } else {
            #expect(asked.allSatisfy { $0 == nil }, "no budget sent to a desktop that did not offer it")
        }
    }

    @Test("a catch-up defers the search index's merging and merges it once at its end; merging left deferred by a stopped run is merged by the next catch-up")
    func searchIndexMergedAfterCatchUp() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2))
        for index in 0..<12_000 { await desktop.store(session: "S\(index % 5)", text: "word\(index % 50) event \(index) ") }
        let first = try engine(mirror, [desktop], changesPageSize: 500, eventsPerTransaction: 1_000)
        _ = try await first.syncOnce()
        await first.finish()
        let store = try MirrorStore(path: mirror)
        #expect(try store.searchIndexMerging() == .asItGrows)
        #expect(try searchSegments(store) == 1, "12 transactions indexed, merged once")
        #expect(try store.search("word7").count > 0)

        // A run stopped in a catch-up: merging deferred, segments added by several transactions.
        try store.setSearchIndexMerging(.deferred)
        for index in 0..<5 {
            try store.appendEvents([NewEvent(sessionID: "offline", kind: "user_message_chunk", text: "stopped \(index) ",
                                             updateJSON: Array(#"{"n":\#(index)}"#.utf8))], history: nil)
        }
        #expect(try searchSegments(store) > 1)
        for index in 0..<300 { await desktop.store(session: "S\(index % 5)", text: "later \(index) ") }
        let second = try engine(mirror, [desktop])
        _ = try await second.syncOnce()
        await second.finish()
        #expect(try store.searchIndexMerging() == .asItGrows)
        #expect(try searchSegments(store) == 1, "a small catch-up merges what the stopped run left")
        // One message of five chunks; each session's message goes on with the later chunks.
        #expect(try store.search("stopped").map(\.lastOrdinal) == [4])
        #expect(try store.search("later", limit: 1_000).count == 5)
    }

    /// The segments of the full-text index (FTS5's `%_idx` table names each segment's leaves).
    private func searchSegments(_ store: MirrorStore) throws -> Int64 {
        try store.database.scalarInt64("SELECT count(DISTINCT segid) FROM entries_fts_idx") ?? 0
    }

    @Test("a desktop renamed keeps its history: identity, not the name, decides (version 2)")
    func renamedDesktop() async throws {
        let directory = try TemporaryDirectory()
        let mirror = directory.path("mirror.sqlite")
        let desktop = ScriptedDesktop(flavor: .cursor(version: 2))
        for index in 0..<50 { await desktop.store(session: "S", text: "e\(index)") }
        let first = try engine(mirror, [desktop], names: ["old name"])
        _ = try await first.syncOnce()
        await first.finish()
        await desktop.store(session: "S", text: "after the rename")
        let second = try engine(mirror, [desktop], names: ["new name"])
        #expect(try await second.syncOnce().eventsWritten == 1)
        await second.finish()
        let histories = try MirrorStore(path: mirror, mode: .readOnly).histories()
        #expect(histories.map(\.desktop) == ["new name"])
        #expect(histories.first?.cursor == 51)
    }

    // MARK: Helpers

    /// An engine following `desktops`, named `names` (else `scripted`, `scripted-2`, …), on
    /// `clock` (one that stands still unless the test moves it).
    private func engine(_ mirror: String, _ desktops: [ScriptedDesktop], names: [String]? = nil, changesPageSize: Int = 2000,
                        eventsPerTransaction: Int = 20_000, liveBatchLimit: Int = 4096, clock: TestClock = TestClock()) throws -> SyncEngine<TestClock> {
        let targets = desktops.enumerated().map { index, desktop in
            BridgeTarget(
                configuration: SyncConfiguration(
                    bridgeURL: "scripted:", desktopName: names?[index] ?? (index == 0 ? "scripted" : "scripted-\(index + 1)"),
                    backoff: BackoffPolicy(initial: .milliseconds(5), cap: .milliseconds(50)),
                    changesPageSize: changesPageSize, eventsPerTransaction: eventsPerTransaction,
                    refetchAfterQuiet: .milliseconds(50), outboxPollInterval: .milliseconds(20), liveBatchLimit: liveBatchLimit
                ),
                connector: ScriptedConnector(desktop: desktop)
            )
        }
        return try SyncEngine(mirrorPath: mirror, bridges: targets, clock: clock)
    }
}

import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Sessions, threads and status", .endsWithin(.seconds(120)))
struct SessionTests {
    let mirror: MirrorFixture
    var clock: ManualClock { mirror.clock }
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    @Test("what the bridge says is merged: missing fields keep their values")
    func upsertMerges() throws {
        try store.upsertSessions([SessionRecord(sessionID: "s", title: "Fix it", mode: "codex", lastTS: 10, serverEventCount: 3)])
        clock.advance(by: 1000)
        try store.upsertSessions([SessionRecord(sessionID: "s", lastTS: 20, serverEventCount: 5, serverLastSeq: 99)])
        let session = try #require(try store.session(id: "s"))
        #expect(session.title == "Fix it")
        #expect(session.mode == "codex")
        #expect(session.lastTS == 20)
        #expect(session.serverEventCount == 5)
        #expect(session.serverLastSeq == 99)
        #expect(session.firstSeenAt == 1_731_000_000_000)
        #expect(session.lastSeenAt == 1_731_000_001_000)
        #expect(session.localEventCount == 0)
    }

    @Test("sessions list newest first, with limit and offset")
    func ordering() throws {
        try store.upsertSessions((1...5).map { SessionRecord(sessionID: "s\($0)", lastTS: Int64($0)) })
        try store.upsertSessions([SessionRecord(sessionID: "never-active")])
        #expect(try store.sessions().map(\.sessionID) == ["s5", "s4", "s3", "s2", "s1", "never-active"])
        #expect(try store.sessions(limit: 2, offset: 1).map(\.sessionID) == ["s4", "s3"])
        #expect(try store.sessionCount() == 6)
    }

    @Test("ids are found by prefix, in either case, with wildcards taken literally")
    func prefixes() throws {
        try store.upsertSessions(["5F0C1E9A-3B7D", "5F0C22AA-0000", "0B8E2D44-1F6A", "a_b%c"].map { SessionRecord(sessionID: $0) })
        #expect(try store.sessionIDs(withPrefix: "5f0c") == ["5F0C1E9A-3B7D", "5F0C22AA-0000"])
        #expect(try store.sessionIDs(withPrefix: "5F0C1") == ["5F0C1E9A-3B7D"])
        #expect(try store.sessionIDs(withPrefix: "a_") == ["a_b%c"])
        #expect(try store.sessionIDs(withPrefix: "a%").isEmpty)
        #expect(try store.sessionIDs(withPrefix: "", limit: 2).count == 2)
    }

    @Test("threads are kept as received and listed newest first")
    func threads() throws {
        let raw = Array(#"{"id":"t1","source":"codex","updated_at":5,"extra":[1,2]}"#.utf8)
        try store.upsertThreads([
            ThreadRecord(threadID: "t1", source: "codex", updatedAt: 5, itemJSON: raw),
            ThreadRecord(threadID: "t2", title: "Refactor", source: "claude_code", updatedAt: 9, messageCount: 42, itemJSON: Array("{}".utf8)),
        ])
        try store.upsertThreads([ThreadRecord(threadID: "t2", title: "Refactor bridge", updatedAt: 9, itemJSON: Array("{}".utf8))])
        let threads = try store.threads()
        #expect(threads.map(\.threadID) == ["t2", "t1"])
        #expect(threads[0].title == "Refactor bridge")
        #expect(threads[1].itemJSON == raw)
        #expect(try store.threads(limit: 1).count == 1)
    }

    @Test("each desktop's status is one record: its state since when, its last success, its last problem until the next success")
    func desktopStatus() throws {
        try store.recordStatus(.state(.connecting), desktop: "laptop", bridgeURL: "ws://127.0.0.1:9099")
        clock.advance(by: 5)
        try store.recordStatus(.failed("the bridge went away"), desktop: "laptop", bridgeURL: "ws://127.0.0.1:9099")
        try store.recordStatus(.state(.live), desktop: "desk", bridgeURL: "ws://127.0.0.1:9100")
        let laptopFailed = try #require(try store.desktopStatuses().first { $0.desktop == "laptop" })
        #expect(laptopFailed.connectionState == .connecting)
        #expect(laptopFailed.stateSince == 1_731_000_000_000)
        #expect(laptopFailed.lastError == "the bridge went away")
        #expect(laptopFailed.lastErrorAt == 1_731_000_000_005)
        clock.advance(by: 5)
        try store.recordStatus(.succeeded, desktop: "laptop", bridgeURL: "ws://127.0.0.1:9098")
        let statuses = try store.desktopStatuses()
        #expect(statuses.map(\.desktop) == ["laptop", "desk"], "the one written last first")
        #expect(statuses[0] == DesktopSyncStatus(
            desktop: "laptop", bridgeURL: "ws://127.0.0.1:9098", connectionState: .connecting, stateSince: 1_731_000_000_000,
            lastSuccessAt: 1_731_000_000_010, lastError: nil, lastErrorAt: nil, updatedAt: 1_731_000_000_010
        ))
        #expect(try store.lastBridgeURL() == "ws://127.0.0.1:9098")
    }

    @Test("counts come from one snapshot")
    func counts() throws {
        try store.appendEvents([messageEvent("a", seq: 1, text: "x"), messageEvent("b", seq: 2, text: "y")])
        try store.enqueuePrompt(sessionID: "a", text: "p", clientMessageID: "1")
        try store.upsertThreads([ThreadRecord(threadID: "t", itemJSON: [])])
        #expect(try store.counts() == MirrorCounts(sessions: 2, events: 2, threads: 1, outbox: [.queued: 1]))
    }
}

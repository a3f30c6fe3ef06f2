import Foundation
import TestSupport
import Testing
@testable import MirrorStore

/// `MirrorStore.feed`: what a follower in another connection reads, in commit order.
@Suite("The feed of a follower", .endsWithin(.seconds(120)))
struct FeedTests {
    let directory: TemporaryDirectory
    let writer: MirrorStore
    let reader: MirrorStore

    init() throws {
        directory = try TemporaryDirectory()
        writer = try MirrorStore(path: directory.path("mirror.sqlite"))
        reader = try MirrorStore(path: directory.path("mirror.sqlite"), mode: .readOnly)
    }

    /// Everything after `position`, page by page; the items and the position after them.
    func readAll(after position: FeedPosition, sessionKey: Int64? = nil, limit: Int = 500,
                 byteLimit: Int = 1 << 20) throws -> ([FeedItem], FeedPosition) {
        var position = position
        var items: [FeedItem] = []
        for _ in 0..<10_000 {
            let page = try reader.feed(after: position, sessionKey: sessionKey, limit: limit, byteLimit: byteLimit)
            items += page.items
            position = page.position
            if !page.isPartial { return (items, position) }
        }
        Issue.record("the feed never ended")
        return (items, position)
    }

    func texts(_ items: [FeedItem]) -> [String] {
        items.map { item in
            switch item {
            case .appended(let event): event.text
            case .removed(let eventID, _): "removed \(eventID)"
            case .confirmed(let eventID, _): "confirmed \(eventID)"
            case .sessionMerged(let sessionID, let into): "\(sessionID) merged into \(into)"
            case .outboxChanged(let outboxID, _, let state): "prompt \(outboxID) \(state)"
            }
        }
    }

    @Test("appends, removals and prompts' changes come in commit order, across pages of any size")
    func commitOrder() throws {
        try writer.appendEvents([messageEvent("a", seq: 1, text: "a1"), messageEvent("b", seq: 2, text: "b1")])
        let start = try reader.feedEnd()
        try writer.appendEvents([messageEvent("a", text: "live", provisional: true)])
        let (seen, afterLive) = try readAll(after: start)
        #expect(texts(seen) == ["live"])
        try writer.enqueuePrompt(sessionID: "a", text: "hi", clientMessageID: "m1",
                                 localEcho: messageEvent("a", text: "echo"))
        try writer.replaceTimelineTail(sessionID: "a", with: [messageEvent("a", seq: 1, text: "a1"), messageEvent("a", text: "fetched")])
        _ = try writer.claimNextOutboxItem()
        try writer.appendEvents([messageEvent("b", text: "b2")])
        let expected = ["echo", "prompt 1 queued", "removed 3", "fetched", "prompt 1 sending", "b2"]
        for limit in [1, 2, 3, 500] {
            let (items, _) = try readAll(after: afterLive, limit: limit)
            #expect(texts(items) == expected, "pages of \(limit)")
        }
        // Pages cut by bytes: an event each.
        let (items, _) = try readAll(after: afterLive, byteLimit: 1)
        #expect(texts(items) == expected)
    }

    @Test("a provisional event given is heard of again when a refetch confirms it; one read after, is not")
    func confirmations() throws {
        let start = try reader.feedEnd()
        try writer.appendEvents([messageEvent("a", text: "live", provisional: true), messageEvent("a", text: "more", provisional: true)])
        let (given, position) = try readAll(after: start)
        #expect(texts(given) == ["live", "more"])
        try writer.replaceTimelineTail(sessionID: "a", with: [messageEvent("a", text: "live")])
        #expect(texts(try readAll(after: position).0) == ["confirmed 1"])
        // Read from the start after the refetch: given as confirmed, nothing more to say; the
        // update past the fetch's end stays provisional.
        let (fromStart, _) = try readAll(after: .start, limit: 1)
        #expect(texts(fromStart) == ["live", "more"])
        let provisional = fromStart.map { if case .appended(let event) = $0 { event.provisional } else { true } }
        #expect(provisional == [false, true])
    }

    @Test("a follower hears of a removed event only if it was given it")
    func removalsOfEventsGiven() throws {
        try writer.appendEvents([messageEvent("a", seq: 1, text: "kept")])
        let now = try reader.feedEnd()
        try writer.enqueuePrompt(sessionID: "a", text: "hi", clientMessageID: "m1", localEcho: messageEvent("a", text: "echo"))
        try writer.dropOutboxItem(id: 1)
        // Queued and dropped before the follower looked: the echo was never given.
        #expect(texts(try readAll(after: now).0) == ["prompt 1 queued", "prompt 1 dropped"])
        // From the start, in pages, with the removal committed before the pages were read.
        #expect(texts(try readAll(after: .start, limit: 1).0) == ["kept", "prompt 1 queued", "prompt 1 dropped"])

        // Given, then removed: heard of.
        try writer.enqueuePrompt(sessionID: "a", text: "again", clientMessageID: "m2", localEcho: messageEvent("a", text: "echo 2"))
        let (given, position) = try readAll(after: now)
        #expect(texts(given).suffix(2) == ["echo 2", "prompt 2 queued"])
        try writer.dropOutboxItem(id: 2)
        #expect(texts(try readAll(after: position).0) == ["prompt 2 dropped", "removed 3"])
        // A follower that started after the event was written never had it.
        let later = try reader.feedEnd()
        try writer.enqueuePrompt(sessionID: "a", text: "third", clientMessageID: "m3", localEcho: messageEvent("a", text: "echo 3"))
        let (_, afterThird) = try readAll(after: later)
        try writer.dropOutboxItem(id: 3)
        #expect(texts(try readAll(after: afterThird).0) == ["prompt 3 dropped", "removed 4"])
        #expect(texts(try readAll(after: try reader.feedEnd()).0).isEmpty)
    }

    @Test("one session's follower gets its events and changes only, and keeps it once it gets the bridge's id")
    func oneSession() throws {
        try writer.createLocalSession(id: "local-1")
        try writer.appendEvents([messageEvent("other", seq: 1, text: "not this one")])
        try writer.enqueuePrompt(sessionID: "local-1", text: "new", clientMessageID: "m1", localEcho: messageEvent("local-1", text: "made offline"))
        let key = try #require(try reader.sessionKey(of: "local-1"))
        let (first, position) = try readAll(after: .start, sessionKey: key, limit: 1)
        #expect(texts(first) == ["made offline", "prompt 1 queued"])
        try writer.remapSession(localID: "local-1", to: "server-1")
        try writer.appendEvents([messageEvent("server-1", seq: 2, text: "answer"), messageEvent("other", seq: 3, text: "nor this")])
        let (next, _) = try readAll(after: position, sessionKey: key)
        #expect(texts(next) == ["answer"])
        #expect(next.map(\.sessionID) == ["server-1"])
    }

    @Test("a session made offline merged into the bridge's: its follower is told where it went")
    func merged() throws {
        try writer.createLocalSession(id: "local-1")
        try writer.enqueuePrompt(sessionID: "local-1", text: "new", clientMessageID: "m1", localEcho: messageEvent("local-1", text: "made offline"))
        try writer.appendEvents([messageEvent("server-1", seq: 1, text: "the bridge's first")])
        let key = try #require(try reader.sessionKey(of: "local-1"))
        let (first, position) = try readAll(after: .start, sessionKey: key)
        #expect(texts(first) == ["made offline", "prompt 1 queued"])
        try writer.remapSession(localID: "local-1", to: "server-1")
        #expect(texts(try readAll(after: position, sessionKey: key).0) == ["local-1 merged into server-1"])
        #expect(texts(try readAll(after: position).0) == ["local-1 merged into server-1"])
    }

    @Test("one session's follower reads the same whether the session or the range of ids is the shorter")
    func oneSessionEitherWay() throws {
        // "long" has 40 events, "short" 2, among 60 of "other"; the reads below go through the
        // session's index (a range wider than the session) and through the range (narrower).
        try writer.appendEvents((0..<60).map { messageEvent($0 % 3 == 0 ? "long" : "other", text: "old \($0)") })
        try writer.appendEvents((0..<20).map { messageEvent("long", text: "older \($0)") } + [messageEvent("short", text: "s0")])
        let now = try reader.feedEnd()
        try writer.appendEvents([messageEvent("long", text: "l1"), messageEvent("other", text: "o1"), messageEvent("short", text: "s1")])
        try writer.appendEvents([messageEvent("other", text: "o2"), messageEvent("long", text: "l2")])
        for (session, expectedFromStart, expectedLive) in [("long", 42, ["l1", "l2"]), ("short", 2, ["s1"])] {
            let key = try #require(try reader.sessionKey(of: session))
            for limit in [1, 500] {
                let (fromStart, _) = try readAll(after: .start, sessionKey: key, limit: limit)
                #expect(fromStart.count == expectedFromStart, "\(session), pages of \(limit)")
                #expect(Set(fromStart.map(\.sessionID)) == [session])
                #expect(texts(try readAll(after: now, sessionKey: key, limit: limit).0) == expectedLive, "\(session), pages of \(limit)")
            }
        }
    }

    @Test("after an event id: what came after it, changes included")
    func afterEventID() throws {
        try writer.appendEvents([messageEvent("a", seq: 1, text: "one")])
        try writer.enqueuePrompt(sessionID: "a", text: "p", clientMessageID: "m1")
        try writer.appendEvents([messageEvent("a", seq: 2, text: "two")])
        _ = try writer.claimNextOutboxItem()
        #expect(texts(try readAll(after: try reader.feedPosition(afterEvent: 1)).0) == ["prompt 1 queued", "two", "prompt 1 sending"])
        #expect(texts(try readAll(after: try reader.feedPosition(afterEvent: 2)).0) == ["prompt 1 sending"])
    }

    @Test("pruning keeps recent changes and never hands a change id out twice")
    func pruning() throws {
        let store = try MirrorStore(path: directory.path("pruned.sqlite"))
        try store.appendEvents([messageEvent("a", seq: 1, text: "one")])
        try store.enqueuePrompt(sessionID: "a", text: "p", clientMessageID: "m1")
        #expect(try store.pruneChangeLog(olderThan: .seconds(-3600)) == 1)
        try store.enqueuePrompt(sessionID: "a", text: "q", clientMessageID: "m2")
        let ids = try store.database.query("SELECT change_id FROM change_log") { $0.int64(0) }
        #expect(ids == [2])
    }
}

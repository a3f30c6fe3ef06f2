import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Timelines", .endsWithin(.seconds(120)))
struct TimelineTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    @Test("a page and the cursor commit together, in order, per session")
    func appendAdvancesCursor() throws {
        let page = [
            messageEvent("a", seq: 1, text: "a1"), messageEvent("b", seq: 2, text: "b1"),
            messageEvent("a", seq: 3, text: "a2"),
        ]
        let outcome = try store.appendEvents(page, advancingHistoryCursorTo: 3)
        #expect(outcome == AppendOutcome(inserted: 3, duplicates: 0))
        #expect(try store.historyCursor() == 3)
        #expect(try store.timeline(sessionID: "a").map(\.text) == ["a1", "a2"])
        #expect(try store.timeline(sessionID: "a").map(\.ordinal) == [0, 1])
        #expect(try store.timeline(sessionID: "b").map(\.seq) == [2])
        #expect(try store.session(id: "a")?.localEventCount == 2)
        #expect(try store.session(id: "a")?.lastTS == 1_731_000_000_003)
    }

    @Test("re-applying the same page changes nothing")
    func reapplyIsIdempotent() throws {
        let page = (1...50).map { messageEvent("s\($0 % 3)", seq: Int64($0), text: "event \($0)") }
        try store.appendEvents(page, advancingHistoryCursorTo: 50)
        let before = try store.read { try (0...2).flatMap { try store.timeline(sessionID: "s\($0)") } }
        let again = try store.appendEvents(page, advancingHistoryCursorTo: 50)
        #expect(again == AppendOutcome(inserted: 0, duplicates: 50))
        let after = try store.read { try (0...2).flatMap { try store.timeline(sessionID: "s\($0)") } }
        #expect(after == before)
        #expect(try store.counts().events == 50)
        #expect(try store.session(id: "s1")?.localEventCount == 17)
    }

    @Test("an overlapping page adds only what is new, and the cursor never moves back")
    func overlappingPage() throws {
        try store.appendEvents((1...10).map { messageEvent("s", seq: Int64($0), text: "e\($0)") }, advancingHistoryCursorTo: 10)
        let outcome = try store.appendEvents((6...15).map { messageEvent("s", seq: Int64($0), text: "e\($0)") },
                                             advancingHistoryCursorTo: 15)
        #expect(outcome == AppendOutcome(inserted: 5, duplicates: 5))
        #expect(try store.timeline(sessionID: "s").map(\.seq) == (1...15).map { Int64($0) })
        try store.appendEvents([], advancingHistoryCursorTo: 3)
        #expect(try store.historyCursor() == 15)
    }

    @Test("malformed JSON and unknown kinds are stored byte for byte")
    func storedVerbatim() throws {
        let malformed: [UInt8] = Array(#"{"sessionUpdate":"agent_message_chunk","content":{"#.utf8) + [0xFF, 0xFE, 0x00, 0x7B]
        let unknown = Array(#"{ "sessionUpdate" : "usage_update",  "tokens":{"input":1200}}"#.utf8)
        let empty: [UInt8] = []
        try store.appendEvents([
            NewEvent(sessionID: "s", seq: 1, kind: "unknown", text: "", updateJSON: malformed),
            NewEvent(sessionID: "s", seq: 2, kind: "usage_update", text: "", updateJSON: unknown),
            NewEvent(sessionID: "s", seq: 3, kind: "unknown", text: "", updateJSON: empty),
        ])
        let events = try store.timeline(sessionID: "s")
        #expect(events.map(\.updateJSON) == [malformed, unknown, empty])
        #expect(events.map(\.kind) == ["unknown", "usage_update", "unknown"])
        #expect(events[0].contentHash == ContentHash(of: malformed))
    }

    @Test("timelines read in ranges")
    func ranges() throws {
        try store.appendEvents((1...20).map { messageEvent("s", seq: Int64($0), text: "e\($0)") })
        #expect(try store.timeline(sessionID: "s", range: TimelineRange(fromOrdinal: 5, limit: 3)).map(\.text) == ["e6", "e7", "e8"])
        #expect(try store.timeline(sessionID: "s", range: TimelineRange(fromOrdinal: 18)).map(\.text) == ["e19", "e20"])
        #expect(try store.timeline(sessionID: "unknown").isEmpty)
    }

    @Test("a refetch keeps every confirmed event: what the desktop no longer holds is marked gone, new events follow")
    func tailReplacement() throws {
        let original = ["hello", "wor", "ld", "bye"].map { messageEvent("s", text: $0) }
        var outcome = try store.replaceTimelineTail(sessionID: "s", with: original,
                                                    watermark: SessionWatermark(lastTS: 100, messageCount: 4))
        #expect(outcome == TailReplacement(kept: 0, removed: 0, inserted: 4, confirmed: 0))
        let before = try store.timeline(sessionID: "s")

        let refetched = ["hello", "wor", "LD", "bye", "later"].map { messageEvent("s", text: $0) }
        outcome = try store.replaceTimelineTail(sessionID: "s", with: refetched,
                                                watermark: SessionWatermark(lastTS: 200, messageCount: 5))
        #expect(outcome == TailReplacement(kept: 3, removed: 0, inserted: 2, confirmed: 0, markedGone: 1))
        let after = try store.timeline(sessionID: "s")
        #expect(after.map(\.text) == ["hello", "wor", "ld", "bye", "LD", "later"])
        #expect(after.map { $0.goneAt != nil } == [false, false, true, false, false, false])
        #expect(Array(after.prefix(4)).map(\.eventID) == before.map(\.eventID), "every event keeps its row")
        #expect(try store.watermark(for: "s") == SessionWatermark(lastTS: 200, messageCount: 5))
        #expect(try store.session(id: "s")?.serverEventCount == 5)
        #expect(try store.session(id: "s")?.localEventCount == 6)
        #expect(try store.session(id: "s")?.goneEventCount == 1)

        let same = try store.replaceTimelineTail(sessionID: "s", with: refetched)
        #expect(same.isUnchanged)
        #expect(try store.timeline(sessionID: "s") == after)

        outcome = try store.replaceTimelineTail(sessionID: "s", with: Array(refetched.prefix(1)))
        #expect(outcome == TailReplacement(kept: 1, removed: 0, inserted: 0, confirmed: 0, markedGone: 4))
        #expect(try store.timeline(sessionID: "s").map(\.text) == ["hello", "wor", "ld", "bye", "LD", "later"])
        #expect(try store.session(id: "s")?.goneEventCount == 5)

        outcome = try store.replaceTimelineTail(sessionID: "s", with: refetched)
        #expect(outcome == TailReplacement(kept: 5, removed: 0, inserted: 0, confirmed: 0, returned: 4))
        #expect(try store.session(id: "s")?.goneEventCount == 1)
    }

    @Test("a desktop that pruned a session's oldest events and added new ones: all of them kept, in order")
    func prunedPrefix() throws {
        let original = (1...60).map { messageEvent("s", text: "event \($0)") }
        try store.replaceTimelineTail(sessionID: "s", with: original)
        let pruned = (26...64).map { messageEvent("s", text: "event \($0)") }
        let outcome = try store.replaceTimelineTail(sessionID: "s", with: pruned)
        #expect(outcome == TailReplacement(kept: 35, removed: 0, inserted: 4, confirmed: 0, markedGone: 25))
        let events = try store.timeline(sessionID: "s")
        #expect(events.map(\.text) == (1...64).map { "event \($0)" })
        #expect(events.filter { $0.goneAt != nil }.map(\.text) == (1...25).map { "event \($0)" })
        #expect(try store.session(id: "s")?.goneAt == nil)
    }

    @Test("an empty fetch of a mirrored session marks the session gone and keeps its events; a later one unmarks it")
    func deletedSession() throws {
        try store.replaceTimelineTail(sessionID: "s", with: ["a", "b"].map { messageEvent("s", text: $0) })
        let outcome = try store.replaceTimelineTail(sessionID: "s", with: [])
        #expect(outcome.sessionMarkedGone && outcome.markedGone == 0 && outcome.removed == 0)
        #expect(try store.session(id: "s")?.goneAt != nil)
        #expect(try store.timeline(sessionID: "s").map(\.text) == ["a", "b"])
        try store.replaceTimelineTail(sessionID: "s", with: ["a", "b", "c"].map { messageEvent("s", text: $0) })
        #expect(try store.session(id: "s")?.goneAt == nil)
    }

    @Test("live events newer than a fetch survive it, unconfirmed")
    func provisionalAfterTheFetch() throws {
        try store.replaceTimelineTail(sessionID: "s", with: ["a", "b"].map { messageEvent("s", text: $0) })
        try store.appendEvents([messageEvent("s", text: "stale server row")])
        try store.appendEvents([messageEvent("s", text: "live", provisional: true)])
        let outcome = try store.replaceTimelineTail(sessionID: "s", with: ["a", "b"].map { messageEvent("s", text: $0) })
        #expect(outcome == TailReplacement(kept: 2, removed: 0, inserted: 0, confirmed: 0, markedGone: 1))
        let events = try store.timeline(sessionID: "s")
        #expect(events.map(\.text) == ["a", "b", "stale server row", "live"])
        #expect(events.map(\.provisional) == [false, false, false, true])
        #expect(events.map { $0.goneAt != nil } == [false, false, true, false])
    }

    @Test("a fetch asked for after every live event arrived drops provisional events it does not hold")
    func provisionalCoveredByTheFetch() throws {
        let fetched = ["a", "live"].map { messageEvent("s", text: $0) }
        try store.replaceTimelineTail(sessionID: "s", with: fetched)
        try store.appendEvents([messageEvent("s", text: "live", provisional: true)])
        let outcome = try store.replaceTimelineTail(sessionID: "s", with: fetched, fetchedAfterLiveEvents: true)
        #expect(outcome == TailReplacement(kept: 2, removed: 1, inserted: 0, confirmed: 0))
        #expect(try store.timeline(sessionID: "s").map(\.text) == ["a", "live"])
        #expect(try !store.hasProvisionalEvents(sessionID: "s"))
        #expect(try store.counts().events == 2)
    }

    @Test("event ids are never handed out twice, even after replacements")
    func eventIDsAreNotReused() throws {
        try store.replaceTimelineTail(sessionID: "s", with: ["a"].map { messageEvent("s", text: $0) })
        try store.appendEvents([messageEvent("s", text: "b", provisional: true)])
        let replacedID = try #require(try store.timeline(sessionID: "s").last?.eventID)
        try store.replaceTimelineTail(sessionID: "s", with: ["a", "c"].map { messageEvent("s", text: $0) }, fetchedAfterLiveEvents: true)
        #expect(try store.event(id: replacedID) == nil)
        #expect(try store.timeline(sessionID: "s").last?.eventID == replacedID + 1)
    }

    @Test("a refetch confirms provisional live events and keeps local ones")
    func provisionalAndLocal() throws {
        try store.replaceTimelineTail(sessionID: "s", with: [messageEvent("s", text: "first")])
        #expect(try !store.hasProvisionalEvents(sessionID: "s"))
        try store.appendEvents([messageEvent("s", text: "live", provisional: true)])
        #expect(try store.hasProvisionalEvents(sessionID: "s"))
        #expect(try store.pendingPromptCount(sessionID: "s") == 0)
        try store.enqueuePrompt(sessionID: "s", text: "my prompt", clientMessageID: "cm-1",
                                localEcho: NewEvent(sessionID: "s", kind: "user_message_chunk", text: "my prompt",
                                                    updateJSON: Array(#"{"prompt":"my prompt"}"#.utf8)))
        try store.appendEvents([messageEvent("s", text: "wrong guess", provisional: true)])

        let outcome = try store.replaceTimelineTail(
            sessionID: "s",
            with: ["first", "live", "reply"].map { messageEvent("s", text: $0) }
        )
        #expect(outcome == TailReplacement(kept: 1, removed: 1, inserted: 1, confirmed: 1))
        let events = try store.timeline(sessionID: "s")
        #expect(events.map(\.text) == ["first", "live", "my prompt", "reply"])
        #expect(events.map(\.origin) == [.server, .server, .local, .server])
        #expect(events.allSatisfy { !$0.provisional })
        #expect(try !store.hasProvisionalEvents(sessionID: "s"))
        #expect(try store.pendingPromptCount(sessionID: "s") == 1)
    }
}

import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Packed event batches", .endsWithin(.seconds(120)))
struct EventBatchTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    func modeEvent(_ session: String, seq: Int64, mode: String) -> NewEvent {
        let json = #"{"sessionUpdate":"current_mode_update","current_mode_id":"\#(mode)"}"#
        return NewEvent(sessionID: session, seq: seq, kind: "current_mode_update", text: mode, updateJSON: Array(json.utf8))
    }

    @Test("a packed event reads back exactly as given: bytes, kind, text, hash, flags, origin")
    func roundTrip() throws {
        let bytes: [UInt8] = Array(#"{"sessionUpdate":"usage_update","x":"é"}"#.utf8) + [0xFF]
        let events = [
            NewEvent(sessionID: "a", seq: 1, timestamp: 5, kind: "usage_update", text: "", updateJSON: bytes),
            NewEvent(sessionID: "a", kind: "agent_message_chunk", text: "héllo", updateJSON: [], contentHash: ContentHash(rawValue: -7),
                     provisional: true, origin: .local),
        ]
        try store.appendEvents(EventBatch(events))
        let mirrored = try store.timeline(sessionID: "a")
        #expect(mirrored.map(\.updateJSON) == [bytes, []])
        #expect(mirrored.map(\.kind) == ["usage_update", "agent_message_chunk"])
        #expect(mirrored.map(\.text) == ["", "héllo"])
        #expect(mirrored.map(\.contentHash) == [ContentHash(of: bytes), ContentHash(rawValue: -7)])
        #expect(mirrored.map(\.provisional) == [false, true])
        #expect(mirrored.map(\.origin) == [.server, .local])
        #expect(mirrored.map(\.timestamp) == [5, nil])
    }

    @Test("content hashes are FNV-1a of the bytes, whether read from a string or a buffer (stored hashes never change)")
    func contentHashIsFNV1a() {
        func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
            var hasher = ContentHash.Hasher()
            hasher.combine(bytes)
            return UInt64(bitPattern: hasher.value)
        }
        #expect(hash("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(hash("foobar".utf8) == 0x8594_4171_f739_67e8)
        let text = "agent_message_chunk, ümlaut and 🙂"
        #expect(hash(text.utf8) == hash(Array(text.utf8)))
        #expect(hash(text.utf8) == hash(text.utf8.lazy.map { $0 }), "a sequence without contiguous storage")
    }

    @Test("rows go in session by session, sessions in the order they first appear, each in the order given")
    func sessionBySession() throws {
        let events = ["b", "a", "b", "c", "a", "b"].enumerated().map { messageEvent($1, seq: Int64($0 + 1), text: "\($1)\($0)") }
        let batch = EventBatch(events)
        #expect(batch.sessionIDs == ["b", "a", "c"])
        #expect(batch.rowsBySession() == [0, 2, 5, 1, 4, 3])
        try store.appendEvents(batch, advancingHistoryCursorTo: 6)
        let a = try store.timeline(sessionID: "a")
        let b = try store.timeline(sessionID: "b")
        #expect(b.map(\.text) == ["b0", "b2", "b5"])
        #expect(a.map(\.text) == ["a1", "a4"])
        #expect(b.map(\.eventID) == [1, 2, 3])
        #expect(a.map(\.eventID) == [4, 5])
        #expect(a.map(\.ordinal) == [0, 1])
    }

    @Test("events appended one by one keep their session and the modes they set; the last mode of a session wins")
    func appending() throws {
        var batch = EventBatch()
        batch.append(messageEvent("a", seq: 1, text: "one"))
        batch.append(modeEvent("b", seq: 2, mode: "plan"), mode: "plan")
        batch.append(modeEvent("a", seq: 3, mode: "ask"), mode: "ask")
        batch.append(modeEvent("a", seq: 4, mode: "code"), mode: "code")
        batch.append(messageEvent("b", seq: 5, text: "five"))
        #expect(batch.count == 5)
        #expect(batch.sessionIDs == ["a", "b"])
        #expect((0..<5).map(batch.seq(at:)) == [1, 2, 3, 4, 5])
        #expect((0..<5).map(batch.sessionID(at:)) == ["a", "b", "a", "a", "b"])
        try store.appendEvents(batch, advancingHistoryCursorTo: 5)
        #expect(try store.session(id: "a")?.mode == "code")
        #expect(try store.session(id: "b")?.mode == "plan")
        #expect(try store.timeline(sessionID: "a").map(\.text) == ["one", "ask", "code"])
        #expect(try store.timeline(sessionID: "b").map(\.text) == ["plan", "five"])
    }

    @Test("events mirrored already or repeated in the batch are skipped, and their modes with them")
    func duplicatesSkipped() throws {
        try store.appendEvents([messageEvent("a", seq: 1, text: "one"), modeEvent("a", seq: 2, mode: "old")], advancingHistoryCursorTo: 2)
        let batch = EventBatch([modeEvent("a", seq: 2, mode: "old"), messageEvent("a", seq: 4, text: "four"),
                                messageEvent("a", seq: 3, text: "three"), messageEvent("a", seq: 4, text: "four")]) {
            $0.kind == "current_mode_update" ? $0.text : nil
        }
        try store.database.run("UPDATE sessions SET mode = 'new'")
        let outcome = try store.appendEvents(batch)
        #expect(outcome == AppendOutcome(inserted: 2, duplicates: 2))
        #expect(try store.timeline(sessionID: "a").map(\.seq) == [1, 2, 4, 3])
        #expect(try store.historyCursor() == 4)
        #expect(try store.session(id: "a")?.mode == "new")
    }

    @Test("a batch keeps the events chosen, with their bytes and modes")
    func keeping() throws {
        let batch = EventBatch([messageEvent("a", seq: 1, text: "one"), modeEvent("b", seq: 2, mode: "plan"),
                                messageEvent("c", seq: 3, text: "three")]) { $0.kind == "current_mode_update" ? $0.text : nil }
        let kept = batch.keeping([1, 2])
        #expect(kept.sessionIDs == ["b", "c"])
        #expect(batch.keeping([0, 1, 2]).count == 3)
        try store.appendEvents(kept, advancingHistoryCursorTo: 3)
        #expect(try store.session(id: "b")?.mode == "plan")
        #expect(try store.timeline(sessionID: "c").map(\.text) == ["three"])
        #expect(try store.timeline(sessionID: "c").first?.updateJSON == messageEvent("c", seq: 3, text: "three").updateJSON)
        #expect(try store.session(id: "a") == nil)
    }

    @Test("a refetched tail goes into its session in the order fetched, whatever session ids its items carry")
    func refetchedTailInOrder() throws {
        let fetched = [messageEvent("a", text: "one"), messageEvent("b", text: "two"), messageEvent("a", text: "three")]
        let replaced = try store.replaceTimelineTail(sessionID: "a", with: fetched)
        #expect(replaced.inserted == 3)
        let timeline = try store.timeline(sessionID: "a")
        #expect(timeline.map(\.text) == ["one", "two", "three"])
        #expect(timeline.map(\.ordinal) == [0, 1, 2])
        #expect(try store.session(id: "b") == nil)
    }

    @Test("a prompt's echo is written as given and its id recorded, whatever seq it carries")
    func echoWrittenAsGiven() throws {
        try store.appendEvents((1...5).map { messageEvent("a", seq: Int64($0), text: "e\($0)") }, advancingHistoryCursorTo: 5)
        let item = try store.enqueuePrompt(sessionID: "a", text: "hello", clientMessageID: "m-1",
                                           localEcho: messageEvent("a", seq: 2, text: "hello"))
        let echo = try #require(try store.timeline(sessionID: "a").last)
        #expect(echo.text == "hello" && echo.origin == .local)
        #expect(item.localEventID == echo.eventID)
        #expect(try store.session(id: "a")?.localEventCount == 6)
    }
}

import TestSupport
import Testing
@testable import MirrorStore

@Suite("Open messages' texts kept from one write to the next", .endsWithin(.seconds(60)))
struct OpenMessageTextsTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    private static let stamp = OpenMessageTexts.Stamp(changes: 10, dataVersion: 2)

    /// Texts left for entry 5 (3 events up to event 9) at `stamp`, the next transaction begun at `next`.
    private func left(thenBeginAt next: OpenMessageTexts.Stamp) -> OpenMessageTexts {
        var texts = OpenMessageTexts()
        texts.begin(at: Self.stamp)
        texts.leave(entryID: 5, events: 3, lastEventID: 9, chunks: ["al", "pha ", "beta"], bytes: 10)
        texts.end(at: Self.stamp)
        texts.begin(at: next)
        return texts
    }

    @Test("the next transaction takes them for the row they were left with, once, and only if nothing changed since")
    func keptWhileUnchanged() {
        var texts = left(thenBeginAt: Self.stamp)
        #expect(texts.take(entryID: 5, events: 4, lastEventID: 11) == nil, "the row grew since")
        texts = left(thenBeginAt: Self.stamp)
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == ["al", "pha ", "beta"])
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == nil, "given once")
        texts = left(thenBeginAt: OpenMessageTexts.Stamp(changes: 11, dataVersion: 2))
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == nil, "this connection changed the mirror since")
        texts = left(thenBeginAt: OpenMessageTexts.Stamp(changes: 10, dataVersion: 3))
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == nil, "another connection committed since")
        texts = left(thenBeginAt: Self.stamp)
        texts.forget()
        texts.begin(at: Self.stamp)
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == nil, "the transaction that left them did not commit")
    }

    @Test("what one transaction leaves is bounded in bytes")
    func bounded() {
        var texts = OpenMessageTexts()
        texts.begin(at: Self.stamp)
        texts.leave(entryID: 1, events: 1, lastEventID: 1, chunks: ["a"], bytes: Int64(OpenMessageTexts.byteLimit))
        texts.leave(entryID: 2, events: 1, lastEventID: 2, chunks: ["b"], bytes: 1)
        texts.end(at: Self.stamp)
        texts.begin(at: Self.stamp)
        #expect(texts.take(entryID: 1, events: 1, lastEventID: 1) == ["a"])
        #expect(texts.take(entryID: 2, events: 1, lastEventID: 2) == nil, "over the limit")
    }

    @Test("a write's stamp stays while nothing changes, and moves with this connection's changes and another's commits")
    func stamps() throws {
        let first = try store.write { try store.transactionStamp() }
        #expect(try store.write { try store.transactionStamp() } == first)
        try store.appendEvents([messageEvent("s", text: "mine")])
        let afterOwn = try store.write { try store.transactionStamp() }
        #expect(afterOwn != first)
        let other = try MirrorStore(path: store.path)
        try other.appendEvents([messageEvent("t", text: "theirs")])
        #expect(try store.write { try store.transactionStamp() } != afterOwn)
    }

    @Test("a message continued by the next writes is indexed whole, whether its texts were kept or read back")
    func continuedMessage() throws {
        let other = try MirrorStore(path: store.path)
        // Session s goes on with the texts each write keeps; session u once another connection committed.
        try store.appendEvents(["alpha ", "bet", "a "].map { messageEvent("s", text: $0) } + ["one ", "tw"].map { messageEvent("u", text: $0) })
        try store.appendEvents(["gam", "ma "].map { messageEvent("s", text: $0) } + ["o "].map { messageEvent("u", text: $0) })
        try store.appendEvents(["delta"].map { messageEvent("s", text: $0) } + [entryEvent("s", text: "tool")])
        try other.appendEvents([messageEvent("t", text: "other")])
        try store.appendEvents(["three"].map { messageEvent("u", text: $0) } + [entryEvent("u", text: "tool")])
        for word in ["alpha", "beta", "gamma", "delta", "one", "two", "three"] {
            #expect(try store.search(word).map(\.ordinal) == [0], "\(word)")
        }
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
    }

    private struct Failure: Error {}

    @Test("a savepoint that rolls back leaves nothing of what it took or left (its event ids are handed out again)")
    func savepointRolledBack() throws {
        try store.appendEvents([messageEvent("s", text: "alpha ")])
        try store.write {
            do {
                try store.write {
                    try store.appendEvents([messageEvent("s", text: "xray ")])
                    throw Failure()
                }
            } catch is Failure {}
            try store.appendEvents([messageEvent("s", text: "yankee ")])
        }
        try store.appendEvents([messageEvent("s", text: "zulu")] + [entryEvent("s", text: "tool")])
        #expect(try store.search("xray").isEmpty, "rolled back")
        #expect(try store.search("yankee").map(\.ordinal) == [0])
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
    }
}

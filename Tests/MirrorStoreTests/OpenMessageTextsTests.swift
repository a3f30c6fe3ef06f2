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
        texts.leave(entryID: 5, events: 3, lastEventID: 9, chunks: ChunkTexts(["al", "pha ", "beta"]))
        texts.end(at: Self.stamp)
        texts.begin(at: next)
        return texts
    }

    @Test("the next transaction takes them for the row they were left with, once, and only if nothing changed since")
    func keptWhileUnchanged() {
        var texts = left(thenBeginAt: Self.stamp)
        #expect(texts.take(entryID: 5, events: 4, lastEventID: 11) == nil, "the row grew since")
        texts = left(thenBeginAt: Self.stamp)
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == ChunkTexts(["al", "pha ", "beta"]))
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

    @Test("what is kept is bounded in bytes of memory, the buffers' headers included")
    func bounded() {
        var texts = OpenMessageTexts()
        texts.begin(at: Self.stamp)
        // Over half the limit with its buffers' capacity and headers: a second one does not fit.
        let large = ChunkTexts([String(repeating: "a", count: OpenMessageTexts.byteLimit / 2)])
        let tiny = ChunkTexts(["b"])
        #expect(tiny.memoryBytes > ChunkTexts.overheadBytes)
        texts.leave(entryID: 1, events: 1, lastEventID: 1, chunks: large)
        texts.leave(entryID: 2, events: 1, lastEventID: 2, chunks: large)
        texts.leave(entryID: 3, events: 1, lastEventID: 3, chunks: tiny)
        #expect(texts.memoryBytes <= OpenMessageTexts.byteLimit)
        texts.end(at: Self.stamp)
        texts.begin(at: Self.stamp)
        #expect(texts.take(entryID: 1, events: 1, lastEventID: 1)?.count == 1)
        #expect(texts.take(entryID: 2, events: 1, lastEventID: 2) == nil, "over the limit with its overhead")
        #expect(texts.take(entryID: 3, events: 1, lastEventID: 3)?.joined == "b")
    }

    @Test("a message's pieces cost their bytes and their ends, whatever their number")
    func piecesCounted() {
        var chunks = ChunkTexts()
        for index in 0..<100_000 { chunks.append(index % 7 == 0 ? "é" : "ab") }
        let text = chunks.joined
        #expect(chunks.count == 100_000)
        #expect(chunks.joined(first: 3) == "éabab" && chunks.joined(first: 0).isEmpty && chunks.joined(first: 200_000) == text)
        let bytes = text.utf8.count + 4 * chunks.count
        #expect(chunks.memoryBytes >= bytes && chunks.memoryBytes <= 2 * bytes + ChunkTexts.overheadBytes, "\(chunks.memoryBytes) for \(bytes)")
    }

    @Test("the texts of a message a transaction did not touch are kept for the next, for a bounded number of transactions")
    func keptWhileIdle() {
        var texts = left(thenBeginAt: Self.stamp)
        texts.end(at: Self.stamp)
        texts.begin(at: Self.stamp)
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9)?.joined == "alpha beta", "one transaction went by")
        texts = left(thenBeginAt: Self.stamp)
        for _ in 0..<OpenMessageTexts.idleTransactions {
            texts.end(at: Self.stamp)
            texts.begin(at: Self.stamp)
        }
        var copy = texts
        #expect(copy.take(entryID: 5, events: 3, lastEventID: 9) != nil, "kept through \(OpenMessageTexts.idleTransactions) transactions")
        texts.end(at: Self.stamp)
        texts.begin(at: Self.stamp)
        #expect(texts.take(entryID: 5, events: 3, lastEventID: 9) == nil, "forgotten after one more")
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

    @Test("a message streaming beside others is rewritten, while it lags, from the texts kept for it, which stay kept")
    func refreshedFromKeptTexts() throws {
        // Session s streams; t and u take the writes between, as live batches of other sessions do.
        var sent = ""
        for (index, piece) in ["The rep", "ly str", "eams ", "on and ", "on"].enumerated() {
            try store.appendEvents([messageEvent("s", text: piece)])
            sent += piece
            try store.appendEvents([messageEvent(index % 2 == 0 ? "t" : "u", text: "other \(index) ")])
            mirror.clock.advance(by: MirrorStore.streamingEntryRefresh)
            try store.indexPendingSearchText()
        }
        let row = try #require(try store.database.queryFirst(
            "SELECT entry_id, events, last_event_id FROM entries WHERE session_no = (SELECT session_no FROM sessions WHERE session_id = 's')"
        ) { (entryID: $0.int64(0), events: $0.int64(1), lastEventID: $0.int64(2)) })
        #expect(row.events == 5)
        #expect(store.openMessageTexts.take(entryID: row.entryID, events: row.events, lastEventID: row.lastEventID)?.joined == sent,
                "kept through the writes of the other sessions and the rewrites of its row")
        #expect(try store.search("streams").count == 1)
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
    }

    @Test("entries withdrawn to be derived again forget every text kept")
    func forgottenOnWithdraw() throws {
        try store.appendEvents(["al", "pha"].map { messageEvent("s", text: $0) })
        let row = try #require(try store.database.queryFirst("SELECT entry_id, events, last_event_id FROM entries") {
            (entryID: $0.int64(0), events: $0.int64(1), lastEventID: $0.int64(2))
        })
        try store.write { try store.withdrawEntries(ofSession: store.sessionNumber(of: "s"), derivedThrough: store.searchIndexedUpTo()) }
        #expect(store.openMessageTexts.take(entryID: row.entryID, events: row.events, lastEventID: row.lastEventID) == nil)
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

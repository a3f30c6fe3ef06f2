import Foundation
import TestSupport
import Testing
import ToolSupport
@testable import MirrorStore

@Suite("Entries: search over messages, not chunks", .endsWithin(.seconds(120)))
struct EntriesTests {
    let mirror: MirrorFixture
    var directory: TemporaryDirectory { mirror.directory }
    var clock: ManualClock { mirror.clock }
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    static let reply = """
        Retries need idempotency keys, so that authentication survives a reconnection: backoff with jitter \
        spreads them, and the canary holds a lock until the first write lands.
        """

    /// `text` as a model streams it: pieces of 2–12 characters cut anywhere.
    private func streamed(_ text: String, session: String = "s", kind: String = "agent_message_chunk", seed: UInt64) -> [NewEvent] {
        var random = SplitMix64(seed: seed)
        return ClaudeCodeTranscript.pieces(of: text, using: &random).map { piece in
            var event = messageEvent(session, text: piece)
            event.kind = kind
            return event
        }
    }

    @Test("words and phrases cut across chunks are found; a message is one hit; its snippet is whole words")
    func acrossChunks() throws {
        try store.appendEvents([entryEventPrompt("how do retries stay safe?")] + streamed(Self.reply, seed: 7))
        for query in ["idempotency", "authentication", "reconnection", #""backoff with jitter""#, "canary lock", "the"] {
            let hits = try store.search(query)
            #expect(hits.count == 1, "\(query)")
            #expect(hits.first?.kind == "agent_message_chunk")
        }
        let hit = try #require(try store.search("canary lock").first)
        #expect(hit.ordinal == 1 && hit.lastOrdinal > hit.ordinal + 10, "the message's ordinal range")
        #expect(hit.snippet.contains("[canary]") && hit.snippet.contains("[lock]"))
        let words = Set(Self.reply.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        let shown = hit.snippet.replacing("[", with: "").replacing("]", with: "").replacing("…", with: " ")
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        #expect(shown.allSatisfy(words.contains), "only whole words: \(hit.snippet)")
        #expect(hit.snippet.count <= 240 + 2 + 4 * 2)
    }

    @Test("a long message is indexed in parts that end between words; every word of it is found")
    func longMessageInParts() throws {
        let words = (0..<60_000).map { "w\($0)" }
        try store.appendEvents(streamed(words.joined(separator: " "), seed: 9))
        let parts = try store.database.query("SELECT length FROM entries ORDER BY entry_id") { $0.int64(0) }
        #expect(parts.count >= 5 && parts.allSatisfy { $0 <= 2 * EntryWriter.partLength }, "\(parts)")
        for word in stride(from: 0, to: words.count, by: 997).map({ words[$0] }) {
            #expect(try store.search(word).count == 1, "\(word)")
        }
    }

    @Test("a pass that leaves many messages open (a catch-up across sessions) indexes them when they end or lag")
    func manyOpenMessages() throws {
        let sessions = EntryWriter.manyOpenMessages + 1
        try store.appendEvents((0..<sessions).flatMap { streamed("reply number \($0) ", session: "s\($0)", seed: UInt64($0)) })
        #expect(try store.database.scalarInt64("SELECT count(*) FROM entries WHERE indexed_events = 0") == Int64(sessions))
        #expect(try store.search("reply").isEmpty, "lagging")
        try store.appendEvents((0..<sessions).map { entryEvent("s\($0)", text: "done") })
        #expect(try store.search("reply", limit: 1000).count == sessions, "ended by the next pass, each written once")
        try store.appendEvents((0..<sessions).flatMap { streamed("second reply ", session: "s\($0)", seed: UInt64($0)) })
        clock.advance(by: MirrorStore.streamingEntryRefresh)
        try store.appendEvents((0..<sessions).flatMap { streamed("goes on ", session: "s\($0)", seed: UInt64($0)) })
        #expect(try store.search("second").isEmpty, "still growing in many sessions: not rewritten each refresh interval")
        try store.indexPendingSearchText()
        let second = try store.search("second", limit: 1000)
        #expect(second.count == 1 && second.first?.occurrences == sessions, "but by a step that derives nothing new")
    }

    @Test("prompts queued one after the other stay apart: a local echo is an entry alone")
    func queuedPrompts() throws {
        try store.createLocalSession(id: "s")
        for (index, text) in ["fix the bug", "look at tests"].enumerated() {
            try store.enqueuePrompt(sessionID: "s", text: text, clientMessageID: "c\(index)", localEcho: NewEvent(
                sessionID: "s", kind: "user_message_chunk", text: text, updateJSON: Array("{}".utf8)))
        }
        #expect(try store.search("bug").count == 1 && store.search("look").count == 1)
        #expect(try store.search("buglook").isEmpty)
    }

    @Test("the snippet of a token longer than a snippet is its start and an ellipsis")
    func longToken() throws {
        try store.appendEvents([entryEvent("s", text: "key " + String(repeating: "é", count: 300))])
        let hit = try #require(try store.search(String(repeating: "e", count: 300)).first)
        #expect(hit.snippet.hasSuffix("…") && !hit.snippet.hasSuffix("……"))
        #expect(hit.snippet.replacing("[", with: "").replacing("]", with: "").replacing("…", with: "").unicodeScalars.count <= 240)
    }

    @Test("a snippet of a long message is at most 240 characters of whole words, every term marked")
    func longSnippet() throws {
        let filler = (0..<400).map { "word\($0)" }.joined(separator: " ")
        try store.appendEvents(streamed(filler + " needle in the haystack " + filler, seed: 3))
        let hit = try #require(try store.search("needle haystack").first)
        let bare = hit.snippet.replacing("[", with: "").replacing("]", with: "").replacing("…", with: "")
        #expect(bare.unicodeScalars.count <= SearchSnippet.maximumLength)
        #expect(hit.snippet.contains("[needle] in the [haystack]"))
        #expect(hit.snippet.hasPrefix("…") && hit.snippet.hasSuffix("…"))
        #expect(bare.split(separator: " ").allSatisfy { $0.hasPrefix("word") || ["needle", "in", "the", "haystack"].contains($0) })
    }

    @Test("a message still streaming is found as it streams, its row rewritten at most once per refresh interval")
    func whileStreaming() throws {
        let pieces = streamed(Self.reply, seed: 11)
        var rewrites = 0
        var lastIndexedAt: Int64?
        for (index, piece) in pieces.enumerated() {
            try store.appendEvents([piece])
            clock.advance(by: 50)
            let indexedAt = try store.database.scalarInt64("SELECT indexed_at FROM entries WHERE kind = 'agent_message_chunk'")
            if indexedAt != lastIndexedAt { rewrites += 1 }
            lastIndexedAt = indexedAt
            if index % 10 == 9 {
                // As the engine's tick does: what lags for more than the refresh gets indexed.
                clock.advance(by: MirrorStore.streamingEntryRefresh)
                try store.indexPendingSearchText()
                let sent = pieces[...index].map(\.text).joined()
                let lastWord = try #require(sent.split(separator: " ").dropLast().last.map(String.init))
                let word = lastWord.filter { $0.isLetter }
                if !word.isEmpty { #expect(try store.search(word).count >= 1, "\(word) after \(index + 1) chunks") }
            }
        }
        #expect(rewrites < pieces.count / 3, "\(rewrites) rewrites for \(pieces.count) chunks")
        try store.appendEvents([entryEventPrompt("thanks")])
        let row = try #require(try store.database.queryFirst(
            "SELECT events, indexed_events, open FROM entries WHERE kind = 'agent_message_chunk'"
        ) { [$0.int64(0), $0.int64(1), $0.int64(2)] })
        #expect(row == [Int64(pieces.count), Int64(pieces.count), 0], "ended by the next entry: whole and closed")
        #expect(try store.search(#""lock until the first write lands""#).count == 1)
    }

    @Test("hits that restate one text are one, with how many times it recurs")
    func restatedHits() throws {
        let plan = "1. read the renderer 2. fix the token usage 3. run the tests"
        var events: [NewEvent] = []
        for index in 0..<7 {
            var update = messageEvent("s", text: plan)
            update.kind = "plan"
            events.append(update)
            events.append(contentsOf: streamed("step \(index) done, token usage is fine", seed: UInt64(index)))
        }
        try store.appendEvents(events)
        let hits = try store.search("token usage")
        #expect(hits.count == 8, "\(hits.map(\.snippet))")
        let planHit = try #require(hits.first { $0.kind == "plan" })
        #expect(planHit.occurrences == 7)
        #expect(hits.filter { $0.kind == "agent_message_chunk" }.allSatisfy { $0.occurrences == 1 })
    }

    @Test("tool output is searched only when asked; a search tells how much it holds")
    func toolOutput() throws {
        var output = messageEvent("s", text: "stack trace: retry failed at line 12")
        output.kind = "tool_call_update"
        try store.appendEvents([entryEventPrompt("why did the retry fail?"), output])
        #expect(try store.search("retry").map(\.kind) == ["tool_call"])
        #expect(try store.search("stack trace").isEmpty)
        #expect(try store.countInToolOutput(SearchExpression("stack trace")) == 1)
        #expect(try store.search("stack in:output").map(\.kind) == ["tool_call_update"])
        #expect(try store.search("retry", filter: SearchFilter(everywhere: true)).count == 2)
    }

    @Test("a rebuild from the events equals the entries derived commit by commit", arguments: [1, 2, 3, 4])
    func rebuildEqualsIncremental(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let kinds = ["agent_message_chunk", "agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call",
                     "tool_call_update", "plan", "current_mode_update"]
        var pending: [NewEvent] = []
        var indexing = SearchIndexingMode.withCommit
        for _ in 0..<300 {
            let session = ["a", "b", "c"].randomElement(using: &random) ?? "a"
            let kind = kinds.randomElement(using: &random) ?? "plan"
            let text = (0..<Int.random(in: 1...30, using: &random)).map { _ in "w\(Int.random(in: 0..<50, using: &random))" }
                .joined(separator: " ")
            var events = kind.hasSuffix("_chunk")
                ? streamed(text + " ", session: session, kind: kind, seed: random.next())
                : [{ var event = messageEvent(session, text: text); event.kind = kind; return event }()]
            // Live updates of session a, some in the middle of its timeline: the fetch below replaces them.
            if session == "a" && Int.random(in: 0..<5, using: &random) == 0 {
                events = events.map { var event = $0; event.provisional = true; return event }
            }
            pending += events
            if Int.random(in: 0..<4, using: &random) == 0 {
                indexing = Bool.random(using: &random) ? .putOff : .withCommit
                clock.advance(by: Int64.random(in: 0...800, using: &random))
                try store.appendEvents(pending, indexing: indexing)
                pending = []
            }
        }
        try store.appendEvents(pending, indexing: indexing)
        // A live update the next fetch replaces, deleting indexed events in the middle of a session.
        try store.appendEvents([messageEvent("a", text: "provisional words", provisional: true)], indexing: indexing)
        let fetched = try store.timeline(sessionID: "a").filter { !$0.provisional }.map {
            NewEvent(sessionID: "a", kind: $0.kind, text: $0.text, updateJSON: $0.updateJSON, contentHash: $0.contentHash)
        }
        try store.replaceTimelineTail(sessionID: "a", with: fetched + [messageEvent("a", text: "final words")],
                                      fetchedAfterLiveEvents: true, indexing: indexing)
        clock.advance(by: 1_000)
        try store.indexPendingSearchText()
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
        #expect(incremental.entries.count > 100)
        try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test("a fetch replacing live updates at the end of a long session derives again only the entries from the change on")
    func boundedRederivation() throws {
        for turn in 0..<50 {
            try store.appendEvents([entryEventPrompt("question \(turn)")] + streamed("answer number \(turn) ", seed: UInt64(turn)))
        }
        try store.appendEvents(streamed("live words ", seed: 99).map { var event = $0; event.provisional = true; return event })
        clock.advance(by: 1_000)
        let fetched = try store.timeline(sessionID: "s").filter { !$0.provisional }.map {
            NewEvent(sessionID: "s", kind: $0.kind, text: $0.text, updateJSON: $0.updateJSON, contentHash: $0.contentHash)
        }
        try store.replaceTimelineTail(sessionID: "s", with: fetched + streamed("final words ", seed: 100), fetchedAfterLiveEvents: true)
        try store.catchUpStreamingEntries()
        let rewritten = try store.database.query("SELECT first_ordinal FROM entries WHERE indexed_at = ?1", [clock.mirrorClock.now()]) { $0.int64(0) }
        let lastPrompt = try #require(try store.database.scalarInt64("SELECT max(ordinal) FROM events WHERE kind = 'tool_call'"))
        #expect(rewritten == [lastPrompt + 1], "the last reply alone, which the live words had gone on")
        #expect(try store.search("live").isEmpty && store.search("final").count == 1 && store.search("answer", limit: 100).count == 50)
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
    }

    @Test("an indexed event cannot be deleted or changed under its entries, but through the store")
    func guards() throws {
        try store.appendEvents([entryEventPrompt("first")] + streamed("a reply with several more words after it ", seed: 1) + [entryEventPrompt("second")])
        let reply = try #require(try store.database.scalarInt64("SELECT max(event_id) FROM events WHERE kind = 'agent_message_chunk'"))
        #expect(throws: SQLiteError.self) { try store.database.run("DELETE FROM events WHERE event_id = ?", [reply]) }
        #expect(throws: SQLiteError.self) { try store.database.run("UPDATE events SET text = 'x' WHERE event_id = ?", [reply]) }
        try store.write { try store.deleteEvents([reply], ofSession: 1) }
        #expect(try store.search("reply").count == 1)
        // A single entry guards its own event, the last of the session included.
        let second = try #require(try store.database.scalarInt64("SELECT max(event_id) FROM events"))
        #expect(try store.database.scalarInt64("SELECT count(*) FROM single_entries WHERE event_id = ?", [second]) == 1)
        #expect(throws: SQLiteError.self) { try store.database.run("DELETE FROM events WHERE event_id = ?", [second]) }
        #expect(throws: SQLiteError.self) { try store.database.run("UPDATE events SET text = 'x' WHERE event_id = ?", [second]) }
        try store.write { try store.deleteEvents([second], ofSession: 1) }
        #expect(try store.search("second").isEmpty)
        #expect(try store.database.scalarInt64("SELECT count(*) FROM single_entries WHERE event_id = ?", [second]) == 0)
    }

    @Test("a merge while the server session's last events wait for indexing ends and joins its messages as a rebuild does")
    func mergeBeforeIndexing() throws {
        try store.appendEvents([messageEvent("srv", text: "alp")])
        try store.createLocalSession(id: "loc")
        try store.appendEvents([messageEvent("loc", text: "ha beta")])
        try store.createLocalSession(id: "echo")
        try store.enqueuePrompt(sessionID: "echo", text: "go", clientMessageID: "c", localEcho: NewEvent(
            sessionID: "echo", kind: "user_message_chunk", text: "go", updateJSON: Array("{}".utf8)))
        try store.appendEvents([entryEvent("srv", text: "tool"), entryEvent("two", text: "tool")], indexing: .putOff)
        try store.appendEvents([messageEvent("two", text: "alpha ")], indexing: .putOff)
        try store.remapSession(localID: "loc", to: "srv")
        try store.remapSession(localID: "echo", to: "two")
        try store.indexPendingSearchText()
        let incremental = try EntriesSnapshot(store)
        try store.rebuildEntries()
        #expect(try EntriesSnapshot(store) == incremental)
    }

    @Test("a chunk cannot be deleted from under its message past a tool call's update inside it")
    func guardPastAnUpdate() throws {
        var update = messageEvent("s", text: "progress")
        update.kind = "tool_call_update"
        try store.appendEvents([messageEvent("s", text: "one "), update, messageEvent("s", text: "two "), messageEvent("s", text: "three")])
        let two = try #require(try store.database.scalarInt64("SELECT event_id FROM events WHERE text = 'two '"))
        #expect(throws: SQLiteError.self) { try store.database.run("DELETE FROM events WHERE event_id = ?", [two]) }
    }

    @Test("the migrations derive the entries of a mirror made before them, at their end, however many opens they took")
    func migration() throws {
        let path = directory.path("older.sqlite")
        do {
            // Written by this build's code, but indexed as the older one did: every event up to the watermark.
            let older = try MirrorStore(path: path, mode: .readWrite, clock: clock.mirrorClock, migratingTo: MirrorStore.entriesVersion - 1)
            try older.appendEvents(streamed(Self.reply, seed: 5), indexing: .putOff)
            try older.database.run("UPDATE counters SET value = (SELECT max(event_id) FROM events) WHERE name = 'search_indexed'")
        }
        // Migrations stopped past the entries' version (a crash, a full disk) still leave them to derive.
        _ = try MirrorStore(path: path, mode: .readWrite, clock: clock.mirrorClock, migratingTo: MirrorStore.entriesVersion + 1)
        let store = try MirrorStore(path: path, clock: clock.mirrorClock)
        #expect(try store.search("idempotency").count == 1)
        #expect(try store.database.scalarInt64("SELECT count(*) FROM entries") == 1)
    }

    /// A prompt sent whole: an entry of its own after any message.
    private func entryEventPrompt(_ text: String) -> NewEvent {
        entryEvent("s", text: text)
    }
}

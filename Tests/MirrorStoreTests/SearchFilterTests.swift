import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Search: relevance and filters", .endsWithin(.seconds(120)))
struct SearchFilterTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    /// An event of `kind`; by default an entry of its own (`entryEvent`).
    private func event(_ session: String, seq: Int64, kind: String = "tool_call", text: String) -> NewEvent {
        var event = messageEvent(session, seq: seq, text: text)
        event.kind = kind
        return event
    }

    @Test("the most relevant first; the newest first among equals")
    func relevance() throws {
        try store.appendEvents([
            event("a", seq: 1, text: "parser"),
            event("a", seq: 2, text: "the parser of the bridge reads every frame of the session twice over"),
            event("b", seq: 3, text: "parser"),
            event("b", seq: 4, text: "parser parser"),
        ] + (5...10).map { event("c", seq: $0, text: "something else") })
        // 1 and 3 say the same: one hit, the newest of them, that recurs twice.
        #expect(try store.search("parser").map { [$0.eventID, Int64($0.occurrences)] } == [[4, 1], [3, 2], [2, 1]])
        #expect(try store.search("parser", limit: 2, offset: 1).map(\.eventID) == [3, 2])
    }

    @Test("by session, kind and time; every condition at once")
    func filters() throws {
        try store.appendEvents([
            event("a", seq: 1, kind: "agent_message_chunk", text: "flaky socket"),
            event("b", seq: 2, kind: "agent_thought_chunk", text: "flaky thought"),
            event("a", seq: 3, kind: "user_message_chunk", text: "why flaky"),
            event("b", seq: 4, kind: "agent_message_chunk", text: "flaky again"),
            event("a", seq: 5, kind: "agent_message_chunk", text: "flaky at last"),
        ])
        let at = { (seq: Int64) in 1_731_000_000_000 + seq }
        // The texts found (event ids follow sessions within a batch, not seqs).
        func found(_ filter: SearchFilter) throws -> Set<String> {
            Set(try store.search("flaky", filter: filter).map { $0.snippet.replacing("[flaky]", with: "flaky") })
        }
        #expect(try found(SearchFilter(sessionID: "a")) == ["flaky socket", "why flaky", "flaky at last"])
        #expect(try found(SearchFilter(sessionID: "nope")) == [])
        #expect(try found(SearchFilter(kind: "agent_thought_chunk")) == ["flaky thought"])
        #expect(try found(SearchFilter(kind: "agent_message")) == [], "a kind is matched whole")
        #expect(try found(SearchFilter(since: at(3))) == ["why flaky", "flaky again", "flaky at last"])
        #expect(try found(SearchFilter(until: at(2))) == ["flaky socket", "flaky thought"])
        #expect(try found(SearchFilter(since: at(2), until: at(4))) == ["flaky thought", "why flaky", "flaky again"])
        #expect(try found(SearchFilter(sessionID: "a", kind: "agent_message_chunk", since: at(2))) == ["flaky at last"])
        #expect(try found(SearchFilter(since: at(6))) == [])
    }

    @Test("a session's matches are found however its events interleave with others'")
    func interleavedSession() throws {
        // 300 events of "a", each between two of "b": more ranges than the search reads separately.
        var events: [NewEvent] = []
        for index in 0..<900 {
            let seq = Int64(index + 1)
            events.append(event(index % 3 == 1 ? "a" : "b", seq: seq, text: "needle \(index)"))
        }
        try store.appendEvents(events)
        let hits = try store.search("needle", filter: SearchFilter(sessionID: "a"), limit: 1000)
        #expect(hits.count == 300)
        #expect(Set(hits.map(\.sessionID)) == ["a"])
        let prefixed = try store.search("need*", filter: SearchFilter(sessionID: "a"), limit: 1000)
        #expect(Set(prefixed.map(\.eventID)) == Set(hits.map(\.eventID)), "a prefix finds the same")
        #expect(prefixed.allSatisfy { $0.snippet.hasPrefix("[needle]") })
        let page = try store.search("need* 1*", filter: SearchFilter(sessionID: "a"), limit: 5, offset: 2)
        #expect(page.count == 5 && page.allSatisfy { $0.snippet.hasPrefix("[needle] [1") })
    }

    @Test("words are searched in the text alone: a session's or a kind's token in the index is not a word")
    func tokensAreNotWords() throws {
        try store.appendEvents([event("a", seq: 1, text: "plain words"), event("b", seq: 2, text: "s1 written out")])
        let session = try #require(try store.database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = 'a'"))
        #expect(try store.search("s\(session)").map(\.sessionID) == (session == 1 ? ["b"] : []))
        #expect(try store.search(MirrorStore.kindToken("tool_call")).isEmpty)
        #expect(try store.search("k*").isEmpty)
    }

    @Test("a session merged into another is found under its new id, and no longer under the old one")
    func mergedSession() throws {
        try store.createLocalSession(id: "local-1")
        let echo = NewEvent(sessionID: "local-1", kind: "user_message_chunk", text: "fix the flaky test", updateJSON: Array("{}".utf8))
        _ = try store.enqueuePrompt(sessionID: "local-1", text: "fix the flaky test", clientMessageID: "c", localEcho: echo)
        #expect(try store.search("flaky", filter: SearchFilter(sessionID: "local-1")).count == 1)
        try store.remapSession(localID: "local-1", to: "SERVER-1")
        #expect(try store.search("flaky", filter: SearchFilter(sessionID: "SERVER-1")).map(\.sessionID) == ["SERVER-1"])
        #expect(try store.search("flaky", filter: SearchFilter(sessionID: "SERVER-1", kind: "user_message_chunk")).count == 1)
        #expect(try store.search("flaky", filter: SearchFilter(sessionID: "local-1")).isEmpty)
        try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    }

    @Test("time filters find exactly the events in range, across spans of many commits and times out of order")
    func timeAcrossSpans() throws {
        // 12,000 events in commits of 500, times shuffled within each commit and rising across
        // them, with one commit of times from long ago in the middle.
        var random = SystemRandomNumberGenerator()
        var seq: Int64 = 0
        for commit in 0..<24 {
            let base: Int64 = commit == 12 ? 1_000 : 1_000_000 + Int64(commit) * 1_000
            let events = (0..<500).map { index -> NewEvent in
                seq += 1
                var event = event(index % 2 == 0 ? "a" : "b", seq: seq, text: "needle \(seq)")
                event.timestamp = base + Int64.random(in: 0..<1_000, using: &random)
                return event
            }
            try store.appendEvents(events.shuffled(using: &random))
        }
        let spans = try store.database.query("SELECT first_event_id, last_event_id FROM search_spans ORDER BY 1") { ($0.int64(0), $0.int64(1)) }
        #expect(spans.count == 2, "spans: \(spans)")
        #expect(spans.allSatisfy { $0.1 - $0.0 + 1 <= MirrorStore.searchSpanWidth + 500 })
        for (since, until) in [(Int64?.some(1_005_500), Int64?.none), (nil, 1_500), (1_010_000, 1_012_250), (500, 1_000_999), (2_000_000, nil)] {
            let expected = Set(try store.database.query(
                "SELECT event_id FROM events WHERE (?1 IS NULL OR ts >= ?1) AND (?2 IS NULL OR ts <= ?2)", [since, until]
            ) { $0.int64(0) })
            let found = try store.search("needle", filter: SearchFilter(since: since, until: until), limit: 20_000)
            #expect(Set(found.map(\.eventID)) == expected, "since \(String(describing: since)), until \(String(describing: until))")
        }
    }

    @Test("a prefix finds the entries FTS5 finds for it, and marks the words it starts, diacritics and case folded as the index folds them")
    func prefixSnippets() throws {
        let texts = ["Élan PARSER parsed the pärsing", "the parse tree", "Parsers: élan vital", "unrelated words", "foo-bar and foo-baz",
                     "ÉLAN again, with a \"quoted\" parsnip"]
        try store.appendEvents(texts.enumerated().map { event("a", seq: Int64($0.offset + 1), text: $0.element) })
        let expectedSnippets = [
            "pars*": ["Élan [PARSER] [parsed] the [pärsing]", "the [parse] tree", "[Parsers]: élan vital",
                      "ÉLAN again, with a \"quoted\" [parsnip]"],
            "éla*": ["[Élan] PARSER parsed the pärsing", "Parsers: [élan] vital", "[ÉLAN] again, with a \"quoted\" parsnip"],
            "foo-ba*": ["[foo]-[bar] and [foo]-[baz]"],
        ]
        for words in ["pars*", "PÄRS*", "éla*", "ela* pars*", "foo-ba*", "\"quo*", "parse*"] {
            let hits = try store.search(words, limit: 100)
            #expect(!hits.isEmpty, "\(words)")
            let query = try #require(CompiledSearch(SearchExpression(words).node)).words
            let expected = try store.database.query(
                "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid", [query]
            ) { $0.int64(0) }
            #expect(hits.map(\.eventID).sorted() == expected, "\(words)")
            if let snippets = expectedSnippets[words] {
                #expect(hits.map(\.snippet).sorted() == snippets.sorted(), "\(words)")
            }
        }
        let tokens = try store.read { try SearchTokenizer.tokens(of: ["Élan PARSER, pärsing"], database: store.database) }
        #expect(tokens == [["elan", "parser", "parsing"]])
    }
}

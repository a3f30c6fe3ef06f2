import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Full-text search", .endsWithin(.seconds(120)))
struct SearchTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    @Test("inserts are found, newest first, with snippets")
    func inserts() throws {
        try store.appendEvents([
            entryEvent("a", seq: 1, text: "The parser drops the last token"),
            entryEvent("b", seq: 2, text: "Fixed the parser; tests pass"),
            entryEvent("b", seq: 3, text: "unrelated"),
        ])
        let hits = try store.search("parser")
        #expect(hits.map(\.sessionID) == ["b", "a"])
        #expect(hits[0].snippet == "Fixed the [parser]; tests pass")
        #expect(hits[1].ordinal == 0)
        #expect(try store.search("PARSER token").map(\.sessionID) == ["a"])
        #expect(try store.search("pars*").count == 2)
        #expect(try store.search("nothing-like-this").isEmpty)
        try expectIndexIntact()
    }

    @Test("replacements and deletes leave no stale hits")
    func replacementsAndDeletes() throws {
        try store.replaceTimelineTail(sessionID: "s", with: ["alpha"].map { entryEvent("s", text: $0) })
        try store.appendEvents([entryEvent("s", text: "bravo", provisional: true)])
        #expect(try store.search("bravo").count == 1)
        try store.replaceTimelineTail(sessionID: "s", with: ["alpha", "charlie"].map { entryEvent("s", text: $0) },
                                      fetchedAfterLiveEvents: true)
        #expect(try store.search("bravo").isEmpty)
        #expect(try store.search("charlie").count == 1)

        let item = try store.enqueuePrompt(sessionID: "s", text: "delta", clientMessageID: "c1",
                                           localEcho: NewEvent(sessionID: "s", kind: "user_message_chunk", text: "delta",
                                                               updateJSON: Array("{}".utf8)))
        #expect(try store.search("delta").count == 1)
        try store.dropOutboxItem(id: item.id)
        #expect(try store.search("delta").isEmpty)

        // An indexed event changed behind the store's back would leave its entry stale: refused.
        #expect(throws: SQLiteError.self) { try store.database.run("UPDATE events SET text = 'echo' WHERE text = 'alpha'") }
        #expect(throws: SQLiteError.self) { try store.database.run("DELETE FROM sessions WHERE session_id = 's'") }
        #expect(try store.search("alpha charlie").count == 0)
        #expect(try store.search("alpha").count == 1)
        try expectIndexIntact()
    }

    @Test("indexing put off is caught up later, oldest first and in bounded steps; deletes before it are harmless")
    func deferredIndexing() throws {
        try store.appendEvents(["kilo one", "kilo two", "kilo three", "lima"].enumerated().map {
            entryEvent("s", seq: Int64($0.offset + 1), text: $0.element)
        }, indexing: .putOff)
        #expect(try store.search("kilo").isEmpty, "not indexed yet")
        try store.replaceTimelineTail(sessionID: "t", with: [entryEvent("t", text: "mike")], indexing: .putOff)
        try store.database.run("DELETE FROM events WHERE text = 'kilo two'")
        #expect(try store.indexPendingSearchText(atMost: 2) == 2)
        #expect(try store.search("kilo").map(\.snippet) == ["[kilo] one"])
        try store.appendEvents([entryEvent("s", seq: 5, text: "kilo five")])
        #expect(try store.searchIndexedUpTo() == 6)
        #expect(try store.search("kilo").count == 3)
        #expect(try store.search("mike").count == 1)
        #expect(try store.indexPendingSearchText() == 0)
        try expectIndexIntact()
    }

    @Test("search text is the query language, never FTS syntax")
    func queryLanguage() throws {
        try store.appendEvents([entryEvent("s", seq: 1, text: #"say "hi" AND NOT bye (really) status:500 {x} NEAR(a b)"#),
                                entryEvent("s", seq: 2, text: "backoff with jitter, then bye")])
        for query in [#"""#, "AND", "NOT bye", "(really", "hi\"", "*", "NEAR(", "a:b", "{", "status:500", "-", "-(", "OR OR", ")("] {
            _ = try store.search(query)
        }
        let first = try #require(try store.search("say").first).ordinal
        let second = try #require(try store.search("backoff").first).ordinal
        #expect(try store.search("bye").count == 2)
        #expect(try store.search("bye -jitter").map(\.ordinal) == [first], "excluded")
        #expect(try store.search("NOT bye").isEmpty, "only excluded: nothing to find")
        #expect(try store.search(#""backoff with jitter""#).map(\.ordinal) == [second], "a phrase")
        #expect(try store.search(#""jitter with backoff""#).isEmpty, "a phrase's words in its order")
        #expect(try store.search("really OR jitter").count == 2)
        #expect(try store.search("(really OR jitter) -bye").isEmpty)
        #expect(try store.search("status:500 NEAR(").map(\.ordinal) == [first], "words, whatever their punctuation")
        #expect(try store.search("   ").isEmpty)
        #expect(try store.search("jitter\u{0}bye").count == 1, "a NUL separates words")
    }

    @Test("oa_bm25 given exact counts scores every match as bm25 of the entries' lengths in bytes")
    func rankMatchesBM25() throws {
        let texts = ["the parser drops the last token", "parser parser parser", "a long line about the parser and its many tests",
                     "tests pass", "the token parser tests", "nothing"]
        try store.appendEvents(texts.enumerated().map { entryEvent("s", seq: Int64($0.offset + 1), text: $0.element) })
        let textBytes = texts.reduce(0) { $0 + $1.utf8.count }
        #expect(try store.indexedTextBytes() == Int64(textBytes))
        let firstID = try #require(try store.database.scalarInt64("SELECT min(event_id) FROM events"))
        for words in [["parser"], ["parser", "tests"], ["tok*"], ["the", "parser"]] {
            let terms = words.compactMap { CompiledSearch(SearchExpression($0).node)?.phrases.first?.fts }
            let counts = try terms.map { term in
                Double(try store.database.scalarInt64("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1", ["{text} : " + term]) ?? 0)
            }
            let placeholders = counts.indices.map { ", ?\($0 + 3)" }.joined()
            let scores = try store.database.query(
                """
                SELECT entries_fts.rowid, oa_bm25(entries_fts, s.length, ?2\(placeholders))
                FROM entries_fts JOIN single_entries s ON s.event_id = entries_fts.rowid WHERE entries_fts MATCH ?1
                """,
                ["{text} : (" + terms.joined(separator: " ") + ")", textBytes] + counts
            ) { ($0.int64(0), $0.double(1)) }
            #expect(!scores.isEmpty)
            for (rowID, score) in scores {
                let tokens = texts[Int(rowID - firstID)].split(separator: " ")
                let frequencies = words.map { word in
                    tokens.count { word.hasSuffix("*") ? $0.hasPrefix(word.dropLast()) : $0 == word }
                }
                let expected = Self.bm25(frequencies: frequencies, documents: counts, rows: Double(texts.count),
                                         length: Double(tokens.joined(separator: " ").utf8.count),
                                         averageLength: Double(textBytes) / Double(texts.count))
                #expect(abs(expected - score) < 1e-9, "\(words), row \(rowID): bm25 \(expected), oa_bm25 \(score)")
            }
        }
    }

    /// Okapi BM25 (k1 = 1.2, b = 0.75), negated, and an inverse document frequency of at least
    /// 1e-6, as FTS5 computes it.
    private static func bm25(frequencies: [Int], documents: [Double], rows: Double, length: Double, averageLength: Double) -> Double {
        -zip(frequencies, documents).reduce(0.0) { score, term in
            let frequency = Double(term.0)
            let inverse = max(1e-6, log((rows - term.1 + 0.5) / (term.1 + 0.5)))
            return score + inverse * frequency * 2.2 / (frequency + 1.2 * (0.25 + 0.75 * length / averageLength))
        }
    }

    @Test("a word's events are counted below the rank window and estimated above it, from its newest matches")
    func documentCounts() throws {
        // "common" in every third event, "rare" in ten.
        let texts = (0..<3000).map { index in (index % 3 == 0 ? "common " : "other ") + (index % 300 == 0 ? "rare" : "") }
        try store.appendEvents(texts.map { entryEvent("s", text: $0) })
        #expect(try store.documentCount(of: "\"rare\"") == 10)
        let estimate = try store.documentCount(of: "\"common\"")
        #expect(abs(estimate - 1000) / 1000 < 0.05, "estimate \(estimate) for 1000")
        let rare = try store.search("common rare")
        #expect(rare.count == 1 && rare.first?.occurrences == 10, "ten entries of one text: one hit")
    }

    private func expectIndexIntact() throws {
        try store.database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    }
}

import Foundation
import TestSupport
import Testing
@testable import MirrorStore

/// The query language: one reading of what people type, total (every input is a query), compiled
/// to FTS5 text that SQLite always accepts.
@Suite("The search query language", .endsWithin(.seconds(300)))
struct SearchExpressionTests {
    private func term(_ text: String, prefix: Bool = false) -> SearchExpression.Node {
        .term(SearchTerm(text: text, isPrefix: prefix))
    }

    @Test("words, phrases, OR, NOT and -, parentheses, prefixes and places")
    func grammar() {
        #expect(SearchExpression("flaky reconnect").node == .all([term("flaky"), term("reconnect")]))
        #expect(SearchExpression("a OR b c").node == .any([term("a"), .all([term("b"), term("c")])]), "OR binds loosest")
        #expect(SearchExpression("a or b").node == .all([term("a"), term("or"), term("b")]), "operators in capitals only")
        #expect(SearchExpression(#"retry -"backoff with jitter" NOT slow"#).node
            == .all([term("retry"), .not(term("backoff with jitter")), .not(term("slow"))]))
        #expect(SearchExpression("(a OR b) c").node == .all([.any([term("a"), term("b")]), term("c")]))
        #expect(SearchExpression("-(a b) c").node == .all([.not(.all([term("a"), term("b")])), term("c")]))
        #expect(SearchExpression("pars* vis-timeline").node == .all([term("pars", prefix: true), term("vis-timeline")]))
        #expect(SearchExpression("a AND b").node == .all([term("a"), term("b")]), "AND is what words side by side mean")
        let placed = SearchExpression("in:user IN:assistant in:Output in:nowhere lock")
        #expect(placed.places == [.user, .output] && placed.node == .all([term("IN:assistant"), term("in:nowhere"), term("lock")]))
    }

    @Test("session:, desktop:, since: and until: are fields; another name before a colon is a word")
    func fields() {
        let query = SearchExpression("flaky session:5f0c since:2024-11-07T17:20:00Z status:500 until: desktop:mac-mini")
        #expect(query.fields == [SearchField(name: .session, value: "5f0c"), SearchField(name: .since, value: "2024-11-07T17:20:00Z"),
                                 SearchField(name: .desktop, value: "mac-mini")])
        #expect(query.node == .all([term("flaky"), term("status:500"), term("until:")]), "a field needs a value")
    }

    @Test("what is not well formed is read as words")
    func lenient() {
        #expect(SearchExpression(#"say "hi there"#).node == .all([term("say"), term("hi"), term("there")]), "an unbalanced quote")
        #expect(SearchExpression("(a OR b").node == .any([term("a"), term("b")]), "a ( without its )")
        #expect(SearchExpression(")a(").node == term("a"))
        #expect(SearchExpression("NOT NOT a").node == term("a"))
        #expect(SearchExpression("a OR").node == term("a"))
        #expect(SearchExpression("NEAR(").node == term("NEAR"))
        #expect(SearchExpression("").node == nil && SearchExpression(" \u{0} ").node == nil)
        #expect(CompiledSearch(SearchExpression("-a").node) == nil, "only excluded: nothing to find")
        #expect(CompiledSearch(SearchExpression("{ } - *").node) == nil, "no letter or digit: no token to find")
        #expect(CompiledSearch(SearchExpression("a OR -b").node)?.words == #"{text} : ("a")"#)
        #expect(CompiledSearch(SearchExpression("a -b -c d").node)?.words == #"{text} : ((("a" AND "d") NOT ("b" OR "c")))"#)
    }

    @Test("hostile depth: 100,000 parentheses or NOTs are read without exhausting the stack")
    func depth() {
        let deep = String(repeating: "(", count: 100_000) + "a" + String(repeating: ")", count: 100_000)
        #expect(SearchExpression(deep).node == term("a"))
        #expect(SearchExpression(String(repeating: "NOT ", count: 100_001) + "a").node == .not(term("a")))
    }

    @Test("10,000 generated queries: each parses, compiles to FTS5 text SQLite accepts, and searches without error")
    func fuzz() async throws {
        try await onThreadOfItsOwn(Self.searchGeneratedQueries)
    }

    private static func searchGeneratedQueries() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("mirror.sqlite"))
        try store.appendEvents(GeneratedQueries.texts.enumerated().map { index, text in
            let json = #"{"sessionUpdate":"agent_message_chunk"}"#
            return NewEvent(sessionID: "s\(index % 2)", seq: Int64(index + 1), kind: "agent_message_chunk", text: text, updateJSON: Array(json.utf8))
        })
        var found = 0
        for query in GeneratedQueries.make() {
            do {
                found += try store.search(query, limit: 5).count
            } catch {
                Issue.record("\(query.debugDescription): \(error)")
            }
        }
        #expect(found > 0, "some generated queries find something")
    }
}

import Foundation
import TestSupport
import Testing
@testable import MirrorStore

@Suite("Search: relevance and filters")
struct SearchFilterTests {
    let directory: TemporaryDirectory
    let store: MirrorStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try MirrorStore(path: directory.path("mirror.sqlite"))
    }

    private func event(_ session: String, seq: Int64, kind: String = "agent_message_chunk", text: String) -> NewEvent {
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
        #expect(try store.search("parser").map(\.eventID) == [4, 3, 1, 2])
        #expect(try store.search("parser", limit: 2, offset: 1).map(\.eventID) == [3, 1])
    }

    @Test("by session, kind and time; every condition at once")
    func filters() throws {
        try store.appendEvents([
            event("a", seq: 1, text: "flaky socket"),
            event("b", seq: 2, kind: "agent_thought_chunk", text: "flaky thought"),
            event("a", seq: 3, kind: "user_message_chunk", text: "why flaky"),
            event("b", seq: 4, text: "flaky again"),
            event("a", seq: 5, text: "flaky at last"),
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
}

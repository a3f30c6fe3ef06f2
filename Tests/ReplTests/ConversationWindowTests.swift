@testable import Commands
@testable import ReadModel
import Foundation
import MirrorStore
import TestSupport
import Testing

/// `show --at`: the entries around one event of a long timeline, read without reading it all.
@Suite("the conversation around one event", .endsWithin(.seconds(120)))
struct ConversationWindowTests {
    /// A session of `messages` alternating user and assistant messages of `chunks` chunks each.
    private func store(messages: Int, chunks: Int, in directory: TemporaryDirectory) throws -> MirrorStore {
        let store = try MirrorStore(path: directory.path("mirror.sqlite"))
        var events: [NewEvent] = []
        for message in 0..<messages {
            let kind = message % 2 == 0 ? "user_message_chunk" : "agent_message_chunk"
            for chunk in 0..<chunks {
                let text = "m\(message)c\(chunk) "
                let json = #"{"sessionUpdate":"\#(kind)","content":{"content":{"type":"text","text":"\#(text)"}}}"#
                events.append(NewEvent(sessionID: "S", kind: kind, text: text, updateJSON: Array(json.utf8)))
            }
        }
        try store.appendEvents(events)
        return store
    }

    private func texts(_ window: ConversationWindow) -> [String] {
        window.entries.compactMap { entry in
            if case .message(_, let text, _, _) = entry { return String(text.prefix(while: { $0 != "c" })) }
            return nil
        }
    }

    @Test("the event's message and N on each side, with what is left out")
    func middle() throws {
        let directory = try TemporaryDirectory()
        let store = try store(messages: 400, chunks: 50, in: directory)  // 20,000 events
        let window = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 10_025, context: 2))
        #expect(texts(window) == ["m198", "m199", "m200", "m201", "m202"])
        #expect(window.earlier?.count == 9_900 && window.earlier?.lastOrdinal == 9_899)
        #expect(window.later?.count == 20_000 - 10_150 && window.later?.firstOrdinal == 10_150)
        #expect(window.events.count == 250)
    }

    @Test("at the ends of the timeline, and with no context")
    func ends() throws {
        let directory = try TemporaryDirectory()
        let store = try store(messages: 10, chunks: 3, in: directory)
        let first = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 0, context: 3))
        #expect(texts(first) == ["m0", "m1", "m2", "m3"])
        #expect(first.earlier == nil)
        #expect(first.later?.count == 18)
        let last = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 29, context: 1))
        #expect(texts(last) == ["m8", "m9"])
        #expect(last.later == nil)
        let alone = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 14, context: 0))
        #expect(texts(alone) == ["m4"])
        #expect(try ConversationWindow.read(store: store, sessionID: "S", at: 30, context: 1) == nil, "no event there: no window")
    }

    @Test("a message streamed in 20,000 chunks is shown as far as a bounded read reaches")
    func hugeMessage() throws {
        let directory = try TemporaryDirectory()
        let store = try store(messages: 1, chunks: 20_000, in: directory)
        let window = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 10_000, context: 3))
        #expect(window.entries.count == 1)
        #expect(window.events.count <= 2 * ConversationWindow.maximumSpan + 1)
        #expect((window.earlier?.count ?? 0) > 0 && (window.later?.count ?? 0) > 0)
        #expect((window.earlier?.count ?? 0) + window.events.count + (window.later?.count ?? 0) == 20_000)
    }

    @Test("a smaller span reads at most that many events on each side (read_session's window)")
    func smallerSpan() throws {
        let directory = try TemporaryDirectory()
        let store = try store(messages: 1, chunks: 20_000, in: directory)
        let window = try #require(try ConversationWindow.read(store: store, sessionID: "S", at: 10_000, context: 3, span: 100))
        #expect(window.entries.count == 1)
        #expect(window.events.first?.ordinal == 9_900)
        #expect(window.events.count == 201)
        #expect(window.earlier?.count == 9_900 && window.later?.count == 20_000 - 10_101)
    }
}

@testable import Commands
import Foundation
import MirrorStore
import TestSupport
import Testing

/// The fields of a query (`session:`, `desktop:`, `since:`, `until:`) resolved as `search`'s options
/// are, and run by the store: in process, on a real mirror file.
@Suite("Search fields", .endsWithin(.seconds(60)))
struct SearchRequestTests {
    private static let day = Int64(1_731_000_000_000)

    private func mirror(in directory: TemporaryDirectory) throws -> CommandContext {
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        let json = Array(#"{"sessionUpdate":"agent_message_chunk"}"#.utf8)
        try store.appendEvents([("AAAA-1", 0), ("BBBB-2", 1), ("AAAA-1", 2)].enumerated().map { index, event in
            // Tool calls: entries of their own (consecutive chunks would be one message, at its first's time).
            NewEvent(sessionID: event.0, seq: Int64(index + 1), timestamp: Self.day + event.1 * 86_400_000, kind: "tool_call",
                     text: "the reconnect test is flaky", updateJSON: json)
        })
        return CommandContext(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9")
    }

    @Test("a session by prefix, dates as --since and --until read them; the hits are those of the narrowed filter")
    func resolved() throws {
        let directory = try TemporaryDirectory()
        let context = try mirror(in: directory)
        let request = try SearchRequest(query: "flaky session:aaaa since:2024-11-08 until:2024-11-09", options: .none, context: context)
        #expect(request.filter.sessionID == "AAAA-1")
        let since = try #require(TimeArgument("2024-11-08")).start
        let until = try #require(TimeArgument("2024-11-09")).end
        #expect(request.filter.since == since && request.filter.until == until)
        let hits = try context.store().search(request.expression, filter: request.filter)
        #expect(hits.map(\.sessionID) == ["AAAA-1"] && hits.allSatisfy { ($0.timestamp ?? 0) >= since })
        let narrowed = try SearchRequest(query: "since:2024-11-09", options: SearchFilter(since: since), context: context)
        let later = try #require(TimeArgument("2024-11-09")).start
        #expect(narrowed.filter.since == later, "the narrower of a field and an option")
    }

    @Test("a field that cannot be read, or that disagrees with an option, is a clear error")
    func errors() throws {
        let directory = try TemporaryDirectory()
        let context = try mirror(in: directory)
        #expect(throws: CommandError.badArguments(#"since: must be an ISO-8601 date or date-time (2024-11-07, 2024-11-07T17:20:00Z, 2024-11-07T18:20+01:00), not "yesterday""#)) {
            try SearchRequest(query: "a since:yesterday", options: .none, context: context)
        }
        #expect(throws: CommandError.unknownSession("zzzz")) { try SearchRequest(query: "a session:zzzz", options: .none, context: context) }
        #expect(throws: CommandError.self) { try SearchRequest(query: "a session:aaaa", options: SearchFilter(sessionID: "BBBB-2"), context: context) }
        #expect(throws: CommandError.badArguments("since is after until")) {
            try SearchRequest(query: "since:2024-11-09 until:2024-11-08", options: .none, context: context)
        }
    }
}

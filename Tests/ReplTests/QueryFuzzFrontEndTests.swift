import Bridge
@testable import Commands
import Foundation
import MCP
@testable import MirrorMCP
import MirrorStore
import TestSupport
import Testing

/// The 10,000 generated queries of `GeneratedQueries`, in process, through every front end's own
/// path: the text form (what the REPL and `-c` run), the JSON-lines method, and MCP's
/// `search_sessions` tool. None may fail but for the one clear error each gives for a query
/// with nothing to search for.
@Suite("Generated queries in every front end", .endsWithin(.seconds(300)))
struct QueryFuzzFrontEndTests {
    @Test("10,000 generated queries in the text form, JSON lines and MCP: no syntax error, no crash")
    func everyFrontEnd() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        try store.appendEvents(GeneratedQueries.texts.enumerated().map { index, text in
            NewEvent(sessionID: "s\(index % 2)", seq: Int64(index + 1), kind: "agent_message_chunk", text: text + " ",
                     updateJSON: Array(#"{"sessionUpdate":"agent_message_chunk"}"#.utf8))
        })
        let runner = CommandRunner(context: CommandContext(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9"))
        let tools = ToolCalls(mirror: MirrorQueries(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9", redacts: true), allowsPrompts: false)
        var failures: [String] = []
        var found = 0
        for query in GeneratedQueries.make() {
            // No word after `search` in the line (spaces, a combining mark on one, a NUL).
            let blank = CommandLineWords.split("search " + query).count == 1
            let wordless = !query.contains { $0.isLetter || $0.isNumber }
            do {
                let result = try await runner.run(line: "search " + query)
                found += result.json.arrayValue?.count ?? 0
            } catch {
                if !(blank && Self.isMissingQuery(error)) { failures.append("text \(query.debugDescription): \(error)") }
            }
            do {
                _ = try await runner.run(method: "search", params: ["query": .string(query)])
            } catch {
                if !(query.isEmpty && Self.isMissingQuery(error)) { failures.append("json \(query.debugDescription): \(error)") }
            }
            let answer = await tools.call(ToolDefinitions.searchSessions.name, ["query": .string(query)])
            if answer.isError == true && !wordless { failures.append("mcp \(query.debugDescription): \(answer.content)") }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(5))")
        #expect(found > 0, "some generated queries find something")
    }

    @Test("the text form passes a query as typed: quotes make a phrase, an unbalanced one is a word, options after it count")
    func queryAsTyped() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let store = try MirrorStore(path: path)
        try store.appendEvents(["backoff with jitter ", "jitter with backoff "].enumerated().map { index, text in
            NewEvent(sessionID: "s\(index)", seq: Int64(index + 1), kind: "agent_message_chunk", text: text,
                     updateJSON: Array(#"{"sessionUpdate":"agent_message_chunk"}"#.utf8))
        })
        let runner = CommandRunner(context: CommandContext(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9"))
        func hits(_ line: String) async throws -> Int { try await runner.run(line: line).json.arrayValue?.count ?? -1 }
        #expect(try await hits(#"search "backoff with jitter""#) == 1)
        #expect(try await hits(#"search "with jitter" OR "with backoff" --limit 5"#) == 2)
        #expect(try await hits(#"search backoff --limit 1"#) == 1)
        #expect(try await hits(#"search "backoff"#) == 2, "an unbalanced quote: the words after it")
        await #expect(throws: CommandError.badArguments("unclosed quote")) { try await runner.run(line: #"show "s0"#) }
        await #expect(throws: CommandError.badArguments("unclosed quote"), "an option's value is no query") {
            try await runner.run(line: #"search backoff --session "s0"#)
        }
    }

    /// The one error a query with nothing in it gets: the query is required.
    private static func isMissingQuery(_ error: CommandError) -> Bool {
        if case .badArguments(let message) = error { return message.hasPrefix("query is required") }
        return false
    }
}

import Bridge
@testable import Commands
import Foundation
import MCP
@testable import MirrorMCP
import MirrorStore
import TestSupport
import ToolSupport
import Testing

/// Every command of the catalogue, in every output mode, and every MCP tool and resource, over a
/// mirror with a secret of each kind planted everywhere a secret can hide: a prompt, a reply
/// streamed in pieces cut anywhere, thinking that says it twice, a tool call's input and output
/// (both encodings), the title the desktop's list gives and the one the agent gives, a prompt
/// queued here. No output
/// may hold one. In process: no program is started.
@Suite("No planted secret leaves by any way out", .endsWithin(.seconds(300)))
struct SecretsEveryWayOutTests {
    @Test("commands in every mode, JSON-lines methods, MCP tools and resources")
    func everyWayOut() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mirror.sqlite")
        let sessions = try Self.plant(in: MirrorStore(path: path))
        let runner = CommandRunner(context: CommandContext(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9"))
        var outputs: [(String, String)] = []

        var lines = ["threads", "sessions", "outbox", "secrets", "status", "help", "methods",
                     "search deploy", "search deploy --everywhere", "search token OR key OR password --everywhere --limit 50"]
        for session in sessions {
            lines += ["show \(session)", "show \(session) --raw", "show \(session) --at 0", "export \(session)",
                      "export \(session) --format html", "export \(session) --format json", "secrets --session \(session)"]
        }
        for line in lines {
            let result = try await runner.run(line: line)
            for mode in OutputMode.allCases {
                outputs.append(("\(line) (\(mode.rawValue))", mode.render(result, width: 100) ?? ""))
            }
        }

        let queries = MirrorQueries(mirrorPath: path, bridgeURL: "ws://127.0.0.1:9", redacts: true)
        let tools = ToolCalls(mirror: queries, allowsPrompts: false)
        var calls: [(String, [String: Value])] = [
            (ToolDefinitions.listSessions.name, [:]), (ToolDefinitions.listSessions.name, ["query": "deploy"]),
            (ToolDefinitions.searchSessions.name, ["query": "deploy"]),
            (ToolDefinitions.searchSessions.name, ["query": "token OR key OR password in:output in:tool in:user in:assistant in:thinking"]),
        ]
        for session in sessions {
            calls += [(ToolDefinitions.readSession.name, ["session_id": .string(session)]),
                      (ToolDefinitions.readSession.name, ["session_id": .string(session), "at": 0, "max_chars": 1000])]
        }
        for (name, arguments) in calls {
            let answer = await tools.call(name, arguments)
            outputs.append(("mcp \(name) \(arguments)", Self.text(of: answer)))
        }
        for session in sessions {
            outputs.append(("mcp resource \(session)", try await queries.document(session: session).markdown))
        }
        outputs.append(("mcp resource list", try await queries.recentSessions(limit: 50).map { "\($0.title ?? "") \($0.sessionID)" }
            .joined(separator: "\n")))

        #expect(outputs.count > 200)
        for secret in PlantedSecrets.all {
            let leaks = outputs.filter { $0.1.contains(secret.value) }.map(\.0)
            #expect(leaks.isEmpty, "\(secret.kind) left in clear by \(leaks)")
        }
        let tagged = outputs.contains { $0.1.contains("[REDACTED:") }
        #expect(tagged, "the secrets were there to find")
    }

    /// Writes the sessions, each a place a secret can be in; returns their ids.
    private static func plant(in store: MirrorStore) throws -> [String] {
        var random = SplitMix64(seed: 32)
        var events: [NewEvent] = []
        func add(_ session: String, _ update: JSONValue) {
            let bytes = JSONWriter.bytes(of: update)
            let summary = SessionUpdate(rawBytes: bytes, json: update).summary
            events.append(NewEvent(sessionID: session, kind: summary.tag, text: summary.text, updateJSON: bytes))
        }
        func chunks(_ session: String, _ tag: String, _ text: String) {
            for piece in ClaudeCodeTranscript.pieces(of: text, using: &random) {
                add(session, ["sessionUpdate": .string(tag), "content": ["type": "text", "text": .string(piece)]])
            }
        }
        let lines = PlantedSecrets.all.map(\.line)
        let everything = lines.joined(separator: "\n")
        add("prompt", ["sessionUpdate": "user_message_chunk", "content": ["type": "text", "text": .string("deploy this:\n" + everything)]])
        chunks("reply", "agent_message_chunk", "deploy notes:\n" + everything + "\n")
        chunks("thinking", "agent_thought_chunk", PlantedSecrets.all.map { "deploy \($0.line) and again \($0.value)" }.joined(separator: "\n"))
        for (index, line) in lines.enumerated() {
            add("tools", ["sessionUpdate": "tool_call", "tool_call": ["call_id": .string("d\(index)"), "name": "Bash",
                                                                      "arguments": ["command": .string("deploy --env '\(line)'")]]])
            add("tools", ["sessionUpdate": "tool_call_update",
                          "tool_call_update": ["call_id": .string("d\(index)"), "status": "completed", "output": ["stdout": .string(line)]]])
            add("tools", ["sessionUpdate": "tool_call", "toolCallId": .string("a\(index)"), "title": .string("deploy \(line)"), "kind": "execute",
                          "status": "pending", "rawInput": ["command": .string(line)]])
            add("tools", ["sessionUpdate": "tool_call_update", "toolCallId": .string("a\(index)"), "status": "completed",
                          "content": [["type": "content", "content": ["type": "text", "text": .string(line)]]]])
        }
        for (index, secret) in PlantedSecrets.all.enumerated() {
            add("titled-\(index)", ["sessionUpdate": "session_info_update", "title": .string("deploy \(secret.line)")])
            add("titled-\(index)", ["sessionUpdate": "agent_message_chunk", "content": ["type": "text", "text": "done"]])
        }
        try store.appendEvents(events)
        try store.upsertSessions(PlantedSecrets.all.enumerated().map { index, secret in
            SessionRecord(sessionID: "listed-\(index)", title: "deploy \(secret.line)", lastTS: Int64(index))
        }, history: nil)
        try store.appendEvents(PlantedSecrets.all.indices.map { index in
            NewEvent(sessionID: "listed-\(index)", kind: "agent_message_chunk", text: "ok",
                     updateJSON: Array(#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}"#.utf8))
        })
        // A prompt queued here with every secret pasted in it: its row in the outbox, and its echo.
        let echo = NewEvent(sessionID: "prompt", kind: "user_message_chunk", text: "deploy " + everything,
                            updateJSON: JSONWriter.bytes(of: ["sessionUpdate": "user_message_chunk",
                                                              "content": ["type": "text", "text": .string("deploy " + everything)]]))
        try store.enqueuePrompt(sessionID: "prompt", text: "deploy " + everything, clientMessageID: "c1", localEcho: echo)
        return ["prompt", "reply", "thinking", "tools"] + PlantedSecrets.all.indices.flatMap { ["titled-\($0)", "listed-\($0)"] }
    }

    /// An MCP answer's text and structured content, as a model reads them.
    private static func text(of answer: CallTool.Result) -> String {
        let texts = answer.content.map { content -> String in
            if case .text(let text, _, _) = content { return text }
            return "\(content)"
        }
        let structured = answer.structuredContent.map { "\($0)" } ?? ""
        return (texts + [structured]).joined(separator: "\n")
    }
}

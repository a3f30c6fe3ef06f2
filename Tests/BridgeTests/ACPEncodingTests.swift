import Bridge
import Testing

/// The standard Agent Client Protocol encoding of updates (bridge protocol, part 1: flatter,
/// camelCase) reads to the same variants as the desktop's own; what neither explains is kept.
@Suite("Updates in the standard ACP encoding", .endsWithin(.seconds(60)))
struct ACPEncodingTests {
    private func variant(_ json: String) -> SessionUpdateVariant {
        SessionUpdate(rawBytes: Array(json.utf8)).variant
    }

    @Test("a tool call: toolCallId, title, kind, status, rawInput, and the content it holds already")
    func toolCall() {
        let update = variant(#"""
            {"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run tests","kind":"execute","status":"pending",
             "rawInput":{"command":"swift test"},"locations":[{"path":"Package.swift"}],
             "content":[{"type":"diff","path":"a.swift","oldText":null,"newText":"let a = 1\n"}]}
            """#)
        guard case .toolCall(let call) = update else { Issue.record("\(update)"); return }
        #expect(call.callID == "t1" && call.name == "Run tests" && call.kind == "execute" && call.status == "pending")
        #expect(call.arguments == ["command": "swift test"])
        #expect(call.content == [.diff(FileDiff(path: "a.swift", oldText: nil, newText: "let a = 1\n"))])
    }

    @Test("a tool call's update: content blocks, a diff, a terminal, rawOutput; an item of another type kept")
    func toolCallUpdate() {
        let update = variant(#"""
            {"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","rawOutput":{"exit":0},
             "content":[{"type":"content","content":{"type":"text","text":"3 tests passed"}},
                        {"type":"diff","path":"b.swift","oldText":"x","newText":"y"},
                        {"type":"terminal","terminalId":"term-1"},{"type":"hologram","x":"kept"}]}
            """#)
        guard case .toolCallUpdate(let call) = update else { Issue.record("\(update)"); return }
        #expect(call.callID == "t1" && call.status == "completed" && call.rawOutput == ["exit": 0])
        #expect(call.content == [.content(.text("3 tests passed")), .diff(FileDiff(path: "b.swift", oldText: "x", newText: "y")),
                                 .terminal(id: "term-1"), .unknown(["type": "hologram", "x": "kept"])])
        let summary = SessionUpdate(rawBytes: Array(#"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"3 tests passed"}}],"rawOutput":{"n":"3 tests passed"}}"#.utf8)).summary
        #expect(summary.text == "completed 3 tests passed", "rawOutput restating the content is not searched twice")
    }

    @Test("chunks, plans, commands, modes and session information in ACP's spelling")
    func others() {
        #expect(variant(#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hel"}}"#) == .agentMessageChunk(.text("Hel")))
        #expect(variant(#"{"sessionUpdate":"plan","entries":[{"content":"Write tests","priority":"high","status":"in_progress"}]}"#)
            == .plan([PlanEntry(content: "Write tests", priority: "high", status: "in_progress")]))
        guard case .availableCommandsUpdate(let commands) = variant(#"{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"review","description":"Review"}]}"#)
        else { Issue.record("commands"); return }
        #expect(commands.map(\.name) == ["review"])
        #expect(variant(#"{"sessionUpdate":"current_mode_update","currentModeId":"code"}"#) == .currentModeUpdate(modeID: "code"))
        #expect(variant(#"{"sessionUpdate":"session_info_update","title":"Fix the parser","updatedAt":"2026-11-27T10:00:00Z"}"#)
            == .sessionInfoUpdate(title: "Fix the parser"))
        #expect(variant(#"{"sessionUpdate":"tool_call","title":"no id"}"#) == .unknown(kind: "tool_call"), "a call without an id is kept as it came")
    }
}

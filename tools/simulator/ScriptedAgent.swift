import Bridge

/// The simulated agent's answer to a prompt: thinking, a streamed reply, a tool call and its
/// result, as the desktop would stream them.
enum ScriptedAgent {
    static func reply(to prompt: String) -> [[UInt8]] {
        let topic = String(prompt.prefix(60))
        func chunk(_ kind: UpdateKind, _ text: String) -> JSONValue {
            ["sessionUpdate": .string(kind.rawValue), "content": ["content": ["type": "text", "text": .string(text)]]]
        }
        let updates: [JSONValue] = [
            chunk(.agentThoughtChunk, "Reading the request: \(topic)"),
            chunk(.agentMessageChunk, "Looking into "),
            chunk(.agentMessageChunk, "\(topic) now."),
            ["sessionUpdate": .string(UpdateKind.toolCall.rawValue),
             UpdateKind.toolCall.rawValue: ["call_id": "sim-call", "name": "Bash", "arguments": ["command": "swift test"]]],
            ["sessionUpdate": .string(UpdateKind.toolCallUpdate.rawValue),
             UpdateKind.toolCallUpdate.rawValue: ["call_id": "sim-call", "status": "completed", "output": ["stdout": "All tests passed"]]],
            chunk(.agentMessageChunk, " Done."),
        ]
        return updates.map(JSONWriter.bytes)
    }
}

import Bridge

/// The simulated agent's answer to a prompt: thinking, a streamed reply, a tool call and its
/// result, as the desktop would stream them.
enum ScriptedAgent {
    static func reply(to prompt: String) -> [[UInt8]] {
        let topic = String(prompt.prefix(60))
        func chunk(_ kind: String, _ text: String) -> JSONValue {
            ["sessionUpdate": .string(kind), "content": ["content": ["type": "text", "text": .string(text)]]]
        }
        let updates: [JSONValue] = [
            chunk("agent_thought_chunk", "Reading the request: \(topic)"),
            chunk("agent_message_chunk", "Looking into "),
            chunk("agent_message_chunk", "\(topic) now."),
            ["sessionUpdate": "tool_call", "tool_call": ["call_id": "sim-call", "name": "Bash", "arguments": ["command": "swift test"]]],
            ["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": "sim-call", "status": "completed",
                                                                         "output": ["stdout": "All tests passed"]]],
            chunk("agent_message_chunk", " Done."),
        ]
        return updates.map(JSONWriter.bytes)
    }
}

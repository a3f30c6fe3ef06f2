/// The kind of a `session/update`: its ACP `sessionUpdate` tag.
///
/// The raw value is the tag exactly as the bridge writes it (`"agent_message_chunk"`), so
/// `UpdateKind(rawValue:)` reads a tag and `rawValue` writes one. `unknown` stands for an update
/// without a tag, or with a tag this version does not know; `init(tag:)` reads any tag that way.
public enum UpdateKind: String, Sendable, CaseIterable {
    case userMessageChunk = "user_message_chunk"
    case agentMessageChunk = "agent_message_chunk"
    case agentThoughtChunk = "agent_thought_chunk"
    case plan = "plan"
    case toolCall = "tool_call"
    case toolCallUpdate = "tool_call_update"
    case availableCommandsUpdate = "available_commands_update"
    case currentModeUpdate = "current_mode_update"
    /// ACP's session metadata (its title), sent as it changes.
    case sessionInfoUpdate = "session_info_update"
    /// No tag, or a tag this version does not know.
    case unknown = "unknown"

    /// The kind `tag` names; `.unknown` for a tag this version does not know.
    public init(tag: String) {
        self = UpdateKind(rawValue: tag) ?? .unknown
    }
}

import Bridge

/// An entry as `sessions.show` answers it (`docs/cli.md`): its `type`, then its members.
extension Conversation.Entry: Encodable {
    enum CodingKeys: String, CodingKey {
        case type, role, text, local, ordinal, entries, callID = "call_id", name, kind, arguments, status, error, output, diffs
        case mode, title, names, update
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .message(let role, let text, let local, let ordinal):
            try container.encode("message", forKey: .type)
            try container.encode(role.rawValue, forKey: .role)
            try container.encode(text, forKey: .text)
            try container.encode(local, forKey: .local)
            try container.encode(ordinal, forKey: .ordinal)
        case .plan(let entries, let ordinal):
            try container.encode("plan", forKey: .type)
            try container.encode(ordinal, forKey: .ordinal)
            try container.encode(entries.map(PlanItem.init), forKey: .entries)
        case .toolCall(let call):
            try container.encode("tool_call", forKey: .type)
            try container.encode(call.firstOrdinal, forKey: .ordinal)
            try container.encode(call.callID, forKey: .callID)
            try container.encode(call.name, forKey: .name)
            try container.encode(call.kind, forKey: .kind)
            try container.encode(call.arguments, forKey: .arguments)
            try container.encode(call.status, forKey: .status)
            try container.encode(call.error, forKey: .error)
            try container.encode(call.output, forKey: .output)
            try container.encode(call.diffs.map(Diff.init), forKey: .diffs)
        case .modeChange(let mode, let ordinal):
            try container.encode("mode", forKey: .type)
            try container.encode(mode, forKey: .mode)
            try container.encode(ordinal, forKey: .ordinal)
        case .sessionTitle(let title, let ordinal):
            try container.encode("session_title", forKey: .type)
            try container.encode(title, forKey: .title)
            try container.encode(ordinal, forKey: .ordinal)
        case .commands(let names, let ordinal):
            try container.encode("commands", forKey: .type)
            try container.encode(names, forKey: .names)
            try container.encode(ordinal, forKey: .ordinal)
        case .other(let kind, let json, let ordinal):
            try container.encode("other", forKey: .type)
            try container.encode(kind, forKey: .kind)
            try container.encode(json, forKey: .update)
            try container.encode(ordinal, forKey: .ordinal)
        }
    }

    /// An item of a plan, as encoded.
    private struct PlanItem: Encodable {
        var content: String
        var status: String?
        var priority: String?

        init(_ entry: PlanEntry) {
            content = entry.content
            status = entry.status
            priority = entry.priority
        }
    }

    /// A file a tool call changes, as encoded.
    private struct Diff: Encodable {
        var path: String
        var oldText: String?
        var newText: String

        enum CodingKeys: String, CodingKey {
            case path, oldText = "old_text", newText = "new_text"
        }

        init(_ diff: FileDiff) {
            path = diff.path
            oldText = diff.oldText
            newText = diff.newText
        }
    }
}

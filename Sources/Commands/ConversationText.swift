/// A conversation as plain text for a terminal.
enum ConversationText {
    static func render(_ conversation: Conversation) -> String {
        guard !conversation.entries.isEmpty else { return "(no events)" }
        return conversation.entries.map { entry -> String in
            switch entry {
            case .message(let role, let text, let local, let ordinal):
                let label = role == .user ? (local ? "you (queued here)" : "user") : role == .assistant ? "assistant" : "thinking"
                return "[\(ordinal)] \(label):\n" + indent(text)
            case .plan(let entries, let ordinal):
                return "[\(ordinal)] plan:\n" + entries.map { "  - [\($0.status ?? "-")] \($0.content)" }.joined(separator: "\n")
            case .toolCall(let call):
                var text = "[\(call.firstOrdinal)] tool \(call.name) (\(call.callID))" + (call.status.map { ": \($0)" } ?? "")
                if let arguments = call.arguments { text += "\n  arguments: \(arguments)" }
                if let error = call.error { text += "\n  error: \(error)" }
                if let output = call.output { text += "\n  output:\n" + indent(output, by: 4) }
                return text
            case .modeChange(let mode, let ordinal):
                return "[\(ordinal)] mode: \(mode)"
            case .commands(let names, let ordinal):
                return "[\(ordinal)] commands: " + names.map { "/" + $0 }.joined(separator: " ")
            case .other(let kind, let json, let ordinal):
                return "[\(ordinal)] \(kind): \(json)"
            }
        }.joined(separator: "\n")
    }

    private static func indent(_ text: String, by spaces: Int = 2) -> String {
        let pad = String(repeating: " ", count: spaces)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
    }
}

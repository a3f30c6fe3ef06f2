import Bridge
import Secrets

extension Conversation {
    /// The conversation with every secret of its texts (messages merged from their chunks,
    /// thinking, plans, tool names (ACP's titles), arguments, errors, outputs and diffs, session titles, unknown updates) replaced by its tag;
    /// itself when `redactor` is nil.
    func redacted(by redactor: Redactor?) -> Conversation {
        guard let redactor else { return self }
        return Conversation(entries: entries.map { $0.redacted(by: redactor) })
    }
}

extension Conversation.Entry {
    /// The entry with its texts redacted.
    func redacted(by redactor: Redactor) -> Conversation.Entry {
        switch self {
        case .message(let role, let text, let local, let ordinal):
            return .message(role: role, text: redactor.redact(text), local: local, firstOrdinal: ordinal)
        case .plan(let entries, let ordinal):
            return .plan(entries: entries.map { entry in
                var entry = entry
                entry.content = redactor.redact(entry.content)
                return entry
            }, firstOrdinal: ordinal)
        case .toolCall(var call):
            // An ACP title often quotes the command it runs.
            call.name = redactor.redact(call.name)
            call.kind = call.kind.map(redactor.redact)
            call.arguments = call.arguments.map { JSONRedaction.redact(jsonText: $0, by: redactor) }
            call.error = call.error.map(redactor.redact)
            call.output = call.output.map(redactor.redact)
            call.diffs = call.diffs.map { diff in
                FileDiff(path: redactor.redact(diff.path), oldText: diff.oldText.map(redactor.redact), newText: redactor.redact(diff.newText))
            }
            return .toolCall(call)
        case .sessionTitle(let title, let ordinal):
            return .sessionTitle(title: redactor.redact(title), firstOrdinal: ordinal)
        case .modeChange, .commands:
            return self
        case .other(let kind, let json, let ordinal):
            return .other(kind: kind, json: JSONRedaction.redact(jsonText: json, by: redactor), firstOrdinal: ordinal)
        }
    }
}

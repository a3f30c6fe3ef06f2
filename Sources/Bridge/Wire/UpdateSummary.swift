/// What any update is and says, in plain text: the one reading of updates that the store's search
/// and every display use.
public struct UpdateSummary: Sendable, Equatable {
    /// The `sessionUpdate` tag (also read from the older externally tagged shape), or `unknown`:
    /// `kind.rawValue`, except that a tag this version does not know is kept as sent.
    public var tag: String
    /// The update's words: a chunk's text, a plan's entries, a tool call's name and arguments,
    /// a tool result's status and output, a mode, commands; for unknown shapes every string in it.
    public var text: String

    /// The kind `tag` names (`.unknown` for a tag this version does not know).
    public var kind: UpdateKind { UpdateKind(tag: tag) }

    /// A summary whose tag is `kind`'s.
    public init(kind: UpdateKind, text: String) {
        self.tag = kind.rawValue
        self.text = text
    }

    /// Reads an update object. Never fails: anything that is not an update object is `unknown`.
    public init(of update: JSONValue) {
        let tagged = TaggedUpdate(update)
        tag = tagged.tag
        switch SessionUpdateVariant(tagged) {
        case .userMessageChunk(let block), .agentMessageChunk(let block), .agentThoughtChunk(let block):
            text = block.plainText
        case .plan(let entries):
            text = entries.map(\.content).joined(separator: "\n")
        case .toolCall(let call):
            let arguments = call.arguments.map { Self.strings(in: $0).joined(separator: " ") } ?? ""
            let content = Self.capped(call.content.map(\.plainText)).joined(separator: "\n")
            text = [call.name, arguments, content].filter { !$0.isEmpty }.joined(separator: " ")
        case .toolCallUpdate(let update):
            // ACP's rawOutput restates its content; it is the output only when there is no content.
            let output = [update.output, update.content == nil ? update.rawOutput : nil].compactMap { $0 }
                .map { Self.strings(in: $0).joined(separator: "\n") }
            let content = Self.capped(update.content?.map(\.plainText) ?? [])
            text = ([update.status, update.error] + (output + content).map(Optional.some)).compactMap { $0 }.filter { !$0.isEmpty }
                .joined(separator: " ")
        case .availableCommandsUpdate(let commands):
            text = commands.map { [$0.name, $0.description].compactMap { $0 }.joined(separator: ": ") }.joined(separator: "\n")
        case .currentModeUpdate(let mode):
            text = mode
        case .sessionInfoUpdate(let title):
            text = title ?? ""
        case .unknown:
            text = Self.strings(in: update).joined(separator: " ")
        }
    }

    /// The first `limit` characters of `texts`, as `strings(in:)` caps what it finds: a tool's
    /// content (a whole file's new text, output sent again as it grows) adds no more to the search
    /// text than the desktop's output does.
    static func capped(_ texts: [String], limit: Int = 4096) -> [String] {
        var budget = limit
        return texts.compactMap { text in
            guard budget > 0 else { return nil }
            let kept = String(text.prefix(budget))
            budget -= kept.count
            return kept.isEmpty ? nil : kept
        }
    }

    /// Every string value inside `json`, depth first (keys and the `sessionUpdate` tag excluded),
    /// up to a bounded total so that a huge unknown update cannot make a huge search text.
    static func strings(in json: JSONValue, limit: Int = 4096) -> [String] {
        var found: [String] = []
        var budget = limit
        func visit(_ value: JSONValue) {
            guard budget > 0 else { return }
            switch value.kind {
            case .string(let string):
                let kept = String(string.prefix(budget))
                budget -= kept.count
                if !kept.isEmpty { found.append(kept) }
            case .array(let elements):
                elements.forEach(visit)
            case .object(let members):
                for member in members where member.key != "sessionUpdate" { visit(member.value) }
            default:
                break
            }
        }
        visit(json)
        return found
    }
}

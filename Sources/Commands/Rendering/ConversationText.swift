import ReadModel
/// A conversation as plain text for a terminal, its headings coloured by `palette` when it has colour.
enum ConversationText {
    static func render(_ entries: [Conversation.Entry], palette: Palette = .plain) -> String {
        guard !entries.isEmpty else { return "(no events)" }
        return entries.map { render($0, palette: palette) }.joined(separator: "\n")
    }

    /// One entry, on as many lines as it takes (no newline at the end).
    static func render(_ entry: Conversation.Entry, palette: Palette = .plain) -> String {
        switch entry {
        case .message(let role, let text, let local, let ordinal):
            let body = indent(text)
            return palette.apply(palette.style(of: role), to: "[\(ordinal)] \(label(role, local: local)):") + "\n"
                + (role == .thinking ? palette.apply(.dim, to: body) : body)
        case .plan(let entries, let ordinal):
            return palette.apply(.blue, to: "[\(ordinal)] plan:") + "\n"
                + entries.map { "  - [\($0.status ?? "-")] \($0.content)" }.joined(separator: "\n")
        case .toolCall(let call):
            var text = palette.apply(call.failed ? .boldRed : .yellow,
                                     to: "[\(call.firstOrdinal)] tool \(call.name)\(call.kind.map { " [\($0)]" } ?? "") (\(call.callID))"
                                         + (call.status.map { ": \($0)" } ?? ""))
            if let arguments = call.arguments { text += "\n  arguments: \(arguments)" }
            if let error = call.error { text += "\n" + palette.apply(.red, to: "  error: \(error)") }
            if let output = call.output { text += "\n  output:\n" + indent(output, by: 4) }
            for diff in call.diffs { text += "\n  diff:\n" + indent(diff.unifiedLines.joined(separator: "\n"), by: 4) }
            return text
        case .modeChange(let mode, let ordinal):
            return palette.apply(.dim, to: "[\(ordinal)] mode: \(mode)")
        case .sessionTitle(let title, let ordinal):
            return palette.apply(.dim, to: "[\(ordinal)] session title: \(title)")
        case .commands(let names, let ordinal):
            return palette.apply(.dim, to: "[\(ordinal)] commands: " + names.map { "/" + $0 }.joined(separator: " "))
        case .other(let kind, let json, let ordinal):
            return "[\(ordinal)] \(kind): \(json)"
        }
    }

    /// Who a message is from, as its heading says.
    static func label(_ role: Conversation.Role, local: Bool) -> String {
        switch role {
        case .user: local ? "you (queued here)" : "user"
        case .assistant: "assistant"
        case .thinking: "thinking"
        }
    }

    /// `text` with `spaces` spaces at the start of each line. Works on UTF-8 bytes: splitting a
    /// `String` by `Character` costs more than the rest of a long timeline's display.
    static func indent(_ text: String, by spaces: Int = 2) -> String {
        let pad = [UInt8](repeating: 0x20, count: spaces)
        var bytes = pad
        bytes.reserveCapacity(text.utf8.count + spaces * 8)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == 0x0A { bytes.append(contentsOf: pad) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

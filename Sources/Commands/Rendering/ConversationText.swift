import Foundation
import ReadModel
/// A conversation as plain text for a terminal, its headings coloured by `palette` when it has colour.
enum ConversationText {
    static func render(_ entries: [Conversation.Entry], palette: Palette = .plain) -> String {
        guard !entries.isEmpty else { return "(no events)" }
        var text = ""
        for (index, entry) in entries.enumerated() {
            if index > 0 { text += "\n" }
            append(entry, palette: palette, to: &text)
        }
        return text
    }

    /// One entry, on as many lines as it takes (no newline at the end).
    static func render(_ entry: Conversation.Entry, palette: Palette = .plain) -> String {
        var text = ""
        append(entry, palette: palette, to: &text)
        return text
    }

    /// Appends one entry to `text`: each long text (a message, an output) is copied once, into
    /// `text`, however long the conversation.
    private static func append(_ entry: Conversation.Entry, palette: Palette, to text: inout String) {
        switch entry {
        case .message(let role, let body, let local, let ordinal):
            text += palette.apply(palette.style(of: role), to: "[\(ordinal)] \(label(role, local: local)):") + "\n"
            if role == .thinking && palette.usesColour {
                text += palette.apply(.dim, to: indent(body))
            } else {
                appendIndented(body, by: 2, to: &text)
            }
        case .plan(let entries, let ordinal):
            text += palette.apply(.blue, to: "[\(ordinal)] plan:") + "\n"
                + entries.map { "  - [\($0.status ?? "-")] \($0.content)" }.joined(separator: "\n")
        case .toolCall(let call):
            text += palette.apply(call.failed ? .boldRed : .yellow,
                                  to: "[\(call.firstOrdinal)] tool \(call.name)\(call.kind.map { " [\($0)]" } ?? "") (\(call.callID))"
                                      + (call.status.map { ": \($0)" } ?? ""))
            if let arguments = call.arguments { text += "\n  arguments: \(arguments)" }
            if let error = call.error { text += "\n" + palette.apply(.red, to: "  error: \(error)") }
            if let output = call.output {
                text += "\n  output:\n"
                appendIndented(output, by: 4, to: &text)
            }
            for diff in call.diffs {
                text += "\n  diff:\n"
                appendIndented(diff.unifiedLines.joined(separator: "\n"), by: 4, to: &text)
            }
        case .modeChange(let mode, let ordinal):
            text += palette.apply(.dim, to: "[\(ordinal)] mode: \(mode)")
        case .sessionTitle(let title, let ordinal):
            text += palette.apply(.dim, to: "[\(ordinal)] session title: \(title)")
        case .commands(let names, let ordinal):
            text += palette.apply(.dim, to: "[\(ordinal)] commands: " + names.map { "/" + $0 }.joined(separator: " "))
        case .other(let kind, let json, let ordinal):
            text += "[\(ordinal)] \(kind): \(json)"
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

    /// `text` with `spaces` spaces at the start of each line.
    static func indent(_ text: String, by spaces: Int = 2) -> String {
        var indented = ""
        appendIndented(text, by: spaces, to: &indented)
        return indented
    }

    /// Appends `text` with `spaces` spaces at the start of each line. Works on UTF-8 bytes, a line
    /// at a time (`memchr`): splitting a `String` by `Character`, or appending byte by byte, costs
    /// more than the rest of a long timeline's display.
    static func appendIndented(_ text: String, by spaces: Int, to output: inout String) {
        let pad = String(repeating: " ", count: spaces)
        var text = text
        text.makeContiguousUTF8()
        let utf8 = text.utf8
        // Contiguous once made so: the closure always runs.
        _ = utf8.withContiguousStorageIfAvailable { source in
            var lineBreaks = 0
            for byte in source where byte == 0x0A { lineBreaks += 1 }
            output.reserveCapacity(output.utf8.count + source.count + spaces * (lineBreaks + 1))
            output += pad
            var start = 0
            while start < source.count, let base = source.baseAddress {
                let lineEnd = memchr(base + start, 0x0A, source.count - start)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1 } ?? source.count
                // Cut after a line break, each line is whole characters: appended as it is.
                output += text[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: lineEnd)]
                if source[lineEnd - 1] == 0x0A { output += pad }
                start = lineEnd
            }
        }
    }
}

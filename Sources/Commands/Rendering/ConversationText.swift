import Foundation
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

    /// `text` with `spaces` spaces at the start of each line. Works on UTF-8 bytes, a line at a
    /// time (`memchr`): splitting a `String` by `Character`, or appending byte by byte, costs more
    /// than the rest of a long timeline's display.
    static func indent(_ text: String, by spaces: Int = 2) -> String {
        var text = text
        return text.withUTF8 { source in
            var lineBreaks = 0
            for byte in source where byte == 0x0A { lineBreaks += 1 }
            return String(unsafeUninitializedCapacity: source.count + spaces * (lineBreaks + 1)) { output in
                var written = 0
                func pad() {
                    for _ in 0..<spaces { output[written] = 0x20; written += 1 }
                }
                pad()
                var start = 0
                while start < source.count, let base = source.baseAddress {
                    let lineEnd = memchr(base + start, 0x0A, source.count - start)
                        .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1 } ?? source.count
                    _ = UnsafeMutableBufferPointer(rebasing: output[written..<(written + lineEnd - start)])
                        .initialize(from: UnsafeBufferPointer(rebasing: source[start..<lineEnd]))
                    written += lineEnd - start
                    if source[lineEnd - 1] == 0x0A { pad() }
                    start = lineEnd
                }
                return written
            }
        }
    }
}

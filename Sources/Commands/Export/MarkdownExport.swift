import Bridge
import MirrorStore
import ReadModel
import Secrets

/// A session as a Markdown document: the desktop's "Export Transcript", with its faults fixed.
///
/// A title and a short header; consecutive chunks merged into one block; thinking, plans (with
/// status) and tool calls (arguments and outcome in fenced blocks); unknown events listed, not
/// dropped; message text kept as the Markdown it is, contained below its message's heading
/// (`MessageMarkdown`: its headings nested, a fence left open closed). The same mirror always
/// gives the same bytes; the export time appears only when asked for. `export`, `export --all`
/// and MCP's `read_session` render with it.
///
/// The header says how many secrets were replaced by their tags, or that the document is not
/// redacted (`DocumentRedaction`).
public enum MarkdownExport {
    public static func document(_ document: SessionDocument, exportedAt: Int64? = nil) -> String {
        let session = document.session
        var lines: [String] = ["# " + escapeInline(document.title), ""]
        lines.append("- Session: `\(session.sessionID)`")
        if let desktop = session.desktop { lines.append("- Desktop: \(escapeInline(desktop))") }
        if let note = document.archiveNote { lines.append("- " + escapeInline(note)) }
        if let mode = session.mode { lines.append("- Mode: \(escapeInline(mode))") }
        if let first = document.firstActivity { lines.append("- First activity: \(first.iso8601)") }
        if let last = document.lastActivity { lines.append("- Last activity: \(last.iso8601)") }
        lines.append("- Events: \(document.eventCount)")
        if let exported = Formatting.iso8601(exportedAt) { lines.append("- Exported: \(exported)") }
        if let note = document.redaction.note { lines.append("- " + note) }
        for entry in document.entries {
            lines.append("")
            lines += render(entry)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One entry's lines.
    package static func render(_ entry: Conversation.Entry) -> [String] {
        switch entry {
        case .message(.user, let text, let local, _):
            return ["## User" + (local ? " (sent from this mirror)" : ""), ""] + messageLines(text)
        case .message(.assistant, let text, _, _):
            return ["## Assistant", ""] + messageLines(text)
        case .message(.thinking, let text, _, _):
            return ["> _Thinking:_", ">"] + messageLines(text).map { $0.isEmpty ? ">" : "> " + $0 }
        case .plan(let entries, _):
            return ["**Plan**", ""] + entries.map { entry in
                let box = entry.status == "completed" ? "[x]" : "[ ]"
                let details = [entry.status?.replacing("_", with: " "), entry.priority.map { "\($0) priority" }].compactMap { $0 }
                return "- \(box) \(escapeInline(entry.content))" + (details.isEmpty ? "" : " _(\(details.joined(separator: ", ")))_")
            }
        case .toolCall(let call):
            let kind = call.kind.map { ", " + inlineCode($0) } ?? ""
            var lines = ["**Tool call** \(inlineCode(call.name)) (\(inlineCode(call.callID))\(kind))" + (call.status.map { ": \($0)" } ?? "")]
            if let arguments = call.arguments { lines += ["", "Arguments:"] + fenced(arguments, language: "json") }
            if let error = call.error { lines += ["", "Error:"] + fenced(error, language: "") }
            if let output = call.output { lines += ["", "Output:"] + fenced(output, language: "") }
            for diff in call.diffs {
                lines += ["", "Diff of \(inlineCode(diff.path)):"] + fenced(diff.unifiedLines.joined(separator: "\n"), language: "diff")
            }
            return lines
        case .modeChange(let mode, _):
            return ["_Mode: \(escapeInline(mode))_"]
        case .sessionTitle(let title, _):
            return ["_Session title: \(escapeInline(title))_"]
        case .commands(let names, _):
            return ["_Commands available: \(names.map { "`/\($0)`" }.joined(separator: ", "))_"]
        case .other(let kind, let json, _):
            return ["**Event** `\(kind)` (not shown by this version):"] + fenced(json, language: "json")
        }
    }

    /// The levels a message's own headings move down: below the message's `##`.
    static let messageHeadingShift = 2

    /// Message text as Markdown lines, contained below its heading.
    static func messageLines(_ text: String) -> [String] {
        MessageMarkdown.contained(text, headingShift: messageHeadingShift)
    }

    /// One-line text (titles, modes) with line breaks folded.
    static func escapeInline(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `text` on one line as a code span: between runs of backticks longer than any inside it,
    /// with a space inside each end when it starts or ends with a backtick (CommonMark strips one).
    static func inlineCode(_ text: String) -> String {
        let line = escapeInline(text)
        var longest = 0
        var run = 0
        for character in line {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let ticks = String(repeating: "`", count: longest + 1)
        let padded = line.hasPrefix("`") || line.hasSuffix("`") || line.isEmpty ? " \(line) " : line
        return ticks + padded + ticks
    }

    /// `text` in a fenced block whose fence is longer than any run of backticks inside it.
    static func fenced(_ text: String, language: String) -> [String] {
        // Runs of backticks counted on the UTF-8 bytes, as a CommonMark reader sees them: a
        // backtick that a combining mark follows still makes a run longer.
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            run = byte == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        return [fence + language] + lines(of: text) + [fence]
    }

    /// The lines of `text`, split at each line feed on its UTF-8 bytes: a carriage return stays
    /// in the code, as it came.
    private static func lines(of text: String) -> [String] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }
}

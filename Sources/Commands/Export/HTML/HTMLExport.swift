import Bridge
import Foundation
import MirrorStore
import ReadModel
import Secrets

/// A session as self-contained HTML: one file per page, opening in any browser with no network
/// and no other file (the style is inline, nothing is fetched: `HTMLTemplates` has the policy).
///
/// Messages and tool outputs are untrusted: the agent's Markdown is rendered by cmark-gfm with
/// raw HTML left out (`CommonMark.html`), everything else is escaped by the templates. Thinking
/// and tool calls are folded (`details`), an output longer than `foldedLength` characters or
/// `foldedLines` lines is folded again with its size shown. Each entry is a `section` whose id is
/// `e-<ordinal of its first event>`. A session whose entries pass `pageBytes` is split into
/// pages, linked to each other: `NAME.html`, `NAME-p2.html`, …
public enum HTMLExport {
    /// One file of the export.
    public struct Page: Sendable, Equatable {
        public var fileName: String
        public var html: String
    }

    /// The rendered entries of a page stop at the first that passes this many bytes.
    public static let defaultPageBytes = 1_000_000
    static let foldedLength = 4_000
    static let foldedLines = 40

    /// A session's pages and its row of the index.
    struct Rendered {
        var pages: [Page]
        var row: SessionIndexView.Row
    }

    /// The pages of a session's document, named from `baseName` (`openagents-798C06FE`);
    /// `desktop` is the bridge the mirror syncs from, for a session that does not name its own.
    /// Under the session's facts, a notice says what its desktop no longer has and what was
    /// redacted (or that nothing was).
    public static func pages(_ document: SessionDocument, baseName: String, desktop: String?, pageBytes: Int = defaultPageBytes) throws(CommandError) -> [Page] {
        try render(document, baseName: baseName, desktop: desktop, pageBytes: pageBytes).pages
    }

    /// The index of sessions rendered with `render`: newest first (by last activity, then id).
    static func index(rows: [SessionIndexView.Row], desktop: String?) throws(CommandError) -> String {
        let rows = rows.sorted { ($0.lastTS, $1.sessionID) > ($1.lastTS, $0.sessionID) }
        return try HTMLTemplates.render(SessionIndexView(desktop: desktop ?? "unknown desktop", sessionCount: rows.count,
                                                         sessionNoun: rows.count == 1 ? "session" : "sessions", rows: rows))
    }

    static func render(_ document: SessionDocument, baseName: String, desktop: String?, pageBytes: Int) throws(CommandError) -> Rendered {
        let session = document.session
        let desktop = session.desktop ?? desktop
        let entries = zip(document.entries, document.entryTimes).map { entry(for: $0, time: $1) }
        let chunks = split(entries, pageBytes: pageBytes)
        let names = chunks.indices.map { fileName(baseName, page: $0 + 1) }
        let title = document.title
        let notice = [document.archiveNote, document.redaction.note].compactMap { $0 }.joined(separator: ". ").nilIfEmpty
        let first = document.firstActivity
        let last = document.lastActivity
        let pages = try chunks.enumerated().map { index, chunk throws(CommandError) in
            let view = SessionPageView(
                title: title, sessionID: session.sessionID,
                desktop: desktop ?? "unknown desktop", mode: session.mode,
                firstActivity: first?.iso8601, lastActivity: last?.iso8601,
                eventCount: Int64(document.eventCount), notice: notice, pageNumber: index + 1, pageCount: chunks.count,
                hasPages: chunks.count > 1,
                previous: index > 0 ? .init(number: index, href: names[index - 1], current: false) : nil,
                next: index + 1 < chunks.count ? .init(number: index + 2, href: names[index + 1], current: false) : nil,
                pages: names.enumerated().map { .init(number: $0.offset + 1, href: $0.element, current: $0.offset == index) },
                entries: chunk
            )
            return Page(fileName: names[index], html: try HTMLTemplates.render(view))
        }
        let messages = document.entries.count { entry in
            if case .message(let role, _, _, _) = entry { role != .thinking } else { false }
        }
        let row = SessionIndexView.Row(
            title: title, filterText: title.lowercased(), href: names[0], sessionID: session.sessionID,
            desktop: desktop ?? "unknown desktop", firstActivity: first?.iso8601 ?? "", lastActivity: last?.iso8601 ?? "",
            messageCount: messages, eventCount: Int64(document.eventCount), pageCount: pages.count, notice: notice, lastTS: last?.milliseconds ?? 0
        )
        return Rendered(pages: pages, row: row)
    }

    /// `NAME.html` for the first page, `NAME-pN.html` for the others.
    static func fileName(_ baseName: String, page: Int) -> String {
        page == 1 ? baseName + ".html" : "\(baseName)-p\(page).html"
    }

    /// Entries in pages: a page takes entries while their rendered size stays within
    /// `pageBytes`, and always at least one.
    private static func split(_ entries: [SessionPageView.EntryView], pageBytes: Int) -> [[SessionPageView.EntryView]] {
        var pages: [[SessionPageView.EntryView]] = [[]]
        var size = 0
        for entry in entries {
            let length = entry.html.utf8.count + (entry.tool?.blocks.reduce(0) { $0 + $1.text.utf8.count } ?? 0) + (entry.raw?.utf8.count ?? 0) + 200
            if size + length > pageBytes, !(pages.last?.isEmpty ?? true) {
                pages.append([])
                size = 0
            }
            pages[pages.count - 1].append(entry)
            size += length
        }
        return pages
    }

    static func entry(for entry: Conversation.Entry, time: Timestamp?) -> SessionPageView.EntryView {
        var view = SessionPageView.EntryView(anchor: "e-\(entry.firstOrdinal)", kind: "", label: "", time: time?.iso8601)
        switch entry {
        case .message(let role, let text, let local, _):
            view.kind = role.rawValue
            view.label = switch role {
            case .user: local ? "User (sent from this mirror)" : "User"
            case .assistant: "Assistant"
            case .thinking: "Thinking"
            }
            view.html = CommonMark.html(text, headingShift: 2)
            view.isMessage = role != .thinking
            view.isThinking = role == .thinking
        case .plan(let entries, _):
            view.kind = "plan"
            view.label = "Plan"
            view.plan = .init(items: entries.map { entry in
                let details = [entry.status?.replacing("_", with: " "), entry.priority.map { "\($0) priority" }].compactMap { $0 }
                return .init(content: entry.content, status: entry.status ?? "pending", done: entry.status == "completed",
                             details: details.isEmpty ? nil : details.joined(separator: ", "))
            })
        case .toolCall(let call):
            view.kind = "tool"
            view.label = "Tool call"
            view.tool = .init(name: call.kind.map { "\(call.name) (\($0))" } ?? call.name, callID: call.callID, status: call.status, blocks: [
                call.arguments.map { block("Arguments", $0, language: "json") },
                call.error.map { block("Error", $0, language: "") },
                call.output.map { block("Output", $0, language: "") },
            ].compactMap { $0 } + call.diffs.map { block("Diff of \($0.path)", $0.unifiedLines.joined(separator: "\n"), language: "diff") })
        case .modeChange(let mode, _):
            view.kind = "mode"
            view.label = "Mode"
            view.note = mode
        case .sessionTitle(let title, _):
            view.kind = "title"
            view.label = "Session title"
            view.note = title
        case .commands(let names, _):
            view.kind = "commands"
            view.label = "Commands available"
            view.note = names.map { "/" + $0 }.joined(separator: ", ")
        case .other(let kind, let json, _):
            view.kind = "other"
            view.label = "Event \(kind) (not shown by this version)"
            view.raw = json
        }
        return view
    }

    private static func block(_ label: String, _ text: String, language: String) -> SessionPageView.TextBlock {
        let lines = text.utf8.count { $0 == 0x0A } + 1
        let folded = text.count > foldedLength || lines > foldedLines
        return .init(label: label, language: language, text: text, folded: folded, size: "\(size(text.utf8.count)), \(lines) line\(lines == 1 ? "" : "s")")
    }

    /// `812 bytes`, `12.3 KB`, `4.1 MB`.
    static func size(_ bytes: Int) -> String {
        if bytes < 1_000 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        if bytes < 1_000_000 { return String(format: "%.1f KB", Double(bytes) / 1_000) }
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}

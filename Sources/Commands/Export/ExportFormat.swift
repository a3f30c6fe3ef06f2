import Bridge
import Foundation
import MirrorStore

/// What `export` writes: Markdown (the default), self-contained HTML pages (`HTMLExport`), or the
/// session's stored events as JSON lines: each event's update exactly as the mirror holds it
/// (the bytes the bridge sent), one per line, in timeline order.
enum ExportFormat: String, CaseIterable {
    case markdown = "md"
    case html
    case json

    /// The extension of its files: `md`, `html`, `jsonl`.
    var fileExtension: String {
        switch self {
        case .markdown: "md"
        case .html: "html"
        case .json: "jsonl"
        }
    }

    /// The member of `export.markdown`'s answer that holds the text when no path is given.
    var answerMember: String {
        switch self {
        case .markdown: "markdown"
        case .html: "html"
        case .json: "jsonl"
        }
    }

    /// `--format md|html|json`, or `--html` (the same as `--format html`).
    static func from(_ arguments: CommandArguments) throws(CommandError) -> ExportFormat {
        let named = try arguments.string("format")
        let html = try arguments.bool("html")
        guard let named else { return html ? .html : .markdown }
        guard let format = ExportFormat(rawValue: named) else {
            throw .badArguments("--format (format) must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), not \(named)")
        }
        if html && format != .html { throw .badArguments("--html (html) asks for HTML, --format (format) for \(named): give one") }
        return format
    }

    /// The session's events as JSON lines: each update as stored, then a line feed.
    static func jsonLines(_ events: [TimelineEvent]) -> Data {
        var data = Data(capacity: events.reduce(0) { $0 + $1.updateJSON.count + 1 })
        for event in events {
            data.append(contentsOf: event.updateJSON)
            data.append(0x0A)
        }
        return data
    }
}

import Foundation
import MirrorStore
import ReadModel

/// A session rendered in one of the formats `export` writes: its files, named from a base name
/// (`openagents-798C06FE`), and for HTML its row of the index. The one switch over the formats,
/// for `export` and `export --all`.
struct SessionExport {
    struct File {
        var name: String
        var content: Data
    }

    var files: [File]
    /// The session's row of `index.html` (HTML only).
    var indexRow: SessionIndexView.Row?

    /// Renders `session` from `views` (redacted as they are). `desktop` is the bridge the mirror
    /// syncs from, for HTML; `exportedAt` is noted in a Markdown header.
    static func render(_ session: SessionSummary, format: ExportFormat, baseName: String, views: MirrorViews, desktop: String?,
                       exportedAt: Int64? = nil) throws -> SessionExport {
        switch format {
        case .markdown:
            let document = MarkdownExport.document(try views.sessionDocument(session), exportedAt: exportedAt)
            return SessionExport(files: [File(name: baseName + ".md", content: Data(document.utf8))])
        case .json:
            return SessionExport(files: [File(name: baseName + ".jsonl", content: ExportFormat.jsonLines(try views.sessionEvents(session).events))])
        case .html:
            let rendered = try HTMLExport.render(try views.sessionDocument(session), baseName: baseName, desktop: desktop,
                                                 pageBytes: HTMLExport.defaultPageBytes)
            return SessionExport(files: rendered.pages.map { File(name: $0.fileName, content: Data($0.html.utf8)) }, indexRow: rendered.row)
        }
    }
}

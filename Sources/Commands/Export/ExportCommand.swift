import Bridge
import Foundation
import MirrorStore
import ReadModel

/// `export`: a session as Markdown, HTML (`--html`, `--format html`: self-contained pages) or its
/// stored events as JSON lines (`--format json`), to standard output or a file; with `--all`,
/// every session into a directory, a file each (`ExportAll`; HTML adds `index.html`), named
/// `openagents-<first 8 of the id>.<md|html|jsonl>` or longer where ids collide (`ExportFileNames`
/// has the rule), rewriting only the files that changed.
///
/// `--all` refuses `--timestamp` (every file would change on every run) and does not need
/// `--force`. When a file cannot be written, the others still are, and the command fails
/// (exit 1 in scripts, error -32006 with the summary as `data` in JSON-lines mode).
enum ExportCommand {
    static let export = CommandDefinition(
        words: ["export"], method: "export.markdown",
        summary: "A session as Markdown (or HTML, or its stored events as JSON lines): to standard output, or to PATH "
            + "(a directory gets openagents-<first 8 of the id>.md, .html or .jsonl); with --all, every session into the directory PATH.",
        parameters: [CommandParameter("session_id", .string, positional: true, required: true, replacedBy: "all",
                                      "the session: its id or any unique prefix (not with --all)"),
                     CommandParameter("path", .string, positional: true,
                                      "the file (or directory) to write; with --all, the directory (required; made if missing)"),
                     CommandParameter("force", .boolean, "overwrite an existing file (--all replaces changed files without it)"),
                     CommandParameter("timestamp", .boolean,
                                      "note the export time in the Markdown header (not with --all: every file would change every run)"),
                     CommandParameter("all", .boolean,
                                      "every session, to PATH/openagents-<first 8 of the id>.md; of ids with the same first 8 (ignoring case), "
                                        + "the first by id keeps them, the others take the first 12, 16, … characters that no other id starts "
                                        + "with, or the full id; only files whose content changed are rewritten; fails (exit 1) if a file "
                                        + "could not be written, after writing every other"),
                     CommandParameter("format", .string, value: "md|html|json",
                                      "md: Markdown (the default); html: self-contained HTML pages that fetch nothing (--all adds index.html); "
                                        + "json: the session's stored events, one update per line, byte for byte"),
                     CommandParameter("html", .boolean, "the same as --format html: a session longer than a page is split into "
                                        + "NAME.html, NAME-p2.html, … beside each other (give PATH)")],
        example: "export 5f0c ~/notes/ --html"
    ) { arguments, context in
        let format = try ExportFormat.from(arguments)
        if try arguments.bool("timestamp"), format != .markdown {
            throw CommandError.badArguments("--timestamp (timestamp) notes the time in the Markdown header: it cannot be used with --format \(format.rawValue)")
        }
        if try arguments.bool("all") { return try exportAll(arguments, format: format, context) }
        let session = try context.resolveSession(try arguments.requiredString("session_id"))
        let views = try context.views()
        let path = try arguments.string("path").map { requested throws(CommandError) in
            try destination(for: requested, sessionID: session.sessionID, format: format)
        }
        // The pages after an HTML export's first are named from its file's name, beside it.
        let url = URL(fileURLWithPath: path ?? "openagents-\(session.sessionID.prefix(8)).\(format.fileExtension)")
        let base = url.pathExtension == format.fileExtension ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
        let exportedAt = try arguments.bool("timestamp") ? context.clock.now() : nil
        let export = try storeCall {
            try views.store.read {
                try SessionExport.render(session, format: format, baseName: base, views: views,
                                         desktop: try views.store.lastBridgeURL(), exportedAt: exportedAt)
            }
        }
        guard let path else {
            guard export.files.count == 1, let file = export.files.first else {
                throw CommandError.badArguments("this session takes \(export.files.count) HTML pages, linked to each other: give the directory (or first file) to write them to")
            }
            let text = String(decoding: file.content, as: UTF8.self)
            // JSON lines end with a line feed, which the text output adds again.
            return CommandResult(json: ["session_id": .string(session.sessionID), format.answerMember: .string(text)],
                                 text: format == .json ? String(text.dropLast()) : text)
        }
        let files = export.files.enumerated().map { index, file in
            (path: index == 0 ? path : url.deletingLastPathComponent().appending(path: file.name).path, content: file.content)
        }
        if try !arguments.bool("force"), let existing = files.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw CommandError.fileExists(existing.path)
        }
        for file in files {
            do {
                try file.content.write(to: URL(fileURLWithPath: file.path), options: .atomic)
            } catch {
                throw CommandError.io("cannot write \(file.path): \(error.localizedDescription)", FileSystemFailure(error))
            }
        }
        try storeCall {
            try context.store().recordExport(ExportRecord(sessionID: session.sessionID, exportedAt: context.clock.now(), format: format.rawValue,
                                                          redacted: context.redacts, path: path))
        }
        var members = [JSONMember("session_id", .string(session.sessionID)), JSONMember("path", .string(path)),
                       JSONMember("bytes", .number(files.reduce(0) { $0 + $1.content.count }))]
        if format == .html { members.append(JSONMember("files", .array(files.map { .string($0.path) }))) }
        let more = files.count > 1 ? " and \(files.count - 1) more page\(files.count == 2 ? "" : "s") beside it" : ""
        return CommandResult(json: .object(members), text: "wrote \(path)" + more)
    }

    /// `export --all PATH`: PATH is the directory; `--timestamp` is refused.
    private static func exportAll(_ arguments: CommandArguments, format: ExportFormat, _ context: CommandContext) throws(CommandError) -> CommandResult {
        guard let directory = try arguments.string("path"), !directory.isEmpty else {
            throw .badArguments("export --all needs the directory to write into: export --all DIR (param path)")
        }
        if try arguments.bool("timestamp") {
            throw .badArguments("--timestamp (timestamp) cannot be used with --all (all): every file would change on every run")
        }
        let report = try ExportAll.run(into: directory, format: format, context: context)
        return CommandResult(json: report.json, text: report.text)
    }

    /// `requested`, or the default file name inside it when it is a directory; symbolic links are
    /// followed (a link to a file not yet written too), so that the file is replaced, not the link.
    ///
    /// - Throws: `CommandError.io` when the file exists and is not a regular one (a device, a
    ///   pipe): the atomic write would replace it with a regular file.
    static func destination(for requested: String, sessionID: String, format: ExportFormat) throws(CommandError) -> String {
        var url = followingLinks(URL(fileURLWithPath: expandingHome(requested)))
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            url = url.appending(path: "openagents-\(sessionID.prefix(8)).\(format.fileExtension)")
        }
        return try regularFileTarget(url.path, hint: "leave out the path to write to standard output")
    }

    /// The file `path` names once symbolic links are followed (a link to a file not yet written
    /// too), so that the file is replaced, not the link.
    ///
    /// - Throws: `CommandError.io` when the file exists and is not a regular one (a directory, a
    ///   device, a pipe): the atomic write would replace it with a regular file. The message
    ///   ends with `hint` in parentheses.
    static func regularFileTarget(_ path: String, hint: String) throws(CommandError) -> String {
        let url = followingLinks(URL(fileURLWithPath: path))
        if let type = try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType, type != .typeRegular {
            throw CommandError.io("\(url.path) is not a regular file (\(hint))")
        }
        return url.path
    }

    /// `~` or `~/…` in `$HOME` (as a shell would), else the path as it is.
    static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return home + path.dropFirst()
    }

    /// The file `url` names once every symbolic link on the way is followed, whether or not the
    /// file at the end exists (at most 40 links, as the kernel allows).
    private static func followingLinks(_ url: URL) -> URL {
        var url = url.standardizedFileURL
        for _ in 0..<40 {
            let parent = url.deletingLastPathComponent().resolvingSymlinksInPath()
            url = parent.appending(path: url.lastPathComponent)
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path) else { return url }
            url = URL(fileURLWithPath: target, relativeTo: parent).standardizedFileURL
        }
        return url
    }
}

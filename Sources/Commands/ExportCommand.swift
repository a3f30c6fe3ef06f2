import Bridge
import Foundation

/// `export`: a session as Markdown, to standard output or a file.
enum ExportCommand {
    static let export = CommandDefinition(
        words: ["export"], method: "export.markdown",
        summary: "A session as Markdown: to standard output, or to PATH (a directory gets openagents-<first 8 of the id>.md).",
        parameters: [CommandParameter("session_id", .string, positional: true, required: true, "the session: its id or any unique prefix"),
                     CommandParameter("path", .string, positional: true, "the file (or directory) to write"),
                     CommandParameter("force", .boolean, "overwrite an existing file"),
                     CommandParameter("timestamp", .boolean, "note the export time in the header")],
        example: "export 5f0c ~/notes/"
    ) { arguments, context in
        let session = try context.resolveSession(try arguments.requiredString("session_id"))
        let events = try storeCall { try context.store().timeline(sessionID: session.sessionID) }
        let document = MarkdownExport.document(session: session, events: events,
                                               exportedAt: try arguments.bool("timestamp") ? context.clock.now() : nil)
        guard let requested = try arguments.string("path") else {
            return CommandResult(json: ["session_id": .string(session.sessionID), "markdown": .string(document)], text: document)
        }
        let path = try destination(for: requested, sessionID: session.sessionID)
        if FileManager.default.fileExists(atPath: path), try !arguments.bool("force") { throw CommandError.fileExists(path) }
        do {
            try Data(document.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandError.io("cannot write \(path): \(error.localizedDescription)")
        }
        return CommandResult(json: ["session_id": .string(session.sessionID), "path": .string(path), "bytes": .number(document.utf8.count)],
                             text: "wrote \(path)")
    }

    /// `requested`, or the default file name inside it when it is a directory; symbolic links are
    /// followed (a link to a file not yet written too), so that the file is replaced, not the link.
    ///
    /// - Throws: `CommandError.io` when the file exists and is not a regular one (a device, a
    ///   pipe): the atomic write would replace it with a regular file.
    static func destination(for requested: String, sessionID: String) throws(CommandError) -> String {
        var url = followingLinks(URL(fileURLWithPath: expandingHome(requested)))
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            url = followingLinks(url.appending(path: "openagents-\(sessionID.prefix(8)).md"))
        }
        if let type = try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType, type != .typeRegular {
            throw CommandError.io("\(url.path) is not a regular file (leave out the path to write to standard output)")
        }
        return url.path
    }

    /// `~` or `~/…` in `$HOME` (as a shell would), else the path as it is.
    private static func expandingHome(_ path: String) -> String {
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

import Bridge
import Foundation
import MirrorStore
import ReadModel

/// `export --all DIR`: every session of the mirror as Markdown (or HTML pages, or JSON lines), one
/// file each in a directory, named by `ExportFileNames` (HTML: a file per page, and `index.html`
/// listing the sessions); a file is rewritten only when its content changed, so that git or rsync
/// see real changes only.
///
/// The sessions are read in one read transaction, so that the files are one consistent snapshot of
/// the mirror, and one timeline at a time, so that memory stays bounded by the largest session. A
/// file that cannot be written does not stop the others; the command then fails, after trying
/// them all, with what was done as the error's data. The sessions whose files were written are
/// noted in the mirror's exports (for the `secrets` report).
enum ExportAll {
    /// What an export did.
    struct Report {
        /// The directory, as an absolute path.
        var directory: String
        var sessions = 0
        /// The files written (new or changed), in the order of the session ids.
        var written: [String] = []
        /// How many files already held their content.
        var unchanged = 0
        var failed: [Failure] = []

        struct Failure {
            var sessionID: String
            var path: String
            var error: CommandError
        }

        var json: JSONValue {
            ["directory": .string(directory), "sessions": .number(sessions), "written": .array(written.map { .string($0) }),
             "unchanged": .number(unchanged),
             "failed": .array(failed.map { ["session_id": .string($0.sessionID), "path": .string($0.path), "error": .string($0.error.description)] })]
        }

        /// `exported 40 sessions to DIR: 3 written, 37 unchanged, 0 failed`, then a line per failure.
        var text: String {
            let summary = "exported \(sessions) session\(sessions == 1 ? "" : "s") to \(directory): "
                + "\(written.count) written, \(unchanged) unchanged, \(failed.count) failed"
            return ([summary] + failed.map { "  \($0.sessionID): \($0.error)" }).joined(separator: "\n")
        }
    }

    /// Exports every session of `context`'s mirror into `requestedDirectory` (created, mode 0700,
    /// when missing).
    ///
    /// - Throws: `CommandError.io` when the directory cannot be made or is not one, the mirror's
    ///   errors when it cannot be read (nothing more is written then), and
    ///   `CommandError.filesFailed` when some files could not be written.
    static func run(into requestedDirectory: String, format: ExportFormat = .markdown, context: CommandContext) throws(CommandError) -> Report {
        let views = try context.views()
        let store = views.store
        let directory = try prepareDirectory(requestedDirectory)
        var report = Report(directory: directory.path)
        var exported: [String] = []
        var progress = ProgressReports(report: context.progress)
        defer { progress.finish(report.sessions) }
        try storeCall {
            try store.read {
                let sessions = try store.sessions()
                let desktop = try store.lastBridgeURL()
                let byID = Dictionary(sessions.map { ($0.sessionID, $0) }, uniquingKeysWith: { first, _ in first })
                report.sessions = byID.count
                var rows: [SessionIndexView.Row] = []
                for (done, named) in ExportFileNames.assign(Array(byID.keys), fileExtension: format.fileExtension).enumerated() {
                    progress.step(done: done, total: report.sessions)
                    guard let session = byID[named.sessionID] else { continue }
                    let export = try SessionExport.render(session, format: format, baseName: String(named.fileName.dropLast(format.fileExtension.count + 1)),
                                                          views: views, desktop: desktop)
                    if let row = export.indexRow { rows.append(row) }
                    let files = export.files
                    let written = report.written.count
                    for file in files { write(file.content, to: directory.appending(path: file.name).path, sessionID: session.sessionID, into: &report) }
                    if report.written.count > written { exported.append(session.sessionID) }
                }
                if format == .html {
                    write(Data(try HTMLExport.index(rows: rows, desktop: desktop).utf8), to: directory.appending(path: "index.html").path,
                          sessionID: "index", into: &report)
                }
            }
        }
        // The sessions whose files were written, for the secrets report (outside the read above).
        let now = context.clock.now()
        let redacted = context.redacts
        try storeCall {
            try store.write {
                for sessionID in exported {
                    try store.recordExport(ExportRecord(sessionID: sessionID, exportedAt: now, format: format.rawValue, redacted: redacted,
                                                        path: directory.path))
                }
            }
        }
        if !report.failed.isEmpty { throw .filesFailed(report.text, result: report.json) }
        return report
    }

    /// Writes `content` to `path` when it changed, noting what was done in `report`.
    private static func write(_ content: Data, to path: String, sessionID: String, into report: inout Report) {
        do throws(CommandError) {
            if try update(path, with: content) { report.written.append(path) } else { report.unchanged += 1 }
        } catch {
            report.failed.append(Report.Failure(sessionID: sessionID, path: path, error: error))
        }
    }

    /// The directory, made if missing (with its parents), as an absolute path.
    private static func prepareDirectory(_ requested: String) throws(CommandError) -> URL {
        let url = URL(fileURLWithPath: ExportCommand.expandingHome(requested)).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .io("\(url.path) is not a directory (export --all writes a file per session into one)") }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("cannot create \(url.path): \(error.localizedDescription)", FileSystemFailure(error))
        }
        return url
    }

    /// Writes `content` to `path` (atomically, a symbolic link followed) unless the file holds
    /// exactly these bytes already; true when it wrote.
    private static func update(_ path: String, with content: Data) throws(CommandError) -> Bool {
        let target = try ExportCommand.regularFileTarget(path, hint: "export --all writes this session's document there; move it away")
        if let existing = FileManager.default.contents(atPath: target), existing == content { return false }
        do {
            try content.write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw .io("cannot write \(target): \(error.localizedDescription)", FileSystemFailure(error))
        }
        return true
    }

    /// Reports through `CommandContext.progress`, at most ten times a second, and always the end.
    private struct ProgressReports {
        let report: ((CommandProgress) -> Void)?
        var last: ContinuousClock.Instant?

        mutating func step(done: Int, total: Int) {
            guard let report else { return }
            let now = ContinuousClock.now
            if let last, now - last < .milliseconds(100) { return }
            last = now
            report(CommandProgress(activity: "exporting", done: done, total: total, unit: "sessions"))
        }

        func finish(_ total: Int) {
            report?(CommandProgress(activity: "exporting", done: total, total: total, unit: "sessions", finished: true))
        }
    }
}

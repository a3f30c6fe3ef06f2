import Commands
import Foundation
import MirrorStore
import Primitives
import ReadModel
import Secrets

/// What the MCP tools and resources read from (and, for prompts, write to) the mirror, on a thread
/// of its own: SQLite calls block, so they never run on the cooperative pool. Unless told not to
/// redact, every text it answers (titles, snippets, conversations) has its secrets replaced by
/// their tags, one redactor per answer.
actor MirrorQueries {
    private let executor = ThreadExecutor(name: "oa-mcp-mirror")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let mirrorPath: String
    private let context: CommandContext

    init(mirrorPath: String, bridgeURL: String, redacts: Bool) {
        self.mirrorPath = mirrorPath
        context = CommandContext(mirrorPath: mirrorPath, bridgeURL: bridgeURL)
        context.redacts = redacts
    }

    /// The most relevant hits for `query`, each with its session's title.
    func search(_ query: String, limit: Int, session prefix: String?) throws(ToolFailure) -> [SearchHitRow] {
        try withStore { _ in
            let request = try SearchRequest(query: query, options: SearchFilter(sessionID: try prefix.map { try context.resolveSession($0).sessionID }),
                                            context: context)
            return try context.views().searchPage(request.expression, filter: request.filter, limit: limit, markers: .brackets,
                                                  leavesOutputOut: false, titled: true).hits
        }
    }

    /// Sessions, most recent activity first, paged in SQL; with `query`, only those whose title
    /// holds it or whose events match it as a search.
    func sessions(limit: Int, offset: Int, query: String?) throws(ToolFailure) -> [SessionRow] {
        try withStore { store in
            let views = try context.views()
            guard let query else { return try views.sessionRows(limit: limit, offset: offset) }
            let request = try SearchRequest(query: query, options: .none, context: context)
            let matching = Set(try store.search(request.expression, filter: request.filter, limit: MirrorStore.searchRankWindow).map(\.sessionID))
            return try views.sessionRows(limit: limit, offset: offset, matching: SessionMatch(sessionIDs: matching.sorted(), titleWords: query))
        }
    }

    /// The session `prefix` names, its title, and its conversation as Markdown from the entry
    /// `context` entries before the one holding ordinal `at` (or from the start), cut near `maxCharacters`.
    func read(session prefix: String, at ordinal: Int64?, context size: Int, maxCharacters: Int) throws(ToolFailure) -> SessionMarkdown {
        try withStore { store in
            let session = try context.resolveSession(prefix)
            let views = try context.views()
            return try store.read {
                var start: Int64 = 0
                var earlier: (count: Int, lastOrdinal: Int64)?
                if let ordinal, size == 0 {
                    // Reading on where a part stopped: from that very event.
                    guard try !store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: ordinal, limit: 1)).isEmpty else {
                        throw ToolFailure("Session \(session.sessionID) has no event at ordinal \(ordinal) or after it; read it without at.")
                    }
                    start = ordinal
                    let before = try store.eventCounts(sessionID: session.sessionID, before: ordinal, from: .max).before
                    earlier = before > 0 ? (before, ordinal - 1) : nil
                } else if let ordinal {
                    // A window of at most one event per 64 characters of the budget on each side:
                    // inside a message streamed in thousands of chunks, the text starts near `at`
                    // rather than a budget's worth of text before it, and the reading stays short.
                    let span = min(ConversationWindow.maximumSpan, max(64, maxCharacters / 64))
                    guard let window = try views.conversationWindow(ofSession: session.sessionID, at: ordinal, context: size, span: span) else {
                        throw ToolFailure("Session \(session.sessionID) has no event at ordinal \(ordinal) or after it; read it without at.")
                    }
                    start = window.entries.first?.firstOrdinal ?? ordinal
                    earlier = window.earlier
                }
                return try SessionMarkdown.read(views: views, session: session, from: start, earlier: earlier, maxCharacters: maxCharacters)
            }
        }
    }

    /// Queues `text` for the session `target` names, or a new one (`new`).
    func enqueue(_ text: String, for target: String) throws(ToolFailure) -> OutboxItem {
        try withStore { _ in try OutboxCommands.enqueue(text, for: target, context: context) }
    }

    /// The most recently active sessions, for the resource list.
    func recentSessions(limit: Int) throws(ToolFailure) -> [SessionRow] {
        try sessions(limit: limit, offset: 0, query: nil)
    }

    /// The full id of the session `prefix` names.
    func resolve(_ prefix: String) throws(ToolFailure) -> String {
        try withStore { _ in try context.resolveSession(prefix).sessionID }
    }

    /// A session's whole Markdown export.
    func document(session prefix: String) throws(ToolFailure) -> (sessionID: String, markdown: String) {
        try withStore { store in
            let session = try context.resolveSession(prefix)
            return (session.sessionID, MarkdownExport.document(try context.views().sessionDocument(session)))
        }
    }

    /// Runs `body` on the mirror, its errors turned into advice for the model.
    private func withStore<T>(_ body: (MirrorStore) throws -> T) throws(ToolFailure) -> T {
        guard FileManager.default.fileExists(atPath: mirrorPath) else { throw .noMirror(mirrorPath) }
        do {
            return try body(try context.store())
        } catch let error as ToolFailure {
            throw error
        } catch let error as CommandError {
            throw ToolFailure(error, mirrorPath: mirrorPath)
        } catch {
            throw ToolFailure(CommandError.wrapping(error), mirrorPath: mirrorPath)
        }
    }
}

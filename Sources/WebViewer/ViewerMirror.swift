import Commands
import Foundation
import MirrorStore
import Primitives
import ReadModel

/// What the web viewer reads from the mirror, rendered as its pages, on a thread of its own:
/// SQLite calls block, so they never run on the cooperative pool. Every page is made from the
/// read model's views, redacted unless the person asked otherwise (`--no-redact`).
actor ViewerMirror {
    private let executor = ThreadExecutor(name: "oa-serve-mirror")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let mirrorPath: String
    /// Whether pages show secrets as received (each says so).
    nonisolated let unredacted: Bool
    private let context: CommandContext

    init(mirrorPath: String, redacts: Bool) {
        self.mirrorPath = mirrorPath
        unredacted = !redacts
        context = CommandContext(mirrorPath: mirrorPath, bridgeURL: "")
        context.redacts = redacts
    }

    /// Where a session's page opens.
    enum Position: Sendable, Equatable {
        /// At the entry holding this ordinal (the first: 0).
        case from(Int64)
        /// A little before the entry holding this ordinal (a search hit, a secret's place).
        case at(Int64)
        /// The part that ends just before this ordinal.
        case before(Int64)
    }

    /// A page of the sessions list (1-based), filtered by a title's words and a desktop.
    func sessionsPage(page: Int, title: String, desktop: String?) throws(CommandError) -> String {
        try reading { store in
            let views = try context.views()
            let rows = try views.sessionRows(limit: ViewerPages.sessionsPerPage + 1, offset: (page - 1) * ViewerPages.sessionsPerPage,
                                             desktop: desktop, matching: title.isEmpty ? nil : SessionMatch(sessionIDs: [], titleWords: title))
            let desktops = Set(try store.histories().map(\.desktop)).sorted()
            return try ViewerPages.sessions(rows, page: page, title: title, desktop: desktop, desktops: desktops, unredacted: unredacted)
        }
    }

    /// A session's page, or (`fragment`) the entries of its part alone.
    func sessionPage(_ sessionID: String, at position: Position, fragment: Bool) throws(CommandError) -> String {
        try reading { store in
            guard let session = try store.session(id: sessionID) else { throw CommandError.unknownSession(sessionID) }
            let views = try context.views()
            let window: SessionWindow
            switch position {
            case .from(let ordinal):
                window = try views.sessionWindow(of: session, from: ordinal)
            case .at(let ordinal):
                let start = try store.conversationSpanStart(sessionID: sessionID, before: ordinal, budget: .init(entries: 2, bytes: 4_096))
                window = try views.sessionWindow(of: session, from: start ?? ordinal)
            case .before(let ordinal):
                let start = try store.conversationSpanStart(sessionID: sessionID, before: ordinal, budget: SessionWindow.defaultBudget) ?? 0
                window = try views.sessionWindow(of: session, from: start, through: ordinal - 1)
            }
            return fragment ? try ViewerPages.entries(window) : try ViewerPages.session(window, unredacted: unredacted)
        }
    }

    /// The search page for `query` (the form alone when it is empty): its `limit` most relevant
    /// hits, with a link to more when there are more.
    func searchPage(query: String, limit: Int) throws(CommandError) -> String {
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            return try ViewerPages.search(query: "", page: nil, limit: limit, error: nil, unredacted: unredacted)
        }
        do {
            return try reading { _ in
                let request = try SearchRequest(query: query, options: .none, context: context)
                let leavesOutputOut = !request.filter.everywhere && request.filter.kind == nil && request.expression.places.isEmpty
                // One hit more than shown tells whether there are more.
                let page = try context.views().searchPage(request.expression, filter: request.filter, limit: limit + 1,
                                                          markers: ViewerPages.snippetMarkers, leavesOutputOut: leavesOutputOut, titled: true)
                return try ViewerPages.search(query: query, page: page, limit: limit, error: nil, unredacted: unredacted)
            }
        } catch .badArguments(let problem) {
            return try ViewerPages.search(query: query, page: nil, limit: limit, error: problem, unredacted: unredacted)
        } catch .unknownSession(let prefix) {
            return try ViewerPages.search(query: query, page: nil, limit: limit, error: "No session has an id that starts with \(prefix).",
                                          unredacted: unredacted)
        }
    }

    /// The status page: each desktop, the failed sessions, the outbox.
    func statusPage() throws(CommandError) -> String {
        try reading { _ in
            let views = try context.views()
            return try ViewerPages.status(try views.statusReport(mirrorPath: mirrorPath), outbox: try views.outboxRows(), unredacted: unredacted)
        }
    }

    /// The secrets page (the events not scanned yet are scanned first).
    func secretsPage() throws(CommandError) -> String {
        try reading { _ in
            let reports = try context.views().secretsReport(sessionID: nil, detector: try context.secretDetector())
            return try ViewerPages.secrets(reports, unredacted: unredacted)
        }
    }

    /// Runs `body` on the mirror, its errors as the command layer's.
    private func reading<T>(_ body: (MirrorStore) throws -> T) throws(CommandError) -> T {
        do {
            return try body(try context.store())
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError.wrapping(error)
        }
    }
}

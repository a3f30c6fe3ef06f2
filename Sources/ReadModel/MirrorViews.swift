import MirrorStore
import Secrets

/// The one maker of the views every front end shows (the REPL, JSON lines, MCP, the exports):
/// created with a `RedactionPolicy`, it redacts every text it puts in a view, so that a front end
/// has nothing to remember. Its calls read the store in the caller's thread (SQLite blocks: call
/// them from a thread of their own, as the command runner and the MCP server's queries do).
public struct MirrorViews {
    public let store: MirrorStore
    public let redaction: RedactionPolicy

    public init(store: MirrorStore, redaction: RedactionPolicy) {
        self.store = store
        self.redaction = redaction
    }

    /// Sessions, most recent activity first, paged in SQL: those of the desktop named `desktop`
    /// if given; with `matching`, only those it admits. Their titles are redacted as one
    /// document.
    public func sessionRows(limit: Int, offset: Int, desktop: String? = nil, matching: SessionMatch? = nil) throws -> [SessionRow] {
        let redactor = redaction.redactor()
        return try store.read {
            try store.sessions(limit: limit, offset: offset, desktop: desktop, among: matching?.sessionIDs,
                               titleHolding: matching?.titleWords).map { session in
                let title = try SessionTitle.of(session, store: store)
                return SessionRow(session, title: title.map { redactor?.redact($0) ?? $0 }, state: try SessionState.of(session, store: store))
            }
        }
    }
}

extension MirrorViews {
    /// The vendor CLI threads the desktop lists, newest first, at most `limit`; their titles
    /// redacted as one document.
    public func threadRows(limit: Int) throws -> [ThreadRow] {
        let redactor = redaction.redactor()
        return try store.threads(limit: limit).map { thread in ThreadRow(thread, title: thread.title.map { redactor?.redact($0) ?? $0 }) }
    }
}

extension MirrorViews {
    /// The hits of a search, most relevant first, at most `limit`, their terms between `markers`;
    /// with how many more tool output holds when the search leaves it out (`leavesOutputOut`) and
    /// the page is not full; with their sessions' titles if `titled` (a title can cost a read of
    /// the session's first events). Snippets and titles are redacted as one document.
    public func searchPage(_ expression: SearchExpression, filter: SearchFilter, limit: Int, markers: SnippetMarkers,
                           leavesOutputOut: Bool, titled: Bool) throws -> SearchPage {
        let redactor = redaction.redactor()
        return try store.read {
            let hits = try SnippetRedaction.redacted(try store.search(expression, filter: filter, limit: limit, markers: markers),
                                                     markers: markers, store: store, by: redactor)
            var titles: [String: String] = [:]
            let rows = try hits.map { hit in
                if titled && titles[hit.sessionID] == nil {
                    let title = try store.session(id: hit.sessionID).flatMap { try SessionTitle.of($0, store: store) } ?? ""
                    titles[hit.sessionID] = redactor?.redact(title) ?? title
                }
                return SearchHitRow(hit, title: titles[hit.sessionID] ?? "")
            }
            let inToolOutput = leavesOutputOut && hits.count < limit ? try store.countInToolOutput(expression, filter: filter) : 0
            return SearchPage(hits: rows, inToolOutput: inToolOutput)
        }
    }
}

extension MirrorViews {
    /// What `status` reports of the mirror at `mirrorPath` (this store's file).
    public func statusReport(mirrorPath: String) throws -> StatusReport {
        try StatusReport.read(mirrorPath: mirrorPath, store: store)
    }
}

extension MirrorViews {
    /// The secrets found in the mirror by `detector` (of the session `sessionID` only, if given),
    /// most recently seen first: the events not scanned yet with these rules are scanned first
    /// and their findings kept (`SecretScan`), so that the next report reads them.
    public func secretsReport(sessionID: String?, detector: SecretDetector) throws -> [SecretReport] {
        try SecretScan.update(store: store, detector: detector)
        return try store.read {
            SecretReport.make(occurrences: try store.secretOccurrences(sessionID: sessionID), exports: try store.exports())
        }
    }
}

extension MirrorViews {
    /// The prompts queued here, oldest first, redacted as one document.
    public func outboxRows() throws -> [OutboxRow] {
        let redactor = redaction.redactor()
        return try store.outboxItems().map { OutboxRow($0, redactor: redactor) }
    }

    /// One prompt queued here (the answer to queuing or retrying it), redacted.
    public func outboxRow(_ item: OutboxItem) -> OutboxRow {
        OutboxRow(item, redactor: redaction.redactor())
    }
}

/// Which sessions a list keeps: those among `sessionIDs` (a search's), or whose desktop-given
/// title holds `titleWords` (ignoring the case of ASCII letters).
public struct SessionMatch: Sendable {
    public var sessionIDs: [String]
    public var titleWords: String?

    public init(sessionIDs: [String], titleWords: String?) {
        self.sessionIDs = sessionIDs
        self.titleWords = titleWords
    }
}

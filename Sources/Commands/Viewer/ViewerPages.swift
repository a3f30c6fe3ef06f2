import Foundation
import MirrorStore
import ReadModel

/// The web viewer's pages, rendered from the read model's views with the templates of the HTML
/// export (`HTMLTemplates`, `ViewerTemplates`): the server renders every page whole, so that it
/// reads with scripts off; the script only adds to it what the server rendered the same way.
///
/// Every text of a view is untrusted (a session's id, title, messages, tool names and outputs):
/// the templates escape it, or cmark-gfm renders it safely (`CommonMark.html`); addresses are
/// built here from ids percent-encoded (`sessionPath`), never taken from a session.
public enum ViewerPages {
    /// How many sessions the sessions page lists at once.
    public static let sessionsPerPage = 100

    /// `/sessions/<id>`, the id percent-encoded but for letters, digits and `-._~`.
    public static func sessionPath(_ sessionID: String) -> String {
        "/sessions/" + encoded(sessionID)
    }

    /// The address of the server-sent events a page follows: every session's (nil) or one's.
    public static func livePath(session sessionID: String?) -> String {
        sessionID.map { "/live?session=" + encoded($0) } ?? "/live"
    }

    /// `value` percent-encoded for a path segment or a query value.
    public static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// A page of the sessions list.
    ///
    /// - Parameters:
    ///   - rows: the page's rows, and one more when there are older sessions.
    ///   - desktops: every desktop's name, for the filter.
    public static func sessions(_ rows: [SessionRow], page: Int, title: String, desktop: String?, desktops: [String],
                                unredacted: Bool) throws(CommandError) -> String {
        let shown = rows.prefix(sessionsPerPage)
        let first = (page - 1) * sessionsPerPage + 1
        let query = { (page: Int) in
            var items = ["page=\(page)"]
            if !title.isEmpty { items.append("title=" + encoded(title)) }
            if let desktop { items.append("desktop=" + encoded(desktop)) }
            return "/?" + items.joined(separator: "&")
        }
        let view = SessionsPageView(
            chrome: ViewerChrome(unredacted: unredacted, live: livePath(session: nil)),
            filter: title,
            desktops: desktops.map { .init(name: $0, selected: $0 == desktop) },
            rows: shown.map { row in
                .init(href: sessionPath(row.sessionID), title: row.title ?? "Session \(row.sessionID)", sessionID: row.sessionID,
                      desktop: row.desktop ?? "this mirror", state: row.syncState.rawValue,
                      firstSeen: Timestamp(milliseconds: row.summary.firstSeenAt).iso8601, lastActivity: row.lastActivity?.iso8601 ?? "",
                      eventCount: row.eventCount, note: row.syncError)
            },
            range: shown.isEmpty ? (page == 1 ? "No session matches." : "No session on this page.")
                : "Sessions \(first)–\(first + shown.count - 1), the most recently active first.",
            previous: page > 1 ? query(page - 1) : nil,
            next: rows.count > sessionsPerPage ? query(page + 1) : nil
        )
        return try HTMLTemplates.render(view)
    }

    /// A session's page: its facts and a part of its conversation (`SessionWindow`), with links
    /// to the parts before and after it.
    public static func session(_ window: SessionWindow, unredacted: Bool) throws(CommandError) -> String {
        let session = window.session
        let notice = [window.archiveNote, window.redaction.note].compactMap { $0 }.joined(separator: ". ")
        let view = SessionPageView(
            policy: ViewerPolicy.meta, generator: "oa serve", viewerStyle: ViewerTemplates.style,
            title: window.title, sessionID: session.sessionID, desktop: session.desktop ?? "this mirror", mode: session.mode,
            firstActivity: window.entryTimes.first.flatMap { $0?.iso8601 }, lastActivity: Timestamp(milliseconds: session.lastTS)?.iso8601,
            eventCount: session.localEventCount, notice: notice.isEmpty ? nil : notice,
            pageNumber: 1, pageCount: 1, hasPages: false, previous: nil, next: nil, pages: [],
            entries: entryViews(window),
            viewer: viewer(window, chrome: ViewerChrome(unredacted: unredacted, live: livePath(session: session.sessionID)))
        )
        return try HTMLTemplates.render(view)
    }

    /// A part of a session alone, as the script inserts it (`EntriesFragmentView`).
    public static func entries(_ window: SessionWindow) throws(CommandError) -> String {
        try HTMLTemplates.render(EntriesFragmentView(entries: entryViews(window), viewer: viewer(window, chrome: nil)))
    }

    /// How many hits the search page shows at first, and at most (`?limit=`): each "more" shows
    /// as many again.
    public static let searchLimits = 20...500

    /// The search page: the form alone without `query`; its first `limit` hits (and a link to more
    /// when `page` holds one more), or what is wrong with it.
    public static func search(query: String, page: SearchPage?, limit: Int, error: String?, unredacted: Bool) throws(CommandError) -> String {
        let hits = (page?.hits ?? []).prefix(limit)
        let hasMore = (page?.hits.count ?? 0) > limit && limit < searchLimits.upperBound
        let view = SearchPageView(
            chrome: ViewerChrome(unredacted: unredacted, query: query),
            title: query.isEmpty ? "Search" : "Search: \(query)",
            hasQuery: !query.isEmpty, error: error,
            hits: hits.map { hit in
                .init(href: sessionPath(hit.sessionID) + "?at=\(hit.ordinal)#e-\(hit.ordinal)",
                      title: hit.title.isEmpty ? "Session \(hit.sessionID)" : hit.title, sessionID: hit.sessionID, kind: hit.kind,
                      time: hit.time?.iso8601, snippetHTML: marked(hit.snippet))
            },
            summary: summary(hits: hits.count, more: hasMore, inToolOutput: page?.inToolOutput ?? 0),
            more: hasMore ? "/search?q=\(encoded(query))&limit=\(min(searchLimits.upperBound, limit + searchLimits.lowerBound))" : nil
        )
        return try HTMLTemplates.render(view)
    }

    /// The markers the viewer asks the search for: characters of the private use area, which the
    /// escaping leaves as they are and `marked` turns into `mark` elements.
    public static let snippetMarkers = SnippetMarkers(start: "\u{E000}", end: "\u{E001}")

    /// The status page.
    public static func status(_ report: StatusReport, outbox: [OutboxRow], unredacted: Bool) throws(CommandError) -> String {
        let view = StatusPageView(
            chrome: ViewerChrome(unredacted: unredacted),
            mirror: report.mirror, sessions: report.sessions, events: report.events,
            desktops: report.desktops.map { desktop in
                .init(name: desktop.desktop, bridge: desktop.bridge,
                      gone: desktop.goneFromDesktopAt.map { "its history was gone from the desktop at \($0.iso8601)" },
                      connection: desktop.connectionState?.rawValue ?? "never connected", cursor: desktop.historyCursor, sessions: desktop.sessions,
                      lastSync: desktop.lastSync?.iso8601 ?? "never", lastError: desktop.lastError)
            },
            hasDesktops: !report.desktops.isEmpty,
            failed: report.failedSessions.map { failed in
                .init(href: sessionPath(failed.sessionID), sessionID: failed.sessionID, error: failed.syncError,
                      at: failed.syncErrorAt.iso8601, retry: failed.retryAfter.iso8601)
            },
            hasFailed: !report.failedSessions.isEmpty,
            outbox: outbox.map { row in
                .init(id: row.id, href: sessionPath(row.sessionID), sessionID: row.sessionID, state: row.state, text: row.text,
                      attempts: row.attempts, lastError: row.lastError, createdAt: row.createdAt.iso8601)
            },
            hasOutbox: !outbox.isEmpty
        )
        return try HTMLTemplates.render(view)
    }

    /// The secrets page: kinds, fingerprints and places, never a secret.
    public static func secrets(_ reports: [SecretReport], unredacted: Bool) throws(CommandError) -> String {
        let view = SecretsPageView(
            chrome: ViewerChrome(unredacted: unredacted),
            secrets: reports.map { report in
                .init(kind: report.kind, fingerprint: report.fingerprint, firstSeen: report.firstSeen?.iso8601 ?? "",
                      lastSeen: report.lastSeen?.iso8601 ?? "",
                      occurrences: report.occurrences.map { place in
                          .init(href: sessionPath(place.sessionID) + "?at=\(place.ordinal)#e-\(place.ordinal)", sessionID: place.sessionID,
                                ordinal: place.ordinal)
                      },
                      exportNote: report.exportNote)
            },
            hasSecrets: !reports.isEmpty
        )
        return try HTMLTemplates.render(view)
    }

    /// A page that says `message` (not found, a bad request, a failure), or asks for the token.
    public static func message(title: String, message: String, signIn: Bool = false, unredacted: Bool) throws(CommandError) -> String {
        try HTMLTemplates.render(MessagePageView(chrome: ViewerChrome(unredacted: unredacted), title: title, message: message, signIn: signIn))
    }

    private static func entryViews(_ window: SessionWindow) -> [SessionPageView.EntryView] {
        zip(window.entries, window.entryTimes).map { HTMLExport.entry(for: $0, time: $1) }
    }

    private static func viewer(_ window: SessionWindow, chrome: ViewerChrome?) -> SessionPageView.Viewer {
        let base = sessionPath(window.session.sessionID)
        return SessionPageView.Viewer(
            chrome: chrome ?? ViewerChrome(unredacted: false),
            base: base,
            earlier: window.earlierStart.map { _ in .init(href: base + "?before=\(window.start)", fragment: base + "/entries?before=\(window.start)") },
            later: window.laterStart.map { .init(href: base + "?from=\($0)", fragment: base + "/entries?from=\($0)") }
        )
    }

    /// `snippet` escaped for HTML, its marked terms in `mark` elements.
    static func marked(_ snippet: String) -> String {
        var html = ""
        html.reserveCapacity(snippet.utf8.count + 32)
        for character in snippet.unicodeScalars {
            switch character {
            case "&": html += "&amp;"
            case "<": html += "&lt;"
            case ">": html += "&gt;"
            case "\"": html += "&quot;"
            case "'": html += "&#39;"
            case "\u{E000}": html += "<mark>"
            case "\u{E001}": html += "</mark>"
            default: html.unicodeScalars.append(character)
            }
        }
        return html
    }

    private static func summary(hits: Int, more: Bool, inToolOutput: Int) -> String {
        var text = hits == 0 ? "No entry matches."
            : more ? "The \(hits) most relevant entries, more below." : "\(hits) entr\(hits == 1 ? "y" : "ies"), the most relevant first."
        if inToolOutput > 0 { text += " Tool output holds \(inToolOutput) more: add in:output to search it." }
        return text
    }
}

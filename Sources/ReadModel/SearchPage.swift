import MirrorStore

/// A page of search results as every front end shows it: its hits, and how many more hits tool
/// output holds when the search left it out and found little elsewhere. Made by `MirrorViews`,
/// snippets and titles redacted by the views' policy.
public struct SearchPage: Sendable {
    public var hits: [SearchHitRow]
    /// Hits in tool output the search left out (counted only when the page is not full).
    public var inToolOutput: Int
}

/// A search hit: an entry (a message, or one event of another kind), encoded member for member
/// as `docs/cli.md` documents `search`.
public struct SearchHitRow: Sendable, Encodable {
    public var sessionID: String
    public var ordinal: Int64
    public var lastOrdinal: Int64
    public var eventID: Int64
    public var kind: String
    public var time: Timestamp?
    public var occurrences: Int
    /// The excerpt, its terms between the markers the search was asked for.
    public var snippet: String
    /// The session's title by `SessionTitle`'s rule ("" when it has none, or when the page was
    /// asked for without titles; not encoded: `search` answers hits, MCP names their sessions).
    public var title: String

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", ordinal, lastOrdinal = "last_ordinal", eventID = "event_id", kind, time, occurrences, snippet
    }

    init(_ hit: SearchHit, title: String) {
        sessionID = hit.sessionID
        ordinal = hit.ordinal
        lastOrdinal = hit.lastOrdinal
        eventID = hit.eventID
        kind = hit.kind
        time = Timestamp(milliseconds: hit.timestamp)
        occurrences = hit.occurrences
        snippet = hit.snippet
        self.title = title
    }
}

/// An event whose text matches a search.
public struct SearchHit: Sendable, Equatable {
    public var eventID: Int64
    public var sessionID: String
    public var ordinal: Int64
    public var kind: String
    public var timestamp: Int64?
    /// A short excerpt around the match, the matched terms between the highlight markers.
    public var snippet: String
}

/// How search excerpts mark the matched terms.
public struct SnippetMarkers: Sendable, Equatable {
    public var start: String
    public var end: String
    public var ellipsis: String

    public init(start: String, end: String, ellipsis: String = "…") {
        self.start = start
        self.end = end
        self.ellipsis = ellipsis
    }

    /// `[term]`.
    public static let brackets = SnippetMarkers(start: "[", end: "]")
}

extension MirrorStore {
    /// How many of the newest matching events a search ranks by relevance: a query matching more
    /// ranks its newest this many (and finds older ones with narrower words or filters), so that
    /// its cost stays bounded however many events match.
    public static let searchRankWindow = 500

    /// Searches the text of the mirrored events that `filter` admits: the most relevant first
    /// (FTS5's bm25), the newest first among equally relevant ones (by event time, then most
    /// recently mirrored). Relevance ranks the newest `searchRankWindow` matches (or `offset +
    /// limit`, if more).
    ///
    /// `text` is plain words, not FTS5 syntax: every word must occur (in any order), a word ending
    /// in `*` matches as a prefix, and quotes or operators are taken literally.
    ///
    /// A session filter tests each match's id against the session's (from its index) before its
    /// row is read; kind and time are tested on each match's row.
    public func search(
        _ text: String,
        filter: SearchFilter = .none,
        limit: Int = 20,
        offset: Int = 0,
        markers: SnippetMarkers = .brackets
    ) throws -> [SearchHit] {
        guard let query = Self.ftsQuery(for: text), limit > 0 else { return [] }
        return try read {
            let window = max(Self.searchRankWindow, offset + limit)
            let candidates: [RankedMatch]
            if let sessionID = filter.sessionID {
                guard let sessionNo = try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID]) else {
                    return []
                }
                candidates = try sessionMatches(query, sessionNo: sessionNo, filter: filter, window: window)
            } else {
                candidates = try matches(query, filter: filter, limit: window)
            }
            let page = candidates.sorted().dropFirst(offset).prefix(limit).map(\.eventID)
            return try hits(query, eventIDs: Array(page), markers: markers)
        }
    }

    /// The hits with these ids, in this order, with their snippets.
    ///
    /// Plain words: one lookup each (the index seeks the id). A prefix makes FTS5 merge the lists
    /// of every word it starts for each lookup, so then the page is read in one query.
    private func hits(_ query: String, eventIDs: [Int64], markers: SnippetMarkers) throws -> [SearchHit] {
        guard let low = eventIDs.min(), let high = eventIDs.max() else { return [] }
        let columns = """
            SELECT e.event_id, s.session_id, e.ordinal, e.kind, e.ts, snippet(events_fts, 0, ?2, ?3, ?4, 12)
            FROM events_fts JOIN events e ON e.event_id = events_fts.rowid JOIN sessions s ON s.session_no = e.session_no
            WHERE events_fts MATCH ?1
            """
        let map = { (row: Row) in
            SearchHit(eventID: row.int64(0), sessionID: row.string(1), ordinal: row.int64(2), kind: row.string(3),
                      timestamp: row.optionalInt64(4), snippet: row.string(5))
        }
        guard Self.hasPrefix(query) else {
            return try eventIDs.compactMap { id in
                try database.queryFirst(columns + " AND events_fts.rowid = ?5", [query, markers.start, markers.end, markers.ellipsis, id], map)
            }
        }
        let list = Array(repeating: "?", count: eventIDs.count).joined(separator: ", ")
        let found = try database.query(
            columns + " AND events_fts.rowid BETWEEN ?5 AND ?6 AND +events_fts.rowid IN (\(list))",
            [query, markers.start, markers.end, markers.ellipsis, low, high] + eventIDs, map
        )
        let byID = Dictionary(found.map { ($0.eventID, $0) }, uniquingKeysWith: { first, _ in first })
        return eventIDs.compactMap { byID[$0] }
    }

    /// True when an FTS5 query from `ftsQuery(for:)` holds a prefix (`"pars"*`).
    static func hasPrefix(_ query: String) -> Bool {
        query.contains("\"*")
    }

    /// The newest `window` matches in one session, with their relevance: every match is read once
    /// (newest first) and kept when its id is one of the session's, a set SQLite builds from the
    /// session's index, without reading the rows of other sessions' matches.
    ///
    /// One query, not one per range of the session's ids: bm25 counts each word's matches over
    /// the whole index once per query, and FTS5 merges a prefix's words anew for each.
    private func sessionMatches(_ query: String, sessionNo: Int64, filter: SearchFilter, window: Int) throws -> [RankedMatch] {
        try database.query(
            """
            SELECT events_fts.rowid, bm25(events_fts), e.ts
            FROM events_fts JOIN events e ON e.event_id = events_fts.rowid
            WHERE events_fts MATCH ?1 AND +events_fts.rowid IN (SELECT event_id FROM events WHERE session_no = ?2)
              AND (?3 IS NULL OR e.kind = ?3) AND (?4 IS NULL OR e.ts >= ?4) AND (?5 IS NULL OR e.ts <= ?5)
            ORDER BY events_fts.rowid DESC LIMIT ?6
            """,
            [query, sessionNo, filter.kind, filter.since, filter.until, window]
        ) { RankedMatch(eventID: $0.int64(0), score: $0.double(1), timestamp: $0.optionalInt64(2)) }
    }

    /// The newest `limit` matches that `filter`'s kind and times admit.
    private func matches(_ query: String, filter: SearchFilter, limit: Int) throws -> [RankedMatch] {
        try database.query(
            """
            SELECT events_fts.rowid, bm25(events_fts), e.ts
            FROM events_fts JOIN events e ON e.event_id = events_fts.rowid
            WHERE events_fts MATCH ?1 AND (?2 IS NULL OR e.kind = ?2) AND (?3 IS NULL OR e.ts >= ?3) AND (?4 IS NULL OR e.ts <= ?4)
            ORDER BY events_fts.rowid DESC LIMIT ?5
            """,
            [query, filter.kind, filter.since, filter.until, limit]
        ) { RankedMatch(eventID: $0.int64(0), score: $0.double(1), timestamp: $0.optionalInt64(2)) }
    }

    /// An FTS5 query matching every word of `text`, each quoted; nil when there are no words.
    /// Control characters (NUL included) separate words, as whitespace does.
    static func ftsQuery(for text: String) -> String? {
        let isSeparator = { (character: Character) in
            character.isWhitespace || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        let terms = text.split(whereSeparator: isSeparator).map { word -> String in
            let isPrefix = word.count > 1 && word.hasSuffix("*")
            let body = isPrefix ? word.dropLast() : word[...]
            let quoted = "\"" + body.replacing("\"", with: "\"\"") + "\""
            return isPrefix ? quoted + "*" : quoted
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }
}

/// A matching event and its relevance, in the order search results take: the most relevant
/// first (bm25 scores are lower for better matches), then the newest.
struct RankedMatch: Comparable {
    var eventID: Int64
    var score: Double
    var timestamp: Int64?

    static func < (lhs: RankedMatch, rhs: RankedMatch) -> Bool {
        if lhs.score != rhs.score { return lhs.score < rhs.score }
        if lhs.timestamp != rhs.timestamp { return (lhs.timestamp ?? .min) > (rhs.timestamp ?? .min) }
        return lhs.eventID > rhs.eventID
    }
}

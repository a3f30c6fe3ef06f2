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
    /// its cost stays bounded however many events match. Also how many of a word's newest
    /// matches estimate how many events hold it.
    public static let searchRankWindow = 500

    /// Searches the text of the mirrored events that `filter` admits: the most relevant first
    /// (bm25, as FTS5 computes it, with the number of events holding each word estimated by
    /// `documentCount(of:)`), the newest first among equally relevant ones (by event time, then
    /// most recently mirrored). Relevance ranks the newest `searchRankWindow` matches (or
    /// `offset + limit`, if more).
    ///
    /// `text` is read by `SearchExpression` (words, phrases, `OR`, `-word`, parentheses, prefixes,
    /// `in:` places), never as FTS5 syntax.
    ///
    /// The session and the kind are columns of the index, so FTS5 intersects them with the words;
    /// times narrow the ids searched (`SearchQuery`) and are tested on the rows in that range.
    public func search(
        _ text: String,
        filter: SearchFilter = .none,
        limit: Int = 20,
        offset: Int = 0,
        markers: SnippetMarkers = .brackets
    ) throws -> [SearchHit] {
        try search(SearchExpression(text), filter: filter, limit: limit, offset: offset, markers: markers)
    }

    /// Searches as `search(_:filter:limit:offset:markers:)` does, for a query already read; its
    /// `fields` are the caller's to turn into `filter` (they name sessions by prefix, and dates).
    public func search(
        _ expression: SearchExpression,
        filter: SearchFilter = .none,
        limit: Int = 20,
        offset: Int = 0,
        markers: SnippetMarkers = .brackets
    ) throws -> [SearchHit] {
        guard limit > 0 else { return [] }
        return try read {
            guard let query = try searchQuery(expression, filter: filter) else { return [] }
            let window = max(Self.searchRankWindow, offset + limit)
            // One phrase's count scales every score alike: it does not change the order. An
            // excluded phrase never scores.
            let phrases = query.compiled.phrases
            let counts = phrases.count == 1 ? [1.0] : try phrases.map { $0.excluded ? 1 : try documentCount(of: $0.fts) }
            let candidates = try matches(query, counts: counts, limit: window)
            let page = candidates.sorted().dropFirst(offset).prefix(limit).map(\.eventID)
            return try hits(query, eventIDs: Array(page), markers: markers)
        }
    }

    /// The hits with these ids, in this order, with their snippets.
    ///
    /// One query reads the matches between the lowest and the highest of these ids (they are among
    /// the newest `searchRankWindow` matches, so few others lie between) and makes the snippets of
    /// these alone: in a mirror whose index has many segments, one lookup per id took several
    /// times longer. A prefix would make FTS5 merge the lists of every word it starts, so it is
    /// first replaced by the words it starts in these events' texts; if that misses one (it
    /// should not), the prefix itself is used.
    private func hits(_ query: SearchQuery, eventIDs: [Int64], markers: SnippetMarkers) throws -> [SearchHit] {
        guard let low = eventIDs.min(), let high = eventIDs.max() else { return [] }
        let list = Self.placeholders(eventIDs.count)
        let read = { (match: String) throws -> [SearchHit] in
            let found = try self.database.query(
                """
                SELECT e.event_id, s.session_id, e.ordinal, e.kind, e.ts, snippet(events_fts, 0, ?2, ?3, ?4, 12)
                FROM events_fts JOIN events e ON e.event_id = events_fts.rowid JOIN sessions s ON s.session_no = e.session_no
                WHERE events_fts MATCH ?1 AND events_fts.rowid BETWEEN ?5 AND ?6 AND +events_fts.rowid IN (\(list))
                """,
                [match, markers.start, markers.end, markers.ellipsis, low, high] + eventIDs
            ) { row in
                SearchHit(eventID: row.int64(0), sessionID: row.string(1), ordinal: row.int64(2), kind: row.string(3),
                          timestamp: row.optionalInt64(4), snippet: row.string(5))
            }
            let byID = Dictionary(found.map { ($0.eventID, $0) }, uniquingKeysWith: { first, _ in first })
            return eventIDs.compactMap { byID[$0] }
        }
        guard query.hasPrefix else { return try read(query.match) }
        if let words = try expandedWords(query, eventIDs: eventIDs) {
            let found = try read(words + query.filterPhrases)
            if found.count == eventIDs.count { return found }
        }
        return try read(query.match)
    }

    /// `query`'s words with each prefix replaced by the words it starts in the texts of these
    /// events, tokenized as the index tokenizes them (`SearchQuery.wordsExpanded`).
    private func expandedWords(_ query: SearchQuery, eventIDs: [Int64]) throws -> String? {
        let bodies = Array(Set(query.compiled.phrases.filter(\.term.isPrefix).map(\.term.text)))
        let list = Self.placeholders(eventIDs.count)
        let texts = try database.query("SELECT text FROM events WHERE event_id IN (\(list))", eventIDs) { $0.string(0) }
        let tokens = try SearchTokenizer.tokens(of: bodies + texts, database: database)
        var prefixTokens: [String: String] = [:]
        for (body, bodyTokens) in zip(bodies, tokens) {
            guard bodyTokens.count == 1 else { return nil }
            prefixTokens[body] = bodyTokens[0]
        }
        return query.wordsExpanded(in: Set(tokens.dropFirst(bodies.count).joined()), prefixTokens: prefixTokens)
    }

    /// `?, ?, …`: `count` parameters for an `IN (…)` list.
    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The newest `limit` matches of `query`, with their relevance.
    private func matches(_ query: SearchQuery, counts: [Double], limit: Int) throws -> [RankedMatch] {
        try database.query(
            """
            SELECT events_fts.rowid, \(Self.rank(counts, from: 7)), e.ts
            FROM events_fts JOIN events e ON e.event_id = events_fts.rowid
            WHERE events_fts MATCH ?1 AND events_fts.rowid >= ?2 AND events_fts.rowid <= ?3
              AND (?4 IS NULL OR e.ts >= ?4) AND (?5 IS NULL OR e.ts <= ?5)
            ORDER BY events_fts.rowid DESC LIMIT ?6
            """,
            [query.match, query.eventIDs.lowerBound, query.eventIDs.upperBound, query.since, query.until, limit] + counts
        ) { RankedMatch(eventID: $0.int64(0), score: $0.double(1), timestamp: $0.optionalInt64(2)) }
    }

    /// `oa_bm25` of the match, with the counts of its words' events bound from parameter `first` on.
    private static func rank(_ counts: [Double], from first: Int) -> String {
        "\(SearchRank.functionName)(events_fts, " + counts.indices.map { "?\(first + $0)" }.joined(separator: ", ") + ")"
    }

    /// How many events hold `term` (one term of an FTS5 query): counted when fewer than
    /// `searchRankWindow` do, else estimated from how closely its newest `searchRankWindow` matches
    /// lie among the mirror's event ids, without reading its older matches (FTS5's `bm25()` reads
    /// them all, every query).
    func documentCount(of term: String) throws -> Double {
        let sample = Self.searchRankWindow
        let newest = try database.queryFirst(
            "SELECT count(*), min(rowid), max(rowid) FROM (SELECT rowid FROM events_fts WHERE events_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)",
            ["{text} : " + term, sample]
        ) { (count: $0.int64(0), oldest: $0.optionalInt64(1), newest: $0.optionalInt64(2)) }
        guard let newest, newest.count >= sample, let oldest = newest.oldest, let latest = newest.newest else {
            return Double(newest?.count ?? 0)
        }
        // Two subqueries: min() and max() in one would read the whole table.
        let ids = try database.scalarInt64("SELECT (SELECT max(event_id) FROM events) - (SELECT min(event_id) FROM events) + 1") ?? 1
        return Double(sample) * Double(ids) / Double(max(1, latest - oldest + 1))
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

/// An entry whose text matches a search: a message (its chunks joined) or an event with text.
public struct SearchHit: Sendable, Equatable {
    /// The entry's id: the event id of its first event.
    public var eventID: Int64
    public var sessionID: String
    /// The ordinal of the entry's first event.
    public var ordinal: Int64
    /// The ordinal of the entry's last event (a message's last chunk).
    public var lastOrdinal: Int64
    public var kind: String
    public var timestamp: Int64?
    /// An excerpt of at most 240 characters of whole words around the match, every matched term
    /// between the highlight markers.
    public var snippet: String
    /// How many of the matches ranked restate this entry's text (itself included): a plan sent
    /// again at each update, a list re-sent by each tool call. The newest of them is the hit.
    public var occurrences: Int
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
            let page = RankedMatch.grouped(candidates.sorted()).dropFirst(offset).prefix(limit)
            return try hits(query, page: Array(page), markers: markers)
        }
    }

    /// How many entries of tool output (`in:output`) match `expression` within `filter`, counted
    /// up to `limit`: what a search that leaves tool output out (as it does unless asked) would
    /// find there.
    public func countInToolOutput(_ expression: SearchExpression, filter: SearchFilter = .none, upTo limit: Int = 1000) throws -> Int {
        var expression = expression
        expression.places = [.output]
        var filter = filter
        filter.kind = nil
        return try read {
            guard let query = try searchQuery(expression, filter: filter) else { return 0 }
            return try database.scalarInt64(
                """
                SELECT count(*) FROM (
                    SELECT 1 FROM \(Self.matchedEntries)
                    WHERE entries_fts MATCH ?1 AND entries_fts.rowid >= ?2 AND entries_fts.rowid <= ?3 AND \(Self.entryJoined)
                      AND (?4 IS NULL OR \(Self.matchedEntryTime) >= ?4) AND (?5 IS NULL OR \(Self.matchedEntryTime) <= ?5) LIMIT ?6)
                """,
                [query.match, query.eventIDs.lowerBound, query.eventIDs.upperBound, query.since, query.until, limit]
            ).map(Int.init) ?? 0
        }
    }

    /// The hits of these matches, in this order, with their snippets made from their entries' texts.
    private func hits(_ query: SearchQuery, page: [(match: RankedMatch, occurrences: Int)], markers: SnippetMarkers) throws -> [SearchHit] {
        guard !page.isEmpty else { return [] }
        let terms = try SearchSnippet.Terms(query.compiled.phrases.filter { !$0.excluded }.map(\.term), database: database)
        return try page.compactMap { match, occurrences in
            guard let message = try storedEntry(match.eventID),
                  let sessionID = try database.queryFirst("SELECT session_id FROM sessions WHERE session_no = ?1", [message.sessionNo], { $0.string(0) })
            else { return nil }
            let text = try entryText(of: message, derivedThrough: searchIndexedUpTo())
            let spans = try SearchTokenizer.spans(of: [text], database: database)[0]
            return SearchHit(eventID: message.entryID, sessionID: sessionID, ordinal: message.firstOrdinal,
                             lastOrdinal: message.lastOrdinal, kind: message.kind, timestamp: message.timestamp,
                             snippet: SearchSnippet.make(text: text, spans: spans, terms: terms, markers: markers), occurrences: occurrences)
        }
    }

    /// The newest `limit` matches of `query`, with their relevance.
    private func matches(_ query: SearchQuery, counts: [Double], limit: Int) throws -> [RankedMatch] {
        try database.query(
            """
            SELECT entries_fts.rowid, \(Self.rank(counts, from: 8)), \(Self.matchedEntryTime), coalesce(n.text_hash, s.text_hash)
            FROM \(Self.matchedEntries)
            WHERE entries_fts MATCH ?1 AND entries_fts.rowid >= ?2 AND entries_fts.rowid <= ?3 AND \(Self.entryJoined)
              AND (?4 IS NULL OR \(Self.matchedEntryTime) >= ?4) AND (?5 IS NULL OR \(Self.matchedEntryTime) <= ?5)
            ORDER BY entries_fts.rowid DESC LIMIT ?6
            """,
            [query.match, query.eventIDs.lowerBound, query.eventIDs.upperBound, query.since, query.until, limit, try indexedTextBytes()] + counts
        ) { RankedMatch(eventID: $0.int64(0), score: $0.double(1), timestamp: $0.optionalInt64(2), textHash: $0.optionalInt64(3)) }
    }

    /// The index's rows with their entries: a message's row of `entries` (`n`) or a single event's
    /// row of `single_entries` (`s`), whichever it is.
    private static let matchedEntries = """
        entries_fts LEFT JOIN entries n ON n.entry_id = entries_fts.rowid LEFT JOIN single_entries s ON s.event_id = entries_fts.rowid
        """
    /// The time of a matched entry.
    private static let matchedEntryTime = "coalesce(n.ts, s.ts)"

    /// `oa_bm25` of the match, its entry's length against the bytes of the index's texts (bound
    /// at parameter `first - 1`), with the counts of its words' entries bound from parameter `first` on.
    private static func rank(_ counts: [Double], from first: Int) -> String {
        "\(SearchRank.functionName)(entries_fts, coalesce(n.length, s.length), ?\(first - 1)"
            + counts.indices.map { ", ?\(first + $0)" }.joined() + ")"
    }

    /// The bytes of the texts the full-text index holds.
    func indexedTextBytes() throws -> Int64 {
        try database.scalarInt64("SELECT value FROM counters WHERE name = '\(EntryIndexRows.indexedTextBytes)'") ?? 0
    }

    /// How many events hold `term` (one term of an FTS5 query): counted when fewer than
    /// `searchRankWindow` do, else estimated from how closely its newest `searchRankWindow` matches
    /// lie among the mirror's event ids, without reading its older matches (FTS5's `bm25()` reads
    /// them all, every query).
    func documentCount(of term: String) throws -> Double {
        let sample = Self.searchRankWindow
        let newest = try database.queryFirst(
            "SELECT count(*), min(rowid), max(rowid) FROM (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2)",
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

/// A matching entry and its relevance, in the order search results take: the most relevant
/// first (bm25 scores are lower for better matches), then the newest.
struct RankedMatch: Comparable {
    var eventID: Int64
    var score: Double
    var timestamp: Int64?
    /// Shared by the entries that restate one text.
    var textHash: Int64?

    /// `sorted` with the matches that restate one text as one, the first of them, with how many
    /// they are.
    static func grouped(_ sorted: [RankedMatch]) -> [(match: RankedMatch, occurrences: Int)] {
        var groups: [(match: RankedMatch, occurrences: Int)] = []
        var groupOf: [Int64: Int] = [:]
        for match in sorted {
            if let hash = match.textHash, let group = groupOf[hash] {
                groups[group].occurrences += 1
            } else {
                if let hash = match.textHash { groupOf[hash] = groups.count }
                groups.append((match, 1))
            }
        }
        return groups
    }

    static func < (lhs: RankedMatch, rhs: RankedMatch) -> Bool {
        if lhs.score != rhs.score { return lhs.score < rhs.score }
        if lhs.timestamp != rhs.timestamp { return (lhs.timestamp ?? .min) > (rhs.timestamp ?? .min) }
        return lhs.eventID > rhs.eventID
    }
}

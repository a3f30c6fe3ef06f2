/// One search as the full-text index answers it: the words, the session and the kind in one FTS5
/// expression (FTS5 intersects their lists itself), and a time filter as the range of event ids
/// that can hold such times (`search_spans`), with the times themselves tested on the rows of
/// that range.
struct SearchQuery {
    /// The words as FTS5 terms (`ftsTerms(for:)`): `"retry"`, `"pars"*`.
    var terms: [String]
    /// The session's and the kind's tokens, when the filter names them: ` AND {session} : "s12"`.
    var filterPhrases: String
    /// The range of event ids the filter's times allow.
    var eventIDs: ClosedRange<Int64>
    var since: Int64?
    var until: Int64?

    /// The words, searched in the text column only: `{text} : ("retry" AND "pars"*)`. Their phrases
    /// come first in `match`.
    var words: String { Self.words(terms) }

    /// The words and the filter's tokens.
    var match: String { words + filterPhrases }

    /// True when a word is a prefix (`"pars"*`), which FTS5 answers by merging the lists of every
    /// word it starts.
    var hasPrefix: Bool { terms.contains(where: Self.isPrefix) }

    static func words(_ terms: [String]) -> String {
        "{text} : (" + terms.joined(separator: " AND ") + ")"
    }

    static func isPrefix(_ term: String) -> Bool {
        term.hasSuffix("\"*")
    }

    /// The words, each prefix replaced by the tokens (as the index holds them) that start with it
    /// in `tokens`: in texts made of those tokens, the same events match and the same words are
    /// highlighted, without FTS5 merging the list of every word in the index that a prefix starts.
    /// nil when a prefix is not one token, or starts none of them.
    func wordsExpanded(in tokens: Set<String>, prefixTokens: [String: String]) -> String? {
        var expanded: [String] = []
        for term in terms {
            guard Self.isPrefix(term) else {
                expanded.append(term)
                continue
            }
            guard let prefix = prefixTokens[term] else { return nil }
            let starting = tokens.filter { $0.utf8.starts(with: prefix.utf8) }.sorted()
            guard !starting.isEmpty else { return nil }
            expanded.append("(" + starting.map { "\"" + $0.replacing("\"", with: "\"\"") + "\"" }.joined(separator: " OR ") + ")")
        }
        return Self.words(expanded)
    }
}

extension MirrorStore {
    /// The query for `terms` (of `ftsTerms(for:)`) narrowed by `filter`, or nil when no event can
    /// pass the filter (an unknown session, times outside every indexed event's).
    func searchQuery(terms: [String], filter: SearchFilter) throws -> SearchQuery? {
        var filterPhrases = ""
        if let sessionID = filter.sessionID {
            guard let sessionNo = try database.scalarInt64("SELECT session_no FROM sessions WHERE session_id = ?", [sessionID]) else {
                return nil
            }
            filterPhrases += " AND {session} : \"s\(sessionNo)\""
        }
        if let desktop = filter.desktop {
            let sessionNos = try database.query(
                "SELECT s.session_no FROM sessions s JOIN histories h USING (history_no) WHERE h.desktop = ? ORDER BY s.session_no",
                [desktop]
            ) { $0.int64(0) }
            guard !sessionNos.isEmpty else { return nil }
            filterPhrases += " AND {session} : (" + sessionNos.map { "\"s\($0)\"" }.joined(separator: " OR ") + ")"
        }
        if let kind = filter.kind {
            filterPhrases += " AND {kind} : \"" + Self.kindToken(kind) + "\""
        }
        var lowest = Int64.min
        var highest = Int64.max
        if let since = filter.since {
            guard let first = try database.scalarInt64("SELECT min(first_event_id) FROM search_spans WHERE newest_ts >= ?", [since]) else {
                return nil
            }
            lowest = first
        }
        if let until = filter.until {
            guard let last = try database.scalarInt64("SELECT max(last_event_id) FROM search_spans WHERE oldest_ts <= ?", [until]) else {
                return nil
            }
            highest = last
        }
        guard lowest <= highest else { return nil }
        return SearchQuery(terms: terms, filterPhrases: filterPhrases, eventIDs: lowest...highest, since: filter.since, until: filter.until)
    }

    /// The token that stands for `kind` in the index's kind column: `k` and the hex of its UTF-8,
    /// as `events_search` makes it (`'k' || hex(kind)`).
    static func kindToken(_ kind: String) -> String {
        let digits = Array("0123456789ABCDEF")
        return "k" + String(kind.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}

/// One search as the full-text index answers it: the expression, the session and the kind in one
/// FTS5 expression (FTS5 intersects their lists itself), and a time filter as the range of event
/// ids that can hold such times (`search_spans`), with the times themselves tested on the rows of
/// that range.
struct SearchQuery {
    /// The expression, compiled for the text column.
    var compiled: CompiledSearch
    /// The session's, the kind's and the places' tokens, when the filter names them:
    /// ` AND {session} : "s12"`.
    var filterPhrases: String
    /// The range of event ids the filter's times allow.
    var eventIDs: ClosedRange<Int64>
    var since: Int64?
    var until: Int64?
    /// ` NOT {kind} : "k…"`, leaving tool output out, unless the search asked for it.
    var exclusion: String

    /// The expression, searched in the text column only: `{text} : ("retry" AND "pars"*)`. Its
    /// phrases come first in `match`.
    var words: String { compiled.words }

    /// The words and the filter's tokens, less what `exclusion` leaves out.
    var match: String { exclusion.isEmpty ? words + filterPhrases : "(" + words + filterPhrases + ")" + exclusion }
}

/// A search expression as FTS5 query text over the index's text column, and its phrases in the
/// order FTS5 numbers them (the ranking's counts follow that order).
struct CompiledSearch {
    /// One phrase of the query text.
    struct Phrase {
        /// As FTS5 reads it: `"retry"`, `"pars"*`, `"backoff with jitter"`.
        var fts: String
        var term: SearchTerm
        /// Under a `NOT`: it never scores.
        var excluded: Bool
    }

    /// `{text} : (…)`.
    private(set) var words = ""
    private(set) var phrases: [Phrase] = []

    /// Compiles `node`; nil when nothing is left to find: terms without a letter or digit (FTS5
    /// would find no token in them), words only excluded (`-a` alone: FTS5's `NOT` needs something
    /// beside it).
    init?(_ node: SearchExpression.Node?) {
        guard let node, let text = compile(node, excluded: false) else { return nil }
        words = "{text} : (" + text + ")"
    }

    private mutating func compile(_ node: SearchExpression.Node, excluded: Bool) -> String? {
        // Invariant: a part compiled to nil added no phrase (FTS5 numbers only those written).
        switch node {
        case .term(let term):
            guard let fts = Self.ftsString(term) else { return nil }
            phrases.append(Phrase(fts: fts, term: term, excluded: excluded))
            return fts
        case .all(let parts):
            let required = parts.filter { if case .not = $0 { false } else { true } }.compactMap { compile($0, excluded: excluded) }
            guard !required.isEmpty else { return nil }
            let excludedParts = parts.compactMap { part -> SearchExpression.Node? in if case .not(let inner) = part { inner } else { nil } }
                .compactMap { compile($0, excluded: !excluded) }
            let positive = Self.joined(required, by: "AND")
            return excludedParts.isEmpty ? positive : "(\(positive) NOT \(Self.joined(excludedParts, by: "OR")))"
        case .any(let parts):
            let alternatives = parts.compactMap { compile($0, excluded: excluded) }
            return alternatives.isEmpty ? nil : Self.joined(alternatives, by: "OR")
        case .not:
            // Alone, or beside alternatives only: nothing to exclude it from.
            return nil
        }
    }

    private static func joined(_ parts: [String], by operator: String) -> String {
        parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " \(`operator`) ") + ")"
    }

    /// A term as an FTS5 string (`"pars"*` for a prefix), nil when it holds no letter or digit.
    private static func ftsString(_ term: SearchTerm) -> String? {
        guard term.text.unicodeScalars.contains(where: isTokenScalar) else { return nil }
        return quoted(term.text) + (term.isPrefix ? "*" : "")
    }

    /// `text` as an FTS5 string: between double quotes, its own doubled (scalar by scalar: a quote
    /// with a combining mark is still a quote to FTS5), control characters as spaces (FTS5 reads
    /// its query as a C string).
    private static func quoted(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append("\"")
        for scalar in text.unicodeScalars {
            if scalar == "\"" { scalars.append(scalar) }
            scalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        scalars.append("\"")
        return String(scalars)
    }

    /// What the index's tokenizer (unicode61) keeps in tokens: letters, digits, private use.
    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }
}

extension MirrorStore {
    /// The query for `expression` narrowed by `filter` and the expression's places, or nil when
    /// nothing is to be found or no event can pass the filter (an unknown session, times outside
    /// every indexed event's).
    func searchQuery(_ expression: SearchExpression, filter: SearchFilter) throws -> SearchQuery? {
        guard let compiled = CompiledSearch(expression.node) else { return nil }
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
        if !expression.places.isEmpty {
            filterPhrases += " AND {kind} : (" + expression.places.map { "\"" + Self.kindToken($0.kind) + "\"" }.joined(separator: " OR ") + ")"
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
        let exclusion = filter.everywhere || filter.kind != nil || !expression.places.isEmpty
            ? "" : " NOT {kind} : \"" + Self.kindToken(SearchPlace.output.kind) + "\""
        return SearchQuery(compiled: compiled, filterPhrases: filterPhrases, eventIDs: lowest...highest,
                           since: filter.since, until: filter.until, exclusion: exclusion)
    }

    /// The token that stands for `kind` in the index's kind column: `k` and the hex of its UTF-8,
    /// as `EntryIndex` writes it.
    static func kindToken(_ kind: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = [UInt8(ascii: "k")]
        bytes.reserveCapacity(1 + 2 * kind.utf8.count)
        for byte in kind.utf8 {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

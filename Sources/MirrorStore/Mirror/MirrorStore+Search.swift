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
    /// Searches the text of every mirrored event, most recently mirrored first (which, for a
    /// history-cursor bridge, is newest first). Stopping at `limit` keeps it fast however many
    /// events match.
    ///
    /// `text` is plain words, not FTS5 syntax: every word must occur (in any order), a word ending
    /// in `*` matches as a prefix, and quotes or operators are taken literally.
    public func search(
        _ text: String,
        limit: Int = 20,
        offset: Int = 0,
        markers: SnippetMarkers = .brackets
    ) throws -> [SearchHit] {
        guard let query = Self.ftsQuery(for: text) else { return [] }
        return try database.query(
            """
            SELECT e.event_id, s.session_id, e.ordinal, e.kind, e.ts,
                   snippet(events_fts, 0, ?2, ?3, ?4, 12)
            FROM events_fts JOIN events e ON e.event_id = events_fts.rowid JOIN sessions s ON s.session_no = e.session_no
            WHERE events_fts MATCH ?1
            ORDER BY events_fts.rowid DESC LIMIT ?5 OFFSET ?6
            """,
            [query, markers.start, markers.end, markers.ellipsis, limit, offset]
        ) { row in
            SearchHit(
                eventID: row.int64(0),
                sessionID: row.string(1),
                ordinal: row.int64(2),
                kind: row.string(3),
                timestamp: row.optionalInt64(4),
                snippet: row.string(5)
            )
        }
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

/// A hit's excerpt: at most `maximumLength` characters (Unicode scalars, markers and ellipses
/// apart) of whole words, where most of the query's terms lie close together, with every match of
/// a term marked. Whitespace and control characters are shown as one space, so that an excerpt
/// is one line.
struct SearchSnippet {
    static let maximumLength = 240

    /// The query's terms, each as the tokens the index holds for it.
    struct Terms {
        /// Each term's tokens, and whether its last one is a prefix.
        var terms: [(tokens: [String], prefix: Bool)]

        init(_ searchTerms: [SearchTerm], database: Database) throws {
            let tokens = try SearchTokenizer.tokens(of: searchTerms.map(\.text), database: database)
            terms = zip(searchTerms, tokens).filter { !$0.1.isEmpty }.map { (tokens: $0.1, prefix: $0.0.isPrefix) }
        }
    }

    /// The excerpt of `text`, whose tokens are `spans`.
    static func make(text: String, spans: [SearchTokenizer.Span], terms: Terms, markers: SnippetMarkers) -> String {
        let bytes = Array(text.utf8)
        guard !spans.isEmpty else { return "" }
        // The number of scalars before each byte offset (continuation bytes start none).
        var scalarsBefore = [Int](repeating: 0, count: bytes.count + 1)
        for (offset, byte) in bytes.enumerated() {
            scalarsBefore[offset + 1] = scalarsBefore[offset] + (byte & 0xC0 == 0x80 ? 0 : 1)
        }
        let marked = markedTokens(spans, terms: terms)
        let window = self.window(spans, marked: marked, scalarsBefore: scalarsBefore)
        // Punctuation against the first and last words (`"`, `?`, `).`) goes with them, room allowing.
        var room = maximumLength - (scalarsBefore[spans[window.upperBound - 1].bytes.upperBound]
            - scalarsBefore[spans[window.lowerBound].bytes.lowerBound])
        var trailing = spans[window.upperBound - 1].bytes.upperBound
        let trailingLimit = window.upperBound < spans.count ? spans[window.upperBound].bytes.lowerBound : bytes.count
        while trailing < trailingLimit && room > 0, let next = scalar(in: bytes, at: trailing), !isSpace(next.scalar) {
            trailing = next.end
            room -= 1
        }
        var leading = spans[window.lowerBound].bytes.lowerBound
        let leadingLimit = window.lowerBound > 0 ? spans[window.lowerBound - 1].bytes.upperBound : 0
        while leading > leadingLimit && room > 0, let previous = scalar(in: bytes, before: leading), !isSpace(previous.scalar) {
            leading = previous.start
            room -= 1
        }
        var excerpt = window.lowerBound > 0 ? markers.ellipsis : ""
        excerpt += String(decoding: bytes[leading..<spans[window.lowerBound].bytes.lowerBound], as: UTF8.self)
        var endsCut = false
        for index in window {
            if index > window.lowerBound {
                excerpt += oneLine(bytes[spans[index - 1].bytes.upperBound..<spans[index].bytes.lowerBound])
            }
            var range = spans[index].bytes
            if scalarsBefore[range.upperBound] - scalarsBefore[range.lowerBound] > maximumLength {
                endsCut = true
                // One token longer than an excerpt (a hash, a blob): its start.
                var end = range.lowerBound
                while end < range.upperBound && scalarsBefore[end] - scalarsBefore[range.lowerBound] < maximumLength { end += 1 }
                while end < range.upperBound && bytes[end] & 0xC0 == 0x80 { end += 1 }
                range = range.lowerBound..<end
            }
            let token = String(decoding: bytes[range], as: UTF8.self)
            excerpt += marked[index] != nil ? markers.start + token + markers.end : token
        }
        excerpt += String(decoding: bytes[spans[window.upperBound - 1].bytes.upperBound..<trailing], as: UTF8.self)
        if endsCut || window.upperBound < spans.count {
            excerpt += markers.ellipsis
        }
        return excerpt
    }

    /// The scalar that starts at `offset`, and where it ends.
    private static func scalar(in bytes: [UInt8], at offset: Int) -> (scalar: Unicode.Scalar, end: Int)? {
        var end = offset + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self).unicodeScalars.first.map { ($0, end) }
    }

    /// The scalar that ends at `offset`, and where it starts.
    private static func scalar(in bytes: [UInt8], before offset: Int) -> (scalar: Unicode.Scalar, start: Int)? {
        var start = offset - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return String(decoding: bytes[start..<offset], as: UTF8.self).unicodeScalars.first.map { ($0, start) }
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }

    /// For each token, the term it is part of a match of, if any.
    static func markedTokens(_ spans: [SearchTokenizer.Span], terms: Terms) -> [Int?] {
        var marked = [Int?](repeating: nil, count: spans.count)
        for (termIndex, term) in terms.terms.enumerated() {
            guard term.tokens.count <= spans.count else { continue }
            for start in 0...(spans.count - term.tokens.count) {
                let matches = term.tokens.indices.allSatisfy { offset in
                    let token = spans[start + offset].token
                    return term.prefix && offset == term.tokens.count - 1
                        ? token.utf8.starts(with: term.tokens[offset].utf8) : token == term.tokens[offset]
                }
                guard matches else { continue }
                for offset in term.tokens.indices where marked[start + offset] == nil { marked[start + offset] = termIndex }
            }
        }
        return marked
    }

    /// The tokens shown: from a little before the match that begins the most distinct terms
    /// within `maximumLength`, as many as fit.
    private static func window(_ spans: [SearchTokenizer.Span], marked: [Int?], scalarsBefore: [Int]) -> Range<Int> {
        let start = { (index: Int) in scalarsBefore[spans[index].bytes.lowerBound] }
        let end = { (index: Int) in scalarsBefore[spans[index].bytes.upperBound] }
        let matched = marked.indices.filter { marked[$0] != nil }.prefix(256)
        var anchor = 0
        var lastMatch = 0
        var best = -1
        for (position, first) in matched.enumerated() {
            var terms = Set<Int>()
            var last = first
            for index in matched.dropFirst(position) {
                guard end(index) - start(first) <= maximumLength else { break }
                if let term = marked[index] { terms.insert(term) }
                last = index
            }
            if terms.count > best {
                (best, anchor, lastMatch) = (terms.count, first, last)
            }
        }
        // Some words before the first match, up to a third of the room the matches leave.
        let lead = max(0, maximumLength - (end(lastMatch) - start(anchor))) / 3
        var first = anchor
        while first > 0 && start(anchor) - start(first - 1) <= lead { first -= 1 }
        var last = first
        while last + 1 < spans.count && end(last + 1) - start(first) <= maximumLength { last += 1 }
        return first..<(last + 1)
    }

    /// What lies between two tokens, on one line: a run of whitespace or control characters as
    /// one space.
    private static func oneLine(_ bytes: ArraySlice<UInt8>) -> String {
        var result = ""
        var spaced = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if isSpace(scalar) {
                if !spaced { result += " " }
                spaced = true
            } else {
                result.unicodeScalars.append(scalar)
                spaced = false
            }
        }
        return result
    }
}

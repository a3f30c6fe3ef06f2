/// A search as people type it, read by one parser for every front end: words (all must occur),
/// `"a phrase"`, `OR`, `-word` or `NOT word`, parentheses, `prefix*`, `in:` fields naming where
/// to look, and `session:`, `desktop:`, `since:`, `until:` fields narrowing it. Every input is a query: what is not an operator is a word (an unbalanced quote, a
/// stray parenthesis, `status:500`, `{`, `NEAR(`), never a syntax error.
public struct SearchExpression: Sendable, Equatable {
    /// What to find, or nil when the text names nothing to find (empty, or only excluded words).
    public var node: Node?
    /// The `in:` fields, in order given (none: everywhere).
    public var places: [SearchPlace]
    /// The `session:`, `desktop:`, `since:` and `until:` fields, in order given: the caller that
    /// can resolve a session's prefix and read a date turns them into the search's filter.
    public var fields: [SearchField]

    /// One part of the expression.
    public indirect enum Node: Sendable, Equatable {
        case term(SearchTerm)
        /// Every part must match.
        case all([Node])
        /// Any part may match.
        case any([Node])
        /// Must not match: meaningful beside something that must (`a -b`); alone it is dropped.
        case not(Node)
    }

    /// Parentheses nested deeper than this are read as no grouping: a hostile query cannot
    /// exhaust the stack.
    static let maximumDepth = 32

    /// Reads `text`; never fails.
    public init(_ text: String) {
        var parser = SearchExpressionParser(tokens: SearchExpressionToken.tokens(of: text))
        node = parser.parseQuery()
        places = parser.places
        fields = parser.fields
    }
}

/// A word or a phrase to find.
public struct SearchTerm: Sendable, Equatable {
    /// The text as typed (a phrase's words with what separates them).
    public var text: String
    /// A word ending in `*` (its `*` removed from `text`): any word it starts.
    public var isPrefix: Bool

    public init(text: String, isPrefix: Bool = false) {
        self.text = text
        self.isPrefix = isPrefix
    }
}

/// A field that narrows a search to a session, a desktop or a time, as typed (`since:2024-11-07`).
public struct SearchField: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        case session
        case desktop
        case since
        case until
    }

    public var name: Name
    /// The text after the colon, never empty.
    public var value: String

    public init(name: Name, value: String) {
        self.name = name
        self.value = value
    }
}

/// Where an `in:` field looks: a kind of event.
public enum SearchPlace: String, Sendable, CaseIterable {
    case user
    case assistant
    case thinking
    /// A tool call: its name and input.
    case tool
    /// A tool's output.
    case output

    /// The events of this place, by the kind the mirror stores.
    public var kind: String {
        switch self {
        case .user: "user_message_chunk"
        case .assistant: "agent_message_chunk"
        case .thinking: "agent_thought_chunk"
        case .tool: "tool_call"
        case .output: "tool_call_update"
        }
    }
}

/// A piece of a query's text.
enum SearchExpressionToken: Equatable {
    case word(String)
    case phrase(String)
    case or
    case not
    case open
    case close
    case place(SearchPlace)
    case field(SearchField)

    /// The tokens of `text`, read scalar by scalar (a quote followed by a combining mark is still
    /// a quote). Whitespace and control characters separate words; `"` starts a phrase that the
    /// next `"` ends (without one, what follows is read as words); `(` and `)` stand alone; `-`
    /// starting a word (or before `"` or `(`) excludes it; `OR` and `NOT` in capitals are
    /// operators (`AND` is what words already mean); `in:PLACE` names a place, and `session:`,
    /// `desktop:`, `since:`, `until:` followed by a value are fields.
    static func tokens(of text: String) -> [SearchExpressionToken] {
        var tokens: [SearchExpressionToken] = []
        var scalars = text.unicodeScalars[...]
        var word = String.UnicodeScalarView()
        func endWord() {
            defer { word = String.UnicodeScalarView() }
            let text = String(word)
            switch text {
            case "": return
            case "OR": tokens.append(.or)
            case "NOT": tokens.append(.not)
            case "AND": return
            default:
                if text.hasPrefix("in:"), let place = SearchPlace(rawValue: String(text.dropFirst(3)).lowercased()) {
                    tokens.append(.place(place))
                } else if let colon = text.firstIndex(of: ":"), let name = SearchField.Name(rawValue: String(text[..<colon])),
                          text.index(after: colon) < text.endIndex {
                    tokens.append(.field(SearchField(name: name, value: String(text[text.index(after: colon)...]))))
                } else if text.unicodeScalars.count > 1, text.unicodeScalars.first == "-" {
                    tokens.append(.not)
                    tokens.append(.word(String(text.unicodeScalars.dropFirst())))
                } else {
                    tokens.append(.word(text))
                }
            }
        }
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\"", "(":
                // `-"a b"` and `-(a b)` exclude what follows.
                if String(word) == "-" { word = String.UnicodeScalarView("NOT".unicodeScalars) }
                endWord()
                if scalar == "(" {
                    tokens.append(.open)
                } else if let end = scalars.firstIndex(of: "\"") {
                    tokens.append(.phrase(String(String.UnicodeScalarView(scalars[..<end]))))
                    scalars = scalars[scalars.index(after: end)...]
                }
            case ")":
                endWord()
                tokens.append(.close)
            default:
                if isSeparator(scalar) { endWord() } else { word.append(scalar) }
            }
        }
        endWord()
        return tokens
    }

    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }
}

/// Recursive descent over the tokens, total: `OR` binds loosest, then words side by side (all
/// must match), then `NOT`/`-`; a `(` without its `)` closes at the end, a `)` without its `(` is
/// left out.
struct SearchExpressionParser {
    private var tokens: ArraySlice<SearchExpressionToken>
    private var depth = 0
    private(set) var places: [SearchPlace] = []
    private(set) var fields: [SearchField] = []

    init(tokens: [SearchExpressionToken]) {
        self.tokens = tokens[...]
    }

    mutating func parseQuery() -> SearchExpression.Node? {
        var parts: [SearchExpression.Node] = []
        while !tokens.isEmpty {
            if let node = parseAny() { parts.append(node) }
            // Only a stray `)` stops `parseAny` here.
            if tokens.first == .close { tokens = tokens.dropFirst() }
        }
        return Self.combine(parts, all: true)
    }

    private mutating func parseAny() -> SearchExpression.Node? {
        var alternatives: [SearchExpression.Node] = []
        if let first = parseAll() { alternatives.append(first) }
        while tokens.first == .or {
            tokens = tokens.dropFirst()
            if let next = parseAll() { alternatives.append(next) }
        }
        return Self.combine(alternatives, all: false)
    }

    private mutating func parseAll() -> SearchExpression.Node? {
        var parts: [SearchExpression.Node] = []
        while let token = tokens.first, token != .or, token != .close {
            if let node = parseUnary() { parts.append(node) }
        }
        return Self.combine(parts, all: true)
    }

    private mutating func parseUnary() -> SearchExpression.Node? {
        guard let token = tokens.popFirst() else { return nil }
        switch token {
        case .word(let text):
            let isPrefix = text.unicodeScalars.count > 1 && text.unicodeScalars.last == "*"
            return .term(SearchTerm(text: isPrefix ? String(text.unicodeScalars.dropLast()) : text, isPrefix: isPrefix))
        case .phrase(let text):
            return .term(SearchTerm(text: text))
        case .place(let place):
            if !places.contains(place) { places.append(place) }
            return nil
        case .field(let field):
            fields.append(field)
            return nil
        case .not:
            // Read in a loop, not by recursion: `NOT NOT … x` may be long. Two cancel out.
            var negated = true
            while tokens.first == .not {
                tokens = tokens.dropFirst()
                negated.toggle()
            }
            guard let token = tokens.first, token != .or, token != .close else { return nil }
            return parseUnary().map { negated ? .not($0) : $0 }
        case .open:
            depth += 1
            defer { depth -= 1 }
            guard depth <= SearchExpression.maximumDepth else { return nil }
            let inner = parseAny()
            if tokens.first == .close { tokens = tokens.dropFirst() }
            return inner
        case .or, .close:
            return nil
        }
    }

    private static func combine(_ parts: [SearchExpression.Node], all: Bool) -> SearchExpression.Node? {
        guard parts.count > 1 else { return parts.first }
        return all ? .all(parts) : .any(parts)
    }
}

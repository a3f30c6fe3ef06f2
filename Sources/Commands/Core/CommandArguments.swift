import Bridge

/// The arguments of one command, by their snake_case names, whichever front end read them.
public struct CommandArguments: Sendable {
    public var values: [String: JSONValue]

    public init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    func string(_ name: String) throws(CommandError) -> String? {
        guard let value = values[name], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .badArguments("\(name) must be a string") }
        return string
    }

    func requiredString(_ name: String) throws(CommandError) -> String {
        guard let value = try string(name), !value.isEmpty else { throw .badArguments("\(name) is required") }
        return value
    }

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(CommandError) -> Int {
        guard let value = values[name], !value.isNull else { return fallback }
        let number: Int64? = value.int64Value ?? value.stringValue.flatMap { Int64($0) }
        guard let number, range.contains(Int(clamping: number)) else {
            throw .badArguments("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    func bool(_ name: String) throws(CommandError) -> Bool {
        guard let value = values[name], !value.isNull else { return false }
        guard let bool = value.boolValue else { throw .badArguments("\(name) must be true or false") }
        return bool
    }
}

/// Splits a command line into words, shell-style: spaces separate, quotes (' or ") group, a
/// backslash escapes the next character.
/// One word of a text line: its text, shell-like quotes and backslashes undone, where it lies in
/// the line, and whether a quote it opened is still open at the line's end.
struct LineWord {
    var text: String
    var range: Range<String.Index>
    var unclosedQuote = false
}

/// Splits a text line into words, as a shell would (`'…'`, `"…"`, `\`); an unclosed quote is
/// noted on its word, for the command to refuse unless the word is part of a query.
enum CommandLineWords {
    static func split(_ line: String) -> [LineWord] {
        var words: [LineWord] = []
        var current = ""
        var start: String.Index?
        var quote: Character?
        var escaped = false
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
                start = start ?? index
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                start = start ?? index
            } else if character.isWhitespace {
                if let wordStart = start { words.append(LineWord(text: current, range: wordStart..<index)) }
                current = ""
                start = nil
            } else {
                current.append(character)
                start = start ?? index
            }
            index = line.index(after: index)
        }
        if let wordStart = start { words.append(LineWord(text: current, range: wordStart..<line.endIndex, unclosedQuote: quote != nil)) }
        return words
    }
}

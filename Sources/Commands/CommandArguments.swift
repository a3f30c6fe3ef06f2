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
enum CommandLineWords {
    static func split(_ line: String) throws(CommandError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                inWord = true
            } else if character == "\\" && quote != "'" {
                escaped = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw .badArguments("unclosed quote") }
        if inWord || escaped { words.append(current) }
        return words
    }
}

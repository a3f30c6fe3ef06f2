import Bridge

/// One argument of a command.
public struct CommandParameter: Sendable {
    public enum Kind: String, Sendable {
        case string
        case integer
        case boolean
        /// The rest of the command line (as text), or a string (as JSON).
        case text
        /// The rest of the command line as typed, quotes and all, or a string (as JSON): a search
        /// query, whose language reads quotes itself (an unbalanced one included).
        case query
        /// A string or a whole number (a word in the text form).
        case stringOrInteger
    }

    /// The snake_case name: the JSON-lines param, and the `--flag` of the text form.
    public let name: String
    public let kind: Kind
    /// Given by position in the text form (`show SESSION`) rather than as `--name VALUE`.
    public let positional: Bool
    public let required: Bool
    /// The boolean parameter that takes this one's place (`session_id` of `export`, replaced by
    /// `all`): when it is true, this one must be absent, whether or not it is `required`, and the
    /// text form's positional words skip it (`export --all DIR`: DIR is the next positional).
    public let replacedBy: String?
    public let summary: String
    /// The option's name in the text form, when it is not the param's (`--from` for `after`).
    let textFlag: String?
    /// What usage shows for the option's value (`--limit N`).
    let valueName: String

    public init(
        _ name: String, _ kind: Kind, positional: Bool = false, required: Bool = false, flag: String? = nil, value: String = "N",
        replacedBy: String? = nil, _ summary: String
    ) {
        self.name = name
        self.kind = kind
        self.positional = positional
        self.required = required
        self.textFlag = flag
        self.valueName = value
        self.replacedBy = replacedBy
        self.summary = summary
    }

    /// `--limit`, `--from`: how the text form names the option.
    public var flag: String {
        "--" + (textFlag ?? name.replacing("_", with: "-"))
    }
}

/// What a command produced, for every front end: JSON for scripts, a table or text for people.
public struct CommandResult: Sendable {
    /// The result as the JSON-lines mode answers it.
    public var json: JSONValue
    /// Rows, for list results.
    public var table: TextTable?
    /// Text, for other results (a conversation, a document, a message).
    public var text: String?
    /// The front end should stop after this.
    public var quits = false
    /// A feed for the front end to start (`follow`, `events.subscribe`) or end.
    public var feed: FeedAction?
    /// A line for a person after the table or text (a hint); not part of the JSON.
    public var note: String?

    public init(json: JSONValue, table: TextTable? = nil, text: String? = nil) {
        self.json = json
        self.table = table
        self.text = text
    }
}

/// A command, defined once for the REPL, scripts and the JSON-lines mode.
public struct CommandDefinition: Sendable {
    /// Its words in the text form: `["sessions"]`, `["outbox", "retry"]`.
    public let words: [String]
    /// Its JSON-lines method: `sessions.list`.
    public let method: String
    public let summary: String
    public let parameters: [CommandParameter]
    /// A sample line, for help.
    public let example: String
    /// The command's work: it runs where its caller does (`nonisolated(nonsending)`), that is on
    /// `CommandRunner`'s thread, which owns the context; never on the cooperative pool.
    let run: nonisolated(nonsending) @Sendable (CommandArguments, CommandContext) async throws -> CommandResult

    /// `outbox retry`.
    public var name: String { words.joined(separator: " ") }

    /// `show SESSION [--raw]`; a replaced parameter with the one replacing it: `export SESSION_ID|--all`.
    public var usage: String {
        func shown(_ parameter: CommandParameter) -> String {
            parameter.positional ? parameter.name.uppercased() : parameter.flag + (parameter.kind == .boolean ? "" : " " + parameter.valueName)
        }
        let replacing = Set(parameters.compactMap(\.replacedBy))
        let parts = parameters.filter { !replacing.contains($0.name) }.map { parameter -> String in
            var text = shown(parameter)
            if let replacement = parameters.first(where: { $0.name == parameter.replacedBy }) { text += "|" + shown(replacement) }
            return parameter.required ? text : "[\(text)]"
        }
        return ([name] + parts).joined(separator: " ")
    }

    /// Reads the text form's words after the command's own into arguments (`line`: the line
    /// they were split from).
    func arguments(fromWords words: [LineWord], of line: String) throws(CommandError) -> CommandArguments {
        var values = try values(fromWords: words, of: line, skipping: [])
        // A flag that replaces a positional parameter may come after the positional words: read
        // them again without it, now that the flags are known.
        let replaced = Set(parameters.filter { $0.replacedBy.map { values[$0]?.boolValue == true } ?? false }.map(\.name))
        if !replaced.isEmpty { values = try self.values(fromWords: words, of: line, skipping: replaced) }
        return try validated(CommandArguments(values), fromText: true)
    }

    /// The words' values by parameter name, positional words going to the positional parameters
    /// not in `skipping`, in order. A word with an unclosed quote is an error but in a query.
    private func values(fromWords lineWords: [LineWord], of line: String, skipping: Set<String>) throws(CommandError) -> [String: JSONValue] {
        let words = lineWords.map(\.text)
        var values: [String: JSONValue] = [:]
        var positionals = parameters.filter { $0.positional && !skipping.contains($0.name) }
        var index = 0
        while index < words.count {
            let word = words[index]
            if positionals.first?.kind == .query && !isOption(word) {
                // The rest of the line as typed, up to the first of this command's own options.
                let end = words[index...].firstIndex { isOption($0) } ?? words.count
                values[positionals.removeFirst().name] = .string(String(line[lineWords[index].range.lowerBound..<lineWords[end - 1].range.upperBound]))
                index = end
                continue
            }
            if lineWords[index].unclosedQuote { throw .badArguments("unclosed quote") }
            if word.hasPrefix("--"), word.count > 2 {
                let body = word.dropFirst(2)
                let (flag, inlineValue) = body.split(separator: "=", maxSplits: 1).map(String.init).splitPair
                guard let parameter = parameters.first(where: { $0.flag == "--" + flag && !$0.positional }) else {
                    throw .badArguments("\(self.name) has no option --\(flag)")
                }
                let name = parameter.name
                if parameter.kind == .boolean {
                    values[name] = .bool(inlineValue.map { $0 != "false" } ?? true)
                } else {
                    guard let value = inlineValue ?? (index + 1 < words.count ? words[index + 1] : nil) else {
                        throw .badArguments("--\(flag) needs a value")
                    }
                    if inlineValue == nil && lineWords[index + 1].unclosedQuote { throw .badArguments("unclosed quote") }
                    if inlineValue == nil { index += 1 }
                    values[name] = .string(value)
                }
            } else if let parameter = positionals.first {
                if parameter.kind == .text {
                    // The rest of the line, up to the first of this command's own options
                    // (`search tests pass --limit 3`).
                    let end = words[index...].firstIndex { isOption($0) } ?? words.count
                    values[parameter.name] = .string(words[index..<end].joined(separator: " "))
                    positionals.removeFirst()
                    index = end
                    continue
                }
                positionals.removeFirst()
                values[parameter.name] = .string(word)
            } else {
                throw .badArguments("\(name) does not take \"\(word)\"; usage: \(usage)")
            }
            index += 1
        }
        return values
    }

    /// True when `word` is `--flag` or `--flag=value` for one of this command's options.
    private func isOption(_ word: String) -> Bool {
        guard word.hasPrefix("--") else { return false }
        let flag = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
        return parameters.contains { !$0.positional && $0.flag == flag }
    }

    /// Checks JSON-lines params: known names, right types, required ones present.
    func arguments(fromJSON params: JSONValue?) throws(CommandError) -> CommandArguments {
        guard let params, !params.isNull else { return try validated(CommandArguments(), fromText: false) }
        guard let members = params.objectValue else { throw .badArguments("params must be an object") }
        var values: [String: JSONValue] = [:]
        for member in members {
            guard parameters.contains(where: { $0.name == member.key }) else {
                throw .badArguments("\(method) has no param \(member.key); it takes: \(parameters.map(\.name).joined(separator: ", "))")
            }
            values[member.key] = member.value
        }
        return try validated(CommandArguments(values), fromText: false)
    }

    private func validated(_ arguments: CommandArguments, fromText: Bool) throws(CommandError) -> CommandArguments {
        var arguments = arguments
        for parameter in parameters {
            let replaced = parameter.replacedBy.map { arguments.values[$0]?.boolValue == true } ?? false
            guard let value = arguments.values[parameter.name], !value.isNull else {
                if parameter.required && !replaced { throw .badArguments("\(parameter.name) is required; usage: \(usage)") }
                continue
            }
            // Only JSON params get here: the text form's words skip a replaced parameter.
            if replaced, let replacement = parameter.replacedBy {
                throw .badArguments("\(parameter.name) must be absent when \(replacement) is true")
            }
            switch parameter.kind {
            case .string, .text, .query:
                guard value.stringValue != nil else { throw .badArguments("\(parameter.name) must be a string") }
            case .integer:
                let number = value.int64Value ?? (fromText ? value.stringValue.flatMap { Int64($0) } : nil)
                guard let number else { throw .badArguments("\(parameter.name) must be a whole number") }
                arguments.values[parameter.name] = .number(number)
            case .boolean:
                guard value.boolValue != nil else { throw .badArguments("\(parameter.name) must be true or false") }
            case .stringOrInteger:
                guard value.stringValue != nil || value.int64Value != nil else {
                    throw .badArguments("\(parameter.name) must be a string or a whole number")
                }
            }
        }
        return arguments
    }
}

extension Array where Element == String {
    /// `["a", "b"]` → `("a", "b")`; `["a"]` → `("a", nil)`.
    fileprivate var splitPair: (String, String?) {
        (first ?? "", count > 1 ? self[1] : nil)
    }
}

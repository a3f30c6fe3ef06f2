/// What Tab offers in the REPL for the line before the cursor, read from the command catalogue:
/// commands at the start of a line (word by word: `outbox retry`), a command's options and, where
/// it takes one, session ids or outbox ids, an enumerated option's values, the values of a dot
/// command, the commands after `help`.
public struct LineCompletion: Sendable, Equatable {
    /// What replaces the word being completed (the text after the line's last space): the one
    /// candidate, or the candidates' common beginning, and never less than the word as typed.
    public var replacement: String
    /// The candidates, as the list under the line shows them.
    public var candidates: [String]

    /// The completion of the last word of `line` (empty after a space).
    public init(line: String, known: CompletionIDs) {
        let word = String(line.reversed().prefix { !$0.isWhitespace }.reversed())
        let before = line.dropLast(word.count).split(whereSeparator: \.isWhitespace).map(String.init)
        let lowered = word.lowercased()
        candidates = Self.offers(after: before, typing: word, known: known).filter { $0.lowercased().hasPrefix(lowered) }
        replacement = Self.commonBeginning(of: candidates, typed: word)
    }

    /// Everything that may come after `words`, before filtering by what is typed (`word`).
    static func offers(after words: [String], typing word: String, known: CompletionIDs) -> [String] {
        guard let first = words.first else { return commandWords(after: []) + DotCommand.allCases.map(\.rawValue) }
        if let dot = DotCommand(rawValue: first) { return words.count == 1 ? dot.values : [] }
        if first == CommandCatalog.help.name { return commandWords(after: Array(words.dropFirst())) }
        let command = CommandCatalog.all
            .filter { $0.words.count <= words.count && Array(words.prefix($0.words.count)) == $0.words }
            .max { $0.words.count < $1.words.count }
        let arguments = Array(words.dropFirst(command?.words.count ?? words.count))
        let continuations = arguments.isEmpty ? commandWords(after: words) : []
        guard let command else { return continuations }
        return continuations + offers(for: command, after: arguments, typing: word, known: known)
    }

    /// The next words of the commands whose words begin with `words` (`outbox` → `retry`, `drop`).
    static func commandWords(after words: [String]) -> [String] {
        var seen = Set<String>()
        return CommandCatalog.all
            .filter { $0.words.count > words.count && Array($0.words.prefix(words.count)) == words }
            .map { $0.words[words.count] }
            .filter { seen.insert($0).inserted }
    }

    /// What may follow `arguments` of `command`: the value of the option just named (its values
    /// when they are enumerated in its usage, as `start|now|ID`), else the ids its next positional
    /// parameter takes and the options not given yet.
    static func offers(for command: CommandDefinition, after arguments: [String], typing word: String, known: CompletionIDs) -> [String] {
        var given = Set<String>()
        var positionalCount = 0
        var awaitingValue: CommandParameter?
        for argument in arguments {
            if awaitingValue != nil {
                awaitingValue = nil
                continue
            }
            let flag = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if argument.hasPrefix("--"), let parameter = command.parameters.first(where: { !$0.positional && $0.flag == flag }) {
                given.insert(parameter.name)
                if parameter.kind != .boolean && !argument.contains("=") { awaitingValue = parameter }
            } else {
                positionalCount += 1
            }
        }
        if let awaitingValue {
            return awaitingValue.valueName.split(separator: "|").map(String.init).filter { $0.allSatisfy(\.isLowercase) }
        }
        let options = command.parameters.filter { !$0.positional && !given.contains($0.name) }.map(\.flag)
        let positionals = command.parameters.filter { $0.positional && !($0.replacedBy.map(given.contains) ?? false) }
        // Words after the start of a text parameter belong to it.
        if positionals.prefix(positionalCount).contains(where: { $0.kind == .text || $0.kind == .query }) { return [] }
        guard positionalCount < positionals.count else { return options }
        return ids(for: positionals[positionalCount], of: command, typing: word, known: known) + options
    }

    /// The ids a positional parameter takes: sessions (and `new` for `prompt`), outbox items.
    static func ids(for parameter: CommandParameter, of command: CommandDefinition, typing word: String, known: CompletionIDs) -> [String] {
        if parameter.name == "session_id" {
            return known.sessionIDs(typing: word) + (command.method == OutboxCommands.prompt.method ? ["new"] : [])
        }
        if parameter.name == "id" && command.words.first == OutboxCommands.list.name { return known.outboxItems }
        return []
    }

    /// The longest beginning the candidates share, when it is at least as long as `typed`; else `typed`.
    static func commonBeginning(of candidates: [String], typed: String) -> String {
        guard var common = candidates.first?[...] else { return typed }
        for candidate in candidates.dropFirst() {
            common = common.prefix(zip(common, candidate).prefix { $0 == $1 }.count)
        }
        return common.count >= typed.count ? String(common) : typed
    }
}

/// The ids Tab completes, read from the mirror before each line.
public struct CompletionIDs: Sendable, Equatable {
    /// Every session's full id.
    public var sessions: [String]
    /// The outbox items' ids.
    public var outboxItems: [String]

    public init(sessions: [String] = [], outboxItems: [String] = []) {
        self.sessions = sessions
        self.outboxItems = outboxItems
    }

    /// Each session's id as tables show it (its first 8 characters), or in full when another
    /// session's id begins the same way or `word` is already longer.
    func sessionIDs(typing word: String) -> [String] {
        var counts: [String: Int] = [:]
        for id in sessions { counts[Formatting.short(id).lowercased(), default: 0] += 1 }
        return sessions.map { id in
            let short = Formatting.short(id)
            return counts[short.lowercased()] == 1 && short.count >= word.count ? short : id
        }
    }
}

import Bridge

/// Every command, and how a text line or a JSON-lines method finds one.
public enum CommandCatalog {
    /// The commands, in the order help lists them.
    public static let all: [CommandDefinition] = [
        BrowseCommands.threads, BrowseCommands.sessions, BrowseCommands.show, BrowseCommands.search,
        OutboxCommands.prompt, OutboxCommands.list, OutboxCommands.retry, OutboxCommands.drop,
        FeedCommands.follow, FeedCommands.unsubscribe, ExportCommand.export, SecretsCommand.secrets, BrowseCommands.status, SyncCommand.sync,
        help, methods, quit,
    ]

    static let help = CommandDefinition(
        words: ["help"], method: "help", summary: "List the commands, or explain one.",
        parameters: [CommandParameter("command", .text, positional: true, "a command's name")],
        example: "help show"
    ) { arguments, _ in
        if let name = try arguments.string("command"), !name.isEmpty {
            guard let command = all.first(where: { $0.name == name || $0.method == name }) else { throw CommandError.unknownCommand(name) }
            var lines = ["\(command.usage)", "  \(command.summary)", "  JSON-lines method: \(command.method)"]
            for parameter in command.parameters {
                lines.append("  \(parameter.positional ? parameter.name.uppercased() : parameter.flag): \(parameter.summary)")
            }
            lines.append("  example: \(command.example)")
            return CommandResult(json: describe(command), text: lines.joined(separator: "\n"))
        }
        let width = all.map { $0.usage.count }.max() ?? 0
        let lines = all.map { $0.usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.summary }
        return CommandResult(json: .array(all.map(describe)), text: lines.joined(separator: "\n")
            + "\n\nSessions may be named by any unique prefix of their id. Dot commands: "
            + DotCommand.allCases.map(\.usage).joined(separator: ", "))
    }

    static let methods = CommandDefinition(
        words: ["methods"], method: "methods", summary: "The JSON-lines methods and their params.",
        parameters: [], example: "methods"
    ) { _, _ in
        CommandResult(json: .array(all.map(describe)), text: all.map { "\($0.method)(\($0.parameters.map(\.name).joined(separator: ", ")))" }.joined(separator: "\n"))
    }

    static let quit = CommandDefinition(
        words: ["quit"], method: "quit", summary: "Leave the REPL.", parameters: [], example: "quit"
    ) { _, _ in
        var result = CommandResult(json: [:], text: nil)
        result.quits = true
        return result
    }

    /// The command a text line names, and how many of the words are its own.
    public static func command(forWords words: [String]) throws(CommandError) -> (CommandDefinition, Int) {
        guard let first = words.first else { throw .unknownCommand("(empty)") }
        let candidates = all.filter { $0.words.first == first }.sorted { $0.words.count > $1.words.count }
        for command in candidates where Array(words.prefix(command.words.count)) == command.words {
            return (command, command.words.count)
        }
        throw .unknownCommand(first)
    }

    /// The command behind a JSON-lines method.
    public static func command(forMethod method: String) throws(CommandError) -> CommandDefinition {
        guard let command = all.first(where: { $0.method == method }) else { throw .unknownCommand(method) }
        return command
    }

    /// A param's type as `methods` lists it.
    static func typeName(_ kind: CommandParameter.Kind) -> String {
        switch kind {
        case .string, .text, .query: "string"
        case .integer: "integer"
        case .boolean: "boolean"
        case .stringOrInteger: "string|integer"
        }
    }

    static func describe(_ command: CommandDefinition) -> JSONValue {
        .object([
            JSONMember("method", .string(command.method)), JSONMember("command", .string(command.name)),
            JSONMember("summary", .string(command.summary)),
            JSONMember("params", .array(command.parameters.map { parameter in
                var members = [JSONMember("name", .string(parameter.name)),
                               JSONMember("type", .string(typeName(parameter.kind))),
                               JSONMember("required", .bool(parameter.required))]
                // Required unless this param is true, and then absent.
                if let replacement = parameter.replacedBy { members.append(JSONMember("replaced_by", .string(replacement))) }
                return .object(members + [JSONMember("summary", .string(parameter.summary))])
            })),
        ])
    }
}

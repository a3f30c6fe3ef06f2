import MirrorStore

/// A search as typed, with the fields of its text (`session:`, `desktop:`, `since:`, `until:`)
/// resolved into the filter beside the options': what `search` and MCP's `search_sessions` run.
package struct SearchRequest {
    package var expression: SearchExpression
    package var filter: SearchFilter

    /// Reads `query` and narrows `options` by its fields: a session by its id or a unique prefix
    /// (the errors of `show`), a desktop by name, dates as `--since` and `--until` read them. A
    /// field and an option both naming a session (or a desktop) must name the same one; times
    /// both given keep the narrower range.
    package init(query: String, options: SearchFilter, context: CommandContext) throws(CommandError) {
        expression = SearchExpression(query)
        filter = options
        for field in expression.fields {
            switch field.name {
            case .session:
                let session = try context.resolveSession(field.value).sessionID
                filter.sessionID = try Self.same(filter.sessionID, session, "session")
            case .desktop:
                filter.desktop = try Self.same(filter.desktop, field.value, "desktop")
            case .since:
                let start = try TimeArgument.parse(field.value, named: "since:").start
                filter.since = max(filter.since ?? start, start)
            case .until:
                let end = try TimeArgument.parse(field.value, named: "until:").end
                filter.until = min(filter.until ?? end, end)
            }
        }
        if let since = filter.since, let until = filter.until, since > until { throw .badArguments("since is after until") }
    }

    private static func same(_ given: String?, _ field: String, _ name: String) throws(CommandError) -> String {
        guard let given, given != field else { return field }
        throw .badArguments("two \(name)s asked for: \(given) and \(field) (\(name): in the query, and the option)")
    }
}

extension TimeArgument {
    /// `text` read as a date or date-time, or the error that shows the forms, naming `name`.
    static func parse(_ text: String, named name: String) throws(CommandError) -> TimeArgument {
        guard let time = TimeArgument(text) else {
            throw .badArguments("\(name) must be an ISO-8601 date or date-time (2024-11-07, 2024-11-07T17:20:00Z, 2024-11-07T18:20+01:00), not \"\(text)\"")
        }
        return time
    }
}

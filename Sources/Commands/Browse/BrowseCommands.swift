import Bridge
import MirrorStore
import ReadModel
import Secrets

/// Commands that read the mirror: threads, sessions, show, search, status.
package enum BrowseCommands {
    static let threads = CommandDefinition(
        words: ["threads"], method: "threads.list", summary: "Mirrored vendor CLI threads, newest first.",
        parameters: [CommandParameter("limit", .integer, "at most this many (default 20)")],
        example: "threads --limit 5"
    ) { arguments, context in
        let limit = try arguments.integer("limit", default: 20, range: 1...10_000)
        let views = try context.views()
        let threads = try storeCall { try views.threadRows(limit: limit) }
        let table = TextTable(headers: ["THREAD", "SOURCE", "UPDATED", "MESSAGES", "TITLE"], rows: threads.map {
            [$0.threadID, $0.source ?? "-", $0.updatedAt?.iso8601 ?? "-", $0.messageCount.map(String.init) ?? "-", $0.title ?? ""]
        })
        return CommandResult(json: try storeCall { try JSONValueEncoder().encode(threads) }, table: table)
    }

    static let sessions = CommandDefinition(
        words: ["sessions"], method: "sessions.list",
        summary: "Mirrored sessions, most recent activity first: id, title or first prompt, mode, last activity, events, state.",
        parameters: [CommandParameter("limit", .integer, "at most this many (default 20)"),
                     CommandParameter("offset", .integer, "skip this many first"),
                     CommandParameter("desktop", .string, value: "NAME", "only the sessions of the desktop of this name (status lists them)")],
        example: "sessions --limit 5"
    ) { arguments, context in
        let limit = try arguments.integer("limit", default: 20, range: 1...10_000)
        let offset = try arguments.integer("offset", default: 0, range: 0...Int(Int32.max))
        let desktop = try arguments.string("desktop")
        let views = try context.views()
        let rows = try storeCall { try views.sessionRows(limit: limit, offset: offset, desktop: desktop) }
        let table = TextTable(headers: ["SESSION", "MODE", "LAST ACTIVITY", "EVENTS", "STATE", "TITLE"], rows: rows.map { row in
            [Formatting.short(row.sessionID), row.mode ?? "-", row.lastActivity?.iso8601 ?? "-", String(row.eventCount),
             context.palette.state(row.syncState.rawValue), row.title.map { SessionTitle.cut($0, to: SessionTitle.columnWidth) } ?? ""]
        })
        let json = try storeCall { try JSONValueEncoder().encode(rows) }
        return CommandResult(json: json, table: table)
    }

    static let show = CommandDefinition(
        words: ["show"], method: "sessions.show",
        summary: "A session's timeline as a conversation (chunks merged, tool calls with their results); --raw for the stored events; --at for the part around one event.",
        parameters: [CommandParameter("session_id", .string, positional: true, required: true, "the session: its id or any unique prefix"),
                     CommandParameter("raw", .boolean, "the stored events, one by one"),
                     CommandParameter("at", .integer, value: "ORDINAL", "only the part around the event with this ordinal (a search hit's #)"),
                     CommandParameter("context", .integer, "with --at: entries shown before and after the event's (default 3)")],
        example: "show 5f0c --at 12"
    ) { arguments, context in
        let session = try context.resolveSession(try arguments.requiredString("session_id"))
        let raw = try arguments.bool("raw")
        if arguments.values["at"].map({ !$0.isNull }) ?? false {
            return try showWindow(session: session, raw: raw, arguments: arguments, context: context)
        }
        guard arguments.values["context"].map(\.isNull) ?? true else { throw CommandError.badArguments("context goes with at") }
        let views = try context.views()
        if raw {
            let shown = try storeCall { try views.sessionEvents(session) }
            let json = try storeCall { try JSONValueEncoder().encode(ShowAnswer.Events(sessionID: session.sessionID, events: shown.events.map(EventRow.init))) }
            return CommandResult(json: json, table: rawTable(shown.events))
        }
        if let write = context.textOutput {
            try storeCall {
                var notes: String? = noteLines([failureNote(session), try views.archiveNote(of: session)], palette: context.palette)
                try views.readConversation(of: session) { entries in
                    write((notes ?? "") + ConversationText.render(entries, palette: context.palette))
                    notes = nil
                }
                if let notes { write(notes + ConversationText.render([], palette: context.palette)) }
            }
            return CommandResult(json: .null)
        }
        let document = try storeCall { try views.sessionDocument(session) }
        let notes = noteLines([failureNote(session), document.archiveNote], palette: context.palette)
        let text = ConversationText.render(document.entries, palette: context.palette)
        return CommandResult(json: try storeCall { try JSONValueEncoder().encode(ShowAnswer.Conversation(document: document)) }, text: notes + text)
    }

    /// The notes `show` opens with, each dimmed in brackets on a line of its own.
    private static func noteLines(_ notes: [String?], palette: Palette) -> String {
        notes.compactMap { $0.map { palette.apply(.dim, to: "(\($0))") + "\n" } }.joined()
    }

    /// What `show` says of a session whose timeline could not be mirrored (nil for others).
    static func failureNote(_ session: SessionSummary) -> String? {
        guard let error = session.syncError else { return nil }
        return "Its timeline could not be mirrored (\(Formatting.iso8601(session.syncErrorAt) ?? "-")): \(error); "
            + "retried after \(Formatting.iso8601(session.retryAfter) ?? "-"), what is shown may be incomplete."
    }

    /// `show SESSION --at N`: the conversation around one event, and what is left out.
    private static func showWindow(session: SessionSummary, raw: Bool, arguments: CommandArguments, context: CommandContext) throws -> CommandResult {
        let ordinal = try arguments.integer("at", default: 0, range: 0...Int(Int32.max))
        let size = try arguments.integer("context", default: ConversationWindow.defaultContext, range: 0...1000)
        let views = try context.views()
        guard let window = try storeCall({
            try views.conversationWindow(ofSession: session.sessionID, at: Int64(ordinal), context: size, raw: raw)
        }) else {
            throw CommandError.badArguments("session \(session.sessionID) has no event at ordinal \(ordinal) or after it (show \(session.sessionID) lists them)")
        }
        let notes = (before: earlierNote(window, sessionID: session.sessionID), after: laterNote(window, sessionID: session.sessionID))
        let answer = ShowAnswer.Window(sessionID: session.sessionID, at: ordinal, context: raw ? nil : size, window: window)
        let json = try storeCall { try JSONValueEncoder().encode(answer) }
        if raw { return CommandResult(json: json, table: rawTable(window.events)) }
        let body = ConversationText.render(window.entries, palette: context.palette)
        return CommandResult(json: json, text: ([notes.before, body, notes.after].compactMap { $0 }).joined(separator: "\n"))
    }

    /// What a window leaves out before it, as the text front ends say it (nil when nothing is).
    private static func earlierNote(_ window: ConversationWindow, sessionID: String) -> String? {
        window.earlier.map { "… \($0.count) earlier event\($0.count == 1 ? "" : "s") not shown: show \(sessionID) --at \($0.lastOrdinal) for those before, show \(sessionID) for all" }
    }

    private static func laterNote(_ window: ConversationWindow, sessionID: String) -> String? {
        window.later.map { "… \($0.count) later event\($0.count == 1 ? "" : "s") not shown: show \(sessionID) --at \($0.firstOrdinal) for those after" }
    }

    private static func rawTable(_ events: [TimelineEvent]) -> TextTable {
        TextTable(headers: ["#", "KIND", "ORIGIN", "TEXT"], rows: events.map {
            [String($0.ordinal), $0.kind, $0.origin.rawValue + ($0.provisional ? " (provisional)" : ""), $0.text]
        })
    }

    static let search = CommandDefinition(
        words: ["search"], method: "search",
        summary: "Full-text search over every conversation, most relevant first: a hit is a message (its streamed chunks joined) or a tool call, plan or other update; the same text restated is one hit, with how often it recurs. Every word must occur; \"a phrase\", OR, -word (or NOT word), (groups), prefix*, and in:user, in:assistant, in:thinking, in:tool, in:output to look only there. Tool output is left out unless asked for (in:output, --everywhere).",
        parameters: [CommandParameter("query", .query, positional: true, required: true, "what to look for: words, \"phrases\", OR, -word, (groups), prefix*, in:PLACE, session:, desktop:, since:, until:"),
                     CommandParameter("limit", .integer, "at most this many hits (default 20)"),
                     CommandParameter("session_id", .string, flag: "session", value: "SESSION", "only this session's events (its id or any unique prefix)"),
                     CommandParameter("kind", .string, value: "KIND", "only events of this kind (agent_message_chunk, user_message_chunk, tool_call, …)"),
                     CommandParameter("since", .string, value: "DATE", "only events at or after this ISO-8601 date or date-time (UTC unless it says)"),
                     CommandParameter("until", .string, value: "DATE", "only events at or before this date (the whole day) or date-time"),
                     CommandParameter("desktop", .string, value: "NAME", "only the sessions of the desktop of this name"),
                     CommandParameter("everywhere", .boolean, "search tool output too (left out otherwise: it is most of an archive's text)")],
        example: "search flaky reconnect --session 5f0c --since 2024-11-01"
    ) { arguments, context in
        let limit = try arguments.integer("limit", default: 20, range: 1...1000)
        let request = try SearchRequest(query: try arguments.requiredString("query"), options: try searchFilter(arguments, context: context),
                                        context: context)
        let views = try context.views()
        // A search that found little elsewhere says what tool output holds.
        let leavesOutputOut = !request.filter.everywhere && request.filter.kind == nil && request.expression.places.isEmpty
        let page = try storeCall {
            try views.searchPage(request.expression, filter: request.filter, limit: limit, markers: Palette.snippetMarkers,
                                 leavesOutputOut: leavesOutputOut, titled: false)
        }
        let json = try storeCall {
            try JSONValueEncoder().encode(page.hits.map { hit in
                var plain = hit
                plain.snippet = Palette.plain.highlighted(hit.snippet)
                return plain
            })
        }
        let table = TextTable(headers: ["SESSION", "#", "KIND", "SNIPPET"], rows: page.hits.map {
            [Formatting.short($0.sessionID), Self.ordinals($0), $0.kind,
             context.palette.highlighted($0.snippet) + ($0.occurrences > 1 ? " (×\($0.occurrences))" : "")]
        })
        let inOutput = page.inToolOutput
        var result = CommandResult(json: json, table: table)
        if inOutput > 0 {
            let count = inOutput >= 1000 ? "1000 or more" : String(inOutput)
            result.note = "Tool output holds \(count) more \(inOutput == 1 ? "hit" : "hits"): add in:output to the query, or --everywhere."
        }
        return result
    }

    /// A hit's ordinals: its first, or its first and last (`12–40`) for a message of many chunks.
    private static func ordinals(_ hit: SearchHitRow) -> String {
        hit.lastOrdinal > hit.ordinal ? "\(hit.ordinal)–\(hit.lastOrdinal)" : String(hit.ordinal)
    }

    /// The filter `search`'s arguments ask for; the session resolved from its prefix.
    static func searchFilter(_ arguments: CommandArguments, context: CommandContext) throws(CommandError) -> SearchFilter {
        func time(_ name: String) throws(CommandError) -> TimeArgument? {
            try arguments.string(name).map { text throws(CommandError) in try TimeArgument.parse(text, named: name) }
        }
        let since = try time("since")
        let until = try time("until")
        if let since, let until, since.start > until.end { throw .badArguments("since is after until") }
        let kind = try arguments.string("kind")
        if kind?.isEmpty == true { throw .badArguments("kind must not be empty") }
        let session = try arguments.string("session_id").map { prefix throws(CommandError) in try context.resolveSession(prefix).sessionID }
        let desktop = try arguments.string("desktop")
        if desktop?.isEmpty == true { throw .badArguments("desktop must not be empty") }
        return SearchFilter(sessionID: session, kind: kind, since: since?.start, until: until?.end, desktop: desktop,
                            everywhere: try arguments.bool("everywhere"))
    }

    static let status = CommandDefinition(
        words: ["status"], method: "status",
        summary: "The mirror, the bridge, the connection as oa-sync last wrote it, the last sync, counts, pending prompts.",
        parameters: [], example: "status"
    ) { _, context in
        let views = try context.views()
        let report = try storeCall { try views.statusReport(mirrorPath: context.mirrorPath) }
        let rows: [[String]] = [
            ["mirror", report.mirror], ["bridge", report.bridge ?? "(never synced)"],
            ["tls pin", report.tlsPin.map { "SHA-256 \($0)" } ?? "-"],
            ["connection", report.connectionState?.rawValue ?? "-"],
            ["last sync", report.lastSuccess?.iso8601 ?? "never"],
            ["last error", report.lastError ?? "-"],
            ["contents", "\(report.sessions) sessions, \(report.events) events, \(report.threads) threads"],
            ["prompts", "\(report.promptsPending) pending, \(report.promptsFailed) failed, \(report.promptsUnconfirmed) unconfirmed"],
        ] + report.desktops.map { ["desktop", historyLine($0)] }
            + report.failedSessions.map { failure in
                ["failed session", "\(Formatting.short(failure.sessionID)): \(failure.syncError) (retried after \(failure.retryAfter.iso8601))"]
            }
        return CommandResult(json: try storeCall { try JSONValueEncoder().encode(report) }, table: TextTable(headers: ["", ""], rows: rows))
    }

    // MARK: Helpers

    /// A desktop's history on one line of `status`'s table.
    static func historyLine(_ desktop: StatusReport.DesktopStatus) -> String {
        var parts = ["\(desktop.desktop) (\(desktop.bridge ?? "no address"))", "\(desktop.sessions) sessions", "cursor \(desktop.historyCursor)",
                     "last sync " + (desktop.lastSync?.iso8601 ?? "never")]
        if let state = desktop.connectionState { parts.insert(state.rawValue, at: 1) }
        if let error = desktop.lastError { parts.append("last error: \(error)") }
        if let gone = desktop.goneFromDesktopAt { parts.append("history gone from the desktop since \(gone.iso8601)") }
        return parts.joined(separator: ", ")
    }
}

/// Runs a store call, turning its errors into command errors.
func storeCall<T>(_ body: () throws -> T) throws(CommandError) -> T {
    do {
        return try body()
    } catch {
        throw CommandError.wrapping(error)
    }
}

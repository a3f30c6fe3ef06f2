import Commands
import Foundation
import MCP
import MirrorStore
import ReadModel

/// Runs `tools/call`: reads the arguments, asks the mirror, and answers with text for the model
/// and the same as structured content. A mistake the model can correct (a wrong id, a missing
/// argument, no mirror yet) is a result with `isError: true` and a sentence saying what to do.
struct ToolCalls: Sendable {
    let mirror: MirrorQueries
    let allowsPrompts: Bool

    func call(_ name: String, _ arguments: [String: Value]?) async -> CallTool.Result {
        let arguments = ToolArguments(arguments ?? [:])
        do throws(ToolFailure) {
            switch name {
            case ToolDefinitions.searchSessions.name: return try await search(arguments)
            case ToolDefinitions.listSessions.name: return try await list(arguments)
            case ToolDefinitions.readSession.name: return try await read(arguments)
            case ToolDefinitions.enqueuePrompt.name where allowsPrompts: return try await enqueue(arguments)
            default:
                let names = ToolDefinitions.all(allowingPrompts: allowsPrompts).map(\.name).joined(separator: ", ")
                throw ToolFailure("There is no tool \"\(name)\" here; the tools are \(names).")
            }
        } catch {
            return CallTool.Result(content: [.text(text: error.message, annotations: nil, _meta: nil)], isError: true)
        }
    }

    private func search(_ arguments: ToolArguments) async throws(ToolFailure) -> CallTool.Result {
        try arguments.only(["query", "limit", "session_id"])
        let query = try arguments.requiredString("query")
        guard query.contains(where: { $0.isLetter || $0.isNumber }) else {
            throw ToolFailure("The query has no words to search for. Give one or more words, e.g. {\"query\": \"flaky test\"}.")
        }
        let limit = try arguments.integer("limit", default: 10, range: 1...100)
        let hits = try await mirror.search(query, limit: limit, session: try arguments.string("session_id"))
        let lines = hits.enumerated().map { index, hit in
            let ordinals = hit.lastOrdinal > hit.ordinal ? "ordinals \(hit.ordinal)–\(hit.lastOrdinal)" : "ordinal \(hit.ordinal)"
            let recurs = hit.occurrences > 1 ? ", said \(hit.occurrences) times" : ""
            return "\(index + 1). session \(Formatting.short(hit.sessionID)) \"\(hit.title)\" — \(ordinals), \(hit.kind)\(recurs), "
                + "\(hit.time?.iso8601 ?? "time unknown")\n   \(hit.snippet)\n   full id: \(hit.sessionID)"
        }
        let text = hits.isEmpty
            ? "Nothing matches \"\(query)\". Try fewer or other words, a prefix such as pars*, or in:output to search tool output."
            : "\(hits.count) hit(s) for \"\(query)\", most relevant first:\n\n" + lines.joined(separator: "\n")
                + "\n\nTo read a hit in context: read_session with its session_id and at: its ordinal."
        let structured: Value = ["hits": .array(hits.map { hit in
            [
                "session_id": .string(hit.sessionID), "session_short_id": .string(Formatting.short(hit.sessionID)),
                "title": .string(hit.title), "ordinal": .int(Int(hit.ordinal)), "last_ordinal": .int(Int(hit.lastOrdinal)),
                "occurrences": .int(hit.occurrences), "event_id": .int(Int(hit.eventID)),
                "kind": .string(hit.kind), "time": Self.time(hit.time?.milliseconds), "snippet": .string(hit.snippet),
            ]
        })]
        return Self.result(text, structured)
    }

    private func list(_ arguments: ToolArguments) async throws(ToolFailure) -> CallTool.Result {
        try arguments.only(["limit", "offset", "query"])
        let limit = try arguments.integer("limit", default: 20, range: 1...200)
        let offset = try arguments.integer("offset", default: 0, range: 0...Int(Int32.max))
        let query = try arguments.string("query").flatMap { $0.isEmpty ? nil : $0 }
        let sessions = try await mirror.sessions(limit: limit, offset: offset, query: query)
        let lines = sessions.map { row in
            "- \(Formatting.short(row.sessionID)) \"\(row.title ?? "")\" — \(row.mode ?? "mode unknown"), last activity "
                + "\(row.lastActivity?.iso8601 ?? "unknown"), \(row.eventCount) events (full id \(row.sessionID))"
        }
        let more = sessions.count == limit ? "\n\nMore may follow: call again with offset: \(offset + limit)." : ""
        let text = sessions.isEmpty
            ? (query.map { "No session's title or events match \"\($0)\"." } ?? "No sessions\(offset > 0 ? " after offset \(offset)" : " are mirrored yet").")
            : "\(sessions.count) session(s), most recent activity first:\n" + lines.joined(separator: "\n") + more
        let structured: Value = ["sessions": .array(sessions.map { row in
            [
                "session_id": .string(row.sessionID), "session_short_id": .string(Formatting.short(row.sessionID)),
                "title": .string(row.title ?? ""), "mode": row.mode.map(Value.string) ?? .null,
                "last_activity": Self.time(row.lastActivity?.milliseconds), "events": .int(Int(row.eventCount)),
                "desktop": row.desktop.map(Value.string) ?? .null, "gone_from_desktop": .bool(row.goneFromDesktopAt != nil),
            ]
        })]
        return Self.result(text, structured)
    }

    private func read(_ arguments: ToolArguments) async throws(ToolFailure) -> CallTool.Result {
        try arguments.only(["session_id", "at", "context", "max_chars"])
        let session = try arguments.requiredString("session_id")
        let at = try arguments.optionalInteger("at", range: 0...Int.max)
        let context = try arguments.integer("context", default: ConversationWindow.defaultContext, range: 0...50)
        let maxCharacters = try arguments.integer("max_chars", default: 20_000, range: 1000...200_000)
        let part = try await mirror.read(session: session, at: at.map(Int64.init), context: context, maxCharacters: maxCharacters)
        let structured: Value = [
            "session_id": .string(part.sessionID), "entries": .int(part.entryCount),
            "next_at": part.nextOrdinal.map { .int(Int($0)) } ?? .null,
        ]
        return Self.result(part.markdown, structured)
    }

    private func enqueue(_ arguments: ToolArguments) async throws(ToolFailure) -> CallTool.Result {
        try arguments.only(["session_id", "text"])
        let session = try arguments.requiredString("session_id")
        let text = try arguments.requiredString("text")
        let item = try await mirror.enqueue(text, for: session)
        let structured: Value = [
            "prompt_id": .int(Int(item.id)), "session_id": .string(item.sessionID), "state": .string(item.state.rawValue),
        ]
        let reply = "Queued prompt \(item.id) for session \(item.sessionID) (state: \(item.state.rawValue)). "
            + "oa-sync delivers it when the desktop is reachable; its reply will appear in read_session."
        return Self.result(reply, structured)
    }

    /// A successful result: `text` for the model, `structured` for programs.
    private static func result(_ text: String, _ structured: Value) -> CallTool.Result {
        CallTool.Result(content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: Optional(structured), isError: false)
    }

    private static func time(_ milliseconds: Int64?) -> Value {
        Formatting.iso8601(milliseconds).map(Value.string) ?? .null
    }
}

/// A tool call's arguments, read with messages a model can act on.
struct ToolArguments {
    let values: [String: Value]

    init(_ values: [String: Value]) {
        self.values = values
    }

    /// Fails on an argument not in `names`.
    func only(_ names: Set<String>) throws(ToolFailure) {
        if let unknown = values.keys.sorted().first(where: { !names.contains($0) }) {
            throw ToolFailure("Unknown argument \"\(unknown)\"; this tool takes \(names.sorted().joined(separator: ", ")).")
        }
    }

    func string(_ name: String) throws(ToolFailure) -> String? {
        guard let value = values[name], value != .null else { return nil }
        guard let string = value.stringValue else { throw ToolFailure("\(name) must be a string.") }
        return string
    }

    func requiredString(_ name: String) throws(ToolFailure) -> String {
        guard let string = try string(name), !string.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ToolFailure("\(name) is required and must not be empty.")
        }
        return string
    }

    func optionalInteger(_ name: String, range: ClosedRange<Int>) throws(ToolFailure) -> Int? {
        guard let value = values[name], value != .null else { return nil }
        // Some clients send whole numbers as 12.0.
        let number = value.intValue ?? value.doubleValue.flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
        guard let number, range.contains(number) else {
            throw ToolFailure("\(name) must be a whole number from \(range.lowerBound)\(range.upperBound == Int.max ? " up" : " to \(range.upperBound)").")
        }
        return number
    }

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(ToolFailure) -> Int {
        try optionalInteger(name, range: range) ?? fallback
    }
}

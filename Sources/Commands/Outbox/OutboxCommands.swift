import Bridge
import Foundation
import MirrorStore
import ReadModel

/// Commands of the outbox: queue a prompt, list, retry, drop.
package enum OutboxCommands {
    static let prompt = CommandDefinition(
        words: ["prompt"], method: "prompt.enqueue",
        summary: "Queue a prompt for a session (or `new` for a new one); works offline, oa-sync delivers it.",
        parameters: [CommandParameter("session_id", .string, positional: true, required: true, "the session (id or unique prefix), or new"),
                     CommandParameter("text", .text, positional: true, required: true, "the prompt"),
                     CommandParameter("desktop", .string, value: "NAME", "with new: the desktop to make the session on (needed when the mirror holds several)")],
        example: "prompt 5f0c Run the tests again"
    ) { arguments, context in
        let item = try enqueue(try arguments.requiredString("text"), for: try arguments.requiredString("session_id"),
                               desktop: try arguments.string("desktop"), context: context)
        return CommandResult(json: try rowJSON(item, context: context), text: "queued prompt \(item.id) for \(Formatting.short(item.sessionID)) (oa-sync sends it)")
    }

    /// Queues `text` for the session `target` names (an id or unique prefix), or for a new local
    /// session when it is `new` (on `desktop`, which must be named when the mirror holds several),
    /// with its echo in the timeline. A prompt goes to the desktop its session lives on.
    package static func enqueue(_ text: String, for target: String, desktop: String? = nil,
                                context: CommandContext) throws(CommandError) -> OutboxItem {
        let store = try context.store()
        let isNew = target == "new"
        if desktop != nil && !isNew { throw .badArguments("desktop goes with new: a session's prompts go to the desktop it lives on") }
        let history = isNew ? try newSessionHistory(desktop: desktop, store: store) : nil
        let sessionID = isNew ? "local-" + UUID().uuidString.lowercased() : try context.resolveSession(target).sessionID
        let echo: JSONValue = ["sessionUpdate": .string(UpdateKind.userMessageChunk.rawValue), "content": ["content": ["type": "text", "text": .string(text)]]]
        // One transaction: a new session never exists without its first prompt.
        return try storeCall {
            try store.write {
                if isNew { try store.createLocalSession(id: sessionID, history: history) }
                return try store.enqueuePrompt(
                    sessionID: sessionID, text: text, clientMessageID: UUID().uuidString.lowercased(),
                    localEcho: NewEvent(sessionID: sessionID, timestamp: context.clock.now(), kind: UpdateKind.userMessageChunk.rawValue, text: text,
                                        updateJSON: JSONWriter.bytes(of: echo), origin: .local)
                )
            }
        }
    }

    /// The history a new session is made in: the current one of `desktop`, or of the only desktop
    /// the mirror holds (nil when it holds none yet: the first bridge synced makes it).
    private static func newSessionHistory(desktop: String?, store: MirrorStore) throws(CommandError) -> HistoryKey? {
        let current = try storeCall { try store.histories().filter { $0.goneAt == nil } }
        let desktops = Array(Set(current.map(\.desktop))).sorted()
        guard let desktop else {
            guard desktops.count <= 1 else {
                throw .badArguments("the mirror holds several desktops (\(desktops.joined(separator: ", "))): say which with desktop")
            }
            return current.last?.key
        }
        guard let history = current.last(where: { $0.desktop == desktop }) else {
            throw .badArguments("no desktop \(desktop) in the mirror (it holds \(desktops.isEmpty ? "none yet" : desktops.joined(separator: ", ")))")
        }
        return history.key
    }

    static let list = CommandDefinition(
        words: ["outbox"], method: "outbox.list",
        summary: "Queued prompts and what became of them (queued, sending, sent, failed, unconfirmed).",
        parameters: [], example: "outbox"
    ) { _, context in
        let views = try context.views()
        let rows = try storeCall { try views.outboxRows() }
        let table = TextTable(headers: ["ID", "STATE", "SESSION", "TRIES", "ERROR", "TEXT"], rows: rows.map {
            [String($0.id), context.palette.state($0.state), Formatting.short($0.sessionID), String($0.attempts), $0.lastError ?? "", $0.text]
        })
        return CommandResult(json: try storeCall { try JSONValueEncoder().encode(rows) }, table: table)
    }

    static let retry = CommandDefinition(
        words: ["outbox", "retry"], method: "outbox.retry",
        summary: "Queue a failed or unconfirmed prompt again (an unconfirmed one may then reach the agent twice).",
        parameters: [CommandParameter("id", .integer, positional: true, required: true, "the outbox item")],
        example: "outbox retry 3"
    ) { arguments, context in
        let id = try arguments.integer("id", default: 0, range: 1...Int.max)
        let item = try storeCall { try context.store().requeueOutboxItem(id: Int64(id)) }
        return CommandResult(json: try rowJSON(item, context: context), text: "prompt \(item.id) queued again")
    }

    static let drop = CommandDefinition(
        words: ["outbox", "drop"], method: "outbox.drop",
        summary: "Remove a prompt that is not being sent (and its echo in the timeline, if it was never sent).",
        parameters: [CommandParameter("id", .integer, positional: true, required: true, "the outbox item")],
        example: "outbox drop 3"
    ) { arguments, context in
        let id = try arguments.integer("id", default: 0, range: 1...Int.max)
        try storeCall { try context.store().dropOutboxItem(id: Int64(id)) }
        return CommandResult(json: ["dropped": .number(id)], text: "prompt \(id) dropped")
    }

    /// The answer about one prompt: its row, redacted.
    private static func rowJSON(_ item: OutboxItem, context: CommandContext) throws(CommandError) -> JSONValue {
        let views = try context.views()
        return try storeCall { try JSONValueEncoder().encode(views.outboxRow(item)) }
    }
}

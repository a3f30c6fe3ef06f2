import Bridge
import Foundation
import MirrorStore

/// Commands of the outbox: queue a prompt, list, retry, drop.
package enum OutboxCommands {
    static let prompt = CommandDefinition(
        words: ["prompt"], method: "prompt.enqueue",
        summary: "Queue a prompt for a session (or `new` for a new one); works offline, oa-sync delivers it.",
        parameters: [CommandParameter("session_id", .string, positional: true, required: true, "the session (id or unique prefix), or new"),
                     CommandParameter("text", .text, positional: true, required: true, "the prompt")],
        example: "prompt 5f0c Run the tests again"
    ) { arguments, context in
        let item = try enqueue(try arguments.requiredString("text"), for: try arguments.requiredString("session_id"), context: context)
        return CommandResult(json: itemJSON(item), text: "queued prompt \(item.id) for \(Formatting.short(item.sessionID)) (oa-sync sends it)")
    }

    /// Queues `text` for the session `target` names (an id or unique prefix), or for a new local
    /// session when it is `new`, with its echo in the timeline.
    package static func enqueue(_ text: String, for target: String, context: CommandContext) throws(CommandError) -> OutboxItem {
        let store = try context.store()
        let isNew = target == "new"
        let sessionID = isNew ? "local-" + UUID().uuidString.lowercased() : try context.resolveSession(target).sessionID
        let echo: JSONValue = ["sessionUpdate": .string(UpdateKind.userMessageChunk.rawValue), "content": ["content": ["type": "text", "text": .string(text)]]]
        // One transaction: a new session never exists without its first prompt.
        return try storeCall {
            try store.write {
                if isNew { try store.createLocalSession(id: sessionID) }
                return try store.enqueuePrompt(
                    sessionID: sessionID, text: text, clientMessageID: UUID().uuidString.lowercased(),
                    localEcho: NewEvent(sessionID: sessionID, timestamp: context.clock.now(), kind: UpdateKind.userMessageChunk.rawValue, text: text,
                                        updateJSON: JSONWriter.bytes(of: echo), origin: .local)
                )
            }
        }
    }

    static let list = CommandDefinition(
        words: ["outbox"], method: "outbox.list",
        summary: "Queued prompts and what became of them (queued, sending, sent, failed, unconfirmed).",
        parameters: [], example: "outbox"
    ) { _, context in
        let items = try storeCall { try context.store().outboxItems() }
        let table = TextTable(headers: ["ID", "STATE", "SESSION", "TRIES", "ERROR", "TEXT"], rows: items.map {
            [String($0.id), context.palette.state($0.state.rawValue), Formatting.short($0.sessionID), String($0.attempts), $0.lastError ?? "", $0.text]
        })
        return CommandResult(json: .array(items.map(itemJSON)), table: table)
    }

    static let retry = CommandDefinition(
        words: ["outbox", "retry"], method: "outbox.retry",
        summary: "Queue a failed or unconfirmed prompt again (an unconfirmed one may then reach the agent twice).",
        parameters: [CommandParameter("id", .integer, positional: true, required: true, "the outbox item")],
        example: "outbox retry 3"
    ) { arguments, context in
        let id = try arguments.integer("id", default: 0, range: 1...Int.max)
        let item = try storeCall { try context.store().requeueOutboxItem(id: Int64(id)) }
        return CommandResult(json: itemJSON(item), text: "prompt \(item.id) queued again")
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

    static func itemJSON(_ item: OutboxItem) -> JSONValue {
        .object([
            JSONMember("id", .number(item.id)), JSONMember("session_id", .string(item.sessionID)), JSONMember("text", .string(item.text)),
            JSONMember("state", .string(item.state.rawValue)), JSONMember("attempts", .number(item.attempts)),
            JSONMember("last_error", item.lastError.map(JSONValue.string) ?? .null),
            JSONMember("client_message_id", .string(item.clientMessageID)),
            JSONMember("created_at", BrowseCommands.iso(item.createdAt)), JSONMember("updated_at", BrowseCommands.iso(item.updatedAt)),
            JSONMember("sent_at", BrowseCommands.iso(item.sentAt)),
        ])
    }
}

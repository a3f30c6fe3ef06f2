import Bridge
import Foundation
import MirrorStore

/// What a command asks its front end to do with a feed.
public enum FeedAction: Sendable, Equatable {
    /// Follow the mirror as the request says (the REPL prints, the JSON-lines mode notifies).
    case start(FeedRequest)
    /// End the JSON-lines subscription with this number.
    case stop(subscription: Int)
}

/// `follow` (JSON lines: `events.subscribe`) and `events.unsubscribe`: readers that follow what
/// oa-sync commits, from another process, without polling.
enum FeedCommands {
    static let follow = CommandDefinition(
        words: ["follow"], method: "events.subscribe",
        summary: "A session's conversation (or every session's), then each event as oa-sync commits it; until Ctrl-C, or idle.",
        parameters: [
            CommandParameter("session_id", .string, positional: true, "the session: its id or any unique prefix (default: every session)"),
            CommandParameter("after", .stringOrInteger, flag: "from", value: "start|now|ID",
                             "start (default: everything mirrored), now (only what comes next), or an event id to go on after"),
            CommandParameter("until_idle_ms", .integer, "end after this many ms without a new event (default: never)"),
            CommandParameter("desktop", .string, value: "NAME", "without a session: only the sessions of the desktop of this name"),
        ],
        example: "follow 5f0c --from now"
    ) { arguments, context in
        // A mirror there is brought up to date here: the follower's own connection only reads.
        if FileManager.default.fileExists(atPath: context.mirrorPath) { _ = try context.store() }
        // A secrets file that cannot be used is reported here, before the feed starts.
        _ = try context.redactionPolicy()
        let session = try arguments.string("session_id").map { prefix throws(CommandError) in try context.resolveSession(prefix) }
        let idle = try arguments.values["until_idle_ms"].map { _ throws(CommandError) in
            Duration.milliseconds(try arguments.integer("until_idle_ms", default: 0, range: 0...Int(Int32.max)))
        }
        let start = try startPosition(arguments.values["after"], context: context)
        let desktop = try arguments.string("desktop")
        if desktop != nil && session != nil { throw CommandError.badArguments("desktop goes without a session: a session has one desktop") }
        let sessionKey = try session.map { session throws(CommandError) in
            guard let key = try storeCall({ try context.store().sessionKey(of: session.sessionID) }) else {
                throw CommandError.unknownSession(session.sessionID)
            }
            return key
        }
        var result = CommandResult(json: [
            "after": .number(start.eventID),
            "session_id": session.map { .string($0.sessionID) } ?? .null,
            "desktop": desktop.map(JSONValue.string) ?? .null,
        ])
        result.feed = .start(FeedRequest(sessionKey: sessionKey, sessionID: session?.sessionID, desktop: desktop, start: start, idleLimit: idle))
        return result
    }

    static let unsubscribe = CommandDefinition(
        words: ["unsubscribe"], method: "events.unsubscribe",
        summary: "End a JSON-lines subscription (events.subscribe answered with its number).",
        parameters: [CommandParameter("subscription", .integer, positional: true, required: true, "the subscription's number")],
        example: "unsubscribe 1"
    ) { arguments, _ in
        let number = try arguments.integer("subscription", default: 0, range: 1...Int(Int32.max))
        var result = CommandResult(json: ["subscription": .number(number)])
        result.feed = .stop(subscription: number)
        return result
    }

    /// Where `after` says to start: `start` (or nothing), `now`, or after an event id.
    private static func startPosition(_ after: JSONValue?, context: CommandContext) throws(CommandError) -> FeedPosition {
        guard let after, !after.isNull else { return .start }
        if let word = after.stringValue, Int64(word) == nil {
            switch word {
            case "start": return .start
            case "now":
                // No mirror yet: everything it will hold is still to come.
                guard FileManager.default.fileExists(atPath: context.mirrorPath) else { return .start }
                return try storeCall { try context.store().feedEnd() }
            default: throw .badArguments("where to start (--from, or after) must be start, now or an event id, not \(word)")
            }
        }
        guard let eventID = after.int64Value ?? after.stringValue.flatMap({ Int64($0) }), eventID >= 0 else {
            throw .badArguments("where to start (--from, or after) must be start, now or an event id (a whole number from 0)")
        }
        return try storeCall { try context.store().feedPosition(afterEvent: eventID) }
    }
}

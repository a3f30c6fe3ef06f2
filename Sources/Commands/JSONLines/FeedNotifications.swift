import Bridge
import MirrorStore
import ReadModel

/// A subscription's feed as JSON-RPC 2.0 notifications, one per line: `events.appended` for
/// events in a row, `events.removed` and `events.confirmed` for events of one session in a row
/// that a refetch took back or confirmed, `outbox.changed` for each prompt's change,
/// `session.merged` when a session made offline joined the bridge's, `events.ended` when the
/// feed is over on its own.
enum FeedNotifications {
    /// The lines for `items`, in their order.
    static func lines(for items: [FeedItem], subscription: Int) -> [String] {
        var lines: [String] = []
        var index = items.startIndex
        while index < items.endIndex {
            switch items[index] {
            case .appended:
                var events: [JSONValue] = []
                while index < items.endIndex, case .appended(let event) = items[index] {
                    events.append(EventRow(event).json)
                    index += 1
                }
                lines.append(line("events.appended", ["subscription": .number(subscription), "events": .array(events)]))
            case .removed(_, let sessionID), .confirmed(_, let sessionID):
                let removing = if case .removed = items[index] { true } else { false }
                var eventIDs: [JSONValue] = []
                while index < items.endIndex {
                    switch items[index] {
                    case .removed(let eventID, sessionID) where removing, .confirmed(let eventID, sessionID) where !removing:
                        eventIDs.append(.number(eventID))
                        index += 1
                        continue
                    default:
                        break
                    }
                    break
                }
                lines.append(line(removing ? "events.removed" : "events.confirmed",
                                  ["subscription": .number(subscription), "session_id": .string(sessionID), "event_ids": .array(eventIDs)]))
            case .sessionMerged(let sessionID, let into):
                lines.append(line("session.merged", ["subscription": .number(subscription), "session_id": .string(sessionID),
                                                     "into": .string(into)]))
                index += 1
            case .outboxChanged(let outboxID, let sessionID, let state):
                lines.append(line("outbox.changed", ["subscription": .number(subscription), "outbox_id": .number(outboxID),
                                                     "session_id": .string(sessionID), "state": .string(state)]))
                index += 1
            }
        }
        return lines
    }

    /// `events.ended`: the subscription is over without being asked to (`idle`; `merged`, with
    /// `into`, the session to follow now; `error` with a message).
    static func ended(subscription: Int, reason: String, message: String? = nil, into: String? = nil) -> String {
        var params: [JSONMember] = [JSONMember("subscription", .number(subscription)), JSONMember("reason", .string(reason))]
        if let into { params.append(JSONMember("into", .string(into))) }
        if let message { params.append(JSONMember("message", .string(message))) }
        return line("events.ended", .object(params))
    }

    private static func line(_ method: String, _ params: JSONValue) -> String {
        String(decoding: JSONWriter.bytes(of: ["jsonrpc": "2.0", "method": .string(method), "params": params]), as: UTF8.self)
    }
}

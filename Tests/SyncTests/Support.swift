import Bridge
import Foundation
import MirrorStore
import TestSupport
import Testing

/// One stored event, as the simulator's history or the mirror holds it.
struct HistoryRow: Equatable, CustomStringConvertible {
    var seq: Int64
    var sessionID: String
    var updateJSON: [UInt8]

    var description: String { "#\(seq) \(sessionID.prefix(8)) \(String(decoding: updateJSON.prefix(60), as: UTF8.self))" }
}

/// The simulator's whole history, in seq order.
func simulatorHistory(_ path: String) throws -> [HistoryRow] {
    let database = try Database(path: path, mode: .readOnly)
    return try database.query("SELECT event_id, session_id, update_json FROM acp_events ORDER BY event_id") {
        HistoryRow(seq: $0.int64(0), sessionID: $0.string(1), updateJSON: $0.bytes(2))
    }
}

/// The mirror's events that came with a seq, in seq order.
func mirroredHistory(_ path: String) throws -> [HistoryRow] {
    let store = try MirrorStore(path: path, mode: .readOnly)
    return try store.database.query("SELECT e.seq, s.session_id, e.update_json FROM events e JOIN sessions s USING (session_no) WHERE e.seq IS NOT NULL ORDER BY e.seq") {
        HistoryRow(seq: $0.int64(0), sessionID: $0.string(1), updateJSON: $0.bytes(2))
    }
}

/// Canonical JSON of each server event of a mirrored session's timeline.
func mirroredTimeline(_ mirror: String, session: String) throws -> [[UInt8]] {
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    return try store.timeline(sessionID: session).filter { $0.origin == .server }.map {
        JSONWriter.canonicalBytes(of: (try? JSONParser.parse($0.updateJSON)) ?? .null)
    }
}

/// The same events, whatever their order: a stock bridge serves events of one millisecond in any
/// order, so two fetches of one timeline may differ in order only.
func sameEvents(_ first: [[UInt8]], _ second: [[UInt8]]) -> Bool {
    first.sorted { $0.lexicographicallyPrecedes($1) } == second.sorted { $0.lexicographicallyPrecedes($1) }
}

/// Canonical JSON of a session's timeline as the bridge serves it.
func bridgeTimeline(_ client: BridgeClient, session: String) async throws -> [[UInt8]] {
    try await client.sessionTimeline(sessionID: session).map(\.update.canonicalBytes)
}

/// Queues a prompt the way oa-repl does: in the outbox, with its echo in the local timeline.
@discardableResult
func queuePrompt(_ store: MirrorStore, session: String, text: String) throws -> OutboxItem {
    let echo: JSONValue = ["sessionUpdate": "user_message_chunk", "content": ["content": ["type": "text", "text": .string(text)]]]
    return try store.enqueuePrompt(
        sessionID: session, text: text, clientMessageID: UUID().uuidString,
        localEcho: NewEvent(sessionID: session, kind: "user_message_chunk", text: text, updateJSON: JSONWriter.bytes(of: echo))
    )
}

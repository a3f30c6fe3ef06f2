import Bridge
import Foundation

/// The `_sim/*` control methods tests and benchmarks drive the simulator with (docs/simulator.md).
extension BridgeSimulator {
    // MARK: Control

    func control(_ method: String, params: JSONValue, connection: SimulatorConnection) throws -> JSONValue {
        switch method {
        case "_sim/append":
            guard let session = params["session_id"]?.stringValue, let updates = params["updates"]?.arrayValue else {
                throw JSONRPCError(code: -32602, message: "_sim/append needs session_id and updates")
            }
            let seqs = try publish(updates.map { (session, JSONWriter.bytes(of: $0)) },
                                   delivery: params["delivery"]?.stringValue ?? "normal")
            return ["seqs": .array(seqs.map { .number($0) })]
        case "_sim/burst":
            return try burst(params)
        case "_sim/create_session":
            let id = params["session_id"]?.stringValue ?? UUID().uuidString
            try publish([(id, modeUpdate(params["mode"]?.stringValue ?? "codex"))])
            return ["session_id": .string(id)]
        case "_sim/prune":
            guard let session = params["session_id"]?.stringValue, let count = params["count"]?.int64Value, count > 0 else {
                throw JSONRPCError(code: -32602, message: "_sim/prune needs session_id and count (1 or more)")
            }
            return ["deleted": .number(try history.prune(sessionID: session, oldest: Int(count)))]
        case "_sim/delete_session":
            guard let session = params["session_id"]?.stringValue else {
                throw JSONRPCError(code: -32602, message: "_sim/delete_session needs session_id")
            }
            return ["deleted": .number(try history.delete(sessionID: session))]
        case "_sim/drop_connections":
            let includeSelf = params["include_self"]?.boolValue ?? false
            let dropped = connections.values.filter { includeSelf || $0.id != connection.id }
            dropped.forEach { $0.drop() }
            return ["dropped": .number(dropped.count)]
        case "_sim/refuse_connections":
            let milliseconds = params["ms"]?.int64Value ?? 0
            refuseUntil = ContinuousClock.now + .milliseconds(milliseconds)
            return [:]
        case "_sim/set_reply_delay":
            replyDelay = .milliseconds(params["ms"]?.int64Value ?? 0)
            return [:]
        case "_sim/close_after_frames":
            closeAfterFrames = params["frames"]?.int64Value.map(Int.init)
            return [:]
        case "_sim/drop_before_answering_prompts":
            dropsBeforeAnsweringPrompts = params["drops"]?.boolValue ?? true
            return [:]
        case "_sim/set_frame_size":
            largeMessages = SimulatorConnection.LargeMessages(frameSize: params["bytes"]?.int64Value.map(Int.init),
                                                              dropAfterFrames: params["drop_after_frames"]?.int64Value.map(Int.init))
            return [:]
        case "_sim/prompts":
            return ["prompts": .array(prompts)]
        case "_sim/clients":
            return ["clients": .array(clients)]
        case "_sim/send_raw":
            let frames = (params["frames"]?.arrayValue ?? []).compactMap(\.stringValue)
            let targets = params["to"]?.stringValue == "all" ? Array(connections.values) : [connection]
            let binary = params["binary"]?.boolValue ?? false
            guard let fragments = SimulatorConnection.Fragments(rawValue: params["fragments"]?.stringValue ?? "whole") else {
                throw JSONRPCError(code: -32602, message: "_sim/send_raw: fragments is whole, split, orphan_continuation or new_message_inside")
            }
            for target in targets { frames.forEach { target.send(Array($0.utf8), binary: binary, fragments: fragments) } }
            return ["sent": .number(frames.count * targets.count)]
        case "_sim/stats":
            return ["connections": .number(connections.count), "sessions": .number(history.sessions.count),
                    "events": .number(history.eventCount), "last_seq": .number(history.lastSeq),
                    "max_in_flight": .number(maxInFlight), "in_flight": .number(inFlight.values.reduce(0, +)),
                    "bytes_sent": .number(bytesSentByClosedConnections + connections.values.reduce(0) { $0 + $1.bytesSent }),
                    "largest_message": .number(connections.values.reduce(largestMessageSentByClosedConnections) { max($0, $1.largestMessageSent) })]
        default:
            throw JSONRPCError(code: -32601, message: "Unknown control method \(method)")
        }
    }

    /// `_sim/burst`: stores the updates, then answers their seqs while a task broadcasts them to
    /// the clients initialized now, each as fast as its socket takes them.
    private func burst(_ params: JSONValue) throws -> JSONValue {
        guard let session = params["session_id"]?.stringValue, let count = params["count"]?.int64Value,
              (1...10_000_000).contains(count) else {
            throw JSONRPCError(code: -32602, message: "_sim/burst needs session_id and count (1…10,000,000)")
        }
        let bytes = params["bytes"]?.int64Value ?? 1024
        guard (1...(1 << 20)).contains(bytes) else { throw JSONRPCError(code: -32602, message: "_sim/burst: bytes must be 1…1,048,576") }
        var burst = Burst(sessionID: session, count: Int(count), bytes: Int(bytes), withMeta: flavor == .cursor)
        try history.append(&burst, now: Self.nowMilliseconds)
        let targets = initialized.sorted().compactMap { connections[$0] }
        let stored = burst
        // Like the other broadcasts after an answer: the answer is queued first, then this runs.
        tasks.start { await Self.broadcast(stored, to: targets) }
        return ["first_seq": .number(burst.firstSeq), "last_seq": .number(burst.lastSeq)]
    }

    /// Sends every update of a stored burst to each connection, one child task per connection,
    /// each paced by its socket (a slow client holds back only itself).
    private static func broadcast(_ burst: Burst, to connections: [SimulatorConnection]) async {
        await withTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask { await connection.sendPaced(count: burst.count, frame: burst.notification) }
            }
        }
    }
}

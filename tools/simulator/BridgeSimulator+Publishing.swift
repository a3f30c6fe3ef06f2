import Bridge
import Foundation

/// The session methods a client calls (new sessions, prompts and the scripted agent's replies),
/// and publishing: each update persisted, then broadcast to every initialized client.
extension BridgeSimulator {
    // MARK: Session methods

    func newSession(mode: String, id: String) throws -> [UInt8] {
        let answer = JSONWriter.bytes(of: ["session_id": .string(id)])
        // The desktop answers first, then persists and broadcasts the mode.
        let update = modeUpdate(mode)
        tasks.start { try? await self.publish([(id, update)]) }
        return answer
    }

    func prompt(_ params: JSONValue) throws -> [UInt8] {
        guard let session = params["session_id"]?.stringValue, let blocks = params["prompt"]?.arrayValue else {
            throw JSONRPCError(code: -32602, message: "Invalid session/prompt parameters")
        }
        let text = blocks.compactMap { $0["text"]?.stringValue }.joined(separator: "\n")
        guard !text.isEmpty else { throw JSONRPCError(code: -32602, message: "Empty prompt") }
        let clientMessageID = flavor == .cursor ? params["_meta"]?["client_message_id"]?.stringValue : nil
        if let clientMessageID, let status = try history.knownClientMessage(clientMessageID) {
            return JSONWriter.bytes(of: ["status": .string(status), "_meta": ["duplicate": true]])
        }
        var record: [JSONMember] = [JSONMember("session_id", .string(session)), JSONMember("text", .string(text))]
        if let clientMessageID {
            record.append(JSONMember("client_message_id", .string(clientMessageID)))
            try history.recordClientMessage(clientMessageID, sessionID: session, status: "started", at: Self.nowMilliseconds())
        }
        prompts.append(.object(record))
        tasks.start { try? await self.publish(ScriptedAgent.reply(to: text).map { (session, $0) }) }
        return JSONWriter.bytes(of: ["status": "started"])
    }

    func modeUpdate(_ mode: String) -> [UInt8] {
        JSONWriter.bytes(of: ["sessionUpdate": .string(UpdateKind.currentModeUpdate.rawValue), "current_mode_id": .string(mode)])
    }

    // MARK: Publishing

    /// Persists updates, then broadcasts each to every initialized client.
    @discardableResult
    func publish(_ updates: [(sessionID: String, json: [UInt8])], delivery: String = "normal") throws -> [Int64] {
        var ts = Self.nowMilliseconds()
        let stored = try history.append(updates.map { update in
            ts = max(ts, (history.sessions[update.sessionID]?.lastTS ?? 0) + 1)
            return (update.sessionID, ts, update.json)
        })
        var frames = stored.map(notification)
        switch delivery {
        case "duplicate": frames = frames.flatMap { [$0, $0] }
        case "reverse": frames.reverse()
        case "silent": frames = []
        default: break
        }
        for connectionID in initialized.sorted() {
            guard let connection = connections[connectionID] else { continue }
            for frame in frames { connection.send(frame) }
        }
        return stored.map(\.seq)
    }

    private func notification(_ event: SimulatorHistory.StoredEvent) -> [UInt8] {
        var bytes = Array(#"{"jsonrpc":"2.0","method":"session/update","params":{"session_id":"#.utf8)
        bytes += JSONWriter.bytes(of: .string(event.sessionID)) + Array(#","update":"#.utf8) + event.updateJSON
        if flavor == .cursor {
            bytes += Array(#","_meta":{"seq":\#(event.seq),"ts":\#(event.ts)}"#.utf8)
        }
        return bytes + Array("}}".utf8)
    }
}

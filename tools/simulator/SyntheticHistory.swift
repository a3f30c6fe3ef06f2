import Bridge
import ToolSupport

/// A deterministic synthetic history for an empty simulator database: `events` events over
/// `sessions` sessions, shaped like a desktop's (a mode, a user message, streamed thoughts and
/// replies, tool calls with results, plans), events of the sessions interleaved in time; sized
/// as `shape` says.
struct SyntheticHistory {
    let sessions: Int
    let events: Int
    let seed: UInt64
    var shape: HistoryShape = .uniform

    /// A batch is handed over once it holds this many bytes, whatever its count.
    static let batchByteLimit = 64 << 20

    static let words = """
        parser token build test swift bridge session timeline mirror cursor backoff socket frame reply \
        prompt agent thought plan tool call update error output render export markdown search index \
        query commit page sync offline outbox retry queue fixture desktop client server schema reader
        """.split(separator: " ").map(String.init)

    /// Calls `emit` with batches of (session, ts, update JSON), in time order.
    func generate(batchSize: Int = 10_000, _ emit: ([(sessionID: String, ts: Int64, json: [UInt8])]) throws -> Void) throws {
        guard sessions > 0, events > 0 else { return }
        var random = SplitMix64(seed: seed)
        var produced = Array(repeating: 0, count: sessions)
        var streams = Array(repeating: (reply: StreamedText(), thought: StreamedText()), count: shape.isRealistic ? sessions : 0)
        var turns = Array(repeating: StreamedTurns(), count: shape == .streamed ? sessions : 0)
        var batch: [(sessionID: String, ts: Int64, json: [UInt8])] = []
        var batchBytes = 0
        var ts: Int64 = 1_731_000_000_000
        func add(_ session: Int, _ json: [UInt8]) throws {
            batch.append((Self.sessionID(session, seed: seed), ts, json))
            batchBytes += json.count
            if batch.count == batchSize || batchBytes >= Self.batchByteLimit {
                try emit(batch)
                batch.removeAll(keepingCapacity: true)
                batchBytes = 0
            }
        }
        for index in 0..<events {
            if shape == .runs, index >= sessions {
                for run in HistoryShape.largeOutputRuns where index == Int(Double(events) * run.at) {
                    for _ in 0..<run.count {
                        produced[0] += 1
                        ts += Int64(random.next() % 40)
                        try add(0, toolOutput(ordinal: produced[0] - 1, session: 0, bytes: run.bytes, random: &random))
                    }
                }
            }
            // The first `sessions` events open every session in turn; then sessions are picked at random.
            let session = index < sessions ? index : shape.sessionIndex(sessions: sessions, random: &random)
            let ordinal = produced[session]
            produced[session] += 1
            ts += Int64(random.next() % 40)
            let json = if ordinal >= 1 && shape == .streamed {
                Array(turns[session].next(callID: "call-\(session)-\(ordinal)", random: &random).utf8)
            } else if ordinal >= 2 && shape.isRealistic && random.next() % HistoryShape.toolOutputEvery == 0 {
                toolOutput(ordinal: ordinal, session: session, bytes: HistoryShape.toolOutputBytes(random: &random), random: &random)
            } else {
                Array(update(ordinal: ordinal, session: session, streams: &streams, random: &random).utf8)
            }
            try add(session, json)
        }
        if !batch.isEmpty { try emit(batch) }
    }

    static func sessionID(_ index: Int, seed: UInt64) -> String {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let hex = (0..<4).map { _ in String(random.next(), radix: 16, uppercase: true) }.joined()
        let digits = Array(hex.padding(toLength: 32, withPad: "0", startingAt: 0))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    /// A tool call's completed result with an output of `bytes` bytes.
    private func toolOutput(ordinal: Int, session: Int, bytes: Int, random: inout SplitMix64) -> [UInt8] {
        let kind = UpdateKind.toolCallUpdate.rawValue
        return Array(#"{"sessionUpdate":"\#(kind)","\#(kind)":{"call_id":"call-\#(session)-\#(ordinal - 1)","status":"completed","output":{"stdout":""#.utf8)
            + HistoryShape.outputText(bytes: bytes, random: &random) + Array(#""}}}"#.utf8)
    }

    /// - Parameter streams: each session's reply and thinking as they stream, in the realistic
    ///   shape (none in the uniform one, whose chunks are whole sentences ending in a space).
    private func update(ordinal: Int, session: Int, streams: inout [(reply: StreamedText, thought: StreamedText)],
                        random: inout SplitMix64) -> String {
        func sentence(_ count: Int) -> String {
            (0..<count).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }.joined(separator: " ")
        }
        func chunk(_ kind: UpdateKind, _ text: String) -> String {
            Self.quotedChunk(kind, "\"\(text)\"")
        }
        switch ordinal {
        case 0: return Self.tagged(.currentModeUpdate, #""current_mode_id":"\#(session % 2 == 0 ? "codex" : "claude-code")""#)
        case 1: return chunk(.userMessageChunk, "Please fix the \(sentence(4))")
        default: break
        }
        let callID = "call-\(session)-\(ordinal)"
        switch random.next() % 20 {
        case 0...9 where !streams.isEmpty:
            return Self.textChunk(.agentMessageChunk, streams[session].reply.nextPiece(words: Self.words, random: &random))
        case 10...12 where !streams.isEmpty:
            return Self.textChunk(.agentThoughtChunk, streams[session].thought.nextPiece(words: Self.words, random: &random))
        case 0...9: return chunk(.agentMessageChunk, sentence(Int(3 + random.next() % 6)) + " ")
        case 10...12: return chunk(.agentThoughtChunk, "Considering \(sentence(4)).")
        case 13...14:
            return Self.tagged(.toolCall, #""\#(UpdateKind.toolCall.rawValue)":{"call_id":"\#(callID)","name":"Bash","arguments":{"command":"swift test --filter \#(sentence(1))"}}"#)
        case 15...16:
            return Self.tagged(.toolCallUpdate, #""\#(UpdateKind.toolCallUpdate.rawValue)":{"call_id":"call-\#(session)-\#(ordinal - 1)","status":"completed","output":{"stdout":"\#(sentence(5))"}}"#)
        case 17:
            return Self.tagged(.plan, #""\#(UpdateKind.plan.rawValue)":{"entries":[{"content":"\#(sentence(3))","priority":"high","status":"in_progress"},{"content":"\#(sentence(3))","priority":"medium","status":"pending"}]}"#)
        case 18: return chunk(.userMessageChunk, "And also \(sentence(5))")
        default: return Self.tagged(.availableCommandsUpdate, #""available_commands":[{"name":"review","description":"Review the diff"}]"#)
        }
    }

    /// An update of `kind` with `fields` (JSON members) after its tag.
    static func tagged(_ kind: UpdateKind, _ fields: String) -> String {
        #"{"sessionUpdate":"\#(kind.rawValue)",\#(fields)}"#
    }

    /// A chunk of `text` (quoted and escaped here).
    static func textChunk(_ kind: UpdateKind, _ text: String) -> String {
        quotedChunk(kind, String(decoding: JSONWriter.bytes(of: .string(text)), as: UTF8.self))
    }

    /// A chunk whose text is `quoted`, a JSON string.
    static func quotedChunk(_ kind: UpdateKind, _ quoted: String) -> String {
        tagged(kind, #""content":{"content":{"type":"text","text":\#(quoted)}}"#)
    }
}

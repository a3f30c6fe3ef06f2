import MirrorStore
import ToolSupport

/// A deterministic stream of synthetic events for the store: `count` events over `sessions` sessions, with ≈150-byte
/// updates. Session 0 gets 5% of all events and session 1 gets 1% (a 10,000-event timeline in a
/// million), the rest spread evenly.
///
/// `streamed`: each session's turns go as a model streams them instead (`StreamedTurns`): a prompt
/// in one chunk, thinking and a reply in pieces of 2–12 characters cut anywhere, a tool call.
struct SyntheticEvents {
    let count: Int
    let sessions: Int
    let streamed: Bool
    private var random: SplitMix64
    private var nextSeq: Int64 = 1
    private var turns: [Int: StreamedTurns] = [:]

    static let words = """
        parser token build test swift bridge session timeline mirror cursor backoff socket frame reply \
        prompt agent thought plan tool call update error output stdout render export markdown search \
        index query commit rollback page sync offline outbox retry queue fixture sample desktop client \
        server notify decode encode schema migrate version reader writer lock snapshot delta refresh
        """.split(separator: " ").map(String.init)

    init(count: Int, sessions: Int, streamed: Bool = false, seed: UInt64 = 42) {
        self.count = count
        self.sessions = sessions
        self.streamed = streamed
        self.random = SplitMix64(seed: seed)
    }

    static func sessionID(_ index: Int) -> String {
        "SESSION-\(String(index, radix: 16, uppercase: true).leftPadded(to: 8))-0000-4000-8000-000000000000"
    }

    var isExhausted: Bool { nextSeq > Int64(count) }

    /// The next page of at most `size` events.
    mutating func nextPage(size: Int) -> [NewEvent] {
        var page: [NewEvent] = []
        page.reserveCapacity(size)
        while page.count < size, !isExhausted {
            page.append(nextEvent())
        }
        return page
    }

    private mutating func nextEvent() -> NewEvent {
        let seq = nextSeq
        nextSeq += 1
        let roll = Int.random(in: 0..<100, using: &random)
        let session = roll < 5 ? 0 : roll < 6 ? 1 : Int.random(in: 2..<max(sessions, 3), using: &random)
        let text: String
        let kind: String
        if streamed {
            var sessionTurns = turns[session] ?? StreamedTurns()
            (kind, text) = sessionTurns.next(random: &random)
            turns[session] = sessionTurns
        } else {
            let wordCount = Int.random(in: 6...12, using: &random)
            text = (0..<wordCount).map { _ in Self.words[Int.random(in: 0..<Self.words.count, using: &random)] }.joined(separator: " ")
            kind = roll % 4 == 0 ? "agent_thought_chunk" : "agent_message_chunk"
        }
        let json = #"{"sessionUpdate":"\#(kind)","content":{"content":{"type":"text","text":"\#(text)"}}}"#
        return NewEvent(
            sessionID: Self.sessionID(session % sessions),
            seq: seq,
            timestamp: 1_731_000_000_000 + seq * 7,
            kind: kind,
            text: text,
            updateJSON: Array(json.utf8)
        )
    }
}

/// One session's turns as a model streams them: a prompt (one chunk), thinking and a reply (each
/// 150–2,000 characters of words in pieces of 2–12 characters cut anywhere), a tool call (one
/// event), over and over.
struct StreamedTurns {
    private static let kinds = ["user_message_chunk", "agent_thought_chunk", "agent_message_chunk", "tool_call"]
    private var phase = 0
    private var pending: [Character] = []

    /// The next event's kind and text.
    mutating func next(random: inout SplitMix64) -> (kind: String, text: String) {
        if pending.isEmpty {
            phase = (phase + 1) % Self.kinds.count
            let length = phase == 1 || phase == 2 ? Int.random(in: 150...2_000, using: &random) : Int.random(in: 30...120, using: &random)
            var text = ""
            while text.count < length {
                let word = SyntheticEvents.words[Int.random(in: 0..<SyntheticEvents.words.count, using: &random)]
                text += (text.isEmpty ? word.capitalized : Int.random(in: 0..<12, using: &random) == 0 ? ". " + word.capitalized : " " + word)
            }
            pending = Array(text + ". ")
        }
        let kind = Self.kinds[phase]
        let count = kind.hasSuffix("_chunk") && kind != "user_message_chunk" ? min(pending.count, Int.random(in: 2...12, using: &random)) : pending.count
        let piece = String(pending.prefix(count))
        pending.removeFirst(count)
        return (kind, piece)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

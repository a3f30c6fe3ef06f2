import MirrorStore
import ToolSupport

/// A deterministic stream of synthetic events for the store: `count` events over `sessions` sessions, with ≈150-byte
/// updates. Session 0 gets 5% of all events and session 1 gets 1% (a 10,000-event timeline in a
/// million), the rest spread evenly.
struct SyntheticEvents {
    let count: Int
    let sessions: Int
    private var random: SplitMix64
    private var nextSeq: Int64 = 1

    static let words = """
        parser token build test swift bridge session timeline mirror cursor backoff socket frame reply \
        prompt agent thought plan tool call update error output stdout render export markdown search \
        index query commit rollback page sync offline outbox retry queue fixture sample desktop client \
        server notify decode encode schema migrate version reader writer lock snapshot delta refresh
        """.split(separator: " ").map(String.init)

    init(count: Int, sessions: Int, seed: UInt64 = 42) {
        self.count = count
        self.sessions = sessions
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
        let wordCount = Int.random(in: 6...12, using: &random)
        let text = (0..<wordCount).map { _ in Self.words[Int.random(in: 0..<Self.words.count, using: &random)] }
            .joined(separator: " ")
        let kind = roll % 4 == 0 ? "agent_thought_chunk" : "agent_message_chunk"
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

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

import Foundation
import TestSupport
import Testing
import ToolSupport
@testable import MirrorStore

/// Open messages' texts kept across writes (`OpenMessageTexts`), against everything else that
/// writes entries: idle writes, savepoints rolled back, another connection, indexing in steps,
/// timelines refetched over provisional events, rebuilds. The index checked whole against a rebuild.
@Suite("Open messages' texts kept across writes, generated", .endsWithin(.seconds(300)))
struct KeptTextsFuzzTests {
    let mirror: MirrorFixture
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    private struct Failure: Error {}

    private func check(_ label: String) throws {
        try store.catchUpStreamingEntries()
        try expectSameAsRebuilt(store, label)
    }

    @Test("streaming beside everything else that writes entries leaves the index a rebuild makes", arguments: Array(1...16) as [UInt64])
    func streamingBesideOtherWrites(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        let other = try MirrorStore(path: mirror.path, clock: mirror.clock.mirrorClock)
        let sessions = ["s0", "s1", "s2", "s3"]
        var nonce = 0
        func piece(_ session: String, provisional: Bool = false) -> NewEvent {
            nonce += 1
            return NewEvent(sessionID: session, timestamp: 1_731_000_000_000 + Int64(nonce), kind: "agent_message_chunk",
                            text: int(0...3) == 0 ? " w\(int(0...40))" : "w\(int(0...40)) ",
                            updateJSON: Array(#"{"n":\#(nonce)}"#.utf8), provisional: provisional)
        }
        func end(_ session: String) -> NewEvent {
            nonce += 1
            return NewEvent(sessionID: session, timestamp: 1_731_000_000_000 + Int64(nonce), kind: "tool_call",
                            text: "tool\(int(0...40))", updateJSON: Array(#"{"n":\#(nonce)}"#.utf8))
        }
        for step in 0..<300 {
            let session = sessions[int(0...(sessions.count - 1))]
            switch int(0...99) {
            case 0..<40:
                var events = (0..<int(1...3)).map { _ in piece(session, provisional: int(0...9) == 0) }
                if int(0...5) == 0 { events.append(end(session)) }
                mirror.clock.advance(by: Int64(int(0...200)))
                try store.appendEvents(events, history: nil, indexing: int(0...3) == 0 ? .putOff : .withCommit)
            case 40..<48:
                // A savepoint that rolls back, inside a write that goes on.
                try store.write {
                    try store.appendEvents([piece(session)], history: nil)
                    do {
                        try store.write {
                            try store.appendEvents([piece(session), piece(sessions[0])], history: nil)
                            mirror.clock.advance(by: 400)
                            try store.indexPendingSearchText()
                            throw Failure()
                        }
                    } catch is Failure {}
                    try store.appendEvents([piece(session)], history: nil)
                }
            case 48..<55:
                // Another connection writes the same sessions.
                mirror.clock.advance(by: Int64(int(0...400)))
                try other.appendEvents([piece(session)] + (int(0...3) == 0 ? [end(session)] : []), history: nil,
                                       indexing: int(0...2) == 0 ? .putOff : .withCommit)
            case 55..<65:
                // Idle writes: many transactions that touch no message.
                for _ in 0..<int(1...300) { try store.write {} }
            case 65..<75:
                mirror.clock.advance(by: Int64(int(0...500)))
                try store.indexPendingSearchText(atMost: int(1...5))
            case 75..<80:
                // A refetch: provisional events replaced, the message streaming goes on.
                let fetched = try store.timeline(sessionID: session).filter { !$0.provisional && $0.origin == .server }.map {
                    NewEvent(sessionID: session, timestamp: $0.timestamp, kind: $0.kind, text: $0.text, updateJSON: $0.updateJSON,
                             contentHash: $0.contentHash)
                } + [piece(session)]
                try store.replaceTimelineTail(sessionID: session, history: nil, with: fetched, fetchedAfterLiveEvents: true)
            case 80..<84:
                mirror.clock.advance(by: Int64(int(0...1_000)))
                try store.catchUpStreamingEntries()
            case 84..<87:
                try store.rebuildEntries()
            case 87..<90:
                try check("seed \(seed) step \(step)")
            default:
                mirror.clock.advance(by: Int64(int(0...300)))
            }
        }
        try store.indexPendingSearchText()
        try check("seed \(seed) end")
    }
}

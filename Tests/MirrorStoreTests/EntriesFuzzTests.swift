import Foundation
import TestSupport
import Testing
import ToolSupport
@testable import MirrorStore

/// A randomized mirror (appends with provisional events anywhere, local-origin events of any kind,
/// refetches whole and in parts, prompts queued and dropped, local sessions merged into server
/// ones, indexing deferred and done in small steps, many sessions streaming at once), checked
/// again and again against a rebuild of the entries from the events.
@Suite("Entries fuzz: a rebuild equals the entries derived step by step", .endsWithin(.seconds(600)))
struct EntriesFuzzTests {
    let mirror: MirrorFixture
    var clock: ManualClock { mirror.clock }
    var store: MirrorStore { mirror.store }

    init() throws {
        mirror = try MirrorFixture()
    }

    /// Seed 63 found a message left open by a restart at an event not derived yet (a merge while
    /// the server session's last events waited for indexing).
    @Test("randomized", arguments: [1, 2, 3, 4, 5, 6, 63] as [UInt64])
    func randomized(seed: UInt64) throws {
        try run(seed: seed, serverChunksInLocalSessions: false, steps: 400)
    }

    /// Local sessions also holding server-origin chunks (not what the engine writes: a session made
    /// offline holds its prompts' echoes only), whose ids then do not grow with their ordinals once
    /// merged. Seeds 101 and 130 found rows deleted from the index with the wrong text.
    @Test("randomized, server chunks in local sessions", arguments: [101, 102, 103, 130] as [UInt64])
    func randomizedServerChunksInLocal(seed: UInt64) throws {
        try run(seed: seed, serverChunksInLocalSessions: true, steps: 300)
    }

    private struct Generator {
        var random: SplitMix64
        var nonce = 0

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

        mutating func words() -> String {
            (0..<int(1...25)).map { _ in "w\(int(0...60))" }.joined(separator: " ")
        }

        mutating func event(_ session: String, kind: String, text: String, origin: EventOrigin = .server,
                            provisional: Bool = false) -> NewEvent {
            nonce += 1
            let json = #"{"sessionUpdate":"\#(kind)","n":\#(nonce),"text":"\#(text)"}"#
            return NewEvent(sessionID: session, timestamp: 1_731_000_000_000 + Int64(nonce), kind: kind, text: text,
                            updateJSON: Array(json.utf8), provisional: provisional, origin: origin)
        }

        /// A message streamed in pieces of 1–12 characters, or one event of another kind.
        mutating func turn(_ session: String, origin: EventOrigin, provisional: Bool) -> [NewEvent] {
            let kind = pick(["agent_message_chunk", "agent_message_chunk", "agent_thought_chunk", "user_message_chunk",
                             "tool_call", "tool_call_update", "tool_call_update", "plan", "current_mode_update", "empty"])
            if kind == "empty" {
                return [event(session, kind: pick(["tool_call", "current_mode_update", "tool_call_update"]), text: "",
                              origin: origin, provisional: provisional)]
            }
            let text = words() + (chance(50) ? " " : "")
            guard kind.hasSuffix("_chunk") else {
                return [event(session, kind: kind, text: text, origin: origin, provisional: provisional)]
            }
            var pieces: [NewEvent] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                let count = min(rest.count, int(1...12))
                pieces.append(event(session, kind: kind, text: String(rest.prefix(count)), origin: origin, provisional: provisional))
                rest = rest.dropFirst(count)
            }
            // A tool call's update now and then in the middle of a message.
            if pieces.count > 2 && chance(30) {
                pieces.insert(event(session, kind: "tool_call_update", text: chance(50) ? "" : words(), origin: origin,
                                    provisional: provisional), at: int(1...(pieces.count - 1)))
            }
            return pieces
        }
    }

    private func run(seed: UInt64, serverChunksInLocalSessions: Bool, steps: Int) throws {
        var gen = Generator(random: SplitMix64(seed: seed))
        var serverSessions = ["s0", "s1", "s2", "s3", "s4"]
        var localSessions: [String] = []
        var nextLocal = 0
        var pending: [NewEvent] = []
        // How writes index, as the engine would say it: changed now and then, kept meanwhile.
        var indexing = SearchIndexingMode.withCommit

        for step in 0..<steps {
            switch gen.int(0...99) {
            case 0..<45:
                // Events of server sessions (provisional ones anywhere), some local-origin.
                let session = gen.pick(serverSessions)
                let origin: EventOrigin = gen.chance(8) ? .local : .server
                pending += gen.turn(session, origin: origin, provisional: origin == .server && gen.chance(20))
                if gen.chance(35) {
                    indexing = gen.chance(40) ? .putOff : .withCommit
                    clock.advance(by: Int64(gen.int(0...700)))
                    try store.appendEvents(pending, indexing: indexing)
                    pending = []
                }
            case 45..<52:
                // A refetch of a session's timeline, whole or in parts.
                try store.appendEvents(pending, indexing: indexing)
                pending = []
                let session = gen.pick(serverSessions)
                let fetched = try fetch(session, &gen)
                if gen.chance(50) {
                    try store.replaceTimelineTail(sessionID: session, history: nil, with: fetched,
                                                  fetchedAfterLiveEvents: gen.chance(50), indexing: indexing)
                } else {
                    var merge = try store.beginTimelineMerge(sessionID: session, history: nil, fetchedAfterLiveEvents: gen.chance(50),
                                                             indexing: indexing)
                    var rest = fetched[...]
                    while !rest.isEmpty {
                        let count = min(rest.count, gen.int(1...6))
                        try store.mergeTimelinePart(Array(rest.prefix(count)), into: &merge)
                        rest = rest.dropFirst(count)
                    }
                    try store.finishTimelineMerge(merge, watermark: nil)
                }
            case 52..<58:
                // A prompt queued (its echo local), in a server or a local session.
                try store.appendEvents(pending, indexing: indexing)
                pending = []
                let session = localSessions.isEmpty || gen.chance(50) ? gen.pick(serverSessions) : gen.pick(localSessions)
                if try store.session(id: session) == nil { break }
                gen.nonce += 1
                let text = "prompt \(gen.words())"
                try store.enqueuePrompt(sessionID: session, text: text, clientMessageID: "c\(gen.nonce)",
                                        localEcho: gen.event(session, kind: "user_message_chunk", text: text))
            case 58..<62:
                // A queued prompt dropped: its echo deleted, perhaps in the middle of a timeline.
                let queued = try store.outboxItems(in: [.queued])
                if queued.isEmpty { break }
                try store.dropOutboxItem(id: gen.pick(queued).id)
            case 62..<66:
                // A session made offline, with events of its own.
                let session = "l\(nextLocal)"
                nextLocal += 1
                try store.createLocalSession(id: session)
                localSessions.append(session)
                for _ in 0..<gen.int(0...3) {
                    gen.nonce += 1
                    let text = "local \(gen.words())"
                    try store.enqueuePrompt(sessionID: session, text: text, clientMessageID: "c\(gen.nonce)",
                                            localEcho: gen.event(session, kind: "user_message_chunk", text: text))
                    if serverChunksInLocalSessions {
                        indexing = gen.chance(40) ? .putOff : .withCommit
                        try store.appendEvents(gen.turn(session, origin: gen.chance(20) ? .local : .server, provisional: false), indexing: indexing)
                    }
                }
            case 66..<71:
                // A local session merged into a server session (its updates came first), or renamed.
                guard !localSessions.isEmpty else { break }
                try store.appendEvents(pending, indexing: indexing)
                pending = []
                let local = localSessions.remove(at: gen.int(0...(localSessions.count - 1)))
                if gen.chance(75) {
                    try store.remapSession(localID: local, to: gen.pick(serverSessions))
                } else {
                    let renamed = "r\(local)"
                    try store.remapSession(localID: local, to: renamed)
                    serverSessions.append(renamed)
                }
            case 71..<78:
                // Indexing in small steps, as a tick or a catch-up's commit does.
                clock.advance(by: Int64(gen.int(0...500)))
                try store.indexPendingSearchText(atMost: gen.int(1...40))
            case 78..<81:
                // Many sessions streaming at once (a catch-up's pass: their open messages lag).
                var wide: [NewEvent] = []
                let kind = gen.pick(["agent_message_chunk", "agent_thought_chunk"])
                for index in 0...EntryWriter.manyOpenMessages + 2 {
                    wide.append(gen.event("w\(index)", kind: kind, text: gen.chance(30) ? " w\(gen.int(0...60))" : "w\(gen.int(0...60)) "))
                    if gen.chance(10) { wide.append(gen.event("w\(index)", kind: "tool_call", text: gen.words())) }
                }
                indexing = gen.chance(30) ? .putOff : .withCommit
                clock.advance(by: Int64(gen.int(0...400)))
                try store.appendEvents(pending + wide, indexing: indexing)
                pending = []
            case 81..<84:
                clock.advance(by: Int64(gen.int(0...1_000)))
                if gen.chance(50) { try store.catchUpStreamingEntries() } else { try store.mergeSearchIndex() }
            case 84..<86:
                try check(seed: seed, step: step, indexEverything: false)
            default:
                clock.advance(by: Int64(gen.int(0...300)))
            }
        }
        try store.appendEvents(pending, indexing: indexing)
        try check(seed: seed, step: steps, indexEverything: false)
        try check(seed: seed, step: steps, indexEverything: true)
    }

    /// The fetch of a session's timeline: its server events, some provisional ones confirmed,
    /// some confirmed ones gone, new ones anywhere.
    private func fetch(_ session: String, _ gen: inout Generator) throws -> [NewEvent] {
        var fetched: [NewEvent] = []
        for event in try store.timeline(sessionID: session) where event.origin == .server {
            if event.provisional ? gen.chance(50) : !gen.chance(3) {
                fetched.append(NewEvent(sessionID: session, timestamp: event.timestamp, kind: event.kind, text: event.text,
                                        updateJSON: event.updateJSON, contentHash: event.contentHash))
            }
            if gen.chance(3) { fetched += gen.turn(session, origin: .server, provisional: false) }
        }
        if gen.chance(60) { fetched += gen.turn(session, origin: .server, provisional: false) }
        return fetched
    }

    /// Brings lagging rows up to date, then holds the entries and the index equal to a rebuild's,
    /// messages apart and one open message at most per session, and the index whole.
    private func check(seed: UInt64, step: Int, indexEverything: Bool) throws {
        if indexEverything {
            try store.indexPendingSearchText()
        }
        try store.catchUpStreamingEntries()
        let overlapping = try store.database.query(
            """
            SELECT entry_id FROM (SELECT entry_id, first_ordinal,
                lag(last_ordinal) OVER (PARTITION BY session_no ORDER BY first_ordinal) AS previous FROM entries
                WHERE \(EntryWriter.isChunkSQL))
            WHERE first_ordinal <= previous
            """
        ) { $0.int64(0) }
        #expect(overlapping.isEmpty, "seed \(seed) step \(step): overlapping messages \(overlapping)")
        let twiceOpen = try store.database.query(
            "SELECT session_no FROM entries WHERE open = 1 GROUP BY session_no HAVING count(*) > 1"
        ) { $0.int64(0) }
        #expect(twiceOpen.isEmpty, "seed \(seed) step \(step): sessions with two open messages \(twiceOpen)")
        try expectSameAsRebuilt(store, "seed \(seed) step \(step)")
    }
}

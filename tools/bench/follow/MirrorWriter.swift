import Foundation
import MirrorStore

/// The benchmark's side of the mirror: it writes as oa-sync's live path does, each update in a
/// write transaction of its own (`appendEvents` of one event), with a `WALCheckpointer` beside
/// it as oa-sync has, and notes when each commit returned.
final class MirrorWriter {
    let store: MirrorStore
    /// The seeded sessions' ids, distinct in their first 8 characters (the short id).
    let sessions: [String]
    private let checkpointer: WALCheckpointer
    private var nextSeq: Int64 = 1
    /// The one history the benchmark's events come from.
    private let history: HistoryKey

    /// Creates the mirror at `path` and seeds `sessions` sessions of `eventsPerSession` messages.
    init(path: String, sessions count: Int, eventsPerSession: Int) throws {
        store = try MirrorStore(path: path)
        // Ids that sort and read well, and differ in their first 8 characters.
        sessions = (0..<count).map { "bench" + String(String($0 + 1000).suffix(3)) + "-follow-session" }
        checkpointer = WALCheckpointer(path: path)
        history = try store.createHistory(identity: .bridge, historyID: "follow-bench", desktop: "bench", bridgeURL: nil).key
        // In pages of 5,000, the sessions' events interleaved, as a catch-up writes them.
        let seed = (0..<eventsPerSession).flatMap { number in sessions.map { (number, $0) } }
        for start in stride(from: 0, to: seed.count, by: 5000) {
            try store.appendEvents(seed[start..<min(seed.count, start + 5000)].map { number, session in
                makeEvent(session: session, text: number % 10 == 9 ? "Seeded message \(number).\n" : "seeded chunk \(number) ")
            }, history: history)
        }
    }

    deinit {
        checkpointer.stop()
    }

    /// Commits one event with `marker` as its text to `session`; returns when the commit returned.
    @discardableResult
    func commit(_ marker: Marker, session: String) throws -> ContinuousClock.Instant {
        try store.appendEvents([makeEvent(session: session, text: marker.text)], history: history)
        return .now
    }

    /// Commits `markers` in one transaction, each to its session; returns when the commit returned.
    @discardableResult
    func commit(_ markers: [(Marker, String)]) throws -> ContinuousClock.Instant {
        try store.appendEvents(markers.map { makeEvent(session: $0.1, text: $0.0.text) }, history: history)
        return .now
    }

    /// A live agent message chunk, as oa-sync writes one: the bridge's update JSON, its kind and
    /// text, the next seq, provisional until a timeline fetch confirms it.
    private func makeEvent(session: String, text: String) -> NewEvent {
        let escaped = text.replacingOccurrences(of: "\n", with: "\\n")
        let json = #"{"sessionUpdate":"agent_message_chunk","content":{"content":{"type":"text","text":"\#(escaped)"}}}"#
        defer { nextSeq += 1 }
        return NewEvent(
            sessionID: session, seq: nextSeq, timestamp: Int64(Date().timeIntervalSince1970 * 1000),
            kind: "agent_message_chunk", text: text, updateJSON: Array(json.utf8), provisional: true
        )
    }
}

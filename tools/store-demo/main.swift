import ArgumentParser
import Foundation
import MirrorStore

/// Fills a mirror from a desktop history database and shows what the mirror store can answer.
///
/// A stand-in for the sync engine until it exists: it reads the desktop's `acp_events` table
/// directly (as the stock bridge's sessionTimeline would serve it) instead of over the bridge.
struct StoreDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-store-demo",
        abstract: "Mirror a desktop history database into a new mirror file and browse it.",
        discussion: """
            Example: oa-store-demo --desktop-db Tests/Fixtures/stock/tinyvex-sample.sqlite --mirror /tmp/mirror.sqlite
            """
    )

    @Option(help: "A desktop history database (the stock acp_events layout).")
    var desktopDb: String

    @Option(help: "The mirror file to fill (created if missing).")
    var mirror: String

    @Option(help: "A word to search for.")
    var search = "tests"

    func run() throws {
        let desktop = try Database(path: desktopDb, mode: .readOnly)
        let store = try MirrorStore(path: mirror)
        let rows = try desktop.query("SELECT session_id, ts, update_json FROM acp_events ORDER BY ts, event_id") {
            (session: $0.string(0), ts: $0.int64(1), json: $0.bytes(2))
        }
        let titles = try desktop.query("SELECT session_id, title FROM conversation_titles") { ($0.string(0), $0.string(1)) }
        let titleBySession = Dictionary(titles, uniquingKeysWith: { first, _ in first })

        var records: [SessionRecord] = []
        for (sessionID, events) in Dictionary(grouping: rows, by: \.session).sorted(by: { $0.key < $1.key }) {
            let timeline = events.map { row -> NewEvent in
                let (kind, text) = DemoUpdateReader.kindAndText(row.json)
                return NewEvent(sessionID: sessionID, timestamp: row.ts, kind: kind, text: text, updateJSON: row.json)
            }
            let lastTS = events.map(\.ts).max() ?? 0
            try store.replaceTimelineTail(
                sessionID: sessionID,
                with: timeline,
                watermark: SessionWatermark(lastTS: lastTS, messageCount: Int64(events.count))
            )
            let mode = events.compactMap { DemoUpdateReader.mode($0.json) }.last
            records.append(SessionRecord(sessionID: sessionID, title: titleBySession[sessionID], mode: mode, lastTS: lastTS))
        }
        try store.upsertSessions(records)
        try store.setStatus([SyncStatusKey.connectionState: "offline (demo import)", SyncStatusKey.bridgeURL: "none"])

        print("Mirrored \(rows.count) events of \(records.count) sessions from \(desktopDb) into \(mirror)\n")
        print(pad("SESSION", 10) + pad("MODE", 13) + pad("EVENTS", 8) + "LAST ACTIVITY (UTC)")
        for session in try store.sessions() {
            print(pad(String(session.sessionID.prefix(8)), 10) + pad(session.mode ?? "-", 13)
                  + pad(String(session.localEventCount), 8) + iso8601(session.lastTS))
        }

        print("\nSearch \"\(search)\" (most recently mirrored first):")
        for hit in try store.search(search, limit: 5) {
            print("  \(hit.sessionID.prefix(8)) #\(hit.ordinal) \(hit.kind): \(hit.snippet)")
        }

        if let newest = try store.sessions(limit: 1).first {
            let item = try store.enqueuePrompt(
                sessionID: newest.sessionID,
                text: "Run the tests again",
                clientMessageID: UUID().uuidString
            )
            print("\nQueued offline for \(newest.sessionID.prefix(8)): \"\(item.text)\" (outbox item \(item.id), \(item.state.rawValue))")
        }
        let counts = try store.counts()
        print("\nThe mirror holds \(counts.sessions) sessions, \(counts.events) events, \(counts.outbox[.queued] ?? 0) queued prompt(s).")
        print("Look inside with: sqlite3 \(mirror) 'SELECT session_id, ordinal, kind, text FROM events LIMIT 10'")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func iso8601(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "-" }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }
}

/// The little the demo needs from an update's JSON. The bridge layer will own the real reader.
enum DemoUpdateReader {
    static func kindAndText(_ json: [UInt8]) -> (kind: String, text: String) {
        guard let update = object(json) else { return ("unknown", "") }
        let kind = update["sessionUpdate"] as? String ?? "unknown"
        let content = (update["content"] as? [String: Any])?["content"] as? [String: Any]
        return (kind, content?["text"] as? String ?? "")
    }

    static func mode(_ json: [UInt8]) -> String? {
        object(json)?["current_mode_id"] as? String
    }

    private static func object(_ json: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any]
    }
}

StoreDemo.main()

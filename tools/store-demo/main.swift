import ArgumentParser
import Foundation
import MirrorStore

/// Shows what a mirror holds: a stand-in for oa-repl until it exists.
struct StoreDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-store-demo",
        abstract: "Print a mirror's sessions, a full-text search and its outbox.",
        discussion: "Example: oa-store-demo --mirror .demo/mirror.sqlite --search tests"
    )

    @Option(help: "The mirror file.")
    var mirror: String

    @Option(help: "A word to search for.")
    var search = "tests"

    @Option(help: "Queue this prompt for the most recent session (the next oa-sync delivers it).")
    var queuePrompt: String?

    func run() throws {
        let store = try MirrorStore(path: mirror, mode: queuePrompt == nil ? .readOnly : .readWrite)
        print(pad("SESSION", 10) + pad("MODE", 13) + pad("EVENTS", 8) + pad("LAST ACTIVITY (UTC)", 22) + "TITLE")
        for session in try store.sessions() {
            print(pad(String(session.sessionID.prefix(8)), 10) + pad(session.mode ?? "-", 13)
                  + pad(String(session.localEventCount), 8) + pad(iso8601(session.lastTS), 22) + (session.title ?? ""))
        }
        print("\nSearch \"\(search)\", most recently mirrored first:")
        for hit in try store.search(search, limit: 5) {
            print("  \(hit.sessionID.prefix(8)) #\(hit.ordinal) \(hit.kind): \(hit.snippet)")
        }
        if let queuePrompt, let newest = try store.sessions(limit: 1).first {
            let item = try store.enqueuePrompt(sessionID: newest.sessionID, text: queuePrompt, clientMessageID: UUID().uuidString)
            print("\nQueued for \(newest.sessionID.prefix(8)): \"\(item.text)\" (outbox item \(item.id))")
        }
        let outbox = try store.outboxItems()
        if !outbox.isEmpty {
            print("\nOutbox:")
            for item in outbox { print("  \(item.id) \(item.state.rawValue) \(item.sessionID.prefix(8)) \"\(item.text)\"") }
        }
        let counts = try store.counts()
        let status = try store.status()
        print("\n\(counts.sessions) sessions, \(counts.events) events, \(counts.threads) threads; "
              + "last sync with \(status[SyncStatusKey.bridgeURL]?.value ?? "no bridge yet").")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func iso8601(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "-" }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }
}

StoreDemo.main()

import Foundation
import MirrorStore
import ToolSupport

/// The same rows as the store's ingest, inserted by the `sqlite3` command-line shell in one
/// transaction with multi-row INSERTs: the physical limit of SQLite on this machine.
struct ShellIngest {
    let directory: URL
    let events: Int
    let sessions: Int
    let pageSize: Int
    let streamed: Bool

    /// Writes the SQL script once; returns its path.
    func writeScript() throws -> URL {
        let url = directory.appending(path: "ingest.sql")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)  // the handle below says why, if it failed
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let now = 1_731_000_000_000
        var history = SyntheticEvents(count: events, sessions: sessions, streamed: streamed)
        var ordinals: [String: Int64] = [:]
        var lastTS: [String: Int64] = [:]
        var messages = ShellMessages()
        try handle.write(contentsOf: Data("PRAGMA synchronous = NORMAL;\nPRAGMA foreign_keys = ON;\nPRAGMA cache_size = -32768;\nBEGIN;\n".utf8))
        var sessionRows: [String] = []
        var sessionNumbers: [String: Int] = [:]
        for index in 0..<sessions {
            sessionNumbers[SyntheticEvents.sessionID(index)] = index + 1
            sessionRows.append("(\(index + 1), '\(SyntheticEvents.sessionID(index))', \(now), \(now))")
        }
        try handle.write(contentsOf: Data(
            "INSERT INTO sessions (session_no, session_id, first_seen_at, last_seen_at) VALUES \(sessionRows.joined(separator: ","));\n".utf8
        ))
        while !history.isExhausted {
            let page = history.nextPage(size: pageSize)
            var rows: [String] = []
            rows.reserveCapacity(page.count)
            for event in page {
                let ordinal = ordinals[event.sessionID, default: 0]
                ordinals[event.sessionID] = ordinal + 1
                lastTS[event.sessionID] = event.timestamp
                messages.add(event, sessionNo: sessionNumbers[event.sessionID] ?? 0, ordinal: ordinal)
                let json = String(decoding: event.updateJSON, as: UTF8.self)
                rows.append(
                    "(\(sessionNumbers[event.sessionID] ?? 0),\(ordinal),\(event.seq ?? 0),\(event.timestamp ?? 0),'\(quoted(event.kind))',"
                        + "'\(quoted(event.text))','\(quoted(json))',\(event.contentHash.rawValue),0,'server',\(event.seq ?? 0))"
                )
            }
            // The full-text index is fed per transaction, as the store does, with the messages that
            // ended (each written once: the store rewrites one still streaming now and then).
            let sql = "INSERT INTO events (session_no, ordinal, seq, ts, kind, text, update_json, content_hash, provisional, origin, event_id) VALUES "
                + rows.joined(separator: ",\n") + ";\n"
                + messages.takeEndedSQL()
                + "INSERT INTO search_spans (first_event_id, last_event_id, oldest_ts, newest_ts) SELECT min(event_id), max(event_id), min(ts), max(ts) "
                + "FROM events WHERE event_id BETWEEN \(page.first?.seq ?? 0) AND \(page.last?.seq ?? 0);\n"
                + "INSERT INTO histories (history_no, identity, history_id, desktop, cursor, first_seen_at) "
                + "VALUES (1, 'bridge', 'shell', 'bench', \(page.last?.seq ?? 0), \(now)) "
                + "ON CONFLICT (history_no) DO UPDATE SET cursor = excluded.cursor;\n"
            try handle.write(contentsOf: Data(sql.utf8))
        }
        messages.endAll()
        var updates = messages.takeEndedSQL()
        for (session, count) in ordinals.sorted(by: { $0.key < $1.key }) {
            updates += "UPDATE sessions SET local_event_count = \(count), last_ts = \(lastTS[session] ?? 0) WHERE session_id = '\(session)';\n"
        }
        updates += "INSERT INTO counters (name, value) VALUES ('event_id', \(events)), ('search_indexed', \(events)) "
            + "ON CONFLICT (name) DO UPDATE SET value = excluded.value;\n"
        try handle.write(contentsOf: Data((updates + "COMMIT;\n").utf8))
        return url
    }

    /// Creates a database with `migrations` (untimed), then times the shell running `script` on it.
    func run(script: URL, migrations: [Migration], name: String) throws -> Duration {
        let database = directory.appending(path: name).path
        try shell(database: database, input: .string("PRAGMA journal_mode = WAL;\n" + migrations.map(\.sql).joined(separator: "\n")))
        return try ContinuousClock().measure {
            try shell(database: database, input: .file(script))
        }
    }

    private enum Input {
        case string(String)
        case file(URL)
    }

    private func shell(database: String, input: Input) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-bail", database]
        process.standardOutput = FileHandle.nullDevice
        switch input {
        case .file(let url):
            process.standardInput = try FileHandle(forReadingFrom: url)
            try process.run()
        case .string(let text):
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(text.utf8))
            try pipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("sqlite3 exited with status \(process.terminationStatus) on \(database)")
        }
    }

    private func quoted(_ text: String) -> String {
        text.replacing("'", with: "''")
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The messages of the shell's ingest, joined as the store joins a session's consecutive chunks of
/// one kind (`schema/0012_entries.sql`), every other event an entry alone, and written as SQL once
/// each ends.
struct ShellMessages {
    private struct Message {
        var id: Int64
        var sessionNo: Int
        var kind: String
        var firstOrdinal: Int64
        var lastOrdinal: Int64
        var lastID: Int64
        var events = 1
        var text: String
        var timestamp: Int64?
        /// An event that is an entry alone: a row of `single_entries`, not of `entries`.
        var single = false
    }

    private var open: [Int: Message] = [:]
    private var ended: [Message] = []

    mutating func add(_ event: NewEvent, sessionNo: Int, ordinal: Int64) {
        let id = event.seq ?? 0
        guard event.kind.hasSuffix("_chunk") else {
            // An entry alone (the streamed history's tool calls).
            if let message = open.removeValue(forKey: sessionNo) { ended.append(message) }
            ended.append(Message(id: id, sessionNo: sessionNo, kind: event.kind, firstOrdinal: ordinal, lastOrdinal: ordinal,
                                 lastID: id, text: event.text, timestamp: event.timestamp, single: true))
            return
        }
        if var message = open[sessionNo], message.kind == event.kind, message.text.utf8.count < 64 * 1024 {
            message.lastOrdinal = ordinal
            message.lastID = id
            message.events += 1
            message.text += event.text
            open[sessionNo] = message
        } else {
            if let message = open[sessionNo] { ended.append(message) }
            open[sessionNo] = Message(id: id, sessionNo: sessionNo, kind: event.kind, firstOrdinal: ordinal, lastOrdinal: ordinal,
                                      lastID: id, text: event.text, timestamp: event.timestamp)
        }
    }

    mutating func endAll() {
        ended += open.values.sorted { $0.id < $1.id }
        open = [:]
    }

    /// The rows of `entries`, `single_entries` and `entries_fts` of the messages ended since the last call.
    mutating func takeEndedSQL() -> String {
        defer { ended = [] }
        guard !ended.isEmpty else { return "" }
        func hash(_ message: Message) -> Int64 { ContentHash(of: Array(message.kind.utf8) + [0] + Array(message.text.utf8)).rawValue }
        let entries = ended.filter { !$0.single }.map { message in
            "(\(message.id),\(message.sessionNo),'\(message.kind)','server',\(message.firstOrdinal),\(message.lastOrdinal),"
                + "\(message.lastID),\(message.events),\(message.text.utf8.count),0,\(message.events),0,\(hash(message)),\(message.timestamp ?? 0))"
        }
        let singles = ended.filter(\.single).map { message in
            "(\(message.id),\(message.text.utf8.count),\(hash(message)),\(message.timestamp ?? 0))"
        }
        let index = ended.map { message in
            let kind = "k" + message.kind.utf8.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
            return "(\(message.id),'\(message.text.replacing("'", with: "''"))','\(kind)','s\(message.sessionNo)')"
        }
        return (entries.isEmpty ? "" : "INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length, "
            + "open, indexed_events, indexed_at, text_hash, ts) VALUES " + entries.joined(separator: ",") + ";\n")
            + (singles.isEmpty ? "" : "INSERT INTO single_entries (event_id, length, text_hash, ts) VALUES " + singles.joined(separator: ",") + ";\n")
            + "INSERT INTO entries_fts (rowid, text, kind, session) VALUES " + index.joined(separator: ",") + ";\n"
    }
}

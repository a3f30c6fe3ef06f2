import Bridge
import Foundation
import FrontEndSupport
import MirrorStore
import Primitives
import Testing
import TestSupport
import ToolSupport

/// `secrets` scans lazily: the first report scans every event, the next only those mirrored
/// since (a watermark in the mirror), and other rules scan everything again. On a mirror of
/// ordinary agent text with a few planted secrets; the times are printed.
@Suite("the secrets report's lazy scan", .startsPrograms(endsWithin: .seconds(300)))
struct SecretScanTests {
    static let events = 8_000

    func chunk(_ session: String, _ text: String, time: Int64) -> NewEvent {
        let json: JSONValue = ["sessionUpdate": "agent_message_chunk", "content": ["content": ["type": "text", "text": .string(text)]]]
        return NewEvent(sessionID: session, timestamp: time, kind: "agent_message_chunk", text: text, updateJSON: JSONWriter.bytes(of: json))
    }

    /// A tool's output: not a chunk, so the corpus's texts are not read as one message.
    func output(_ session: String, _ text: String, time: Int64) -> NewEvent {
        let json: JSONValue = ["sessionUpdate": "tool_call_update", "tool_call_update": ["call_id": .string("call-\(time)"), "status": "completed",
                                                                                         "output": ["stdout": .string(text)]]]
        return NewEvent(sessionID: session, timestamp: time, kind: "tool_call_update", text: text, updateJSON: JSONWriter.bytes(of: json))
    }

    /// Runs oa-repl with `arguments` under bash's `time`, which measures the program itself: a
    /// clock read in this process would also count how long its task waited for a thread of the
    /// pool, which a parallel run of the tests keeps busy.
    func timed(_ arguments: [String], environment: [String: String], in directory: TemporaryDirectory) async throws -> (ProgramRun.Outcome, Double) {
        let timeFile = directory.path("time-\(UUID().uuidString)")
        let script = #"TIMEFORMAT=%R; { time "$0" "$@" 2>&3; } 3>&2 2>"$OA_TIME_FILE""#
        let outcome = try await ProgramRun.run(URL(fileURLWithPath: "/bin/bash"),
                                               ["-c", script, BuildProducts.executable("oa-repl").path] + arguments,
                                               environment: environment.merging(["OA_TIME_FILE": timeFile]) { _, new in new })
        let seconds = Double((try? String(contentsOfFile: timeFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        return (outcome, try #require(seconds, "bash's time wrote the run's seconds"))
    }

    @Test("the first report scans everything, the next only what is new")
    func lazyScan() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("scan.sqlite")
        let store = try MirrorStore(path: path)
        let sessions = (0..<20).map { String(format: "5CA40000-0000-4000-8000-%012d", $0) }
        try store.upsertSessions(sessions.map { SessionRecord(sessionID: $0, title: "Session \($0.prefix(8))", lastTS: 1_730_000_000_000) })
        let corpus = OrdinaryAgentText.corpus(count: 2000)
        var events: [NewEvent] = []
        for index in 0..<Self.events {
            let session = sessions[index % sessions.count], time = 1_730_000_000_000 + Int64(index)
            events.append(index % 2_000 == 5 ? chunk(session, PlantedSecrets.all[index / 2_000].line, time: time)
                                              : output(session, corpus[index % corpus.count], time: time))
        }
        for page in stride(from: 0, to: events.count, by: 5000) { try store.appendEvents(Array(events[page..<min(page + 5000, events.count)])) }
        let environment = ["XDG_CONFIG_HOME": directory.path("config")]
        let arguments = ["--db", path, "--mode", "json", "-c", "secrets"]
        func report() async throws -> ProgramRun.Outcome {
            try await InProcessShell.run(mirror: path, commands: ["secrets"], mode: .json, environment: environment)
        }
        let (first, firstSeconds) = try await timed(arguments, environment: environment, in: directory)
        #expect(first.status == 0, "\(first.standardError)")
        let found = try JSONParser.parse(first.standardOutput).arrayValue ?? []
        #expect(Set(found.compactMap { $0["kind"]?.stringValue }) == Set(PlantedSecrets.all.prefix(4).map(\.kind)))
        // An event already scanned is given a secret behind the report's back: the next report
        // does not read it again, so it does not see it (until the rules change, below).
        let planted = PlantedSecrets.all[8]
        let scanned = try #require(store.events(afterEventID: 0, limit: 1).first?.eventID)
        // The mirror refuses to change an indexed event under its entries: its guard goes first.
        try store.database.execute("DROP TRIGGER events_indexed_update")
        try store.database.run("UPDATE events SET text = ?, update_json = ? WHERE event_id = ?",
                               [planted.line, String(decoding: output(sessions[0], planted.line, time: 0).updateJSON, as: UTF8.self), scanned])
        let (second, secondSeconds) = try await timed(arguments, environment: environment, in: directory)
        #expect(second.standardOutput == first.standardOutput, "events already scanned are not scanned again")
        print("secrets: first report (scanning \(Self.events) events) \(String(format: "%.2f", firstSeconds)) s, "
            + "\(String(format: "%.0f", Double(Self.events) / firstSeconds)) events/s; the next \(String(format: "%.2f", secondSeconds)) s")

        // New events are scanned on the next report; other rules scan everything again.
        let extra = PlantedSecrets.all[6]
        try store.appendEvents([chunk(sessions[0], extra.line, time: 1_740_000_000_000)])
        let third = try JSONParser.parse(try await report().standardOutput).arrayValue ?? []
        #expect(third.count == found.count + 1)
        #expect(third.first?["kind"]?.stringValue == extra.kind, "the most recently seen first")
        try FileManager.default.createDirectory(atPath: directory.path("config/openagents"), withIntermediateDirectories: true)
        try Data(#"{"disable": ["aws_access_key"]}"#.utf8).write(to: URL(fileURLWithPath: directory.path("config/openagents/secrets.json")))
        let fourth = try JSONParser.parse(try await report().standardOutput).arrayValue ?? []
        // The AWS key is still found, as the value of a name holding "access_key".
        #expect(!fourth.contains { $0["kind"]?.stringValue == "aws_access_key" })
        #expect(fourth.contains { $0["kind"]?.stringValue == "password" })
        #expect(fourth.contains { $0["kind"]?.stringValue == planted.kind }, "other rules scan everything again")
    }
}

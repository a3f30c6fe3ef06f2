import Foundation
import FrontEndSupport
import Testing
import TestSupport

/// Search filters and `show --at` in the three front ends (-c, a script, JSON lines), over a mirror
/// of the sample desktop history, against golden files (UPDATE_GOLDEN=1 rewrites them).
@Suite("oa-repl: search filters and show --at", .startsPrograms(endsWithin: .seconds(120)))
struct SearchContextGoldenTests {
    /// Commands that succeed, then the ones that fail (a script stops at the first of those).
    static let script = [
        "search the --limit 5", "search flaky --session db5b", "search the --kind user_message_chunk --limit 4",
        "search the --since 2024-11-08 --limit 5", "search the --until 2024-11-07T18:00Z --limit 5",
        "search the --since 2024-11-07T20:00:00+01:00 --until 2024-11-07 --limit 5",
        "search sources --session 798c --kind tool_call", "search the --kind no_such_kind",
        "show 798c --at 12 --context 1", "show 798c --at 0 --context 0", "show 798c --at 35", "show 798c --at 20 --raw --context 0",
        "show 798c --at 999", "show 798c --context 2", "search the --since yesterday", "search the --until 2024-13-01",
        "search the --since 2024-11-08 --until 2024-11-07", "search the --session zzzz", "search the --session 9",
    ]

    @Test("each with -c")
    func commandLine() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        var transcript = ""
        for command in Self.script {
            let outcome = try await InProcessShell.run(mirror: mirror, commands: [command])
            transcript += "$ oa-repl -c '\(command)'  → exit \(outcome.status)\n\(outcome.standardOutput)"
            if !outcome.standardError.isEmpty { transcript += "stderr: \(outcome.standardError)" }
            transcript += "\n"
        }
        try expectGolden(transcript, "search-context-command-line.txt")
    }

    @Test("as a script, in JSON output mode: stops at the first failure")
    func script() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let input = ([".mode json"] + Self.script).joined(separator: "\n") + "\n"
        let outcome = try await InProcessShell.run(mirror: mirror, script: input)
        #expect(outcome.status == 1)
        #expect(outcome.standardError.hasPrefix("error: session 798C06FE-0494-B6D2-EC70-38C908FB09A0 has no event at ordinal 999"))
        try expectGolden(outcome.standardOutput, "search-context-script.txt")
    }

    @Test("the same params in the JSON-lines mode")
    func jsonLines() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"flaky","session_id":"db5b"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"search","params":{"query":"the","kind":"user_message_chunk","limit":3}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"search","params":{"query":"the","since":"2024-11-08","until":"2024-11-08T03:00:00.000Z","limit":3}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"sessions.show","params":{"session_id":"798c","at":12,"context":1}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"sessions.show","params":{"session_id":"798c","at":20,"context":0,"raw":true}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"sessions.show","params":{"session_id":"798c","at":"12"}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"sessions.show","params":{"session_id":"798c","at":-1}}"#,
            #"{"jsonrpc":"2.0","id":8,"method":"search","params":{"query":"the","since":"last week"}}"#,
            #"{"jsonrpc":"2.0","id":9,"method":"search","params":{"query":"the","session_id":"nope"}}"#,
            #"{"jsonrpc":"2.0","id":10,"method":"search","params":{"query":"the","kind":7}}"#,
        ]
        let outcome = try await InProcessJSONLines.run(mirror: mirror, input: requests.joined(separator: "\n") + "\n")
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.split(separator: "\n").count == requests.count)
        try expectGolden(outcome.standardOutput, "search-context-json-lines.txt")
    }
}

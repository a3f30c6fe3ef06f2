import Foundation
import FrontEndSupport
import Testing
import TestSupport

/// Every command in every front end, over a mirror of the sample desktop history, against golden
/// files. Run with UPDATE_GOLDEN=1 to rewrite them after a deliberate change, then read the diff.
@Suite("oa-repl golden outputs", .startsPrograms(endsWithin: .seconds(120)))
struct GoldenTests {
    /// The commands of the text front ends, in an order whose writes do not disturb later reads.
    static let script = [
        "help", "help show", "threads --limit 3", "sessions", "sessions --limit 2 --offset 10",
        "show 798c", "show 798c --raw", "show 6410", "search flaky", "search \"tests pass\" --limit 3", "search nothing-like-this",
        "prompt 909c Please run the tests again", "prompt new Start a fresh session", "outbox",
        "outbox drop 2", "outbox", "export 798c", "status", "show 9", "show zzzz", "search", "bogus", "outbox retry 99",
        "sessions --limit x", ".mode json", "sessions --limit 1", ".mode markdown", "sessions --limit 2", "methods",
    ]

    @Test("each command with -c, in table mode")
    func commandLine() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        var transcript = ""
        for command in Self.script where !command.hasPrefix(".") {
            let outcome = try await InProcessShell.run(mirror: mirror, commands: [command])
            transcript += "$ oa-repl -c '\(command)'  → exit \(outcome.status)\n\(outcome.standardOutput)"
            if !outcome.standardError.isEmpty { transcript += "stderr: \(outcome.standardError)" }
            transcript += "\n"
        }
        try expectGolden(transcript, "command-line.txt")
    }

    @Test("the same commands piped in as a script: stops at the first failure")
    func script() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let succeeding = Self.script.prefix { $0 != "show 9" }
        let all = (["# a comment, then a blank line", ""] + Self.script).joined(separator: "\n") + "\n"
        let outcome = try await InProcessShell.run(mirror: mirror, script: all)
        #expect(outcome.status == 1, "the first failing command ends the script")
        #expect(outcome.standardError == "error: 9 is ambiguous: 909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E, 91CFB3FA-67F8-388B-A8E6-1CB5374EE8D7\n")
        #expect(succeeding.count > 10)
        try expectGolden(outcome.standardOutput, "script.txt")
    }

    @Test("every method in the JSON-lines mode")
    func jsonLines() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"methods"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"threads.list","params":{"limit":2}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"sessions.list","params":{"limit":3}}"#,
            #"{"jsonrpc":"2.0","id":"show","method":"sessions.show","params":{"session_id":"6410"}}"#,
            #"{"jsonrpc":"2.0","id":"raw","method":"sessions.show","params":{"session_id":"6410FF87-53AA-F3B7-18C2-3EF0C3C4B8A0","raw":true}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"search","params":{"query":"flaky","limit":5}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"prompt.enqueue","params":{"session_id":"909c","text":"From a script"}}"#,
            #"{"jsonrpc":"2.0","method":"prompt.enqueue","params":{"session_id":"909c","text":"A notification: runs, no answer"}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"outbox.list"}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"outbox.drop","params":{"id":2}}"#,
            #"{"jsonrpc":"2.0","id":8,"method":"outbox.retry","params":{"id":1}}"#,
            #"{"jsonrpc":"2.0","id":9,"method":"export.markdown","params":{"session_id":"6410"}}"#,
            #"{"jsonrpc":"2.0","id":10,"method":"status"}"#,
            #"{"jsonrpc":"2.0","id":11,"method":"sync"}"#,
            "", "not json", "[1,2]",
            #"{"jsonrpc":"2.0","id":12,"method":"no.such.method"}"#,
            #"{"jsonrpc":"2.0","id":13,"method":"sessions.list","params":{"limit":"many"}}"#,
            #"{"jsonrpc":"2.0","id":14,"method":"sessions.show","params":{"session_id":"9"}}"#,
            #"{"jsonrpc":"2.0","id":15,"method":"sessions.show","params":{"session_id":"nope"}}"#,
            #"{"jsonrpc":"2.0","id":16,"method":"search","params":{"query":"x","colour":"red"}}"#,
            #"{"jsonrpc":"1.0","id":17,"method":"status"}"#,
            #"{"jsonrpc":"2.0","id":{"a":1},"method":"status"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"threads.list","params":{"limit":1}}"#,
            #"{"jsonrpc":"2.0","id":18,"method":"quit"}"#,
            #"{"jsonrpc":"2.0","id":19,"method":"status"}"#,
        ]
        let outcome = try await InProcessJSONLines.run(mirror: mirror, input: requests.joined(separator: "\n") + "\n", bridgeURL: "ws://127.0.0.1:9")
        #expect(outcome.status == 0)
        let answers = outcome.standardOutput.split(separator: "\n")
        #expect(answers.count == requests.count - 3, "one answer a line, but for the blank line, the notification and after quit")
        #expect(answers.last == #"{"jsonrpc":"2.0","id":18,"result":{}}"#)
        try expectGolden(outcome.standardOutput, "json-lines.txt")
    }

    @Test("quit ends -c commands and scripts; nothing after it runs")
    func quitStops() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let commands = try await InProcessShell.run(mirror: mirror, commands: ["quit", "status"])
        #expect(commands.status == 0)
        #expect(commands.standardOutput.isEmpty, "\(commands.standardOutput)")
        let script = try await InProcessShell.run(mirror: mirror, script: "quit\nstatus\n")
        #expect(script.status == 0)
        #expect(script.standardOutput.isEmpty, "\(script.standardOutput)")
    }

    @Test("export writes a file once, refuses to overwrite, and the document is the same every time")
    func exportFile() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let first = try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(directory.url.path)"])
        #expect(first.status == 0, "\(first.standardError)")
        let file = directory.path("openagents-798C06FE.md")
        let document = try String(contentsOfFile: file, encoding: .utf8)
        let again = try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(file)"])
        #expect(again.status == 1)
        #expect(again.standardError.contains("exists: pass --force"))
        let forced = try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(file) --force"])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == document, "byte for byte the same")
        try expectGolden(document, "export-798C06FE.md")

        // A link is followed, not replaced, even to a file not there yet; a pipe or a device is
        // refused, not replaced.
        let link = directory.path("link.md")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(link) --force"]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
        let dangling = directory.path("dangling.md")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "later.md")
        #expect(try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(dangling)"]).status == 0)
        #expect(try String(contentsOfFile: directory.path("later.md"), encoding: .utf8) == document)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "later.md")
        let pipe = directory.path("pipe")
        #expect(mkfifo(pipe, 0o600) == 0)
        let refused = try await InProcessShell.run(mirror: mirror, commands: ["export 798c \(pipe) --force"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is not a regular file"))
        #expect(try FileManager.default.attributesOfItem(atPath: pipe)[.type] as? FileAttributeType != .typeRegular)
    }

    @Test("a missing or foreign mirror: what is wrong, then what to run or pass")
    func unusableMirror() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.sqlite")
        let none = try await InProcessShell.run(mirror: missing, commands: ["sessions"])
        #expect(none.status == 1)
        #expect(none.standardError == "error: mirror: no mirror at \(missing): it is created by the first sync "
                + "(run oa-sync or the sync command first, or pass --db)\n")
        let notes = directory.path("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: notes))
        let foreign = try await InProcessShell.run(mirror: notes, commands: ["sessions"])
        #expect(foreign.status == 1)
        #expect(foreign.standardError.hasPrefix("error: mirror: \(notes) is not a SQLite database"), "\(foreign.standardError)")
        #expect(foreign.standardError.hasSuffix("; use a mirror file or a new path (--db chooses the mirror file)\n"))
    }
}

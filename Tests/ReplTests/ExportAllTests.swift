@testable import Commands
import Foundation
import FrontEndSupport
import MirrorStore
import Testing
import TestSupport
import ToolSupport

/// `export --all DIR`: every session to a file, only changed files rewritten, the names of
/// colliding ids, failures, and the JSON-lines shape; with the real oa-repl over the sample mirror.
@Suite("export --all", .startsPrograms(endsWithin: .seconds(180)))
struct ExportAllTests {
    @Test("every session gets a file with the single export's document; a second run writes nothing; a changed file is rewritten alone")
    func exportsOnlyWhatChanged() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let notes = directory.path("notes/openagents")  // made, with its parent
        let ids = try Self.sessionIDs(in: mirror)
        #expect(ids.count >= 10)

        let first = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(notes)"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.isEmpty, "no progress line when standard error is not a terminal: \(first.standardError)")
        #expect(first.standardOutput == "exported \(ids.count) sessions to \(notes): \(ids.count) written, 0 unchanged, 0 failed\n")
        let names = ExportFileNames.assign(ids)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: notes)) == Set(names.map(\.fileName)))
        #expect(names.allSatisfy { $0.fileName == "openagents-\($0.sessionID.prefix(8)).md" }, "the sample's ids do not collide")
        for id in ["798C06FE-", "6410FF87-"] {
            let sessionID = try #require(ids.first { $0.hasPrefix(id) })
            let single = try await InProcessShell.run(mirror: mirror, commands: ["export \(sessionID)"])
            #expect(single.status == 0)
            let file = try String(contentsOfFile: "\(notes)/openagents-\(sessionID.prefix(8)).md", encoding: .utf8)
            #expect(file + "\n" == single.standardOutput, "the same document as export \(sessionID) (which prints a line break after it)")
        }
        let written = try Self.fileStates(in: notes)

        let second = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(notes)"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput == "exported \(ids.count) sessions to \(notes): 0 written, \(ids.count) unchanged, 0 failed\n")
        #expect(try Self.fileStates(in: notes) == written, "no file touched: same inodes, same modification times")

        // One file edited by hand, another deleted: those two alone are written again.
        let edited = "\(notes)/\(names[3].fileName)"
        let original = try Data(contentsOf: URL(fileURLWithPath: edited))
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: edited))
        let deleted = "\(notes)/\(names[5].fileName)"
        let deletedContent = try Data(contentsOf: URL(fileURLWithPath: deleted))
        try FileManager.default.removeItem(atPath: deleted)
        let beforeThird = try Self.fileStates(in: notes)
        let third = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(notes)"])
        #expect(third.status == 0, "\(third.standardError)")
        #expect(third.standardOutput == "exported \(ids.count) sessions to \(notes): 2 written, \(ids.count - 2) unchanged, 0 failed\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)) == original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: deleted)) == deletedContent)
        let afterThird = try Self.fileStates(in: notes)
        #expect(afterThird[names[3].fileName] != beforeThird[names[3].fileName], "rewritten (atomically: a new inode)")
        #expect(afterThird.filter { $0.key != names[3].fileName && $0.key != names[5].fileName }
                == beforeThird.filter { $0.key != names[3].fileName })
    }

    @Test("export.markdown with all: the directory, the files written, how many unchanged, the failures")
    func jsonLines() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let notes = directory.path("notes")
        let ids = try Self.sessionIDs(in: mirror)
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"export.markdown","params":{"all":true,"path":"\#(notes)"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"export.markdown","params":{"all":true,"path":"\#(notes)","force":true}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"export.markdown","params":{"all":true,"session_id":"798c","path":"\#(notes)"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"export.markdown","params":{"all":true}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"export.markdown","params":{"all":true,"path":"\#(notes)","timestamp":true}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"export.markdown","params":{"all":false}}"#,
        ]
        let outcome = try await InProcessJSONLines.run(mirror: mirror, input: requests.joined(separator: "\n") + "\n")
        #expect(outcome.status == 0)
        #expect(outcome.standardError.isEmpty)
        let answers = try outcome.standardOutput.split(separator: "\n").map { try Self.object(String($0)) }
        try #require(answers.count == requests.count)

        let result = try #require(answers[0]["result"] as? [String: Any])
        #expect(Set(result.keys) == ["directory", "sessions", "written", "unchanged", "failed"])
        #expect(result["directory"] as? String == notes)
        #expect(result["sessions"] as? Int == ids.count)
        let written = try #require(result["written"] as? [String])
        #expect(written == ExportFileNames.assign(ids).map { "\(notes)/\($0.fileName)" }, "full paths, in the order of the ids")
        #expect(result["unchanged"] as? Int == 0)
        #expect((result["failed"] as? [Any])?.isEmpty == true)

        let again = try #require(answers[1]["result"] as? [String: Any])
        #expect((again["written"] as? [String])?.isEmpty == true, "--force changes nothing: only changed files are written")
        #expect(again["unchanged"] as? Int == ids.count)

        for (index, message) in [(2, "session_id must be absent when all is true"), (3, "export --all needs the directory"),
                                 (4, "cannot be used with --all"), (5, "session_id is required")] {
            let error = try #require(answers[index]["error"] as? [String: Any], "answer \(index)")
            #expect(error["code"] as? Int == -32602)
            #expect((error["message"] as? String)?.contains(message) == true, "\(error)")
        }
    }

    @Test("a file that cannot be written: the others are, the command fails (exit 1; -32006 with the summary as data)")
    func failures() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let notes = directory.path("notes")
        let ids = try Self.sessionIDs(in: mirror)
        let blocked = try #require(ids.first { $0.hasPrefix("798C06FE") })
        try FileManager.default.createDirectory(atPath: "\(notes)/openagents-798C06FE.md", withIntermediateDirectories: true)

        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(notes)", "status"])
        #expect(outcome.status == 1, "a failed file fails the command, and the script stops")
        #expect(outcome.standardOutput.isEmpty, "\(outcome.standardOutput)")
        #expect(outcome.standardError == "error: exported \(ids.count) sessions to \(notes): \(ids.count - 1) written, 0 unchanged, 1 failed\n"
                + "  \(blocked): \(notes)/openagents-798C06FE.md is not a regular file "
                + "(export --all writes this session's document there; move it away)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes).count == ids.count)

        let request = #"{"jsonrpc":"2.0","id":1,"method":"export.markdown","params":{"all":true,"path":"\#(notes)"}}"# + "\n"
        let json = try await InProcessJSONLines.run(mirror: mirror, input: request)
        let error = try #require(try Self.object(json.standardOutput)["error"] as? [String: Any])
        #expect(error["code"] as? Int == -32006)
        #expect((error["message"] as? String)?.hasPrefix("exported \(ids.count) sessions") == true)
        let data = try #require(error["data"] as? [String: Any])
        #expect((data["written"] as? [String])?.isEmpty == true)
        #expect(data["unchanged"] as? Int == ids.count - 1)
        let failed = try #require(data["failed"] as? [[String: Any]])
        #expect(failed.count == 1)
        #expect(failed.first?["session_id"] as? String == blocked)
        #expect(failed.first?["path"] as? String == "\(notes)/openagents-798C06FE.md")
        #expect((failed.first?["error"] as? String)?.contains("is not a regular file") == true)

        // Not a directory at all: nothing is tried.
        let file = directory.path("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let notDirectory = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(file)"])
        #expect(notDirectory.status == 1)
        #expect(notDirectory.standardError.contains("\(file) is not a directory"), "\(notDirectory.standardError)")
    }

    @Test("the text form: --all before or after DIR; DIR required; no SESSION and no --timestamp with it")
    func textArguments() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let notes = directory.path("notes")
        let after = try await InProcessShell.run(mirror: mirror, commands: ["export \(notes) --all"])
        #expect(after.status == 0, "\(after.standardError)")
        #expect(after.standardOutput.hasPrefix("exported "))
        for (command, message) in [("export --all", "export --all needs the directory"),
                                   ("export --all \(notes) --timestamp", "--timestamp (timestamp) cannot be used with --all"),
                                   ("export 798c \(notes) --all", "export does not take \"\(notes)\""),
                                   ("export", "session_id is required")] {
            let outcome = try await InProcessShell.run(mirror: mirror, commands: [command])
            #expect(outcome.status == 1, "\(command)")
            #expect(outcome.standardError.contains(message), "\(command): \(outcome.standardError)")
        }
        let help = try await InProcessShell.run(mirror: mirror, commands: ["help export"])
        #expect(help.standardOutput.hasPrefix("export SESSION_ID|--all [PATH] [--force] [--timestamp] [--format md|html|json] [--html]\n"))
        #expect(help.standardOutput.contains("--all: every session, to PATH/openagents-<first 8 of the id>.md"))
    }

    @Test("colliding ids get longer names, ignoring case, in the order of the ids, whatever was exported before")
    func collidingSessions() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let colliding = ["local-ab000000-0000-4000-8000-000000000002", "LOCAL-AB990000-0000-4000-8000-000000000000",
                         "local-ab000000-0000-4000-8000-000000000001", "local-ab110000-0000-4000-8000-000000000000"]
        do {
            let store = try MirrorStore(path: mirror)
            for id in colliding { try store.createLocalSession(id: id) }
        }
        let notes = directory.path("notes")
        let outcome = try await InProcessShell.run(mirror: mirror, commands: ["export --all \(notes)"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: notes)
        #expect(files.filter { $0.lowercased().hasPrefix("openagents-local-") }.sorted()
                == ["openagents-LOCAL-AB.md", "openagents-local-ab000000-0000-4000-8000-000000000001.md",
                    "openagents-local-ab000000-0000-4000-8000-000000000002.md", "openagents-local-ab1100.md"])
        let single = try await InProcessShell.run(mirror: mirror, commands: ["export \(colliding[0])"])
        let file = try String(contentsOfFile: "\(notes)/openagents-local-ab000000-0000-4000-8000-000000000002.md", encoding: .utf8)
        #expect(file + "\n" == single.standardOutput)
    }

    @Test("the naming rule as a function")
    func namingRule() {
        func names(_ ids: [String]) -> [String: String] {
            Dictionary(uniqueKeysWithValues: ExportFileNames.assign(ids).map { ($0.sessionID, $0.fileName) })
        }
        let a = "909CA87E-B99E-1111-AAAA-000000000000", b = "909CA87E-B99E-8C2C-AF5E-B4919C1C6A5E"
        let c = "909ca87e-b99e-8c2c-0000-000000000000", other = "6410FF87-53AA-F3B7-18C2-3EF0C3C4B8A0"
        // a sorts first and keeps 8; b and c share 19 characters (ignoring case): 20 names each alone.
        let expected = [a: "openagents-909CA87E.md", b: "openagents-909CA87E-B99E-8C2C-A.md", c: "openagents-909ca87e-b99e-8c2c-0.md",
                        other: "openagents-6410FF87.md"]
        #expect(names([a, b, c, other]) == expected)
        #expect(names([other, c, b, a]) == expected, "the order given does not matter")
        #expect(ExportFileNames.assign([c, other, a, b]).map(\.sessionID) == [other, a, b, c], "the order of the ids (bytes)")
        #expect(names([b, other]) == [b: "openagents-909CA87E.md", other: "openagents-6410FF87.md"])
        #expect(names([a, b]) == [a: "openagents-909CA87E.md", b: "openagents-909CA87E-B99E-8C.md"], "12 is shared (14 are), 16 is not")
        // Short ids, ids equal but for case, a slash.
        #expect(names(["abc", "ABC", "x/y", "ABCDEFGH", "abcdefgh1"])
                == ["ABC": "openagents-ABC.md", "abc": "openagents-abc-2.md", "x/y": "openagents-x_y.md",
                    "ABCDEFGH": "openagents-ABCDEFGH.md", "abcdefgh1": "openagents-abcdefgh1.md"])
        #expect(names([]).isEmpty)
    }

    @Test("on a terminal, a progress line on standard error, erased before the summary; none in JSON-lines mode",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressOnATerminal() async throws {
        let directory = try TemporaryDirectory()
        let mirror = try await SampleMirror.copy(in: directory)
        let notes = directory.path("notes")
        let repl = BuildProducts.executable("oa-repl").path
        let text = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/script"),
                                                   ["-q", "-e", "-c", "\(repl) --db \(mirror) -c 'export --all \(notes)'", "/dev/null"])
        #expect(text.status == 0, "\(text.standardOutput)")
        #expect(text.standardOutput.contains("\r\u{1B}[2Kexporting: 0/"), "\(text.standardOutput.debugDescription)")
        #expect(text.standardOutput.contains("\r\u{1B}[2Kexported "), "erased, then the summary: \(text.standardOutput.debugDescription)")
        let request = #"{"jsonrpc":"2.0","id":1,"method":"export.markdown","params":{"all":true,"path":"\#(notes)"}}"#
        let json = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/script"),
                                                   ["-q", "-e", "-c", "echo '\(request)' | \(repl) --db \(mirror) --jsonl", "/dev/null"])
        #expect(json.status == 0)
        #expect(!json.standardOutput.contains("exporting"), "\(json.standardOutput.debugDescription)")
        #expect(json.standardOutput.hasPrefix(#"{"jsonrpc":"2.0","id":1,"result":{"directory":"#), "\(json.standardOutput.debugDescription)")
    }

    // MARK: - Helpers

    /// Every session id of the mirror.
    static func sessionIDs(in mirror: String) throws -> [String] {
        try MirrorStore(path: mirror, mode: .readOnly).sessions().map(\.sessionID)
    }

    /// Each file of `directory` with its inode and modification time (to the nanosecond).
    static func fileStates(in directory: String) throws -> [String: [Int]] {
        var states: [String: [Int]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            var info = stat()
            guard stat("\(directory)/\(name)", &info) == 0 else { continue }
            states[name] = [Int(info.st_ino), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
        return states
    }

    /// A JSON object from a line.
    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

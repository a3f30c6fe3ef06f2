import Foundation
import TestSupport
import Testing
import ToolSupport

/// The README, docs/cli.md, tools/demo and the systemd unit against what the built programs
/// really accept.
@Suite("documentation against the programs", .startsPrograms(endsWithin: .seconds(120)))
struct DocsTests {
    static let programs = ["oa", "oa-sync", "oa-repl", "oa-bridge-sim", "oa-store-bench", "oa-bridge-bench", "oa-sync-bench", "oa-burst-bench",
                           "oa-repl-bench", "oa-store-probe"]

    @Test("every program's --help says what it does, with an example", arguments: programs)
    func helpHasAnExample(program: String) async throws {
        let outcome = try await run(program, ["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output.split(separator: "\n").count >= 5, "\(outcome.output)")
        #expect(outcome.output.contains("Example"), "\(program) --help gives an example")
        if program == "oa-repl" { #expect(outcome.output.contains("export --all DIR"), "oa-repl --help tells of exporting every session") }
    }

    @Test("docs/cli.md documents exactly the options of oa-sync, oa-repl and oa-repl serve", arguments: ["oa-sync", "oa-repl", "oa-repl serve"])
    func optionsDocumented(program: String) async throws {
        let section = try Self.section(of: "docs/cli.md", heading: "## \(program)")
        let documented = Set(matches(of: #"^\| `(-[a-z]|--[a-z][a-z-]*)"#, in: section, lines: true))
            .union(matches(of: #"^\| `-[a-z]`, `(--[a-z][a-z-]*)`"#, in: section, lines: true))
        #expect(documented == (try await helpOptions(of: program)).subtracting(["-h", "--help"]),
                "the option table of \(program) in docs/cli.md")
    }

    @Test("oa-sync and oa-repl describe the options they share in the same words", arguments: ["--db", "--bridge", "--tls-pin", "--token-file"])
    func sharedOptions(option: String) async throws {
        let sync = Self.helpEntry(of: option, in: try await run("oa-sync", ["--help"]).output)
        let repl = Self.helpEntry(of: option, in: try await run("oa-repl", ["--help"]).output)
        #expect(sync.count > 30, "oa-sync --help has \(option)")
        #expect(sync == repl)
    }

    @Test("docs/cli.md lists exactly oa-repl's commands and JSON-lines methods")
    func commandsDocumented() async throws {
        let help = try await run("oa-repl", ["--db", "/nonexistent/mirror.sqlite", "-c", "help"]).output
        let commands = Set(help.split(separator: "\n").compactMap { line -> String? in
            guard let first = line.first, first.isLowercase else { return nil }
            return Self.commandName(String(line))
        })
        let table = try Self.section(of: "docs/cli.md", heading: "### Commands")
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| command") }
        let documentedCommands = Set(rows.compactMap { row in
            matches(of: #"^\| `([^`]+)`"#, in: String(row)).first.map(Self.commandName)
        })
        #expect(commands.count >= 14)
        #expect(documentedCommands == commands)

        let request = #"{"jsonrpc":"2.0","id":1,"method":"methods"}"# + "\n"
        let answer = try await run("oa-repl", ["--jsonl"], input: request).output
        let methods = Set(matches(of: #""method":"([a-z.]+)""#, in: answer))
        let documentedMethods = Set(rows.flatMap { row in
            matches(of: #"^\|(?:[^|\\]|\\.)*\| `([a-z.]+)`"#, in: String(row))
        })
        #expect(methods.count >= 14)
        #expect(documentedMethods == methods)
    }

    @Test("every oa-sync and oa-repl option that the README, the docs, the demo and the unit use exists")
    func usedOptionsExist() async throws {
        var accepted: [String: Set<String>] = [:]
        for program in ["oa-sync", "oa-repl", "oa-bridge-sim"] {
            accepted[program] = try await helpOptions(of: program).union(["--generate-completion-script"])
        }
        var checked = 0
        for file in ["README.md", "docs/cli.md", "docs/simulator.md", "tools/demo", "tools/packaging/systemd/oa-sync.service"] {
            let text = try String(contentsOf: Repository.root.appending(path: file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                // Options inside quotes belong to REPL commands (`-c "sessions --limit 5"`).
                let unquoted = String(line).replacingOccurrences(of: #""[^"]*"|'[^']*'"#, with: "", options: .regularExpression)
                for (program, options) in accepted {
                    // The program in a command's place: at the start (after variables), after a
                    // directory, a backtick, a prompt or a pipe; not `journalctl -u oa-sync -f`.
                    let commandPosition = #"(?:^\s*(?:[A-Z_]+=\S*\s+)*|[/`]|\$ |&& |\| )"#
                    for invocation in matches(of: commandPosition + program + "( [^|`#;&]*)", in: unquoted) {
                        for option in matches(of: #"(?:^|\s)(--?[a-z][a-z-]*)"#, in: invocation) {
                            #expect(options.contains(option), "\(file): \(program) \(option) in “\(line)”")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked >= 20, "the check found the documented invocations")
    }

    @Test("docs/cli.md shows docs/examples/ask.py as it is (a test of the REPL runs the file)")
    func exampleClientShown() async throws {
        let example = try String(contentsOf: Repository.root.appending(path: "docs/examples/ask.py"), encoding: .utf8)
        let reference = try String(contentsOf: Repository.root.appending(path: "docs/cli.md"), encoding: .utf8)
        #expect(reference.contains("```python\n" + example + "```\n"))
    }

    @Test("the README's two commands exist and are executable; .ci/run calls the second")
    func readmeCommands() async throws {
        let readme = try String(contentsOf: Repository.root.appending(path: "README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "## Two commands").dropFirst().first)
        let commands = matches(of: #"(?m)^(tools/[a-z-]+)"#, in: block)
        #expect(commands == ["tools/demo", "tools/test"])
        for command in commands {
            #expect(FileManager.default.isExecutableFile(atPath: Repository.root.appending(path: command).path), "\(command)")
        }
        let ci = try String(contentsOf: Repository.root.appending(path: ".ci/run"), encoding: .utf8)
        #expect(ci.contains("exec tools/test\n"))
    }

    @Test("systemd accepts the user units", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")),
          arguments: [("oa-sync", "oa-sync"), ("oa-serve", "oa-repl")])
    func systemdUnit(unit: String, program: String) async throws {
        let home = try TemporaryDirectory()
        let bin = home.url.appending(path: ".local/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appending(path: program), withDestinationURL: BuildProducts.executable(program))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify", Repository.root.appending(path: "tools/packaging/systemd/\(unit).service").path]
        process.environment = ["HOME": home.url.path, "PATH": "/usr/bin:/bin", "SYSTEMD_LOG_LEVEL": "notice"]
        let errors = home.url.appending(path: "verify.err")
        #expect(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let handle = try FileHandle(forWritingTo: errors)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        let status = try await ProcessEnd(running: process).status(within: .seconds(60))
        let report = try String(contentsOf: errors, encoding: .utf8)
        #expect(status == 0, "systemd-analyze verify did not pass within 60 s: \(report)")
        #expect(!report.contains("\(unit).service"), "no warnings about the unit: \(report)")
    }

    // MARK: - Helpers

    /// The lines `--help` gives `option`: its own, and the description's that follow.
    private static func helpEntry(of option: String, in help: String) -> String {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(option) ") }) else { return "" }
        let rest = lines[(start + 1)...].prefix { !$0.hasPrefix("  -") && !$0.isEmpty }
        return ([lines[start]] + rest).joined(separator: "\n")
    }

    /// A REPL command line's name: its words up to the first argument (`outbox retry ID` → `outbox retry`).
    private static func commandName(_ line: String) -> String {
        line.split(separator: " ").prefix { word in word.allSatisfy { $0.isLowercase } }.joined(separator: " ")
    }

    /// The text of `file` from `heading` to the next heading of the same or a higher level.
    private static func section(of file: String, heading: String) throws -> String {
        let text = try String(contentsOf: Repository.root.appending(path: file), encoding: .utf8)
        let level = heading.prefix { $0 == "#" }.count
        var lines: [Substring] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                let lineLevel = line.prefix { $0 == "#" }.count
                if line == heading { inside = true; continue }
                if inside && lineLevel <= level { break }
            }
            if inside { lines.append(line) }
        }
        guard inside else { throw DocsError.missingSection(file, heading) }
        return lines.joined(separator: "\n")
    }

    private enum DocsError: Error {
        case missingSection(String, String)
    }
}

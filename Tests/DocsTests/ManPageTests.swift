import Foundation
import TestSupport
import Testing
import ToolSupport

/// The committed man pages (docs/man, written by tools/packaging/generate-man) against what the built
/// programs say of themselves: a change to an option or a help text without running
/// tools/packaging/generate-man fails here.
@Suite("man pages against the programs", .startsPrograms(endsWithin: .seconds(120)))
struct ManPageTests {
    static let programs = ["oa", "oa-sync", "oa-repl", "oa-repl-serve", "oa-bridge-sim"]

    @Test("each man page has the program's abstract, discussion and options", arguments: programs)
    func pageMatchesHelp(program: String) async throws {
        let page = try await Self.page(program)
        let help = try await DumpedHelp.of(program)
        #expect(page.contains(".Nd \"\(help.abstract)\""), "the NAME line of \(program).1")
        for paragraph in help.paragraphs where !paragraph.hasPrefix("Exit codes:") && !paragraph.hasPrefix("Example") {
            #expect(page.contains(paragraph), "\(program).1 has the paragraph: \(paragraph)")
        }
        let pageOptions = Set(matches(of: #"^\.It (Fl .*)$"#, in: page, lines: true))
        let helpOptions = Set(help.arguments.filter { $0.kind != "positional" }.map(\.mdocItem))
        #expect(pageOptions == helpOptions.union(["Fl h , -help"]), "the options of \(program).1")
        for argument in help.arguments {
            #expect(page.contains(argument.abstract), "\(program).1 explains \(argument.mdocItem)")
        }
    }

    @Test("each man page's EXIT STATUS and EXAMPLES are those of --help", arguments: programs)
    func exitStatusAndExamples(program: String) async throws {
        let page = try await Self.page(program)
        let help = try await DumpedHelp.of(program)
        if let codes = help.paragraphs.first(where: { $0.hasPrefix("Exit codes:") }) {
            let items = matches(of: #"(?:: |; )(\d+) (.+?)(?=; \d+ |\.$)"#, in: codes, allGroups: true)
            #expect(!items.isEmpty)
            for pair in stride(from: 0, to: items.count - 1, by: 2) {
                #expect(page.contains(".It \(items[pair])\n\(items[pair + 1])\n"), "\(program).1 explains exit code \(items[pair])")
            }
        }
        let examples = try #require(help.paragraphs.first { $0.hasPrefix("Example") }, "\(program) --help has examples")
        let exampleLines = examples.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        for line in exampleLines.isEmpty ? [String(examples.split(separator: ":", maxSplits: 1)[1].dropFirst())] : exampleLines {
            #expect(page.contains("\n\(line)\n"), "\(program).1 shows the example \(line)")
        }
    }

    @Test("oa-repl.1 lists every command of the REPL")
    func replCommands() async throws {
        let page = try await Self.page("oa-repl")
        let commands = try await run("oa-repl", ["--db", "/nonexistent/mirror.sqlite", "-c", "help"]).output
        let usages = matches(of: #"^(\S.*?)\s{2,}\S"#, in: commands, lines: true)
        #expect(usages.count >= 10)
        for usage in usages {
            #expect(page.contains(".It Li \"\(usage)\""), "oa-repl.1 lists \(usage)")
        }
    }

    @Test("man reads each page without a warning",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man")), arguments: programs)
    func manAcceptsThePage(program: String) async throws {
        let outcome = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/man"),
                                         ["--warnings", "-l", Repository.root.appending(path: "docs/man/\(program).1").path],
                                         environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(outcome.status == 0)
        #expect(outcome.standardError.isEmpty, "man --warnings on \(program).1: \(outcome.standardError)")
        #expect(outcome.standardOutput.contains("EXAMPLES"))
    }

    /// Debian's lintian fails a package whose page man-db's whatis cannot parse (`bad-whatis-entry`).
    @Test("whatis reads each page's name as one word and its description",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/lexgrog")), arguments: programs)
    func whatisReadsTheName(program: String) async throws {
        let path = Repository.root.appending(path: "docs/man/\(program).1").path
        let outcome = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/lexgrog"), [path],
                                               environment: ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"])
        #expect(outcome.status == 0, "lexgrog \(program).1: \(outcome.standardOutput)\(outcome.standardError)")
        #expect(outcome.standardOutput.hasPrefix("\(path): \"\(program) - "), "lexgrog \(program).1: \(outcome.standardOutput)")
    }

    private static func page(_ program: String) async throws -> String {
        try String(contentsOf: Repository.root.appending(path: "docs/man/\(program).1"), encoding: .utf8)
    }
}

/// What a program's `--experimental-dump-help` says of its top-level command.
private struct DumpedHelp: Decodable {
    struct Command: Decodable {
        var abstract: String
        var discussion: String?
        var arguments: [Argument]
    }

    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        var kind: String
        var names: [Name]?
        var valueName: String?
        var abstract: String
        var isRepeating: Bool

        /// How generate-manual heads the option's item: `Fl q , -quiet`, `Fl -db Ar path`.
        var mdocItem: String {
            let flags = (names ?? []).sorted { $0.kind == "short" && $1.kind != "short" }.map { $0.kind == "long" ? "-\($0.name)" : $0.name }.joined(separator: " , ")
            let value = kind == "option" ? " Ar \(valueName ?? "")\(isRepeating ? "..." : "")" : ""
            return "Fl \(flags)\(value)"
        }
    }

    var command: Command

    var abstract: String { command.abstract }
    var arguments: [Argument] { command.arguments }
    /// The discussion's paragraphs.
    var paragraphs: [String] { (command.discussion ?? "").components(separatedBy: "\n\n") }

    /// `oa-repl-serve` is the page of `oa-repl serve`.
    static func of(_ program: String) async throws -> DumpedHelp {
        let output = program == "oa-repl-serve" ? try await run("oa-repl", ["serve", "--experimental-dump-help"]).output
            : try await run(program, ["--experimental-dump-help"]).output
        return try JSONDecoder().decode(DumpedHelp.self, from: Data(output.utf8))
    }
}

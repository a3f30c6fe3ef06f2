import Foundation
import Synchronization
import TestSupport
import Testing
import ToolSupport

/// The one executable `oa`: oa-sync and oa-repl are links to it and behave as the programs they
/// name, and so do `oa sync …` and `oa repl …`.
@Suite("one executable, oa, behind oa-sync and oa-repl", .startsPrograms(endsWithin: .seconds(120)))
struct MultiCallTests {
    @Test("oa-sync and oa-repl in the build directory are links to oa", arguments: ProgramLinks.names)
    func linksToOA(name: String) async throws {
        let link = BuildProducts.executable(name)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "oa")
    }

    @Test("oa sync and oa repl say what oa-sync and oa-repl say", arguments: [
        (["sync", "--help"], "oa-sync", ["--help"]),
        (["repl", "--help"], "oa-repl", ["--help"]),
        (["repl", "--db", "/nonexistent/mirror.sqlite", "-c", "help"], "oa-repl", ["--db", "/nonexistent/mirror.sqlite", "-c", "help"]),
    ])
    func subcommandIsTheProgram(arguments: [String], program: String, programArguments: [String]) async throws {
        let multiCall = try await run("oa", arguments)
        let direct = try await run(program, programArguments)
        #expect(direct.status == 0)
        #expect(multiCall.status == direct.status)
        #expect(multiCall.output == direct.output)
        #expect(!direct.output.isEmpty)
    }

    @Test("oa-sync's usage errors are its own, by either name")
    func usageErrors() async throws {
        for (executable, arguments) in [("oa-sync", ["--no-such-option"]), ("oa", ["sync", "--no-such-option"])] {
            let outcome = try await ProgramRun.run(BuildProducts.executable(executable), arguments)
            #expect(outcome.status == 64, "\(executable) \(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.contains("oa-sync"), "\(outcome.standardError)")
        }
    }

    @Test("oa without a program it knows exits 64 and points to its help, which lists sync and repl")
    func oaAlone() async throws {
        for arguments in [[], ["bogus"], ["--db", "x"]] {
            let outcome = try await ProgramRun.run(BuildProducts.executable("oa"), arguments)
            #expect(outcome.status == 64, "oa \(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.contains("oa --help"), "\(outcome.standardError)")
            if arguments.isEmpty { #expect(outcome.standardError.contains("oa sync … or oa repl …"), "\(outcome.standardError)") }
        }
        let help = try await run("oa", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("sync") && help.output.contains("repl"), "\(help.output)")
    }

    @Test("ProgramLinks makes the links once, whoever races to, and replaces a stale program")
    func linksRace() async throws {
        let directory = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory.path("oa"), contents: Data(), attributes: [.posixPermissions: 0o755]))
        #expect(FileManager.default.createFile(atPath: directory.path("oa-sync"), contents: Data("an old build".utf8)))
        let url = directory.url
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do throws(ProgramLinks.LinkError) {
                try ProgramLinks.make(in: url)
            } catch {
                failures.withLock { $0.append(error.description) }
            }
        }
        failures.withLock { #expect($0.isEmpty, "\($0)") }
        for name in ProgramLinks.names {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.path(name)) == "oa")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["oa", "oa-repl", "oa-sync"])
    }
}

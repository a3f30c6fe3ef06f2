import ArgumentParser
import Commands
import Foundation
import Logging

/// `oa-repl`: browse and search the mirror offline, queue prompts, export sessions.
@main
struct OARepl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-repl",
        abstract: "Browse and search the OpenAgents mirror offline, queue prompts, export sessions to Markdown.",
        discussion: """
            On a terminal, an interactive prompt (type help). With -c, or with commands piped in (one per line, # for comments), runs them without prompts and exits non-zero at the first that fails. With --jsonl, reads one JSON-RPC 2.0 request per line and answers each on one line (methods: sessions.list, sessions.show, search, prompt.enqueue, outbox.list, …; call methods for the list).

            The mirror: --db, else $OA_DB, else $XDG_DATA_HOME/openagents/mirror.sqlite. The bridge (for sync): --bridge, else $OA_BRIDGE, else ws://127.0.0.1:9099.

            Exit codes: 0 done; 1 a command failed; 64 bad usage.

            Examples:
              oa-repl -c "sessions --limit 5"
              oa-repl -c "export 5f0c ." -c "outbox"
              echo '{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"flaky"}}' | oa-repl --jsonl
            """
    )

    @Option(help: "The mirror file (default: $OA_DB, else $XDG_DATA_HOME/openagents/mirror.sqlite).")
    var db: String?

    @Option(help: "The bridge for the sync command (default: $OA_BRIDGE, else ws://127.0.0.1:9099).")
    var bridge: String?

    @Flag(help: "JSON-RPC 2.0 requests on standard input, one answer per line on standard output.")
    var jsonl = false

    @Option(name: .customShort("c"), help: "Run this command (repeatable), then exit.")
    var commands: [String] = []

    @Option(help: "Output mode: table, json or markdown.")
    var mode: OutputMode = .table

    func validate() throws {
        if jsonl && !commands.isEmpty { throw ValidationError("--jsonl and -c cannot be used together") }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, format: .text, level: .warning) }
        let context = CommandContext(mirrorPath: MirrorLocation.mirrorPath(option: db), bridgeURL: MirrorLocation.bridgeURL(option: bridge))
        if jsonl {
            let session = JSONLinesSession(context: context)
            while let line = readLine(strippingNewline: true) {
                if let answer = await session.answer(line) { Terminal.writeOut(answer) }
            }
            return
        }
        var shell = ScriptShell(context: context, mode: mode, width: Terminal.width)
        if !commands.isEmpty {
            for command in commands where try await !shell.run(command) { throw ExitCode(1) }
            return
        }
        let interactive = Terminal.inputIsTerminal
        if interactive { Terminal.writeOut("oa-repl: mirror \(context.mirrorPath). Type help, or quit.") }
        while true {
            if interactive { Terminal.prompt("oa> ") }
            guard let line = readLine(strippingNewline: true) else { break }
            let succeeded = try await shell.run(line)
            if shell.finished { break }
            if !succeeded && !interactive { throw ExitCode(1) }
        }
    }
}

extension OutputMode: ExpressibleByArgument {}

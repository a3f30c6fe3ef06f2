import ArgumentParser
import Commands
import Foundation
import Logging
import MirrorMCP
import ProgramOptions

/// `oa-repl`: browse and search the mirror offline, queue prompts, export sessions.
struct OARepl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-repl",
        abstract: "Browse and search the OpenAgents mirror offline, queue prompts, export sessions to Markdown.",
        discussion: """
            On a terminal, an interactive prompt (type help; line editing, history in $OA_HISTORY or beside the default mirror, Tab completes commands, their options and session ids; output taller than the terminal goes through $PAGER, else less -RFX, unless .pager off; colour unless NO_COLOR is set). With -c, or with commands piped in (one per line, # for comments), runs them without prompts and exits non-zero at the first that fails. With --jsonl, reads one JSON-RPC 2.0 request per line and answers each on one line (methods: sessions.list, sessions.show, search, prompt.enqueue, outbox.list, events.subscribe and more; call methods for the list); a subscription's notifications come as oa-sync commits, one per line.

            follow prints a session's conversation (or every session's), then each event as oa-sync commits it, until Ctrl-C, SIGTERM (exit 0) or --until-idle-ms.

            The mirror: --db, else $OA_DB, else $XDG_DATA_HOME/openagents/mirror.sqlite. The bridge (for sync): --bridge, else $OA_BRIDGE, else ws://127.0.0.1:9099, trusted as oa-sync trusts it (--tls-pin, --token-file and their variables).

            export SESSION writes one session as Markdown; export --all DIR writes every session into DIR, a file each (openagents-<first 8 of the id>.md, longer when ids share those 8), and rewrites only the files whose content changed (help export explains the names). With --html both write self-contained HTML that fetches nothing (--all adds index.html); with --format json, the stored events as JSON lines.

            oa-repl serve runs a read-only web viewer of the mirror on 127.0.0.1, live as oa-sync commits (oa-repl serve --help).

            Exit codes: 0 done (also after SIGINT or SIGTERM ends a follow or --jsonl); 1 a command failed (for export --all: a file could not be written, after it wrote every other); 64 bad usage.

            Examples:
              oa-repl -c "sessions --limit 5"
              oa-repl -c "export 5f0c ." -c "outbox"
              oa-repl -c "follow 5f0c --from now"
              oa-repl -c "export --all ~/notes/openagents"
              echo '{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"flaky"}}' | oa-repl --jsonl
              claude mcp add openagents -- oa-repl --mcp
              oa-repl serve
            """,
        subcommands: [ServeCommand.self]
    )

    @OptionGroup var mirror: MirrorOptions

    /// The bridge of the sync command, and how it is trusted.
    @OptionGroup var bridge: BridgeSecurityOptions

    @Flag(help: "JSON-RPC 2.0 requests on standard input, one answer per line on standard output.")
    var jsonl = false

    @Flag(help: "Serve the mirror as an MCP server on standard input and output (tools: search_sessions, list_sessions, read_session).")
    var mcp = false

    @Flag(help: "With --mcp: offer the enqueue_prompt tool, which queues prompts for the agent.")
    var mcpAllowPrompts = false

    @Flag(help: "Show secrets as they were received: no [REDACTED:<kind>#<n>] tags in show, search, export, --jsonl or --mcp (their headers say so).")
    var noRedact = false

    @Option(name: .customShort("c"), help: ArgumentHelp("Run this command (repeatable), then exit.", valueName: "command"))
    var commands: [String] = []

    @Option(help: "Output mode: table, json or markdown.")
    var mode: OutputMode = .table

    /// `$OA_HISTORY`, else `repl_history` beside the default mirror.
    static func historyPath() -> String {
        if let path = ProcessInfo.processInfo.environment["OA_HISTORY"], !path.isEmpty { return path }
        let directory = MirrorLocation.defaultMirrorDirectory()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory.appending(path: "repl_history").path
    }

    /// The bridge of the sync command: `--bridge`, else `$OA_BRIDGE`, else the default.
    var bridgeURL: String { MirrorLocation.bridgeURL(option: bridge.bridges.first) }

    func validate() throws {
        if jsonl && !commands.isEmpty { throw ValidationError("--jsonl and -c cannot be used together") }
        if mcp && (jsonl || !commands.isEmpty) { throw ValidationError("--mcp cannot be used with --jsonl or -c") }
        if mcpAllowPrompts && !mcp { throw ValidationError("--mcp-allow-prompts goes with --mcp") }
        if bridge.bridges.count > 1 { throw ValidationError("the sync command catches up with one bridge: give --bridge once (oa-sync follows several)") }
        if bridge.bridges.contains(where: { BridgeEntry(parsing: $0).isEveryAdvertisedBridge }) {
            throw ValidationError("--bridge dnssd:* is for oa-sync: the sync command catches up with one bridge (dnssd or dnssd:NAME)")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, format: .text, level: .warning) }
        if mcp {
            // Standard output carries MCP messages only; logs go to standard error.
            let server = MirrorMCPServer(mirrorPath: mirror.mirrorPath, bridgeURL: bridgeURL,
                                         allowsPrompts: mcpAllowPrompts, redacts: !noRedact, logger: Logger(label: "oa-repl.mcp"))
            try await server.run()
            return
        }
        let context = CommandContext(mirrorPath: mirror.mirrorPath, bridgeURL: bridgeURL)
        context.redacts = !noRedact
        context.launcher = bridge.launcher(clientName: "oa-repl")
        if !jsonl {
            // secrets --check -: a value typed at a terminal is not echoed.
            context.readSecret = {
                if Terminal.inputIsTerminal { return getpass("secret (not echoed): ").map { String(cString: $0) } }
                return readLine(strippingNewline: true)
            }
        }
        if !jsonl && ProgressLine.isTerminal {
            // Long commands (export --all) redraw a line on standard error; never in JSON-lines mode.
            let progressLine = ProgressLine()
            context.progress = { progressLine.show($0) }
        }
        if jsonl {
            let output = StandardOutput()
            let signals = Interruption.exitingOnSignals(between: output)
            await JSONLinesSession(context: context).run(input: StandardInput(), output: output)
            withExtendedLifetime(signals) {}
            return
        }
        if noRedact { Terminal.writeError(ScriptShell.redactionOffNotice) }
        // At a prompt: lines typed on a terminal, with no -c.
        let interactive = commands.isEmpty && Terminal.inputIsTerminal
        let historyPath = interactive ? Self.historyPath() : nil
        // A pager only at a prompt on a terminal: never in -c, scripts, or when output is piped.
        var shell = ScriptShell(context: context, mode: mode, width: Terminal.width, colour: Terminal.usesColour, interactive: interactive,
                                pager: interactive && Terminal.outputIsTerminal ? Pager.fromEnvironment() : nil,
                                settingsPath: historyPath.map(ReplSettings.path(besideHistory:)))
        if !commands.isEmpty {
            for command in commands {
                if try await !shell.run(command) { throw ExitCode(1) }
                if shell.finished { break }
            }
            return
        }
        guard let historyPath else {
            while let line = readLine(strippingNewline: true) {
                if try await !shell.run(line) { throw ExitCode(1) }
                if shell.finished { break }
            }
            return
        }
        Terminal.writeOut("oa-repl: mirror \(shell.mirrorPath). Type help, or quit; Tab completes.")
        let editor = LineEditor(historyPath: historyPath)
        while let line = editor.readLine(prompt: "oa> ", completing: await shell.runner.completionIDs()) {
            _ = try await shell.run(line)
            if shell.finished { break }
        }
    }
}

extension OutputMode: ExpressibleByArgument {}

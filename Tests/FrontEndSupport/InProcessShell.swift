import Commands
import Foundation
import ReplProgram
import Secrets
import Synchronization
import TestSupport
import ToolSupport

/// `oa-repl -c COMMAND…`, or a script piped into `oa-repl`, run in process: the shell the program
/// runs, its output gathered rather than written. A handful of tests start the program itself,
/// for what only it does: parsing its arguments, the terminal, the pager, `--jsonl`, `--mcp`.
public enum InProcessShell {
    /// As `oa-repl --db MIRROR -c COMMAND…` would end: stops at the first command that fails
    /// (status 1) or quits. `mode` is `--mode`'s, `redacts: false` is `--no-redact`, `environment`
    /// says where the secrets file is (`XDG_CONFIG_HOME`), and `input` is what `secrets --check -`
    /// reads, a line at a time.
    ///
    /// - Throws: `WaitTimedOut` when the commands have not ended within `timeout` (a `follow`
    ///   with no idle limit never does).
    public static func run(mirror: String, commands: [String], mode: OutputMode = .table, redacts: Bool = true,
                           environment: [String: String] = [:], input: String = "",
                           timeout: Duration = .seconds(120)) async throws -> ProgramRun.Outcome {
        try await within(timeout, awaiting: "oa-repl -c \(commands.joined(separator: " -c ")) in process") {
            try await runToTheEnd(mirror: mirror, commands: commands, mode: mode, redacts: redacts, environment: environment, input: input)
        }
    }

    private static func runToTheEnd(mirror: String, commands: [String], mode: OutputMode, redacts: Bool,
                                    environment: [String: String], input: String) async throws -> ProgramRun.Outcome {
        let written = Written()
        let context = context(mirror)
        context.redacts = redacts
        context.secretsFilePath = SecretsConfiguration.path(environment: environment)
        let lines = Mutex(input.split(separator: "\n").map(String.init)[...])
        context.readSecret = { lines.withLock { $0.popFirst() } }
        var shell = ScriptShell(context: context, mode: mode, width: nil, colour: false, interactive: false,
                                output: written.output)
        for command in commands {
            guard try await shell.run(command) else { return written.outcome(status: 1) }
            if shell.finished { break }
        }
        return written.outcome(status: 0)
    }

    /// As `oa-repl --db MIRROR < SCRIPT` would end: a command a line.
    public static func run(mirror: String, script: String) async throws -> ProgramRun.Outcome {
        try await run(mirror: mirror, commands: script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// The context the program makes for a mirror given with `--db`, but for a terminal's.
    private static func context(_ mirror: String) -> CommandContext {
        CommandContext(mirrorPath: mirror, bridgeURL: MirrorLocation.bridgeURL(option: nil))
    }

    /// What the shell wrote, on each of its two streams (`follow` writes on the first as it goes).
    private final class Written: LineOutput {
        private let standardOutput = Mutex("")
        private let standardError = Mutex("")

        var output: ShellOutput {
            ShellOutput(result: { text in self.standardOutput.withLock { $0 += text + "\n" } },
                        message: { text in self.standardError.withLock { $0 += text + "\n" } }, colouredFailures: false, feed: self)
        }

        func write(_ text: String, newline: Bool) async {
            standardOutput.withLock { $0 += text + (newline ? "\n" : "") }
        }

        func outcome(status: Int32) -> ProgramRun.Outcome {
            ProgramRun.Outcome(status: status, standardOutput: standardOutput.withLock { $0 }, standardError: standardError.withLock { $0 })
        }
    }
}

import Commands
import Secrets
import Synchronization
import TestSupport
import ToolSupport

/// `oa-repl --db MIRROR --jsonl` with some lines on its standard input, run in process: the
/// session the program runs, its answers gathered rather than written. A few tests start the
/// program itself for what only it does (reading a real standard input, exiting on a signal).
public enum InProcessJSONLines {
    /// The answers and notifications written until the input ended and the session stopped.
    /// `redacts: false` is `--no-redact`; `bridgeURL` is `--bridge`'s; `environment` says where
    /// the secrets file is (`XDG_CONFIG_HOME`).
    ///
    /// - Throws: `WaitTimedOut` when the session has not ended within `timeout` (a subscription
    ///   with no idle limit never does).
    public static func run(mirror: String, input: String, bridgeURL: String? = nil, redacts: Bool = true,
                           environment: [String: String] = [:], timeout: Duration = .seconds(120)) async throws -> ProgramRun.Outcome {
        try await within(timeout, awaiting: "a JSON-lines session in process") {
            await runToTheEnd(mirror: mirror, input: input, bridgeURL: bridgeURL, redacts: redacts, environment: environment)
        }
    }

    private static func runToTheEnd(mirror: String, input: String, bridgeURL: String?, redacts: Bool,
                                    environment: [String: String]) async -> ProgramRun.Outcome {
        let context = CommandContext(mirrorPath: mirror, bridgeURL: MirrorLocation.bridgeURL(option: bridgeURL))
        context.redacts = redacts
        context.secretsFilePath = SecretsConfiguration.path(environment: environment)
        let output = Lines()
        await JSONLinesSession(context: context).run(input: Input(input), output: output)
        return ProgramRun.Outcome(status: 0, standardOutput: output.text, standardError: "")
    }

    /// The lines of a text, handed over one at a time.
    private final class Input: LineInput {
        private let lines: Mutex<ArraySlice<String>>

        init(_ text: String) {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // The line break that ends the last line does not begin another.
            if lines.last == "" { lines.removeLast() }
            self.lines = Mutex(lines[...])
        }

        func nextLine() async -> String? {
            lines.withLock { $0.popFirst() }
        }
    }

    /// What the session wrote, in order.
    private final class Lines: LineOutput {
        private let written = Mutex("")

        var text: String { written.withLock { $0 } }

        func write(_ text: String, newline: Bool) async {
            written.withLock { $0 += text + (newline ? "\n" : "") }
        }
    }
}

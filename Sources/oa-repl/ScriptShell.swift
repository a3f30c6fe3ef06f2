import Commands
import Foundation

/// Runs text commands one by one and prints their results: the REPL and script modes.
struct ScriptShell {
    let runner: CommandRunner
    var mode: OutputMode
    let width: Int?
    /// Set by `quit`.
    private(set) var finished = false

    init(context: CommandContext, mode: OutputMode, width: Int?) {
        runner = CommandRunner(context: context)
        self.mode = mode
        self.width = width
    }

    /// Runs one line; returns false when it failed (the error is printed on standard error).
    mutating func run(_ line: String) async throws -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return true }
        if trimmed.hasPrefix(".") { return dotCommand(trimmed) }
        do {
            let result = try await runner.run(line: trimmed)
            if result.quits {
                finished = true
                return true
            }
            if let output = mode.render(result, width: width) { Terminal.writeOut(output) }
            return true
        } catch {
            Terminal.writeError("error: \(error)")
            return false
        }
    }

    /// `.mode table|json|markdown`.
    private mutating func dotCommand(_ line: String) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard words.first == ".mode" else {
            Terminal.writeError("error: unknown dot command \(words.first ?? line); try .mode table|json|markdown")
            return false
        }
        guard words.count == 2, let newMode = OutputMode(rawValue: words[1]) else {
            Terminal.writeError(words.count == 1 ? "mode: \(mode.rawValue)" : "error: .mode takes table, json or markdown")
            return words.count == 1
        }
        mode = newMode
        return true
    }
}

/// Standard input and output as the shell uses them.
enum Terminal {
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// The terminal's width when standard output is one.
    static var width: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 100 }
        return Int(size.ws_col)
    }

    static func writeOut(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

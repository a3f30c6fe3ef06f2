import Commands
import Foundation
import Primitives
import Synchronization

/// Runs text commands one by one and prints their results: the REPL and script modes.
package struct ScriptShell {
    let runner: CommandRunner
    var mode: OutputMode
    let width: Int?
    /// Colour (a terminal, and no NO_COLOR): bold table headers, and the palette of commands in table mode.
    let colour: Bool
    /// Lines typed at a prompt: Ctrl-C ends a `follow` and the prompt comes back.
    let interactive: Bool
    /// Where output taller than the terminal goes (`.pager on`); nil where output is never paged:
    /// scripts, `-c`, output that is not a terminal, no pager installed.
    let pager: Pager?
    /// `.pager on|off`, kept in `settingsPath` when there is one (at a prompt).
    private(set) var settings: ReplSettings
    let settingsPath: String?
    /// Set by `quit`, and by a signal that ended a `follow` (but Ctrl-C at a prompt).
    package private(set) var finished = false
    let mirrorPath: String
    let output: ShellOutput

    package init(context: sending CommandContext, mode: OutputMode, width: Int?, colour: Bool, interactive: Bool,
         pager: Pager? = nil, settingsPath: String? = nil, output: ShellOutput = .standard) {
        mirrorPath = context.mirrorPath
        self.output = output
        runner = CommandRunner(context: context)
        self.mode = mode
        self.width = width
        self.colour = colour
        self.interactive = interactive
        self.pager = pager
        self.settingsPath = settingsPath
        settings = settingsPath.map(ReplSettings.load(from:)) ?? ReplSettings()
    }

    /// Runs one line; returns false when it failed (the error is printed on standard error).
    package mutating func run(_ line: String) async throws -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return true }
        if trimmed.hasPrefix(".") { return await dotCommand(trimmed) }
        do {
            await runner.setPalette(colour && mode == .table ? .colour : .plain)
            await runner.setTextOutput(writesTextAsMade ? output.result : nil)
            let result = try await runner.run(line: trimmed)
            if result.quits {
                finished = true
                return true
            }
            switch result.feed {
            case .start(let request):
                return await follow(request)
            case .stop:
                output.failure("unsubscribe ends a JSON-lines subscription (oa-repl --jsonl); follow ends with Ctrl-C")
                return false
            case nil:
                break
            }
            if var output = mode.render(result, width: width) {
                if colour, mode == .table, result.table?.headers.contains(where: { !$0.isEmpty }) == true,
                   let firstLine = output.split(separator: "\n", maxSplits: 1).first {
                    output = Palette.colour.apply(.bold, to: String(firstLine)) + output.dropFirst(firstLine.count)
                }
                show(output)
            }
            return true
        } catch {
            output.failure("\(error)")
            return false
        }
    }

    /// Whether a long text (`show`) is written as it is made: not in JSON mode, nor where it may
    /// go through the pager, which is chosen once the whole text is known to be taller than the
    /// terminal.
    private var writesTextAsMade: Bool {
        mode != .json && !(settings.pager && pager != nil && Terminal.size != nil)
    }

    /// Prints `output`, through the pager when it is on and `output` is taller than the terminal
    /// (or plainly, when the pager fails).
    private func show(_ output: String) {
        if settings.pager, let pager, let size = Terminal.size, Terminal.needs(size.rows, rowsFor: output, columns: size.columns),
           pager.page(output) {
            return
        }
        self.output.result(output)
    }

    /// Prints the conversation the request follows, then each change as it is committed, until
    /// it is idle for its limit, or SIGINT or SIGTERM; false when reading the mirror failed.
    private mutating func follow(_ request: FeedRequest) async -> Bool {
        let mirrorPath = mirrorPath
        let shellOutput = self.output
        let redaction = await runner.feedRedaction()
        let palette: Palette = colour ? .colour : .plain
        let failed = Atomic(false)
        let signal = await Interruption.run {
            let output = shellOutput.feed
            var renderer = FollowRenderer(tagsSessions: request.sessionKey == nil, palette: palette)
            do {
                try await MirrorChangeSignal.withSignal(mirrorPath: mirrorPath) { signal in
                    _ = try await EventFeed.run(request, reader: MirrorReader(mirrorPath: mirrorPath), signal: signal) { items in
                        await output.write(renderer.render(redaction.redacted(items)), newline: false)
                    }
                }
            } catch {
                await output.write(renderer.finish(), newline: false)
                shellOutput.failure(CommandError.message(for: error))
                failed.store(true, ordering: .relaxed)
                return
            }
            // Cancelled by a signal on a terminal, which echoed ^C: what comes next starts a line.
            let ending = renderer.finish()
            await output.write(ending.isEmpty && Task.isCancelled && Terminal.outputIsTerminal ? "\n" : ending, newline: false)
        }
        if let signal, signal == SIGTERM || !interactive { finished = true }
        return !failed.load(ordering: .relaxed)
    }

    /// `.mode table|json|markdown`, `.pager on|off`, `.redact on|off`; alone, the setting in force.
    private mutating func dotCommand(_ line: String) async -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first.flatMap(DotCommand.init(rawValue:)) else {
            output.failure("unknown dot command \(words.first ?? line); try " + DotCommand.allCases.map(\.usage).joined(separator: " or "))
            return false
        }
        let redacts = await runner.redacts
        let current = switch command {
        case .mode: mode.rawValue
        case .pager: settings.pager ? "on" : "off"
        case .redact: redacts ? "on" : "off"
        }
        guard words.count == 2, command.values.contains(words[1]) else {
            if words.count == 1 {
                output.message("\(command.rawValue.dropFirst()): \(current)")
            } else {
                output.failure("\(command.rawValue) takes " + command.values.joined(separator: ", "))
            }
            return words.count == 1
        }
        switch command {
        case .mode:
            mode = OutputMode(rawValue: words[1]) ?? mode
        case .pager:
            settings.pager = words[1] == "on"
            if let settingsPath { settings.save(to: settingsPath) }
        case .redact:
            // For this run only: showing secrets is never remembered.
            await runner.setRedacts(words[1] == "on")
            if words[1] == "off" { output.message(Self.redactionOffNotice) }
        }
        return true
    }

    /// What the shell says, on the error stream, when what it shows is no longer redacted
    /// (`--no-redact`, `.redact off`): the documents it writes say so in their headers too.
    static let redactionOffNotice = "redaction is off: secrets are shown as they were received (for this run only)"
}

/// Standard input and output as the shell uses them.
enum Terminal {
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Colour only on a terminal, and never with NO_COLOR set.
    static var usesColour: Bool {
        isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// The terminal's width when standard output is one.
    static var width: Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 100 }
        return Int(size.ws_col)
    }

    /// The terminal's rows and columns when standard output is one that says.
    static var size: (rows: Int, columns: Int)? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return nil
        }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Whether `text` takes `rows` rows or more of a terminal `columns` wide, long lines wrapping
    /// (counted until it does, however long the text).
    static func needs(_ rows: Int, rowsFor text: String, columns: Int) -> Bool {
        var used = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            used += max(1, (Palette.visibleCount(line) + columns - 1) / columns)
            if used >= rows { return true }
        }
        return false
    }

    /// Writes a result on standard output; when that fails (a full disk), says why on standard
    /// error and exits 1 at once: output cut short never ends with status 0.
    static func writeOut(_ text: String) {
        guard DescriptorWriting.writeLine(text, to: STDOUT_FILENO) else {
            let reason = String(cString: strerror(errno))
            writeError("oa-repl: cannot write standard output: \(reason)")
            exit(1)
        }
    }

    static func writeError(_ text: String) {
        DescriptorWriting.writeErrorLine(text)
    }

    /// Whether standard error is a terminal and NO_COLOR is not set.
    static var errorUsesColour: Bool {
        isatty(STDERR_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    static func prompt(_ text: String) {
        _ = DescriptorWriting.writeText(text, to: STDOUT_FILENO)
    }
}

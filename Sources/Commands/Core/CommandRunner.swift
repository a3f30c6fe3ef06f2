import ReadModel
import Bridge
import Primitives

/// Runs commands for a front end, one after another, on a thread of its own: a command's SQLite
/// calls block, so they never occupy the cooperative pool, where a JSON-lines session's
/// subscriptions (and everything else async) run meanwhile. `MirrorQueries` (MCP) and the
/// `SyncEngine` do the same.
///
/// The runner owns the front end's `CommandContext`: it is given away at `init`, and set or read
/// afterwards only through the runner.
public actor CommandRunner {
    private let executor = ThreadExecutor(name: "oa-commands")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let context: CommandContext
    /// The mirror's file.
    public nonisolated let mirrorPath: String

    public init(context: sending CommandContext) {
        mirrorPath = context.mirrorPath
        self.context = context
    }

    /// Runs one text line (`sessions --limit 5`).
    public func run(line: String) async throws(CommandError) -> CommandResult {
        let words = CommandLineWords.split(line)
        let (command, count) = try CommandCatalog.command(forWords: words.map(\.text))
        let arguments = try command.arguments(fromWords: Array(words.dropFirst(count)), of: line)
        return try await execute(command, arguments)
    }

    /// Runs one JSON-lines method with its params.
    public func run(method: String, params: JSONValue?) async throws(CommandError) -> CommandResult {
        let command = try CommandCatalog.command(forMethod: method)
        let arguments = try command.arguments(fromJSON: params)
        return try await execute(command, arguments)
    }

    private func execute(_ command: CommandDefinition, _ arguments: CommandArguments) async throws(CommandError) -> CommandResult {
        do {
            return try await command.run(arguments, context)
        } catch {
            throw CommandError.wrapping(error)
        }
    }

    /// Whether history leaving the mirror has its secrets redacted (`CommandContext.redacts`).
    public var redacts: Bool { context.redacts }

    /// Sets `CommandContext.redacts` (`.redact on|off`).
    public func setRedacts(_ redacts: Bool) {
        context.redacts = redacts
    }

    /// Sets `CommandContext.palette`, how the next commands style their text.
    public func setPalette(_ palette: Palette) {
        context.palette = palette
    }

    /// Sets `CommandContext.textOutput`, where the next commands may write a long text as they
    /// make it (nil: results come whole).
    public func setTextOutput(_ output: (@Sendable (String) -> Void)?) {
        context.textOutput = output
    }

    /// How a feed started now redacts what it hands over (`CommandContext.feedRedaction()`).
    package func feedRedaction() -> FeedRedaction {
        context.feedRedaction()
    }

    /// The ids Tab completes (`CommandContext.completionIDs()`).
    public func completionIDs() -> CompletionIDs {
        context.completionIDs()
    }
}

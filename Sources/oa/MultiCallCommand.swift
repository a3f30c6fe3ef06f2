import ArgumentParser

/// `oa` started by its own name without a program to run: its help, and its usage errors.
/// (`oa sync …` and `oa repl …` are dispatched before parsing: what follows the program's name
/// is that program's own arguments.)
struct MultiCallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa",
        abstract: "OpenAgents Mirror's programs, oa-sync and oa-repl, in one executable.",
        discussion: """
            oa sync ARGUMENTS runs oa-sync and oa repl ARGUMENTS runs oa-repl, exactly as those names do (oa serve ARGUMENTS is oa-repl serve ARGUMENTS, the web viewer): oa-sync and oa-repl are links to this executable, which runs the program named by the link it was started through. Their options, commands and exit codes: oa-sync --help, oa-repl --help.

            Exit codes: those of the program run; 64 bad usage (no program, or one oa does not know).

            Examples:
              oa sync --bridge ws://127.0.0.1:9099 --once
              oa repl -c "sessions --limit 5"
              oa serve
            """,
        subcommands: [SyncSubcommand.self, ReplSubcommand.self, ServeSubcommand.self]
    )

    func run() async throws {
        throw ValidationError("name the program to run: oa sync … or oa repl …")
    }
}

/// `oa sync`, as `oa --help` lists it.
struct SyncSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Run oa-sync: mirror a desktop bridge into the local SQLite file (oa-sync --help)."
    )

    @Argument(parsing: .captureForPassthrough, help: "oa-sync's arguments.")
    var arguments: [String] = []
}

/// `oa repl`, as `oa --help` lists it.
struct ReplSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "Run oa-repl: browse, search, follow and export the mirror offline (oa-repl --help)."
    )

    @Argument(parsing: .captureForPassthrough, help: "oa-repl's arguments.")
    var arguments: [String] = []
}

/// `oa serve`, as `oa --help` lists it.
struct ServeSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run oa-repl serve: a read-only web viewer of the mirror on 127.0.0.1 (oa-repl serve --help)."
    )

    @Argument(parsing: .captureForPassthrough, help: "oa-repl serve's arguments.")
    var arguments: [String] = []
}

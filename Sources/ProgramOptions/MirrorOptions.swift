import ArgumentParser
import Commands

/// The mirror a program works on (`--db`): one declaration, one help text, for oa-sync and oa-repl.
public struct MirrorOptions: ParsableArguments {
    /// `--db`, as given.
    @Option(help: ArgumentHelp("The mirror file (default: $OA_DB, else $XDG_DATA_HOME/openagents/mirror.sqlite).", valueName: "path"))
    public var db: String?

    public init() {}

    /// The mirror file: `--db`, else `$OA_DB`, else the default.
    public var mirrorPath: String { MirrorLocation.mirrorPath(option: db) }
}

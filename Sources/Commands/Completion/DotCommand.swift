/// The REPL's own settings, typed after a dot (`.mode json`, `.pager off`), as in the sqlite3 shell:
/// the one list that the REPL, its help and its Tab completion read.
public enum DotCommand: String, CaseIterable, Sendable {
    /// The output mode: `table`, `json` or `markdown`.
    case mode = ".mode"
    /// Long output through a pager on a terminal, or not.
    case pager = ".pager"
    /// Secrets replaced by their tags in what commands show and export (the default), or not.
    case redact = ".redact"

    /// The values it takes.
    public var values: [String] {
        switch self {
        case .mode: OutputMode.allCases.map(\.rawValue)
        case .pager, .redact: ["on", "off"]
        }
    }

    /// `.mode table|json|markdown`.
    public var usage: String {
        rawValue + " " + values.joined(separator: "|")
    }
}

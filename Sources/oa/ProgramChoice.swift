/// The program an `argv` asks for: by the name it was started as (`oa-sync`, `oa-repl`: links
/// to `oa`), else by its first argument (`oa sync …`, `oa repl …`; `oa serve …` is `oa repl serve …`).
enum ProgramChoice: Equatable {
    /// oa-sync, with its own arguments.
    case sync([String])
    /// oa-repl, with its own arguments.
    case repl([String])
    /// `oa` itself (no program named, `--help`, or a name it does not know): its arguments.
    case multiCall([String])

    /// The choice for `argumentVector`, the program's name first (as `CommandLine.arguments`).
    init(argumentVector: [String]) {
        let invokedAs = argumentVector.first?.split(separator: "/").last.map(String.init) ?? ""
        let arguments = Array(argumentVector.dropFirst())
        switch invokedAs {
        case "oa-sync": self = .sync(arguments)
        case "oa-repl": self = .repl(arguments)
        default:
            switch arguments.first {
            case "sync": self = .sync(Array(arguments.dropFirst()))
            case "repl": self = .repl(Array(arguments.dropFirst()))
            case "serve": self = .repl(arguments)
            default: self = .multiCall(arguments)
            }
        }
    }
}

/// The `oa-repl` program, for the multi-call executable `oa` to run as `oa-repl` or `oa repl`.
public enum OAReplProgram {
    /// Parses `arguments` (the program's name left out) as oa-repl's and runs it (`serve …`: the
    /// web viewer, `ServeCommand`). Returns when it is done; exits the process with the code its
    /// `--help` documents when it is not.
    public static func main(_ arguments: [String]) async {
        await OARepl.main(arguments)
    }
}

/// The `oa-sync` program, for the multi-call executable `oa` to run as `oa-sync` or `oa sync`.
public enum OASyncProgram {
    /// Parses `arguments` (the program's name left out) as oa-sync's and runs it. Returns when it
    /// is done; exits the process with the code its `--help` documents when it is not.
    public static func main(_ arguments: [String]) async {
        await OASync.main(arguments)
    }
}

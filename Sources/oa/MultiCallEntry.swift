import ReplProgram
import SyncProgram

/// The one executable behind `oa-sync` and `oa-repl`, so that the Swift runtime, Foundation and
/// the layers below are linked once for both. `oa-sync` and `oa-repl` are links to it: it runs
/// the program named by the link it was started through (`argv[0]`'s last path component), with
/// the arguments as they are; started as `oa`, the first argument names the program.
@main
enum MultiCallEntry {
    static func main() async {
        switch ProgramChoice(argumentVector: CommandLine.arguments) {
        case .sync(let arguments): await OASyncProgram.main(arguments)
        case .repl(let arguments): await OAReplProgram.main(arguments)
        case .multiCall(let arguments): await MultiCallCommand.main(arguments)
        }
    }
}

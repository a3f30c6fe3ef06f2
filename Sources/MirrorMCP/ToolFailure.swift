import Commands

/// A tool call the model can correct: the sentence it gets back (`isError: true`) says what went
/// wrong and what to do instead.
struct ToolFailure: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    /// A command error as advice for the model, for the mirror at `mirrorPath`: chosen by its
    /// reason, so that what the model can do (nothing, wait, ask the user for a step) is told apart.
    init(_ error: CommandError, mirrorPath: String) {
        let presentation = error.presentation
        switch error {
        case .unknownSession(let prefix):
            self.init("No mirrored session has an id starting with \"\(prefix)\". Call list_sessions or search_sessions to find the session's id.")
            return
        case .ambiguousSession(let prefix, let candidates):
            self.init("\"\(prefix)\" is the start of several session ids (\(candidates.joined(separator: ", "))). Give more characters of the id, or the full id.")
            return
        case .badArguments(let message):
            self.init(message.prefix(1).uppercased() + message.dropFirst() + ".")
            return
        default:
            break
        }
        switch presentation.reason {
        case .mirrorNotFound:
            self = .noMirror(mirrorPath)
        case .schemaTooOld:
            self.init("The mirror at \(mirrorPath) has an older schema that must be upgraded before it can be read (\(presentation.message)). "
                      + "Ask the user to run oa-sync once, which upgrades it, then try again.")
        case .schemaTooNew:
            self.init("The mirror at \(mirrorPath) was written by a newer OpenAgents Mirror than this server (\(presentation.message)). "
                      + "Ask the user to upgrade oa-repl, or to start it with --db on another mirror; retrying will not help.")
        case .diskFull:
            self.init("The disk holding the mirror at \(mirrorPath) is full (\(presentation.message)). "
                      + "Tell the user to free some space; retrying will not help until then.")
        case .mirrorBusy:
            self.init("The mirror at \(mirrorPath) is busy with another program's write (\(presentation.message)). Try again in a moment.")
        default:
            let hint = presentation.hint.map { " To fix it: \($0)." } ?? ""
            self.init("The mirror at \(mirrorPath) could not be read (\(presentation.message)).\(hint) Tell the user; retrying will not help until it is fixed.")
        }
    }

    /// The mirror's file is not there yet.
    static func noMirror(_ path: String) -> ToolFailure {
        ToolFailure("There is no mirror at \(path) yet: nothing has been synced. Ask the user to run oa-sync (or `oa-repl -c sync`) once, then try again.")
    }
}

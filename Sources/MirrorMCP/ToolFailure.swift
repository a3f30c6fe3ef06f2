import Commands

/// A tool call the model can correct: the sentence it gets back (`isError: true`) says what went
/// wrong and what to do instead.
struct ToolFailure: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    /// A command error as advice for the model, for the mirror at `mirrorPath`.
    init(_ error: CommandError, mirrorPath: String) {
        switch error {
        case .unknownSession(let prefix):
            self.init("No mirrored session has an id starting with \"\(prefix)\". Call list_sessions or search_sessions to find the session's id.")
        case .ambiguousSession(let prefix, let candidates):
            self.init("\"\(prefix)\" is the start of several session ids (\(candidates.joined(separator: ", "))). Give more characters of the id, or the full id.")
        case .badArguments(let message):
            self.init(message.prefix(1).uppercased() + message.dropFirst() + ".")
        default:
            self.init("The mirror at \(mirrorPath) could not be read (\(error)). Tell the user; retrying will not help until it is fixed.")
        }
    }

    /// The mirror's file is not there yet.
    static func noMirror(_ path: String) -> ToolFailure {
        ToolFailure("There is no mirror at \(path) yet: nothing has been synced. Ask the user to run oa-sync (or `oa-repl -c sync`) once, then try again.")
    }
}

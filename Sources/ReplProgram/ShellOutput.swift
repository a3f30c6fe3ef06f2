import Commands

/// Where the shell writes its results and its errors: standard output and standard error, or,
/// for a test that runs the shell in process, anywhere.
struct ShellOutput: Sendable {
    /// Writes a result, and a line break after it.
    var result: @Sendable (String) -> Void
    /// Writes a message for a person on the error stream, and a line break after it.
    var message: @Sendable (String) -> Void
    /// Whether `error:` is written in red (standard error is a terminal, and NO_COLOR is not set).
    var colouredFailures: Bool

    static let standard = ShellOutput(result: Terminal.writeOut, message: Terminal.writeError, colouredFailures: Terminal.errorUsesColour)

    /// `error: message`, in red when `colouredFailures`.
    func failure(_ text: String) {
        message(Palette(usesColour: colouredFailures).apply(.red, to: "error: \(text)"))
    }
}

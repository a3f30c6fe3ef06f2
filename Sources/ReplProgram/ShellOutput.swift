import Commands

/// Where the shell writes its results and its errors: standard output and standard error, or,
/// for a test that runs the shell in process, anywhere.
package struct ShellOutput: Sendable {
    /// Writes a result, and a line break after it.
    package var result: @Sendable (String) -> Void
    /// Writes a message for a person on the error stream, and a line break after it.
    package var message: @Sendable (String) -> Void
    /// Whether `error:` is written in red (standard error is a terminal, and NO_COLOR is not set).
    package var colouredFailures: Bool
    /// Where `follow` writes as it goes, in pieces that need not end a line.
    package var feed: any LineOutput

    package init(result: @escaping @Sendable (String) -> Void, message: @escaping @Sendable (String) -> Void, colouredFailures: Bool,
                 feed: any LineOutput) {
        self.result = result
        self.message = message
        self.colouredFailures = colouredFailures
        self.feed = feed
    }

    static let standard = ShellOutput(result: Terminal.writeOut, message: Terminal.writeError, colouredFailures: Terminal.errorUsesColour,
                                      feed: StandardOutput())

    /// `error: message`, in red when `colouredFailures`.
    func failure(_ text: String) {
        message(Palette(usesColour: colouredFailures).apply(.red, to: "error: \(text)"))
    }
}

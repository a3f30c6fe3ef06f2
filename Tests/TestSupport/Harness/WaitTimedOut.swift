/// A wait of a test or a helper that reached its deadline: what it waited for, how long, and what
/// it saw instead, so that a failure says more than "timed out".
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What the wait was for ("the history cursor to reach 3000").
    public let awaited: String
    public let timeout: Duration
    /// What it last saw instead ("2541"), or how the awaited thing failed to come.
    public let seen: String

    public init(awaited: String, timeout: Duration, seen: String) {
        self.awaited = awaited
        self.timeout = timeout
        self.seen = seen
    }

    public var description: String { "waited \(timeout) for \(awaited); saw instead: \(seen)" }
}

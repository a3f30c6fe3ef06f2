/// How far a long command has got, for the front end to show if it wants to (oa-repl draws it as
/// a progress line on a terminal, in text mode only); commands report through
/// `CommandContext.progress`.
public struct CommandProgress: Sendable, Equatable {
    /// What the command does: `exporting`.
    public var activity: String
    /// How many items are done, of `total`.
    public var done: Int
    public var total: Int
    /// What the items are: `sessions`.
    public var unit: String
    /// The command's last report: the front end erases what it shows.
    public var finished: Bool

    public init(activity: String, done: Int, total: Int, unit: String, finished: Bool = false) {
        self.activity = activity
        self.done = done
        self.total = total
        self.unit = unit
        self.finished = finished
    }

    /// `exporting: 12/40 sessions`.
    public var text: String { "\(activity): \(done)/\(total) \(unit)" }
}

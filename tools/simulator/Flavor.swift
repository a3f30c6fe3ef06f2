/// Which bridge the simulator plays.
enum Flavor: String, Sendable {
    /// The desktop bridge as it is: Part 1 of the protocol notes, quirks included.
    case stock
    /// The stock bridge plus the history-cursor extension (Part 2).
    case cursor
}

/// One change to the mirror, as a follower sees it, in commit order.
public enum FeedItem: Sendable, Equatable {
    /// An event committed to a timeline.
    case appended(TimelineEvent)
    /// An event the follower was given earlier is gone: a refetch replaced a provisional tail, or
    /// a dropped prompt took its echo.
    case removed(eventID: Int64, sessionID: String)
    /// A provisional event the follower was given (a stock bridge's live update) is confirmed.
    case confirmed(eventID: Int64, sessionID: String)
    /// A queued prompt was added, changed state, or was dropped (`state` is then `dropped`).
    case outboxChanged(outboxID: Int64, sessionID: String, state: String)
    /// A session made offline was merged into the bridge's session `into`: its events (which
    /// keep their ids) and prompts are that session's now, and it is gone.
    case sessionMerged(sessionID: String, into: String)

    /// The session the change belongs to.
    public var sessionID: String {
        switch self {
        case .appended(let event): event.sessionID
        case .removed(_, let sessionID), .confirmed(_, let sessionID), .outboxChanged(_, let sessionID, _),
             .sessionMerged(let sessionID, _): sessionID
        }
    }
}

/// What a follower reads next: items in commit order, and the position after them.
public struct FeedPage: Sendable, Equatable {
    /// What was committed, in commit order.
    public var items: [FeedItem]
    /// Where the next page starts.
    public var position: FeedPosition
    /// True when the page stopped at its limit: more is waiting, read again at once.
    public var isPartial: Bool
}

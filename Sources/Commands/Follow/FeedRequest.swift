import MirrorStore

/// What to follow and from where: what `follow` and `events.subscribe` hand their front end.
public struct FeedRequest: Sendable, Equatable {
    /// The key of the one session followed (stable when a session made offline gets the
    /// bridge's id), or nil for every session.
    public var sessionKey: Int64?
    /// That session's id when the command ran.
    public var sessionID: String?
    /// Only the sessions of the desktop of this name (nil: every desktop's).
    public var desktop: String?
    /// Where the feed starts: after this position.
    public var start: FeedPosition
    /// Ends the feed after this long with nothing new; nil: it goes on until cancelled.
    public var idleLimit: Duration?

    /// A request to follow the session whose key is `sessionKey` (every session when nil) after `start`.
    public init(sessionKey: Int64?, sessionID: String?, desktop: String? = nil, start: FeedPosition, idleLimit: Duration?) {
        self.sessionKey = sessionKey
        self.sessionID = sessionID
        self.desktop = desktop
        self.start = start
        self.idleLimit = idleLimit
    }
}

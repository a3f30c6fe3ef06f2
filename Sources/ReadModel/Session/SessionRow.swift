import MirrorStore

/// A session as lists show it: a row of `sessions` (and of MCP's `list_sessions`), encoded member
/// for member as `docs/cli.md` documents `sessions.list`. Made by `MirrorViews`, its title
/// redacted by the views' policy.
public struct SessionRow: Sendable, Encodable {
    public var sessionID: String
    /// By `SessionTitle`'s rule; nil when the session has none.
    public var title: String?
    public var mode: String?
    public var lastActivity: Timestamp?
    public var eventCount: Int64
    public var serverEventCount: Int64?
    public var syncState: SessionState
    public var desktop: String?
    public var goneFromDesktopAt: Timestamp?
    public var eventsGoneFromDesktop: Int64
    public var syncError: String?
    public var syncErrorAt: Timestamp?
    public var retryAfter: Timestamp?
    /// The store's record it was made from (not encoded).
    public var summary: SessionSummary

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id", title, mode, lastActivity = "last_activity", eventCount = "event_count"
        case serverEventCount = "server_event_count", syncState = "sync_state", desktop
        case goneFromDesktopAt = "gone_from_desktop_at", eventsGoneFromDesktop = "events_gone_from_desktop"
        case syncError = "sync_error", syncErrorAt = "sync_error_at", retryAfter = "retry_after"
    }

    init(_ session: SessionSummary, title: String?, state: SessionState) {
        sessionID = session.sessionID
        self.title = title
        mode = session.mode
        lastActivity = Timestamp(milliseconds: session.lastTS)
        eventCount = session.localEventCount
        serverEventCount = session.serverEventCount
        syncState = state
        desktop = session.desktop
        goneFromDesktopAt = Timestamp(milliseconds: session.goneAt)
        eventsGoneFromDesktop = session.goneEventCount
        syncError = session.syncError
        syncErrorAt = Timestamp(milliseconds: session.syncErrorAt)
        retryAfter = Timestamp(milliseconds: session.retryAfter)
        summary = session
    }
}

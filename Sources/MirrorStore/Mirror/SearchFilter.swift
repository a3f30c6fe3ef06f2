/// What a search is narrowed to, besides its words. Every condition given must hold.
public struct SearchFilter: Sendable, Equatable {
    /// Only this session's events (its full id).
    public var sessionID: String?
    /// Only events of this kind, as the mirror stores it (`agent_message_chunk`, `tool_call`, …).
    public var kind: String?
    /// Only events at or after this time (ms since the epoch); events of unknown time are left out.
    public var since: Int64?
    /// Only events at or before this time (ms since the epoch); events of unknown time are left out.
    public var until: Int64?
    /// Only events of the sessions that came from the desktop of this name.
    public var desktop: String?
    /// Tool output is searched too. It is about two thirds of an archive's text and drowns what
    /// was said, so a search leaves it out unless asked: by this, by a kind, or by `in:` places.
    public var everywhere: Bool

    public init(sessionID: String? = nil, kind: String? = nil, since: Int64? = nil, until: Int64? = nil, desktop: String? = nil,
                everywhere: Bool = false) {
        self.sessionID = sessionID
        self.kind = kind
        self.since = since
        self.until = until
        self.desktop = desktop
        self.everywhere = everywhere
    }

    /// No condition: every event.
    public static let none = SearchFilter()
}

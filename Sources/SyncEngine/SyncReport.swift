import Bridge
import MirrorStore

/// What the engine tells its observer while it works.
public enum SyncEvent: Sendable {
    case stateChanged(ConnectionState)
    case progress(SyncProgress)
    /// The bridge or the mirror failed (a `BridgeError`, a `MirrorStoreError`, a `SQLiteError`);
    /// the engine goes on (reconnecting if it must).
    case problem(any Error)
    /// A session's timeline could not be mirrored; the others go on, and it is retried later.
    case sessionNotMirrored(SessionFailure)
    /// A `wss://` bridge's certificate was trusted on first use; its pin is now remembered.
    case certificateTrusted(CertificatePin)
    /// The desktop's history started again (a reinstall, a wiped history store): what the mirror
    /// holds of the earlier one stays, marked gone from the desktop; the new one is mirrored whole.
    case historyStartedAgain(desktop: String, earlierSessions: Int)
}

/// How far a catch-up has come.
public struct SyncProgress: Sendable, Equatable {
    /// Sessions whose timelines are done (stock bridges) or whose metadata is in (cursor bridges).
    public var sessionsDone: Int
    public var sessionsTotal: Int
    /// Events written to the mirror since the catch-up started.
    public var events: Int
    /// Events the catch-up expects to write in all (nil when unknown).
    public var eventsTotal: Int?
    public var eventsPerSecond: Double
}

/// What one `syncOnce` did.
public struct SyncReport: Sendable, Equatable {
    public var bridgeURL: String
    /// The desktop's short name.
    public var desktop: String = ""
    public var historyCursor: Bool
    /// Events added to the mirror (appended or replaced tails' new events).
    public var eventsWritten: Int
    /// Sessions whose timelines were fetched (stock bridges).
    public var timelinesFetched: Int
    /// Sessions and events newly marked as gone from the desktop (they stay in the mirror).
    public var sessionsGone = 0
    public var eventsGone = 0
    /// Sessions whose timelines could not be mirrored (now, or still waiting for their retry).
    public var failedSessions: [SessionFailure] = []
    public var promptsSent: Int
    public var promptsFailed: Int
    public var promptsUnconfirmed: Int
    public var seconds: Double
}

import Bridge
import MirrorStore

/// One bridge the engine follows, and what the engine knows of it between requests: its
/// configuration and connector, the history it holds, the stock sessions awaiting a refetch, the
/// live loop's wishes and what the current sync did. The engine's own (its actor's) state: the
/// engine hands a link to its methods, and each reads only what it is given.
final class BridgeLink {
    /// The link's place in the engine's list.
    let id: Int
    let configuration: SyncConfiguration
    /// Opens each connection: over WebSocket, or in-process for tests.
    let connector: any BridgeConnector
    private(set) var state: ConnectionState = .offline
    /// The history of the bridge on the current connection (nil until it is known: live updates
    /// of a history-cursor bridge wait for the catch-up that follows instead).
    var history: HistoryKey?
    /// Stock bridges: sessions that received live updates, and when the last one came.
    var liveSessions: [String: ContinuousClock.Instant] = [:]
    /// The mirror's `PRAGMA data_version` when the outbox was last looked at.
    var outboxVersion: Int64 = -1
    /// History-cursor bridges: a live update came without a seq or after a gap; the live loop
    /// pages from the cursor (once for a burst of them).
    var pagingWanted = false
    /// Whether a seq-less update was logged on this connection (once is enough).
    var seqlessUpdateLogged = false
    /// Whether a gap in live updates was logged at info level on this connection.
    var gapLogged = false
    /// When the bridge's whole list of sessions was last read (for metadata, and for what the
    /// desktop no longer has); kept across reconnects.
    var sessionsListedAt: ContinuousClock.Instant?
    /// The size of the next history page; kept across connections, since a page over the message
    /// limit ends the connection.
    var pageSizer: PageSizer
    /// The connection ended for a reason the next one avoids (a history page over the message
    /// limit, now asked for smaller; a stock session that failed, now put off): worth
    /// reconnecting at once.
    var reconnectAtOnce = false
    /// Stock sessions that failed during this sync (`syncOnce`) or connection (`run`): not tried
    /// again before the next, whatever their retry time.
    var sessionsFailedNow: Set<String> = []
    /// Wakes the live loop before its next tick (a gap to page over).
    var wakeLiveLoop: AsyncStream<Void>.Continuation?
    var report: SyncReport

    init(id: Int, configuration: SyncConfiguration, connector: any BridgeConnector) {
        self.id = id
        self.configuration = configuration
        self.connector = connector
        pageSizer = PageSizer(start: configuration.changesPageSize, messageLimit: configuration.clientOptions.maximumMessageSize)
        report = Self.emptyReport(configuration)
    }

    /// The desktop's short name.
    var desktop: String { configuration.desktopName }

    /// Starts a sync's report afresh.
    func resetReport() {
        report = Self.emptyReport(configuration)
        sessionsFailedNow = []
    }

    /// Forgets what belonged to the connection that ended.
    func startConnection() {
        history = nil
        pagingWanted = false
        seqlessUpdateLogged = false
        gapLogged = false
    }

    /// Records a new state; false when it was the state already.
    func setState(_ newState: ConnectionState) -> Bool {
        guard newState != state else { return false }
        state = newState
        return true
    }

    /// Whether the list of sessions is to be read again: never read yet, or `interval` ago.
    func sessionsListDue(every interval: Duration) -> Bool {
        sessionsListedAt.map { ContinuousClock.now - $0 >= interval } ?? true
    }

    /// Asks the live loop to page from the cursor at once rather than at its next tick.
    func requestPaging() {
        pagingWanted = true
        wakeLiveLoop?.yield()
    }

    private static func emptyReport(_ configuration: SyncConfiguration) -> SyncReport {
        SyncReport(bridgeURL: configuration.bridgeURL, desktop: configuration.desktopName, historyCursor: false,
                   eventsWritten: 0, timelinesFetched: 0, promptsSent: 0, promptsFailed: 0, promptsUnconfirmed: 0, seconds: 0)
    }
}

/// A bridge for the engine to follow: its configuration, and how to reach it.
public struct BridgeTarget: Sendable {
    public var configuration: SyncConfiguration
    public var connector: any BridgeConnector

    public init(configuration: SyncConfiguration, connector: any BridgeConnector) {
        self.configuration = configuration
        self.connector = connector
    }
}

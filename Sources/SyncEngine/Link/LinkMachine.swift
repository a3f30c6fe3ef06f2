import Bridge
import MirrorStore

/// One desktop link's decisions, as a value: what happened goes in (a connection begins or ends,
/// a live batch comes with its seqs, a page is refused, a tick), what to do comes out (the state
/// to record, how long to wait before reconnecting, which updates to append, whether to page from
/// the cursor, what to log). No I/O and no clock of its own: the engine, its driver, performs what
/// it returns and tells it the time, on a clock its tests step themselves.
///
/// What belongs to one connection is one value (`ConnectionScope`), replaced whole when the next
/// connection begins; what outlives connections (the page size, sessions failed in this sync,
/// stock sessions awaiting a refetch, the backoff's count) is kept beside it.
struct LinkMachine<C: Clock>: Sendable where C.Duration == Duration {
    let configuration: SyncConfiguration
    private(set) var state: ConnectionState = .offline
    /// What this sync (`syncOnce`) or run has done so far.
    private(set) var report: SyncReport
    /// What belongs to the current connection.
    private(set) var connection = ConnectionScope()
    /// The size of the next history page; kept across connections, since a page over the message
    /// limit ends the connection.
    private(set) var pageSizer: PageSizer
    /// The connection ended for a reason the next one avoids (a history page over the message
    /// limit, now asked for smaller; a stock session that failed, now put off): worth connecting
    /// again at once.
    private(set) var reconnectAtOnce = false
    /// Stock sessions that failed during this sync or connection: not tried again before the
    /// next, whatever their retry time.
    private(set) var sessionsFailedNow: Set<String> = []
    /// The mirror's `PRAGMA data_version` when the outbox was last looked at.
    private(set) var outboxVersion: Int64 = -1
    /// Stock bridges: sessions with live updates not confirmed yet.
    private(set) var liveSessions = LiveSessions<C.Instant>()
    /// When the bridge's whole list of sessions was last read; kept across connections.
    private var sessionsListedAt: C.Instant?
    /// Connections lost in a row without lasting or writing (the backoff's attempt).
    private(set) var attempt = 0
    /// When the current connection began, and the events written before it.
    private var began: (at: C.Instant, eventsWritten: Int)?

    init(configuration: SyncConfiguration) {
        self.configuration = configuration
        pageSizer = PageSizer(start: configuration.changesPageSize, messageLimit: configuration.clientOptions.maximumMessageSize)
        report = Self.emptyReport(configuration)
    }

    /// The history of the bridge on the current connection (nil until it is known).
    var history: HistoryKey? { connection.history }

    // MARK: Connections

    /// A sync (`syncOnce`) begins: its report starts afresh, and so does its list of failed sessions.
    mutating func beginSync() {
        report = Self.emptyReport(configuration)
        sessionsFailedNow = []
    }

    /// A connection is being opened at `now`: what belonged to the one before is forgotten, and
    /// (when `forgettingFailedSessions`: a run's connection, not a sync's retry) so are the
    /// sessions that failed on it. Returns whether the state changed.
    mutating func connecting(at now: C.Instant, forgettingFailedSessions: Bool) -> Bool {
        connection = ConnectionScope()
        reconnectAtOnce = false
        if forgettingFailedSessions { sessionsFailedNow = [] }
        began = (now, report.eventsWritten)
        return move(to: .connecting)
    }

    /// Moves to `newState`; returns whether it changed (the driver then logs, records and tells it).
    mutating func move(to newState: ConnectionState) -> Bool {
        guard newState != state else { return false }
        state = newState
        return true
    }

    /// The connection that began last ended at `now` as `end` says (a failure was recorded by the
    /// driver): what follows.
    mutating func ended(_ end: ConnectionEnd, at now: C.Instant, random: inout some RandomNumberGenerator) -> AfterConnection {
        switch end {
        case .cancelled:
            return .stop
        case .refused:
            return .abandon
        case .lost:
            let backoff = configuration.backoff
            let lasted = began.map { $0.at.duration(to: now) } ?? .zero
            let madeProgress = began.map { report.eventsWritten > $0.eventsWritten } ?? false
            attempt = backoff.attempt(after: attempt, lasted: lasted, madeProgress: madeProgress)
            return .reconnect(after: backoff.delay(forAttempt: max(attempt - 1, 0), using: &random), attempt: attempt)
        }
    }

    /// In a sync (`syncOnce`), the connection failed after `retries` immediate retries: whether to
    /// connect again at once (it ended for a reason the next one avoids, and retries are left).
    func retriesAtOnce(after retries: Int) -> Bool {
        reconnectAtOnce && retries < Self.onceReconnectLimit
    }

    /// How many times `syncOnce` connects again after a connection ended for a reason the next
    /// one avoids (a page of 5,000 events halves to one in 13; each failed stock session once).
    static var onceReconnectLimit: Int { 32 }

    /// The history of the bridge on this connection became known.
    mutating func historyResolved(_ history: HistoryKey) {
        connection.history = history
    }

    // MARK: Live updates

    /// A history-cursor bridge's live batch (`ConnectionScope.liveUpdates`).
    mutating func liveUpdates(seqs: some Collection<Int64?>, cursor: Int64) -> LiveDecision {
        connection.liveUpdates(seqs: seqs, cursor: cursor)
    }

    /// On the live loop's tick: whether to page from the cursor now.
    mutating func takePaging() -> Bool {
        connection.takePaging()
    }

    /// A stock bridge's live updates of `sessions` were applied at `now`.
    mutating func liveUpdatesApplied(to sessions: some Sequence<String>, at now: C.Instant) {
        liveSessions.applied(to: sessions, at: now)
    }

    /// A stock session's timeline, asked for at `requestedAt`, was mirrored.
    mutating func refetched(_ sessionID: String, askedAt requestedAt: C.Instant) {
        liveSessions.confirmed(sessionID, askedAt: requestedAt)
    }

    /// The stock sessions whose live updates have been quiet for `refetchAfterQuiet` at `now`.
    func quietSessions(at now: C.Instant) -> [String] {
        liveSessions.quiet(for: configuration.refetchAfterQuiet, at: now)
    }

    // MARK: What was done

    /// Counts what the driver did in this sync.
    mutating func tally(_ done: Tally) {
        switch done {
        case .usesHistoryCursor(let cursor): report.historyCursor = cursor
        case .eventsWritten(let count): report.eventsWritten += count
        case .timelineFetched: report.timelinesFetched += 1
        case .promptSent: report.promptsSent += 1
        case .promptFailed: report.promptsFailed += 1
        case .promptUnconfirmed: report.promptsUnconfirmed += 1
        case .gone(let sessions, let events):
            report.sessionsGone += sessions
            report.eventsGone += events
        case .sessionPutOff(let failure):
            report.failedSessions.removeAll { $0.sessionID == failure.sessionID }
            report.failedSessions.append(failure)
        case .finished(let seconds): report.seconds = seconds
        }
    }

    /// A stock session failed for a reason of its own: not tried again in this sync or connection.
    mutating func sessionFailed(_ sessionID: String) {
        sessionsFailedNow.insert(sessionID)
    }

    /// A stock session's failure ended the connection: the next one, which puts it off, may
    /// begin at once.
    mutating func connectionEndedBySession() {
        reconnectAtOnce = true
    }

    /// A session the driver found failed; whether it is put off now (failed in this sync, or
    /// waiting for `retryAfter`, a time of the mirror's clock, past `mirrorNow`).
    func putsOff(_ failure: SessionFailure, mirrorNow: Int64) -> Bool {
        sessionsFailedNow.contains(failure.sessionID) || failure.retryAfter > mirrorNow
    }

    /// A history page of `requested` events was refused as over the message limit (`size`: its
    /// bytes, when known): the next page's size, and a reconnection at once; nil when the page
    /// held one event already (that event is too large).
    mutating func pageRefused(requested: Int, size: Int?) -> Int? {
        guard let next = pageSizer.shrink(afterRefusing: requested, size: size) else { return nil }
        reconnectAtOnce = true
        return next
    }

    /// The outbox was looked at when the mirror's data version was `version`.
    mutating func outboxLooked(atVersion version: Int64) {
        outboxVersion = version
    }

    // MARK: Sessions listed

    /// Whether the list of sessions is to be read again: never read yet, or `sessionsListInterval` ago.
    func sessionsListDue(at now: C.Instant) -> Bool {
        sessionsListedAt.map { $0.duration(to: now) >= configuration.sessionsListInterval } ?? true
    }

    /// The list of sessions was read at `now`.
    mutating func sessionsListed(at now: C.Instant) {
        sessionsListedAt = now
    }

    private static func emptyReport(_ configuration: SyncConfiguration) -> SyncReport {
        SyncReport(bridgeURL: configuration.bridgeURL, desktop: configuration.desktopName, historyCursor: false,
                   eventsWritten: 0, timelinesFetched: 0, promptsSent: 0, promptsFailed: 0, promptsUnconfirmed: 0, seconds: 0)
    }
}

/// What a connection's end was, as the link's decisions see it.
enum ConnectionEnd: Sendable, Equatable {
    /// The engine's task was cancelled: it stops.
    case cancelled
    /// The bridge cannot be trusted (its certificate is not the one pinned): not tried again.
    case refused
    /// The connection was lost or its work failed: tried again.
    case lost
}

/// What follows a connection's end.
enum AfterConnection: Sendable, Equatable {
    case stop
    /// Give up this bridge.
    case abandon
    /// Connect again after waiting `after` (the backoff's `attempt`).
    case reconnect(after: Duration, attempt: Int)
}

/// Something a sync did, as its report counts it.
enum Tally: Sendable, Equatable {
    case usesHistoryCursor(Bool)
    case eventsWritten(Int)
    case timelineFetched
    case promptSent
    case promptFailed
    case promptUnconfirmed
    case gone(sessions: Int, events: Int)
    /// A stock session failed, or is waiting for its retry.
    case sessionPutOff(SessionFailure)
    case finished(seconds: Double)
}

/// What belongs to one connection, forgotten with it.
struct ConnectionScope: Sendable, Equatable {
    /// The history of the bridge (nil until known: live updates of a history-cursor bridge wait
    /// for the catch-up that follows instead).
    var history: HistoryKey?
    /// History-cursor bridges: a live update came without a seq or after a gap; the live loop
    /// pages from the cursor (once for a burst of them).
    var pagingWanted = false
    /// A seq-less update was logged (once a connection is enough).
    var seqlessUpdateLogged = false
    /// A gap in live updates was logged at info level.
    var gapLogged = false
}

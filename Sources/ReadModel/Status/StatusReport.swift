import Bridge
import MirrorStore

/// What `status` reports: the mirror, the bridge and connection as oa-sync last wrote them, the
/// contents, the prompts, each desktop's history and the sessions that could not be mirrored;
/// encoded member for member as `docs/cli.md` documents `status`.
public struct StatusReport: Sendable, Encodable {
    public var mirror: String
    /// The bridge last synced from; nil when the mirror never was.
    public var bridge: String?
    /// The certificate pin remembered for a wss:// bridge (the one in force unless oa-sync is
    /// given another).
    public var tlsPin: String?
    public var connectionState: ConnectionState?
    public var stateSince: Timestamp?
    public var lastSuccess: Timestamp?
    public var lastError: String?
    /// The cursor of the history last connected to, which live updates move too; nil when never
    /// synced by cursor.
    public var historyCursor: Int64?
    public var sessions: Int
    public var events: Int
    public var threads: Int
    /// Prompts queued or being sent.
    public var promptsPending: Int
    public var promptsFailed: Int
    public var promptsUnconfirmed: Int
    public var desktops: [DesktopStatus]
    /// Sessions whose timelines could not be mirrored, retried with backoff.
    public var failedSessions: [FailedSession]

    enum CodingKeys: String, CodingKey {
        case mirror, bridge, tlsPin = "tls_pin", connectionState = "connection_state", stateSince = "state_since"
        case lastSuccess = "last_success", lastError = "last_error", historyCursor = "history_cursor"
        case sessions, events, threads, promptsPending = "prompts_pending", promptsFailed = "prompts_failed"
        case promptsUnconfirmed = "prompts_unconfirmed", desktops, failedSessions = "failed_sessions"
    }

    /// One desktop history the mirror holds, with its desktop's connection as oa-sync last wrote
    /// it (for the desktop's current history only).
    public struct DesktopStatus: Sendable, Encodable {
        public var desktop: String
        public var historyID: String
        /// How the history is named: by the desktop (`history_id`) or by this mirror.
        public var namedBy: String
        public var bridge: String?
        public var connectionState: ConnectionState?
        public var lastError: String?
        public var historyCursor: Int64
        public var sessions: Int
        public var lastConnected: Timestamp?
        public var lastSync: Timestamp?
        /// When the desktop was found to hold another history: this one is kept, not synced.
        public var goneFromDesktopAt: Timestamp?

        enum CodingKeys: String, CodingKey {
            case desktop, historyID = "history_id", namedBy = "named_by", bridge, connectionState = "connection_state"
            case lastError = "last_error", historyCursor = "history_cursor", sessions, lastConnected = "last_connected"
            case lastSync = "last_sync", goneFromDesktopAt = "gone_from_desktop_at"
        }
    }

    /// A session whose timeline could not be mirrored.
    public struct FailedSession: Sendable, Encodable {
        public var sessionID: String
        public var syncError: String
        public var syncErrorAt: Timestamp
        public var retryAfter: Timestamp
        public var failures: Int

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", syncError = "sync_error", syncErrorAt = "sync_error_at", retryAfter = "retry_after", failures
        }
    }
}

extension StatusReport {
    /// Reads the report of the mirror at `mirrorPath` from `store`, in one read.
    static func read(mirrorPath: String, store: MirrorStore) throws -> StatusReport {
        try store.read {
            // The desktop written last speaks for the mirror.
            let statuses = try store.desktopStatuses()
            let latest = statuses.first
            let counts = try store.counts()
            let histories = try store.histories()
            let pin = try latest.flatMap { try store.rememberedPin(forBridge: $0.bridgeURL) }
            let cursor = histories.max { ($0.lastConnectedAt ?? 0, $0.key) < ($1.lastConnectedAt ?? 0, $1.key) }?.cursor ?? 0
            return StatusReport(
                mirror: mirrorPath, bridge: latest?.bridgeURL, tlsPin: pin.flatMap(CertificatePin.init(parsing:))?.description,
                connectionState: latest?.connectionState, stateSince: Timestamp(milliseconds: latest?.stateSince),
                // The last success of any desktop: one that keeps failing is often the one written last.
                lastSuccess: Timestamp(milliseconds: statuses.compactMap(\.lastSuccessAt).max()),
                lastError: latest?.lastError, historyCursor: cursor > 0 ? cursor : nil,
                sessions: counts.sessions, events: counts.events, threads: counts.threads,
                promptsPending: (counts.outbox[.queued] ?? 0) + (counts.outbox[.sending] ?? 0),
                promptsFailed: counts.outbox[.failed] ?? 0, promptsUnconfirmed: counts.outbox[.unconfirmed] ?? 0,
                desktops: histories.map { history in DesktopStatus(history, status: statuses.first { $0.desktop == history.desktop }) },
                failedSessions: try store.failedSessions().map(FailedSession.init)
            )
        }
    }
}

extension StatusReport.DesktopStatus {
    init(_ history: HistoryRecord, status: DesktopSyncStatus?) {
        let current = history.goneAt == nil
        desktop = history.desktop
        historyID = history.historyID
        namedBy = history.identity.rawValue
        bridge = history.bridgeURL
        connectionState = current ? status?.connectionState : nil
        lastError = current ? status?.lastError : nil
        historyCursor = history.cursor
        sessions = history.sessionCount
        lastConnected = Timestamp(milliseconds: history.lastConnectedAt)
        lastSync = Timestamp(milliseconds: history.lastSyncedAt)
        goneFromDesktopAt = Timestamp(milliseconds: history.goneAt)
    }
}

extension StatusReport.FailedSession {
    init(_ failure: SessionFailure) {
        sessionID = failure.sessionID
        syncError = failure.reason
        syncErrorAt = Timestamp(milliseconds: failure.failedAt)
        retryAfter = Timestamp(milliseconds: failure.retryAfter)
        failures = failure.failures
    }
}

/// Where syncing stands with one desktop, as the mirror records it (`schema/0017_desktop_status.sql`):
/// written by the engine as it goes, read by `status`.
public struct DesktopSyncStatus: Sendable, Equatable {
    /// The desktop's short name.
    public var desktop: String
    /// The bridge it was last reached at.
    public var bridgeURL: String
    public var connectionState: ConnectionState
    /// When it entered that state (ms since the epoch).
    public var stateSince: Int64
    /// When its last catch-up ended well.
    public var lastSuccessAt: Int64?
    /// The last problem since then, and when it came.
    public var lastError: String?
    public var lastErrorAt: Int64?
    /// When the record was last written.
    public var updatedAt: Int64
}

/// What happened to a desktop's sync, as its status records it.
public enum DesktopStatusChange: Sendable, Equatable {
    /// It is in a new state.
    case state(ConnectionState)
    /// A catch-up ended well: the last problem is forgotten.
    case succeeded
    /// A problem, said as it is shown.
    case failed(String)
}

extension MirrorStore {
    /// Records a change of the status of the desktop `desktop`, reached at `bridgeURL` (a desktop
    /// not seen yet starts offline).
    public func recordStatus(_ change: DesktopStatusChange, desktop: String, bridgeURL: String) throws {
        try write {
            let now = clock.now()
            try database.run(
                """
                INSERT INTO desktop_status (desktop, bridge_url, connection_state, state_since, updated_at) VALUES (?1, ?2, 'offline', ?3, ?3)
                ON CONFLICT (desktop) DO UPDATE SET bridge_url = ?2, updated_at = ?3
                """,
                [desktop, bridgeURL, now]
            )
            switch change {
            case .state(let state):
                try database.run("UPDATE desktop_status SET connection_state = ?2, state_since = ?3 WHERE desktop = ?1",
                                 [desktop, state.rawValue, now])
            case .succeeded:
                try database.run("UPDATE desktop_status SET last_success_at = ?2, last_error = NULL, last_error_at = NULL WHERE desktop = ?1",
                                 [desktop, now])
            case .failed(let message):
                try database.run("UPDATE desktop_status SET last_error = ?2, last_error_at = ?3 WHERE desktop = ?1",
                                 [desktop, message, now])
            }
        }
    }

    /// The bridge of the desktop whose status was written last (nil when the mirror never synced).
    public func lastBridgeURL() throws -> String? {
        try database.queryFirst("SELECT bridge_url FROM desktop_status ORDER BY updated_at DESC, desktop LIMIT 1") { $0.string(0) }
    }

    /// Every desktop's status, the one written last first.
    public func desktopStatuses() throws -> [DesktopSyncStatus] {
        try database.query(
            """
            SELECT desktop, bridge_url, connection_state, state_since, last_success_at, last_error, last_error_at, updated_at
            FROM desktop_status ORDER BY updated_at DESC, desktop
            """
        ) {
            DesktopSyncStatus(
                desktop: $0.string(0), bridgeURL: $0.string(1), connectionState: ConnectionState(rawValue: $0.string(2)) ?? .offline,
                stateSince: $0.int64(3), lastSuccessAt: $0.optionalInt64(4), lastError: $0.optionalString(5),
                lastErrorAt: $0.optionalInt64(6), updatedAt: $0.int64(7)
            )
        }
    }
}

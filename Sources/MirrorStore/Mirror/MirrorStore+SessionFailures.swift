/// A session whose timeline could not be mirrored: why, since when, and when it is tried again.
public struct SessionFailure: Sendable, Equatable {
    public var sessionID: String
    public var reason: String
    /// When the last try failed, in milliseconds since the epoch.
    public var failedAt: Int64
    /// Not tried again before this time.
    public var retryAfter: Int64
    /// Failures in a row.
    public var failures: Int
}

/// Sessions that could not be mirrored (`schema/0010_session_failures.sql`): marked with their
/// reason, retried with backoff, cleared by the next fetch that succeeds.
extension MirrorStore {
    /// Marks `sessionID` failed with `reason`, not to be tried again for `backoff(failures)`
    /// milliseconds (`failures`: this failure's number in a row, from 1); returns the failure.
    @discardableResult
    public func markSessionFailed(_ sessionID: String, reason: String, backoff: (Int) -> Int64) throws -> SessionFailure? {
        try write {
            let now = clock.now()
            guard let earlier = try database.scalarInt64("SELECT sync_failures FROM sessions WHERE session_id = ?", [sessionID]) else {
                return nil
            }
            let failures = Int(earlier) + 1
            let retryAfter = now + backoff(failures)
            try database.run(
                "UPDATE sessions SET sync_error = ?, sync_error_at = ?, retry_after = ?, sync_failures = ? WHERE session_id = ?",
                [reason, now, retryAfter, Int64(failures), sessionID]
            )
            return SessionFailure(sessionID: sessionID, reason: reason, failedAt: now, retryAfter: retryAfter, failures: failures)
        }
    }

    /// Clears the failure of `sessionID` (its timeline was mirrored).
    public func clearSessionFailure(_ sessionID: String) throws {
        try write {
            try database.run("""
                UPDATE sessions SET sync_error = NULL, sync_error_at = NULL, retry_after = NULL, sync_failures = 0
                WHERE session_id = ? AND sync_failures > 0
                """, [sessionID])
        }
    }

    /// The failure of `sessionID`, if its last try failed.
    public func sessionFailure(_ sessionID: String) throws -> SessionFailure? {
        try database.queryFirst(
            "SELECT session_id, sync_error, sync_error_at, retry_after, sync_failures FROM sessions WHERE session_id = ? AND sync_error IS NOT NULL",
            [sessionID], Self.sessionFailure)
    }

    /// Every session whose last try failed, oldest failure first.
    public func failedSessions() throws -> [SessionFailure] {
        try database.query(
            "SELECT session_id, sync_error, sync_error_at, retry_after, sync_failures FROM sessions WHERE sync_error IS NOT NULL ORDER BY sync_error_at",
            [], Self.sessionFailure)
    }

    private static func sessionFailure(_ row: Row) -> SessionFailure {
        SessionFailure(sessionID: row.string(0), reason: row.string(1), failedAt: row.int64(2), retryAfter: row.optionalInt64(3) ?? 0,
                       failures: Int(row.int64(4)))
    }
}

import Bridge
import MirrorStore

/// A stock session that cannot be mirrored fails alone: marked with its reason
/// (`MirrorStore.markSessionFailed`), put off with backoff, and the other sessions go on.
extension SyncEngine {
    /// Refetches a session (`refetch`); when that fails for a reason of the session's own (its
    /// timeline over the message limit, undecodable, or not answered in time), marks it failed
    /// and returns 0, or, when the failure ended the connection, rethrows after asking for an
    /// immediate reconnect (`LinkMachine.reconnectAtOnce`), which skips the session until its retry.
    func refetchIsolated(_ sessionID: String, watermark: SessionWatermark?, client: any BridgeConnection, _ link: BridgeLink) async throws -> Int {
        do {
            let written = try await refetch(sessionID, watermark: watermark, client: client, link)
            try store.clearSessionFailure(sessionID)
            return written
        } catch let error as BridgeError {
            guard let endsConnection = Self.failsSessionAlone(error) else { throw error }
            try markFailed(sessionID, reason: error.description, link)
            if endsConnection {
                machines[link.id].connectionEndedBySession()
                throw error
            }
            return 0
        }
    }

    /// True when the session is waiting for its retry, or failed earlier in this sync (it is then
    /// counted among the report's failures).
    func isPutOff(_ sessionID: String, _ link: BridgeLink) throws -> Bool {
        guard let failure = try store.sessionFailure(sessionID),
              machines[link.id].putsOff(failure, mirrorNow: store.clock.now()) else { return false }
        note(failure, link)
        return true
    }

    /// For an error that is the session's own: whether it ended the connection; nil for others.
    private static func failsSessionAlone(_ error: BridgeError) -> Bool? {
        switch error {
        case .messageTooLarge: true
        // A stock bridge's connection is closed after a timeout (it may still answer).
        case .timedOut: true
        case .unexpectedResult: false
        default: nil
        }
    }

    private func markFailed(_ sessionID: String, reason: String, _ link: BridgeLink) throws {
        let configuration = link.configuration
        guard let failure = try store.markSessionFailed(sessionID, reason: reason, backoff: { failures in
            Self.retryDelay(afterFailures: failures, configuration)
        }) else { return }
        machines[link.id].sessionFailed(sessionID)
        logger.error("a session could not be mirrored; the others go on", metadata: [
            "desktop": "\(link.desktop)", "session_id": "\(sessionID)", "reason": "\(reason)",
            "failures": "\(failure.failures)", "retry_after": "\(failure.retryAfter)",
        ])
        observer(link.desktop, .sessionNotMirrored(failure))
        note(failure, link)
    }

    private func note(_ failure: SessionFailure, _ link: BridgeLink) {
        machines[link.id].tally(.sessionPutOff(failure))
    }

    /// Milliseconds before a session failed `failures` times in a row is tried again.
    static func retryDelay(afterFailures failures: Int, _ configuration: SyncConfiguration) -> Int64 {
        let first = configuration.failedSessionRetry / .milliseconds(1)
        let cap = configuration.failedSessionRetryCap / .milliseconds(1)
        let grown = first * Double(1 << min(max(failures - 1, 0), 20))
        return Int64(min(grown, cap))
    }
}

import Bridge
import MirrorStore

/// Delivering queued prompts.
extension SyncEngine {
    /// Creates on the bridge the sessions made offline, then sends every claimable prompt, one at a
    /// time, each session's in the order they were queued.
    ///
    /// A refused prompt is marked failed with the bridge's message. A prompt whose answer is lost
    /// (timeout, connection gone) goes back to the queue when the bridge de-duplicates by
    /// `client_message_id`, and is marked unconfirmed otherwise; delivery stops there.
    func deliverOutbox(_ client: any BridgeConnection) async throws {
        outboxVersion = try store.dataVersion()
        for localID in try store.sessionsAwaitingCreation() {
            let serverID = try await client.newSession()
            try store.remapSession(localID: localID, to: serverID)
            logger.info("created a session made offline", metadata: ["local_id": "\(localID)", "session_id": "\(serverID)"])
        }
        let canResendSafely = await client.capabilities.hasHistoryCursor
        while let item = try store.claimNextOutboxItem() {
            do {
                _ = try await client.prompt(sessionID: item.sessionID, text: item.text,
                                            clientMessageID: canResendSafely ? item.clientMessageID : nil)
                try store.markOutboxSent(id: item.id)
                report.promptsSent += 1
            } catch BridgeError.server(_, let error) {
                try store.markOutboxFailed(id: item.id, error: error.message)
                report.promptsFailed += 1
                logger.warning("the bridge refused a prompt", metadata: ["outbox_id": "\(item.id)", "error": "\(error.message)"])
            } catch {
                if canResendSafely {
                    try store.returnToQueue(id: item.id)
                } else {
                    try store.markOutboxUnconfirmed(id: item.id, reason: "no answer from the bridge: \(error)")
                    report.promptsUnconfirmed += 1
                }
                throw error
            }
        }
    }

    /// Delivers prompts if the mirror changed since the outbox was last looked at (another
    /// process may have queued some).
    func deliverOutboxIfChanged(_ client: any BridgeConnection) async throws {
        guard try store.dataVersion() != outboxVersion else { return }
        try await deliverOutbox(client)
    }
}

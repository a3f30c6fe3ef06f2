import Bridge
import MirrorStore

/// Delivering queued prompts, each to the desktop its session lives on.
extension SyncEngine {
    /// Creates on the bridge the sessions made offline, then sends every claimable prompt, one at a
    /// time, each session's in the order they were queued.
    ///
    /// A refused prompt is marked failed with the bridge's message. A prompt whose answer is lost
    /// (timeout, connection gone) goes back to the queue when the bridge de-duplicates by
    /// `client_message_id`, and is marked unconfirmed otherwise; delivery stops there.
    func deliverOutbox(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        machines[link.id].outboxLooked(atVersion: try store.dataVersion())
        let scope = outboxScope(of: link)
        for localID in try store.sessionsAwaitingCreation(scope: scope) {
            let serverID = try await client.newSession()
            try store.remapSession(localID: localID, to: serverID, history: machines[link.id].history)
            logger.info("created a session made offline", metadata: [
                "desktop": "\(link.desktop)", "local_id": "\(localID)", "session_id": "\(serverID)",
            ])
        }
        let canResendSafely = await client.capabilities.hasHistoryCursor
        while let item = try store.claimNextOutboxItem(scope: scope) {
            do {
                _ = try await client.prompt(sessionID: item.sessionID, text: item.text,
                                            clientMessageID: canResendSafely ? item.clientMessageID : nil)
                try store.markOutboxSent(id: item.id)
                machines[link.id].tally(.promptSent)
            } catch BridgeError.server(_, let error) {
                try store.markOutboxFailed(id: item.id, error: error.message)
                machines[link.id].tally(.promptFailed)
                logger.warning("the bridge refused a prompt", metadata: ["outbox_id": "\(item.id)", "error": "\(error.message)"])
            } catch {
                if canResendSafely {
                    try store.returnToQueue(id: item.id)
                } else {
                    try store.markOutboxUnconfirmed(id: item.id, reason: "no answer from the bridge: \(error)")
                    machines[link.id].tally(.promptUnconfirmed)
                }
                throw error
            }
        }
    }

    /// Delivers prompts if the mirror changed since the outbox was last looked at (another
    /// process may have queued some).
    func deliverOutboxIfChanged(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        guard try store.dataVersion() != machines[link.id].outboxVersion else { return }
        try await deliverOutbox(client, link)
    }

    /// The prompts a bridge delivers: those of the sessions of its history, and, when it is the
    /// engine's only bridge, those of sessions made offline for no desktop in particular.
    func outboxScope(of link: BridgeLink) -> OutboxScope {
        OutboxScope(history: machines[link.id].history, includingUnassigned: links.count == 1)
    }
}

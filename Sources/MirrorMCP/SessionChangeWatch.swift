import Commands
import Logging
import MCP
import MirrorStore

/// Sends `notifications/resources/updated` for the subscribed sessions that oa-sync commits new
/// events (or removals, confirmations, prompts' changes) to, woken by the mirror's file watch as
/// `follow` is: no polling.
enum SessionChangeWatch {
    /// Runs until cancelled.
    static func run(mirrorPath: String, subscriptions: ResourceSubscriptions, server: Server, logger: Logger) async {
        await MirrorChangeSignal.withSignal(mirrorPath: mirrorPath) { signal in
            let reader = MirrorReader(mirrorPath: mirrorPath)
            var position: FeedPosition?
            var generation = signal.generation
            while !Task.isCancelled {
                do {
                    position = try await changedSessions(after: position, reader: reader, subscriptions: subscriptions) { sessions in
                        for uri in subscriptions.uris(for: sessions) {
                            try await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
                        }
                    }
                } catch {
                    logger.warning("following the mirror for subscriptions failed", metadata: ["error": "\(error)"])
                    position = nil
                }
                guard let next = await signal.change(after: generation) else { return }
                generation = next
            }
        }
    }

    /// Reads what was committed after `position` (from now on when nil) and hands over the
    /// sessions it touched, when any is subscribed to; the position after it.
    private static func changedSessions(
        after position: FeedPosition?, reader: MirrorReader, subscriptions: ResourceSubscriptions,
        _ changed: (Set<String>) async throws -> Void
    ) async throws -> FeedPosition? {
        guard var position, !subscriptions.isEmpty else {
            let end = try await reader.end()
            return end == .start ? nil : end
        }
        while let (page, _) = try await reader.page(after: position, sessionKey: nil, limit: 500, unchangedSince: nil) {
            position = page.position
            let sessions = Set(page.items.map(\.sessionID))
            if !sessions.isEmpty { try await changed(sessions) }
            if !page.isPartial { break }
        }
        return position
    }
}

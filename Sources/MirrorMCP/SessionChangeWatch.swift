import Commands
import Logging
import MCP

/// Sends `notifications/resources/updated` for the subscribed sessions that oa-sync commits new
/// events (or removals, confirmations, prompts' changes) to, woken by the mirror's file watch as
/// `follow` is: no polling (`ChangedSessions`).
enum SessionChangeWatch {
    /// Runs until cancelled.
    static func run(mirrorPath: String, subscriptions: ResourceSubscriptions, server: Server, logger: Logger) async {
        await ChangedSessions.follow(mirrorPath: mirrorPath, isWanted: { !subscriptions.isEmpty }) { error in
            logger.warning("following the mirror for subscriptions failed", metadata: ["error": "\(error)"])
        } changed: { sessions in
            for uri in subscriptions.uris(for: sessions) {
                try await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
            }
        }
    }
}

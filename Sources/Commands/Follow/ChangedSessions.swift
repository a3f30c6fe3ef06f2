import MirrorStore

/// The sessions oa-sync's commits change, for a front end that tells its readers so (MCP's
/// resource subscriptions, the web viewer's open pages): one follower of the mirror's change log,
/// woken by its file watch (`MirrorChangeSignal`: no polling).
public enum ChangedSessions {
    /// Follows the mirror at `mirrorPath` until cancelled and hands over, after each read of what
    /// was committed, the ids of the sessions it touched (events appended or removed, prompts'
    /// changes). While `isWanted` says no one listens, it only keeps its place at the end. A read
    /// that fails goes to `failed`; the follower then goes on from the end.
    public static func follow(
        mirrorPath: String,
        isWanted: () -> Bool = { true },
        failed: (any Error) -> Void,
        changed: (Set<String>) async throws -> Void
    ) async {
        await MirrorChangeSignal.withSignal(mirrorPath: mirrorPath) { signal in
            let reader = MirrorReader(mirrorPath: mirrorPath)
            var position: FeedPosition?
            var generation = signal.generation
            while !Task.isCancelled {
                do {
                    if var start = position, isWanted() {
                        while let (page, _) = try await reader.page(after: start, sessionKey: nil, limit: 500, unchangedSince: nil) {
                            start = page.position
                            let sessions = Set(page.items.map(\.sessionID))
                            if !sessions.isEmpty { try await changed(sessions) }
                            if !page.isPartial { break }
                        }
                        position = start
                    } else {
                        let end = try await reader.end()
                        position = end == .start ? nil : end
                    }
                } catch {
                    failed(error)
                    position = nil
                }
                guard let next = await signal.change(after: generation) else { return }
                generation = next
            }
        }
    }
}

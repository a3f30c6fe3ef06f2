import MirrorStore

/// Where a session stands in the mirror, the first that applies, as `sessions` shows it.
public enum SessionState: String, Sendable, Encodable {
    /// Made offline: not on a desktop yet.
    case local
    /// No longer on its desktop: kept here.
    case gone
    /// Its timeline could not be mirrored (`sync_error`; retried with backoff).
    case failed
    /// Live updates await confirmation by a fetch.
    case provisional
    /// The mirror holds fewer of its events than the bridge reported.
    case incomplete
    /// Prompts are queued for it.
    case pending
    case synced

    /// The state of `session`, asking `store` for its provisional events and queued prompts.
    static func of(_ session: SessionSummary, store: MirrorStore) throws -> SessionState {
        if session.origin == .local { return .local }
        if session.goneAt != nil { return .gone }
        if session.syncError != nil { return .failed }
        if try store.hasProvisionalEvents(sessionID: session.sessionID) { return .provisional }
        if let reported = session.serverEventCount, session.localEventCount < reported { return .incomplete }
        return try store.pendingPromptCount(sessionID: session.sessionID) > 0 ? .pending : .synced
    }
}

/// A stock bridge's sessions with live updates not confirmed yet: the updates are shown at once,
/// provisional, and their session is fetched again once they have been quiet for a while, to
/// confirm them.
struct LiveSessions<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// When each session's last live update came.
    private var lastUpdate: [String: Instant] = [:]

    /// Live updates of `sessions` were applied at `now`.
    mutating func applied(to sessions: some Sequence<String>, at now: Instant) {
        for sessionID in sessions { lastUpdate[sessionID] = now }
    }

    /// The sessions, in order.
    var sessionIDs: [String] { lastUpdate.keys.sorted() }

    func contains(_ sessionID: String) -> Bool {
        lastUpdate[sessionID] != nil
    }

    /// The sessions whose live updates have been quiet for `quiet` at `now`, in order.
    func quiet(for quiet: Duration, at now: Instant) -> [String] {
        lastUpdate.filter { $0.value.duration(to: now) >= quiet }.keys.sorted()
    }

    /// Whether a timeline of the session asked for at `requestedAt` holds all its live updates
    /// (none came after the request).
    func heldByTimeline(_ sessionID: String, askedAt requestedAt: Instant) -> Bool {
        lastUpdate[sessionID].map { $0 <= requestedAt } ?? true
    }

    /// The session's timeline, asked for at `requestedAt`, was mirrored: its live updates until
    /// then are confirmed.
    mutating func confirmed(_ sessionID: String, askedAt requestedAt: Instant) {
        if let last = lastUpdate[sessionID], last <= requestedAt {
            lastUpdate.removeValue(forKey: sessionID)
        }
    }
}

import MirrorStore

/// The loop that follows the mirror for one follower: reads what was committed after its
/// position, hands it over, and waits for the next change (no polling: `MirrorChangeSignal`).
///
/// `deliver` is awaited before the next read, so a follower that does not keep up (a script
/// that does not read its standard output) holds the feed back: it waits, in bounded memory,
/// and loses nothing.
public enum EventFeed {
    /// How a feed ended.
    public enum End: Sendable, Equatable {
        /// Nothing new came for the request's idle limit.
        case idle
        /// The task was cancelled, or the signal stopped.
        case stopped
        /// The session followed, made offline, was merged into the bridge's session `into`.
        case merged(into: String)
    }

    /// Events (and changes) per read: enough for a burst, small enough for one line of JSON.
    static let pageLimit = 500

    /// Follows `request` until it is idle for its limit, or the task is cancelled.
    public static func run(
        _ request: FeedRequest,
        reader: MirrorReader,
        signal: MirrorChangeSignal,
        deliver: ([FeedItem]) async throws -> Void
    ) async throws -> End {
        let clock = ContinuousClock()
        var position = request.start
        var readVersion: Int64?
        var lastNews = clock.now
        while !Task.isCancelled {
            let seen = signal.generation
            if let (page, version) = try await reader.page(after: position, sessionKey: request.sessionKey, desktop: request.desktop,
                                                         limit: pageLimit, unchangedSince: readVersion) {
                position = page.position
                readVersion = page.isPartial ? nil : version
                if !page.items.isEmpty {
                    try await deliver(page.items)
                    lastNews = clock.now
                }
                if request.sessionKey != nil, let into = page.items.lazy.compactMap(\.mergedInto).first {
                    return .merged(into: into)
                }
                if page.isPartial { continue }
            }
            guard let idleLimit = request.idleLimit else {
                guard await signal.change(after: seen) != nil else { return .stopped }
                continue
            }
            switch await change(of: signal, after: seen, before: lastNews + idleLimit) {
            case .changed: continue
            case .deadline: return .idle
            case .stopped: return .stopped
            }
        }
        return .stopped
    }

    private enum Wait: Sendable {
        case changed
        case deadline
        case stopped
    }

    /// Waits for a change after `seen`, or for `deadline`, whichever comes first.
    private static func change(of signal: MirrorChangeSignal, after seen: Int, before deadline: ContinuousClock.Instant) async -> Wait {
        guard ContinuousClock.now < deadline else { return .deadline }
        return await withTaskGroup(of: Wait.self) { group in
            group.addTask { await signal.change(after: seen) == nil ? .stopped : .changed }
            group.addTask {
                do {
                    try await Task.sleep(until: deadline)
                    return .deadline
                } catch {
                    return .stopped
                }
            }
            let first = await group.next() ?? .stopped
            group.cancelAll()
            return first
        }
    }
}

extension FeedItem {
    /// Where the session went, for a merge.
    fileprivate var mergedInto: String? {
        if case .sessionMerged(_, let into) = self { into } else { nil }
    }
}

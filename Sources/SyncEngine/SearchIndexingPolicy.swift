import MirrorStore

/// When the mirror's full-text index is fed, in one place: the engine's one policy for it, as a
/// value that is told what happens and returns what to do (no I/O, no clock of its own: each
/// input carries its instant), so that it is tested on sequences of inputs alone.
///
/// - A history-cursor catch-up indexes with each of its transactions (the text is at hand: the
///   index grows beside the rows instead of in a long pass at the end), and live commits wait
///   while any catch-up runs.
/// - Live updates are indexed with their commit, except during a burst (more were already waiting
///   when the batch was taken, or the batch was large) and for `burstSettlingTime` after it: then
///   what waits is indexed once each `burstIndexingInterval`, after a commit, so that a burst is
///   absorbed at about the speed of its rows alone and what it brings is still searchable within
///   a second; what is left follows in bounded steps (the next commits and the live loop's idle
///   ticks) once it is over, so that no commit after it waits long.
/// - After many events were indexed in steps, the index is merged once, by the step that finds
///   nothing left.
/// - While a catch-up of more than one transaction runs, the index's segments are not merged as
///   it grows (`SearchIndexMerging.deferred`); the first step after the last catch-up ends merges
///   as it grows again. A run stopped in a catch-up leaves merging deferred; the next catch-up's end
///   merges the index and restores it.
///
/// Each write is told how to index by an argument (`SearchIndexingMode`); the engine performs the
/// `SearchIndexingAction`s on the store and reports what indexing covered (`indexed(_:limit:)`).
struct SearchIndexingPolicy<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Events indexed in steps since the index was last merged.
    private var indexedSinceMerge = 0
    /// History-cursor catch-ups running now.
    private var catchUpsRunning = 0
    /// When the last live batch that was part of a burst was taken.
    private var lastBurstBatchAt: Instant?
    /// When live commits last indexed.
    private var lastLiveIndexingAt: Instant?
    /// Whether a catch-up deferred the index's merging (`SearchIndexMerging.deferred`).
    private var mergingDeferred = false
    /// Transactions of the catch-ups running now.
    private var catchUpCommits = 0

    /// How a commit indexes: what to do before it, the mode of the write, what to do after it.
    struct Commit: Equatable {
        var before: [SearchIndexingAction] = []
        var mode: SearchIndexingMode
        var after: [SearchIndexingAction] = []
    }

    /// A history-cursor catch-up begins; `mergingLeftDeferred` says the mirror's index merging is
    /// deferred now (a run stopped in a catch-up left it so: what it indexed is merged at this
    /// one's end).
    mutating func catchUpStarted(mergingLeftDeferred: Bool) {
        if !mergingDeferred && mergingLeftDeferred {
            mergingDeferred = true
            indexedSinceMerge = max(indexedSinceMerge, Self.mergeAfterIndexing)
        }
        catchUpsRunning += 1
    }

    /// A catch-up ended, having written `written` events (indexed in its transactions, or put off).
    mutating func catchUpEnded(written: Int) {
        catchUpsRunning -= 1
        if catchUpsRunning == 0 { catchUpCommits = 0 }
        indexedSinceMerge += written
    }

    /// A catch-up's commit: it indexes its own events (and live ones put off meanwhile), unless
    /// it pages over a gap during a burst, which leaves indexing to after the burst. From a
    /// catch-up's second transaction on, the index's merging waits for the catch-ups' end; one of
    /// a single transaction (a reconnect's) leaves merging as it is.
    mutating func catchUpCommit(at now: Instant) -> Commit {
        var before: [SearchIndexingAction] = []
        if catchUpCommits > 0 && !mergingDeferred {
            before.append(.setMerging(.deferred))
            mergingDeferred = true
        }
        catchUpCommits += 1
        return Commit(before: before, mode: burstIsRecent(at: now) ? .putOff : .withCommit)
    }

    /// A live batch's commit: notes a burst, and puts indexing off during one; once each
    /// `burstIndexingInterval` of a burst, what waits is indexed after the commit (in a
    /// transaction of its own: the burst's events of that interval, a step that grows with the
    /// burst's rate, not with its length).
    mutating func liveCommit(moreWaiting: Bool, batchSize: Int, at now: Instant) -> Commit {
        if moreWaiting || batchSize >= Self.burstBatchSize { lastBurstBatchAt = now }
        let inBurst = burstIsRecent(at: now)
        let indexesAfter = catchUpsRunning == 0 && inBurst && liveIndexingDue(at: now)
        if indexesAfter { lastLiveIndexingAt = now }
        return Commit(mode: mode(at: now), after: indexesAfter ? [.indexPending(atMost: nil)] : [])
    }

    /// How a write other than a catch-up's or a live batch's (a stock timeline fetched again)
    /// indexes: put off while a catch-up runs or a burst is recent, with its commit otherwise.
    func mode(at now: Instant) -> SearchIndexingMode {
        catchUpsRunning > 0 || burstIsRecent(at: now) ? .putOff : .withCommit
    }

    /// The live loop's tick: with nothing waiting, no catch-up and no burst lately, what was put
    /// off goes on, a step a tick; while a burst settles, what its last commits put off is indexed
    /// each `burstIndexingInterval` still.
    mutating func tick(notificationsWaiting: Int, at now: Instant) -> [SearchIndexingAction] {
        guard catchUpsRunning == 0 && notificationsWaiting == 0 else { return [] }
        guard !burstIsRecent(at: now) else {
            guard liveIndexingDue(at: now) else { return [] }
            lastLiveIndexingAt = now
            return [.indexPending(atMost: nil)]
        }
        return step()
    }

    /// The next step of events still to index (`MirrorStore.searchIndexingPerWrite`); with no
    /// catch-up running, the index merges as it grows again first.
    mutating func step() -> [SearchIndexingAction] {
        var actions: [SearchIndexingAction] = []
        if mergingDeferred && catchUpsRunning == 0 {
            actions.append(.setMerging(.asItGrows))
            mergingDeferred = false
        }
        actions.append(.indexPending(atMost: MirrorStore.searchIndexingPerWrite))
        return actions
    }

    /// Indexing of at most `limit` events (all waiting, when nil) covered `covered` event ids;
    /// once a step finds fewer than its limit left after many were indexed this way, the index is
    /// merged.
    mutating func indexed(_ covered: Int, limit: Int?) -> [SearchIndexingAction] {
        indexedSinceMerge += covered
        guard let limit, covered < limit, indexedSinceMerge >= Self.mergeAfterIndexing else { return [] }
        indexedSinceMerge = 0
        return [.merge]
    }

    /// Whether a burst's last batch was taken within `burstSettlingTime`.
    func burstIsRecent(at now: Instant) -> Bool {
        guard let lastBurstBatchAt else { return false }
        return lastBurstBatchAt.duration(to: now) < Self.burstSettlingTime
    }

    private func liveIndexingDue(at now: Instant) -> Bool {
        lastLiveIndexingAt.map { $0.duration(to: now) >= Self.burstIndexingInterval } ?? true
    }

    /// Events indexed in steps after which the search index is merged.
    static var mergeAfterIndexing: Int { 10_000 }

    /// How often a commit indexes during a burst: what a burst brings is searchable within about
    /// this (and the rows of messages still streaming within `MirrorStore.streamingEntryRefresh`
    /// more).
    static var burstIndexingInterval: Duration { .milliseconds(400) }

    /// A live batch at least this large is part of a burst.
    static var burstBatchSize: Int { 256 }

    /// How long after a burst's last batch search indexing still waits (a burst on a busy machine
    /// comes in waves: the writer may find nothing waiting for a moment).
    static var burstSettlingTime: Duration { .seconds(1) }
}

/// What the search indexing policy asks of the mirror.
enum SearchIndexingAction: Equatable, Sendable {
    /// Merge the index as it grows, or not until told.
    case setMerging(SearchIndexMerging)
    /// Index the events still to index, at most this many (all, when nil).
    case indexPending(atMost: Int?)
    /// Merge the index's segments into one.
    case merge
}

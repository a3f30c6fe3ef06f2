import MirrorStore

/// When the mirror's full-text index is fed, in one place: the engine's one policy for it.
///
/// - A history-cursor catch-up indexes with each of its transactions (the text is at hand: the
///   index grows beside the rows instead of in a long pass at the end), and live commits wait
///   while any catch-up runs.
/// - Live updates are indexed with their commit, except during a burst (more were already waiting
///   when the batch was taken, or the batch was large) and for `burstSettlingTime` after it: then
///   what waits is indexed once each `burstIndexingInterval`, after a commit (`liveCommitted`),
///   so that a burst is absorbed at about the speed of its rows alone and what it brings is still
///   searchable within a second; what is left follows in bounded steps (the next commits and the
///   live loop's idle ticks) once it is over, so that no commit after it waits long.
/// - After many events were indexed in steps, the index is merged once, by the step that finds
///   nothing left.
/// - While a catch-up of more than one transaction runs, the index's segments are not merged as
///   it grows (`SearchIndexMerging.deferred`); the first step after the last catch-up ends merges
///   as it grows again. A run stopped in a catch-up leaves merging deferred; the next catch-up's end
///   merges the index and restores it.
///
/// It tells each write how to index (`SearchIndexingMode`, an argument of the write) and runs the
/// indexing steps and merges itself. Owned by the engine and touched on its thread only, like the
/// store it uses; its time is the engine's clock.
final class SearchIndexing<C: Clock> where C.Duration == Duration {
    private let store: MirrorStore
    private let clock: C
    /// Events indexed in steps since the index was last merged.
    private var indexedSinceMerge = 0
    /// History-cursor catch-ups running now.
    private var catchUpsRunning = 0
    /// When the last live batch that was part of a burst was taken.
    private var lastBurstBatchAt: C.Instant?
    /// When live commits last indexed.
    private var lastLiveIndexingAt: C.Instant?
    /// The commit being prepared is followed by indexing what a burst put off.
    private var indexesAfterCommit = false
    /// Whether a catch-up deferred the index's merging (`SearchIndexMerging.deferred`).
    private var mergingDeferred = false
    /// Transactions of the catch-ups running now.
    private var catchUpCommits = 0

    init(store: MirrorStore, clock: C) {
        self.store = store
        self.clock = clock
    }

    /// A history-cursor catch-up begins.
    func catchUpStarted() throws {
        if !mergingDeferred, try store.searchIndexMerging() == .deferred {
            // Left deferred by a run stopped in a catch-up: what it indexed is merged at this one's end.
            mergingDeferred = true
            indexedSinceMerge = max(indexedSinceMerge, Self.mergeAfterIndexing)
        }
        catchUpsRunning += 1
    }

    /// A catch-up ended, having written `written` events (indexed in its transactions, or put off).
    func catchUpEnded(written: Int) {
        catchUpsRunning -= 1
        if catchUpsRunning == 0 { catchUpCommits = 0 }
        indexedSinceMerge += written
    }

    /// Before a catch-up's commit: it indexes its own events (and live ones put off meanwhile),
    /// unless it pages over a gap during a burst, which leaves indexing to after the burst. From a
    /// catch-up's second transaction on, the index's merging waits for the catch-ups' end; one of a
    /// single transaction (a reconnect's) leaves merging as it is. Returns how the commit indexes.
    func prepareCatchUpCommit() throws -> SearchIndexingMode {
        if catchUpCommits > 0 && !mergingDeferred {
            try store.setSearchIndexMerging(.deferred)
            mergingDeferred = true
        }
        catchUpCommits += 1
        return burstIsRecent(at: clock.now) ? .putOff : .withCommit
    }

    /// Before a live batch's commit: notes a burst, and puts indexing off during one; once each
    /// `burstIndexingInterval` of a burst, `liveCommitted()` then indexes what waits. Returns how
    /// the commit indexes.
    func prepareLiveCommit(moreWaiting: Bool, batchSize: Int) -> SearchIndexingMode {
        let now = clock.now
        if moreWaiting || batchSize >= Self.burstBatchSize { lastBurstBatchAt = now }
        let inBurst = burstIsRecent(at: now)
        indexesAfterCommit = catchUpsRunning == 0 && inBurst
            && lastLiveIndexingAt.map { $0.duration(to: now) >= Self.burstIndexingInterval } ?? true
        if indexesAfterCommit { lastLiveIndexingAt = now }
        return mode(at: now)
    }

    /// How a write other than a catch-up's or a live batch's (a stock timeline fetched again)
    /// indexes: put off while a catch-up runs or a burst is recent, with its commit otherwise.
    func mode(at now: C.Instant) -> SearchIndexingMode {
        catchUpsRunning > 0 || burstIsRecent(at: now) ? .putOff : .withCommit
    }

    /// After a live batch's commit: during a burst, once each `burstIndexingInterval`, indexes
    /// everything put off (in a transaction of its own: the burst's events of that interval, a
    /// step that grows with the burst's rate, not with its length).
    func liveCommitted() throws {
        guard indexesAfterCommit else { return }
        indexesAfterCommit = false
        indexedSinceMerge += try store.indexPendingSearchText()
    }

    /// On the live loop's tick: with nothing waiting, no catch-up and no burst lately, what was
    /// put off goes on, a step a tick; while a burst settles, what its last commits put off is
    /// indexed each `burstIndexingInterval` still.
    func tick(notificationsWaiting: Int) throws {
        guard catchUpsRunning == 0 && notificationsWaiting == 0 else { return }
        let now = clock.now
        guard !burstIsRecent(at: now) else {
            guard lastLiveIndexingAt.map({ $0.duration(to: now) >= Self.burstIndexingInterval }) ?? true else { return }
            lastLiveIndexingAt = now
            indexedSinceMerge += try store.indexPendingSearchText()
            return
        }
        try step()
    }

    /// Indexes the next step of events still to index (`searchIndexingPerWrite`); once none is
    /// left after many were indexed this way, merges the index. With no catch-up running, the
    /// index merges as it grows again. Returns the event ids covered.
    @discardableResult
    func step() throws -> Int {
        if mergingDeferred && catchUpsRunning == 0 {
            try store.setSearchIndexMerging(.asItGrows)
            mergingDeferred = false
        }
        let covered = try store.indexPendingSearchText(atMost: MirrorStore.searchIndexingPerWrite)
        indexedSinceMerge += covered
        if covered < MirrorStore.searchIndexingPerWrite && indexedSinceMerge >= Self.mergeAfterIndexing {
            try store.mergeSearchIndex()
            indexedSinceMerge = 0
        }
        return covered
    }

    /// Whether a burst's last batch was taken within `burstSettlingTime`.
    func burstIsRecent(at now: C.Instant) -> Bool {
        guard let lastBurstBatchAt else { return false }
        return lastBurstBatchAt.duration(to: now) < Self.burstSettlingTime
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

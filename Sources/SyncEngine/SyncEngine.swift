import Bridge
import Logging
import MirrorStore

/// Keeps a mirror converging to what the bridge knows: catches up (by history cursor, or by
/// refetching stock timelines whose watermark moved), applies live updates, delivers queued
/// prompts, and reconnects with backoff when the connection is lost.
///
/// The engine owns its `MirrorStore` connection: it is the mirror's one writer while it runs, on a
/// thread of its own (`ThreadExecutor`), so that commits never hold up the cooperative pool that
/// receives and decodes frames meanwhile.
///
/// Each connection is one scope: a reader applies the bridge's notifications from the moment the
/// connection is up, in batches (everything waiting, one transaction), while catch-up, prompt
/// delivery and the live loop make requests beside it. The reader never waits on a request, so
/// the client's bounded notification buffer always drains and its answers always get through.
public actor SyncEngine {
    private nonisolated let executor = ThreadExecutor(name: "oa-sync-writer")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let store: MirrorStore
    /// Keeps checkpoints out of the engine's commits.
    private let checkpointer: WALCheckpointer
    let configuration: SyncConfiguration
    /// Opens each connection: over WebSocket, or in-process for tests.
    private let connector: any BridgeConnector
    let logger: Logger
    let observer: @Sendable (SyncEvent) -> Void
    private(set) var state: ConnectionState = .offline
    private var random = SystemRandomNumberGenerator()

    /// The history of the bridge on the current connection (nil until it is known: live updates
    /// of a history-cursor bridge wait for the catch-up that follows instead).
    var history: HistoryKey?
    /// Stock bridges: sessions that received live updates, and when the last one came.
    var liveSessions: [String: ContinuousClock.Instant] = [:]
    /// The mirror's `PRAGMA data_version` when the outbox was last looked at.
    var outboxVersion: Int64 = -1
    /// History-cursor bridges: a live update came without a seq or after a gap; the live loop
    /// pages from the cursor (once for a burst of them).
    var pagingWanted = false
    /// Whether a seq-less update was logged on this connection (once is enough).
    var seqlessUpdateLogged = false
    /// Whether a gap in live updates was logged at info level on this connection.
    var gapLogged = false
    /// Events indexed for search in steps since the index was last merged.
    var indexedSinceMerge = 0
    /// True while a history-cursor catch-up runs (its commits index for search; live ones wait).
    var catchingUp = false
    /// When the last live batch that was part of a burst was taken.
    private var lastBurstBatchAt: ContinuousClock.Instant?
    /// Wakes the live loop before its next tick (a gap to page over).
    private var wakeLiveLoop: AsyncStream<Void>.Continuation?
    var report: SyncReport

    /// - Parameters:
    ///   - mirrorPath: the mirror file (created and migrated if needed).
    ///   - observer: told of state changes, progress and problems, from the engine's executor.
    ///   - connector: how to reach the bridge; by default over WebSocket at `configuration.bridgeURL`.
    public init(
        mirrorPath: String,
        configuration: SyncConfiguration,
        logger: Logger = Logger(label: "openagents.sync"),
        connector: (any BridgeConnector)? = nil,
        observer: @escaping @Sendable (SyncEvent) -> Void = { _ in }
    ) throws {
        store = try MirrorStore(path: mirrorPath)
        checkpointer = WALCheckpointer(path: mirrorPath)
        self.configuration = configuration
        self.connector = connector
            ?? WebSocketBridgeConnector(url: configuration.bridgeURL, options: configuration.clientOptions, logger: logger)
        self.logger = logger
        self.observer = observer
        report = SyncReport(bridgeURL: configuration.bridgeURL, desktop: configuration.desktopName, historyCursor: false,
                            eventsWritten: 0, timelinesFetched: 0, promptsSent: 0, promptsFailed: 0, promptsUnconfirmed: 0, seconds: 0)
    }

    // MARK: Running

    /// Ends the engine's work on the mirror: stops background checkpoints and folds the
    /// write-ahead log into the database file. Call it before the process exits.
    public func finish() {
        checkpointer.stop()
        do {
            try store.checkpoint()
        } catch {
            logger.warning("final checkpoint failed", metadata: ["error": "\(error)"])
        }
    }

    /// Connects once, catches up, delivers every deliverable queued prompt, and returns what it did.
    ///
    /// - Throws: `BridgeError` when the bridge cannot be reached or fails mid-way; store errors.
    public func syncOnce() async throws -> SyncReport {
        let started = ContinuousClock.now
        resetReport()
        do {
            try await connectAndRun(isRetry: false, staysLive: false)
            // Live updates applied at the very end may still wait: nothing will tick for them.
            try await indexPendingSearchText()
        } catch {
            // A certificate that is not the one pinned leaves the mirror as it was.
            if case BridgeError.certificateMismatch = error {} else { try? recordProblem(error) }
            setState(.offline)
            throw error
        }
        setState(.offline)
        report.seconds = (ContinuousClock.now - started).seconds
        return report
    }

    /// Mirrors until the calling task is cancelled: connects, catches up, stays live, and
    /// reconnects with backoff whenever the connection is lost. Returns when cancelled.
    ///
    /// - Throws: `BridgeError.certificateMismatch`: a bridge whose certificate is not the one
    ///   pinned is not tried again (nothing was sent to it).
    public func run() async throws {
        // Best effort (a failure stops nothing): followers away longer read the mirror afresh.
        try? store.pruneChangeLog(olderThan: Self.changeLogRetention)
        var attempt = 0
        while !Task.isCancelled {
            let connectedAt = ContinuousClock.now
            do {
                // Returns only when cancelled; a lost connection throws.
                try await connectAndRun(isRetry: attempt > 0, staysLive: true)
            } catch is CancellationError {
                break
            } catch let error as BridgeError {
                if Task.isCancelled { break }
                if case .certificateMismatch = error {
                    setState(.offline)
                    throw error
                }
                try? recordProblem(error)
            } catch {
                if Task.isCancelled { break }
                try? recordProblem(error)
            }
            attempt = ContinuousClock.now - connectedAt >= configuration.backoff.healthyAfter ? 0 : attempt + 1
            setState(.offline)
            let delay = configuration.backoff.delay(forAttempt: max(attempt - 1, 0), using: &random)
            logger.info("reconnecting", metadata: ["in_seconds": "\(String(format: "%.2f", delay.seconds))", "attempt": "\(attempt)"])
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
        }
        setState(.offline)
    }

    /// Connects and runs the connection's work (`runConnection`) in the connection's scope: the
    /// connection is closed, and every task of it has ended, when this returns or throws.
    ///
    /// The pin a `wss://` bridge's certificate must match, first found: the one configured
    /// (`clientOptions.pin`), the one this mirror remembered for the bridge, the one the bridge
    /// advertised (the connector's); else the certificate is trusted on first use and remembered.
    private func connectAndRun(isRetry: Bool, staysLive: Bool) async throws {
        setState(.connecting)
        try store.setStatus([SyncStatusKey.bridgeURL: configuration.bridgeURL])
        let remembered = try store.rememberedPin(forBridge: configuration.bridgeURL).flatMap(CertificatePin.init(parsing:))
        let pin = configuration.clientOptions.pin ?? remembered
        try await connector.withConnection(isRetry: isRetry, pin: pin, onOpen: { await self.setState(.handshaking) }) { client in
            try await self.rememberCertificate(of: client, remembered: remembered)
            try await self.runConnection(client, staysLive: staysLive)
        }
    }

    /// Remembers the pin of the certificate a `wss://` bridge presented, when it is not the one
    /// remembered: on first use (said, like SSH's first connection), or after a pin was given
    /// deliberately or advertised.
    private func rememberCertificate(of client: any BridgeConnection, remembered: CertificatePin?) throws {
        guard let presented = client.certificatePin, presented != remembered else { return }
        try store.rememberPin(presented.hex, forBridge: configuration.bridgeURL)
        if !client.certificateWasPinned {
            logger.notice("trusting the bridge's certificate on first use; its pin is remembered",
                          metadata: ["bridge": "\(configuration.bridgeURL)", "sha256": "\(presented)"])
            observer(.certificateTrusted(presented))
        }
    }

    /// One connection's work, in one scope: the notification reader beside catch-up, prompt
    /// delivery and (when `staysLive`) the live loop. Returns once the work is done (`syncOnce`);
    /// throws when the connection is lost or a write fails. Every task ends with it.
    private func runConnection(_ client: any BridgeConnection, staysLive: Bool) async throws {
        let hasCursor = await client.capabilities.hasHistoryCursor
        report.historyCursor = hasCursor
        history = nil
        // A stock bridge's history is found by its desktop's name alone, before its live updates
        // are shown; a history-cursor bridge's may take requests, made by the catch-up.
        if !hasCursor { history = try await resolveHistory(client) }
        pagingWanted = false
        seqlessUpdateLogged = false
        gapLogged = false
        let (wakeUps, wakeLiveLoop) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wakeLiveLoop = wakeLiveLoop
        defer {
            wakeLiveLoop.finish()
            self.wakeLiveLoop = nil
        }
        let tickInterval = configuration.outboxPollInterval
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.applyNotifications(from: client, hasCursor: hasCursor)
                return false
            }
            group.addTask {
                try await self.catchUp(client)
                try await self.deliverOutbox(client)
                try await self.recordSuccess()
                guard staysLive else { return true }
                try await self.releaseMemory()
                await self.setState(.live)
                for await _ in wakeUps {
                    try await self.tick(client)
                }
                return true
            }
            if staysLive {
                group.addTask {
                    while true {
                        try await Task.sleep(for: tickInterval)
                        wakeLiveLoop.yield()
                    }
                }
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw BridgeError.connectionClosed(reason: await client.closeReason ?? "the notification stream ended")
            }
        }
    }

    /// Catches up with the bridge: settles prompts a stopped process left in flight, then pages
    /// the history (cursor bridges) or refetches the timelines whose watermark moved (stock).
    private func catchUp(_ client: any BridgeConnection) async throws {
        setState(.syncing)
        let hasCursor = await client.capabilities.hasHistoryCursor
        if history == nil { history = try await resolveHistory(client) }
        let settled = try store.settleInterruptedSends(canResendSafely: hasCursor)
        if !settled.isEmpty {
            logger.notice("settled prompts left in flight", metadata: ["count": "\(settled.count)", "resending": "\(hasCursor)"])
        }
        if hasCursor {
            try await catchUpByCursor(client)
        } else {
            try await catchUpByTimelines(client)
        }
        try await mirrorThreads(client)
        if let history { try store.noteSynced(history) }
    }

    private func mirrorThreads(_ client: any BridgeConnection) async throws {
        let threads = try await client.threads(topK: 10)
        try store.upsertThreads(threads.map(EventMapping.threadRecord))
    }

    /// Periodic work while live: pages over gaps, prompts queued by other processes, stock
    /// sessions to confirm.
    private func tick(_ client: any BridgeConnection) async throws {
        // Nothing waiting and no burst lately: search indexing put off goes on, a step a tick.
        if !catchingUp && client.notifications.count == 0 && !burstIsRecent() {
            store.defersSearchIndexing = false
            try indexSearchStep()
        }
        try await deliverOutboxIfChanged(client)
        if await !client.capabilities.hasHistoryCursor {
            try await refetchQuietSessions(client)
        } else if pagingWanted {
            pagingWanted = false
            try await catchUpByCursor(client)
        }
    }

    /// Indexes every event still to index, a step (`searchIndexingPerWrite`) at a time, letting
    /// the live reader commit between steps; returns how many event ids it covered.
    @discardableResult
    func indexPendingSearchText() async throws -> Int {
        var covered = 0
        while case let step = try indexSearchStep(), step > 0 {
            covered += step
            await Task.yield()
        }
        return covered
    }

    /// Indexes the next step of events still to index; once none is left after many were
    /// indexed this way, merges the index (`MirrorStore.mergeSearchIndex`).
    @discardableResult
    private func indexSearchStep() throws -> Int {
        let covered = try store.indexPendingSearchText(atMost: MirrorStore.searchIndexingPerWrite)
        indexedSinceMerge += covered
        if covered < MirrorStore.searchIndexingPerWrite && indexedSinceMerge >= Self.mergeAfterIndexing {
            try store.mergeSearchIndex()
            indexedSinceMerge = 0
        }
        return covered
    }

    /// Events indexed in steps after which the search index is merged.
    static let mergeAfterIndexing = 10_000

    /// Live updates are indexed for search with their commit, except during a burst (more were
    /// already waiting when the batch was taken, or the batch was large) and for
    /// `burstSettlingTime` after it: indexing then waits until the burst is absorbed, and follows
    /// in bounded steps (the next commits and ticks), so that a burst is absorbed at the speed of
    /// its rows alone and no commit after it waits long.
    func deferSearchIndexingDuringBursts(moreWaiting: Bool, batchSize: Int) {
        let now = ContinuousClock.now
        if moreWaiting || batchSize >= Self.burstBatchSize { lastBurstBatchAt = now }
        store.defersSearchIndexing = catchingUp || burstIsRecent(at: now)
    }

    /// A live batch at least this large is part of a burst.
    static let burstBatchSize = 256

    /// How long after a burst's last batch search indexing still waits (a burst on a busy machine
    /// comes in waves: the writer may find nothing waiting for a moment).
    static let burstSettlingTime = Duration.seconds(1)

    func burstIsRecent(at now: ContinuousClock.Instant = .now) -> Bool {
        guard let lastBurstBatchAt else { return false }
        return now - lastBurstBatchAt < Self.burstSettlingTime
    }

    /// What a catch-up held in memory goes back to the system before the engine waits live.
    /// How long the mirror's change log keeps what followers in other processes read.
    static let changeLogRetention = Duration.seconds(30 * 24 * 3600)

    private func releaseMemory() throws {
        try store.releaseMemory()
    }

    /// Asks the live loop to page from the cursor at once rather than at its next tick.
    func requestPaging() {
        pagingWanted = true
        wakeLiveLoop?.yield()
    }

    /// Applies the bridge's notifications until the connection ends: each time, everything that
    /// is waiting (up to `liveBatchLimit`) in one transaction. Reading, mapping and packing run on
    /// the cooperative pool; only the write hops to the engine's thread.
    private nonisolated func applyNotifications(from client: any BridgeConnection, hasCursor: Bool) async throws {
        let limit = configuration.liveBatchLimit
        while true {
            let notifications = await client.notifications.take(upTo: limit)
            guard !notifications.isEmpty else { return try Task.checkCancellation() }
            let moreWaiting = client.notifications.count > 0
            let updates = EventMapping.batch(notifications, fromHistoryCursorBridge: hasCursor)
            guard !updates.isEmpty else { continue }
            if hasCursor {
                try await applyLiveByCursor(updates, moreWaiting: moreWaiting)
            } else {
                try await applyProvisional(updates, moreWaiting: moreWaiting)
            }
        }
    }

    // MARK: State and status

    func setState(_ newState: ConnectionState) {
        guard newState != state else { return }
        state = newState
        logger.info("state", metadata: ["state": "\(newState.rawValue)", "url": "\(configuration.bridgeURL)"])
        try? store.setStatus([SyncStatusKey.connectionState: newState.rawValue])
        observer(.stateChanged(newState))
    }

    func progress(_ progress: SyncProgress) {
        observer(.progress(progress))
    }

    func recordSuccess() throws {
        let counts = try store.counts()
        let facts: [String: String?] = [
            SyncStatusKey.lastSuccessAt: String(MirrorClock.system.now()),
            SyncStatusKey.lastError: nil,
            SyncStatusKey.sessions: String(counts.sessions),
            SyncStatusKey.events: String(counts.events),
        ]
        try store.setStatus(facts)
    }

    private func recordProblem(_ error: any Error) throws {
        let message = "\(error)"
        logger.warning("sync problem", metadata: ["error": "\(message)"])
        observer(.problem(message))
        try store.setStatus([SyncStatusKey.lastError: message, SyncStatusKey.lastErrorAt: String(MirrorClock.system.now())])
    }

    private func resetReport() {
        report = SyncReport(bridgeURL: configuration.bridgeURL, desktop: configuration.desktopName, historyCursor: false,
                            eventsWritten: 0, timelinesFetched: 0, promptsSent: 0, promptsFailed: 0, promptsUnconfirmed: 0, seconds: 0)
    }
}

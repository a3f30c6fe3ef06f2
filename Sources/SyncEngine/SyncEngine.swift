import Bridge
import Logging
import MirrorStore
import Primitives

/// Keeps a mirror converging to what one or several bridges know: catches up with each (by
/// history cursor, or by refetching stock timelines whose watermark moved), applies live updates,
/// delivers queued prompts to the desktop each session lives on, and reconnects with backoff when
/// a connection is lost.
///
/// The engine owns its `MirrorStore` connection: it is the mirror's one writer while it runs, on a
/// thread of its own (`ThreadExecutor`), so that commits never hold up the cooperative pool that
/// receives and decodes frames meanwhile. Every bridge's writes go through it; what is particular
/// to one bridge (its cursor's history, its backoff, its report) is decided by its `LinkMachine`,
/// a value the engine keeps and drives: it performs what the machine decides.
///
/// Each connection is one scope: a reader applies the bridge's notifications from the moment the
/// connection is up, in batches (everything waiting, one transaction), while catch-up, prompt
/// delivery and the live loop make requests beside it. The reader never waits on a request, so
/// the client's bounded notification buffer always drains and its answers always get through.
///
/// Its time (backoff, ticks, bursts, quiet sessions) is `EngineClock`'s: the system's continuous
/// clock in the programs, a clock the test moves in tests.
public actor SyncEngine<EngineClock: Clock> where EngineClock.Duration == Duration {
    private nonisolated let executor = ThreadExecutor(name: "oa-sync-writer")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let store: MirrorStore
    /// Keeps checkpoints out of the engine's commits.
    private let checkpointer: WALCheckpointer
    /// The bridges followed, by `BridgeLink.id`.
    nonisolated let links: [BridgeLink]
    /// Each bridge's decisions, by `BridgeLink.id`.
    var machines: [LinkMachine<EngineClock>]
    /// Wakes a connected bridge's live loop before its next tick (a gap to page over), by `BridgeLink.id`.
    private var wakeLiveLoops: [Int: AsyncStream<Void>.Continuation] = [:]
    /// The engine's one source of time for its decisions.
    let clock: EngineClock
    let logger: Logger
    let observer: @Sendable (_ desktop: String, SyncEvent) -> Void
    private var random = SystemRandomNumberGenerator()
    /// When the search index is fed.
    var indexing = SearchIndexingPolicy<EngineClock.Instant>()
    /// The bridges catching up now, by `BridgeLink.id`: the store's page cache has a catch-up's
    /// budget while there is one, a live one's otherwise (`PageCacheBudget`).
    private var linksCatchingUp: Set<Int> = []

    /// - Parameters:
    ///   - mirrorPath: the mirror file (created and migrated if needed).
    ///   - bridges: the bridges to follow (at least one), each with its own configuration.
    ///   - clock: the engine's time, for its decisions.
    ///   - wallClock: the time of the records it writes in the mirror (when a session was listed,
    ///     when a failed one is retried): wall time, which outlives the process.
    ///   - observer: told of each bridge's state changes, progress and problems, from the
    ///     engine's executor, with the bridge's desktop name.
    public init(
        mirrorPath: String,
        bridges: [BridgeTarget],
        clock: EngineClock,
        wallClock: MirrorClock = .system,
        logger: Logger = Logger(label: "openagents.sync"),
        observer: @escaping @Sendable (_ desktop: String, SyncEvent) -> Void = { _, _ in }
    ) throws {
        store = try MirrorStore(path: mirrorPath, clock: wallClock) { done, total in
            if done == 0 { logger.notice("updating the mirror's format (\(total) steps; on a large mirror this takes a while)") }
        }
        self.clock = clock
        checkpointer = WALCheckpointer(path: mirrorPath)
        try store.handCheckpoints(to: checkpointer)
        links = bridges.enumerated().map { BridgeLink(id: $0.offset, configuration: $0.element.configuration, connector: $0.element.connector) }
        machines = bridges.map { LinkMachine(configuration: $0.configuration) }
        self.logger = logger
        self.observer = observer
    }

    /// An engine for one bridge; `connector` by default over WebSocket at `configuration.bridgeURL`.
    public init(
        mirrorPath: String,
        configuration: SyncConfiguration,
        clock: EngineClock,
        wallClock: MirrorClock = .system,
        logger: Logger = Logger(label: "openagents.sync"),
        connector: (any BridgeConnector)? = nil,
        observer: @escaping @Sendable (_ desktop: String, SyncEvent) -> Void = { _, _ in }
    ) throws {
        let connector = connector
            ?? WebSocketBridgeConnector(url: configuration.bridgeURL, options: configuration.clientOptions, logger: logger)
        try self.init(mirrorPath: mirrorPath, bridges: [BridgeTarget(configuration: configuration, connector: connector)],
                      clock: clock, wallClock: wallClock, logger: logger, observer: observer)
    }

    // MARK: Running

    /// Ends the engine's work on the mirror: stops background checkpoints and folds the
    /// write-ahead log into the database file. Call it before the process exits.
    public func finish() {
        checkpointer.stop()
        do {
            // Messages still streaming whose rows lag behind: nothing will index them after this.
            try store.catchUpStreamingEntries()
        } catch {
            logger.warning("final search indexing failed", metadata: ["error": "\(error)"])
        }
        do {
            try store.checkpoint()
        } catch {
            logger.warning("final checkpoint failed", metadata: ["error": "\(error)"])
        }
    }

    /// Connects once to the (first) bridge, catches up, delivers every deliverable queued prompt,
    /// and returns what it did.
    ///
    /// - Throws: `BridgeError` when the bridge cannot be reached or fails mid-way; store errors.
    public func syncOnce() async throws -> SyncReport {
        try await syncOnce(links[0])
    }

    /// Syncs once with every bridge at the same time (as `syncOnce` does with one); returns what
    /// each did or why it failed, in the order the bridges were given.
    public func syncEachOnce() async -> [(desktop: String, outcome: Result<SyncReport, any Error>)] {
        await withTaskGroup(of: (Int, Result<SyncReport, any Error>).self) { group in
            for link in links {
                group.addTask {
                    do {
                        return (link.id, .success(try await self.syncOnce(link)))
                    } catch {
                        return (link.id, .failure(error))
                    }
                }
            }
            var outcomes: [Int: Result<SyncReport, any Error>] = [:]
            for await (id, outcome) in group { outcomes[id] = outcome }
            return links.map { ($0.desktop, outcomes[$0.id] ?? .failure(CancellationError())) }
        }
    }

    private func syncOnce(_ link: BridgeLink) async throws -> SyncReport {
        let started = clock.now
        machines[link.id].beginSync()
        do {
            try await connectAndRunOnce(link)
            // Live updates applied at the very end may still wait: nothing will tick for them.
            try await indexPendingSearchText()
            try store.catchUpStreamingEntries()
        } catch {
            // A certificate that is not the one pinned leaves the mirror as it was.
            if case BridgeError.certificateMismatch = error {} else { try? recordProblem(error, link) }
            setState(.offline, link)
            throw error
        }
        setState(.offline, link)
        machines[link.id].tally(.finished(seconds: started.duration(to: clock.now).seconds))
        return machines[link.id].report
    }

    /// Connects and syncs once; connects again at once, a bounded number of times, while the
    /// connection ended for a reason the next one avoids (a history page over the message limit,
    /// now asked for smaller; a stock session that failed, now put off).
    private func connectAndRunOnce(_ link: BridgeLink) async throws {
        var retries = 0
        while true {
            do {
                return try await connectAndRun(link, isRetry: retries > 0, staysLive: false)
            } catch let error as BridgeError where machines[link.id].retriesAtOnce(after: retries) {
                try? recordProblem(error, link)
                retries += 1
            }
        }
    }

    /// Mirrors every bridge until the calling task is cancelled: for each, connects, catches up,
    /// stays live, and reconnects with its own backoff whenever its connection is lost. Returns
    /// when cancelled.
    ///
    /// - Throws: `BridgeError.certificateMismatch`: a bridge whose certificate is not the one
    ///   pinned is not tried again (nothing was sent to it); the others go on, and this throws
    ///   once no bridge is left.
    public func run() async throws {
        // Best effort (a failure stops nothing): followers away longer read the mirror afresh.
        _ = try? store.pruneChangeLog(olderThan: Self.changeLogRetention)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for link in links {
                group.addTask { try await self.follow(link) }
            }
            var firstFailure: (any Error)?
            while true {
                do {
                    guard try await group.next() != nil else { break }
                } catch {
                    firstFailure = firstFailure ?? error
                }
            }
            if let firstFailure, !Task.isCancelled { throw firstFailure }
        }
    }

    /// One bridge's loop of `run`: connects, stays live, and what its machine decides when the
    /// connection ends (back off and connect again, or stop).
    private func follow(_ link: BridgeLink) async throws {
        while !Task.isCancelled {
            var end = ConnectionEnd.lost
            var refusal: (any Error)?
            do {
                // Returns only when cancelled; a lost connection throws.
                try await connectAndRun(link, isRetry: machines[link.id].attempt > 0, staysLive: true)
                if Task.isCancelled { end = .cancelled }
            } catch {
                if Task.isCancelled || error is CancellationError {
                    end = .cancelled
                } else if case BridgeError.certificateMismatch = error {
                    end = .refused
                    refusal = error
                } else {
                    try? recordProblem(error, link)
                }
            }
            switch machines[link.id].ended(end, at: clock.now, random: &random) {
            case .stop:
                return setState(.offline, link)
            case .abandon:
                setState(.offline, link)
                logger.error("not trying this bridge again: its certificate is not the one pinned",
                             metadata: ["desktop": "\(link.desktop)", "error": "\(refusal.map { "\($0)" } ?? "")"])
                if let refusal { throw refusal }
                return
            case .reconnect(let delay, let attempt):
                setState(.offline, link)
                logger.info("reconnecting", metadata: [
                    "desktop": "\(link.desktop)", "in_seconds": "\(String(format: "%.2f", delay.seconds))", "attempt": "\(attempt)",
                ])
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return setState(.offline, link)
                }
            }
        }
        setState(.offline, link)
    }

    /// Connects and runs the connection's work (`runConnection`) in the connection's scope: the
    /// connection is closed, and every task of it has ended, when this returns or throws.
    ///
    /// The pin a `wss://` bridge's certificate must match, first found: the one configured
    /// (`clientOptions.pin`), the one this mirror remembered for the bridge, the one the bridge
    /// advertised (the connector's); else the certificate is trusted on first use and remembered.
    private func connectAndRun(_ link: BridgeLink, isRetry: Bool, staysLive: Bool) async throws {
        if machines[link.id].connecting(at: clock.now, forgettingFailedSessions: staysLive) { announce(.connecting, link) }
        let url = link.configuration.bridgeURL
        let remembered = try store.rememberedPin(forBridge: url).flatMap(CertificatePin.init(parsing:))
        let pin = link.configuration.clientOptions.pin ?? remembered
        try await link.connector.withConnection(isRetry: isRetry, pin: pin, onOpen: { await self.setState(.handshaking, link) }) { client in
            try await self.rememberCertificate(of: client, remembered: remembered, link)
            try await self.runConnection(client, staysLive: staysLive, link)
        }
    }

    /// Remembers the pin of the certificate a `wss://` bridge presented, when it is not the one
    /// remembered: on first use (said, like SSH's first connection), or after a pin was given
    /// deliberately or advertised.
    private func rememberCertificate(of client: any BridgeConnection, remembered: CertificatePin?, _ link: BridgeLink) throws {
        guard let presented = client.certificatePin, presented != remembered else { return }
        try store.rememberPin(presented.hex, forBridge: link.configuration.bridgeURL)
        if !client.certificateWasPinned {
            logger.notice("trusting the bridge's certificate on first use; its pin is remembered",
                          metadata: ["bridge": "\(link.configuration.bridgeURL)", "sha256": "\(presented)"])
            observer(link.desktop, .certificateTrusted(presented))
        }
    }

    /// One connection's work, in one scope: the notification reader beside catch-up, prompt
    /// delivery and (when `staysLive`) the live loop. Returns once the work is done (`syncOnce`);
    /// throws when the connection is lost or a write fails. Every task ends with it.
    private func runConnection(_ client: any BridgeConnection, staysLive: Bool, _ link: BridgeLink) async throws {
        let hasCursor = await client.capabilities.hasHistoryCursor
        machines[link.id].tally(.usesHistoryCursor(hasCursor))
        // A stock bridge's history is found by its desktop's name alone, before its live updates
        // are shown; a history-cursor bridge's may take requests, made by the catch-up.
        if !hasCursor { machines[link.id].historyResolved(try await resolveHistory(client, link)) }
        let (wakeUps, wakeLiveLoop) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wakeLiveLoops[link.id] = wakeLiveLoop
        defer {
            wakeLiveLoop.finish()
            wakeLiveLoops[link.id] = nil
            // A catch-up the connection's end cut short: the budget changes how much the cache may
            // keep, and nothing of the mirror, so a failure to set it is not the connection's.
            try? stopCatchingUp(link)
        }
        let tickInterval = link.configuration.outboxPollInterval
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await self.applyNotifications(from: client, hasCursor: hasCursor, link)
                return false
            }
            group.addTask {
                try await self.catchUpAndDeliver(client, link)
                guard staysLive else { return true }
                try await self.goLive(link)
                for await _ in wakeUps {
                    try await self.tick(client, link)
                }
                return true
            }
            if staysLive {
                group.addTask {
                    while true {
                        try await self.clock.sleep(for: tickInterval)
                        // Finished: the connection ended, and the live loop with it.
                        if case .terminated = wakeLiveLoop.yield() { return false }
                    }
                }
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                // The connection's end alone says less than the failure of the work it cut short
                // (a history page or a timeline refused as over the message limit), when there is one.
                let closing = await client.closeError ?? BridgeError.connectionClosed(reason: "the notification stream ended")
                // Not cancelled: a catch-up under way commits the pages it received (whole, with
                // the cursor that covers them) before its next request fails, as every request of
                // a closed connection does at once; the live loop and the ticker end with the
                // stream that wakes them.
                wakeLiveLoop.finish()
                var failure: (any Error)?
                while true {
                    do {
                        guard try await group.next() != nil else { break }
                    } catch is CancellationError {
                        continue
                    } catch {
                        failure = failure ?? error
                    }
                }
                throw failure ?? closing
            }
        }
    }

    /// Catches up, delivers the queued prompts, and records the success.
    private func catchUpAndDeliver(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        try await catchUp(client, link)
        try await deliverOutbox(client, link)
        try recordSuccess(link)
    }

    /// What a catch-up held in memory goes back to the system before the engine waits live.
    private func goLive(_ link: BridgeLink) throws {
        try stopCatchingUp(link)
        try store.releaseMemory()
        setState(.live, link)
    }

    /// The most memory the store's page cache may keep now, in KiB.
    func pageCacheKiB() throws -> Int { try store.pageCacheKiB() }

    /// The store's page cache takes a catch-up's budget, if no other bridge's catch-up gave it already.
    private func startCatchingUp(_ link: BridgeLink) throws {
        if linksCatchingUp.isEmpty { try store.usePageCache(.catchUp) }
        linksCatchingUp.insert(link.id)
    }

    /// The store's page cache goes back to a live budget once no bridge catches up, its pages past
    /// the budget freed.
    private func stopCatchingUp(_ link: BridgeLink) throws {
        guard linksCatchingUp.remove(link.id) != nil, linksCatchingUp.isEmpty else { return }
        try store.usePageCache(.live)
    }

    /// Catches up with the bridge: settles prompts a stopped process left in flight, then pages
    /// the history (cursor bridges) or refetches the timelines whose watermark moved (stock).
    private func catchUp(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        setState(.syncing, link)
        try startCatchingUp(link)
        let hasCursor = await client.capabilities.hasHistoryCursor
        if machines[link.id].history == nil { machines[link.id].historyResolved(try await resolveHistory(client, link)) }
        let settled = try store.settleInterruptedSends(canResendSafely: hasCursor, scope: outboxScope(of: link))
        if !settled.isEmpty {
            logger.notice("settled prompts left in flight", metadata: ["count": "\(settled.count)", "resending": "\(hasCursor)"])
        }
        if hasCursor {
            try await catchUpByCursor(client, link)
        } else {
            try await catchUpByTimelines(client, link)
        }
        try await mirrorThreads(client)
        if let history = machines[link.id].history { try store.noteSynced(history) }
    }

    private func mirrorThreads(_ client: any BridgeConnection) async throws {
        let threads = try await client.threads(topK: 10)
        try store.upsertThreads(threads.map(EventMapping.threadRecord))
    }

    /// Periodic work while live: pages over gaps, prompts queued by other processes, stock
    /// sessions to confirm.
    private func tick(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        try perform(indexing.tick(notificationsWaiting: client.notifications.count, at: clock.now))
        try await deliverOutboxIfChanged(client, link)
        if await !client.capabilities.hasHistoryCursor {
            try await refetchQuietSessions(client, link)
        } else if machines[link.id].takePaging() {
            try await catchUpByCursor(client, link)
        }
    }

    /// Wakes the live loop of the bridge's connection before its next tick.
    func wakeLiveLoop(_ link: BridgeLink) {
        wakeLiveLoops[link.id]?.yield()
    }

    /// Indexes every event still to index, a step (`searchIndexingPerWrite`) at a time, letting
    /// the live reader commit between steps; returns how many event ids it covered.
    @discardableResult
    func indexPendingSearchText() async throws -> Int {
        var covered = 0
        while case let step = try perform(indexing.step()), step > 0 {
            covered += step
            await Task.yield()
        }
        return covered
    }

    /// Performs what the search indexing policy asks of the mirror, telling it what indexing
    /// covered; returns the event ids indexed.
    @discardableResult
    func perform(_ actions: [SearchIndexingAction]) throws -> Int {
        var covered = 0
        for action in actions {
            switch action {
            case .setMerging(let merging):
                try store.setSearchIndexMerging(merging)
            case .indexPending(let limit):
                let indexed = try store.indexPendingSearchText(atMost: limit ?? .max)
                covered += indexed
                try perform(indexing.indexed(indexed, limit: limit))
            case .merge:
                try store.mergeSearchIndex()
            }
        }
        return covered
    }

    /// Writes with `commit`'s indexing mode, performing what the policy asks before and after it.
    func write<T>(indexing commit: SearchIndexingPolicy<EngineClock.Instant>.Commit, _ write: (SearchIndexingMode) throws -> T) throws -> T {
        try perform(commit.before)
        let result = try write(commit.mode)
        try perform(commit.after)
        return result
    }

    /// How long the mirror's change log keeps what followers in other processes read.
    static var changeLogRetention: Duration { .seconds(30 * 24 * 3600) }

    /// Applies the bridge's notifications until the connection ends: each time, everything that
    /// is waiting (up to `liveBatchLimit`) in one transaction. Reading, mapping and packing run on
    /// the cooperative pool; only the write hops to the engine's thread.
    private nonisolated func applyNotifications(from client: any BridgeConnection, hasCursor: Bool, _ link: BridgeLink) async throws {
        let limit = link.configuration.liveBatchLimit
        while true {
            let notifications = await client.notifications.take(upTo: limit)
            guard !notifications.isEmpty else { return try Task.checkCancellation() }
            let moreWaiting = client.notifications.count > 0
            let updates = EventMapping.batch(notifications, fromHistoryCursorBridge: hasCursor)
            guard !updates.isEmpty else { continue }
            if hasCursor {
                try await applyLiveByCursor(updates, moreWaiting: moreWaiting, link)
            } else {
                try await applyProvisional(updates, moreWaiting: moreWaiting, link)
            }
        }
    }

    // MARK: State and status

    func setState(_ newState: ConnectionState, _ link: BridgeLink) {
        if machines[link.id].move(to: newState) { announce(newState, link) }
    }

    /// Logs, records and tells a bridge's new state.
    private func announce(_ newState: ConnectionState, _ link: BridgeLink) {
        logger.info("state", metadata: ["state": "\(newState.rawValue)", "url": "\(link.configuration.bridgeURL)",
                                        "desktop": "\(link.desktop)"])
        try? record(.state(newState), link)
        observer(link.desktop, .stateChanged(newState))
    }

    func progress(_ progress: SyncProgress, _ link: BridgeLink) {
        observer(link.desktop, .progress(progress))
    }

    private func recordSuccess(_ link: BridgeLink) throws {
        try record(.succeeded, link)
    }

    private func recordProblem(_ error: any Error, _ link: BridgeLink) throws {
        let message = "\(error)"
        logger.warning("sync problem", metadata: ["desktop": "\(link.desktop)", "error": "\(message)"])
        observer(link.desktop, .problem(error))
        try record(.failed(message), link)
    }

    /// Records a change of the bridge's status in the mirror.
    private func record(_ change: DesktopStatusChange, _ link: BridgeLink) throws {
        try store.recordStatus(change, desktop: link.desktop, bridgeURL: link.configuration.bridgeURL)
    }
}

/// The engine of the programs, on the system's continuous clock.
extension SyncEngine where EngineClock == ContinuousClock {
    /// An engine following `bridges`, as `init(mirrorPath:bridges:clock:wallClock:logger:observer:)` makes it.
    public init(
        mirrorPath: String,
        bridges: [BridgeTarget],
        logger: Logger = Logger(label: "openagents.sync"),
        observer: @escaping @Sendable (_ desktop: String, SyncEvent) -> Void = { _, _ in }
    ) throws {
        try self.init(mirrorPath: mirrorPath, bridges: bridges, clock: ContinuousClock(), logger: logger, observer: observer)
    }

    /// An engine for one bridge, as `init(mirrorPath:configuration:clock:wallClock:logger:connector:observer:)` makes it.
    public init(
        mirrorPath: String,
        configuration: SyncConfiguration,
        logger: Logger = Logger(label: "openagents.sync"),
        connector: (any BridgeConnector)? = nil,
        observer: @escaping @Sendable (_ desktop: String, SyncEvent) -> Void = { _, _ in }
    ) throws {
        try self.init(mirrorPath: mirrorPath, configuration: configuration, clock: ContinuousClock(), logger: logger,
                      connector: connector, observer: observer)
    }
}

import Bridge
import MirrorStore

/// Catching up and staying live with a history-cursor bridge.
extension SyncEngine {
    /// Fills session metadata from `tinyvex/history.sessions`, then pages `tinyvex/history.changes`
    /// from the mirror's cursor to the end. Pages are committed together with the cursor that
    /// covers them, `eventsPerTransaction` events a transaction (each indexing its events for
    /// search), while the next pages are already on their way, decoded and packed.
    ///
    /// Session metadata is asked for on the first sync and whenever new sessions appeared, so that
    /// catching up after a reconnect costs traffic in proportion to what changed.
    func catchUpByCursor(_ client: any BridgeConnection) async throws {
        let startCursor = try store.historyCursor()
        let knownSessions = try store.sessionCount()
        var sessionCount = knownSessions
        var expectedLastSeq: Int64 = 0
        if startCursor == 0 {
            (sessionCount, expectedLastSeq) = try await mirrorSessionMetadata(client)
        }
        let started = ContinuousClock.now
        var written = 0
        catchingUp = true
        defer { catchingUp = false }
        // Pages are fetched, decoded and packed by a task of their own into batches of a
        // transaction's worth (fewer events only at the end), one batch ahead of the writer: a
        // timeline then lies in runs of neighbouring rows, one per transaction. What arrived
        // before a failure is committed: whole pages, with the cursor that covers them.
        let batches = BoundedBuffer<FetchedBatch>(elementLimit: 1)
        let configuration = configuration
        var cursor = startCursor
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await FetchedBatch.fetchAll(from: client, since: startCursor, configuration: configuration, into: batches)
            }
            for await batch in batches {
                cursor = batch.cursor
                written += try commit(batch.events, cursor: batch.cursor)
                let elapsed = (ContinuousClock.now - started).seconds
                progress(SyncProgress(
                    sessionsDone: sessionCount, sessionsTotal: sessionCount, events: written,
                    eventsTotal: expectedLastSeq > startCursor ? Int(expectedLastSeq - startCursor) : nil,
                    eventsPerSecond: elapsed > 0 ? Double(written) / elapsed : 0
                ))
            }
            try await group.waitForAll()
        }
        // The buffer also ends when this task is cancelled: that is no catch-up.
        try Task.checkCancellation()
        catchingUp = false
        // Indexed in many transactions, the index is merged once now (by the step that finds
        // nothing left to index); during a burst, the ticks after it do that.
        indexedSinceMerge += written
        let indexed = burstIsRecent() ? 0 : try await indexPendingSearchText()
        if startCursor > 0, try store.sessionCount() > knownSessions {
            (sessionCount, _) = try await mirrorSessionMetadata(client)
        }
        logger.info("caught up", metadata: [
            "events": "\(written)", "cursor": "\(cursor)", "sessions": "\(sessionCount)", "search_indexed": "\(indexed)",
        ])
    }

    /// Writes `events` with the cursor that covers them, in one transaction; returns the events
    /// written.
    private func commit(_ events: EventBatch, cursor: Int64) throws -> Int {
        // Each transaction indexes its own events (and live ones put off meanwhile): the text is
        // at hand, and the index grows beside the rows instead of in a long pass at the end. A
        // catch-up during a burst (paging over a gap) leaves indexing to after the burst.
        store.defersSearchIndexing = burstIsRecent()
        let outcome = try store.appendEvents(events, advancingHistoryCursorTo: cursor)
        report.eventsWritten += outcome.inserted
        return outcome.inserted
    }

    /// Records every session's metadata from `tinyvex/history.sessions`; returns how many
    /// sessions there are and the highest `last_seq` among them.
    private func mirrorSessionMetadata(_ client: any BridgeConnection) async throws -> (sessions: Int, lastSeq: Int64) {
        var count = 0
        var lastSeq: Int64 = 0
        var after: String?
        repeat {
            let page = try await client.historySessions(after: after, limit: 1000)
            try store.upsertSessions(page.items.map(EventMapping.sessionRecord))
            count += page.items.count
            lastSeq = max(lastSeq, page.items.compactMap(\.lastSeq).max() ?? 0)
            after = page.next
        } while after != nil
        return (count, lastSeq)
    }

    /// Applies live updates from a history-cursor bridge in one transaction: those that continue
    /// the cursor are appended with it; those already mirrored are ignored; one past a gap, or
    /// without a seq, makes the live loop page from the cursor instead (the history decides what
    /// the mirror holds, and holds every update it announced).
    func applyLiveByCursor(_ updates: EventBatch, moreWaiting: Bool) throws {
        // This engine is the mirror's one writer: the cursor cannot move between here and the append.
        var next = try store.historyCursor() + 1
        var continuing: [Int] = []
        continuing.reserveCapacity(updates.count)
        for index in 0..<updates.count {
            guard let seq = updates.seq(at: index) else {
                if !seqlessUpdateLogged {
                    seqlessUpdateLogged = true
                    logger.warning("live updates without a seq from a history-cursor bridge; paging from the cursor instead",
                                   metadata: ["session_id": "\(updates.sessionID(at: index))"])
                }
                requestPaging()
                continue
            }
            if seq < next { continue }
            if seq > next {
                // Expected while a catch-up pages (the bridge goes on announcing): said once a
                // connection, then at debug level.
                logger.log(level: gapLogged ? .debug : .info, "gap in live updates; paging from the cursor",
                           metadata: ["cursor": "\(next - 1)", "seq": "\(seq)"])
                gapLogged = true
                requestPaging()
                continue
            }
            continuing.append(index)
            next += 1
        }
        guard !continuing.isEmpty else { return }
        deferSearchIndexingDuringBursts(moreWaiting: moreWaiting, batchSize: updates.count)
        let outcome = try store.appendEvents(updates.keeping(continuing), advancingHistoryCursorTo: next - 1)
        report.eventsWritten += outcome.inserted
    }

}

/// Pages of `tinyvex/history.changes`, packed for the store: a transaction's worth.
struct FetchedBatch: Sendable {
    /// The cursor that covers the pages.
    var cursor: Int64
    var events: EventBatch

    /// Fetches the pages from `since` to the end, each decoded and packed in the calling task
    /// (not on the engine's thread) while the next one is already asked for, and sends them to
    /// `batches` a transaction's worth (`eventsPerTransaction`) at a time; finishes `batches`
    /// when done, failed or cancelled. On a failure, the pages fetched before it are sent first.
    static func fetchAll(
        from client: any BridgeConnection,
        since: Int64,
        configuration: SyncConfiguration,
        into batches: BoundedBuffer<FetchedBatch>
    ) async throws {
        defer { batches.finish() }
        let limit = configuration.changesPageSize
        var pending = FetchedBatch(cursor: since, events: EventBatch())
        var sentCursor = since
        do {
            try await withThrowingTaskGroup(of: (since: Int64, page: HistoryChangesPage).self) { group in
                group.addTask { (since, try await client.historyChanges(since: since, limit: limit, timeout: nil)) }
                while let (since, page) = try await group.next() {
                    // A page may be empty yet move the cursor (the bridge skipped rows it could not
                    // decode): go on while it moves, stop if it does not.
                    let hasMore = page.hasMore && page.next > since
                    if hasMore {
                        group.addTask { (page.next, try await client.historyChanges(since: page.next, limit: limit, timeout: nil)) }
                    }
                    EventMapping.append(page.items, to: &pending.events)
                    pending.cursor = max(pending.cursor, page.next)
                    guard !hasMore || pending.events.count >= configuration.eventsPerTransaction else { continue }
                    // Refused only when this task is cancelled (the writer failed or stopped).
                    guard await batches.send(pending) else { throw CancellationError() }
                    sentCursor = pending.cursor
                    pending.events = EventBatch()
                }
            }
        } catch {
            if !pending.events.isEmpty || pending.cursor > sentCursor { await batches.send(pending) }
            throw error
        }
    }
}

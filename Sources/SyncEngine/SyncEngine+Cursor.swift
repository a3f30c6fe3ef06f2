import Bridge
import MirrorStore
import Primitives

/// Catching up and staying live with a history-cursor bridge.
extension SyncEngine {
    /// Pages `tinyvex/history.changes` from the history's cursor to the end, then, when new
    /// sessions appeared or the link's last review is older than `sessionsListInterval` (always
    /// on its first catch-up), records every session's metadata from `tinyvex/history.sessions`
    /// and marks what the desktop no longer has (`reviewSessions`). Pages are committed together with the cursor that
    /// covers them, `eventsPerTransaction` events a transaction (each indexing its events for
    /// search), while the next pages are already on their way, decoded and packed.
    ///
    /// On the first sync of a history, session metadata is also asked for first, for the progress
    /// line's total.
    func catchUpByCursor(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        guard let history = machines[link.id].history else { throw BridgeError.unexpectedResult(method: "history", reason: "no history resolved") }
        let startCursor = try store.historyCursor(of: history)
        var sessionCount = try store.history(history)?.sessionCount ?? 0
        var expectedLastSeq: Int64 = 0
        if startCursor == 0 {
            let listed = try await listSessions(client)
            try store.upsertSessions(listed, history: history)
            sessionCount = listed.count
            expectedLastSeq = listed.compactMap(\.serverLastSeq).max() ?? 0
        }
        let started = clock.now
        var written = 0
        indexing.catchUpStarted(mergingLeftDeferred: try store.searchIndexMerging() == .deferred)
        var running = true
        defer { if running { indexing.catchUpEnded(written: 0) } }
        // Pages are fetched, decoded and packed by a task of their own into batches of a
        // transaction's worth (fewer events only at the end), one batch ahead of the writer: a
        // timeline then lies in runs of neighbouring rows, one per transaction. What arrived
        // before a failure is committed: whole pages, with the cursor that covers them.
        let batches = BoundedBuffer<FetchedBatch>(elementLimit: 1)
        let configuration = link.configuration
        let pageSizer = machines[link.id].pageSizer
        let maxBytes = await client.capabilities.historyMaxBytes ? pageSizer.byteBudget : nil
        var cursor = startCursor
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await FetchedBatch.fetchAll(from: client, since: startCursor, pageSizer: pageSizer, maxBytes: maxBytes, configuration: configuration,
                                                    into: batches)
                }
                for await batch in batches {
                    cursor = batch.cursor
                    written += try commit(batch.events, history: history, cursor: batch.cursor, link)
                    let elapsed = started.duration(to: clock.now).seconds
                    progress(SyncProgress(
                        sessionsDone: sessionCount, sessionsTotal: sessionCount, events: written,
                        eventsTotal: expectedLastSeq > startCursor ? Int(expectedLastSeq - startCursor) : nil,
                        eventsPerSecond: elapsed > 0 ? Double(written) / elapsed : 0
                    ), link)
                }
                try await group.waitForAll()
            }
        } catch let refused as FetchedBatch.PageRefused {
            throw pageRefused(refused, link)
        }
        // The buffer also ends when this task is cancelled: that is no catch-up.
        try Task.checkCancellation()
        running = false
        indexing.catchUpEnded(written: written)
        // Indexed in many transactions, the index is merged once now (by the step that finds
        // nothing left to index); during a burst, the ticks after it do that.
        let indexed = indexing.burstIsRecent(at: clock.now) ? 0 : try await indexPendingSearchText()
        let knownSessions = try store.history(history)?.sessionCount ?? 0
        if knownSessions > sessionCount || machines[link.id].sessionsListDue(at: clock.now) {
            sessionCount = try await reviewSessions(client, history: history, link)
        }
        logger.info("caught up", metadata: [
            "events": "\(written)", "cursor": "\(cursor)", "sessions": "\(sessionCount)", "search_indexed": "\(indexed)",
        ])
    }

    /// Records every session's metadata from `tinyvex/history.sessions`, and marks what the
    /// desktop no longer has (sessions it does not list, the oldest events of those whose count
    /// fell); returns how many sessions it lists.
    private func reviewSessions(_ client: any BridgeConnection, history: HistoryKey, _ link: BridgeLink) async throws -> Int {
        let listedAt = store.clock.now()
        let listed = try await listSessions(client)
        try store.upsertSessions(listed, history: history)
        let goneSessions = try store.markUnlistedSessionsGone(history: history, listed: listed.map(\.sessionID), listedSince: listedAt)
        let goneEvents = try store.markPrunedEvents(history: history, listed: listed)
        noteGoneFromDesktop(sessions: goneSessions, events: goneEvents, link)
        machines[link.id].sessionsListed(at: clock.now)
        return listed.count
    }

    /// What a page refused as over the message limit means: the next connection asks for smaller
    /// pages (`LinkMachine.reconnectAtOnce` says so to `syncOnce`, which reconnects at once), and a
    /// page of one event that is still too large is that event's fault.
    private func pageRefused(_ refused: FetchedBatch.PageRefused, _ link: BridgeLink) -> BridgeError {
        guard let next = machines[link.id].pageRefused(requested: refused.requested, size: refused.size) else {
            return .eventTooLarge(seq: refused.since + 1, size: refused.size, limit: refused.limit)
        }
        logger.notice("a history page was over the message limit; asking for smaller pages", metadata: [
            "desktop": "\(link.desktop)", "events": "\(refused.requested)", "next_events": "\(next)",
            "bytes": "\(refused.size.map(String.init) ?? "over the limit")", "limit": "\(refused.limit)",
        ])
        return .messageTooLarge(size: refused.size, limit: refused.limit)
    }

    /// Counts and says what was newly marked as gone from the desktop.
    func noteGoneFromDesktop(sessions: Int, events: Int, _ link: BridgeLink) {
        machines[link.id].tally(.gone(sessions: sessions, events: events))
        guard sessions + events > 0 else { return }
        logger.notice("marked what the desktop no longer has (it stays in the mirror)",
                      metadata: ["desktop": "\(link.desktop)", "sessions": "\(sessions)", "events": "\(events)"])
    }

    /// Writes `events` with the cursor that covers them, in one transaction; returns the events
    /// written.
    private func commit(_ events: EventBatch, history: HistoryKey, cursor: Int64, _ link: BridgeLink) throws -> Int {
        // Each transaction indexes its own events (and live ones put off meanwhile): the text is
        // at hand, and the index grows beside the rows instead of in a long pass at the end. A
        // catch-up during a burst (paging over a gap) leaves indexing to after the burst.
        let outcome = try write(indexing: indexing.catchUpCommit(at: clock.now)) { mode in
            try store.appendEvents(events, history: history, advancingHistoryCursorTo: cursor, indexing: mode)
        }
        machines[link.id].tally(.eventsWritten(outcome.inserted))
        return outcome.inserted
    }

    /// Applies live updates from a history-cursor bridge in one transaction: those that continue
    /// the cursor are appended with it; those already mirrored are ignored; one past a gap, or
    /// without a seq, makes the live loop page from the cursor instead (the history decides what
    /// the mirror holds, and holds every update it announced).
    func applyLiveByCursor(_ updates: EventBatch, moreWaiting: Bool, _ link: BridgeLink) throws {
        // This engine is the mirror's one writer: the cursor cannot move between here and the append.
        let cursor = try machines[link.id].history.map { try store.historyCursor(of: $0) } ?? 0
        let decision = machines[link.id].liveUpdates(seqs: (0..<updates.count).lazy.map { updates.seq(at: $0) }, cursor: cursor)
        for note in decision.notes {
            switch note {
            case .seqless(let index):
                logger.warning("live updates without a seq from a history-cursor bridge; paging from the cursor instead",
                               metadata: ["session_id": "\(updates.sessionID(at: index))"])
            case .gap(let cursor, let seq, let first):
                // Expected while a catch-up pages (the bridge goes on announcing): said once a
                // connection, then at debug level.
                logger.log(level: first ? .info : .debug, "gap in live updates; paging from the cursor",
                           metadata: ["desktop": "\(link.desktop)", "cursor": "\(cursor)", "seq": "\(seq)"])
            }
        }
        if decision.pagesFromCursor { wakeLiveLoop(link) }
        guard let history = machines[link.id].history, !decision.continuing.isEmpty else { return }
        let commit = indexing.liveCommit(moreWaiting: moreWaiting, batchSize: updates.count, at: clock.now)
        let outcome = try write(indexing: commit) { mode in
            try store.appendEvents(updates.keeping(decision.continuing), history: history, advancingHistoryCursorTo: decision.cursor, indexing: mode)
        }
        machines[link.id].tally(.eventsWritten(outcome.inserted))
    }
}

import Bridge
import MirrorStore

/// Catching up and staying live with a history-cursor bridge.
extension SyncEngine {
    /// Fills session metadata from `tinyvex/history.sessions`, then pages `tinyvex/history.changes`
    /// from the mirror's cursor to the end. Pages are committed together with the cursor that
    /// covers them, up to `eventsPerTransaction` events a transaction, while the next page is
    /// already on its way and being decoded; search indexing waits for the end of the catch-up.
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
        store.defersSearchIndexing = true
        defer {
            catchingUp = false
            store.defersSearchIndexing = false
        }
        let pageSize = configuration.changesPageSize
        var batch: [NewEvent] = []
        var batchCursor = startCursor
        do {
            try await withThrowingTaskGroup(of: FetchedPage.self) { group in
                group.addTask { try await FetchedPage.fetch(from: client, since: startCursor, limit: pageSize) }
                while let page = try await group.next() {
                    batch.append(contentsOf: page.events)
                    batchCursor = max(batchCursor, page.next)
                    // A page may be empty yet move the cursor (the bridge skipped rows it could not
                    // decode): go on while it moves, stop if it does not.
                    let hasMore = page.hasMore && page.next > page.since
                    if hasMore {
                        group.addTask { try await FetchedPage.fetch(from: client, since: page.next, limit: pageSize) }
                    }
                    guard !hasMore || batch.count >= configuration.eventsPerTransaction else { continue }
                    written += try commit(&batch, cursor: batchCursor)
                    let elapsed = (ContinuousClock.now - started).seconds
                    progress(SyncProgress(
                        sessionsDone: sessionCount, sessionsTotal: sessionCount, events: written,
                        eventsTotal: expectedLastSeq > startCursor ? Int(expectedLastSeq - startCursor) : nil,
                        eventsPerSecond: elapsed > 0 ? Double(written) / elapsed : 0
                    ))
                }
            }
        } catch {
            // Keep what arrived before the failure: it is whole pages, covered by `batchCursor`.
            if !batch.isEmpty { _ = try commit(&batch, cursor: batchCursor) }
            throw error
        }
        catchingUp = false
        let indexed = try await indexPendingSearchText()
        if startCursor > 0, try store.sessionCount() > knownSessions {
            (sessionCount, _) = try await mirrorSessionMetadata(client)
        }
        logger.info("caught up", metadata: [
            "events": "\(written)", "cursor": "\(batchCursor)", "sessions": "\(sessionCount)", "search_indexed": "\(indexed)",
        ])
    }

    /// Writes `batch` with the cursor that covers it, in one transaction, and empties it; returns
    /// the events written.
    private func commit(_ batch: inout [NewEvent], cursor: Int64) throws -> Int {
        let events = batch
        batch = []
        let outcome = try store.appendEvents(events, advancingHistoryCursorTo: cursor, modeOf: EventMapping.mode(of:))
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
    func applyLiveByCursor(_ updates: [LiveUpdate], moreWaiting: Bool) throws {
        // This engine is the mirror's one writer: the cursor cannot move between here and the append.
        var next = try store.historyCursor() + 1
        var events: [NewEvent] = []
        for update in updates {
            guard let seq = update.seq else {
                if !seqlessUpdateLogged {
                    seqlessUpdateLogged = true
                    logger.warning("live updates without a seq from a history-cursor bridge; paging from the cursor instead",
                                   metadata: ["session_id": "\(update.event.sessionID)"])
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
            events.append(update.event)
            next += 1
        }
        guard !events.isEmpty else { return }
        deferSearchIndexingDuringBursts(moreWaiting: moreWaiting)
        let outcome = try store.appendEvents(events, advancingHistoryCursorTo: next - 1, modeOf: EventMapping.mode(of:))
        report.eventsWritten += outcome.inserted
    }

}

/// A live update, mapped to what the mirror stores off the engine's thread.
struct LiveUpdate: Sendable {
    /// The bridge's seq (history-cursor bridges).
    var seq: Int64?
    var event: NewEvent
}

/// A page of `tinyvex/history.changes`, mapped to what the mirror stores.
struct FetchedPage: Sendable {
    /// The cursor the page was asked from.
    var since: Int64
    var next: Int64
    var hasMore: Bool
    var events: [NewEvent]

    /// Fetches and maps a page, in the calling task (not on the engine's thread).
    static func fetch(from client: any BridgeConnection, since: Int64, limit: Int) async throws -> FetchedPage {
        let page = try await client.historyChanges(since: since, limit: limit, timeout: nil)
        return FetchedPage(since: since, next: page.next, hasMore: page.hasMore, events: page.items.map(EventMapping.event))
    }
}

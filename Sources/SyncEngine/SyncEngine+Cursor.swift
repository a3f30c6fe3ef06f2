import Bridge
import MirrorStore

/// Catching up and staying live with a history-cursor bridge.
extension SyncEngine {
    /// Fills session metadata from `tinyvex/history.sessions`, then pages `tinyvex/history.changes`
    /// from the mirror's cursor to the end. Pages are committed together with the cursor that
    /// covers them, up to `eventsPerTransaction` events a transaction.
    ///
    /// Session metadata is asked for on the first sync and whenever new sessions appeared, so that
    /// catching up after a reconnect costs traffic in proportion to what changed.
    func catchUpByCursor(_ client: BridgeClient) async throws {
        let startCursor = try store.historyCursor()
        let knownSessions = try store.sessionCount()
        var sessionCount = knownSessions
        var expectedLastSeq: Int64 = 0
        if startCursor == 0 {
            (sessionCount, expectedLastSeq) = try await mirrorSessionMetadata(client)
        }
        let started = ContinuousClock.now
        var since = startCursor
        var written = 0
        var hasMore = true
        while hasMore {
            var batch: [NewEvent] = []
            var fetchedUpTo = since
            do {
                repeat {
                    let page = try await client.historyChanges(since: fetchedUpTo, limit: configuration.changesPageSize)
                    batch.append(contentsOf: page.items.map(EventMapping.event))
                    let previous = fetchedUpTo
                    fetchedUpTo = max(fetchedUpTo, page.next)
                    // A page may be empty yet move the cursor (the bridge skipped rows it could
                    // not decode): go on while it moves, stop if it does not.
                    hasMore = page.hasMore && fetchedUpTo > previous
                } while hasMore && batch.count < configuration.eventsPerTransaction
            } catch {
                // Keep what arrived before the failure: it is whole pages, covered by `fetchedUpTo`.
                if !batch.isEmpty { try store.appendEvents(batch, advancingHistoryCursorTo: fetchedUpTo) }
                throw error
            }
            since = fetchedUpTo
            let outcome = try store.appendEvents(batch, advancingHistoryCursorTo: since)
            try recordModes(batch)
            written += outcome.inserted
            report.eventsWritten += outcome.inserted
            let elapsed = (ContinuousClock.now - started).seconds
            progress(SyncProgress(
                sessionsDone: sessionCount, sessionsTotal: sessionCount, events: written,
                eventsTotal: expectedLastSeq > startCursor ? Int(expectedLastSeq - startCursor) : nil,
                eventsPerSecond: elapsed > 0 ? Double(written) / elapsed : 0
            ))
        }
        if startCursor > 0, try store.sessionCount() > knownSessions {
            (sessionCount, _) = try await mirrorSessionMetadata(client)
        }
        logger.info("caught up", metadata: ["events": "\(written)", "cursor": "\(since)", "sessions": "\(sessionCount)"])
    }

    /// Records every session's metadata from `tinyvex/history.sessions`; returns how many
    /// sessions there are and the highest `last_seq` among them.
    private func mirrorSessionMetadata(_ client: BridgeClient) async throws -> (sessions: Int, lastSeq: Int64) {
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

    /// Applies a live update with a seq: the next one is appended with the cursor; one already
    /// mirrored is ignored; one past a gap sends the engine back to paging from the cursor.
    func applyLive(_ update: SessionUpdateNotification, seq: Int64, client: BridgeClient) async throws {
        let cursor = try store.historyCursor()
        if seq <= cursor { return }
        if seq == cursor + 1 {
            let event = EventMapping.event(update)
            let outcome = try store.appendEvents([event], advancingHistoryCursorTo: seq)
            report.eventsWritten += outcome.inserted
            try recordModes([event])
            return
        }
        logger.info("gap in live updates; paging from the cursor", metadata: ["cursor": "\(cursor)", "seq": "\(seq)"])
        try await catchUpByCursor(client)
    }

    /// Notes the mode of every mode update among `events`.
    func recordModes(_ events: [NewEvent]) throws {
        var modes: [String: String] = [:]
        for event in events where event.kind == UpdateKind.currentModeUpdate.rawValue {
            if let mode = EventMapping.mode(of: SessionUpdate(rawBytes: event.updateJSON)) { modes[event.sessionID] = mode }
        }
        guard !modes.isEmpty else { return }
        try store.upsertSessions(modes.map { SessionRecord(sessionID: $0.key, mode: $0.value) })
    }
}

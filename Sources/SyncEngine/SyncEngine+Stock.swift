import Bridge
import MirrorStore
import Primitives

/// Catching up and staying live with a stock bridge, which has no history cursor: timelines are
/// fetched whole, and a timeline is fetched again when its `(last_ts, message_count)` moved.
extension SyncEngine {
    /// Lists the recent sessions and refetches each whose watermark moved since its last fetch
    /// (plus those that had live updates). The watermark recorded is the bridge's own, so a
    /// session whose stored rows the bridge cannot all decode is not fetched again and again.
    ///
    /// The list holds the bridge's most recent sessions only (`recentSessionsLimit`): a mirrored
    /// session of this desktop more recent than the oldest listed, or any when the list is shorter
    /// than that, is no longer on the desktop, and is marked so.
    func catchUpByTimelines(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        let history = machines[link.id].history
        let listedAt = store.clock.now()
        let recent = try await client.recentSessions()
        try store.upsertSessions(recent.map {
            SessionRecord(sessionID: $0.sessionID, lastTS: $0.lastTS, serverEventCount: $0.messageCount)
        }, history: history)
        if let history {
            let newest = recent.count < Self.recentSessionsLimit ? nil : recent.map(\.lastTS).min()
            let gone = try store.markUnlistedSessionsGone(history: history, listed: recent.map(\.sessionID), listedSince: listedAt,
                                                          listsOnlyNewerThan: newest)
            noteGoneFromDesktop(sessions: gone, events: 0, link)
        }
        var stale: [(id: String, watermark: SessionWatermark?)] = []
        for session in recent {
            let watermark = SessionWatermark(lastTS: session.lastTS, messageCount: session.messageCount)
            if try store.watermark(for: session.sessionID) != watermark || machines[link.id].liveSessions.contains(session.sessionID) {
                stale.append((session.sessionID, watermark))
            }
        }
        for sessionID in machines[link.id].liveSessions.sessionIDs where !recent.contains(where: { $0.sessionID == sessionID }) {
            stale.append((sessionID, nil))
        }
        let started = clock.now
        var written = 0
        for (index, session) in stale.enumerated() {
            // A session that failed waits for its retry; its failure does not hold the others.
            if try isPutOff(session.id, link) { continue }
            written += try await refetchIsolated(session.id, watermark: session.watermark, client: client, link)
            let elapsed = started.duration(to: clock.now).seconds
            progress(SyncProgress(sessionsDone: index + 1, sessionsTotal: stale.count, events: written, eventsTotal: nil,
                                  eventsPerSecond: elapsed > 0 ? Double(written) / elapsed : 0), link)
        }
        logger.info("caught up", metadata: ["timelines_fetched": "\(stale.count)", "events_written": "\(written)"])
    }

    /// Fetches a session's timeline and makes it the mirrored one (keeping the common prefix).
    /// Returns the events written.
    @discardableResult
    func refetch(_ sessionID: String, watermark: SessionWatermark?, client: any BridgeConnection, _ link: BridgeLink) async throws -> Int {
        let history = machines[link.id].history
        let requestedAt = clock.now
        // An answer over the message limit is read in parts (`mergeInParts`).
        let answer = try await client.sessionTimelineInParts(sessionID: sessionID, timeout: .seconds(120))
        // Read once the answer began, since live events may have arrived meanwhile. Live events
        // of an earlier process came before this request too.
        let fetchedAfterLiveEvents = machines[link.id].liveSessions.heldByTimeline(sessionID, askedAt: requestedAt)
        let outcome: TailReplacement
        let mode: String?
        switch answer {
        case .whole(let items):
            // From here to the write nothing else runs on this actor.
            let events = items.map(EventMapping.event)
            outcome = try store.replaceTimelineTail(sessionID: sessionID, history: history, with: events, watermark: watermark,
                                                    fetchedAfterLiveEvents: fetchedAfterLiveEvents, indexing: indexing.mode(at: clock.now))
            mode = items.reversed().lazy.compactMap({ EventMapping.mode(of: $0.update) }).first
        case .inParts(let parts):
            let merged = try await mergeInParts(sessionID, parts, fetchedAfterLiveEvents: fetchedAfterLiveEvents,
                                                watermark: watermark, link)
            outcome = merged.outcome
            mode = merged.mode
        }
        logger.debug("refetched", metadata: [
            "session_id": "\(sessionID)", "kept": "\(outcome.kept)", "removed": "\(outcome.removed)",
            "inserted": "\(outcome.inserted)", "confirmed": "\(outcome.confirmed)", "marked_gone": "\(outcome.markedGone)",
        ])
        noteGoneFromDesktop(sessions: outcome.sessionMarkedGone ? 1 : 0, events: outcome.markedGone, link)
        if let mode {
            try store.upsertSessions([SessionRecord(sessionID: sessionID, mode: mode)], history: history)
        }
        machines[link.id].refetched(sessionID, askedAt: requestedAt)
        machines[link.id].tally(.timelineFetched)
        machines[link.id].tally(.eventsWritten(outcome.inserted))
        return outcome.inserted
    }

    /// Shows live updates at once, in one transaction, provisional until their session's next
    /// fetch confirms them.
    func applyProvisional(_ updates: EventBatch, moreWaiting: Bool, _ link: BridgeLink) throws {
        let commit = indexing.liveCommit(moreWaiting: moreWaiting, batchSize: updates.count, at: clock.now)
        let outcome = try write(indexing: commit) { mode in
            try store.appendEvents(updates, history: machines[link.id].history, indexing: mode)
        }
        machines[link.id].tally(.eventsWritten(outcome.inserted))
        machines[link.id].liveUpdatesApplied(to: updates.sessionIDs, at: clock.now)
    }

    /// How many sessions `tinyvex/history.recentSessions` lists at most.
    static var recentSessionsLimit: Int { 10 }

    /// Refetches the sessions whose live updates have been quiet for `refetchAfterQuiet`.
    func refetchQuietSessions(_ client: any BridgeConnection, _ link: BridgeLink) async throws {
        // A session waiting for its retry is left alone (its live updates stay provisional).
        let quiet = try machines[link.id].quietSessions(at: clock.now).filter { try !isPutOff($0, link) }
        guard !quiet.isEmpty else { return }
        let recent = try await client.recentSessions()
        for sessionID in quiet {
            let listed = recent.first { $0.sessionID == sessionID }
            let watermark = listed.map { SessionWatermark(lastTS: $0.lastTS, messageCount: $0.messageCount) }
            if let listed {
                try store.upsertSessions([SessionRecord(sessionID: sessionID, lastTS: listed.lastTS, serverEventCount: listed.messageCount)],
                                         history: machines[link.id].history)
            }
            // How many events it wrote is counted where a catch-up reports it, not here.
            _ = try await refetchIsolated(sessionID, watermark: watermark, client: client, link)
        }
    }
}

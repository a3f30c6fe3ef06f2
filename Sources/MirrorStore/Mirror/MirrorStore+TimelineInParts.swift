/// A stock timeline merged into the mirror in parts, as its items arrive
/// (`MirrorStore.beginTimelineMerge`), for a timeline too large to hold whole.
public struct TimelineMerge: Sendable {
    let sessionID: String
    let history: HistoryKey?
    let sessionNo: Int64
    /// The session held confirmed events when the merge began.
    let heldConfirmedEvents: Bool
    let indexing: SearchIndexingMode
    var plan: ArchiveMergeInParts
    /// What the merge did so far.
    public internal(set) var outcome = TailReplacement(kept: 0, removed: 0, inserted: 0, confirmed: 0)
}

extension MirrorStore {
    /// Begins merging a fetched timeline that arrives in parts: what `replaceTimelineTail` does in
    /// one transaction, done in one transaction per part (`mergeTimelinePart`) and one at the end
    /// (`finishTimelineMerge`), with the same outcome.
    ///
    /// Every part's transaction leaves the mirror as an archive should: its events are confirmed
    /// or inserted as confirmed, which a later fetch of the whole timeline keeps; what only the
    /// whole fetch can tell (confirmed events it no longer holds, the watermark) waits for its
    /// end. A fetch cut short is therefore simply fetched again, with nothing duplicated or lost,
    /// and its session is not taken as up to date meanwhile (its watermark is unchanged).
    ///
    /// - Parameters:
    ///   - fetchedAfterLiveEvents: as for `replaceTimelineTail`;
    ///   - indexing: whether each part's events are indexed for search with its commit.
    public func beginTimelineMerge(sessionID: String, history: HistoryKey?, fetchedAfterLiveEvents: Bool,
                                   indexing: SearchIndexingMode = .withCommit) throws -> TimelineMerge {
        try write {
            let sessionNo = try touchSession(sessionID, history: history, now: clock.now())
            let mirrored = try database.query(
                """
                SELECT event_id, content_hash, provisional, gone_at IS NOT NULL FROM events
                WHERE session_no = ? AND origin = 'server' ORDER BY ordinal
                """,
                [sessionNo]
            ) { MirroredEvent(id: $0.int64(0), hash: $0.int64(1), provisional: $0.bool(2), gone: $0.bool(3)) }
            return TimelineMerge(sessionID: sessionID, history: history, sessionNo: sessionNo,
                                 heldConfirmedEvents: mirrored.contains { !$0.provisional }, indexing: indexing,
                                 plan: ArchiveMergeInParts(mirrored: mirrored, fetchedAfterLiveEvents: fetchedAfterLiveEvents))
        }
    }

    /// Merges the next fetched events of `merge`, in order, in one transaction; returns how many
    /// were inserted.
    @discardableResult
    public func mergeTimelinePart(_ fetched: [NewEvent], into merge: inout TimelineMerge) throws -> Int {
        try write {
            var plan = merge.plan
            var outcome = merge.outcome
            var new: [NewEvent] = []
            var removed = 0
            for event in fetched {
                switch plan.take(event.contentHash.rawValue) {
                case .kept(let returned):
                    outcome.kept += 1
                    if let returned {
                        try database.run("UPDATE events SET gone_at = NULL WHERE event_id = ?", [returned])
                        outcome.returned += 1
                    }
                case .confirm(let id):
                    try database.run("UPDATE events SET provisional = 0 WHERE event_id = ?", [id])
                    outcome.confirmed += 1
                case .insert(let removing):
                    try deleteEvents(removing, ofSession: merge.sessionNo)
                    removed += removing.count
                    new.append(event)
                }
            }
            let batch = EventBatch(new)
            let sessionNo = merge.sessionNo
            let inserted = try insert(batch, rows: try rowsToWrite(batch, history: merge.history, bySession: false),
                                      indexing: merge.indexing) { _ in sessionNo }.count
            try database.run(
                "UPDATE sessions SET local_event_count = local_event_count + ?2, gone_event_count = (SELECT count(*) FROM events INDEXED BY events_gone WHERE session_no = ?1 AND gone_at IS NOT NULL) WHERE session_no = ?1",
                [sessionNo, Int64(inserted - removed)]
            )
            outcome.inserted += inserted
            outcome.removed += removed
            merge.plan = plan
            merge.outcome = outcome
            return inserted
        }
    }

    /// Ends a merge once every fetched event was merged: marks gone the confirmed events the
    /// fetch no longer holds, removes the provisional events it replaced, records the watermark
    /// the fetch was made at (`replaceTimelineTail` says how). Returns what the whole merge did.
    @discardableResult
    public func finishTimelineMerge(_ merge: TimelineMerge, watermark: SessionWatermark?) throws -> TailReplacement {
        try write {
            let now = clock.now()
            var outcome = merge.outcome
            let (markedGone, removed) = merge.plan.finish()
            for id in markedGone {
                try database.run("UPDATE events SET gone_at = ? WHERE event_id = ?", [now, id])
            }
            try deleteEvents(removed, ofSession: merge.sessionNo)
            outcome.markedGone = markedGone.count
            outcome.removed += removed.count
            let sessionGone = merge.plan.fetchedCount == 0 && merge.heldConfirmedEvents
            if sessionGone {
                outcome.sessionMarkedGone = try database.scalarInt64(
                    "SELECT gone_at IS NULL FROM sessions WHERE session_no = ?", [merge.sessionNo]) == 1
            }
            try recordFetch(sessionID: merge.sessionID, sessionNo: merge.sessionNo, watermark: watermark, sessionGone: sessionGone, now: now)
            return outcome
        }
    }
}

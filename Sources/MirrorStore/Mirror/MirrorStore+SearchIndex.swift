/// Feeding the full-text index.
///
/// The index (`entries_fts`, of the entries derived from the events) is filled by the store rather than by a trigger per row: in bulk, once
/// per transaction, or once after a long catch-up or a burst (`SearchIndexingMode.putOff`). The counter
/// `search_indexed` is the highest event id up to which every event is indexed; events above it
/// are not indexed yet. Ids only grow, so what is missing is always the newest events.
extension MirrorStore {
    /// The highest event id up to which every event's text is in the full-text index.
    public func searchIndexedUpTo() throws -> Int64 {
        try database.scalarInt64("SELECT value FROM counters WHERE name = 'search_indexed'") ?? 0
    }

    /// Indexes the text of the events not indexed yet, oldest first, at most `limit` of them, in
    /// one transaction; returns how many event ids it covered. Search finds an event only once it
    /// is indexed.
    @discardableResult
    public func indexPendingSearchText(atMost limit: Int = .max) throws -> Int {
        // Nothing pending (the usual case) costs a read, not a write transaction.
        guard try newestEventID() > searchIndexedUpTo() || hasLaggingEntries() else { return 0 }
        return try write {
            try indexEventsForSearch(upTo: try newestEventID(), atMost: limit)
        }
    }

    /// The last event id handed out.
    private func newestEventID() throws -> Int64 {
        try database.scalarInt64("SELECT value FROM counters WHERE name = 'event_id'") ?? 0
    }

    /// Events of a backlog indexed in a transaction that writes new ones, at most, besides its own
    /// (the rest follows with later transactions): a commit after a burst stays short, and a
    /// catch-up's transactions leave no backlog of their own.
    public static let searchIndexingPerWrite = 20_000

    /// Merges the full-text index into one segment (FTS5 `'optimize'`: a third of a second for a
    /// million events). After indexing many events in bulk, do it once: otherwise the many segments
    /// a bulk insert leaves are merged bit by bit in later small transactions, and a live commit
    /// now and then waits 300 ms for it.
    public func mergeSearchIndex() throws {
        try write {
            // Rows of streaming messages that lag behind are brought up to date first: the end
            // of a bulk phase writes nothing more after the merge.
            try refreshLaggingEntries(all: true)
            try database.execute("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')")
        }
    }

    /// How the full-text index merges the segments that indexing adds, as last set.
    public func searchIndexMerging() throws -> SearchIndexMerging {
        let automerge = try database.scalarInt64("SELECT v FROM entries_fts_config WHERE k = 'automerge'")
        return automerge == 0 ? .deferred : .asItGrows
    }

    /// Sets how the full-text index merges the segments that indexing adds (a setting kept in the
    /// mirror, by FTS5, until set again).
    public func setSearchIndexMerging(_ merging: SearchIndexMerging) throws {
        let (automerge, crisismerge) = switch merging {
        case .asItGrows: (4, 16)
        case .deferred: (0, 64)
        }
        try write {
            try database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', \(automerge))")
            try database.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', \(crisismerge))")
        }
    }

    /// Derives and indexes the entries of the events above the watermark up to `newestEventID`,
    /// at most `limit` of them, in the caller's transaction, and rewrites the rows of messages
    /// still streaming that lag behind (`refreshLaggingEntries`), unless the derivation left many
    /// lagging (a catch-up's: its next pass or its end writes them); returns how many event ids it
    /// covered.
    ///
    /// - Parameter inHand: the newest events, as they were just written: when they are all there is
    ///   to derive, they are derived from there rather than read back.
    @discardableResult
    func indexEventsForSearch(upTo newestEventID: Int64, atMost limit: Int, inHand: EventsInHand? = nil) throws -> Int {
        let indexedUpTo = try searchIndexedUpTo()
        var covered = 0
        var lagsMany = false
        if newestEventID > indexedUpTo {
            let lastEventID = limit >= newestEventID - indexedUpTo ? newestEventID : indexedUpTo + Int64(limit)
            let derivable = inHand.flatMap { $0.firstEventID == indexedUpTo + 1 && lastEventID == newestEventID ? $0 : nil }
            lagsMany = try deriveEntries(after: indexedUpTo, through: lastEventID, inHand: derivable)
            try extendSearchSpans(after: indexedUpTo, through: lastEventID, times: derivable.map { ($0.oldestTimestamp, $0.newestTimestamp) })
            try database.run(
                "INSERT INTO counters (name, value) VALUES ('search_indexed', ?1) ON CONFLICT (name) DO UPDATE SET value = ?1",
                [lastEventID]
            )
            covered = Int(lastEventID - indexedUpTo)
        }
        if !lagsMany { try refreshLaggingEntries() }
        return covered
    }

    /// Widest span that indexing more events extends rather than starting a new one: a time
    /// filter reads at most about this many ids past what it needs at each end.
    static let searchSpanWidth: Int64 = 8192

    /// Records the times of the events just indexed (`after` < id ≤ `last`) in `search_spans`:
    /// the newest span takes them while it is narrower than `searchSpanWidth`, else a new one does.
    /// The oldest and newest of their times are read from the events unless given.
    private func extendSearchSpans(after first: Int64, through last: Int64, times given: (oldest: Int64?, newest: Int64?)?) throws {
        guard let times = try given ?? database.queryFirst(
            "SELECT min(ts), max(ts) FROM events WHERE event_id > ?1 AND event_id <= ?2", [first, last],
            { (oldest: $0.optionalInt64(0), newest: $0.optionalInt64(1)) }
        ) else { return }
        try database.run(
            """
            UPDATE search_spans SET last_event_id = ?2,
                oldest_ts = CASE WHEN oldest_ts IS NULL OR ?3 < oldest_ts THEN coalesce(?3, oldest_ts) ELSE oldest_ts END,
                newest_ts = CASE WHEN newest_ts IS NULL OR ?4 > newest_ts THEN coalesce(?4, newest_ts) ELSE newest_ts END
            WHERE first_event_id = (SELECT max(first_event_id) FROM search_spans) AND last_event_id - first_event_id < ?1
            """,
            [Self.searchSpanWidth, last, times.oldest, times.newest]
        )
        if database.changes == 0 {
            try database.run(
                "INSERT INTO search_spans (first_event_id, last_event_id, oldest_ts, newest_ts) VALUES (?1, ?2, ?3, ?4)",
                [first + 1, last, times.oldest, times.newest]
            )
        }
    }
}

/// Whether a write indexes its events for search with its commit, or puts them off to a later
/// `indexPendingSearchText()`: for a long catch-up or a burst, where indexing in a few large steps
/// costs less than with each transaction (the writer's policy decides).
public enum SearchIndexingMode: Sendable, Equatable {
    /// With the commit, after the events put off before them (at most `searchIndexingPerWrite` of those).
    case withCommit
    /// Not before `indexPendingSearchText()`.
    case putOff
}

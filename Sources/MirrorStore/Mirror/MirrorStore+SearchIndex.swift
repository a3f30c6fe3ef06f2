/// Feeding the full-text index.
///
/// The index (`events_fts`) is filled by the store rather than by a trigger per row: in bulk, once
/// per transaction, or once after a long catch-up (`defersSearchIndexing`). The counter
/// `search_indexed` is the highest event id up to which every event is indexed; events above it
/// are not indexed yet. Ids only grow, so what is missing is always the newest events.
extension MirrorStore {
    /// The highest event id up to which every event's text is in the full-text index.
    public func searchIndexedUpTo() throws -> Int64 {
        try database.scalarInt64("SELECT value FROM counters WHERE name = 'search_indexed'") ?? 0
    }

    /// Indexes the text of every event not indexed yet, in one transaction; returns how many event
    /// ids it covered. Search finds an event only once it is indexed.
    ///
    /// After many events, the index is merged into one segment (FTS5 `'optimize'`, a third of a
    /// second for a million events): otherwise the many segments a bulk insert leaves are merged
    /// bit by bit in later small transactions, and a live commit now and then waits 300 ms for it.
    @discardableResult
    public func indexPendingSearchText() throws -> Int {
        try write {
            let lastEventID = try database.scalarInt64("SELECT value FROM counters WHERE name = 'event_id'") ?? 0
            let covered = try indexEventsForSearch(upTo: lastEventID)
            if covered >= Self.searchIndexOptimizeThreshold {
                try database.execute("INSERT INTO events_fts (events_fts) VALUES ('optimize')")
            }
            return covered
        }
    }

    /// Events indexed at once beyond which the index is merged into one segment.
    static let searchIndexOptimizeThreshold = 10_000

    /// Indexes the events above the watermark up to `lastEventID`, in the caller's transaction.
    @discardableResult
    func indexEventsForSearch(upTo lastEventID: Int64) throws -> Int {
        let indexedUpTo = try searchIndexedUpTo()
        guard lastEventID > indexedUpTo else { return 0 }
        try database.run(
            """
            INSERT INTO events_fts (rowid, text)
            SELECT event_id, text FROM events WHERE event_id > ?1 AND event_id <= ?2 AND text <> ''
            """,
            [indexedUpTo, lastEventID]
        )
        try database.run(
            "INSERT INTO counters (name, value) VALUES ('search_indexed', ?1) ON CONFLICT (name) DO UPDATE SET value = ?1",
            [lastEventID]
        )
        return Int(lastEventID - indexedUpTo)
    }
}

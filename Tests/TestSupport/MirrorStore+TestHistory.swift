import MirrorStore

/// Tests that write events by hand write them to one history of their own.
extension MirrorStore {
    /// The history tests write to (`test-history`), created on first use.
    public func testHistory() throws -> HistoryKey {
        if let known = try history(withID: Self.testHistoryID) { return known.key }
        return try createHistory(identity: .bridge, historyID: Self.testHistoryID, desktop: "test", bridgeURL: nil).key
    }

    /// Appends events of the test history (`appendEvents(_:history:advancingHistoryCursorTo:modeOf:)`).
    @discardableResult
    public func appendEvents(_ events: [NewEvent], advancingHistoryCursorTo cursor: Int64? = nil, indexing: SearchIndexingMode = .withCommit,
                             modeOf: (NewEvent) -> String? = { _ in nil }) throws -> AppendOutcome {
        try appendEvents(events, history: try testHistory(), advancingHistoryCursorTo: cursor, indexing: indexing, modeOf: modeOf)
    }

    /// Appends a packed batch of the test history.
    @discardableResult
    public func appendEvents(_ batch: EventBatch, advancingHistoryCursorTo cursor: Int64? = nil) throws -> AppendOutcome {
        try appendEvents(batch, history: try testHistory(), advancingHistoryCursorTo: cursor)
    }

    /// The cursor of the mirror's only history (0 when it has none): what tests of one bridge read.
    public func historyCursor() throws -> Int64 {
        try histories().map(\.cursor).max() ?? 0
    }

    static let testHistoryID = "test-history"
}

extension MirrorStore {
    /// Records sessions of the test history (`upsertSessions(_:history:)`).
    public func upsertSessions(_ records: [SessionRecord]) throws {
        try upsertSessions(records, history: try testHistory())
    }

    /// Merges a fetched timeline of the test history (`replaceTimelineTail(sessionID:history:with:…)`).
    @discardableResult
    public func replaceTimelineTail(sessionID: String, with fetched: [NewEvent], watermark: SessionWatermark? = nil,
                                    fetchedAfterLiveEvents: Bool = false, indexing: SearchIndexingMode = .withCommit) throws -> TailReplacement {
        try replaceTimelineTail(sessionID: sessionID, history: try testHistory(), with: fetched, watermark: watermark,
                                fetchedAfterLiveEvents: fetchedAfterLiveEvents, indexing: indexing)
    }
}

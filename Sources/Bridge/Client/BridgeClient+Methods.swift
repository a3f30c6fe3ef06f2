/// The bridge's methods, typed. Those returning much data decode it in the caller's task
/// (`nonisolated`), not on the connection's actor, which goes on reading frames meanwhile.
extension BridgeClient {
    /// The 10 most recent sessions (a stock bridge lists no more).
    public func recentSessions() async throws -> [RecentSession] {
        let (result, _) = try await call(BridgeMethod.recentSessions, params: [:])
        return try WireDecoding.recentSessions(result)
    }

    /// A session's stored events, oldest first; `limit` keeps the oldest `limit`.
    /// An unknown session gives `[]`.
    public nonisolated func sessionTimeline(sessionID: String, limit: Int? = nil, timeout: Duration? = nil) async throws -> [TimelineItem] {
        var params: [JSONMember] = [JSONMember("session_id", .string(sessionID))]
        if let limit { params.append(JSONMember("limit", .number(limit))) }
        let (result, frame) = try await call(BridgeMethod.sessionTimeline, params: .object(params), timeout: timeout)
        return try WireDecoding.timeline(result, frame: frame)
    }

    /// A session's stored events, oldest first, as `sessionTimeline` gives them; an answer over
    /// the message limit (up to `BridgeClientOptions.maximumTimelineSize`) is read in parts, its
    /// items given as each is complete, never held whole.
    public nonisolated func sessionTimelineInParts(sessionID: String, timeout: Duration?) async throws -> TimelineAnswer {
        let parts = TimelineParts()
        let answer = try await request(BridgeMethod.sessionTimeline, params: ["session_id": .string(sessionID)], timeout: timeout,
                                       inParts: (.timeline(parts), options.maximumMessageSize))
        switch answer {
        case .whole(let result, let frame): return .whole(try WireDecoding.timeline(result, frame: frame))
        case .inParts: return .inParts(parts)
        case .historyPage: throw BridgeError.unexpectedResult(method: BridgeMethod.sessionTimeline, reason: "a history page")
        }
    }

    /// Vendor CLI threads (`topK` is clamped to 1…10 by the bridge).
    public nonisolated func threads(topK: Int? = nil) async throws -> [ThreadItem] {
        let params: JSONValue = topK.map { ["topK": .number($0)] } ?? [:]
        let (result, frame) = try await call(BridgeMethod.threadsList, params: params)
        return try WireDecoding.threads(result, frame: frame)
    }

    /// A page of the global history after `since` (history-cursor bridges); `maxBytes`, the
    /// page's byte budget, is sent when given (see `BridgeCapabilities.historyMaxBytes`).
    public nonisolated func historyChanges(since: Int64, limit: Int = 1000, maxBytes: Int? = nil,
                                           timeout: Duration? = nil) async throws -> HistoryChangesPage {
        var params = [JSONMember("since", .number(since)), JSONMember("limit", .number(Int64(limit)))]
        if let maxBytes { params.append(JSONMember("max_bytes", .number(Int64(maxBytes)))) }
        let (result, frame) = try await call(BridgeMethod.historyChanges, params: .object(params), timeout: timeout)
        return try WireDecoding.changes(result, frame: frame, since: since)
    }

    /// A page of the history as `historyChanges` gives it, but read in parts when its message is
    /// over `historyPageWholeLimit` bytes: its items given as each is complete, never held whole, so
    /// that a page meeting a run of large events costs the largest of them, not their sum.
    public nonisolated func historyChangesInParts(since: Int64, limit: Int, maxBytes: Int?,
                                                  timeout: Duration?) async throws -> HistoryChangesAnswer {
        var params = [JSONMember("since", .number(since)), JSONMember("limit", .number(Int64(limit)))]
        if let maxBytes { params.append(JSONMember("max_bytes", .number(Int64(maxBytes)))) }
        // Its reader only packs the items for the store: a little ahead is enough, and a page of
        // large events costs the few waiting, each held decoded beside its bytes.
        let parts = HistoryPageParts(byteLimit: 1 << 20)
        let answer = try await request(BridgeMethod.historyChanges, params: .object(params), timeout: timeout,
                                       inParts: (.historyPage(parts, since: since), historyPageWholeLimit))
        switch answer {
        case .whole(let result, let frame): return .whole(try WireDecoding.changes(result, frame: frame, since: since))
        case .inParts: return .inParts(parts)
        case .historyPage(let page, let byteCount): return .whole(page.changesPage(since: since, byteCount: byteCount))
        }
    }

    /// The largest history page read whole: 1 MiB (the pages the sizer aims at), or a quarter of
    /// the message limit when that is less. Such a page is decoded in the caller's task, beside
    /// the reading of the next; a larger one, which met events larger than the sizer guessed, is
    /// read in parts, an event at a time (at 4 MiB the runs history peaked 10–20 MiB higher).
    nonisolated var historyPageWholeLimit: Int { min(1 << 20, options.maximumMessageSize / 4) }

    /// A page of every session's metadata (history-cursor bridges).
    public nonisolated func historySessions(after cursor: String? = nil, limit: Int = 1000) async throws -> HistorySessionsPage {
        var params: [JSONMember] = [JSONMember("limit", .number(limit))]
        if let cursor { params.append(JSONMember("after", .string(cursor))) }
        let (result, _) = try await call(BridgeMethod.historySessions, params: .object(params))
        return try WireDecoding.sessions(result)
    }

    /// Creates a session; returns its id.
    public func newSession() async throws -> String {
        let (result, _) = try await call(BridgeMethod.sessionNew, params: [:])
        return try WireDecoding.string(result, "session_id", BridgeMethod.sessionNew)
    }

    /// Sends a prompt. With `clientMessageID`, a history-cursor bridge runs a repeated prompt once.
    public func prompt(sessionID: String, text: String, clientMessageID: String? = nil) async throws -> PromptAccepted {
        var params: [JSONMember] = [
            JSONMember("session_id", .string(sessionID)),
            JSONMember("prompt", [["type": "text", "text": .string(text)]]),
        ]
        if let clientMessageID { params.append(JSONMember("_meta", ["client_message_id": .string(clientMessageID)])) }
        let (result, _) = try await call(BridgeMethod.sessionPrompt, params: .object(params))
        guard let status = result["status"]?.stringValue else {
            throw BridgeError.unexpectedResult(method: BridgeMethod.sessionPrompt, reason: "no status")
        }
        return PromptAccepted(status: status, duplicate: result["_meta"]?["duplicate"]?.boolValue ?? false)
    }

    /// Cancels the session's running turn; returns `cancelled` or `no_active_session`.
    public func cancel(sessionID: String) async throws -> String {
        let (result, _) = try await call(BridgeMethod.sessionCancel, params: ["session_id": .string(sessionID)])
        return result["status"]?.stringValue ?? ""
    }

    /// Switches the session's agent (`codex`, `claude-code`, `orchestrator`, `default_mode`).
    public func setMode(sessionID: String, modeID: String) async throws {
        _ = try await call(BridgeMethod.sessionSetMode, params: ["session_id": .string(sessionID), "mode_id": .string(modeID)])
    }
}

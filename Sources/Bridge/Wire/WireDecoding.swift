/// Reads the bridge's results and notifications out of frames, tolerating what can be tolerated:
/// unknown keys are ignored, optional fields may be missing; an item missing what identifies it
/// makes the result unusable (`BridgeError.unexpectedResult`).
enum WireDecoding {
    static func recentSessions(_ result: JSONValue) throws(BridgeError) -> [RecentSession] {
        let method = BridgeMethod.recentSessions
        return try array(result, method).map { item throws(BridgeError) in
            RecentSession(
                sessionID: try string(item, "session_id", method),
                lastTS: item["last_ts"]?.int64Value ?? 0,
                messageCount: item["message_count"]?.int64Value ?? 0
            )
        }
    }

    static func timeline(_ result: JSONValue, frame: Frame) throws(BridgeError) -> [TimelineItem] {
        let method = BridgeMethod.sessionTimeline
        return try array(result, method).map { item throws(BridgeError) in
            TimelineItem(sessionID: try string(item, "session_id", method), update: try update(item, frame, method))
        }
    }

    /// One item of a timeline read in parts: `bytes` are its exact JSON.
    static func timelineItem(_ bytes: [UInt8]) throws(BridgeError) -> TimelineItem {
        let method = BridgeMethod.sessionTimeline
        let frame: Frame
        do {
            frame = try Frame(bytes: bytes)
        } catch {
            throw .unexpectedResult(method: method, reason: "an item is not JSON: \(error.reason)")
        }
        return TimelineItem(sessionID: try string(frame.json, "session_id", method), update: try update(frame.json, frame, method))
    }

    static func threads(_ result: JSONValue, frame: Frame) throws(BridgeError) -> [ThreadItem] {
        let method = BridgeMethod.threadsList
        guard let items = result["items"] else { throw .unexpectedResult(method: method, reason: "no items") }
        return try array(items, method).map { item throws(BridgeError) in
            ThreadItem(
                id: try string(item, "id", method),
                title: item["title"]?.stringValue,
                source: item["source"]?.stringValue,
                createdAt: item["created_at"]?.int64Value,
                updatedAt: item["updated_at"]?.int64Value,
                lastMessageTS: item["last_message_ts"]?.int64Value,
                messageCount: item["message_count"]?.int64Value,
                rawBytes: frame.rawBytes(of: item)
            )
        }
    }

    static func changes(_ result: JSONValue, frame: Frame, since: Int64) throws(BridgeError) -> HistoryChangesPage {
        let method = BridgeMethod.historyChanges
        guard let items = result["items"] else { throw .unexpectedResult(method: method, reason: "no items") }
        let changes = try array(items, method).map { item throws(BridgeError) in try change(item, frame) }
        return HistoryChangesPage(
            items: changes,
            next: result["next"]?.int64Value ?? changes.last?.seq ?? since,
            hasMore: result["has_more"]?.boolValue ?? false,
            byteCount: frame.bytes.count
        )
    }

    /// One item of a history page read in parts: `bytes` are its exact JSON.
    static func historyChange(_ bytes: [UInt8]) throws(BridgeError) -> HistoryChange {
        if let change = HistoryPageReading.change(bytes) { return change }
        return try historyChangeFromTree(bytes)
    }

    /// One item of a history page, read through its tree whatever its shape.
    static func historyChangeFromTree(_ bytes: [UInt8]) throws(BridgeError) -> HistoryChange {
        let frame: Frame
        do {
            frame = try Frame(bytes: bytes)
        } catch {
            throw .unexpectedResult(method: BridgeMethod.historyChanges, reason: "an item is not JSON: \(error.reason)")
        }
        return try change(frame.json, frame)
    }

    static func change(_ item: JSONValue, _ frame: Frame) throws(BridgeError) -> HistoryChange {
        let method = BridgeMethod.historyChanges
        guard let seq = item["seq"]?.int64Value else { throw .unexpectedResult(method: method, reason: "an item has no seq") }
        return HistoryChange(seq: seq, sessionID: try string(item, "session_id", method), ts: item["ts"]?.int64Value,
                             update: try update(item, frame, method))
    }

    static func sessions(_ result: JSONValue) throws(BridgeError) -> HistorySessionsPage {
        let method = BridgeMethod.historySessions
        guard let items = result["items"] else { throw .unexpectedResult(method: method, reason: "no items") }
        let sessions = try array(items, method).map { item throws(BridgeError) in
            HistorySession(
                sessionID: try string(item, "session_id", method),
                lastTS: item["last_ts"]?.int64Value,
                messageCount: item["message_count"]?.int64Value,
                lastSeq: item["last_seq"]?.int64Value,
                title: item["title"]?.stringValue,
                mode: item["mode"]?.stringValue
            )
        }
        return HistorySessionsPage(items: sessions, next: result["next"]?.stringValue)
    }

    static func notification(method: String, params: JSONValue?, frame: Frame) -> BridgeNotification {
        guard method == BridgeMethod.sessionUpdate, let params,
              let sessionID = params["session_id"]?.stringValue, let updateJSON = params["update"]
        else { return .other(method: method, params: params) }
        return .sessionUpdate(SessionUpdateNotification(
            sessionID: sessionID,
            update: SessionUpdate(rawBytes: frame.rawBytes(of: updateJSON), json: updateJSON),
            seq: params["_meta"]?["seq"]?.int64Value,
            ts: params["_meta"]?["ts"]?.int64Value
        ))
    }

    private static func array(_ value: JSONValue, _ method: String) throws(BridgeError) -> [JSONValue] {
        guard let elements = value.arrayValue else { throw .unexpectedResult(method: method, reason: "expected an array") }
        return elements
    }

    static func string(_ item: JSONValue, _ key: String, _ method: String) throws(BridgeError) -> String {
        guard let value = item[key]?.stringValue else {
            throw .unexpectedResult(method: method, reason: "an item has no string \(key)")
        }
        return value
    }

    private static func update(_ item: JSONValue, _ frame: Frame, _ method: String) throws(BridgeError) -> SessionUpdate {
        guard let json = item["update"] else { throw .unexpectedResult(method: method, reason: "an item has no update") }
        return SessionUpdate(rawBytes: frame.rawBytes(of: json), json: json)
    }
}

/// The method names of the bridge protocol.
public enum BridgeMethod {
    public static let initialize = "initialize"
    public static let recentSessions = "tinyvex/history.recentSessions"
    public static let sessionTimeline = "tinyvex/history.sessionTimeline"
    public static let historyChanges = "tinyvex/history.changes"
    public static let historySessions = "tinyvex/history.sessions"
    public static let threadsList = "threads/list"
    public static let sessionNew = "session/new"
    public static let sessionPrompt = "session/prompt"
    public static let sessionCancel = "session/cancel"
    public static let sessionSetMode = "session/set_mode"
    public static let sessionUpdate = "session/update"

    /// The methods a stock bridge answers (it never answers any other).
    public static let answeredByStockBridge: Set<String> = [
        initialize, recentSessions, sessionTimeline, threadsList, sessionNew, sessionPrompt, sessionCancel, sessionSetMode,
    ]
}

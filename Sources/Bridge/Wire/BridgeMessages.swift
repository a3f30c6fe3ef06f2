// The typed messages of the bridge. Their initializers are public because a `BridgeConnection`
// other than `BridgeClient` (a desktop scripted in-process, for the engine's tests) makes them.

/// What the bridge said in answer to `initialize`.
public struct BridgeCapabilities: Sendable, Equatable {
    /// The bridge's protocol version (`0.2.x`).
    public var protocolVersion: String
    /// The history-cursor extension's version, when the bridge has it.
    public var historyCursor: Int?
    /// The bridge's history identity (version 2): made once, when its history store was created.
    /// A `seq` means something only together with it.
    public var historyID: String?
    /// True when several requests may be in flight on one connection.
    public var pipelining: Bool
    /// True when `tinyvex/history.changes` takes `max_bytes`, a page's byte budget
    /// (`history_max_bytes`); a bridge without it ignores the parameter.
    public var historyMaxBytes: Bool
    public var agentName: String?
    public var agentVersion: String?
    public var workingDirectory: String?

    /// Reads an `initialize` result.
    public init(result: JSONValue) throws(BridgeError) {
        guard let version = result["protocol_version"]?.stringValue else {
            throw .unexpectedResult(method: "initialize", reason: "no protocol_version")
        }
        guard version == "0.2" || version.hasPrefix("0.2.") else { throw .unsupportedProtocol(version: version) }
        protocolVersion = version
        let extensions = result["agent_capabilities"]?["ext_capabilities"]
        historyCursor = extensions?["history_cursor"]?.int64Value.map(Int.init)
        historyID = extensions?["history_id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        pipelining = extensions?["pipelining"]?.boolValue ?? false
        historyMaxBytes = extensions?["history_max_bytes"]?.boolValue ?? false
        agentName = result["agent_info"]?["name"]?.stringValue
        agentVersion = result["agent_info"]?["version"]?.stringValue
        workingDirectory = result["_meta"]?["working_directory"]?.stringValue
    }

    public init(protocolVersion: String, historyCursor: Int? = nil, historyID: String? = nil, pipelining: Bool = false,
                historyMaxBytes: Bool = false) {
        self.protocolVersion = protocolVersion
        self.historyCursor = historyCursor
        self.historyID = historyID
        self.pipelining = pipelining
        self.historyMaxBytes = historyMaxBytes
    }

    /// True when the bridge speaks the history-cursor extension (version 1 or later).
    public var hasHistoryCursor: Bool { (historyCursor ?? 0) >= 1 }
}

/// Who this client is, for `initialize`.
public struct ClientInfo: Sendable, Equatable {
    public var name: String
    public var title: String
    public var version: String

    public init(name: String, title: String, version: String) {
        self.name = name
        self.title = title
        self.version = version
    }

    /// The params of `initialize`.
    var initializeParams: JSONValue {
        [
            "protocol_version": "0.2.2",
            "client_capabilities": ["fs": ["read_text_file": false, "write_text_file": false], "terminal": false],
            "client_info": ["name": .string(name), "title": .string(title), "version": .string(version)],
        ]
    }
}

/// An item of `tinyvex/history.recentSessions`.
public struct RecentSession: Sendable, Equatable {
    public var sessionID: String
    /// Time of the session's newest event (ms).
    public var lastTS: Int64
    /// How many events the bridge stores for it (every chunk).
    public var messageCount: Int64

    public init(sessionID: String, lastTS: Int64, messageCount: Int64) {
        self.sessionID = sessionID
        self.lastTS = lastTS
        self.messageCount = messageCount
    }
}

/// An item of `tinyvex/history.sessionTimeline`: no seq, no time, no id.
public struct TimelineItem: Sendable, Equatable {
    public var sessionID: String
    public var update: SessionUpdate

    public init(sessionID: String, update: SessionUpdate) {
        self.sessionID = sessionID
        self.update = update
    }
}

/// An item of `threads/list`.
public struct ThreadItem: Sendable, Equatable {
    public var id: String
    public var title: String?
    /// `codex` or `claude_code`.
    public var source: String?
    public var createdAt: Int64?
    public var updatedAt: Int64?
    public var lastMessageTS: Int64?
    public var messageCount: Int64?
    /// The item exactly as received.
    public var rawBytes: [UInt8]
}

/// An item of `tinyvex/history.changes`.
public struct HistoryChange: Sendable, Equatable {
    public var seq: Int64
    public var sessionID: String
    public var ts: Int64?
    public var update: SessionUpdate

    public init(seq: Int64, sessionID: String, ts: Int64?, update: SessionUpdate) {
        self.seq = seq
        self.sessionID = sessionID
        self.ts = ts
        self.update = update
    }
}

/// A page of `tinyvex/history.changes`.
public struct HistoryChangesPage: Sendable, Equatable {
    public var items: [HistoryChange]
    /// The seq to ask from next (the last item's, or the `since` asked for).
    public var next: Int64
    public var hasMore: Bool
    /// The size of the message the page came in, in bytes (what the next page's size is judged by).
    public var byteCount = 0

    public init(items: [HistoryChange], next: Int64, hasMore: Bool, byteCount: Int = 0) {
        self.items = items
        self.next = next
        self.hasMore = hasMore
        self.byteCount = byteCount
    }
}

/// An item of `tinyvex/history.sessions`.
public struct HistorySession: Sendable, Equatable {
    public var sessionID: String
    public var lastTS: Int64?
    public var messageCount: Int64?
    public var lastSeq: Int64?
    public var title: String?
    public var mode: String?

    public init(sessionID: String, lastTS: Int64?, messageCount: Int64?, lastSeq: Int64?, title: String?, mode: String?) {
        self.sessionID = sessionID
        self.lastTS = lastTS
        self.messageCount = messageCount
        self.lastSeq = lastSeq
        self.title = title
        self.mode = mode
    }
}

/// A page of `tinyvex/history.sessions`.
public struct HistorySessionsPage: Sendable, Equatable {
    public var items: [HistorySession]
    /// The cursor of the next page; nil on the last.
    public var next: String?

    public init(items: [HistorySession], next: String?) {
        self.items = items
        self.next = next
    }
}

/// The answer to `session/prompt`.
public struct PromptAccepted: Sendable, Equatable {
    /// `started`, `resumed` or `accepted`.
    public var status: String
    /// True when a history-cursor bridge recognised the `client_message_id` and did not run it again.
    public var duplicate: Bool

    public init(status: String, duplicate: Bool) {
        self.status = status
        self.duplicate = duplicate
    }
}

/// A `session/update` notification.
public struct SessionUpdateNotification: Sendable, Equatable {
    public var sessionID: String
    public var update: SessionUpdate
    /// The update's global seq (`_meta.seq`), from a history-cursor bridge.
    public var seq: Int64?
    /// The update's time (`_meta.ts`), from a history-cursor bridge.
    public var ts: Int64?

    public init(sessionID: String, update: SessionUpdate, seq: Int64?, ts: Int64?) {
        self.sessionID = sessionID
        self.update = update
        self.seq = seq
        self.ts = ts
    }
}

/// A notification from the bridge.
public enum BridgeNotification: Sendable, Equatable {
    case sessionUpdate(SessionUpdateNotification)
    /// Any other notification, kept as it came.
    case other(method: String, params: JSONValue?)
}

/// Where a mirrored event came from.
public enum EventOrigin: String, Sendable, Codable {
    /// Received from the bridge.
    case server
    /// Written by this client (a prompt's echo); never replaced by a timeline refetch.
    case local

    /// The raw value, as a constant that SQLite can read in place.
    var staticName: StaticString {
        switch self {
        case .server: "server"
        case .local: "local"
        }
    }
}

/// An event to add to a session's timeline, as the bridge layer hands it to the store.
///
/// The store does not read `updateJSON`: `kind` and `text` are what the caller extracted from it,
/// and the bytes are kept exactly as given.
public struct NewEvent: Sendable, Equatable {
    public var sessionID: String
    /// The bridge's global sequence number, when it sends one.
    public var seq: Int64?
    /// Event time in ms since the epoch, when known.
    public var timestamp: Int64?
    /// The update's `sessionUpdate` tag, or `unknown`.
    public var kind: String
    /// Plain text for search and display ("" when there is none).
    public var text: String
    /// The update object exactly as received.
    public var updateJSON: [UInt8]
    public var contentHash: ContentHash
    /// A live update that the next timeline fetch should confirm or correct.
    public var provisional: Bool
    public var origin: EventOrigin

    /// - Parameter contentHash: defaults to the hash of `updateJSON`.
    public init(
        sessionID: String,
        seq: Int64? = nil,
        timestamp: Int64? = nil,
        kind: String,
        text: String,
        updateJSON: [UInt8],
        contentHash: ContentHash? = nil,
        provisional: Bool = false,
        origin: EventOrigin = .server
    ) {
        self.sessionID = sessionID
        self.seq = seq
        self.timestamp = timestamp
        self.kind = kind
        self.text = text
        self.updateJSON = updateJSON
        self.contentHash = contentHash ?? ContentHash(of: updateJSON)
        self.provisional = provisional
        self.origin = origin
    }
}

/// An event as the mirror holds it.
public struct TimelineEvent: Sendable, Equatable {
    /// The mirror's row id; stable while the event exists.
    public var eventID: Int64
    public var sessionID: String
    /// Position in the session's timeline (increasing, not necessarily contiguous).
    public var ordinal: Int64
    public var seq: Int64?
    public var timestamp: Int64?
    public var kind: String
    public var text: String
    public var updateJSON: [UInt8]
    public var contentHash: ContentHash
    public var provisional: Bool
    public var origin: EventOrigin
    /// When the mirror noticed that the desktop no longer has the event (it stays here).
    public var goneAt: Int64? = nil
}

/// Which part of a timeline to read.
public struct TimelineRange: Sendable, Equatable {
    /// The first ordinal to include.
    public var fromOrdinal: Int64
    /// At most this many events (nil: all).
    public var limit: Int?
    /// The last ordinal to include (nil: to the timeline's end).
    public var throughOrdinal: Int64?

    public init(fromOrdinal: Int64 = 0, limit: Int? = nil, throughOrdinal: Int64? = nil) {
        self.fromOrdinal = fromOrdinal
        self.limit = limit
        self.throughOrdinal = throughOrdinal
    }

    /// The whole timeline.
    public static let all = TimelineRange()
}

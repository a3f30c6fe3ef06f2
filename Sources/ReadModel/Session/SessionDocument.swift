import MirrorStore
import Secrets

/// A session as its readers see it whole (`show`, the exports, MCP's session resource): its facts
/// and its conversation, redacted as one document by the `MirrorViews` that made it.
public struct SessionDocument: Sendable {
    /// The session's facts as the mirror holds them (its id, desktop, mode, sync failure).
    public var session: SessionSummary
    /// The title for a heading: the session's (`SessionTitle`), else `Session <id>`.
    public var title: String
    public var entries: [Conversation.Entry]
    /// The time of each entry's first event, where the desktop sent one.
    public var entryTimes: [Timestamp?]
    public var firstActivity: Timestamp?
    /// The last event's time, else the session list's.
    public var lastActivity: Timestamp?
    public var eventCount: Int
    /// What its desktop no longer has and the mirror keeps (`ArchiveNote`), if anything.
    public var archiveNote: String?
    public var redaction: DocumentRedaction

    /// Reads the document of `session` from `events`, its whole timeline in order.
    init(session: SessionSummary, events: [TimelineEvent], redactor: Redactor?) {
        let conversation = Conversation(events: events).redacted(by: redactor)
        let heading = SessionTitle.heading(session, conversation: conversation)
        let times = Dictionary(events.compactMap { event in event.timestamp.map { (event.ordinal, $0) } }, uniquingKeysWith: { first, _ in first })
        let timestamps = events.compactMap(\.timestamp)
        self.session = session
        title = redactor?.redact(heading) ?? heading
        entries = conversation.entries
        entryTimes = conversation.entries.map { Timestamp(milliseconds: times[$0.firstOrdinal]) }
        firstActivity = Timestamp(milliseconds: timestamps.min())
        lastActivity = Timestamp(milliseconds: timestamps.max() ?? session.lastTS)
        eventCount = events.count
        archiveNote = ArchiveNote.line(session: session, events: events)
        redaction = DocumentRedaction(redactor)
    }
}

/// What was done to a document's secrets, for its header to say.
public enum DocumentRedaction: Sendable, Equatable {
    /// Nothing was redacted: the person asked (`--no-redact`).
    case none
    /// This many secrets were replaced by their tags.
    case redacted(secrets: Int)

    /// After `redactor` did its work on the document.
    init(_ redactor: Redactor?) {
        self = redactor.map { .redacted(secrets: $0.redactions) } ?? .none
    }

    /// What a document's header says of it: nothing when there was nothing to redact.
    public var note: String? {
        switch self {
        case .none: "Not redacted (--no-redact): secrets appear as they were received"
        case .redacted(0): nil
        case .redacted(let count): "Redacted: \(count) secret\(count == 1 ? "" : "s") replaced by [REDACTED:<kind>#<n>]"
        }
    }
}

/// A session's stored events, one by one, redacted (`show --raw`, `export --format json`).
public struct SessionEvents: Sendable {
    public var sessionID: String
    public var events: [TimelineEvent]
}

/// A part of a session's conversation from one event on, for a reader that reads on in parts
/// (MCP's `read_session`).
public struct ConversationPart: Sendable {
    /// The session's title, else `Session <id>`.
    public var title: String
    public var entries: [Conversation.Entry]
    /// The ordinal and length in characters of each event read, for a reader that cuts an entry
    /// to say where to read on.
    public var eventLengths: [(ordinal: Int64, characters: Int)]
    /// Whether the events read reach the session's end.
    public var reachesEnd: Bool
}

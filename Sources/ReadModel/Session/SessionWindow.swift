import MirrorStore
import Secrets

/// A span of a session's conversation, for a reader that shows a long session a screen at a time
/// (the web viewer): the session's facts, the entries of the span, and where the spans before and
/// after it begin. Redacted as one document by the `MirrorViews` that made it.
public struct SessionWindow: Sendable {
    public var session: SessionSummary
    /// The title for a heading: the session's (`SessionTitle`), else `Session <id>`.
    public var title: String
    public var entries: [Conversation.Entry]
    /// The time of each entry's first event, where the desktop sent one.
    public var entryTimes: [Timestamp?]
    /// The first ordinal the span covers.
    public var start: Int64
    /// Where the span before this one begins; nil when this one starts the session.
    public var earlierStart: Int64?
    /// Where the span after this one begins; nil when this one reaches the session's end.
    public var laterStart: Int64?
    /// What its desktop no longer has and the mirror keeps, of the session or the span's events.
    public var archiveNote: String?
    public var redaction: DocumentRedaction

    /// How much a span holds, by default: a screenful or two of a conversation, a few thousand
    /// elements of a page at most.
    public static let defaultBudget = MirrorStore.SpanBudget(entries: 40, bytes: 96 << 10)

    /// The window of `session` from the entry holding `ordinal` on (not past `through`), read in
    /// the caller's transaction.
    static func read(session: SessionSummary, from ordinal: Int64, through: Int64?, budget: MirrorStore.SpanBudget, store: MirrorStore,
                     redactor: Redactor?) throws -> SessionWindow {
        var span = try store.conversationSpan(sessionID: session.sessionID, from: ordinal, budget: budget)
        if let through { span.end = min(span.end ?? through, through) }
        let events = try store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: span.start, throughOrdinal: span.end))
        let conversation = Conversation(events: events).redacted(by: redactor)
        let title = try SessionTitle.of(session, store: store) ?? "Session \(session.sessionID)"
        let times = Dictionary(events.compactMap { event in event.timestamp.map { (event.ordinal, $0) } }, uniquingKeysWith: { first, _ in first })
        let laterStart: Int64? = if let end = span.end {
            try store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: end + 1, limit: 1)).first?.ordinal
        } else {
            nil
        }
        return SessionWindow(
            session: session, title: redactor?.redact(title) ?? title, entries: conversation.entries,
            entryTimes: conversation.entries.map { Timestamp(milliseconds: times[$0.firstOrdinal]) },
            start: span.start,
            earlierStart: try store.conversationSpanStart(sessionID: session.sessionID, before: span.start, budget: budget),
            laterStart: laterStart,
            archiveNote: ArchiveNote.line(session: session, events: events),
            redaction: DocumentRedaction(redactor)
        )
    }
}

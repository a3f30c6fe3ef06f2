import MirrorStore
import Secrets

extension MirrorViews {
    /// The whole document of `session`: its facts and conversation, redacted as one.
    public func sessionDocument(_ session: SessionSummary) throws -> SessionDocument {
        let events = try store.timeline(sessionID: session.sessionID)
        return SessionDocument(session: session, events: events, redactor: redaction.redactor())
    }

    /// The conversation of `session` read a part at a time, its entries handed to `body` in
    /// order once their prompt turn has ended (`Conversation.Builder.takeEnded`), the rest at the
    /// end, redacted as one document: a reader shows a long session as it is read (`show`),
    /// holding a part of it at a time. Each part is read by a query of its own, so that no read
    /// stays open while `body` waits on a slow reader (a pager), holding back the log's
    /// checkpoints; a session that grows meanwhile shows what was committed as each part was
    /// read. The entries are `sessionDocument`'s, but for an update of a tool call that comes
    /// after a later prompt: it stands as an entry of its own where it comes. `body` is not
    /// called for a session without events.
    public func readConversation(of session: SessionSummary, _ body: ([Conversation.Entry]) throws -> Void) throws {
        let redactor = redaction.redactor()
        var builder = Conversation.Builder()
        // The first part small, for the first lines to show at once; then larger ones.
        var eventsPerRead = 64
        var from: Int64 = 0
        while true {
            let events = try store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: from, limit: eventsPerRead))
            for event in events { builder.add(event) }
            let isLast = events.count < eventsPerRead
            let entries = isLast ? builder.finish() : builder.takeEnded()
            if !entries.isEmpty { try body(Conversation(entries: entries).redacted(by: redactor).entries) }
            guard !isLast, let last = events.last else { return }
            from = last.ordinal + 1
            eventsPerRead = min(eventsPerRead * 2, 1024)
        }
    }

    /// What the view of `session` says of what its desktop no longer has (`ArchiveNote`), read
    /// without its events.
    public func archiveNote(of session: SessionSummary) throws -> String? {
        ArchiveNote.line(session: session, goneOrdinals: try store.goneOrdinals(sessionID: session.sessionID))
    }

    /// The stored events of `session`, redacted one by one (the chunks of a message as parts of
    /// their whole: `EventRedaction`).
    public func sessionEvents(_ session: SessionSummary) throws -> SessionEvents {
        let events = try store.timeline(sessionID: session.sessionID)
        return SessionEvents(sessionID: session.sessionID, events: EventRedaction.redacted(events, by: redaction.redactor()))
    }

    /// The part of the conversation around ordinal `at` (`ConversationWindow`), redacted: its
    /// entries, or with `raw` its events one by one (the other left empty); nil when the session
    /// has no event at `at` or after it.
    public func conversationWindow(ofSession sessionID: String, at ordinal: Int64, context: Int,
                                   span: Int = ConversationWindow.maximumSpan, raw: Bool = false) throws -> ConversationWindow? {
        guard var window = try store.read({ try ConversationWindow.read(store: store, sessionID: sessionID, at: ordinal, context: context, span: span) })
        else { return nil }
        let redactor = redaction.redactor()
        if raw {
            window.events = EventRedaction.redacted(window.events, by: redactor)
            window.entries = []
        } else {
            window.entries = Conversation(entries: window.entries).redacted(by: redactor).entries
            window.events = []
        }
        return window
    }

    /// The conversation of `session` from the event at ordinal `start` on, as far as `limit`
    /// events reach (a message cut by the limit is shown as far as read), with the session's
    /// title; redacted as one document.
    public func conversationPart(of session: SessionSummary, from start: Int64, limit: Int) throws -> ConversationPart {
        try store.read {
            let events = try store.timeline(sessionID: session.sessionID, range: TimelineRange(fromOrdinal: start, limit: limit + 1))
            let reachesEnd = events.count <= limit
            let read = reachesEnd ? events[...] : events.dropLast()
            let redactor = redaction.redactor()
            let title = try SessionTitle.of(session, store: store) ?? "Session \(session.sessionID)"
            return ConversationPart(title: redactor?.redact(title) ?? title,
                                    entries: Conversation(events: Array(read)).redacted(by: redactor).entries,
                                    eventLengths: read.map { ($0.ordinal, $0.text.count) }, reachesEnd: reachesEnd)
        }
    }
}

extension MirrorViews {
    /// The span of `session`'s conversation from the entry holding `ordinal` on, within `budget`
    /// and not past the ordinal `through` if given (`SessionWindow`), redacted as one document.
    public func sessionWindow(of session: SessionSummary, from ordinal: Int64, through: Int64? = nil,
                              budget: MirrorStore.SpanBudget = SessionWindow.defaultBudget) throws -> SessionWindow {
        try store.read {
            try SessionWindow.read(session: session, from: ordinal, through: through, budget: budget, store: store, redactor: redaction.redactor())
        }
    }
}

import ReadModel

/// The answers of `show` (`sessions.show`) as `docs/cli.md` documents them, made from the read
/// model's views and encoded by `JSONValueEncoder`.
enum ShowAnswer {
    /// A whole session as a conversation: `archive_note` when its desktop no longer has some of
    /// it, `sync_error` and `retry_after` when its timeline could not be mirrored.
    struct Conversation: Encodable {
        var document: SessionDocument

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", entries, archiveNote = "archive_note", syncError = "sync_error", retryAfter = "retry_after"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(document.session.sessionID, forKey: .sessionID)
            try container.encode(document.entries, forKey: .entries)
            if let note = document.archiveNote { try container.encode(note, forKey: .archiveNote) }
            if let error = document.session.syncError {
                try container.encode(error, forKey: .syncError)
                try container.encode(Timestamp(milliseconds: document.session.retryAfter), forKey: .retryAfter)
            }
        }
    }

    /// A whole session's stored events (`raw`).
    struct Events: Encodable {
        var sessionID: String
        var events: [EventRow]

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", events
        }
    }

    /// The part around one event (`at`): its entries with `context`, or its events (`raw`), and
    /// what is left out before and after it.
    struct Window: Encodable {
        var sessionID: String
        var at: Int
        /// nil for the raw window, which shows events and says nothing of context.
        var context: Int?
        var window: ConversationWindow

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id", at, context, entries, events, earlier, later
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sessionID, forKey: .sessionID)
            try container.encode(at, forKey: .at)
            if let context {
                try container.encode(context, forKey: .context)
                try container.encode(window.entries, forKey: .entries)
            } else {
                try container.encode(window.events.map(EventRow.init), forKey: .events)
            }
            try container.encode(window.earlier.map { LeftOut(events: $0.count, ordinal: $0.lastOrdinal, last: true) }, forKey: .earlier)
            try container.encode(window.later.map { LeftOut(events: $0.count, ordinal: $0.firstOrdinal, last: false) }, forKey: .later)
        }
    }

    /// Events left out on one side: how many, and the ordinal of the one nearest the window.
    private struct LeftOut: Encodable {
        var events: Int
        var ordinal: Int64
        /// Before the window (`last_ordinal`) or after it (`first_ordinal`).
        var last: Bool

        enum CodingKeys: String, CodingKey {
            case events, lastOrdinal = "last_ordinal", firstOrdinal = "first_ordinal"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(events, forKey: .events)
            try container.encode(ordinal, forKey: last ? .lastOrdinal : .firstOrdinal)
        }
    }
}

/// One event as entries are derived from it.
struct DerivedEvent {
    var id: Int64
    var sessionNo: Int64
    var ordinal: Int64
    /// What it is to a message, as SQL classified it (`columns`): no kind read as a string.
    var role: Role
    var origin: String
    /// Its text if it is a chunk, else empty.
    var text: String
    var timestamp: Int64?

    /// What an event is to the derivation of messages.
    enum Role: Int64 {
        /// Any other event: it ends the message before it.
        case other = 0
        case userChunk, agentChunk, thoughtChunk
        /// An update of an earlier tool call: it leaves a message open.
        case toolUpdate

        /// The roles of chunks.
        static let chunks: [Role] = [.userChunk, .agentChunk, .thoughtChunk]

        /// The kind of the chunks of this role (nil if it is not a chunk).
        var chunkKind: String? {
            switch self {
            case .userChunk: "user_message_chunk"
            case .agentChunk: "agent_message_chunk"
            case .thoughtChunk: "agent_thought_chunk"
            case .other, .toolUpdate: nil
            }
        }

        /// `role` in SQL, of the row's `kind` and `origin` (`EntryWriter.isChunk` for chunks; an
        /// update of a tool call, from wherever, leaves a message open).
        static let sql = "CASE WHEN kind = '\(EntryWriter.toolUpdateKind)' THEN 4 WHEN origin = 'local' THEN 0 "
            + "WHEN kind = 'user_message_chunk' THEN 1 WHEN kind = 'agent_message_chunk' THEN 2 "
            + "WHEN kind = 'agent_thought_chunk' THEN 3 ELSE 0 END"
    }

    /// The columns `init(row:)` reads, in its order: the text of chunks only (the entries of
    /// single events are written in bulk, `SingleEvents`).
    static let columns = "event_id, session_no, ordinal, \(Role.sql), origin, CASE WHEN \(EntryWriter.isChunkSQL) THEN text ELSE '' END, ts"

    init(id: Int64, sessionNo: Int64, ordinal: Int64, role: Role, origin: String, text: String, timestamp: Int64?) {
        self.id = id
        self.sessionNo = sessionNo
        self.ordinal = ordinal
        self.role = role
        self.origin = role.chunkKind == nil ? "" : origin
        self.text = text
        self.timestamp = timestamp
    }

    init(row: Row) {
        id = row.int64(0)
        sessionNo = row.int64(1)
        ordinal = row.int64(2)
        role = Role(rawValue: row.int64(3)) ?? .other
        origin = role.chunkKind == nil ? "" : row.string(4)
        text = row.string(5)
        timestamp = row.optionalInt64(6)
    }
}

/// Derives the messages of the conversation from events and writes them, with their rows in the
/// full-text index, in the caller's transaction (`schema/0012_entries.sql` says what an entry is;
/// the entries of single events, rows of `single_entries`, are written in bulk when it finishes:
/// `SingleEvents`).
///
/// Events are given session by session in the order of their ordinals (a session's events may be
/// interleaved with other sessions'). A message is written when it ends; one still open when the
/// events run out is written if it is new, else rewritten only if its row is older than
/// `MirrorStore.streamingEntryRefresh` (left lagging otherwise, for `refreshLaggingEntries`): its
/// growth costs one row update per pass, its index a rewrite at most once per refresh interval.
/// A pass that leaves many messages open (`manyOpenMessages`) leaves them all lagging.
///
/// An event whose ordinal is not past that of every event of its session derived before (a
/// timeline that was not appended to, but changed) is not derived: its session is listed in
/// `sessionsOutOfOrder`, to be derived again from before it.
final class EntryWriter {
    private let database: Database
    private let now: Int64
    /// The highest event id a message may hold: its texts are read up to it.
    private let lastEventID: Int64
    private var sessions: [Int64: SessionState] = [:]
    private(set) var sessionsOutOfOrder: Set<Int64> = []
    private var newRows = NewEntryRows()
    private var indexRows = EntryIndexRows()

    /// The kinds whose consecutive events form one message.
    static let messageKinds: Set<String> = ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]

    /// Whether an event of this kind and origin is a chunk of a message: a message's kind, from
    /// the desktop. A prompt written here (its echo, origin `local`) is whole: an entry alone, so
    /// that two queued one after the other do not run their words together.
    static func isChunk(kind: String, origin: String) -> Bool {
        origin != "local" && messageKinds.contains(kind)
    }

    /// `isChunk` in SQL, of the row's `kind` and `origin`.
    static let isChunkSQL = "(origin <> 'local' AND kind IN (" + messageKinds.sorted().map { "'\($0)'" }.joined(separator: ", ") + "))"
    /// The kind of an update of an earlier tool call, which leaves a message open.
    static let toolUpdateKind = "tool_call_update"

    /// What was derived before this pass, of the sessions of the events it is given.
    enum Derived {
        /// Nothing: their entries are known to be none (a derivation from the start), and
        /// nothing is read from `entries`.
        case nothing
        /// Every event of theirs, and each event given comes after them all (appended by a write
        /// that derives its own events): only their open messages are read.
        case everyEventBefore
        /// The events up to this id (the index's watermark): an event given may have been placed
        /// among them, which the last of them tells.
        case through(Int64)
    }

    init(database: Database, now: Int64, lastEventID: Int64, derived: Derived) {
        self.database = database
        self.now = now
        self.lastEventID = lastEventID
        self.derived = derived
    }

    private let derived: Derived
    /// The texts of open messages that the writes before left (`OpenMessageTexts`); the pass
    /// leaves those of the messages it leaves open.
    var openTexts: OpenMessageTexts?
    /// The messages still open that grew in this pass are stored without writing their rows in
    /// the index, lagging (`finish()` decides).
    private(set) var lagsOpenMessages = false

    /// More messages left open and grown by one pass than this, and the pass is a catch-up's
    /// across many sessions, not a few replies streaming: their rows wait, lagging, until the
    /// message ends (most likely in the next pass) or the catch-up does. A row rewritten each
    /// refresh interval instead cost a catch-up of a million interleaved events a third of its time.
    static let manyOpenMessages = 64

    private struct SessionState {
        var open: Message?
        /// The highest ordinal derived.
        var lastOrdinal: Int64
    }

    /// A message of chunks, as derived so far.
    struct Message {
        var entryID: Int64
        var sessionNo: Int64
        var kind: String
        var origin: String
        var firstOrdinal: Int64
        var lastOrdinal: Int64
        var lastEventID: Int64
        var events: Int64
        /// The bytes of its chunks' text.
        var length: Int64
        var indexedEvents: Int64
        var indexedAt: Int64?
        var timestamp: Int64?
        /// The texts of its chunks when every one is at hand (it began in this pass, or the write
        /// before left them: `OpenMessageTexts`); else nil, and they are read from the events when
        /// it is written.
        var texts: ChunkTexts?
        /// It has a row in `entries`.
        var stored: Bool
        /// It took chunks in this pass.
        var grew: Bool
    }

    func add(_ event: DerivedEvent) throws {
        guard !sessionsOutOfOrder.contains(event.sessionNo) else { return }
        // Taken out of the dictionary while it changes: its message's texts grow in place, not copied each time.
        var state = try sessions.removeValue(forKey: event.sessionNo) ?? sessionState(event.sessionNo)
        guard event.ordinal > state.lastOrdinal else {
            sessions[event.sessionNo] = state
            sessionsOutOfOrder.insert(event.sessionNo)
            return
        }
        state.lastOrdinal = event.ordinal
        if let kind = event.role.chunkKind {
            let continues = state.open.map {
                $0.kind == kind && $0.origin == event.origin && !Self.endsPart($0, before: event)
            } ?? false
            if continues {
                // In place: the texts are appended to, not copied.
                state.open?.lastOrdinal = event.ordinal
                state.open?.lastEventID = event.id
                state.open?.events += 1
                state.open?.length += Int64(event.text.utf8.count)
                state.open?.texts?.append(event.text)
                state.open?.grew = true
            } else {
                if let open = state.open { try write(open, open: false) }
                state.open = Message(
                    entryID: event.id, sessionNo: event.sessionNo, kind: kind, origin: event.origin,
                    firstOrdinal: event.ordinal, lastOrdinal: event.ordinal, lastEventID: event.id, events: 1,
                    length: Int64(event.text.utf8.count), indexedEvents: 0, indexedAt: nil, timestamp: event.timestamp, texts: ChunkTexts([event.text]), stored: false, grew: true
                )
            }
        } else {
            if event.role != .toolUpdate, let open = state.open {
                try write(open, open: false)
                state.open = nil
            }
        }
        sessions[event.sessionNo] = state
    }

    /// The length past which a message goes on as a new entry (`schema/0012_entries.sql`).
    static let partLength: Int64 = 64 * 1024

    /// Whether `event` begins a new part of `message` rather than continuing it: once the
    /// message is `partLength` long, at a chunk that begins between words; at twice that, at any.
    static func endsPart(_ message: Message, before event: DerivedEvent) -> Bool {
        guard message.length >= partLength else { return false }
        return message.length >= 2 * partLength || event.text.unicodeScalars.first?.properties.isWhitespace == true
    }

    /// Writes the messages still open, as the type's documentation says, then the entries of
    /// `singles` (in bulk, into `single_entries`) and every row of the index not written yet.
    func finish(singles: SingleEvents? = nil) throws {
        lagsOpenMessages = sessions.values.count { $0.open?.grew ?? false } > Self.manyOpenMessages
        for sessionNo in sessions.keys.sorted() { try finish(session: sessionNo) }
        try newRows.flush(database: database)
        switch singles {
        case nil:
            try indexRows.write(database: database, selected: nil)
        case .inHand(let events):
            for event in events {
                try indexRows.insert(rowID: event.id, text: event.text, kind: event.kind, sessionNo: event.sessionNo, database: database)
            }
            try Self.singleEntries.write(events, database: database) { event, statement, first in
                try statement.bind(.integer(event.id), at: first)
                try statement.bind(.integer(Int64(event.text.utf8.count)), at: first + 1)
                try statement.bind(.integer(EntryTextHash.hash(kind: event.kind, text: event.text)), at: first + 2)
                try statement.bind(event.timestamp.map(DatabaseValue.integer) ?? .null, at: first + 3)
            }
            try indexRows.write(database: database, selected: nil)
        case .selected(let selected):
            // Their lengths come back as they are written: the index's count of bytes takes them
            // without a second pass over the texts.
            var bytes: Int64 = 0
            _ = try database.query(
                """
                INSERT INTO single_entries (event_id, length, text_hash, ts)
                SELECT event_id, length(CAST(text AS BLOB)), \(EntryTextHash.functionName)(kind, text), ts \(selected.rows)
                RETURNING length
                """,
                // The condition's parameters are numbered from ?2 on.
                [0] + selected.arguments
            ) { bytes += $0.int64(0) }
            try indexRows.write(database: database, selected: selected, selectedBytes: bytes)
        }
    }

    /// Rows of `single_entries` from the events in hand, many to a statement.
    private static let singleEntries = MultiRowInsert("INSERT INTO single_entries (event_id, length, text_hash, ts)", row: "(?, ?, ?, ?)")

    /// Writes the message still open of one session, as `finish()` does, and forgets the
    /// session: for a pass that gives sessions one after the other, so that it holds one
    /// session's message at a time.
    func finish(session sessionNo: Int64) throws {
        defer { sessions[sessionNo] = nil }
        if !sessionsOutOfOrder.contains(sessionNo), let open = sessions[sessionNo]?.open, open.grew {
            if !open.stored {
                try write(open, open: true, indexing: !lagsOpenMessages)
            } else if !lagsOpenMessages, open.indexedAt.map({ now - $0 >= MirrorStore.streamingEntryRefresh }) ?? true {
                try write(open, open: true)
            } else {
                try database.run(
                    "UPDATE entries SET last_ordinal = ?2, last_event_id = ?3, events = ?4, length = ?5 WHERE entry_id = ?1",
                    [open.entryID, open.lastOrdinal, open.lastEventID, open.events, open.length]
                )
            }
        }
        if !sessionsOutOfOrder.contains(sessionNo), let open = sessions[sessionNo]?.open, let chunks = open.texts {
            openTexts?.leave(entryID: open.entryID, events: open.events, lastEventID: open.lastEventID, chunks: chunks)
        }
    }

    /// Rewrites the row of `message` (an entry already stored, still open), whatever its age, from
    /// the texts kept for it if the pass has `openTexts` (else read from its events), and leaves
    /// them for the next write.
    func refresh(_ message: Message) throws {
        var message = message
        if openTexts != nil {
            message.texts = try openTexts?.take(entryID: message.entryID, events: message.events, lastEventID: message.lastEventID)
                ?? Self.chunkTexts(of: message, upTo: lastEventID, database: database)
        }
        try write(message, open: true)
        if let chunks = message.texts {
            openTexts?.leave(entryID: message.entryID, events: message.events, lastEventID: message.lastEventID, chunks: chunks)
        }
    }

    /// The state of a session not seen yet in this pass: its open message, if any, and the
    /// ordinal of its last event derived before (an event placed before it was not appended).
    private func sessionState(_ sessionNo: Int64) throws -> SessionState {
        let derivedThrough: Int64
        switch derived {
        case .nothing:
            return SessionState(open: nil, lastOrdinal: -1)
        case .everyEventBefore:
            var open = try database.queryFirst(
                "SELECT \(Self.messageColumns()) FROM entries WHERE session_no = ?1 AND open = 1", [sessionNo]
            ) { Self.message($0) }
            if let message = open {
                open?.texts = openTexts?.take(entryID: message.entryID, events: message.events, lastEventID: message.lastEventID)
            }
            return SessionState(open: open, lastOrdinal: open?.lastOrdinal ?? -1)
        case .through(let id):
            derivedThrough = id
        }
        // One statement; the last derived event is found walking back over the events not derived yet.
        let (open, lastDerived) = try database.queryFirst(
            """
            SELECT \(Self.messageColumns(of: "o")),
                   (SELECT ordinal FROM events WHERE session_no = ?1 AND event_id <= ?2 ORDER BY ordinal DESC LIMIT 1)
            FROM (SELECT 1) LEFT JOIN entries o ON o.session_no = ?1 AND o.open = 1
            """,
            [sessionNo, derivedThrough]
        ) { row in (row.isNull(0) ? nil : Self.message(row), row.optionalInt64(12)) } ?? (nil, nil)
        var message = open
        // Kept for its row; an event placed among those derived sends the session to be derived
        // again, which forgets every text kept.
        message?.texts = open.flatMap { openTexts?.take(entryID: $0.entryID, events: $0.events, lastEventID: $0.lastEventID) }
        return SessionState(open: message, lastOrdinal: max(lastDerived ?? -1, open?.lastOrdinal ?? -1))
    }

    /// The columns `message(_:from:)` reads, of the table `alias` if given.
    static func messageColumns(of alias: String? = nil) -> String {
        ["entry_id", "session_no", "kind", "origin", "first_ordinal", "last_ordinal", "last_event_id", "events", "length",
         "indexed_events", "indexed_at", "ts"].map { column in alias.map { "\($0).\(column)" } ?? column }.joined(separator: ", ")
    }

    /// The message of an `entries` row whose `messageColumns` start at column `first`.
    static func message(_ row: Row, from first: Int32 = 0) -> Message {
        Message(entryID: row.int64(first), sessionNo: row.int64(first + 1), kind: row.string(first + 2),
                origin: row.string(first + 3), firstOrdinal: row.int64(first + 4), lastOrdinal: row.int64(first + 5),
                lastEventID: row.int64(first + 6), events: row.int64(first + 7), length: row.int64(first + 8),
                indexedEvents: row.int64(first + 9), indexedAt: row.optionalInt64(first + 10), timestamp: row.optionalInt64(first + 11),
                texts: nil, stored: true, grew: false)
    }

    /// Writes `message`'s row in `entries` and its row in the index (unless not `indexing`),
    /// replacing the one it had.
    private func write(_ message: Message, open: Bool, indexing: Bool = true) throws {
        if !message.stored {
            let text = indexing ? message.texts?.joined ?? "" : ""
            if !text.isEmpty {
                try indexRows.insert(rowID: message.entryID, text: text, kind: message.kind, sessionNo: message.sessionNo, database: database)
            }
            var written = message
            written.texts = nil
            try newRows.append(NewEntryRows.Row(
                message: written, open: open, indexed: indexing,
                textHash: text.isEmpty ? nil : EntryTextHash.hash(kind: message.kind, text: text), indexedAt: now
            ), database: database)
            return
        }
        let texts = try message.texts ?? Self.chunkTexts(of: message, upTo: lastEventID, database: database)
        if message.indexedEvents > 0 {
            let indexed = texts.joined(first: Int(message.indexedEvents))
            if !indexed.isEmpty {
                try indexRows.delete(rowID: message.entryID, text: indexed, kind: message.kind, sessionNo: message.sessionNo, database: database)
            }
        }
        let text = texts.joined
        if !text.isEmpty {
            try indexRows.insert(rowID: message.entryID, text: text, kind: message.kind, sessionNo: message.sessionNo, database: database)
        }
        try database.run(
            """
            INSERT INTO entries (entry_id, session_no, kind, origin, first_ordinal, last_ordinal, last_event_id, events, length,
                                 open, indexed_events, indexed_at, text_hash, ts)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?13, ?9, ?8, ?10, ?11, ?12)
            ON CONFLICT (entry_id) DO UPDATE SET last_ordinal = ?6, last_event_id = ?7, events = ?8, length = ?13, open = ?9,
                indexed_events = ?8, indexed_at = ?10, text_hash = ?11
            """,
            [message.entryID, message.sessionNo, message.kind, message.origin, message.firstOrdinal, message.lastOrdinal,
             message.lastEventID, message.events, open, now, text.isEmpty ? nil : EntryTextHash.hash(kind: message.kind, text: text),
             message.timestamp, message.length]
        )
    }

    /// The texts of a message's chunks, in order: the events of its kind and origin between its
    /// first and last ordinals (any other chunk there would have ended it), up to `lastEventID`.
    static func chunkTexts(of message: Message, upTo lastEventID: Int64, database: Database) throws -> ChunkTexts {
        var texts = ChunkTexts()
        _ = try database.query(
            """
            SELECT text FROM events
            WHERE session_no = ?1 AND ordinal BETWEEN ?2 AND ?3 AND kind = ?4 AND origin = ?5 AND event_id <= ?6
            ORDER BY ordinal
            """,
            [message.sessionNo, message.firstOrdinal, message.lastOrdinal, message.kind, message.origin, lastEventID]
        ) { texts.append($0.string(0)) }
        return texts
    }
}

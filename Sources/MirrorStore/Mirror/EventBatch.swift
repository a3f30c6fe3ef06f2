/// Events packed for the mirror's writer: their strings and update bytes in one buffer, each event
/// a fixed-size row pointing into it, each session id once.
///
/// Packing is the per-event work of a write (copying bytes, finding sessions and modes). Done where
/// the events are decoded, it leaves the writer's thread SQLite's work alone: binding a packed row
/// passes pointers into the buffer, with no copy and no reference counting per event.
public struct EventBatch: Sendable {
    /// One event: where its bytes are in `bytes`, and its other columns.
    struct Row: Sendable {
        /// The event's session, an index into `sessionIDs`.
        var session: Int
        var seq: Int64?
        var timestamp: Int64?
        var kind: Range<Int>
        var text: Range<Int>
        var update: Range<Int>
        var contentHash: ContentHash
        var provisional: Bool
        var origin: EventOrigin
    }

    private(set) var bytes: [UInt8] = []
    /// In the order the events were given.
    private(set) var rows: [Row] = []
    /// The sessions of the events, each once, in the order they first appear.
    public private(set) var sessionIDs: [String] = []
    /// The session modes events set, by row index.
    private(set) var modes: [Int: String] = [:]
    /// True while every seq given is higher than the one before (the usual case: nothing to
    /// deduplicate within the batch).
    private(set) var seqsAscending = true
    /// The lowest seq given, if any.
    private(set) var lowestSeq: Int64?
    private var highestSeq: Int64?
    private var sessionIndex: [String: Int] = [:]

    /// An empty batch, with room for `rows` events of `bytes` bytes (kinds, texts and updates).
    public init(reservingRows rows: Int = 0, bytes: Int = 0) {
        self.rows.reserveCapacity(rows)
        self.bytes.reserveCapacity(bytes)
    }

    /// An empty batch with room for about what `previous` holds and an eighth more, up to `limit`
    /// bytes: batches in a row are alike, and a buffer that grows copies what it holds and touches
    /// new memory each time; but one that ended on a large event says nothing of the next.
    public init(reservingRowsAndBytesOf previous: EventBatch, upTo limit: Int) {
        self.init(reservingRows: previous.count + previous.count / 8, bytes: min(limit, previous.byteCount + previous.byteCount / 8))
    }

    /// `events`, packed.
    ///
    /// - Parameter modeOf: the session mode an event sets, if any (the store does not read update
    ///   JSON); the last such event written of each session sets its mode.
    public init(_ events: [NewEvent], modeOf: (NewEvent) -> String? = { _ in nil }) {
        self.init(reservingRows: events.count,
                  bytes: events.reduce(0) { $0 + $1.kind.utf8.count + $1.text.utf8.count + $1.updateJSON.count })
        for event in events {
            append(event, mode: modeOf(event))
        }
    }

    /// How many events it holds.
    public var count: Int { rows.count }

    /// The bytes its events' kinds, texts and updates take (what bounds a batch besides its count).
    public var byteCount: Int { bytes.count }

    /// True when it holds no event.
    public var isEmpty: Bool { rows.isEmpty }

    /// The seq of the event at `index` (in the order given).
    public func seq(at index: Int) -> Int64? { rows[index].seq }

    /// The session of the event at `index` (in the order given).
    public func sessionID(at index: Int) -> String { sessionIDs[rows[index].session] }

    /// The batch of the events at `indices` alone, in that order.
    public func keeping(_ indices: [Int]) -> EventBatch {
        guard indices.count != rows.count || indices != Array(rows.indices) else { return self }
        var kept = EventBatch(reservingRows: indices.count)
        for index in indices {
            let row = rows[index]
            if let mode = modes[index] { kept.modes[kept.rows.count] = mode }
            kept.rows.append(Row(
                session: kept.session(of: sessionIDs[row.session]), seq: row.seq, timestamp: row.timestamp,
                kind: kept.pack(bytes[row.kind]), text: kept.pack(bytes[row.text]), update: kept.pack(bytes[row.update]),
                contentHash: row.contentHash, provisional: row.provisional, origin: row.origin
            ))
            kept.noteSeq(row.seq)
        }
        return kept
    }

    /// Adds an event after the others.
    ///
    /// - Parameter mode: the session mode the event sets, if any.
    public mutating func append(_ event: NewEvent, mode: String? = nil) {
        append(sessionID: event.sessionID, seq: event.seq, timestamp: event.timestamp, kind: event.kind, text: event.text,
               updateJSON: event.updateJSON, contentHash: event.contentHash, provisional: event.provisional,
               origin: event.origin, mode: mode)
    }

    /// Adds an event after the others, from its parts (as `NewEvent` holds them, without making one).
    ///
    /// - Parameter contentHash: defaults to the hash of `updateJSON`.
    public mutating func append(
        sessionID: String,
        seq: Int64?,
        timestamp: Int64?,
        kind: String,
        text: String,
        updateJSON: [UInt8],
        contentHash: ContentHash? = nil,
        provisional: Bool = false,
        origin: EventOrigin = .server,
        mode: String? = nil
    ) {
        let session = session(of: sessionID)
        if let mode { modes[rows.count] = mode }
        rows.append(Row(
            session: session, seq: seq, timestamp: timestamp, kind: pack(kind), text: pack(text),
            update: pack(updateJSON), contentHash: contentHash ?? ContentHash(of: updateJSON),
            provisional: provisional, origin: origin
        ))
        noteSeq(seq)
    }

    /// The rows' indices, session by session (in the order sessions first appear), each session's
    /// rows in the order given.
    func rowsBySession() -> [Int] {
        var starts = [Int](repeating: 0, count: sessionIDs.count + 1)
        for row in rows { starts[row.session + 1] += 1 }
        for session in sessionIDs.indices { starts[session + 1] += starts[session] }
        var order = [Int](repeating: 0, count: rows.count)
        for (index, row) in rows.enumerated() {
            order[starts[row.session]] = index
            starts[row.session] += 1
        }
        return order
    }

    private mutating func session(of sessionID: String) -> Int {
        if let known = sessionIndex[sessionID] { return known }
        sessionIDs.append(sessionID)
        sessionIndex[sessionID] = sessionIDs.count - 1
        return sessionIDs.count - 1
    }

    private mutating func pack(_ source: some Collection<UInt8>) -> Range<Int> {
        let start = bytes.count
        bytes += source
        return start..<bytes.count
    }

    private mutating func pack(_ text: String) -> Range<Int> {
        var text = text
        return text.withUTF8 { utf8 in
            let start = bytes.count
            bytes.append(contentsOf: utf8)
            return start..<bytes.count
        }
    }

    private mutating func noteSeq(_ seq: Int64?) {
        guard let seq else { return }
        if let highestSeq, seq <= highestSeq { seqsAscending = false }
        highestSeq = max(highestSeq ?? seq, seq)
        lowestSeq = min(lowestSeq ?? seq, seq)
    }
}

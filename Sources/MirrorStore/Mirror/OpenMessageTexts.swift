/// The texts of the messages still open, kept from one write transaction to the next so that a
/// message continued by a later batch, or whose row is rewritten while it streams
/// (`MirrorStore.refreshLaggingEntries`), is not read back from its events (a sixteenth of the
/// writer's time on a million small events over 1,000 sessions, each batch ending a message in
/// most of them; and while following live, a row of up to 128 KiB of chunks read back every
/// `MirrorStore.streamingEntryRefresh` for each message streaming: `docs/benchmarks.md`).
///
/// A message's texts are used only for the row they were left with (its first event, number of
/// events and last event): events' texts never change and their ids are never reused, so such a
/// row is made of the same chunks. They are used only while nothing else changed the mirror: the
/// `Stamp` taken at the end of a transaction (this connection's changes, and other connections'
/// commits as `PRAGMA data_version` counts them) must be the one taken at the start of the next;
/// a savepoint that rolls back, or entries withdrawn to be derived again, forget them all. The
/// texts of a message that a transaction did not touch stay kept for the next one, for at most
/// `idleTransactions` transactions (a message closed by a pass that did not take its texts is
/// never asked for again).
///
/// Bounded by `byteLimit` bytes of memory, the buffers' headers included (`ChunkTexts.memoryBytes`).
struct OpenMessageTexts {
    /// What the mirror was at a point inside a transaction, as far as this connection can tell.
    struct Stamp: Equatable {
        var changes: Int64
        var dataVersion: Int64
    }

    /// The texts of one open message's chunks, and the row they belong to.
    struct Texts {
        var events: Int64
        var lastEventID: Int64
        var chunks: ChunkTexts
        /// Transactions that ended since they were left, without taking them.
        var idle = 0
    }

    /// The most transactions in a row that may leave a message's texts untaken before they are
    /// forgotten: many times the transactions in the `MirrorStore.streamingEntryRefresh` after
    /// which a streaming message's row is rewritten from them.
    static let idleTransactions = 256

    /// The most memory kept, in bytes: a handful of long replies, or the short open messages of
    /// thousands of sessions.
    static let byteLimit = 8 << 20

    private var kept: [Int64: Texts] = [:]
    private var keptAt: Stamp?
    private var leaving: [Int64: Texts] = [:]
    private var leavingBytes = 0

    /// The memory the texts kept and left hold now, in bytes.
    var memoryBytes: Int {
        kept.values.reduce(leavingBytes) { $0 + $1.chunks.memoryBytes }
    }

    /// Starts a write transaction at `stamp`: keeps the texts left by the last one if nothing
    /// changed since, else forgets them; forgets what any transaction that did not commit left.
    mutating func begin(at stamp: Stamp) {
        if keptAt != stamp { kept = [:] }
        keptAt = nil
        leaving = [:]
        leavingBytes = 0
    }

    /// The texts of the open message whose row is `entryID` with `events` events up to
    /// `lastEventID`, if they were kept for it; given once.
    mutating func take(entryID: Int64, events: Int64, lastEventID: Int64) -> ChunkTexts? {
        guard let texts = kept.removeValue(forKey: entryID), texts.events == events, texts.lastEventID == lastEventID else {
            return nil
        }
        return texts.chunks
    }

    /// Leaves the texts of a message open at the end of this transaction, while they fit (else
    /// none of that message's).
    mutating func leave(entryID: Int64, events: Int64, lastEventID: Int64, chunks: ChunkTexts) {
        if let earlier = leaving.removeValue(forKey: entryID) { leavingBytes -= earlier.chunks.memoryBytes }
        let bytes = chunks.memoryBytes
        guard leavingBytes + bytes <= Self.byteLimit else { return }
        leavingBytes += bytes
        leaving[entryID] = Texts(events: events, lastEventID: lastEventID, chunks: chunks)
    }

    /// Ends the transaction at `stamp`, before it commits: what it left is kept once it has, and
    /// so are the texts it did not take, while they fit beside.
    mutating func end(at stamp: Stamp) {
        for (entryID, var texts) in kept where leaving[entryID] == nil && texts.idle < Self.idleTransactions {
            let bytes = texts.chunks.memoryBytes
            guard leavingBytes + bytes <= Self.byteLimit else { continue }
            leavingBytes += bytes
            texts.idle += 1
            leaving[entryID] = texts
        }
        kept = leaving
        keptAt = stamp
        leaving = [:]
        leavingBytes = 0
    }

    /// Forgets everything: the transaction, or a savepoint of it, did not commit, or the entries
    /// they belong to are being derived again.
    mutating func forget() {
        kept = [:]
        keptAt = nil
        leaving = [:]
        leavingBytes = 0
    }
}

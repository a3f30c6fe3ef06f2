/// The texts of the messages that the last write left open, kept from one write transaction to
/// the next so that a message continued by the next batch of a catch-up is not read back from its
/// events when it ends (a sixteenth of the writer's time on a million small events over 1,000
/// sessions, each batch ending a message in most of them: `docs/benchmarks.md`, issue 34).
///
/// A message's texts are used only for the row they were left with (its first event, number of
/// events and last event): events' texts never change and their ids are never reused, so such a
/// row is made of the same chunks. They are also used only by the transaction right after the one
/// that left them, and only when nothing else changed the mirror in between: the `Stamp` taken at
/// the end of that transaction (this connection's changes, and other connections' commits as
/// `PRAGMA data_version` counts them) must be the one taken at the start of the next; and a
/// savepoint that rolls back forgets them (its event ids are handed out again).
struct OpenMessageTexts {
    /// What the mirror was at a point inside a transaction, as far as this connection can tell.
    struct Stamp: Equatable {
        var changes: Int64
        var dataVersion: Int64
    }

    /// The texts of one open message's chunks, in order, and the row they belong to.
    struct Texts {
        var events: Int64
        var lastEventID: Int64
        var chunks: [String]
    }

    /// The most bytes of text kept: a handful of long replies, or the short open messages of
    /// thousands of sessions.
    static let byteLimit = 8 << 20

    private var kept: [Int64: Texts] = [:]
    private var keptAt: Stamp?
    private var leaving: [Int64: Texts] = [:]
    private var leavingBytes = 0

    /// Starts a write transaction at `stamp`: keeps the texts left by the last one if nothing
    /// changed since, else forgets them; forgets what any transaction that did not commit left.
    mutating func begin(at stamp: Stamp) {
        if keptAt != stamp { kept = [:] }
        keptAt = nil
        leaving = [:]
        leavingBytes = 0
    }

    /// The texts of the open message whose row is `entryID` with `events` events up to
    /// `lastEventID`, if they were left for it; given once.
    mutating func take(entryID: Int64, events: Int64, lastEventID: Int64) -> [String]? {
        guard let texts = kept.removeValue(forKey: entryID), texts.events == events, texts.lastEventID == lastEventID else {
            return nil
        }
        return texts.chunks
    }

    /// Leaves the texts of a message open at the end of this transaction (while they fit; else
    /// none of that message's).
    mutating func leave(entryID: Int64, events: Int64, lastEventID: Int64, chunks: [String], bytes: Int64) {
        guard leavingBytes + Int(bytes) <= Self.byteLimit else {
            leaving[entryID] = nil
            return
        }
        leavingBytes += Int(bytes)
        leaving[entryID] = Texts(events: events, lastEventID: lastEventID, chunks: chunks)
    }

    /// Ends the transaction at `stamp`, before it commits: what it left is kept once it has.
    mutating func end(at stamp: Stamp) {
        kept = leaving
        keptAt = stamp
        leaving = [:]
        leavingBytes = 0
    }

    /// Forgets everything: the transaction, or a savepoint of it, did not commit.
    mutating func forget() {
        kept = [:]
        keptAt = nil
        leaving = [:]
        leavingBytes = 0
    }
}

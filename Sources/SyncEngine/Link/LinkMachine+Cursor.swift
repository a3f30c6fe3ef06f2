/// A history-cursor bridge's live updates: those that continue the cursor are appended with it;
/// those already mirrored are ignored; one past a gap, or without a seq, makes the live loop page
/// from the cursor instead (the history decides what the mirror holds, and holds every update it
/// announced).
extension ConnectionScope {
    /// Decides what to do with a batch of live updates whose seqs are `seqs` (in the order they
    /// came), the mirror's cursor being `cursor`.
    mutating func liveUpdates(seqs: some Collection<Int64?>, cursor: Int64) -> LiveDecision {
        // Until the connection's history is known, the catch-up that follows covers them.
        guard history != nil else {
            pagingWanted = true
            return LiveDecision(continuing: [], cursor: cursor, pagesFromCursor: true)
        }
        var decision = LiveDecision(continuing: [], cursor: cursor, pagesFromCursor: false)
        decision.continuing.reserveCapacity(seqs.count)
        for (index, seq) in seqs.enumerated() {
            guard let seq else {
                if !seqlessUpdateLogged {
                    seqlessUpdateLogged = true
                    decision.notes.append(.seqless(index: index))
                }
                decision.pagesFromCursor = true
                continue
            }
            if seq <= decision.cursor { continue }
            if seq > decision.cursor + 1 {
                // Expected while a catch-up pages (the bridge goes on announcing): said once a
                // connection, then at debug level.
                decision.notes.append(.gap(cursor: decision.cursor, seq: seq, first: !gapLogged))
                gapLogged = true
                decision.pagesFromCursor = true
                continue
            }
            decision.continuing.append(index)
            decision.cursor = seq
        }
        if decision.pagesFromCursor { pagingWanted = true }
        return decision
    }

    /// On the live loop's tick: whether to page from the cursor now (once for all the updates that
    /// asked since the last tick).
    mutating func takePaging() -> Bool {
        defer { pagingWanted = false }
        return pagingWanted
    }
}

/// What to do with a batch of live updates from a history-cursor bridge.
struct LiveDecision: Sendable, Equatable {
    /// The indices of the updates that continue the cursor, in order: appended, with the cursor.
    var continuing: [Int]
    /// The cursor once they are appended.
    var cursor: Int64
    /// Page from the cursor (the live loop is woken): an update came past a gap or without a seq.
    var pagesFromCursor: Bool
    /// What to log.
    var notes: [LiveNote] = []
}

/// Something about a live batch worth a log line.
enum LiveNote: Sendable, Equatable {
    /// The first update without a seq on this connection.
    case seqless(index: Int)
    /// An update past a gap: `first` on this connection (said at info level; later ones at debug).
    case gap(cursor: Int64, seq: Int64, first: Bool)
}

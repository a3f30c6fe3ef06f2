import MirrorStore
import Testing

/// The one check of what a mirror holds of a desktop's history, whichever desktop a scenario ran
/// against: each session's events from the desktop, in its timeline's order, each once, with its
/// seq and the bytes the desktop stored; any other event of those sessions one the desktop no
/// longer has, kept and marked so; timelines in seq order; each session's count in step with its
/// timeline. While the history is `onDesktop` (it is the desktop's now), neither its events nor
/// their sessions are marked gone. With `nothingElse`, the mirror holds no other event at all
/// (one history, whole).
func expectMirrorHolds(_ history: [HistoryRow], mirror: String, onDesktop: Bool = true, nothingElse: Bool = false,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
    let store = try MirrorStore(path: mirror, mode: .readOnly)
    for (sessionID, rows) in Dictionary(grouping: history, by: \.sessionID) {
        let seqs = Set(rows.map(\.seq))
        let timeline = try store.timeline(sessionID: sessionID).filter { $0.origin == .server }
        let mirrored = timeline.filter { seqs.contains($0.seq ?? -1) }.map {
            HistoryRow(seq: $0.seq ?? -1, sessionID: sessionID, updateJSON: $0.updateJSON)
        }
        let expected = rows.sorted { $0.seq < $1.seq }
        let firstDifference = zip(mirrored, expected).first { $0 != $1 }.map { "\($0.0) ≠ \($0.1)" }
        #expect(mirrored.count == expected.count && firstDifference == nil,
                "session \(sessionID): \(mirrored.count) events mirrored of \(expected.count); first difference: \(firstDifference ?? "none")",
                sourceLocation: sourceLocation)
        if onDesktop {
            let markedGone = timeline.filter { seqs.contains($0.seq ?? -1) && $0.goneAt != nil }.count
            #expect(markedGone == 0, "session \(sessionID): \(markedGone) events the desktop holds marked gone", sourceLocation: sourceLocation)
            #expect(try store.session(id: sessionID)?.goneAt == nil, "session \(sessionID) marked gone while on its desktop",
                    sourceLocation: sourceLocation)
        }
        let strays = timeline.filter { !seqs.contains($0.seq ?? -1) && $0.goneAt == nil }
        #expect(strays.isEmpty, "session \(sessionID): \(strays.count) events the desktop does not hold, not marked gone",
                sourceLocation: sourceLocation)
    }
    let outOfOrder = try store.database.scalarInt64("""
        SELECT count(*) FROM events a JOIN events b ON a.session_no = b.session_no AND a.ordinal < b.ordinal AND a.seq > b.seq
        """) ?? -1
    #expect(outOfOrder == 0, "timelines follow seq order", sourceLocation: sourceLocation)
    let drifted = try store.database.scalarInt64("""
        SELECT count(*) FROM sessions s WHERE s.local_event_count <> (SELECT count(*) FROM events e WHERE e.session_no = s.session_no)
        """) ?? -1
    #expect(drifted == 0, "each session's event count matches its timeline", sourceLocation: sourceLocation)
    if nothingElse {
        #expect(try store.counts().events == history.count, "the mirror holds nothing else", sourceLocation: sourceLocation)
    }
}

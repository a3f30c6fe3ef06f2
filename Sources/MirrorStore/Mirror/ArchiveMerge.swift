/// A mirrored server event, as a refetch of its session compares it.
struct MirroredEvent: Equatable {
    var id: Int64
    var hash: Int64
    var provisional: Bool
    /// Marked as no longer on the desktop.
    var gone: Bool
}

/// How a fetched timeline is merged into a mirrored one without losing anything: what
/// `MirrorStore.replaceTimelineTail` writes.
///
/// The fetch is compared by content (the events' hashes) as a multiset, not by position: a stock
/// bridge has no stable order for events of the same millisecond, and a desktop may prune its
/// oldest events. Each confirmed event consumes one fetched event of its hash; those that find
/// none are gone from the desktop (and stay). The fetched events left over, in fetched order, are
/// new: for each hash, its last occurrences (a desktop appends). Provisional events are replaced by
/// them, except for the run of them that already matches from the start, which is confirmed.
struct ArchiveMerge {
    /// Confirmed events the fetch holds.
    private(set) var kept = 0
    /// Provisional events to confirm.
    private(set) var confirmed: [Int64] = []
    /// Provisional events to delete (replaced by fetched ones).
    private(set) var removed: [Int64] = []
    /// Confirmed events to mark gone.
    private(set) var markedGone: [Int64] = []
    /// Events marked gone to unmark.
    private(set) var returned: [Int64] = []
    /// Indices of the fetched events to insert, in order.
    private(set) var inserted: [Int] = []

    init(mirrored: [MirroredEvent], fetched: [Int64], fetchedAfterLiveEvents: Bool) {
        var unmatched: [Int64: Int] = [:]
        for hash in fetched { unmatched[hash, default: 0] += 1 }
        for event in mirrored where !event.provisional {
            if let count = unmatched[event.hash], count > 0 {
                unmatched[event.hash] = count - 1
                kept += 1
                if event.gone { returned.append(event.id) }
            } else if !event.gone && !fetched.isEmpty {
                markedGone.append(event.id)
            }
        }
        var newIndices: [Int] = []
        for index in fetched.indices.reversed() {
            if let count = unmatched[fetched[index]], count > 0 {
                unmatched[fetched[index]] = count - 1
                newIndices.append(index)
            }
        }
        newIndices.reverse()
        let provisional = mirrored.filter(\.provisional)
        var prefix = 0
        while prefix < provisional.count, prefix < newIndices.count, provisional[prefix].hash == fetched[newIndices[prefix]] {
            prefix += 1
        }
        confirmed = provisional[..<prefix].map(\.id)
        // Live events that arrived after the fetch was made extend it rather than contradict it:
        // when the fetch's new events are all matched, trailing provisional events stay (unconfirmed).
        let keepsTrailingLive = prefix == newIndices.count && !fetchedAfterLiveEvents
        removed = keepsTrailingLive ? [] : provisional[prefix...].map(\.id)
        inserted = Array(newIndices[prefix...])
    }
}

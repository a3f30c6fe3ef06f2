/// `ArchiveMerge`, made as the fetched events arrive rather than once they are all known, so that
/// a timeline too large to hold can be merged in parts: each fetched event is decided on alone,
/// and the merge ends with what only the whole fetch can tell (what it no longer holds).
///
/// It decides as `ArchiveMerge` does. For a hash fetched `f` times of which `c` confirmed events
/// are mirrored, `ArchiveMerge` keeps the first `min(f, c)` of those events (in mirrored order) and
/// takes the fetch's last `f - c` occurrences as new; here the first `c` occurrences keep them and
/// the later ones are new, which are the same occurrences. New events then confirm the provisional
/// ones while they match in order; from the first that does not, the provisional ones left are
/// removed and every new event is inserted.
///
/// What it decided of a part is committed with that part, and every step is one the whole merge
/// would also take: a fetch cut short leaves events confirmed or inserted that the next fetch of
/// the whole timeline keeps (they are confirmed), with nothing duplicated or lost.
struct ArchiveMergeInParts {
    /// What to do with one fetched event.
    enum Step: Equatable {
        /// A confirmed event holds it; `returned` when that event was marked gone.
        case kept(returned: Int64?)
        /// It confirms this provisional event.
        case confirm(Int64)
        /// It is new: insert it, after removing these provisional events.
        case insert(removing: [Int64])
    }

    /// Confirmed events by hash, in mirrored order, and how many of each were taken.
    private var confirmedByHash: [Int64: [MirroredEvent]] = [:]
    private var takenByHash: [Int64: Int] = [:]
    private let provisional: [MirroredEvent]
    /// Provisional events confirmed so far (a run from the first).
    private var prefix = 0
    /// True once a new event did not match the next provisional one.
    private var diverged = false
    private let fetchedAfterLiveEvents: Bool
    /// Fetched events decided on so far.
    private(set) var fetchedCount = 0

    init(mirrored: [MirroredEvent], fetchedAfterLiveEvents: Bool) {
        for event in mirrored where !event.provisional { confirmedByHash[event.hash, default: []].append(event) }
        provisional = mirrored.filter(\.provisional)
        self.fetchedAfterLiveEvents = fetchedAfterLiveEvents
    }

    /// Decides on the next fetched event, of content hash `hash`.
    mutating func take(_ hash: Int64) -> Step {
        fetchedCount += 1
        let taken = takenByHash[hash, default: 0]
        if let events = confirmedByHash[hash], taken < events.count {
            takenByHash[hash] = taken + 1
            return .kept(returned: events[taken].gone ? events[taken].id : nil)
        }
        if !diverged, prefix < provisional.count, provisional[prefix].hash == hash {
            prefix += 1
            return .confirm(provisional[prefix - 1].id)
        }
        guard !diverged else { return .insert(removing: []) }
        diverged = true
        return .insert(removing: provisional[prefix...].map(\.id))
    }

    /// What the whole fetch tells once every event was taken: the confirmed events it no longer
    /// holds (to mark gone), and the provisional events to remove.
    func finish() -> (markedGone: [Int64], removed: [Int64]) {
        var markedGone: [Int64] = []
        if fetchedCount > 0 {
            for (hash, events) in confirmedByHash {
                markedGone += events[takenByHash[hash, default: 0]...].filter { !$0.gone }.map(\.id)
            }
        }
        // Live events that arrived after the fetch was made extend it rather than contradict it.
        // (Once diverged, the provisional events left were removed then.)
        let removed = !diverged && fetchedAfterLiveEvents ? provisional[prefix...].map(\.id) : []
        return (markedGone.sorted(), removed)
    }
}

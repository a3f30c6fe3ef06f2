/// How far a follower of the mirror has read: the highest event id and change-log id it has seen,
/// and what it needs to tell which removed events it was given.
public struct FeedPosition: Sendable, Equatable {
    /// Events up to this id were read (or skipped as another session's).
    public var eventID: Int64
    /// Changes of the change log up to this id were read.
    public var changeID: Int64
    /// Events at or below this id were never given to the follower (it started after them).
    var floorEventID: Int64 = 0
    /// Ranges of events read from a snapshot whose earlier changes were not all read yet (a long
    /// backlog, read in pages): an event of such a range removed or confirmed by one of those
    /// changes was read as that change left it (gone, or confirmed). Empty while following live.
    var pendingReads: [PendingRead] = []

    /// After event `eventID` and change `changeID`; the follower had every event up to `eventID`.
    public init(eventID: Int64, changeID: Int64) {
        self.eventID = eventID
        self.changeID = changeID
    }

    /// Before everything the mirror holds.
    public static let start = FeedPosition(eventID: 0, changeID: 0)

    /// Whether the follower was given event `changed` before change `changeID` (which removed
    /// or confirmed it): if it was read after that change, it was read as the change left it.
    func gave(eventID changed: Int64, before changeID: Int64) -> Bool {
        guard changed > floorEventID, changed <= eventID else { return false }
        guard let read = pendingReads.first(where: { changed > $0.afterEventID && changed <= $0.upToEventID }) else { return true }
        return changeID > read.snapshotChangeID
    }

    /// Notes that events in `(after, upTo]` were read from a snapshot holding changes up to
    /// `snapshotChangeID`, some of them not read yet; a range read from the same snapshot right
    /// after the last one extends it (a long backlog adds one range, not one per page).
    mutating func addPendingRead(after: Int64, upTo: Int64, snapshotChangeID: Int64) {
        if let last = pendingReads.last, last.upToEventID == after, last.snapshotChangeID == snapshotChangeID {
            pendingReads[pendingReads.count - 1].upToEventID = upTo
        } else {
            pendingReads.append(PendingRead(afterEventID: after, upToEventID: upTo, snapshotChangeID: snapshotChangeID))
        }
    }

    /// Events in `(afterEventID, upToEventID]`, read from a snapshot that held changes up to `snapshotChangeID`.
    struct PendingRead: Sendable, Equatable {
        var afterEventID: Int64
        var upToEventID: Int64
        var snapshotChangeID: Int64
    }
}

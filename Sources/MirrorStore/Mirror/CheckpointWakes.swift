/// When a writer's commits wake the checkpointer (`MirrorStore.handCheckpoints(to:)`): each time
/// the write-ahead log has grown by `everyPages` since the last wake. SQLite reports the whole
/// log's size after each commit, which only falls when the log starts over; a log left large (a
/// reader holding it) would otherwise wake the checkpointer at every small commit.
struct CheckpointWakes {
    let everyPages: Int
    /// The log's size at the last wake, or 0 since it started over.
    private var pagesAtLastWake = 0

    init(everyPages: Int) {
        self.everyPages = max(1, everyPages)
    }

    /// Told the log's size after a commit; whether to wake the checkpointer.
    mutating func commit(leavingPages pages: Int) -> Bool {
        if pages < pagesAtLastWake { pagesAtLastWake = 0 }
        guard pages - pagesAtLastWake >= everyPages else { return false }
        pagesAtLastWake = pages
        return true
    }
}

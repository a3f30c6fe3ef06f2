import Foundation
import Primitives
import Synchronization

/// Copies the mirror's write-ahead log into the database file from a thread and connection of
/// its own (`PRAGMA wal_checkpoint(PASSIVE)` every `interval`), so that the writer never stops to
/// do it: a checkpoint of tens of megabytes otherwise lands, now and then, in the middle of a
/// commit the user is waiting for.
///
/// A passive checkpoint neither waits for nor blocks readers and writers.
public final class WALCheckpointer: Sendable {
    private let stopped = StopFlag()

    /// Starts checkpointing the mirror at `path` every `interval`.
    public init(path: String, interval: Duration = .milliseconds(500)) {
        let stopped = self.stopped
        let pause = interval.seconds
        // The connection is made, used and closed on this thread only.
        let thread = Thread {
            guard let database = try? Database(path: path) else { return }
            while !stopped.isSet {
                Thread.sleep(forTimeInterval: pause)
                try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            }
        }
        thread.name = "wal-checkpointer"
        thread.start()
    }

    /// Stops after the checkpoint under way, if any.
    public func stop() {
        stopped.set()
    }

    deinit {
        stop()
    }
}

/// A flag one thread sets and another reads.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .acquiring) }

    func set() {
        value.store(true, ordering: .releasing)
    }
}

import Dispatch
import Foundation
import Primitives
import Synchronization

/// Copies the mirror's write-ahead log into the database file from a thread and connection of
/// its own (`PRAGMA wal_checkpoint(PASSIVE)`), so that the writer never stops to do it: a
/// checkpoint of tens of megabytes otherwise lands, now and then, in the middle of a commit the
/// user is waiting for, and a catch-up's commits spent a tenth of their time copying the log and
/// waiting for the disk (`docs/benchmarks.md`, issue 34).
///
/// It checkpoints every `interval`, and at once when woken (`wake()`, which the writer's store
/// calls as its commits grow the log: `MirrorStore.handCheckpoints(to:)`). The writer's own
/// automatic checkpoint then finds the log copied but for its last commits, and the log starts
/// over from its beginning. A passive checkpoint neither waits for nor blocks readers and writers.
public final class WALCheckpointer: Sendable {
    private let signals = Signals()

    /// How long `stop()` waits for a checkpoint under way: far longer than copying a log of the
    /// automatic checkpoint's size takes.
    static let stopTimeout = Duration.seconds(60)

    /// Starts checkpointing the mirror at `path` every `interval`, and whenever woken.
    public init(path: String, interval: Duration = .milliseconds(500)) {
        let signals = self.signals
        let pause = interval.seconds
        // The connection is made, used and closed on this thread only.
        let thread = Thread {
            defer { signals.threadEnded() }
            guard let database = try? Database(path: path) else { return }
            while signals.waitForRound(atMost: pause) {
                try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            }
        }
        thread.name = "wal-checkpointer"
        thread.start()
    }

    /// Asks for a checkpoint now (or right after the one under way). Cheap, never blocks: the
    /// writer calls it after its commits.
    public func wake() {
        signals.wake()
    }

    /// Stops, and returns once the thread has closed its connection (waiting for the checkpoint
    /// under way, if any, at most `stopTimeout`): a checkpoint the caller runs next then finds no
    /// other one holding the log.
    public func stop() {
        signals.stop(waitingAtMost: Self.stopTimeout.seconds)
    }

    deinit {
        stop()
    }
}

/// What the writer and `stop()` tell the checkpointer's thread, and what it tells `stop()`.
private final class Signals: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// True from a `wake()` until the round it asked for starts.
    private let woken = Atomic<Bool>(false)
    private let rounds = DispatchSemaphore(value: 0)
    /// Signalled when the thread ends, and again by each `stop()` that saw it: every later stop
    /// returns at once.
    private let ended = DispatchSemaphore(value: 0)

    func wake() {
        if !woken.exchange(true, ordering: .acquiringAndReleasing) { rounds.signal() }
    }

    func stop(waitingAtMost seconds: Double) {
        stopped.store(true, ordering: .releasing)
        rounds.signal()
        if ended.wait(timeout: .now() + seconds) == .success { ended.signal() }
    }

    func threadEnded() {
        ended.signal()
    }

    /// Waits until woken or `seconds` have passed; false once stopped.
    func waitForRound(atMost seconds: Double) -> Bool {
        guard !stopped.load(ordering: .acquiring) else { return false }
        _ = rounds.wait(timeout: .now() + seconds)
        woken.store(false, ordering: .releasing)
        return !stopped.load(ordering: .acquiring)
    }
}

import Foundation
import MirrorStore
import Primitives

/// Wakes the tasks that follow the mirror when it may have changed: a thread of its own blocks on
/// the mirror's file watch and counts wake-ups (a `BroadcastSignal`); tasks wait for the count to
/// pass one they saw.
///
/// A follower reads `generation` before it looks at the mirror, and waits for a later one only
/// when it found nothing: a commit made while it looked has already moved the count on, so no
/// wake-up is lost. Made and stopped by `withSignal`, which scopes its thread.
public final class MirrorChangeSignal: Sendable {
    private let watch: MirrorFileWatch
    private let changes = BroadcastSignal()

    /// How often a follower looks again with no file change reported: a safety net where inotify
    /// works (a change it cannot see, such as a mirror on a network file system), the only
    /// wake-up where it does not.
    public let recheckInterval: Duration

    private init(mirrorPath: String) {
        watch = MirrorFileWatch(mirrorPath: mirrorPath)
        recheckInterval = watch.reportsChanges ? .seconds(10) : .milliseconds(250)
    }

    /// Runs `body` with a signal for the mirror at `mirrorPath`; its thread ends with `body`, and
    /// the call returns once it has (awaited, not blocking a thread of the pool).
    public static func withSignal<T, Failure: Error>(
        mirrorPath: String,
        _ body: (MirrorChangeSignal) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let signal = MirrorChangeSignal(mirrorPath: mirrorPath)
        let finished = OneShot<Void>()
        let thread = Thread { [watch = signal.watch, changes = signal.changes, interval = signal.recheckInterval] in
            Thread.current.name = "oa-mirror-watch"
            // A commit writes the log first, then makes itself visible in the shared index
            // (`-shm`, a mapped file: no notification). A follower woken by the write may look
            // too early; a second wake-up once the writes have been quiet for a moment covers that.
            var settling = false
            while true {
                switch watch.wait(timeout: settling ? Self.settleTime : interval) {
                case .stopped:
                    finished.settle()
                    return
                case .changed:
                    settling = true
                case .timedOut:
                    settling = false
                }
                changes.bump()
            }
        }
        thread.start()
        let result: Result<T, Failure>
        do throws(Failure) {
            result = .success(try await body(signal))
        } catch {
            result = .failure(error)
        }
        signal.stop()
        // Stopped, the thread's wait returns at once (within 100 ms without the stop pipe).
        await finished.value()
        return try result.get()
    }

    /// How long after the last write of a commit the second wake-up comes.
    static let settleTime = Duration.milliseconds(5)

    /// How many wake-ups there were so far.
    public var generation: Int { changes.generation }

    /// Waits until the count passes `seen` (at once if it already has); returns the count then,
    /// or nil once the signal stopped or the task was cancelled.
    public func change(after seen: Int) async -> Int? {
        await changes.change(after: seen)
    }

    private func stop() {
        watch.stop()
        changes.stop()
    }
}

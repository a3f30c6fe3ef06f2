import Foundation
import MirrorStore
import Synchronization

/// Wakes the tasks that follow the mirror when it may have changed: a thread of its own blocks on
/// the mirror's file watch and counts wake-ups; tasks wait for the count to pass one they saw.
///
/// A follower reads `generation` before it looks at the mirror, and waits for a later one only
/// when it found nothing: a commit made while it looked has already moved the count on, so no
/// wake-up is lost. Made and stopped by `withSignal`, which scopes its thread.
public final class MirrorChangeSignal: Sendable {
    private struct State {
        var generation = 0
        var stopped = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let watch: MirrorFileWatch
    private let state = Mutex(State())

    /// How often a follower looks again with no file change reported: a safety net where inotify
    /// works (a change it cannot see, such as a mirror on a network file system), the only
    /// wake-up where it does not.
    public let recheckInterval: Duration

    private init(mirrorPath: String) {
        watch = MirrorFileWatch(mirrorPath: mirrorPath)
        recheckInterval = watch.reportsChanges ? .seconds(10) : .milliseconds(250)
    }

    /// Runs `body` with a signal for the mirror at `mirrorPath`; its thread ends with `body`.
    public static func withSignal<T>(
        mirrorPath: String,
        _ body: (MirrorChangeSignal) async throws -> T
    ) async rethrows -> T {
        let signal = MirrorChangeSignal(mirrorPath: mirrorPath)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread { [watch = signal.watch, interval = signal.recheckInterval] in
            Thread.current.name = "oa-mirror-watch"
            // A commit writes the log first, then makes itself visible in the shared index
            // (`-shm`, a mapped file: no notification). A follower woken by the write may look
            // too early; a second wake-up once the writes have been quiet for a moment covers that.
            var settling = false
            while true {
                switch watch.wait(timeout: settling ? Self.settleTime : interval) {
                case .stopped:
                    finished.signal()
                    return
                case .changed:
                    settling = true
                case .timedOut:
                    settling = false
                }
                signal.bump()
            }
        }
        thread.start()
        defer {
            signal.stop()
            // Stopped, the thread's wait returns at once (within 100 ms without the stop pipe).
            finished.wait()
        }
        return try await body(signal)
    }

    /// How long after the last write of a commit the second wake-up comes.
    static let settleTime = Duration.milliseconds(5)

    /// How many wake-ups there were so far.
    public var generation: Int { state.withLock { $0.generation } }

    /// Waits until the count passes `seen` (at once if it already has); returns the count then,
    /// or nil once the signal stopped or the task was cancelled.
    public func change(after seen: Int) async -> Int? {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation > seen || state.stopped || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return state.withLock { state in
            state.stopped || Task.isCancelled ? nil : state.generation
        }
    }

    private func bump() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func stop() {
        watch.stop()
        let waiters = state.withLock { state in
            state.stopped = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

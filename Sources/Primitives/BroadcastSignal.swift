import Synchronization

/// A count of events that wakes every task waiting for it to pass the one it saw: what followers
/// of a changing thing (the mirror's file) wait on.
///
/// A waiter reads `generation` before it looks at the thing, and waits for a later count only
/// when it found nothing: an event while it looked has already moved the count on, so no wake-up
/// is lost. `stop()` ends it: every wait returns nil from then on.
public final class BroadcastSignal: Sendable {
    private struct State {
        var generation = 0
        var stopped = false
        /// Suspended waiters by ticket.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextTicket = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many events there were so far.
    public var generation: Int { state.withLock { $0.generation } }

    /// Counts an event and wakes every waiter.
    public func bump() {
        resumeAll { $0.generation += 1 }
    }

    /// Ends the signal: every waiter wakes, and later waits return nil at once.
    public func stop() {
        resumeAll { $0.stopped = true }
    }

    /// Waits until the count passes `seen` (at once if it already has); returns the count then,
    /// or nil once the signal stopped or the calling task was cancelled.
    public func change(after seen: Int) async -> Int? {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Checked under the lock that the cancellation handler takes.
                    if state.generation > seen || state.stopped || Task.isCancelled { return true }
                    state.waiters[ticket] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume()
        }
        return state.withLock { state in
            state.stopped || Task.isCancelled ? nil : state.generation
        }
    }

    /// How many tasks are suspended waiting for a change: what tests read to know that a waiter
    /// is waiting before they bump the count.
    public var suspendedWaiters: Int { state.withLock { $0.waiters.count } }

    private func resumeAll(after change: (inout State) -> Void) {
        let waiters = state.withLock { state in
            change(&state)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

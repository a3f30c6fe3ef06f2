import Synchronization

/// The subscriptions of one JSON-lines session: their numbers, and the way to end one from the
/// task that reads requests while another task runs its feed.
final class SubscriptionRegistry: Sendable {
    private struct Entry {
        var ended = false
        /// The feed's task waiting to be told to end.
        var endWaiter: CheckedContinuation<Void, Never>?
        /// Tasks waiting for the feed to be gone.
        var goneWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex<(next: Int, entries: [Int: Entry])>((1, [:]))

    /// A new subscription's number.
    func add() -> Int {
        state.withLock { state in
            defer { state.next += 1 }
            state.entries[state.next] = Entry()
            return state.next
        }
    }

    /// Tells subscription `number`'s feed to end; false when there is no such subscription.
    func end(_ number: Int) -> Bool {
        let (found, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard var entry = state.entries[number], !entry.ended else { return (false, nil) }
            entry.ended = true
            defer { entry.endWaiter = nil; state.entries[number] = entry }
            return (true, entry.endWaiter)
        }
        waiter?.resume()
        return found
    }

    /// Tells every subscription's feed to end; returns their numbers.
    func endAll() -> [Int] {
        let numbers = state.withLock { Array($0.entries.keys) }
        return numbers.filter(end)
    }

    /// Returns once `end(number)` was called, or the task is cancelled.
    func waitForEnd(_ number: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard var entry = state.entries[number], !entry.ended, !Task.isCancelled else { return true }
                    entry.endWaiter = continuation
                    state.entries[number] = entry
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.entries[number]?.endWaiter = nil }
                return state.entries[number]?.endWaiter
            }?.resume()
        }
    }

    /// Forgets subscription `number`, whose feed is over, and wakes those waiting for that.
    func remove(_ number: Int) {
        let waiters = state.withLock { $0.entries.removeValue(forKey: number)?.goneWaiters ?? [] }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once subscription `number`'s feed is over (at once when there is none).
    func waitUntilGone(_ number: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.entries[number] != nil else { return true }
                state.entries[number]?.goneWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

import Primitives
import Synchronization

/// The subscriptions of one JSON-lines session: their numbers, and the way to end one from the
/// task that reads requests while another task runs its feed.
final class SubscriptionRegistry: Sendable {
    private struct Entry {
        /// Settled when the feed is told to end.
        let ended = OneShot<Void>()
        /// Settled when the feed is over.
        let gone = OneShot<Void>()
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

    /// Tells subscription `number`'s feed to end; false when there is no such subscription, or
    /// it was told already.
    func end(_ number: Int) -> Bool {
        state.withLock { $0.entries[number] }?.ended.settle() ?? false
    }

    /// Tells every subscription's feed to end; returns their numbers.
    func endAll() -> [Int] {
        let numbers = state.withLock { Array($0.entries.keys) }
        return numbers.filter(end)
    }

    /// Returns once `end(number)` was called, or the task is cancelled.
    func waitForEnd(_ number: Int) async {
        _ = await state.withLock { $0.entries[number] }?.ended.valueUnlessCancelled()
    }

    /// Forgets subscription `number`, whose feed is over, and wakes those waiting for that.
    func remove(_ number: Int) {
        state.withLock { $0.entries.removeValue(forKey: number) }?.gone.settle()
    }

    /// Returns once subscription `number`'s feed is over (at once when there is none).
    func waitUntilGone(_ number: Int) async {
        await state.withLock { $0.entries[number] }?.gone.value()
    }
}

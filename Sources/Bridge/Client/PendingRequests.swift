import Synchronization

/// The requests of one connection that wait for their answer, by id.
///
/// A request is expected before it is sent and waited for after, so an answer that comes before
/// the sender waits is kept for it. Everything happens under one lock, with no task of its own:
/// cancellation and the connection's end resume the waiters directly.
final class PendingRequests: Sendable {
    /// What a request got.
    enum Answer: Sendable {
        /// The `result`, and the message it came in (for the exact bytes of its parts).
        case whole(result: JSONValue, frame: Frame)
        /// The answer is read in parts (`AnswerInParts`), which go to the request's `AnswerParts`.
        case inParts
        /// A history page of the common shape, read without its tree (`HistoryPageReading`), and
        /// the size of the message it came in.
        case historyPage(HistoryPageReading.Page, byteCount: Int)
    }

    private enum Slot {
        case waiting(CheckedContinuation<Answer, any Error>?)
        case settled(Result<Answer, any Error>)
    }

    private struct State {
        var slots: [RequestID: Slot] = [:]
        /// Set once the connection ended: every later request fails with it.
        var ended: (any Error)?
    }

    private let state = Mutex(State())

    /// Makes room for the answer to `id`. Throws the connection's end once it ended.
    func expect(_ id: RequestID) throws {
        try state.withLock { state in
            if let ended = state.ended { throw ended }
            state.slots[id] = .waiting(nil)
        }
    }

    /// The answer to `id` (expected first), or the error it was settled with.
    func wait(for id: RequestID) async throws -> Answer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answer, any Error>) in
                let settled = state.withLock { state -> Result<Answer, any Error>? in
                    switch state.slots[id] {
                    case .settled(let result):
                        state.slots[id] = nil
                        return result
                    case .waiting:
                        // Checked under the lock that the cancellation handler takes.
                        if Task.isCancelled {
                            state.slots[id] = nil
                            return .failure(CancellationError())
                        }
                        state.slots[id] = .waiting(continuation)
                        return nil
                    case nil:
                        return .failure(state.ended ?? CancellationError())
                    }
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            settle(id, with: .failure(CancellationError()))
        }
    }

    /// Settles `id`: its waiter, if any, resumes; returns false when no request waits under it.
    @discardableResult
    func settle(_ id: RequestID, with result: Result<Answer, any Error>) -> Bool {
        let (known, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Answer, any Error>?) in
            guard case .waiting(let waiter) = state.slots[id] else { return (false, nil) }
            if waiter == nil {
                state.slots[id] = .settled(result)
            } else {
                state.slots[id] = nil
            }
            return (true, waiter)
        }
        waiter?.resume(with: result)
        return known
    }

    /// How many requests wait for their answer (or have one not yet taken).
    var count: Int { state.withLock { $0.slots.count } }

    /// Forgets `id` (its request is over).
    func forget(_ id: RequestID) {
        state.withLock { _ = $0.slots.removeValue(forKey: id) }
    }

    /// The connection ended: every request waiting fails with `error`, and every later one too.
    func end(with error: any Error) {
        let waiters = state.withLock { state -> [CheckedContinuation<Answer, any Error>] in
            state.ended = state.ended ?? error
            let waiters = state.slots.values.compactMap { slot -> CheckedContinuation<Answer, any Error>? in
                if case .waiting(let waiter) = slot { return waiter }
                return nil
            }
            state.slots.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}

import Synchronization

/// How many requests of one connection may be in flight: any number on a pipelining bridge, one
/// at a time otherwise (a stock bridge answers to the wrong place when two overlap). Waiters get
/// the slot in order. Under one lock, with no task of its own.
final class RequestSlots: Sendable {
    private struct State {
        var inFlight = 0
        var nextTicket = 0
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var ended: (any Error)?
    }

    private let state = Mutex(State())

    /// Waits for a slot (at once when `unlimited`). Throws when cancelled or when the connection ends.
    func acquire(unlimited: Bool) async throws {
        let ticket = try state.withLock { state -> Int? in
            if let ended = state.ended { throw ended }
            if state.inFlight == 0 || unlimited {
                state.inFlight += 1
                return nil
            }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refusal = state.withLock { state -> (any Error)? in
                    if let ended = state.ended { return ended }
                    // Checked under the lock that the cancellation handler takes.
                    if Task.isCancelled { return CancellationError() }
                    state.waiters.append((ticket, continuation))
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }?.resume(throwing: CancellationError())
        }
    }

    /// Gives the slot back: straight to the next waiter, if one waits.
    func release() {
        state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.inFlight -= 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }?.resume()
    }

    /// The connection ended: every waiter fails with `error`, and every later request too.
    func end(with error: any Error) {
        let waiters = state.withLock { state in
            state.ended = state.ended ?? error
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}

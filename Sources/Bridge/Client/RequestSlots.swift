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

        /// Takes a slot when one is free and nobody waits for it (or any number may be in flight).
        mutating func takesSlot(unlimited: Bool) -> Bool {
            guard unlimited || (inFlight == 0 && waiters.isEmpty) else { return false }
            inFlight += 1
            return true
        }
    }

    private let state = Mutex(State())

    /// Waits for a slot (at once when `unlimited`). Throws when cancelled or when the connection ends.
    func acquire(unlimited: Bool) async throws {
        let ticket = try state.withLock { state -> Int? in
            if let ended = state.ended { throw ended }
            if state.takesSlot(unlimited: unlimited) { return nil }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    if let ended = state.ended { return .failure(ended) }
                    // Checked under the lock that the cancellation handler takes.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // The slot may have been given back since it was found taken, to no waiter.
                    if state.takesSlot(unlimited: false) { return .success(()) }
                    state.waiters.append((ticket, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
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

    /// How many requests wait for the slot: what tests read to know a request is waiting.
    var waiting: Int { state.withLock { $0.waiters.count } }

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

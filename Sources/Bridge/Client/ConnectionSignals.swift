import Synchronization

/// Says, once, whether a connection opened: settled by the connection's task, waited for by the
/// scope that opened it. Under one lock, with no task of its own.
final class OpenSignal: Sendable {
    private struct State {
        var result: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private let state = Mutex(State())

    /// The connection opened. Returns false when the signal was already settled: the opening was
    /// given up (or failed) meanwhile, and the connection must end at once.
    @discardableResult
    func succeed() -> Bool { settle(.success(())) }

    /// The connection did not open (or is given up). Returns false when already settled.
    @discardableResult
    func fail(_ error: any Error) -> Bool { settle(.failure(error)) }

    private func settle(_ result: Result<Void, any Error>) -> Bool {
        let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return settled
    }

    /// Waits until the signal is settled; throws its error, or `CancellationError` when the
    /// calling task is cancelled first (the signal then stays unsettled). One waiter at a time.
    func wait() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result = state.withLock { state -> Result<Void, any Error>? in
                    if let result = state.result { return result }
                    // Checked under the lock that the cancellation handler takes.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    precondition(state.waiter == nil, "OpenSignal: one waiter at a time")
                    state.waiter = continuation
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume(throwing: CancellationError())
        }
    }
}

/// Says that a connection's task is over: raised once, waited for by any number of tasks.
final class EndSignal: Sendable {
    private struct State {
        var raised = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Raises the signal: every waiter resumes, and later waits return at once.
    func raise() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.raised = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the signal is raised.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let raised = state.withLock { state -> Bool in
                if !state.raised { state.waiters.append(continuation) }
                return state.raised
            }
            if raised { continuation.resume() }
        }
    }
}

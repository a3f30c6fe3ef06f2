import Primitives
import Synchronization

/// Says, once, whether a connection opened: settled by the connection's task, waited for by the
/// scope that opened it (a `OneShot` of the outcome). It also decides, under one lock, whether the
/// connection's task may still begin connecting once the scope gives the opening up.
final class OpenSignal: Sendable {
    private let outcome = OneShot<Result<Void, any Error>>()
    /// Whether the connection's task began connecting; nil once the opening was given up first.
    private let connecting = Mutex<Bool?>(false)

    /// The connection opened. Returns false when the signal was already settled: the opening was
    /// given up (or failed) meanwhile, and the connection must end at once.
    @discardableResult
    func succeed() -> Bool { outcome.settle(.success(())) }

    /// The connection did not open. Returns false when already settled.
    @discardableResult
    func fail(_ error: any Error) -> Bool { outcome.settle(.failure(error)) }

    /// Called by the connection's task before it connects: false when the opening was given up
    /// already, and the task must not touch the connection's event loop, which is being shut down
    /// (work handed to a loop that has shut down is dropped, and its connection would never end).
    func beginConnecting() -> Bool {
        connecting.withLock { state in
            guard state != nil else { return false }
            state = true
            return true
        }
    }

    /// The scope gives the opening up (its deadline passed, or it was cancelled). Returns true
    /// when the connection's task is connecting meanwhile, so that the scope must shut the event
    /// loop down to close the socket; false when it had not begun (it then never will) or when
    /// the signal was already settled (it opened, or failed, by itself).
    func giveUp(_ error: any Error) -> Bool {
        // First the connecting flag, under the lock `beginConnecting` takes: from here on the task
        // cannot begin, and whether it began is known for sure.
        let wasConnecting = connecting.withLock { state in
            defer { state = nil }
            return state == true
        }
        return outcome.settle(.failure(error)) && wasConnecting
    }

    /// Waits until the signal is settled; throws its error, or `CancellationError` when the
    /// calling task is cancelled first (the signal then stays unsettled).
    func wait() async throws {
        guard let result = await outcome.valueUnlessCancelled() else { throw CancellationError() }
        try result.get()
    }
}

import Primitives

/// Says, once, whether a connection opened: settled by the connection's task, waited for by the
/// scope that opened it (a `OneShot` of the outcome).
final class OpenSignal: Sendable {
    private let outcome = OneShot<Result<Void, any Error>>()

    /// The connection opened. Returns false when the signal was already settled: the opening was
    /// given up (or failed) meanwhile, and the connection must end at once.
    @discardableResult
    func succeed() -> Bool { outcome.settle(.success(())) }

    /// The connection did not open (or is given up). Returns false when already settled.
    @discardableResult
    func fail(_ error: any Error) -> Bool { outcome.settle(.failure(error)) }

    /// Waits until the signal is settled; throws its error, or `CancellationError` when the
    /// calling task is cancelled first (the signal then stays unsettled).
    func wait() async throws {
        guard let result = await outcome.valueUnlessCancelled() else { throw CancellationError() }
        try result.get()
    }
}

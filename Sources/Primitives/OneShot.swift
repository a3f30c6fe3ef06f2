import Synchronization

/// A value settled once and awaited by any number of tasks: whether a connection opened, that a
/// task or a thread is over, that a subscription was told to end.
///
/// The first `settle` wins and wakes every waiter; later ones change nothing. A wait that starts
/// after it returns at once. All under one lock, with no task of its own: a waiter is either
/// registered before the value is settled (and resumed by `settle`) or sees the value, never
/// neither.
public final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        /// Suspended waiters by ticket; a cancellable one is resumed with nil when cancelled.
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var nextTicket = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Settles the signal with `value`, waking every waiter. Returns false (and changes nothing)
    /// when it was settled already.
    @discardableResult
    public func settle(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// The value, if the signal is settled.
    public var settledValue: Value? { state.withLock { $0.value } }

    /// The value, once the signal is settled, whether or not the calling task is cancelled
    /// meanwhile: for ends that always come (a thread that was told to stop).
    public func value() async -> Value {
        guard let value = await suspend(cancellable: false) else {
            preconditionFailure("OneShot: a waiter that cannot be cancelled is resumed only with the value")
        }
        return value
    }

    /// The value, once the signal is settled; nil when the calling task is cancelled first (the
    /// signal stays as it was).
    public func valueUnlessCancelled() async -> Value? {
        await suspend(cancellable: true)
    }

    /// The value, once the signal is settled; nil when `timeout` passes first, or the calling
    /// task is cancelled (the signal stays as it was).
    public func value(within timeout: Duration) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await self.valueUnlessCancelled() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? settledValue
        }
    }

    /// The value, once the signal is settled; nil when `timeout` passes first, whether or not the
    /// calling task is cancelled meanwhile: for a wait that must take its time to decide (a
    /// process killed must still be given a moment to end). The wait runs in a task of its own,
    /// which the caller's cancellation does not reach, and which ends by `timeout`.
    public func valueIgnoringCancellation(within timeout: Duration) async -> Value? {
        await Task.detached { await self.value(within: timeout) }.value
    }

    /// How many tasks are suspended waiting for the value: what tests read to know that a waiter
    /// is waiting before they settle the signal.
    public var suspendedWaiters: Int { state.withLock { $0.waiters.count } }

    private func suspend(cancellable: Bool) async -> Value? {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let now = state.withLock { state -> Value?? in
                    if let value = state.value { return .some(value) }
                    // Checked under the lock that the cancellation handler takes: a cancellation
                    // is seen either here or there, never lost in between.
                    if cancellable && Task.isCancelled { return .some(nil) }
                    state.waiters[ticket] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            guard cancellable else { return }
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(returning: nil)
        }
    }
}

extension OneShot where Value == Void {
    /// Settles the signal (`settle(())`).
    @discardableResult
    public func settle() -> Bool { settle(()) }
}

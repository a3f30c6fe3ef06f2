import Foundation
import Primitives

/// Looks at something every 20 ms until it is as awaited, for at most `timeout`, and returns what
/// it saw then: for states that something else brings about (a process, a server, a mirror being
/// written).
///
/// - Parameters:
///   - what: what is awaited, as the failure says it ("the mirror to hold 3,000 events").
///   - look: reads the current state.
///   - until: whether that state is the awaited one.
/// - Throws: `WaitTimedOut` naming `what` and the last state seen, once `timeout` has passed;
///   `CancellationError` at once when the task is cancelled; what `look` throws.
@discardableResult
public func waitFor<Value>(_ what: String, timeout: Duration = .seconds(60), look: () async throws -> Value,
                           until isAwaited: (Value) -> Bool) async throws -> Value {
    let started = ContinuousClock.now
    let deadline = started + timeout
    while true {
        let seen = try await look()
        if isAwaited(seen) {
            WaitLog.note(what, waited: ContinuousClock.now - started)
            return seen
        }
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(awaited: what, timeout: timeout, seen: "\(seen)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// Waits until `condition` holds: `waitFor` for a yes or no, whose failure can only say "no".
public func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
    try await waitFor(what, timeout: timeout, look: condition) { $0 }
}

/// The result of `operation`, which must come within `timeout`.
///
/// Past the deadline the operation is cancelled and this throws `WaitTimedOut` at once, whether or
/// not the operation heeds the cancellation: it runs in a task of its own, which is left to end
/// when it can. That is the point: a wait that ignores cancellation (a continuation nobody
/// resumes) would otherwise outlive the test's limit and stall the whole run.
///
/// - Parameter what: what is awaited, as the failure names it.
/// - Throws: `WaitTimedOut`; `CancellationError` when the calling task is cancelled first (the
///   operation is cancelled too); what `operation` throws.
public func within<T: Sendable>(_ timeout: Duration, awaiting what: String,
                                _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = OneShot<Result<T, any Error>>()
    let task = Task {
        do {
            outcome.settle(.success(try await operation()))
        } catch {
            outcome.settle(.failure(error))
        }
    }
    guard let result = await outcome.value(within: timeout) else {
        task.cancel()
        try Task.checkCancellation()
        throw WaitTimedOut(awaited: what, timeout: timeout, seen: "nothing came; the wait was cancelled and left behind")
    }
    return try result.get()
}

extension BoundedBuffer {
    /// The next element, which must come within `timeout` (nil once the buffer is finished).
    ///
    /// - Throws: `WaitTimedOut` naming `what`.
    public func next(within timeout: Duration = .seconds(60), awaiting what: String) async throws -> Element? {
        try await TestSupport.within(timeout, awaiting: what) { await self.next() }
    }
}

extension Task {
    /// The task's result, which must come within `timeout`: past it the task is cancelled and this
    /// throws `WaitTimedOut` naming `what`. For a test's own tasks, whose `value` no limit of the
    /// test reaches (cancelling a test does not cancel an unstructured task).
    public func value(within timeout: Duration = .seconds(60), awaiting what: String) async throws -> Success {
        do {
            return try await TestSupport.within(timeout, awaiting: what) { try await self.result.get() }
        } catch let timedOut as WaitTimedOut {
            cancel()
            throw timedOut
        }
    }
}

/// How long each wait that ended well took, appended to the file `OA_TEST_WAIT_LOG` names (when
/// set; one `write` per line, with `O_APPEND`: tests running at once do not mix their lines):
/// what `docs/benchmarks.md` reports as the suite's longest waits.
enum WaitLog {
    static func note(_ what: String, waited: Duration) {
        guard let path = ProcessInfo.processInfo.environment["OA_TEST_WAIT_LOG"] else { return }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line = Array("\(String(format: "%.3f", waited.seconds))\t\(what)\n".utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

import Foundation
import Synchronization
import ToolSupport

/// The time a phase of the benchmark may take, and the failure that says what it waited for.
struct Deadline {
    let phase: String
    let limit: Duration
    let end: ContinuousClock.Instant

    init(phase: String, limit: Duration) {
        self.phase = phase
        self.limit = limit
        end = .now + limit
    }

    /// Time left (zero once passed).
    var remaining: Duration { max(.zero, end - .now) }

    var hasPassed: Bool { ContinuousClock.now >= end }

    /// The failure to throw when the deadline passed while waiting for `awaited`.
    func exceeded(waitingFor awaited: String, seen: String) -> BenchmarkFailure {
        BenchmarkFailure("\(phase): gave up after \(String(format: "%.0f", limit.seconds)) s waiting for \(awaited); seen so far: \(seen)")
    }
}

/// Runs `operation` in a task of its own and returns its result, or nil when `limit` passes
/// first: the task is then cancelled and left to end on its own, so that an operation that
/// ignores cancellation cannot hold the caller.
func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
        let once = ResumeOnce(continuation)
        let work = Task {
            do {
                once.resume(with: .success(try await operation()))
            } catch {
                once.resume(with: .failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            if once.resume(with: .success(nil)) { work.cancel() }
        }
    }
}

/// A continuation that the first of several tasks resumes.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T?, any Error>?>

    init(_ continuation: CheckedContinuation<T?, any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the continuation unless another task did; true if this call did.
    @discardableResult
    func resume(with result: Result<T?, any Error>) -> Bool {
        guard let continuation = continuation.withLock({ stored -> CheckedContinuation<T?, any Error>? in
            defer { stored = nil }
            return stored
        }) else { return false }
        continuation.resume(with: result)
        return true
    }
}

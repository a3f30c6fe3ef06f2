import Foundation
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

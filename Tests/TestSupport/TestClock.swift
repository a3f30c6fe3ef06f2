import Synchronization

/// A clock its test moves: `now` stands still until `advance(by:)`, and a sleep ends when the
/// clock reaches its deadline (or its task is cancelled). A backoff of six hours then takes no
/// wall time, and a test says exactly when time passes.
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        /// Time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The earliest deadline of the sleeps under way (nil when nothing sleeps on it).
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.map(\.deadline).min() }
    }

    /// Moves the clock on by `duration`, ending the sleeps whose deadline it reaches.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock on to `instant` (if it is later), ending the sleeps whose deadline it reaches.
    public func advance(to instant: Instant) {
        let woken = state.withLock { state in
            state.now = max(state.now, instant)
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let endsNow = state.withLock { state in
                    guard deadline > state.now, !Task.isCancelled else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if endsNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                let found = state.sleepers.first { $0.id == id }
                state.sleepers.removeAll { $0.id == id }
                return found
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Runs `body` while time passes on this clock as soon as anything sleeps on it: each
    /// millisecond of the wall, the clock moves to the earliest deadline of the sleeps under way.
    /// For code that sleeps on its own (backoff, tickers) while the test waits for what it brings
    /// about: a backoff of hours takes a millisecond, and no sleep is cut short of its deadline.
    public func passingTime<T>(during body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    if let next = self.nextDeadline { self.advance(to: next) }
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}

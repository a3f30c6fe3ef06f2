import Foundation
import Synchronization
import Testing

/// The places for tests that start programs (simulators, `oa-sync`, `oa-repl`, Chromium, tmux,
/// avahi-daemon): as many as the machine has cores, so that a parallel run loads the machine
/// on purpose, not by accident.
///
/// Swift Testing starts every test of a parallel run at once; without a gate a two-core machine
/// ran 80 simulators and a dozen `oa-sync` and `oa-repl` together, and the time limits of the
/// tests measured that queue, not what they test. A test takes a place before it starts anything
/// and holds it to its end (`TestBound`); its time limit starts once it has one. Waiting for a
/// place holds no thread.
public final class ProgramGate: Sendable {
    /// The one gate of the test process: `OA_TEST_PROGRAM_PLACES` places if set (at least one),
    /// else one per core (at least two).
    public static let shared = ProgramGate(places: max(1, ProcessInfo.processInfo.environment["OA_TEST_PROGRAM_PLACES"].flatMap(Int.init)
                                                      ?? max(2, ProcessInfo.processInfo.activeProcessorCount)))

    private struct State {
        var free: Int
        /// Waiting tests in the order they came, by ticket.
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextTicket = 0
    }

    /// How many tests may hold a place at once.
    public let places: Int
    private let state: Mutex<State>

    public init(places: Int) {
        precondition(places > 0, "a gate has at least one place")
        self.places = places
        state = Mutex(State(free: places))
    }

    /// Whether the current task runs in a place of the gate (its test's `TestBound` took one).
    @TaskLocal public static var placeHeld = false

    /// Runs `body` holding a place, taken first come, first served; gives it back when `body` ends.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits; what `body` throws.
    public func withPlace<T>(_ body: () async throws -> T) async throws -> T {
        try await take()
        defer { giveBack() }
        return try await Self.$placeHeld.withValue(true) { try await body() }
    }

    /// Reports (a test issue) a program started by a test that holds no place: what starts
    /// programs calls it, so that no suite forgets `.startsPrograms`.
    public static func checkPlaceHeld(toStart program: String) {
        guard !placeHeld else { return }
        Issue.record("\(program) was started by a test without a place in the program gate: give its suite .startsPrograms(endsWithin:)",
                     sourceLocation: Test.current?.sourceLocation ?? #_sourceLocation)
    }

    /// Places held now.
    public var taken: Int { state.withLock { places - $0.free } }

    /// Tests waiting for a place now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    private func take() async throws {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    // Checked under the lock that `onCancel` takes: a cancellation is seen here or there.
                    if Task.isCancelled { return false }
                    if state.free > 0 && state.waiters.isEmpty {
                        state.free -= 1
                        return true
                    }
                    state.waiters.append((ticket, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }?.resume(returning: false)
        }
        guard granted else { throw CancellationError() }
    }

    /// Hands the place to the longest waiting test, or frees it.
    private func giveBack() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}

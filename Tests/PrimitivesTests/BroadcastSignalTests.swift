import Primitives
import TestSupport
import Testing

@Suite("Broadcast signal", .endsWithin(.seconds(120)))
struct BroadcastSignalTests {
    @Test("every waiter suspended for a change after the count it saw wakes at the next bump, with the new count")
    func bump() async throws {
        let signal = BroadcastSignal()
        let seen = signal.generation
        let waiters = (0..<3).map { _ in Task { await signal.change(after: seen) } }
        try await waitUntilSuspended(3, "three followers") { signal.suspendedWaiters }
        signal.bump()
        for waiter in waiters { #expect(try await waiter.value(awaiting: "a waiter woken by the signal") == seen + 1) }
        #expect(signal.suspendedWaiters == 0)
    }

    @Test("a count that moved on while the waiter looked is not lost: the wait returns at once")
    func noLostWakeUp() async {
        let signal = BroadcastSignal()
        let seen = signal.generation
        signal.bump()
        #expect(await signal.change(after: seen) == seen + 1)
        #expect(signal.suspendedWaiters == 0)
    }

    @Test("stop wakes the suspended waiters with nil, and later waits return nil at once")
    func stop() async throws {
        let signal = BroadcastSignal()
        let waiter = Task { await signal.change(after: 0) }
        try await waitUntilSuspended(1, "the follower") { signal.suspendedWaiters }
        signal.stop()
        #expect(try await waiter.value(awaiting: "the cancelled waiter") == nil)
        #expect(await signal.change(after: 0) == nil)
    }

    @Test("a cancelled waiter wakes with nil; the others wait on")
    func cancellation() async throws {
        let signal = BroadcastSignal()
        let cancelled = Task { await signal.change(after: 0) }
        let other = Task { await signal.change(after: 0) }
        try await waitUntilSuspended(2, "two followers") { signal.suspendedWaiters }
        cancelled.cancel()
        #expect(try await cancelled.value(awaiting: "the cancelled waiter") == nil)
        #expect(signal.suspendedWaiters == 1)
        signal.bump()
        #expect(try await other.value(awaiting: "the other waiter") == 1)
    }
}

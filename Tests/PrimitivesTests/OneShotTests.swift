import Primitives
import TestSupport
import Testing

@Suite("One-shot signal", .endsWithin(.seconds(120)))
struct OneShotTests {
    @Test("waiters suspended before it is settled all get the value; the first settle wins; later waits return at once")
    func settle() async throws {
        let signal = OneShot<Int>()
        let waiters = (0..<3).map { index in
            Task { index == 0 ? await signal.value() : await signal.valueUnlessCancelled() }
        }
        try await waitUntilSuspended(3, "three waiters") { signal.suspendedWaiters }
        #expect(signal.settledValue == nil)
        #expect(signal.settle(7))
        #expect(signal.settle(8) == false)
        for waiter in waiters { #expect(try await waiter.value(awaiting: "a waiter woken by settle") == 7) }
        #expect(signal.suspendedWaiters == 0)
        #expect(await signal.value() == 7)
        #expect(signal.settledValue == 7)
    }

    @Test("a cancelled waiter gets nil and leaves the signal unsettled; one that cannot be cancelled waits on for the value")
    func cancellation() async throws {
        let signal = OneShot<Void>()
        let cancellable = Task { await signal.valueUnlessCancelled() != nil }
        try await waitUntilSuspended(1, "the cancellable waiter") { signal.suspendedWaiters }
        cancellable.cancel()
        #expect(try await cancellable.value(awaiting: "the cancelled waiter") == false)
        #expect(signal.suspendedWaiters == 0)
        #expect(signal.settledValue == nil)

        let patient = Task { await signal.value() }
        try await waitUntilSuspended(1, "the waiter that cannot be cancelled") { signal.suspendedWaiters }
        patient.cancel()
        let stillWaiting = Task { await signal.valueUnlessCancelled() }
        try await waitUntilSuspended(2, "the cancelled waiter and another") { signal.suspendedWaiters }
        #expect(signal.settle())
        try await patient.value(awaiting: "the waiter that cannot be cancelled")
        #expect(try await stillWaiting.value(awaiting: "the other waiter") != nil)
    }

    @Test("a wait with a deadline gets the value settled while it waits, or nil once the deadline passed")
    func deadline() async throws {
        let signal = OneShot<Int>()
        let waiter = Task { await signal.value(within: .seconds(60)) }
        try await waitUntilSuspended(1, "the waiter with a deadline") { signal.suspendedWaiters }
        signal.settle(5)
        #expect(try await waiter.value(awaiting: "the waiter with a deadline") == 5)

        let unsettled = OneShot<Int>()
        let start = ContinuousClock.now
        #expect(await unsettled.value(within: .milliseconds(50)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(unsettled.suspendedWaiters == 0, "the waiter left when the deadline passed")
    }

    @Test("a wait that ignores cancellation takes its time: it gets the value settled meanwhile, or nil at its deadline")
    func ignoringCancellation() async throws {
        let signal = OneShot<Int>()
        let waiter = Task { await signal.valueIgnoringCancellation(within: .seconds(60)) }
        try await waitUntilSuspended(1, "the waiter that ignores cancellation") { signal.suspendedWaiters }
        waiter.cancel()
        signal.settle(3)
        #expect(try await waiter.value(awaiting: "the cancelled waiter, given the value") == 3)

        let unsettled = OneShot<Int>()
        let start = ContinuousClock.now
        let cancelled = Task { await unsettled.valueIgnoringCancellation(within: .milliseconds(100)) }
        cancelled.cancel()
        #expect(try await cancelled.value(awaiting: "the cancelled waiter, at its deadline") == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(100), "it waited out its deadline, cancelled")
    }

    @Test("a task cancelled before it waits gets nil at once")
    func cancelledBeforeWaiting() async throws {
        let signal = OneShot<Int>()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await signal.valueUnlessCancelled()
        }
        #expect(try await waiter.value(awaiting: "the waiter cancelled before waiting") == nil)
        #expect(signal.suspendedWaiters == 0)
    }
}

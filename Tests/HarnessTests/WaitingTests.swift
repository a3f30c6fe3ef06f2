import Primitives
import Synchronization
import TestSupport
import Testing

@Suite("the tests' waits end", .endsWithin(.seconds(60)))
struct WaitingTests {
    @Test("a wait whose state never comes fails at its deadline, naming what it awaited and what it saw")
    func waitForFails() async throws {
        let started = ContinuousClock.now
        let error = await #expect(throws: WaitTimedOut.self) {
            try await waitFor("the counter to reach 3", timeout: .milliseconds(300), look: { 2 }, until: { $0 == 3 })
        }
        #expect(error?.description == "waited 0.3 seconds for the counter to reach 3; saw instead: 2")
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test("a wait ends at once when its task is cancelled")
    func waitForHeedsCancellation() async throws {
        let never = OneShot<Void>()
        let waiter = Task {
            try await waitUntil("a signal nobody settles", timeout: .seconds(3600)) { never.settledValue != nil }
        }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value(awaiting: "the cancelled wait") }
    }

    @Test("an operation that ignores cancellation is left behind at its deadline, and the wait ends")
    func withinLeavesItBehind() async throws {
        let never = OneShot<Void>()
        let error = await #expect(throws: WaitTimedOut.self) {
            try await within(.milliseconds(300), awaiting: "a signal nobody settles") { await never.value() }
        }
        #expect(error?.awaited == "a signal nobody settles")
        never.settle()  // the task left behind ends
        #expect(try await within(.seconds(30), awaiting: "a value there already") { 7 } == 7)
    }
}

@Suite("a test's limit ends it", .endsWithin(.seconds(60)))
struct TestBoundTests {
    @Test("a test blocked past its limit is reported, cancelled, and ends")
    func overrunEnds() async throws {
        let reports = Mutex<[String]>([])
        let never = OneShot<Void>()
        try await TestBound.run(limit: .milliseconds(300), grace: .seconds(600), report: { report in reports.withLock { $0.append(report) } }) {
            try await waitUntil("a signal nobody settles", timeout: .seconds(3600)) { never.settledValue != nil }
        }
        // Had it not ended when cancelled, the grace of 10 minutes would have run out first,
        // past the suite's limit, with a second report.
        #expect(reports.withLock { $0 } == ["the test ran past its limit of 0.3 seconds and was cancelled"])
    }

    @Test("a test stuck in a wait that ignores cancellation is reported again once the grace has passed")
    func stuckIsReported() async throws {
        let reports = Mutex<[String]>([])
        // A wait that ignores cancellation, freed by the second report, or when this test itself
        // is cancelled (its suite's limit): however late a loaded machine runs the timers, the
        // reports are made first.
        let stuck = OneShot<Void>()
        try await withTaskCancellationHandler {
            try await TestBound.run(limit: .milliseconds(200), grace: .milliseconds(200), report: { report in
                if reports.withLock({ $0.append(report); return $0.count }) == 2 { stuck.settle() }
            }) {
                await stuck.value()
            }
        } onCancel: {
            stuck.settle()
        }
        #expect(reports.withLock { $0 } == [
            "the test ran past its limit of 0.2 seconds and was cancelled",
            "the test was still running 0.2 seconds after it was cancelled: a wait in it ignores cancellation",
        ])
    }

    @Test("a test within its limit is not reported; its errors come through")
    func withinLimit() async throws {
        struct Planted: Error {}
        let reports = Mutex<[String]>([])
        try await TestBound.run(limit: .seconds(30), grace: .seconds(1), report: { report in reports.withLock { $0.append(report) } }) {}
        await #expect(throws: Planted.self) {
            try await TestBound.run(limit: .seconds(30), grace: .seconds(1), report: { report in reports.withLock { $0.append(report) } }) {
                throw Planted()
            }
        }
        #expect(reports.withLock { $0 }.isEmpty)
    }
}

@Suite("the gate of tests that start programs", .endsWithin(.seconds(60)))
struct ProgramGateTests {
    @Test("as many tests hold a place as it has; the others wait in turn; one cancelled while waiting leaves its turn")
    func places() async throws {
        let gate = ProgramGate(places: 2)
        let release = OneShot<Void>()
        let holders = (0..<2).map { _ in Task { try await gate.withPlace { await release.value() } } }
        try await waitFor("two places taken", look: { gate.taken }, until: { $0 == 2 })
        let third = Task { try await gate.withPlace { 3 } }
        try await waitFor("one test waiting", look: { gate.waiting }, until: { $0 == 1 })
        let cancelled = Task { try await gate.withPlace { 4 } }
        try await waitFor("two tests waiting", look: { gate.waiting }, until: { $0 == 2 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value(awaiting: "the cancelled waiter") }
        #expect(gate.waiting == 1)
        #expect(gate.taken == 2)
        release.settle()
        #expect(try await third.value(awaiting: "the third test's turn") == 3)
        for holder in holders { try await holder.value(awaiting: "a holder's end") }
        #expect(gate.taken == 0)
        #expect(gate.waiting == 0)
    }
}

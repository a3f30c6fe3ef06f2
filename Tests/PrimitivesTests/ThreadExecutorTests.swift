import Foundation
import Primitives
import TestSupport
import Testing

/// An actor whose jobs run on a thread of their own.
private actor ThreadBound {
    private let executor = ThreadExecutor(name: "oa-test-thread")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private var order: [Int] = []

    /// The name of the thread the call runs on (Foundation reads the system's).
    func threadName() -> String? {
        Thread.current.name
    }

    func record(_ value: Int) {
        order.append(value)
    }

    func recorded() -> [Int] { order }
}

@Suite("Thread executor", .endsWithin(.seconds(120)))
struct ThreadExecutorTests {
    @Test("an actor on it runs on its named thread, not on the caller's")
    func runsOnItsThread() async {
        let bound = ThreadBound()
        #expect(await bound.threadName() == "oa-test-thread")
        #expect(await bound.threadName() == "oa-test-thread")
    }

    @Test("jobs from one task run in the order they were enqueued")
    func order() async {
        let bound = ThreadBound()
        for value in 0..<200 { await bound.record(value) }
        #expect(await bound.recorded() == Array(0..<200))
    }
}

import TestSupport
import Testing
@testable import Bridge

@Suite("One request at a time", .endsWithin(.seconds(120)))
struct RequestSlotsTests {
    @Test("a slot given back just as another request finds it taken reaches that request; none waits for good")
    func noLostSlot() async throws {
        let slots = RequestSlots()
        try await within(.seconds(60), awaiting: "4 × 5,000 requests through one slot") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<5_000 {
                            try await slots.acquire(unlimited: false)
                            slots.release()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("waiters get the slot in order; a cancelled one leaves the line; the connection's end fails the rest")
    func orderCancellationAndEnd() async throws {
        let slots = RequestSlots()
        try await slots.acquire(unlimited: false)
        let order = OrderLog()
        let first = Task {
            try await slots.acquire(unlimited: false)
            await order.append(1)
            slots.release()
        }
        try await waitFor("the first waiter", look: { slots.waiting }, until: { $0 == 1 })
        let cancelled = Task { try await slots.acquire(unlimited: false) }
        try await waitFor("two waiters", look: { slots.waiting }, until: { $0 == 2 })
        let second = Task {
            try await slots.acquire(unlimited: false)
            await order.append(2)
            slots.release()
        }
        try await waitFor("three waiters", look: { slots.waiting }, until: { $0 == 3 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value(awaiting: "the cancelled request") }
        slots.release()
        try await first.value(awaiting: "the first waiter's turn")
        try await second.value(awaiting: "the second waiter's turn")
        #expect(await order.entries == [1, 2])

        try await slots.acquire(unlimited: false)
        let failed = Task { try await slots.acquire(unlimited: false) }
        try await waitFor("a waiter at the end", look: { slots.waiting }, until: { $0 == 1 })
        slots.end(with: BridgeError.connectionClosed(reason: "gone"))
        await #expect(throws: BridgeError.connectionClosed(reason: "gone")) { try await failed.value(awaiting: "the waiter failed by the end") }
        await #expect(throws: BridgeError.connectionClosed(reason: "gone")) { try await slots.acquire(unlimited: true) }
    }
}

/// The order in which waiters got the slot.
private actor OrderLog {
    private(set) var entries: [Int] = []

    func append(_ entry: Int) { entries.append(entry) }
}

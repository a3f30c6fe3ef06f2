import Primitives
import Synchronization
import TestSupport
import Testing

@Suite("Bounded buffer", .endsWithin(.seconds(120)))
struct BoundedBufferTests {
    @Test("a fast producer waits for a slow consumer: the bound holds, nothing is lost, order is kept")
    func boundHoldsUnderBurst() async throws {
        let buffer = BoundedBuffer<Int>(elementLimit: 16, byteLimit: 1000)
        let highest = Mutex(0)
        let total = 20_000
        async let produced: Int = {
            var sent = 0
            for value in 0..<total {
                guard await buffer.send(value, bytes: 10) else { break }
                sent += 1
                let waiting = buffer.count
                highest.withLock { $0 = max($0, waiting) }
            }
            buffer.finish()
            return sent
        }()
        var received: [Int] = []
        while true {
            let batch = await buffer.take(upTo: 5)
            if batch.isEmpty { break }
            received += batch
            if received.count % 1000 == 0 { await Task.yield() }
        }
        #expect(await produced == total)
        #expect(received == Array(0..<total))
        #expect(highest.withLock { $0 } <= 16)
    }

    @Test("the byte bound holds too, and one element larger than it still passes alone")
    func byteBound() async throws {
        let buffer = BoundedBuffer<String>(elementLimit: 100, byteLimit: 100)
        #expect(await buffer.send("a", bytes: 60))
        let second = Task { await buffer.send("b", bytes: 60) }
        // The second waits: 120 bytes would be over the bound.
        try await waitUntilSuspended(1, "the second send") { buffer.suspendedWaiters }
        #expect(buffer.count == 1)
        #expect(await buffer.take(upTo: 10) == ["a"])
        #expect(try await second.value(awaiting: "the second send"))
        #expect(await buffer.take(upTo: 10) == ["b"])
        #expect(await buffer.send("huge", bytes: 1_000), "alone, an element over the bound passes")
        #expect(await buffer.next() == "huge")
    }

    @Test("a producer waiting until the buffer is empty goes on once the consumer took everything; finish or cancel ends the wait")
    func untilEmpty() async throws {
        let buffer = BoundedBuffer<Int>(elementLimit: 4)
        #expect(await buffer.untilEmpty(), "an empty buffer: no wait")
        #expect(await buffer.send(1))
        #expect(await buffer.send(2))
        let waiting = Task { await buffer.untilEmpty() }
        try await waitUntilSuspended(1, "the producer waiting for the buffer to empty") { buffer.suspendedWaiters }
        #expect(await buffer.take(upTo: 1) == [1])
        // One element is left: it waits on.
        try await waitUntilSuspended(1, "the producer still waiting") { buffer.suspendedWaiters }
        #expect(await buffer.take(upTo: 1) == [2])
        #expect(try await waiting.value(awaiting: "the wait to end"))

        #expect(await buffer.send(3))
        let cancelled = Task { await buffer.untilEmpty() }
        try await waitUntilSuspended(1, "a second wait") { buffer.suspendedWaiters }
        cancelled.cancel()
        #expect(try await cancelled.value(awaiting: "the cancelled wait") == false)

        let finished = Task { await buffer.untilEmpty() }
        try await waitUntilSuspended(1, "a third wait") { buffer.suspendedWaiters }
        buffer.finish()
        #expect(try await finished.value(awaiting: "the wait ended by finish") == false)
    }

    @Test("finish hands over what is left, then ends; later sends are refused")
    func finish() async throws {
        let buffer = BoundedBuffer<Int>(elementLimit: 4)
        for value in 0..<3 { #expect(await buffer.send(value)) }
        buffer.finish()
        #expect(await buffer.send(9) == false)
        #expect(await buffer.take(upTo: 10) == [0, 1, 2])
        #expect(await buffer.take(upTo: 10).isEmpty)
        #expect(await buffer.next() == nil)
    }

    @Test("a suspended producer and a suspended consumer end when cancelled or finished, and only then")
    func waitersEnd() async throws {
        let full = BoundedBuffer<Int>(elementLimit: 1)
        #expect(await full.send(1))
        let producer = Task { await full.send(2) }
        try await waitUntilSuspended(1, "the producer of a full buffer") { full.suspendedWaiters }
        producer.cancel()
        #expect(try await producer.value(awaiting: "the producer's end") == false)
        #expect(full.suspendedWaiters == 0)
        #expect(await full.take(upTo: 10) == [1], "the cancelled send left nothing")

        let empty = BoundedBuffer<Int>(elementLimit: 1)
        let consumer = Task { await empty.take(upTo: 1) }
        try await waitUntilSuspended(1, "the consumer of an empty buffer") { empty.suspendedWaiters }
        consumer.cancel()
        #expect(try await consumer.value(awaiting: "the consumer's end").isEmpty)
        #expect(empty.suspendedWaiters == 0)

        let finished = BoundedBuffer<Int>(elementLimit: 1)
        let reader = Task { await finished.next() }
        try await waitUntilSuspended(1, "the reader of an empty buffer") { finished.suspendedWaiters }
        finished.finish()
        #expect(try await reader.value(awaiting: "the reader's end") == nil)

        let blocked = BoundedBuffer<Int>(elementLimit: 1)
        #expect(await blocked.send(1))
        let writer = Task { await blocked.send(2) }
        try await waitUntilSuspended(1, "the writer of a full buffer") { blocked.suspendedWaiters }
        blocked.finish()
        #expect(try await writer.value(awaiting: "the writer's end") == false)
    }

    @Test("a suspended consumer is woken by the next send, and a suspended producer by the take that makes room")
    func wakeUps() async throws {
        let buffer = BoundedBuffer<Int>(elementLimit: 1)
        let consumer = Task { await buffer.take(upTo: 5) }
        try await waitUntilSuspended(1, "the consumer") { buffer.suspendedWaiters }
        #expect(await buffer.send(1))
        #expect(try await consumer.value(awaiting: "the consumer's take") == [1])

        #expect(await buffer.send(2))
        let producer = Task { await buffer.send(3) }
        try await waitUntilSuspended(1, "the producer") { buffer.suspendedWaiters }
        #expect(await buffer.take(upTo: 5) == [2])
        #expect(try await producer.value(awaiting: "the producer's send"))
        #expect(await buffer.take(upTo: 5) == [3])
    }
}

import Bridge
import Foundation
import Synchronization
import ToolSupport

/// How long a burst took to be absorbed, from the trigger and from the simulator's answer.
struct BurstTiming {
    let burst: FiredBurst
    /// When the last update was read (baseline) or the mirror's cursor reached it (oa-sync).
    let absorbed: ContinuousClock.Instant

    /// Trigger to answer: the simulator storing the burst.
    var storing: Double { (burst.answered - burst.triggered).seconds }
    /// Answer to the last update absorbed: the broadcast and its absorption.
    var absorbing: Double { (absorbed - burst.answered).seconds }
    /// Trigger to the last update absorbed.
    var total: Double { (absorbed - burst.triggered).seconds }
}

/// The baseline: a client that reads the burst's notifications and discards them.
enum BaselinePhase {
    private enum ReaderOutcome: Sendable {
        case done(ContinuousClock.Instant)
        case connectionEnded
        case timedOut
    }

    /// Connects a reader, fires the burst from a control connection, and waits until the reader
    /// has read `count` `session/update` notifications.
    static func run(url: String, count: Int, bytes: Int, deadline: Deadline) async throws -> BurstTiming {
        let seen = Counter()
        return try await BridgeClient.withConnection(to: url, options: BurstTrigger.clientOptions, logger: BurstTrigger.quietLogger) { reader in
            try await withThrowingTaskGroup(of: ReaderOutcome.self) { group -> BurstTiming in
                group.addTask {
                    var read = 0
                    for await notification in reader.notifications {
                        guard case .sessionUpdate = notification else { continue }
                        read += 1
                        seen.value.store(read, ordering: .relaxed)
                        if read == count { return .done(.now) }
                    }
                    return Task.isCancelled ? .timedOut : .connectionEnded
                }
                group.addTask {
                    try? await Task.sleep(for: deadline.remaining)
                    return .timedOut
                }
                let burst = try await BurstTrigger.fire(url: url, count: count, bytes: bytes, deadline: deadline)
                let outcome = try await group.next() ?? .timedOut
                group.cancelAll()
                let progress = "\(seen.value.load(ordering: .relaxed)) of \(count) updates read"
                switch outcome {
                case .done(let absorbed):
                    return BurstTiming(burst: burst, absorbed: absorbed)
                case .connectionEnded:
                    throw BenchmarkFailure("\(deadline.phase): the reader's connection ended; \(progress)")
                case .timedOut:
                    throw deadline.exceeded(waitingFor: "the reader to read the burst (seqs \(burst.firstSeq)…\(burst.lastSeq))", seen: progress)
                }
            }
        }
    }
}

/// A count that one task writes and another reads.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

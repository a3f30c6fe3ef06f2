import Foundation
import MirrorStore
import Synchronization
import ToolSupport

/// What oa-sync did with a burst.
struct SyncOutcome {
    let timing: BurstTiming
    /// VmHWM just before oa-sync was stopped, in KiB.
    let peakKiB: Int
    /// The highest VmRSS sampled every 50 ms, in KiB.
    let highestSampledKiB: Int
    /// Mirrored events whose seq is the burst's, and how many distinct seqs they have.
    let rows: Int64
    let distinctSeqs: Int64
    /// Mirrored events of the updates stored before oa-sync started, and how many were stored.
    let catchUpRows: Int64
    let catchUpCount: Int64
    /// How long after its commit search found an update, sampled during the burst.
    let search: SearchProbe

    var exactlyOnce: Bool {
        rows == timing.burst.lastSeq - timing.burst.firstSeq + 1 && distinctSeqs == rows && catchUpRows == catchUpCount
    }
}

/// oa-sync, live, absorbing a burst into its mirror.
enum SyncPhase {
    /// Starts oa-sync on a new mirror, waits until it is live (having caught up on `catchUp`, the
    /// updates stored before), fires the burst, and waits until the mirror's history cursor
    /// reaches the burst's last seq.
    static func run(url: String, count: Int, bytes: Int, catchUp: FiredBurst?, mirror: String, work: URL, children: Children,
                    deadline: Deadline) async throws -> SyncOutcome {
        let log = work.appending(path: "oa-sync.log")
        let sync = try children.start("oa-sync", ["--bridge", url, "--db", mirror, "--log-format", "json"], log: log)
        let pid = sync.processIdentifier
        let samples = Counter()
        do {
            let outcome = try await withThrowingTaskGroup(of: Void.self) { group -> SyncOutcome in
                group.addTask {
                    while !Task.isCancelled {
                        if let kib = ProcessMemory.residentKiB(pid) { samples.value.max(kib, ordering: .relaxed) }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
                defer { group.cancelAll() }
                let database = try await waitUntilLive(mirror: mirror, sync: sync, log: log, deadline: deadline)
                let probe = try SearchProbe(mirror: mirror)
                let burst = try await BurstTrigger.fire(url: url, count: count, bytes: bytes, deadline: deadline)
                let absorbed = try await waitForCursor(burst, database: database, probe: probe, sync: sync, log: log, deadline: deadline)
                await probe.finish()
                let (rows, distinct) = try database.queryFirst(
                    "SELECT count(*), count(DISTINCT seq) FROM events WHERE seq BETWEEN ? AND ?", [burst.firstSeq, burst.lastSeq]
                ) { ($0.int64(0), $0.int64(1)) } ?? (0, 0)
                let caughtUp = try catchUp.map {
                    try database.scalarInt64("SELECT count(DISTINCT seq) FROM events WHERE seq BETWEEN ? AND ?", [$0.firstSeq, $0.lastSeq]) ?? 0
                } ?? 0
                guard let peak = ProcessMemory.peakResidentKiB(pid) else {
                    throw BenchmarkFailure("\(deadline.phase): cannot read oa-sync's VmHWM from /proc/\(pid)/status")
                }
                return SyncOutcome(timing: BurstTiming(burst: burst, absorbed: absorbed), peakKiB: peak,
                                   highestSampledKiB: samples.value.load(ordering: .relaxed),
                                   rows: rows, distinctSeqs: distinct, catchUpRows: caughtUp,
                                   catchUpCount: catchUp.map { $0.lastSeq - $0.firstSeq + 1 } ?? 0, search: probe)
            }
            await children.stop(sync)
            return outcome
        } catch {
            await children.stop(sync)
            throw error
        }
    }

    /// Polls the mirror's `desktop_status` until oa-sync says it is live; returns a read-only
    /// connection to the mirror.
    private static func waitUntilLive(mirror: String, sync: Process, log: URL, deadline: Deadline) async throws -> Database {
        var seen = "no mirror file yet"
        while true {
            if FileManager.default.fileExists(atPath: mirror) {
                do {
                    let database = try Database(path: mirror, mode: .readOnly)
                    let state = try database.queryFirst("SELECT connection_state FROM desktop_status ORDER BY updated_at DESC LIMIT 1") { $0.string(0) }
                    if state == "live" { return database }
                    seen = "connection_state \(state ?? "not written yet")"
                } catch {
                    seen = "mirror not readable yet (\(error))"
                }
            }
            try check(sync, log: log, deadline: deadline, awaiting: "oa-sync to be live", seen: seen)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls the mirror's history cursor until it reaches the burst's last seq, `probe` searching
    /// meanwhile; returns when.
    private static func waitForCursor(_ burst: FiredBurst, database: Database, probe: SearchProbe, sync: Process, log: URL,
                                      deadline: Deadline) async throws -> ContinuousClock.Instant {
        while true {
            let cursor = try database.scalarInt64("SELECT max(cursor) FROM histories") ?? 0
            if cursor >= burst.lastSeq { return .now }
            probe.observe(cursor: cursor, burst: burst)
            let done = max(0, cursor - burst.firstSeq + 1)
            try check(sync, log: log, deadline: deadline, awaiting: "the mirror's history cursor to reach \(burst.lastSeq)",
                      seen: "cursor \(cursor): \(done) of \(burst.lastSeq - burst.firstSeq + 1) updates mirrored")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Fails if oa-sync exited or the deadline passed.
    private static func check(_ sync: Process, log: URL, deadline: Deadline, awaiting: String, seen: String) throws {
        if !sync.isRunning {
            let how = sync.terminationReason == .uncaughtSignal ? "was killed by signal" : "exited with status"
            throw BenchmarkFailure("\(deadline.phase): oa-sync \(how) \(sync.terminationStatus) while waiting for \(awaiting); \(seen). Its log:\n\(tail(of: log))")
        }
        if deadline.hasPassed {
            throw BenchmarkFailure("\(deadline.exceeded(waitingFor: awaiting, seen: seen)). oa-sync's log:\n\(tail(of: log))")
        }
    }
}

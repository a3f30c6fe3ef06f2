import Foundation
import MirrorStore
import ToolSupport

/// Every update sent, as the mirror holds it at the end.
struct MirroredUpdates {
    /// Events whose seq is one of the sent ones, and how many distinct seqs they have.
    let rows: Int64
    let distinctSeqs: Int64
}

/// The soak's waits on oa-sync's mirror, each with a deadline that says what it waited for.
enum SoakWaits {
    /// Polls the mirror's `desktop_status` until oa-sync says it is live; returns a read-only
    /// connection to the mirror.
    static func untilLive(mirror: String, sync: Process, log: URL, within limit: Duration) async throws -> Database {
        let end = ContinuousClock.now + limit
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
            try check(sync, log: log, end: end, limit: limit, awaiting: "oa-sync to be live", seen: seen)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls the mirror until every update `sent` is in it (the sent seqs are the only ones in
    /// their range), then counts them.
    static func untilMirrored(_ sent: SentUpdates, database: Database, sync: Process, log: URL, within limit: Duration) async throws -> MirroredUpdates {
        let end = ContinuousClock.now + limit
        while true {
            let (rows, distinct) = try database.queryFirst(
                "SELECT count(*), count(DISTINCT seq) FROM events WHERE seq BETWEEN ? AND ?", [sent.firstSeq, sent.lastSeq]
            ) { ($0.int64(0), $0.int64(1)) } ?? (0, 0)
            if distinct >= sent.count { return MirroredUpdates(rows: rows, distinctSeqs: distinct) }
            try check(sync, log: log, end: end, limit: limit, awaiting: "every update sent to be mirrored",
                      seen: "\(distinct) of \(sent.count) seqs mirrored")
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Fails if oa-sync exited or the deadline passed.
    private static func check(_ sync: Process, log: URL, end: ContinuousClock.Instant, limit: Duration, awaiting: String, seen: String) throws {
        if !sync.isRunning {
            let how = sync.terminationReason == .uncaughtSignal ? "was killed by signal" : "exited with status"
            throw BenchmarkFailure("oa-sync \(how) \(sync.terminationStatus) while waiting for \(awaiting); \(seen). Its log:\n\(tail(of: log))")
        }
        if ContinuousClock.now >= end {
            throw BenchmarkFailure("gave up after \(Int(limit.seconds)) s waiting for \(awaiting); seen so far: \(seen). oa-sync's log:\n\(tail(of: log))")
        }
    }
}

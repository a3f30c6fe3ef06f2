import BenchOptions
import ArgumentParser
import Bridge
import Foundation
import MirrorStore
import ToolSupport

/// End-to-end benchmarks of oa-sync with the real binaries: initial sync, incremental sync after
/// a reconnect, and live-update latency.
@main
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-sync-bench",
        abstract: "Measure oa-sync end to end against oa-bridge-sim (cursor flavour) on 127.0.0.1.",
        discussion: """
            Uses oa-bridge-sim and oa-sync from the same build directory. The history is seeded into --history the first time (and reused after); the mirror is made anew.

            1. Initial sync: oa-sync --once into an empty mirror; wall time, events/s, oa-sync's peak RSS; beside it, SQLite's own time to store the same rows (Python's sqlite3: executemany into a plain rowid table in transactions of 20,000, then the texts of the entries the mirror derived from them into a contentless FTS5 index, with the mirror's page size), and the ratio; each run starts once the system has written out what it held to write.
            2. Incremental sync: oa-sync running, the connection cut, 100 events added to a session, the connection allowed again: time from reconnect to caught up, and bytes the bridge sent for it.
            3. Live latency: 1,000 updates/s for --live-seconds; time from the bridge's append to the row committed in the mirror.

            With --shape realistic the history is shaped like real ones (oa-bridge-sim --shape: tool outputs from 10 KB to 8 MB on a long tail, a few huge sessions); with --shape streamed it holds small events only, each session's turns streamed in pieces of a few characters; --initial-only stops after the initial sync.

            Example: oa-sync-bench --events 1000000 --sessions 1000 --history /tmp/sync-bench-history.sqlite
            """
    )



    @OptionGroup var synthetic: SyntheticHistoryOptions

    @OptionGroup var workingDirectory: WorkingDirectoryOptions

    @Option(help: "The simulator's history file (seeded when new).")
    var history: String


    @Option(help: "Seconds of live updates at 1,000/s.")
    var liveSeconds = 5

    @Option(help: "The synthetic history's shape: uniform, realistic, runs or streamed (oa-bridge-sim --shape).")
    var shape = "uniform"

    @Flag(help: "Stop after the initial sync.")
    var initialOnly = false

    @Flag(inversion: .prefixedNo, help: "Whether the simulator offers history.changes' page byte budget (oa-bridge-sim --max-bytes).")
    var maxBytes = true

    func run() async throws {
        let working = try workingDirectory.make(for: "oa-sync-bench")
        defer { working.removeIfTemporary() }
        let work = working.url
        let tools = ToolPaths()
        let simulator = try await tools.startSimulator(history: history, sessions: synthetic.sessions, events: synthetic.events, shape: shape,
                                                       offersMaxBytes: maxBytes)
        defer { simulator.process.terminate() }
        print("# oa-sync-bench: \(synthetic.events) events, \(synthetic.sessions) sessions (\(simulator.readyLine))\n")

        let mirror = working.freshDatabase("mirror.sqlite")
        // Each timed run starts with nothing left to write to disk (the simulator's seeding, the
        // run before): neither pays for another's writes.
        sync()
        let simulatorCPUBefore = ProcessCPU.seconds(of: simulator.process.processIdentifier)
        let initial = try await tools.runSync(["--bridge", simulator.url, "--db", mirror, "--once", "--quiet"])
        let simulatorCPU = ProcessCPU.seconds(of: simulator.process.processIdentifier).flatMap { after in simulatorCPUBefore.map { after - $0 } }
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let mirrored = try store.counts().events
        let bytes = try store.database.scalarInt64("SELECT coalesce(sum(length(update_json)), 0) FROM events") ?? 0
        let largest = try store.database.scalarInt64("SELECT max(length(update_json)) FROM events") ?? 0
        print("| initial sync | seconds | CPU seconds | events/s | peak RSS |\n|---|---:|---:|---:|---:|")
        print("| oa-sync --once, \(mirrored) events, \(f(Double(bytes) / 1_048_576, 1)) MiB of updates (largest \(f(Double(largest) / 1_048_576, 2)) MiB) | \(f(initial.seconds)) | \(f(initial.cpuSeconds)) | \(Int(Double(mirrored) / initial.seconds)) | \(f(initial.peakRSSMiB, 1)) MiB |")
        let baseline = try await tools.sqliteBaseline(mirror: mirror, into: work.appending(path: "baseline.sqlite").path)
        print("| SQLite alone: the same rows by Python's executemany into a plain rowid table, then the same entries into FTS5 | \(f(baseline)) | | \(Int(Double(mirrored) / baseline)) | |")
        print("| oa-bridge-sim meanwhile (the same two cores) | | \(simulatorCPU.map { f($0) } ?? "?") | | |")
        print("\noa-sync / SQLite alone: \(f(initial.seconds / baseline))× (target ≤ 2×)")
        guard !initialOnly else { return }

        try await incremental(simulator: simulator, mirror: mirror, tools: tools)
        try await liveLatency(simulator: simulator, mirror: mirror, tools: tools)
    }

    private func incremental(simulator: SimulatorLauncher.Started, mirror: String, tools: ToolPaths) async throws {
        try await tools.withSync(["--bridge", simulator.url, "--db", mirror, "--log-format", "json",
                                  "--backoff-initial-ms", "50", "--backoff-cap-ms", "100"]) { sync in
            try await sync.waitFor { $0["state"]?.stringValue == "live" }
            try await BridgeClient.withConnection(to: simulator.url, options: BridgeClientOptions().discardingNotifications) { control in
                _ = try await control.call("_sim/refuse_connections", params: ["ms": 600_000])
                _ = try await control.call("_sim/drop_connections", params: [:])
                try await sync.waitFor { $0["state"]?.stringValue == "offline" }
                let updates: [JSONValue] = (0..<100).map { ["sessionUpdate": .string(UpdateKind.agentMessageChunk.rawValue),
                                                            "content": ["content": ["type": "text", "text": .string("incremental \($0)")]]] }
                let existing = try MirrorStore(path: mirror, mode: .readOnly).sessions(limit: 1).first?.sessionID ?? "INCREMENTAL"
                _ = try await control.call("_sim/append", params: ["session_id": .string(existing), "updates": .array(updates)])
                let bytesBefore = try await control.call("_sim/stats", params: [:]).result["bytes_sent"]?.int64Value ?? 0
                _ = try await control.call("_sim/refuse_connections", params: ["ms": 0])
                let syncing = try await sync.waitFor { $0["state"]?.stringValue == "syncing" }
                let caughtUp = try await sync.waitFor { $0["message"]?.stringValue == "caught up" }
                // By the times oa-sync wrote on the two lines (to the millisecond): both may be read at once.
                guard let from = logTime(syncing), let to = logTime(caughtUp) else {
                    throw BenchmarkFailure("oa-sync's log lines carry no time: \(syncing), \(caughtUp)")
                }
                let seconds = to.timeIntervalSince(from)
                try await sync.waitFor { $0["state"]?.stringValue == "live" }
                let bytesAfter = try await control.call("_sim/stats", params: [:]).result["bytes_sent"]?.int64Value ?? 0
                let payload = updates.reduce(0) { $0 + JSONWriter.bytes(of: $1).count }
                print("\n| incremental sync after a reconnect | value |\n|---|---:|")
                print("| events caught up | \(caughtUp["events"]?.stringValue ?? "?") |")
                print("| reconnect (syncing) to caught up, by oa-sync's log times | \(f(seconds * 1000, 0)) ms |")
                print("| bytes the bridge sent to all clients meanwhile | \(bytesAfter - bytesBefore) (the 100 updates: \(payload)) |")
            }
        }
    }

    /// The time a JSON log line of oa-sync was written (its `ts`).
    private func logTime(_ line: JSONValue) -> Date? {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return line["ts"]?.stringValue.flatMap { format.date(from: $0) }
    }

    private func liveLatency(simulator: SimulatorLauncher.Started, mirror: String, tools: ToolPaths) async throws {
        try await tools.withSync(["--bridge", simulator.url, "--db", mirror, "--log-format", "json", "--quiet"]) { _ in
            let reader = try MirrorStore(path: mirror, mode: .readOnly)
            // oa-sync is live once it is mirroring new events: wait for a probe event.
            try await BridgeClient.withConnection(to: simulator.url, options: BridgeClientOptions().discardingNotifications) { control in
                var lastEventID = try reader.database.scalarInt64("SELECT max(event_id) FROM events") ?? 0
                let total = liveSeconds * 1000
                let clock = ContinuousClock()
                let readyDeadline = clock.now + .seconds(30)
                while try reader.database.scalarInt64("SELECT count(*) FROM desktop_status WHERE connection_state = 'live'") != 1,
                      clock.now < readyDeadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                // The sender stamps each update with the monotonic time it was handed to the bridge; the
                // reader below notes when its row is in the mirror.
                // A child of this scope: cancelled and awaited if the reading below fails.
                async let sending: Void = {
                    let start = clock.now
                    var sent = 0
                    while sent < total {
                        let due = min(total, Int((clock.now - start).seconds * 1000) + 10)
                        if sent < due {
                            let stamp = monotonicNanoseconds()
                            let batch = (sent..<due).map { index -> JSONValue in
                                ["sessionUpdate": .string(UpdateKind.agentMessageChunk.rawValue), "content": ["content": ["type": "text", "text": .string("live \(index) \(stamp)")]]]
                            }
                            _ = try await control.call("_sim/append", params: ["session_id": "LIVE-BENCH", "updates": .array(batch)])
                            sent = due
                        }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }()
                var latencies: [Double] = []
                let deadline = clock.now + .seconds(Double(liveSeconds) + 30)
                while latencies.count < total, clock.now < deadline {
                    let rows = try reader.database.query("SELECT event_id, text FROM events WHERE event_id > ? ORDER BY event_id", [lastEventID]) {
                        ($0.int64(0), $0.string(1))
                    }
                    let now = monotonicNanoseconds()
                    for (eventID, text) in rows {
                        lastEventID = max(lastEventID, eventID)
                        let parts = text.split(separator: " ")
                        if parts.count == 3, parts[0] == "live", let stamp = UInt64(parts[2]) {
                            latencies.append(Double(now - stamp) / 1e6)
                        }
                    }
                    try await Task.sleep(for: .milliseconds(1))
                }
                try await sending
                latencies.sort()
                func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(p / 100 * Double(latencies.count)))] }
                print("\n| live update to committed row, \(latencies.count) updates at 1,000/s | ms |\n|---|---:|")
                print("| p50 | \(f(percentile(50))) |\n| p99 | \(f(percentile(99))) |\n| max | \(f(latencies.last ?? .nan)) |")
            }
        }
    }

    private func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

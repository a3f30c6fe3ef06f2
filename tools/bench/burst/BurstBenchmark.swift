import BenchOptions
import ArgumentParser
import Foundation
import ToolSupport

/// A burst of live updates: oa-sync against a client that only reads them, in the same run.
@main
struct BurstBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-burst-bench",
        abstract: "Measure oa-sync absorbing a burst of live updates from oa-bridge-sim (cursor flavour) on 127.0.0.1.",
        discussion: """
            Uses oa-bridge-sim and oa-sync from the same build directory. --history is seeded once (10 sessions, 1,000 events) and each phase's simulator works on a fresh copy of it. The simulator stores the burst (_sim/burst), answers, then sends it as fast as each client's socket takes it.

            1. Baseline: a client that reads the burst's session/update notifications and discards them.
            2. oa-sync, live on a new mirror (with --catch-up N, after catching up on N updates stored before it started): until the mirror's history cursor reaches the burst's last seq; then every seq of the burst must be in the mirror exactly once. oa-sync's RSS is sampled every 50 ms; its peak is VmHWM.

            Times are taken from the simulator's answer (the burst stored) to the last update absorbed; trigger to answer is shown apart. Exits 1 if the burst was not mirrored exactly once; every wait gives up after --phase-timeout seconds per phase (default max(60, updates/2000)).

            Example: oa-burst-bench --updates 300000 --catch-up 100000 --bytes 1024 --history /tmp/burst-history.sqlite
            """
    )

    @OptionGroup var workingDirectory: WorkingDirectoryOptions

    @Option(help: "Live updates in the burst.")
    var updates = 300_000

    @Option(help: "Updates stored (by a burst nobody reads) before oa-sync starts, which it catches up on before the live burst; its peak RSS covers both.")
    var catchUp = 0

    @Option(help: "Approximate size of each update's JSON, in bytes.")
    var bytes = 1024

    @Option(help: "The simulator's history file (seeded when new; each phase works on a copy).")
    var history: String


    @Option(help: "Seconds each phase may take before the benchmark gives up (default: max(60, updates/2000)).")
    var phaseTimeout: Int?

    func validate() throws {
        guard (1...10_000_000).contains(updates) else { throw ValidationError("--updates must be 1…10,000,000") }
        guard (0...10_000_000).contains(catchUp) else { throw ValidationError("--catch-up must be 0…10,000,000") }
        guard (64...(1 << 20)).contains(bytes) else { throw ValidationError("--bytes must be 64…1,048,576") }
        if let phaseTimeout, phaseTimeout < 1 { throw ValidationError("--phase-timeout must be at least 1") }
    }

    func run() async throws {
        let working = try workingDirectory.make(for: "oa-burst-bench")
        defer { working.removeIfTemporary() }
        let work = working.url
        try await Children.within { children in
            try children.requireTools(["oa-bridge-sim", "oa-sync"])
            try await HistoryCopies.seedIfNeeded(history, children: children)
            let limit = Duration.seconds(phaseTimeout ?? max(60, updates / 2000))

            let baselineSimulator = try await startSimulator(copyAt: work.appending(path: "baseline-history.sqlite"), children: children)
            print("# oa-burst-bench: \(updates) live updates of ~\(bytes) bytes (\(baselineSimulator.readyLine))\n")
            fflush(nil)  // the header before any error message
            let baseline = try await BaselinePhase.run(url: baselineSimulator.url, count: updates, bytes: bytes,
                                                       deadline: Deadline(phase: "baseline", limit: limit))
            await children.stop(baselineSimulator.process)
            HistoryCopies.remove(work.appending(path: "baseline-history.sqlite"))

            let syncSimulator = try await startSimulator(copyAt: work.appending(path: "sync-history.sqlite"), children: children)
            let catchUpLimit = Duration.seconds(phaseTimeout ?? max(60, catchUp / 2000))
            let stored = catchUp == 0 ? nil : try await BurstTrigger.fire(url: syncSimulator.url, count: catchUp, bytes: bytes,
                                                                          deadline: Deadline(phase: "catch-up", limit: catchUpLimit))
            let sync = try await SyncPhase.run(url: syncSimulator.url, count: updates, bytes: bytes, catchUp: stored,
                                               mirror: working.freshDatabase("mirror.sqlite"), work: work, children: children,
                                               deadline: Deadline(phase: "oa-sync", limit: limit + catchUpLimit))
            await children.stop(syncSimulator.process)

            Report(updates: updates, catchUp: catchUp, bytes: bytes, baseline: baseline, sync: sync).print()
            guard sync.exactlyOnce else {
                FileHandle.standardError.write(Data("oa-burst-bench: the burst was not mirrored exactly once: \(sync.rows) rows, \(sync.distinctSeqs) distinct seqs for \(updates) updates; caught up \(sync.catchUpRows) rows for \(catchUp)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    private func startSimulator(copyAt copy: URL, children: Children) async throws -> SimulatorLauncher.Started {
        try HistoryCopies.copy(history, to: copy)
        return try await children.startSimulator(history: copy.path, sessions: HistoryCopies.sessions, events: HistoryCopies.events,
                                           timeout: .seconds(60))
    }
}

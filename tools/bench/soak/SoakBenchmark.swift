import ArgumentParser
import BenchOptions
import Foundation
import MirrorStore
import Synchronization
import ToolSupport

/// `oa-soak-bench`: oa-sync following a desktop for a long time, its memory sampled throughout.
@main
struct SoakBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-soak-bench",
        abstract: "Measure oa-sync's memory while it follows oa-bridge-sim live for a long time, with connections cut.",
        discussion: """
            Uses oa-bridge-sim (cursor flavour) and oa-sync from the same build directory, on 127.0.0.1. \
            oa-sync follows a new mirror of a small seeded history; once it is live, a control \
            connection hands the simulator --rate live updates a second (_sim/append), in turn to \
            --sessions sessions whose turns end as real ones do (a prompt; thinking and a reply in \
            pieces of 2–12 characters; a tool call and its output, 100 B to 256 KiB on a long tail; \
            the desktop's encoding and standard ACP's by turns) and to one more whose reply never \
            ends; every --cut-seconds it drops every other connection (_sim/drop_connections), \
            so oa-sync reconnects and catches up by its cursor.

            oa-sync's RssAnon and RssFile are read from /proc/PID/status every --sample-seconds; \
            the report gives them over time, the slope of RssAnon after --warm-up-minutes (least \
            squares), and the peak (VmHWM). At the end it waits for every update to be in the \
            mirror and checks that each is there exactly once.

            Exits 1 if an update was lost or mirrored twice, oa-sync exited, the peak was over \
            --max-peak-mib, or the slope after the warm-up was over --max-slope-mib-per-hour \
            (judged only when at least 20 minutes follow the warm-up). --wrap runs oa-sync under \
            another program (a heap profiler: --wrap valgrind --wrap --tool=massif ...).

            Example: oa-soak-bench --minutes 70 --warm-up-minutes 10 --samples /tmp/soak.tsv
            """
    )

    @OptionGroup var workingDirectory: WorkingDirectoryOptions

    @Option(help: "Minutes of live updates.")
    var minutes = 60.0

    @Option(help: "Minutes at the start left out of the slope.")
    var warmUpMinutes = 10.0

    @Option(help: "Live updates a second, over every session.")
    var rate = 100

    @Option(help: "Sessions whose turns end (one more streams a reply that never ends).")
    var sessions = 4

    @Option(help: "Seconds between cuts of oa-sync's connection (0: none).")
    var cutSeconds = 20

    @Option(help: "Seconds between samples of oa-sync's memory.")
    var sampleSeconds = 10

    @Option(help: "Minutes between rows of the report's table.")
    var reportMinutes = 5.0

    @Option(help: "Write every sample to this file (tab-separated).")
    var samples: String?

    @Option(help: "The most RssAnon may grow after the warm-up, in MiB an hour.")
    var maxSlopeMiBPerHour = 5.0

    @Option(help: "The most oa-sync's peak RSS (VmHWM) may be, in MiB.")
    var maxPeakMiB = 100.0

    @Option(parsing: .unconditionalSingleValue, help: "A word of a command to run oa-sync under (repeatable, in order).")
    var wrap: [String] = []

    func validate() throws {
        guard minutes > 0 else { throw ValidationError("--minutes must be more than 0") }
        guard warmUpMinutes >= 0, warmUpMinutes < minutes else { throw ValidationError("--warm-up-minutes must be 0 or more and less than --minutes") }
        guard (1...100_000).contains(rate) else { throw ValidationError("--rate must be 1…100,000") }
        guard (1...1000).contains(sessions) else { throw ValidationError("--sessions must be 1…1,000") }
        guard cutSeconds >= 0 else { throw ValidationError("--cut-seconds must be 0 or more") }
        guard sampleSeconds >= 1 else { throw ValidationError("--sample-seconds must be at least 1") }
    }

    func run() async throws {
        let working = try workingDirectory.make(for: "oa-soak-bench")
        defer { working.removeIfTemporary() }
        try await Children.within { children in
            try children.requireTools(["oa-bridge-sim", "oa-sync"])
            let history = working.freshDatabase("history.sqlite")
            let simulator = try await children.startSimulator(history: history, sessions: 4, events: 200, timeout: .seconds(60))
            let mirror = working.freshDatabase("mirror.sqlite")
            let log = working.url.appending(path: "oa-sync.log")
            let sync = try children.start("oa-sync", ["--bridge", simulator.url, "--db", mirror, "--log-format", "json"], log: log, wrapper: wrap)
            print("# oa-soak-bench: \(minutes) min, \(rate) live updates/s to \(sessions) sessions with ending turns and 1 endless reply, a cut every \(cutSeconds) s (\(simulator.readyLine))\n")
            fflush(nil)
            let database = try await SoakWaits.untilLive(mirror: mirror, sync: sync, log: log, within: .seconds(wrap.isEmpty ? 60 : 600))
            let outcome = try await soak(sync: sync, log: log, url: simulator.url)
            let mirrored = try await SoakWaits.untilMirrored(outcome.sent, database: database, sync: sync, log: log,
                                                            within: .seconds(wrap.isEmpty ? 120 : 1800))
            guard let peak = ProcessMemory.peakResidentKiB(sync.processIdentifier) else {
                throw BenchmarkFailure("cannot read oa-sync's VmHWM from /proc/\(sync.processIdentifier)/status")
            }
            await children.stop(sync, grace: .seconds(wrap.isEmpty ? 5 : 120))
            if let samples { try outcome.timeline.write(to: URL(fileURLWithPath: samples)) }
            let report = SoakReport(timeline: outcome.timeline, sent: outcome.sent, mirrored: mirrored, peakKiB: peak,
                                    warmUp: .seconds(warmUpMinutes * 60), every: .seconds(reportMinutes * 60),
                                    maxSlope: maxSlopeMiBPerHour, maxPeakMiB: maxPeakMiB)
            report.print()
            guard report.passed else { throw ExitCode(1) }
        }
    }

    /// Sends for `minutes`, sampling oa-sync's memory meanwhile.
    private func soak(sync: Process, log: URL, url: String) async throws -> (sent: SentUpdates, timeline: MemoryTimeline) {
        let sender = LiveSender(url: url, rate: rate, endingSessions: sessions, cutEvery: cutSeconds > 0 ? .seconds(cutSeconds) : nil,
                                duration: .seconds(minutes * 60))
        let progress = SentSoFar()
        let pid = sync.processIdentifier
        let total = minutes
        let interval = Duration.seconds(sampleSeconds)
        return try await withThrowingTaskGroup(of: MemoryTimeline?.self) { group in
            group.addTask {
                var timeline = MemoryTimeline()
                let start = ContinuousClock.now
                var next = start
                while !Task.isCancelled {
                    // A process that ended (a zombie included) has no resident memory to read.
                    guard let anonymous = ProcessMemory.anonymousKiB(pid), let file = ProcessMemory.fileBackedKiB(pid),
                          let cpu = ProcessCPU.seconds(of: pid) else {
                        throw BenchmarkFailure("oa-sync ended during the soak. Its log:\n\(tail(of: log))")
                    }
                    let sent = progress.value.withLock { $0 }
                    let elapsed = ContinuousClock.now - start
                    timeline.append(.init(elapsed: elapsed, anonymousKiB: anonymous, fileBackedKiB: file, cpuSeconds: cpu, updatesSent: sent.count, cuts: sent.cuts))
                    FileHandle.standardError.write(Data(String(
                        format: "oa-soak-bench: %.1f of %.0f min, %d updates sent, %d cuts, RssAnon %.1f MiB, RssFile %.1f MiB\n",
                        elapsed.seconds / 60, total, sent.count, sent.cuts, Double(anonymous) / 1024, Double(file) / 1024).utf8))
                    next += interval
                    try? await Task.sleep(until: next, clock: .continuous)
                }
                return timeline
            }
            let sent = try await sender.run { sent in progress.value.withLock { $0 = sent } }
            group.cancelAll()
            var timeline = MemoryTimeline()
            for try await result in group { if let result { timeline = result } }
            return (sent, timeline)
        }
    }
}

/// What the sender has sent so far, for the sampler's progress lines.
final class SentSoFar: Sendable {
    let value = Mutex(SentUpdates())
}

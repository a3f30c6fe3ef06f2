import BenchOptions
import ArgumentParser
import Foundation
import ToolSupport

/// `oa-follow-bench`: how fast `oa-repl` shows what another process commits to the mirror, and
/// what it costs while nothing happens.
@main
struct FollowBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-follow-bench",
        abstract: "Measure oa-repl following the mirror live: commit → shown latency, idle CPU, a burst.",
        discussion: """
            Creates a mirror in a new directory, seeds --sessions sessions, and for each --mode starts \
            the real oa-repl (beside this binary, or --repl) as a follower: `follow SESSION --from now` \
            (session), `follow --from now` (all), or --jsonl with events.subscribe after now (jsonl). \
            Once it shows a probe event, this process commits --rate events/s for --seconds, each an \
            agent_message_chunk in a write transaction of its own whose text is a unique marker, and \
            a thread reads the follower's output as bytes and notes when each marker arrives: \
            latency = arrival − commit returned. Then it writes nothing for --idle-seconds and reads \
            the follower's CPU time from /proc/PID/stat; then commits --burst events as fast as it \
            can and times until the last is shown. The follower is stopped with SIGTERM (exit 0 expected).

            Exits 1 if an event was lost, p99 of a text follower is over 50 ms, a follower used over \
            1% of a core while idle, or did not exit 0; every wait is bounded and says what it waited for.

            Example: oa-follow-bench --seconds 10 --idle-seconds 10 --burst 10000
            """
    )

    @OptionGroup var workingDirectory: WorkingDirectoryOptions

    @Option(help: "The oa-repl to run (default: the one beside this executable).")
    var repl: String?

    @Option(name: .customLong("mode"), help: "Followers to measure, in order (session, all, jsonl; repeatable; default all three).")
    var modes: [FollowMode] = FollowMode.allCases

    @Option(help: "Events per second in the steady phase.")
    var rate = 1000

    @Option(help: "Length of the steady phase, in seconds.")
    var seconds = 10

    @Option(help: "Length of the idle window, in seconds.")
    var idleSeconds = 10

    @Option(help: "Events in the burst (0: none).")
    var burst = 10_000

    @Option(help: "Events per write transaction in the burst.")
    var burstBatch = 1

    @Option(help: "Sessions seeded (events of `all` and `jsonl` go to them in turn).")
    var sessions = 4

    @Option(help: "Events seeded into each session before the followers start.")
    var seedEvents = 10_000

    @Option(help: "Seconds a phase's events may take to be shown after its last commit (the burst: plus 1 s per 200 events).")
    var catchUpTimeout = 10


    @Flag(help: "Print the results as JSON rather than Markdown.")
    var json = false

    func validate() throws {
        guard (1...100_000).contains(rate) else { throw ValidationError("--rate must be 1…100,000") }
        guard (1...3600).contains(seconds) else { throw ValidationError("--seconds must be 1…3,600") }
        guard (1...3600).contains(idleSeconds) else { throw ValidationError("--idle-seconds must be 1…3,600") }
        guard (0...1_000_000).contains(burst) else { throw ValidationError("--burst must be 0…1,000,000") }
        guard (1...10_000).contains(burstBatch) else { throw ValidationError("--burst-batch must be 1…10,000") }
        guard (1...1000).contains(sessions) else { throw ValidationError("--sessions must be 1…1,000") }
        guard (0...1_000_000).contains(seedEvents) else { throw ValidationError("--seed-events must be 0…1,000,000") }
        guard catchUpTimeout >= 1 else { throw ValidationError("--catch-up-timeout must be at least 1") }
        guard !modes.isEmpty else { throw ValidationError("--mode: at least one") }
        guard rate * seconds <= 9_000_000 - burst else { throw ValidationError("at most 9,000,000 events per follower") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // a follower that died must not take the benchmark with it
        let executable = try repl ?? ProgramLinks.executable(
            "oa-repl", in: (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()).path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchmarkFailure("no oa-repl at \(executable): build it (swift build -c release --product oa) or pass --repl PATH")
        }
        let working = try workingDirectory.make(for: "oa-follow-bench")
        defer { working.removeIfTemporary() }
        let work = working.url
        let mirror = working.freshDatabase("mirror.sqlite")

        let writer = try MirrorWriter(path: mirror, sessions: sessions, eventsPerSession: seedEvents)
        let settings = PhaseSettings(
            rate: rate, steadyEvents: rate * seconds, idle: .seconds(idleSeconds), burstEvents: burst, burstBatch: burstBatch,
            catchUp: .seconds(catchUpTimeout), ready: .seconds(30)
        )
        var results: [ModeResult] = []
        for mode in modes {
            let phase = FollowPhase(mode: mode, settings: settings, writer: writer, repl: executable, work: work) { message in
                FileHandle.standardError.write(Data("oa-follow-bench: \(message)\n".utf8))
            }
            results.append(try phase.run())
        }
        let report = Report(repl: executable, sessions: sessions, seedEvents: seedEvents, results: results)
        if json { try report.printJSON() } else { report.printMarkdown() }
        guard report.failures.isEmpty else {
            if json { FileHandle.standardError.write(Data(report.failures.map { "oa-follow-bench: \($0)\n" }.joined().utf8)) }
            throw ExitCode(1)
        }
    }
}

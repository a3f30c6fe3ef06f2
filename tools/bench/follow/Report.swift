import Foundation

/// The benchmark's Markdown report and the targets it checks.
struct Report: Codable {
    /// The targets.
    static let maximumP99Milliseconds = 50.0
    static let maximumIdleCPUPercent = 1.0

    var date: String
    var repl: String
    var sessions: Int
    var seedEvents: Int
    var results: [ModeResult]
    /// Targets missed and events lost, one sentence each (empty: all met).
    var failures: [String]

    init(repl: String, sessions: Int, seedEvents: Int, results: [ModeResult]) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        date = formatter.string(from: Date())
        self.repl = repl
        self.sessions = sessions
        self.seedEvents = seedEvents
        self.results = results
        failures = results.flatMap(Self.failures)
    }

    /// What is wrong with one follower's result.
    private static func failures(of result: ModeResult) -> [String] {
        var failures: [String] = []
        let name = result.mode.rawValue
        if result.steady.lost > 0 { failures.append("\(name): \(result.steady.lost) of the steady phase's events were never shown") }
        if result.burst.lost > 0 { failures.append("\(name): \(result.burst.lost) of the burst's events were never shown") }
        if result.repeats > 0 { failures.append("\(name): \(result.repeats) markers were shown more than once") }
        if result.mode.hasLatencyTarget, let p99 = result.steady.latency?.p99, p99 > maximumP99Milliseconds {
            failures.append("\(name): p99 from commit to printed line is \(ms(p99)), over \(ms(maximumP99Milliseconds))")
        }
        if let idle = result.idle.cpuPercent, idle > maximumIdleCPUPercent {
            failures.append("\(name): idle CPU is \(pct(idle)) of a core, over \(pct(maximumIdleCPUPercent))")
        } else if result.idle.cpuPercent == nil {
            failures.append("\(name): the idle CPU could not be read from /proc")
        }
        if result.idle.bytesPrinted > 0 { failures.append("\(name): printed \(result.idle.bytesPrinted) bytes while nothing was written") }
        if result.exit != "exit 0" { failures.append("\(name): oa-repl ended with \(result.exit) on SIGTERM") }
        return failures
    }

    func printMarkdown() {
        guard let first = results.first else { return }
        let steady = first.steady
        let burst = first.burst
        print("""
            # oa-follow-bench, \(date)

            Each follower is its own `oa-repl`; the writer commits each event in a transaction of its own \
            (`appendEvents` of one event, a `WALCheckpointer` beside it, as oa-sync's live path); \(sessions) sessions seeded with \(seedEvents) events each. \
            Steady: \(steady.events) events at \(steady.rate)/s; idle: \(f(first.idle.seconds, 1)) s; \
            burst: \(burst.events) events in transactions of \(burst.eventsPerTransaction).

            | follower | p50 | p99 | max | lost | CPU while following | idle CPU | burst: shown all after | after the last commit | exit |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---|
            """)
        for result in results {
            let latency = result.steady.latency
            let cells = [
                result.mode.label,
                latency.map { ms($0.p50) } ?? "–", latency.map { ms($0.p99) } ?? "–", latency.map { ms($0.max) } ?? "–",
                String(result.steady.lost + result.burst.lost),
                result.steady.followerCPUPercent.map(pct) ?? "–",
                result.idle.cpuPercent.map(pct) ?? "–",
                result.burst.shownMilliseconds.map(ms) ?? "–",
                result.burst.lagMilliseconds.map(ms) ?? "–",
                result.exit,
            ]
            print("| " + cells.joined(separator: " | ") + " |")
        }
        print("")
        for result in results {
            print("- \(result.mode.rawValue): \(result.steady.over50Milliseconds) events over 50 ms, the slowest committed at "
                + "\(result.steady.slowestAtSecond.map { f($0, 2) + " s" } ?? "–"); writer kept \(f(result.steady.achievedRate, 0)) events/s (latest start \(ms(result.steady.maximumScheduleLag)) "
                + "behind plan); burst written in \(ms(result.burst.writerMilliseconds)); idle \(f(result.idle.cpuMilliseconds ?? .nan, 0)) ms CPU "
                + "and \(result.idle.contextSwitches.map(String.init) ?? "–") context switches in \(f(result.idle.seconds, 1)) s; CPU in the burst \(result.burst.followerCPUPercent.map(pct) ?? "–"); "
                + "peak RSS \(result.peakResidentKiB.map { f(Double($0) / 1024, 1) + " MiB" } ?? "–")")
        }
        print("")
        print(failures.isEmpty
              ? "Targets met: no event lost, p99 ≤ \(ms(Self.maximumP99Milliseconds)) (text), idle CPU ≤ \(pct(Self.maximumIdleCPUPercent)), exit 0 on SIGTERM."
              : "MISSED:\n" + failures.map { "- " + $0 }.joined(separator: "\n"))
    }

    func printJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(self), as: UTF8.self))
    }
}

private func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
private func ms(_ value: Double) -> String { f(value, value < 10 ? 2 : 1) + " ms" }
private func pct(_ value: Double) -> String { f(value, 2) + "%" }

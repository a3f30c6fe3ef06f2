import BenchOptions
import ArgumentParser
import Bridge
import Foundation
import ToolSupport

/// Measures paging `tinyvex/history.changes` through the client over loopback, decoding included.
@main
struct BridgeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-bridge-bench",
        abstract: "Page a simulator's whole history through the bridge client and report events/s.",
        discussion: """
            Starts oa-bridge-sim (from the same build directory) in cursor flavour on a free port of 127.0.0.1 with a synthetic history (seeded once into --db, reused after), then pages tinyvex/history.changes from 0 to the end, reading every update's kind and text.

            Example: oa-bridge-bench --events 1000000 --sessions 1000 --db /tmp/bench-history.sqlite
            """
    )



    @OptionGroup var synthetic: SyntheticHistoryOptions

    @Option(help: "Events per history.changes page (1…5000).")
    var pageSize = 5000

    @Option(help: "The simulator's history file (seeded when new).")
    var db: String

    @Option(help: "Times to page the whole history (the best run is reported too).")
    var runs = 3

    func run() async throws {
        let seedStart = ContinuousClock.now
        let simulator = try await SimulatorLauncher.start(
            executable: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", db, "--sessions", String(synthetic.sessions), "--events", String(synthetic.events)],
            timeout: .seconds(600)
        )
        defer { simulator.process.terminate() }
        print("simulator ready after \(formatted(ContinuousClock.now - seedStart)) s: \(simulator.readyLine)")

        try await BridgeClient.withConnection(to: simulator.url, options: BridgeClientOptions().discardingNotifications) { client in
            var rates: [Double] = []
            for run in 1...runs {
                var since: Int64 = 0
                var count = 0
                var bytes = 0
                var textBytes = 0
                let start = ContinuousClock.now
                while true {
                    let page = try await client.historyChanges(since: since, limit: pageSize, timeout: .seconds(60))
                    for change in page.items {
                        let summary = change.update.summary
                        textBytes += summary.text.utf8.count + summary.tag.utf8.count
                        bytes += change.update.rawBytes.count
                    }
                    count += page.items.count
                    since = page.next
                    if !page.hasMore { break }
                }
                let seconds = (ContinuousClock.now - start) / .seconds(1)
                rates.append(Double(count) / seconds)
                print("run \(run): \(count) events in \(formatted(seconds)) s = \(Int(Double(count) / seconds)) events/s, "
                      + "\(formatted(Double(bytes) / 1_048_576 / seconds)) MiB/s of update JSON (\(textBytes) bytes of text read)")
            }
            print("best: \(Int(rates.max() ?? 0)) events/s; median: \(Int(rates.sorted()[rates.count / 2])) events/s")
        }
    }

    private func formatted(_ duration: Duration) -> String { formatted(duration / .seconds(1)) }

    private func formatted(_ value: Double) -> String { String(format: "%.2f", value) }
}

import BenchOptions
import ArgumentParser
import Foundation
import MirrorStore
import ToolSupport

/// Measures the mirror store against the sqlite3 shell on a synthetic history.
struct StoreBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-store-bench",
        abstract: "Ingest a synthetic history through the mirror store and the sqlite3 shell, then time queries.",
        discussion: """
            Builds the same deterministic history twice: once through MirrorStore.appendEvents (one transaction per page, with the history cursor), once as SQL that the sqlite3 shell runs in one transaction, full-text index fed per page as the store does. Then times the queries the REPL needs on the store's mirror. Prints a Markdown report.

            Example: oa-store-bench --events 1000000 --sessions 1000
            """
    )



    @OptionGroup var synthetic: SyntheticHistoryOptions

    @OptionGroup var workingDirectory: WorkingDirectoryOptions

    @Option(help: "Events per appendEvents call and transaction (5,000 is the most one history.changes page holds).")
    var pageSize = 5000


    @Flag(help: "Skip the sqlite3 shell comparison.")
    var skipShell = false

    @Flag(help: "Append all pages inside one transaction, as the shell does (default: one per page).")
    var oneTransaction = false

    @Flag(help: "Stream each session's turns as a model does (thinking and replies in pieces of 2–12 characters cut anywhere) instead of events of about 150 bytes.")
    var streamed = false

    func run() throws {
        let work = try workingDirectory.make(for: "oa-store-bench")
        defer { work.removeIfTemporary() }
        let workDirectory = work.url
        let mirrorPath = work.freshDatabase("mirror.sqlite")

        report("# oa-store-bench: \(synthetic.events) events, \(synthetic.sessions) sessions, pages of \(pageSize)")
        let storeTime = try ingestThroughStore(path: mirrorPath)
        report("| ingest | seconds | events/s |\n|---|---:|---:|")
        report("| MirrorStore.appendEvents (with FTS) | \(formatted(storeTime.seconds)) | \(rate(storeTime)) |")

        if !skipShell {
            let shell = ShellIngest(directory: workDirectory, events: synthetic.events, sessions: synthetic.sessions, pageSize: pageSize,
                                    streamed: streamed)
            let script = try shell.writeScript()
            let withFTS = try shell.run(script: script, migrations: Migration.all, name: "shell-fts.sqlite")
            report("| sqlite3 shell, one transaction (with FTS) | \(formatted(withFTS.seconds)) | \(rate(withFTS)) |")
            report("\nstore / shell with FTS: \(formatted(storeTime.seconds / withFTS.seconds))×")
        }

        try measureQueries(path: mirrorPath)
        report("\npeak RSS of this process: \(formatted(peakResidentMiB(), 1)) MiB")
    }

    private func ingestThroughStore(path: String) throws -> Duration {
        let store = try MirrorStore(path: path)
        let historyKey = try store.createHistory(identity: .bridge, historyID: "store-bench", desktop: "bench", bridgeURL: nil).key
        var history = SyntheticEvents(count: synthetic.events, sessions: synthetic.sessions, streamed: streamed)
        var elapsed = Duration.zero
        let clock = ContinuousClock()
        var done = 0
        let ingest = {
            while !history.isExhausted {
                let page = history.nextPage(size: pageSize)
                elapsed += try clock.measure {
                    try store.appendEvents(page, history: historyKey, advancingHistoryCursorTo: page.last?.seq)
                }
                done += page.count
                if done % 100_000 < pageSize {
                    progress("store: \(done)/\(synthetic.events) events, \(rate(elapsed, done)) events/s")
                }
            }
        }
        if oneTransaction {
            let start = ContinuousClock.now
            try store.write(ingest)
            try store.catchUpStreamingEntries()
            return ContinuousClock.now - start
        }
        try ingest()
        // What a run does when it ends: the rows of messages left open, lagging, are written.
        elapsed += try clock.measure { try store.catchUpStreamingEntries() }
        return elapsed
    }

    private func measureQueries(path: String) throws {
        let store = try MirrorStore(path: path, mode: .readOnly)
        let sessionsList = LatencySample.measure(iterations: 1000) { _ = try? store.sessions(limit: 50) }

        let busiest = try store.sessions().sorted { abs($0.localEventCount - 10_000) < abs($1.localEventCount - 10_000) }
        let tenThousand = try require(busiest.first)
        let coldRead = LatencySample.measure(iterations: 1) {
            _ = try? store.timeline(sessionID: tenThousand.sessionID)
        }
        let timelineRead = LatencySample.measure(iterations: 50) {
            _ = try? store.timeline(sessionID: tenThousand.sessionID)
        }

        var random = SplitMix64(seed: 7)
        let queries = (0..<300).map { index -> String in
            let first = SyntheticEvents.words.randomElement(using: &random) ?? "parser"
            let second = SyntheticEvents.words.randomElement(using: &random) ?? "token"
            return index % 3 == 0 ? "\(first) \(second)" : index % 3 == 1 ? first : String(first.prefix(3)) + "*"
        }
        var queryIndex = 0
        let search = LatencySample.measure(iterations: queries.count) {
            _ = try? store.search(queries[queryIndex % queries.count], limit: 20)
            queryIndex += 1
        }

        report("\n| query | p50 ms | p99 ms | target |\n|---|---:|---:|---|")
        report("| 50 most recent sessions (1,000 runs) | \(ms(sessionsList, 50)) | \(ms(sessionsList, 99)) | p99 ≤ 5 ms |")
        report("| timeline of \(tenThousand.localEventCount) events, first read | \(ms(coldRead, 50)) | \(ms(coldRead, 99)) | |")
        report("| timeline of \(tenThousand.localEventCount) events (50 more runs) | \(ms(timelineRead, 50)) | \(ms(timelineRead, 99)) | ≤ 20 ms |")
        report("| FTS search, first 20 hits (300 queries) | \(ms(search, 50)) | \(ms(search, 99)) | p99 ≤ 20 ms |")
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
        report("\nmirror file: \(formatted(bytes / 1_048_576, 1)) MiB")
    }

    private func rate(_ duration: Duration, _ count: Int? = nil) -> String {
        String(Int(Double(count ?? synthetic.events) / max(duration.seconds, 1e-9)))
    }

    private func ms(_ sample: LatencySample, _ percentile: Double) -> String {
        formatted(sample.percentile(percentile).seconds * 1000)
    }

    private func report(_ line: String) {
        print(line)
    }

    private func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// `#require` for the benchmark: unwraps or fails with a message.
private func `require`<T>(_ value: T?) throws -> T {
    guard let value else { throw BenchmarkError("the mirror holds no sessions") }
    return value
}

StoreBenchmark.main()

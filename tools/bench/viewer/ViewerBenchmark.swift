import ArgumentParser
import Foundation
import MirrorStore
import ToolSupport

/// `oa-viewer-bench`: times the web viewer (`oa-repl serve`) as a browser uses it, over loopback.
@main
struct ViewerBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-viewer-bench",
        abstract: "Time oa-repl serve's pages, search and live updates over loopback, and its peak memory with many live pages.",
        discussion: """
            Starts the oa-repl beside this binary as `oa-repl serve --port 0` on --mirror and times, \
            each --requests times after one: an empty answer (/favicon.ico: the baseline of the same \
            run), the sessions page, a later page of it, search round trips with words from the \
            mirror. With --long-mirror (written first when missing: one session of --long-events \
            events, about a gigabyte), the first screen of that session. Then --clients pages \
            follow a session live while a burst of commits is written: each commit's latency to \
            each page (commit to its text fetched, as the page's script fetches it), and the \
            server's peak RSS. Prints a Markdown report.

            Example (10,000 sessions, 1M events; a 100,000-event session of about 1 GB):
              oa-store-bench --events 1000000 --sessions 10000 --skip-shell --directory /tmp/viewer
              oa-viewer-bench --mirror /tmp/viewer/mirror.sqlite --long-mirror /tmp/viewer/long.sqlite
            """
    )

    @Option(help: "The mirror to serve (written to by the live burst).")
    var mirror: String

    @Option(help: "A mirror holding one very long session; written first when missing.")
    var longMirror: String?

    @Option(help: "Events of the long session when it is written.")
    var longEvents = 100_000

    @Option(help: "Timed requests of each kind.")
    var requests = 200

    @Option(help: "Pages following a session live during the burst.")
    var clients = 50

    @Option(help: "Commits of the burst (one streamed piece each, 20 ms apart).")
    var commits = 100

    func run() throws {
        // The log a run before left (its burst's commits): oa-sync, writing beside a viewer,
        // copies it into the file as it goes, but the read-only viewer cannot, and a reader looks
        // through every page of a long log (half a search's time with the last run's 60 MB).
        try MirrorStore(path: mirror).checkpoint()
        let store = try MirrorStore(path: mirror, mode: .readOnly)
        let sessions = try store.sessions()
        let events = sessions.reduce(0) { $0 + $1.localEventCount }
        let words = try Self.sampleWords(store)
        guard let followed = sessions.first, !words.isEmpty else { throw BenchmarkFailure("the mirror holds no sessions, or no words") }
        print("# oa-viewer-bench: \(sessions.count) sessions, \(events) events; \(requests) requests each after one\n")
        let viewer = try ServedViewer(mirror: mirror)
        defer { viewer.stop() }
        let probe = HTTPProbe(port: viewer.port)
        print("| request | p50 | p99 | max | p50 / baseline | answer |")
        print("|---|---:|---:|---:|---:|---:|")
        let baseline = try time("`/favicon.ico` (baseline: an empty answer)", probe, baseline: nil) { _ in "/favicon.ico" }
        _ = try time("`/`: the sessions page (100 of \(sessions.count))", probe, baseline: baseline) { _ in "/" }
        _ = try time("`/?page=50`", probe, baseline: baseline) { _ in "/?page=50" }
        _ = try time("`/search?q=…`: one or two words of the mirror", probe, baseline: baseline) { index in
            let first = words[index % words.count], second = words[(index * 7 + 3) % words.count]
            return "/search?q=" + (index % 2 == 0 ? first : "\(first)+\(second)")
        }
        if let longMirror {
            if !FileManager.default.fileExists(atPath: longMirror) {
                let start = ContinuousClock.now
                let bytes = try LongSession.write(path: longMirror, events: longEvents)
                print("\n(wrote the long session: \(longEvents) events, \(bytes >> 20) MiB of text, in \(Int((ContinuousClock.now - start).seconds)) s)\n")
            }
            let long = try ServedViewer(mirror: longMirror)
            defer { long.stop() }
            let longProbe = HTTPProbe(port: long.port)
            let count = try MirrorStore(path: longMirror, mode: .readOnly).session(id: LongSession.sessionID)?.localEventCount ?? 0
            let size = (try FileManager.default.attributesOfItem(atPath: longMirror)[.size] as? Int ?? 0) >> 20
            _ = try time("first screen of a \(count)-event session (mirror of \(size) MiB)", longProbe, baseline: baseline) { _ in
                "/sessions/\(LongSession.sessionID)"
            }
            let (_, page) = try longProbe.get("/sessions/\(LongSession.sessionID)")
            print("\nIts first screen: \(page.utf8.count >> 10) KiB, \(page.matches(of: /<[a-z]/).count) elements.")
        }
        let live = LiveClients(port: viewer.port, sessionID: followed.sessionID)
        let (latencies, missed) = try live.run(clients: clients, commits: commits, interval: .milliseconds(20), mirror: mirror)
        let spread = Percentiles(latencies)
        print("\nLive: \(clients) pages following one session, a burst of \(commits) commits 20 ms apart: commit to its text in each page " +
              String(format: "p50 %.0f ms, p95 %.0f ms, p99 %.0f ms, max %.0f ms", spread.p50, spread.p95, spread.p99, spread.max) +
              "; \(missed) of \(clients * commits) not seen within 10 s.")
        print(String(format: "\nThe server's peak RSS (VmHWM): %.0f MiB.", viewer.peakResidentMiB))
    }

    /// Times `requests` GETs of `path(index)` after one; prints the row; returns the p50.
    private func time(_ label: String, _ probe: HTTPProbe, baseline: Double?, path: (Int) -> String) throws -> Double {
        _ = try probe.get(path(0))
        var times: [Double] = []
        var bytes = 0
        for index in 0..<requests {
            let (milliseconds, answer) = try probe.get(path(index + 1))
            times.append(milliseconds)
            bytes += answer.utf8.count
        }
        let spread = Percentiles(times)
        let ratio = baseline.map { String(format: "%.1f×", spread.p50 / $0) } ?? "1×"
        print("| \(label) | " + String(format: "%.2f ms | %.2f ms | %.2f ms | ", spread.p50, spread.p99, spread.max) +
              "\(ratio) | \((bytes / requests) >> 10) KiB |")
        return spread.p50
    }

    /// Words of the mirror's events, for queries that find something.
    private static func sampleWords(_ store: MirrorStore) throws -> [String] {
        let highest = try store.database.scalarInt64("SELECT max(event_id) FROM events") ?? 0
        guard highest > 0 else { return [] }
        var random = SplitMix64(seed: 11)
        var words: [String] = []
        for _ in 0..<200 {
            guard let event = try store.event(id: Int64.random(in: 1...highest, using: &random)) else { continue }
            words += event.text.split { !$0.isLetter }.map { $0.lowercased() }.filter { $0.count >= 4 }.prefix(2)
        }
        return words
    }
}

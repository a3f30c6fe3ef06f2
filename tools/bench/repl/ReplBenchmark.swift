import ArgumentParser
import Foundation
import MirrorStore
import ToolSupport

/// `oa-repl-bench`: times whole `oa-repl` processes, start to exit, on a big mirror.
@main
struct ReplBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oa-repl-bench",
        abstract: "Time oa-repl processes, start to exit, on a mirror: sessions, show and export; then search, with and without filters.",
        discussion: """
            Runs the oa-repl beside this binary with -c, as a person or a script would, output to \
            /dev/null (the export to a file): `sessions`; `show` of the session whose event count is \
            nearest --show-events; `export` of the largest session; `search` of a word with \
            --session. Each command runs once to warm the page cache, then --runs times; prints a \
            Markdown table of p50, p99 and max wall times and the largest peak RSS. Then times the \
            store's search in this process, --search-queries queries (words taken from the mirror) \
            per filter: none, --session, --kind, --since, --until, and all at once. Then times MCP \
            tool calls on one `oa-repl --mcp`: search_sessions, read_session.

            Example (a 1M-event mirror with a 10,087- and a 50,435-event session):
              oa-store-bench --directory /tmp/big --skip-shell
              oa-repl-bench --mirror /tmp/big/mirror.sqlite
            """
    )

    @Option(help: "The mirror to read.")
    var mirror: String

    @Option(help: "Timed runs of each command.")
    var runs = 30

    @Option(help: "Show the session whose event count is nearest this.")
    var showEvents: Int64 = 10_000

    @Option(help: "Searches timed in this process per filter.")
    var searchQueries = 300

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard searchQueries >= 1 else { throw ValidationError("--search-queries must be at least 1") }
    }

    func run() throws {
        // Only the sessions table: this process's memory is counted in each child's peak RSS
        // until the child's exec (posix_spawn shares it), so it must stay small.
        let sessions = try MirrorStore(path: mirror, mode: .readOnly).sessions()
        guard let largest = sessions.max(by: { $0.localEventCount < $1.localEventCount }),
              let nearest = sessions.min(by: { abs($0.localEventCount - showEvents) < abs($1.localEventCount - showEvents) })
        else { throw BenchmarkFailure("the mirror holds no sessions") }

        let export = FileManager.default.temporaryDirectory.appending(path: "oa-repl-bench-\(getpid()).md").path
        defer { try? FileManager.default.removeItem(atPath: export) }
        let cases: [(label: String, command: String)] = [
            ("`oa-repl -c sessions`", "sessions"),
            ("`oa-repl -c 'show …'`, \(nearest.localEventCount) events", "show \(nearest.sessionID)"),
            ("`oa-repl -c 'export … FILE --force'`, \(largest.localEventCount) events", "export \(largest.sessionID) \(export) --force"),
            ("`oa-repl -c 'search … --session …'`, \(nearest.localEventCount) events", "search mirror --session \(nearest.sessionID)"),
        ]
        print("Mirror: \(sessions.reduce(0) { $0 + $1.localEventCount }) events in \(sessions.count) sessions; \(runs) runs each after one warm-up.\n")
        print("| command | p50 | p99 | max | peak RSS |")
        print("|---|---:|---:|---:|---:|")
        for (label, command) in cases {
            _ = try runRepl(command)
            var times: [Double] = []
            var peak = 0.0
            for _ in 0..<runs {
                let (seconds, rss) = try runRepl(command)
                times.append(seconds * 1000)
                peak = max(peak, rss)
            }
            times.sort()
            func at(_ p: Double) -> String { String(format: "%.1f ms", times[min(times.count - 1, Int(p / 100 * Double(times.count)))]) }
            print("| \(label) | \(at(50)) | \(at(99)) | \(String(format: "%.1f ms", times.last ?? .nan)) | \(String(format: "%.0f MiB", peak)) |")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: export)[.size] as? Int) ?? 0
        print("\nThe export is \(size / 1024) KiB of Markdown.")

        print("\n`MirrorStore.search`, first 20 hits, in this process (\(searchQueries) queries each, after one):\n")
        print("| filter | p50 | p99 | hits per query |")
        print("|---|---:|---:|---:|")
        for row in try SearchLatency(mirror: mirror, queries: searchQueries).measure() {
            print("| \(row.label) | " + String(format: "%.2f ms | %.2f ms | %.1f |", row.p50, row.p99, row.meanHits))
        }

        print("\nThe query language's forms, the same way:\n")
        print("| query | p50 | p99 | hits per query |")
        print("|---|---:|---:|---:|")
        for row in try SearchLatency(mirror: mirror, queries: searchQueries).measureForms() {
            print("| \(row.label) | " + String(format: "%.2f ms | %.2f ms | %.1f |", row.p50, row.p99, row.meanHits))
        }

        let words = try SearchLatency.sampleWords(try MirrorStore(path: mirror, mode: .readOnly))
        let repl = try ProgramLinks.executable("oa-repl", in: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()).path
        print("\nMCP tool calls on one `oa-repl --mcp`, request written to answer read (\(searchQueries) calls each, after one):\n")
        print("| call | p50 | p99 | answer |")
        print("|---|---:|---:|---:|")
        for row in try MCPLatency(repl: repl, mirror: mirror, calls: searchQueries, words: words).measure(long: nearest, longest: largest) {
            print("| \(row.label) | " + String(format: "%.2f ms | %.2f ms | %.1f KiB |", row.p50, row.p99, row.meanBytes / 1024))
        }
    }

    /// Runs `oa-repl --db MIRROR -c COMMAND` to its end, output to /dev/null; its wall time and
    /// peak RSS in MiB.
    ///
    /// Spawned and reaped directly: Foundation's `Process.waitUntilExit` polls every 50 ms, which
    /// would round every time up to the next 50 ms.
    private func runRepl(_ command: String) throws -> (seconds: Double, peakRSSMiB: Double) {
        let executable = try ProgramLinks.executable("oa-repl", in: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()).path
        let arguments = [executable, "--db", mirror, "-c", command]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkFailure("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure("wait4: \(String(cString: strerror(errno)))") }
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard status == 0 else { throw BenchmarkFailure("oa-repl -c '\(command)' ended with status \(status)") }
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }
}

import Bridge
import Foundation
import MirrorStore
import ToolSupport

/// oa-sync, running in the background, with JSON log lines to read, for the length of a scope
/// (`ToolPaths.withSync`).
final class RunningSync {
    private let end: ProcessEnd
    private let log: OutputLineReader

    init(end: ProcessEnd, log: OutputLineReader) {
        self.end = end
        self.log = log
    }

    /// Reads log lines until one satisfies `predicate`, sleeping the task (not a thread) while
    /// none is there; fails when oa-sync exits first or no such line came within `timeout`.
    @discardableResult
    func waitFor(timeout: Duration = .seconds(120), _ predicate: (JSONValue) -> Bool) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try await log.nextLine(before: deadline, program: "oa-sync") { !end.hasEnded }
            if let json = try? JSONParser.parse(Array(line.utf8)), predicate(json) { return json }
        }
    }

    /// SIGTERM; SIGKILL when it has not exited 30 s later.
    func stop() async {
        _ = try? await end.stop(within: .seconds(30), program: "oa-sync")
    }
}

/// The binaries beside this one, and how to run them.
struct ToolPaths {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    func startSimulator(history: String, sessions: Int, events: Int, shape: String = "uniform",
                        offersMaxBytes: Bool = true) async throws -> SimulatorLauncher.Started {
        try await SimulatorLauncher.start(
            executable: directory.appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", history, "--sessions", String(sessions), "--events", String(events),
                        "--shape", shape, offersMaxBytes ? "--max-bytes" : "--no-max-bytes"],
            // Seeding a million events takes a while; a simulator that never gets ready is an error.
            timeout: .seconds(600)
        )
    }

    /// Runs oa-sync to the end (at most `timeout`); returns its wall time, CPU time (user and
    /// system, on all its threads) and peak RSS.
    func runSync(_ arguments: [String], timeout: Duration = .seconds(3600)) async throws -> (seconds: Double, cpuSeconds: Double, peakRSSMiB: Double) {
        let process = Process()
        process.executableURL = try ProgramLinks.executable("oa-sync", in: directory)
        process.arguments = arguments
        let start = ContinuousClock.now
        let end = try ProcessEnd(running: process)
        guard let status = await end.status(within: timeout) else {
            await end.kill()
            throw BenchmarkFailure("oa-sync did not end within \(timeout)")
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard status == 0 else { throw BenchmarkFailure("oa-sync exited with \(status)") }
        // oa-sync is the only child waited for (the simulator still runs).
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let cpu = [usage.ru_utime, usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1_000_000 }
        return (seconds, cpu, Double(usage.ru_maxrss) / 1024)
    }

    /// Runs `body` with oa-sync started with `arguments` (its standard error read as log lines),
    /// and stops oa-sync when `body` returns or throws.
    func withSync<T>(_ arguments: [String], _ body: (RunningSync) async throws -> T) async throws -> T {
        let process = Process()
        process.executableURL = try ProgramLinks.executable("oa-sync", in: directory)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        let end = try ProcessEnd(running: process)
        let sync = RunningSync(end: end, log: OutputLineReader(descriptor: dup(errors.fileHandleForReading.fileDescriptor)))
        do {
            let result = try await body(sync)
            await sync.stop()
            return result
        } catch {
            await sync.stop()
            throw error
        }
    }

    /// SQLite's own time to store the mirror's events (`sqlite-baseline.py`, beside this tool's
    /// sources): a plain rowid table filled by Python's `executemany`, then the mirror's entries'
    /// texts into a contentless FTS5 index.
    func sqliteBaseline(mirror: String, into copy: String, timeout: Duration = .seconds(3600)) async throws -> Double {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "sqlite-baseline.py")
        let outcome = try await ProgramRun.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, mirror, copy], timeout: timeout)
        let text = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard outcome.status == 0, let seconds = Double(text) else {
            throw BenchmarkFailure("sqlite-baseline.py failed (status \(outcome.status)): \(text) \(outcome.standardError)")
        }
        return seconds
    }
}

import Bridge
import Foundation
import MirrorStore
import ToolSupport

/// oa-sync, running in the background, with JSON log lines to read.
final class RunningSync {
    let process: Process
    private let errors: Pipe
    private var buffer = Data()

    init(process: Process, errors: Pipe) {
        self.process = process
        self.errors = errors
    }

    /// Reads log lines until one satisfies `predicate`; fails when oa-sync exits first or no such
    /// line came within `timeout`.
    @discardableResult
    func waitFor(timeout: Duration = .seconds(120), _ predicate: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[buffer.startIndex..<newline])
                buffer.removeSubrange(buffer.startIndex...newline)
                if let json = try? JSONParser.parse(line), predicate(json) { return json }
                continue
            }
            var ready = pollfd(fd: errors.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let left = Int32(clamping: (deadline - ContinuousClock.now).milliseconds)
            guard left > 0, poll(&ready, 1, left) > 0 else {
                throw BenchmarkFailure("oa-sync did not log the awaited line within \(timeout)")
            }
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkFailure("oa-sync exited") }
            buffer.append(chunk)
        }
    }

    /// SIGTERM; SIGKILL when it has not exited 30 s later.
    func stop() {
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// The binaries beside this one, and how to run them.
struct ToolPaths {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    func startSimulator(history: String, sessions: Int, events: Int, shape: String = "uniform") async throws -> SimulatorLauncher.Started {
        try await SimulatorLauncher.start(
            executable: directory.appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", history, "--sessions", String(sessions), "--events", String(events),
                        "--shape", shape],
            // Seeding a million events takes a while; a simulator that never gets ready is an error.
            timeout: .seconds(600)
        )
    }

    /// Runs oa-sync to the end; returns its wall time and peak RSS.
    func runSync(_ arguments: [String]) throws -> (seconds: Double, peakRSSMiB: Double) {
        let process = Process()
        process.executableURL = try ProgramLinks.executable("oa-sync", in: directory)
        process.arguments = arguments
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        guard process.terminationStatus == 0 else { throw BenchmarkFailure("oa-sync exited with \(process.terminationStatus)") }
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return (seconds, Double(usage.ru_maxrss) / 1024)
    }

    func startSync(_ arguments: [String]) throws -> RunningSync {
        let process = Process()
        process.executableURL = try ProgramLinks.executable("oa-sync", in: directory)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        return RunningSync(process: process, errors: errors)
    }

    /// SQLite's own time to store the mirror's events (`sqlite-baseline.py`, beside this tool's
    /// sources): a plain rowid table filled by Python's `executemany`, then an FTS5 `'rebuild'`.
    func sqliteBaseline(mirror: String, into copy: String) throws -> Double {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "sqlite-baseline.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, mirror, copy]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let seconds = Double(text) else {
            throw BenchmarkFailure("sqlite-baseline.py failed (status \(process.terminationStatus)): \(text)")
        }
        return seconds
    }
}

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

    /// Reads log lines until one satisfies `predicate`.
    @discardableResult
    func waitFor(_ predicate: (JSONValue) -> Bool) throws -> JSONValue {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[buffer.startIndex..<newline])
                buffer.removeSubrange(buffer.startIndex...newline)
                if let json = try? JSONParser.parse(line), predicate(json) { return json }
                continue
            }
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkFailure("oa-sync exited") }
            buffer.append(chunk)
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// The binaries beside this one, and how to run them.
struct ToolPaths {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    func startSimulator(history: String, sessions: Int, events: Int) throws -> SimulatorLauncher.Started {
        try SimulatorLauncher.start(
            executable: directory.appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", history, "--sessions", String(sessions), "--events", String(events)]
        )
    }

    /// Runs oa-sync to the end; returns its wall time and peak RSS.
    func runSync(_ arguments: [String]) throws -> (seconds: Double, peakRSSMiB: Double) {
        let process = Process()
        process.executableURL = directory.appending(path: "oa-sync")
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
        process.executableURL = directory.appending(path: "oa-sync")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        return RunningSync(process: process, errors: errors)
    }

    /// Times the sqlite3 shell copying the mirror's events into an empty mirror in one transaction.
    func shellCopy(from mirror: String, into copy: String, withSearch: Bool) throws -> Double {
        try? FileManager.default.removeItem(atPath: copy)
        let schema = Migration.all.filter { withSearch || !$0.name.contains("search") }.map(\.sql).joined(separator: "\n")
        try shell(copy, "PRAGMA journal_mode = WAL;\n" + schema)
        let script = """
            PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY;
            ATTACH '\(mirror)' AS source;
            BEGIN;
            INSERT INTO sessions SELECT * FROM source.sessions;
            INSERT INTO events SELECT * FROM source.events;
            INSERT INTO sync_cursors SELECT * FROM source.sync_cursors;
            COMMIT;
            """
        let start = ContinuousClock.now
        try shell(copy, script)
        return (ContinuousClock.now - start).seconds
    }

    private func shell(_ database: String, _ input: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-bail", database]
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        pipe.fileHandleForWriting.write(Data(input.utf8))
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkFailure("sqlite3 failed on \(database)") }
    }
}

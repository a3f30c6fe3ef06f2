import Foundation
import ToolSupport

/// The programs this benchmark starts, so that every one is stopped on every way out.
final class Children {
    /// The directory of this executable, where oa-bridge-sim and oa-sync are too.
    let directory: URL
    private var running: [Process] = []

    init() {
        directory = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
    }

    /// Fails with a clear message unless `names` are built beside this executable.
    func requireTools(_ names: [String]) throws {
        for name in names {
            let product = ProgramLinks.names.contains(name) ? "oa" : name
            guard FileManager.default.isExecutableFile(atPath: try ProgramLinks.executable(name, in: directory).path) else {
                throw BenchmarkFailure("\(name) is not in \(directory.path): build it (swift build --product \(product)) with the same configuration")
            }
        }
    }

    /// Starts oa-bridge-sim (cursor flavour, a free port) on `history`; waits at most `timeout` for it.
    func startSimulator(history: String, sessions: Int, events: Int, timeout: Duration) async throws -> SimulatorLauncher.Started {
        let started = try await SimulatorLauncher.start(
            executable: directory.appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", history, "--sessions", String(sessions), "--events", String(events)],
            timeout: timeout
        )
        running.append(started.process)
        return started
    }

    /// Starts `name` from this directory with its standard output and error written to `log`
    /// (a new file).
    func start(_ name: String, _ arguments: [String], log: URL) throws -> Process {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw BenchmarkFailure("cannot create \(log.path)")
        }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = directory.appending(path: name)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        running.append(process)
        return process
    }

    /// Stops a child: SIGTERM, then SIGKILL if it has not exited within `grace` (its state looked
    /// at every 10 ms, the task sleeping in between).
    func stop(_ process: Process, grace: Duration = .seconds(5)) async {
        running.removeAll { $0 === process }
        guard process.isRunning else { return }
        process.terminate()
        let end = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Stops every child still running, newest first.
    func stopAll() async {
        for process in running.reversed() { await stop(process) }
    }

    /// Runs `body` with a new set of children, every one stopped when `body` returns or throws.
    static func within<T>(_ body: (Children) async throws -> T) async throws -> T {
        let children = Children()
        do {
            let result = try await body(children)
            await children.stopAll()
            return result
        } catch {
            await children.stopAll()
            throw error
        }
    }
}

/// A process's memory, from /proc/PID/status (Linux).
enum ProcessMemory {
    /// Resident set size now, in KiB (nil once the process is gone).
    static func residentKiB(_ pid: Int32) -> Int? { field("VmRSS", of: pid) }

    /// The highest resident set size so far, in KiB.
    static func peakResidentKiB(_ pid: Int32) -> Int? { field("VmHWM", of: pid) }

    private static func field(_ name: String, of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}

/// The last lines of a log file, for failure messages.
func tail(of log: URL, lines: Int = 15) -> String {
    guard let text = try? String(contentsOf: log, encoding: .utf8) else { return "(no log)" }
    return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
}

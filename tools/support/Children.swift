import Foundation

/// The programs a benchmark starts, so that every one is stopped on every way out.
///
/// Used by one task at a time (the benchmark's own, which `within` hands it to): not `Sendable`.
public final class Children {
    /// The directory of this executable, where oa-bridge-sim and oa-sync are too.
    public let directory: URL
    private var running: [Process] = []

    public init() {
        directory = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
    }

    /// Fails with a clear message unless `names` are built beside this executable.
    public func requireTools(_ names: [String]) throws {
        for name in names {
            let product = ProgramLinks.names.contains(name) ? "oa" : name
            guard FileManager.default.isExecutableFile(atPath: try ProgramLinks.executable(name, in: directory).path) else {
                throw BenchmarkFailure("\(name) is not in \(directory.path): build it (swift build --product \(product)) with the same configuration")
            }
        }
    }

    /// Starts oa-bridge-sim (cursor flavour, a free port) on `history`; waits at most `timeout` for it.
    public func startSimulator(history: String, sessions: Int, events: Int, timeout: Duration, extraArguments: [String] = []) async throws -> SimulatorLauncher.Started {
        let started = try await SimulatorLauncher.start(
            executable: directory.appending(path: "oa-bridge-sim"),
            arguments: ["--flavor", "cursor", "--port", "0", "--db", history, "--sessions", String(sessions), "--events", String(events)] + extraArguments,
            timeout: timeout
        )
        running.append(started.process)
        return started
    }

    /// Starts `name` from this directory with its standard output and error written to `log`
    /// (a new file); under `wrapper` when given (a command and its arguments, such as
    /// `valgrind --tool=massif`, found on the PATH), which is handed the program's path first.
    public func start(_ name: String, _ arguments: [String], log: URL, wrapper: [String] = []) throws -> Process {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw BenchmarkFailure("cannot create \(log.path)")
        }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        let program = directory.appending(path: name)
        if wrapper.isEmpty {
            process.executableURL = program
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = wrapper + [program.path] + arguments
        }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        running.append(process)
        return process
    }

    /// Stops a child: SIGTERM, then SIGKILL if it has not exited within `grace` (its state looked
    /// at every 10 ms, the task sleeping in between).
    public func stop(_ process: Process, grace: Duration = .seconds(5)) async {
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
    public func stopAll() async {
        for process in running.reversed() { await stop(process) }
    }

    /// Runs `body` with a new set of children, every one stopped when `body` returns or throws.
    public static func within<T>(_ body: (Children) async throws -> T) async throws -> T {
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

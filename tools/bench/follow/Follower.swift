import Foundation
import ToolSupport

/// A running `oa-repl` that follows the mirror: its standard output is a pipe that a
/// `FollowerOutput` reads, its standard error goes to a log file, and its standard input is a
/// pipe the benchmark writes requests to (JSON lines) or /dev/null.
///
/// Spawned and reaped directly (posix_spawn, waitpid), not with Foundation's `Process`, whose
/// wait polls every 50 ms on Linux; owned by the benchmark's thread.
final class Follower {
    let pid: pid_t
    let output: FollowerOutput
    let log: URL
    /// The write end of its standard input, when it reads requests; -1 otherwise.
    private var input: Int32
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - readsInput: give it a pipe as standard input (else /dev/null).
    ///   - expected: how many measured markers its output will carry.
    init(executable: String, arguments: [String], readsInput: Bool, expected: Int, log: URL) throws {
        self.log = log
        var outputPipe: [Int32] = [-1, -1]
        var inputPipe: [Int32] = [-1, -1]
        guard Self.makePipe(&outputPipe) else { throw BenchmarkFailure("pipe: \(String(cString: strerror(errno)))") }
        if readsInput {
            guard Self.makePipe(&inputPipe) else {
                outputPipe.forEach { close($0) }
                throw BenchmarkFailure("pipe: \(String(cString: strerror(errno)))")
            }
        }
        let logDescriptor = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            // The child has its own copies; the parent keeps the read end of its output and the
            // write end of its input.
            close(outputPipe[1])
            if readsInput { close(inputPipe[0]) }
            if logDescriptor >= 0 { close(logDescriptor) }
        }
        guard logDescriptor >= 0 else {
            close(outputPipe[0])
            if readsInput { close(inputPipe[1]) }
            throw BenchmarkFailure("cannot create \(log.path): \(String(cString: strerror(errno)))")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if readsInput {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], STDIN_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, logDescriptor, STDERR_FILENO)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            close(outputPipe[0])
            if readsInput { close(inputPipe[1]) }
            throw BenchmarkFailure("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        input = readsInput ? inputPipe[1] : -1
        output = FollowerOutput(expected: expected)
        output.startReading(outputPipe[0])
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = reap(within: .seconds(5))
        }
        if input >= 0 { close(input) }
    }

    /// Writes `line` and a newline to its standard input.
    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw BenchmarkFailure("cannot write to oa-repl's standard input: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// Whether it is still running (reaps it if not).
    var isRunning: Bool {
        if exitStatus != nil { return false }
        return reap(within: .zero) == nil
    }

    /// Its CPU time so far (user and system), from /proc/PID/stat; nil once it is gone.
    var cpuTime: Duration? { ProcessStat.cpuTime(of: pid) }

    /// Stops it with SIGTERM and waits at most `grace` for it to exit, then kills it; returns how
    /// it ended ("exit 0" is the only good answer).
    func stop(grace: Duration = .seconds(5)) -> String {
        if exitStatus == nil { kill(pid, SIGTERM) }
        if let status = reap(within: grace) { return Self.describe(status) }
        kill(pid, SIGKILL)
        _ = reap(within: .seconds(5))
        return "did not exit within \(Int(grace.seconds)) s of SIGTERM (killed)"
    }

    /// The last lines of its standard error, for failure messages.
    var logTail: String {
        guard let text = try? String(contentsOf: log, encoding: .utf8), !text.isEmpty else { return "(nothing on standard error)" }
        return text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }

    /// Its wait status once it exited, waiting at most `limit` (zero: only looks).
    private func reap(within limit: Duration) -> Int32? {
        if let exitStatus { return exitStatus }
        let end = ContinuousClock.now + limit
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status
                return status
            }
            if result < 0, errno != EINTR {
                exitStatus = -1
                return -1
            }
            if ContinuousClock.now >= end { return nil }
            usleep(5_000)  // looking at the child's state, with a deadline
        }
    }

    /// A pipe whose ends close on exec (only the copies given to the child stay open in it);
    /// true when made. (`pipe2` is not in Swift's Glibc module.)
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// "exit N", "killed by signal N", from a wait status.
    static func describe(_ status: Int32) -> String {
        if status < 0 { return "lost (waitpid failed)" }
        let signal = status & 0x7F
        return signal == 0 ? "exit \((status >> 8) & 0xFF)" : "killed by signal \(signal)"
    }
}

/// A process's CPU time and memory, from /proc (Linux).
enum ProcessStat {
    /// User plus system CPU time so far; nil when /proc/PID/stat cannot be read.
    static func cpuTime(of pid: pid_t) -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": field 3 (state) is the first; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0 else { return nil }
        return .milliseconds((user + system) * 1000 / ticks)
    }

    /// Context switches of each of its threads so far (voluntary and not), by thread id: each is
    /// a thread that slept and woke, or was preempted. Empty when /proc cannot be read.
    static func contextSwitches(of pid: pid_t) -> [String: Int] {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [:] }
        var counts: [String: Int] = [:]
        for thread in threads {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { continue }
            counts[thread] = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }.reduce(0) { total, line in
                total + (line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.flatMap { Int($0) } ?? 0)
            }
        }
        return counts
    }

    /// Context switches between two readings, of the threads alive at the second (a thread that
    /// ended meanwhile is not counted).
    static func switches(from before: [String: Int], to after: [String: Int]) -> Int? {
        guard !after.isEmpty else { return nil }
        return after.reduce(0) { total, thread in total + thread.value - (before[thread.key] ?? 0) }
    }
}

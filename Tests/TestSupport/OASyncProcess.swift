import Bridge
import Foundation
import ToolSupport

/// The real `oa-sync` binary, run by a test.
public final class OASyncProcess {
    private let process = Process()
    private let end: ProcessEnd
    /// Where its standard error goes: a file, not a pipe, so that a chatty oa-sync never waits for
    /// the test to read (a full pipe would stop it mid-write).
    private let logPath = FileManager.default.temporaryDirectory.appending(path: "oa-sync-log-\(UUID().uuidString)").path
    private let logReader: OutputLineReader

    /// What a finished run printed and returned.
    public typealias Outcome = ProgramRun.Outcome

    /// Runs `oa-sync ARGUMENTS` to the end (inside `namespace`, if given), for at most `timeout`,
    /// its end awaited without holding a thread of the cooperative pool (`ProgramRun.run`).
    public static func run(_ arguments: [String], environment: [String: String] = [:], namespace: AvahiNamespace? = nil,
                           timeout: Duration = .seconds(300)) async throws -> Outcome {
        ProgramGate.checkPlaceHeld(toStart: "oa-sync")
        // A loaded test machine can be slow to answer; the tests are not about that.
        let arguments = arguments + (arguments.contains("--handshake-timeout-ms") ? [] : ["--handshake-timeout-ms", "20000"])
        let executable = BuildProducts.executable("oa-sync")
        let command = namespace?.wrap(executable, arguments) ?? (executable: executable, arguments: arguments)
        return try await ProgramRun.run(command.executable, command.arguments, environment: environment, timeout: timeout)
    }

    /// Starts `oa-sync` in the background with JSON log lines on standard error, which
    /// `waitForLog` reads. Inside `namespace`, if given.
    public init(bridge: String, database: String, extraArguments: [String] = [], namespace: AvahiNamespace? = nil) throws {
        ProgramGate.checkPlaceHeld(toStart: "oa-sync")
        let arguments = ["--bridge", bridge, "--db", database, "--log-format", "json", "--verbose",
                         "--backoff-initial-ms", "20", "--backoff-cap-ms", "200", "--refetch-after-quiet-ms", "100",
                         "--handshake-timeout-ms", "20000"] + extraArguments
        let command = namespace?.wrap(BuildProducts.executable("oa-sync"), arguments) ?? (executable: BuildProducts.executable("oa-sync"), arguments: arguments)
        process.executableURL = command.executable
        process.arguments = command.arguments
        // A crash leaves its backtrace in the log (by default only a terminal gets one).
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["SWIFT_BACKTRACE": "enable=yes,interactive=no,output-to=stderr"]) { _, set in set }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)  // the handle below says why, if it failed
        let logWriter = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? logWriter.close() }
        logReader = try OutputLineReader(path: logPath)
        process.standardError = logWriter
        process.standardOutput = FileHandle.nullDevice
        end = try ProcessEnd(running: process)
    }

    /// Released, it is killed (SIGKILL) and not waited for: `terminate()` and `kill()` wait.
    deinit {
        if !end.hasEnded { Foundation.kill(end.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// Reads log lines until one satisfies `predicate`.
    ///
    /// - Parameter what: the line awaited, as a failure names it ("state live").
    /// - Throws: `WaitTimedOut` when no such line came within `timeout`, naming `what` and the last
    ///   line oa-sync logged; `OASyncEnded` when it ended first.
    @discardableResult
    public func waitForLog(_ what: String, timeout: Duration = .seconds(60), _ predicate: (JSONValue) -> Bool) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line: String
            do {
                line = try await readLine(before: deadline)
            } catch let error as OutputLineReader.TimedOut {
                throw WaitTimedOut(awaited: "oa-sync to log \(what)", timeout: timeout, seen: error.seen)
            } catch let error as OutputLineReader.ProcessEnded {
                throw OASyncEnded(description: "oa-sync ended (status \(end.endedStatus.map(String.init) ?? "?")) before it logged \(what); "
                    + error.seen + "; its log ends:\n" + logTail())
            }
            if let json = try? JSONParser.parse(line), predicate(json) { return json }
        }
    }

    /// The last 4 KB of the log (a crash's backtrace, say).
    private func logTail() -> String {
        guard let log = FileManager.default.contents(atPath: logPath) else { return "(unreadable)" }
        return String(decoding: log.suffix(4096), as: UTF8.self)
    }

    /// Waits for the engine to reach `state`.
    public func waitForState(_ state: String, timeout: Duration = .seconds(60)) async throws {
        try await waitForLog("state \(state)", timeout: timeout) { $0["message"]?.stringValue == "state" && $0["state"]?.stringValue == state }
    }

    /// oa-sync ended while a test waited for a line of its log.
    public struct OASyncEnded: Error, CustomStringConvertible {
        public let description: String
    }

    /// SIGTERM, then waits (the task, not a thread; its log is a file, so it never waits for
    /// the test to read) for at most `timeout`; past it, SIGKILL. Returns the exit status (-1 when
    /// it had to be killed).
    @discardableResult
    public func terminate(timeout: Duration = .seconds(30)) async -> Int32 {
        (try? await end.stop(within: timeout, program: "oa-sync")) ?? -1
    }

    /// SIGKILL (no chance to finish anything), then waits for its end, at most 10 s.
    public func kill() async {
        await end.kill()
    }

    public var isRunning: Bool { process.isRunning }

    /// The next line it logged, waiting for it until `deadline` (sleeping the task, not a thread
    /// of the cooperative pool, which the tests share).
    private func readLine(before deadline: ContinuousClock.Instant) async throws -> String {
        try await logReader.nextLine(before: deadline, program: "oa-sync") { process.isRunning }
    }
}

import Bridge
import Foundation
import ToolSupport

/// The real `oa-repl`, running while a test talks to it: lines written to its standard input
/// (a pipe), lines read from its standard output with a deadline.
public final class ReplSession: JSONRPCPeer {
    private let process = Process()
    private let input = Pipe()
    private let outputPath = FileManager.default.temporaryDirectory.appending(path: "oa-repl-out-\(UUID().uuidString)").path
    private let errorPath = FileManager.default.temporaryDirectory.appending(path: "oa-repl-err-\(UUID().uuidString)").path
    private let output: OutputLineReader
    private let end: ProcessEnd

    /// Starts `oa-repl ARGUMENTS`.
    ///
    /// - Parameter pipedOutput: its standard output is a pipe, which fills up when the test does
    ///   not read it (the default is a file, which never makes it wait).
    public init(_ arguments: [String], environment: [String: String] = [:], pipedOutput: Bool = false) throws {
        ProgramGate.checkPlaceHeld(toStart: "oa-repl")
        // A write to a session that has ended fails with EPIPE rather than ending the test run.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = BuildProducts.executable("oa-repl")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)  // the handles below say why, if it failed
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let errorWriter = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errorWriter.close() }
        if pipedOutput {
            let pipe = Pipe()
            output = OutputLineReader(descriptor: dup(pipe.fileHandleForReading.fileDescriptor))
            process.standardOutput = pipe
        } else {
            output = try OutputLineReader(path: outputPath)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        }
        process.standardInput = input
        process.standardError = errorWriter
        end = try ProcessEnd(running: process)
        try? input.fileHandleForReading.close()
        if let pipe = process.standardOutput as? Pipe {
            try? pipe.fileHandleForWriting.close()
            try? pipe.fileHandleForReading.close()
        } else {
            try? (process.standardOutput as? FileHandle)?.close()
        }
    }

    /// `oa-repl --db MIRROR --jsonl` with a subscription made (request 1, `params`); the answer.
    public static func subscriber(of mirror: String, _ params: JSONValue) async throws -> (ReplSession, answer: JSONValue) {
        let session = try ReplSession(["--db", mirror, "--jsonl"])
        try session.request(1, "events.subscribe", params)
        return (session, try await session.answer(to: 1).answer)
    }

    /// Released, it is killed (SIGKILL) and not waited for: `stop` and `waitForExit` wait.
    deinit {
        if !end.hasEnded { Foundation.kill(end.processIdentifier, SIGKILL) }
        try? input.fileHandleForWriting.close()
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Writes `line` and a newline to its standard input.
    public func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Ends its standard input.
    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    // Every wait below sleeps the task, not the thread: the tests share the cooperative pool's
    // few threads, and a test holding one for seconds holds up every other.

    /// The next line it wrote, waiting for it for at most `timeout`.
    public func nextLine(timeout: Duration = .seconds(60)) async throws -> String {
        try await output.nextLine(before: .now + timeout, program: "oa-repl") { process.isRunning }
    }

    /// What it wrote after the last line read, once `done` holds for it (the text may end
    /// mid-line, as a streamed message does), waiting for at most `timeout`.
    public func unreadText(timeout: Duration = .seconds(60), until done: (String) -> Bool) async throws -> String {
        try await output.unreadText(before: .now + timeout, program: "oa-repl", isRunning: { process.isRunning }, until: done)
    }

    /// The next line that is JSON.
    public func nextJSON(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try await output.nextLine(before: deadline, program: "oa-repl") { process.isRunning }
            if let json = try? JSONParser.parse(line) { return json }
        }
    }

    /// Sends `signal`, then waits for it to end for at most `timeout` (past it, SIGKILL and -1).
    public func stop(with signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async -> Int32 {
        (try? await end.stop(with: signal, within: timeout, program: "oa-repl")) ?? -1
    }

    /// Its exit status once it ended by itself within `timeout`; -1 (and SIGKILL) when it did not.
    public func waitForExit(timeout: Duration = .seconds(60)) async -> Int32 {
        if let status = await end.status(within: timeout) { return status }
        await end.kill()
        return -1
    }

    /// Bytes it wrote to its piped standard output that the test has not read yet.
    public var bytesWaiting: Int { output.bytesWaiting }

    /// What it wrote to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

}

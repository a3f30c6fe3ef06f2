import Bridge
import Foundation

/// The real `oa-sync` binary, run by a test.
public final class OASyncProcess {
    private let process = Process()
    private let errorOutput = Pipe()
    private var buffer = Data()

    /// What a finished run printed and returned.
    public struct Outcome {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// Runs `oa-sync ARGUMENTS` to the end.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = BuildProducts.executable("oa-sync")
        // A loaded test machine can be slow to answer; the tests are not about that.
        process.arguments = arguments + (arguments.contains("--handshake-timeout-ms") ? [] : ["--handshake-timeout-ms", "20000"])
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                       standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Starts `oa-sync` in the background with JSON log lines on standard error, which
    /// `waitForLog` reads.
    public init(bridge: String, database: String, extraArguments: [String] = []) throws {
        process.executableURL = BuildProducts.executable("oa-sync")
        process.arguments = ["--bridge", bridge, "--db", database, "--log-format", "json", "--verbose",
                             "--backoff-initial-ms", "20", "--backoff-cap-ms", "200", "--refetch-after-quiet-ms", "100",
                             "--handshake-timeout-ms", "20000"] + extraArguments
        process.standardError = errorOutput
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        kill()
    }

    /// Reads log lines until one satisfies `predicate`; fails if the process ends first, or when
    /// no such line came within `timeout`.
    @discardableResult
    public func waitForLog(timeout: Duration = .seconds(60), _ predicate: (JSONValue) -> Bool) throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try readLine(before: deadline)
            if let json = try? JSONParser.parse(line), predicate(json) { return json }
        }
    }

    /// Waits for the engine to reach `state`.
    public func waitForState(_ state: String, timeout: Duration = .seconds(60)) throws {
        try waitForLog(timeout: timeout) { $0["message"]?.stringValue == "state" && $0["state"]?.stringValue == state }
    }

    /// SIGTERM, then waits; returns the exit status.
    @discardableResult
    public func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: no chance to finish anything.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public var isRunning: Bool { process.isRunning }

    private func readLine(before deadline: ContinuousClock.Instant) throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let handle = errorOutput.fileHandleForReading
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard milliseconds > 0, poll(&ready, 1, milliseconds) > 0 else { throw TimedOut() }
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw ProcessEnded() }
            buffer.append(chunk)
        }
    }

    /// The process ended before the awaited line.
    public struct ProcessEnded: Error {}

    /// The awaited line did not come in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String { "oa-sync did not log the awaited line in time" }
    }
}

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

    /// Reads log lines until one satisfies `predicate`; fails if the process ends first.
    @discardableResult
    public func waitForLog(_ predicate: (JSONValue) -> Bool) throws -> JSONValue {
        while true {
            let line = try readLine()
            if let json = try? JSONParser.parse(line), predicate(json) { return json }
        }
    }

    /// Waits for the engine to reach `state`.
    public func waitForState(_ state: String) throws {
        try waitForLog { $0["message"]?.stringValue == "state" && $0["state"]?.stringValue == state }
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

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = errorOutput.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ProcessEnded() }
            buffer.append(chunk)
        }
    }

    public struct ProcessEnded: Error {}
}

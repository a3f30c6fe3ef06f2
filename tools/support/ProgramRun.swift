import Foundation

/// Any program, run to its end with some standard input, for a bounded time.
public enum ProgramRun {
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String

        public init(status: Int32, standardOutput: String, standardError: String) {
            self.status = status
            self.standardOutput = standardOutput
            self.standardError = standardError
        }
    }

    /// A run that did not end in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable arguments` with `input` on its standard input, for at most `timeout`:
    /// past it, it is killed and this throws `TimedOut`; cancelled, it is killed and this throws
    /// `CancellationError`. The calling task awaits the end
    /// (`ProcessEnd`) without holding a thread of the cooperative pool, which the tests share.
    /// Its input and output are files, not pipes: a process it leaves behind, or another the test
    /// started meanwhile, could hold a pipe open, and reading it to its end would never return.
    public static func run(_ executable: URL, _ arguments: [String], input: Data = Data(),
                           environment: [String: String] = [:], timeout: Duration = .seconds(300)) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let directory = FileManager.default.temporaryDirectory
        let paths = ["in", "out", "err"].map { directory.appending(path: "program-\($0)-\(UUID().uuidString)").path }
        defer { paths.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try input.write(to: URL(fileURLWithPath: paths[0]))
        _ = FileManager.default.createFile(atPath: paths[1], contents: nil)  // the handles below say why, if it failed
        _ = FileManager.default.createFile(atPath: paths[2], contents: nil)
        let standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: paths[0]))
        let standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: paths[1]))
        let standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: paths[2]))
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        let end = try ProcessEnd(running: process)
        [standardInput, standardOutput, standardError].forEach { try? $0.close() }
        guard let status = await end.status(within: timeout) else {
            await end.kill()
            try Task.checkCancellation()
            throw TimedOut(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not end within \(timeout)")
        }
        return Outcome(status: status,
                       standardOutput: (try? String(contentsOfFile: paths[1], encoding: .utf8)) ?? "",
                       standardError: (try? String(contentsOfFile: paths[2], encoding: .utf8)) ?? "")
    }
}
